// Every descriptor argument of every launch, traced through the host flows (host/LaunchArgs.cpp).
#pragma once

#include "../core/PassContext.h"

namespace tma::analysis {

class HostBuffers;
class Launchers;
class UploadHelpers;


/// One descriptor argument of a launch, as the host flows see it.
struct LaunchArg {
  const KernelLaunch &KL;
  unsigned Index;
  const clang::FunctionDecl *Fn; // the function holding the launch
  unsigned Depth;                // launchers it went through
  const std::vector<TextEdit> &Extra; // edits that go with it (launcher parameters)
  const clang::Expr *Arg;
  const clang::DeclRefExpr *Ref; // Arg names a variable: the reference, or null
  const clang::VarDecl *Var;     // ... and the variable, or null
  /// What the host descriptor replaces: Ref, or the cast around it that
  /// only adds `const` (`(const CUtensorMap *)d`).
  const clang::Expr *Spelled;
};


/// What a host flow says about a launch argument: not its flow, refused
/// (Why), accepted (the LaunchSite it filled in), or forwarded to the
/// callers of a launcher (their launch sites stand for it).
struct FlowAnswer {
  enum Kind { NotMine, Accepted, Refused, Forwarded } Verdict;
  std::optional<Blocker> Why;
  static FlowAnswer notMine() { return {NotMine, std::nullopt}; }
  static FlowAnswer accepted() { return {Accepted, std::nullopt}; }
  static FlowAnswer forwarded() { return {Forwarded, std::nullopt}; }
  static FlowAnswer refused(Blocker B) { return {Refused, std::move(B)}; }
};


/// Every descriptor argument of every launch, traced to its host
/// descriptor through the flows above (host/LaunchArgs.cpp): one ordered
/// registry of flows, each asked in turn until one claims the argument.
class LaunchArgs : public PassComponent {
public:
  LaunchArgs(PassContext &P, HostBuffers &Buffers, Launchers &LauncherFlow,
             UploadHelpers &UploadFlow)
      : PassComponent(P), Buffers(Buffers), LauncherFlow(LauncherFlow), UploadFlow(UploadFlow) {}

  void analyzeLaunch(const KernelLaunch &KL, const clang::FunctionDecl *Fn);
  /// One descriptor argument of a launch (or of a call to a launcher that
  /// forwards it, \p Depth launchers deep); \p Extra: edits that go with it
  /// (the launchers' parameter types).
  void analyzeLaunchArg(const KernelLaunch &KL, unsigned I, const clang::FunctionDecl *Fn,
                        unsigned Depth, const std::vector<TextEdit> &Extra);

  // The host flows, in the order of the registry in LaunchArgs.cpp. Each
  // fills \p LS when it accepts the argument.
  FlowAnswer launchedFromDevice(const LaunchArg &A, LaunchSite &LS);
  FlowAnswer notAVariable(const LaunchArg &A, LaunchSite &LS);
  FlowAnswer launcherParameter(const LaunchArg &A, LaunchSite &LS);
  FlowAnswer staticLocalCache(const LaunchArg &A, LaunchSite &LS);
  FlowAnswer fileScopeCache(const LaunchArg &A, LaunchSite &LS);
  FlowAnswer notLocal(const LaunchArg &A, LaunchSite &LS);
  FlowAnswer spelledInMacro(const LaunchArg &A, LaunchSite &LS);
  FlowAnswer uploadHelperCall(const LaunchArg &A, LaunchSite &LS);
  FlowAnswer uploadHelperVariable(const LaunchArg &A, LaunchSite &LS);
  FlowAnswer memberDeviceCopy(const LaunchArg &A, LaunchSite &LS);
  FlowAnswer deviceBuffer(const LaunchArg &A, LaunchSite &LS);

private:
  HostBuffers &Buffers;
  Launchers &LauncherFlow;
  UploadHelpers &UploadFlow;
  /// Refuses the argument with the reason \p Why, filled with \p Args.
  FlowAnswer refuse(ReasonID Why, llvm::ArrayRef<std::string> Args, clang::SourceLocation At,
                    std::vector<Note> Notes = {});
  const clang::FunctionDecl *cacheHelper(const clang::VarDecl *Cache,
                                         const clang::FunctionDecl *Fn);
  const clang::Stmt *deviceChange(BufferStorage S);
  static bool localStorage(BufferStorage S);
  bool onOneStream(BufferStorage S, const clang::Stmt *Launch, const clang::FunctionDecl *Fn);
  void appendOpsOfUse(const clang::Stmt *U, const clang::Stmt *Launch, const clang::FunctionDecl *Fn,
                      std::vector<std::pair<const clang::CallExpr *, const clang::FunctionDecl *>> &Ops,
                      unsigned Depth);
  void appendChangeOps(BufferStorage S, const clang::Stmt *Launch, const clang::FunctionDecl *Fn,
                       std::vector<std::pair<const clang::CallExpr *, const clang::FunctionDecl *>> &Ops);
  bool onLegacyStream(BufferStorage S, const clang::Stmt *Launch);
  FlowAnswer traceDeviceCopy(const LaunchArg &A, BufferStorage S, const clang::Expr *Spelled,
                             LaunchSite &LS);
  FlowAnswer passHostArray(const LaunchArg &A, const CopyInfo &Reaching,
                           const clang::Expr *Spelled, const std::string &Name, LaunchSite &LS);
  const clang::Expr *uncastAddressOf(const clang::Expr *E, const clang::FunctionDecl *Fn);
  bool readsConstHost(const clang::CallExpr *Copy);
  FlowAnswer passHelperResult(const clang::FunctionDecl *Helper, std::string Passed,
                              LaunchSite &LS);
  FlowAnswer passCachedDescriptor(const LaunchArg &A, const clang::FunctionDecl *Helper,
                                  const clang::CharSourceRange &ArgRange, LaunchSite &LS);
};

} // namespace tma::analysis
