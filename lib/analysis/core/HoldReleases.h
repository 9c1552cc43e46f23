// Where a held stream is let go. A kernel that only waits for a flag in
// mapped host memory (StreamHolds.h's flagWaitParameter) holds its stream
// until the host stores a value other than zero there; work enqueued on
// the stream behind it cannot start before such a store. Knowing the
// stores lets the storage rule say what a held launch reads: the device
// copy as the writes before the release left it (StorageStreamTime.cpp).
#pragma once

#include "PassContext.h"

#include <map>
#include <optional>
#include <vector>

namespace tma::analysis {

class HoldReleases : public PassComponent {
public:
  explicit HoldReleases(PassContext &P) : PassComponent(P) {}

  /// The statements of \p Fn that may release operation \p Op (a launch or
  /// a copy of \p Fn) when it waits behind a hold: every hold of its
  /// stream (a local non-blocking stream variable) is a launch in \p Fn of
  /// a kernel that waits for one flag, every use of that flag is one the
  /// rows below classify, every path to \p Op enqueues a hold after the
  /// last store that may release one, and the answer is the stores that
  /// may (of a value other than a literal zero). None otherwise: the
  /// operation may run at any time from its call.
  std::optional<std::vector<const clang::Stmt *>> releasesOf(const clang::CallExpr *Op,
                                                             const clang::FunctionDecl *Fn);

private:
  /// The stores of \p Fn into the host memory a hold's flag \p DevFlag
  /// maps, when every use of the flag and of its host pointer is one of:
  /// the allocation of the mapped memory (`cudaHostAlloc(&flag, ...)`),
  /// the mapping (`cudaHostGetDevicePointer(&dflag, flag, 0)`), an
  /// argument of \p Holds, a store `*flag = value;` as a statement of its
  /// own, and the free; and both are locals of \p Fn no lambda names.
  std::optional<std::vector<const clang::Stmt *>>
  flagStores(const clang::VarDecl *DevFlag, llvm::ArrayRef<const clang::Stmt *> Holds,
             const clang::FunctionDecl *Fn);
  std::map<const clang::VarDecl *, std::optional<std::vector<const clang::Stmt *>>> Stores;
};

} // namespace tma::analysis
