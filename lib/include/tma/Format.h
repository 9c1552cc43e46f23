// --format-style: the touched ranges of the rewritten files reformatted with
// clang-format, as clang-tidy and clang-apply-replacements --format do.
#pragma once

#include "tma/Facts.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace tma {

/// Checks a --format-style value (`none`, `file`, `llvm`, `google`, ...,
/// `file:<path>` or `{key: value, ...}`) for \p File, the way the edits of
/// that file would use it: an error names what is wrong.
llvm::Error checkFormatStyle(llvm::StringRef Style, llvm::StringRef File);

/// Whether \p Style leaves the edits as they are (`none`, or empty).
bool formatStyleIsNone(llvm::StringRef Style);

/// \p Edits of \p File (whose text is \p Code), cleaned up and with the code
/// around them reformatted in \p Style; the result is again a list of edits
/// of the original text. `file` takes the .clang-format found upward from
/// \p File, and no formatting when there is none (clang-tidy's fallback).
llvm::Expected<std::vector<TextEdit>> formatEdits(llvm::StringRef Code, llvm::StringRef File,
                                                  const std::vector<TextEdit> &Edits,
                                                  llvm::StringRef Style);

} // namespace tma
