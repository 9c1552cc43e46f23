// The source root of a run: the directory outside which nothing is edited
// (--in-root), and where the run keeps its lock and journal.
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace tma {

/// The root when --in-root is not given: the deepest directory that holds the
/// current directory \p Cwd, the compile database \p DatabaseFile (when one
/// is used) and every file it lists, \p Listed. That is the project the
/// database describes, whether it sits at the top or in a build folder, and
/// wherever in it the run starts; without a database it is \p Cwd. When only
/// a filesystem root holds them all, it is \p Cwd as well (files elsewhere are
/// then refused, tma-108).
std::string defaultSourceRoot(llvm::StringRef Cwd, llvm::StringRef DatabaseFile,
                              llvm::ArrayRef<std::string> Listed);

/// The directory from \p From upward that holds a run's journal, or \p From
/// when none does: `--recover` with no --in-root finds a run that a default
/// root put higher up.
std::string rootWithJournal(llvm::StringRef From);

} // namespace tma
