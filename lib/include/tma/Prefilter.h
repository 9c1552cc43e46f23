// A cheap look at a translation unit before it is parsed: can it involve a
// descriptor at all? Most TUs of a project cannot, and parsing both CUDA
// sides of each is the whole cost of a run.
#pragma once

#include "tma/CompileArgs.h"

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace tma {

struct PrefilterResult {
  /// True when the TU needs the full analysis (or when that cannot be ruled out).
  bool MayMatter = true;
  std::string Reason; // why it matters, or why it was skipped
  /// The TU's own file and every user header it may include (normalised).
  std::vector<std::string> Files;
};

/// Reads the TU's file and follows every `#include` that resolves to a user
/// directory (the file's own, -iquote, -I, -include), whatever `#if`
/// surrounds it, so the set is a superset of what the compiler reads from
/// those directories. Headers reached through -isystem or the toolkit are
/// not read. The TU may matter when any of these files spells a descriptor
/// type (CUtensorMap, TmaDescriptor), or an include cannot be resolved by
/// text (`#include MACRO`).
PrefilterResult prefilter(const std::string &File, const CompileOptions &Compile);

/// The TU's own file and every user header it may include, followed as
/// prefilter() does but to the end, in one walk; none when that cannot be
/// known (a file that cannot be read, an include computed by a macro).
/// \p SpellsDescriptor: whether one of them spells a descriptor type (true
/// when not every file was seen), as prefilter()'s MayMatter.
std::optional<std::vector<std::string>> userFilesOf(const std::string &File,
                                                   const CompileOptions &Compile,
                                                   bool &SpellsDescriptor);

/// One `#include`, `#include_next` or `#import` line of a file: the name
/// between its quotes or brackets (a view into the text), or Computed when
/// a macro names the file.
struct IncludeLine {
  llvm::StringRef Name;
  bool Angled = false;
  bool Computed = false;
};

/// Every include line of \p Text in order, read by text whatever `#if`
/// surrounds it.
std::vector<IncludeLine> includeLines(llvm::StringRef Text);

/// Whether any of \p Files contains one of \p Words as a whole identifier.
bool filesMention(const std::vector<std::string> &Files, const std::vector<std::string> &Words);

} // namespace tma
