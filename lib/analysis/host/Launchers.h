// H7: launcher functions that forward a descriptor parameter (host/Launchers.cpp).
#pragma once

#include "../core/PassContext.h"

#include <functional>

namespace tma::analysis {


/// H7: launcher functions that forward a descriptor parameter to a launch
/// (host/Launchers.cpp).
class Launchers : public PassComponent {
public:
  /// Analyses one descriptor argument of a launch or of a launcher call
  /// (LaunchArgs::analyzeLaunchArg, which in turn follows launchers here).
  using AnalyzeArg = std::function<void(const KernelLaunch &, unsigned, const clang::FunctionDecl *,
                                        unsigned, const std::vector<TextEdit> &)>;
  Launchers(PassContext &P, AnalyzeArg Analyze) : PassComponent(P), Analyze(std::move(Analyze)) {}

  /// \p PV, a parameter of launcher \p L, is the descriptor argument of
  /// a launch. Analyses every call of L as a launch; returns why not when
  /// the launcher cannot be followed.
  std::optional<Blocker> forwardThroughLauncher(const KernelLaunch &KL, unsigned I,
                                                const clang::ParmVarDecl *PV,
                                                const clang::FunctionDecl *L, unsigned Depth,
                                                const LaunchSite &LS,
                                                const std::vector<TextEdit> &Extra);
  /// The launch a launcher's parameter is forwarded to: (kernel, index), when
  /// the parameter is used only as that launch's descriptor argument.
  std::optional<std::pair<const clang::FunctionDecl *, unsigned>>
  launcherTarget(const clang::FunctionDecl *L, unsigned ParamIndex,
                 const clang::Stmt **Offending = nullptr, unsigned Depth = 0);
  /// A plain host function of the user's whose body another translation
  /// unit holds (not a CUDA API): possibly a launcher defined elsewhere.
  bool isForeignLauncher(const clang::FunctionDecl *L);
  /// The key of \p L's parameter \p ParamIndex when L may be a launcher
  /// defined elsewhere and the parameter a `const CUtensorMap *`, else "".
  std::string foreignLauncherKey(const clang::FunctionDecl *L, unsigned ParamIndex);
  /// H7 across translation units: each call of a possible launcher defined
  /// elsewhere is analysed as a launch keyed by the launcher's parameter;
  /// the planner joins it with the defining TU's LauncherForward.
  void analyzeForeignCalls();

private:
  AnalyzeArg Analyze;
  /// The '*' of parameter \p ParamIndex becomes '&' in every declaration of
  /// \p L (into \p Edits); why not, when one cannot be edited.
  std::optional<Blocker> parameterEdits(const clang::FunctionDecl *L, unsigned ParamIndex,
                                        std::vector<TextEdit> &Edits);
  /// The fact that joins calls of \p L in other TUs to the launch \p LS.
  void recordForward(const clang::FunctionDecl *L, unsigned ParamIndex, const LaunchSite &LS,
                     const std::vector<TextEdit> &Edits, unsigned Calls);
  void analyzeForeignCall(const clang::FunctionDecl *L, unsigned ParamIndex,
                          const std::string &Key, const clang::DeclRefExpr *R,
                          const clang::FunctionDecl *Caller,
                          const std::optional<Blocker> &NotEditable,
                          const std::vector<TextEdit> &Edits);
};

} // namespace tma::analysis
