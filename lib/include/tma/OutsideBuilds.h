// Issue 33: builds the run does not see. A header under the source root may
// be read by sources that neither the run nor the compile database builds
// (other programs, other Makefiles); an edit of it must not break them.
#pragma once

#include <set>
#include <string>
#include <vector>

namespace tma {

/// What the search of the source root found.
struct RootIncluders {
  /// Sources (by extension: .cu, .cpp, .cc, .cxx, .c) that include one of
  /// the edited files directly or through other files of the root, and that
  /// are not in the known set (the run's units and the database's).
  std::vector<std::string> Sources;
  /// False when the root holds more files than the search reads: builds that
  /// include an edited file may have been missed.
  bool Complete = true;
  size_t FilesRead = 0;
};

/// Searches \p Root (hidden directories and \p BuildTree left out) for the
/// sources that include one of \p Edited: an `#include` whose last path
/// component is an edited file's name, or the name of a file of the root
/// that does, to a fixpoint; an include a macro computes may name any
/// file (Prefilter.h's includeLines reads them). A superset read by text (the include paths are
/// not resolved here, nor `#if` taken into account): the caller resolves
/// each source's includes with its flags. At most \p Limit files are read.
RootIncluders sourcesIncluding(const std::string &Root, const std::string &BuildTree,
                               const std::vector<std::string> &Edited,
                               const std::set<std::string> &Known, size_t Limit = 50000);

} // namespace tma
