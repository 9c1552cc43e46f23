// K4: launches through local function-pointer variables (host/PointerLaunches.cpp).
#pragma once

#include "../core/PassContext.h"

#include <map>
#include <optional>

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
                                           const std::vector<const clang::FunctionDecl *> &Kernels,
                                           std::optional<Reason> &Why);
  /// The function type the pointer's type spells: written in its
  /// declaration, or in the alias it names when that alias is declared in
  /// this file and names only such pointers (\p Alias set); why not in \p Why.
  clang::FunctionProtoTypeLoc spelledType(const clang::VarDecl *V,
                                          const clang::TypedefNameDecl *&Alias,
                                          std::optional<Reason> &Why);
  /// Where the translation unit names alias \p TD (once per TU).
  const std::vector<clang::SourceLocation> &aliasUses(const clang::TypedefNameDecl *TD);
  std::optional<std::map<const clang::TypedefNameDecl *, std::vector<clang::SourceLocation>>>
      AliasUses;
  /// The kernels of every pointer declared with each alias: one type, so
  /// they change together.
  std::map<const clang::TypedefNameDecl *, std::vector<const clang::FunctionDecl *>> AliasKernels;
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
