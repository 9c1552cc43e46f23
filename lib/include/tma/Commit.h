// Writing a run's edits to disk: every file or none, under a lock, with a
// journal so that a run killed half way through its renames is finished (or
// undone) by the next one. See docs/reliability.md, "Interrupted runs".
#pragma once

#include "tma/Engine.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace tma {

/// A lock (flock) on the run's root directory, held while a run writes (or
/// recovers) so that two runs on one tree never interleave their writes.
/// Analysis runs unlocked: a file that another run replaced meanwhile is
/// found changed when this run comes to write it (tma-203).
class RootLock {
public:
  /// Locks \p Root exclusively; when another run still holds it after a
  /// second, calls \p Waiting once, then waits for it.
  static llvm::Expected<RootLock> acquire(llvm::StringRef Root,
                                          llvm::function_ref<void()> Waiting);
  RootLock(RootLock &&O) : FD(O.FD) { O.FD = -1; }
  RootLock(const RootLock &) = delete;
  ~RootLock();

private:
  explicit RootLock(int FD) : FD(FD) {}
  int FD = -1;
};

/// Where a run that writes keeps its journal: in the --in-root directory.
std::string journalPath(llvm::StringRef Root);

/// What an interrupted run left behind, and what was done about it.
struct Recovery {
  enum Kind {
    Nothing,  // no journal
    Discarded, // killed before any file was replaced: its temporary files removed
    Finished, // killed among the renames: the remaining ones done
    Undone,   // could not be finished (a temporary file is gone): files restored
    Stuck,    // a file changed since: nothing done, the journal kept
    Pending,  // only looked (Apply = false): a journal is there
  } What = Nothing;
  std::vector<std::string> Files;    // files replaced by the recovery
  std::vector<std::string> Problems; // Stuck: one line per file in the way
};

/// Reads \p Root's journal and, when \p Apply (under the root's lock),
/// finishes the interrupted
/// run's renames when every one can be done, restores the files it replaced
/// when not, and refuses (Stuck) when a file has changed since.
Recovery recoverInterruptedRun(llvm::StringRef Root, bool Apply,
                               llvm::function_ref<void()> Waiting);

struct CommitResult {
  std::vector<std::string> Written; // files replaced
  /// Errors of the run as a whole (the journal cannot be written): nothing
  /// was written.
  std::vector<std::string> Errors;
  /// Written, but with a side effect the user should know of (a file that
  /// had other hard links: those names keep the old contents).
  std::vector<std::string> Warnings;
};

/// Writes R.Edits as one transaction: every new file is first written to a
/// temporary file next to it (fsync), then the journal is committed, then
/// the temporaries are renamed over the files, then the journal is removed.
/// A file that cannot be prepared (no temporary file possible, or it changed
/// since it was read) refuses the units that edit it (tma-203) and the rest
/// is written without them; R.Edits is updated to what was written.
/// It holds the root's lock from the check to the end.
CommitResult commitEdits(RunResult &R, llvm::StringRef Root,
                         llvm::function_ref<void()> Waiting);

} // namespace tma
