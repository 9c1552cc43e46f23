// K4: launches through local function-pointer variables (host/PointerLaunches.cpp).
#pragma once

#include "../core/PassContext.h"

namespace tma::analysis {

class KernelRefs;
class LaunchArgs;


/// K4: launches through local function-pointer variables
/// (host/PointerLaunches.cpp).
class PointerLaunches : public PassComponent {
public:
  PointerLaunches(PassContext &P, KernelRefs &KernelRefChecks, LaunchArgs &LaunchArgFlow)
      : PassComponent(P), KernelRefChecks(KernelRefChecks), LaunchArgFlow(LaunchArgFlow) {}

  void analyzePointerLaunches(const clang::VarDecl *V, const clang::FunctionDecl *Fn,
                              const std::vector<const clang::CUDAKernelCallExpr *> &Calls);
  /// The launches of every accepted pointer, once all targets are known.
  void analyzeDeferredLaunches();

private:
  KernelRefs &KernelRefChecks;
  LaunchArgs &LaunchArgFlow;
  /// Why not every kernel a pointer may launch is seen: a row of the reason
  /// table, its arguments after the kernel's and the pointer's names (which
  /// only the refusal knows), and where.
  struct Reason {
    ReasonID ID;
    std::vector<std::string> Args;
    clang::SourceLocation At;
  };
  using Launches = std::vector<const clang::CUDAKernelCallExpr *>;

  bool pointerTargets(const clang::Expr *E, std::vector<const clang::DeclRefExpr *> &Targets);
  /// Collects the kernels \p V may hold into \p Targets; why they may not
  /// be all of them (its initialiser, storage, or one of its uses).
  std::optional<Reason> whyTargetsUnseen(const clang::VarDecl *V, const clang::FunctionDecl *Fn,
                                         const Launches &Calls,
                                         std::vector<const clang::DeclRefExpr *> &Targets);
  /// One use of the pointer: a launch, an assignment of kernels, or neither.
  std::optional<Reason> whyUseUnseen(const clang::DeclRefExpr *R, const clang::FunctionDecl *Fn,
                                     const Launches &Calls,
                                     std::vector<const clang::DeclRefExpr *> &Targets);
  /// The edits that drop the '*' of each descriptor parameter in the
  /// pointer's written function type; sets \p Why when it cannot be edited.
  std::vector<TextEdit> parameterTypeEdits(const clang::VarDecl *V,
                                           const clang::FunctionDecl *Kernel,
                                           std::optional<Reason> &Why);
  TextEdit starDeletion(clang::CharSourceRange Star);
  /// Every launch through \p V, of every kernel it may hold, stays as it is.
  void refusePointerLaunches(const clang::VarDecl *V, const clang::FunctionDecl *Fn,
                             const Launches &Calls,
                             const std::vector<const clang::FunctionDecl *> &Kernels,
                             const Reason &Why);
  /// The kernels change together; each launch is traced for each of them.
  void tiePointerTargets(const clang::VarDecl *V, const clang::FunctionDecl *Fn,
                         const Launches &Calls,
                         const std::vector<const clang::FunctionDecl *> &Kernels,
                         const std::vector<TextEdit> &TypeEdits);
  struct DeferredLaunch {
    KernelLaunch KL;
    const clang::FunctionDecl *Fn;
    std::vector<TextEdit> TypeEdits;
  };
  std::vector<DeferredLaunch> Deferred;
};

} // namespace tma::analysis
