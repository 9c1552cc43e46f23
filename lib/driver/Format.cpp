#include "tma/Format.h"

#include "clang/Format/Format.h"
#include "clang/Tooling/Core/Replacement.h"

namespace tma {

// clang-tidy's fallback: a `file` style with no .clang-format formats nothing.
static constexpr llvm::StringLiteral FallbackStyle = "none";

bool formatStyleIsNone(llvm::StringRef Style) {
  return Style.empty() || Style.equals_insensitive("none");
}

llvm::Error checkFormatStyle(llvm::StringRef Style, llvm::StringRef File) {
  if (formatStyleIsNone(Style))
    return llvm::Error::success();
  llvm::Expected<clang::format::FormatStyle> S =
      clang::format::getStyle(Style, File, FallbackStyle);
  return S ? llvm::Error::success() : S.takeError();
}

llvm::Expected<std::vector<TextEdit>> formatEdits(llvm::StringRef Code, llvm::StringRef File,
                                                  const std::vector<TextEdit> &Edits,
                                                  llvm::StringRef Style) {
  if (formatStyleIsNone(Style) || Edits.empty())
    return Edits;
  llvm::Expected<clang::format::FormatStyle> S =
      clang::format::getStyle(Style, File, FallbackStyle, Code);
  if (!S)
    return S.takeError();
  clang::tooling::Replacements Reps;
  for (const TextEdit &E : Edits)
    if (llvm::Error Err = Reps.add(clang::tooling::Replacement(File, E.Offset, E.Length, E.Text)))
      return std::move(Err);
  // The same two steps, in the same order, as clang-tidy's --fix with
  // --format-style, so that both give the same file.
  llvm::Expected<clang::tooling::Replacements> Cleaned =
      clang::format::cleanupAroundReplacements(Code, Reps, *S);
  if (!Cleaned)
    return Cleaned.takeError();
  llvm::Expected<clang::tooling::Replacements> Formatted =
      clang::format::formatReplacements(Code, *Cleaned, *S);
  if (!Formatted)
    return Formatted.takeError();
  std::vector<TextEdit> Out;
  for (const clang::tooling::Replacement &R : *Formatted)
    Out.push_back({File.str(), R.getOffset(), R.getLength(), R.getReplacementText().str()});
  return Out;
}

} // namespace tma
