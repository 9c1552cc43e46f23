// References to a kernel other than its launches (accounted for by a launch
// form or a query call, or a blocker), and kernels looked up by name.
#include "Host.h"

#include "../core/CudaApi.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/GlobalDecl.h"
#include "clang/AST/Mangle.h"

using namespace clang;

namespace tma::analysis {

void KernelRefs::analyzeKernelRef(const DeclRefExpr *R, const FunctionDecl *Fn) {
  const auto *K = cast<FunctionDecl>(R->getDecl());
  if (Pass.AcceptedKernelRefs.contains(R))
    return;
  if (Fn && Fn->getBody()) {
    const Stmt *Cur = R;
    const Stmt *P = parent(Fn, Cur);
    while (P && (isa<ParenExpr>(P) || isa<ImplicitCastExpr>(P))) {
      Cur = P;
      P = parent(Fn, P);
    }
    if (const auto *KC = dyn_cast_or_null<CUDAKernelCallExpr>(P))
      if (KC->getCallee() == Cur)
        return;
    for (const Stmt *Q = P; Q && (Q == P || isa<UnaryOperator>(P)); Q = parent(Fn, Q))
      if (std::optional<KernelLaunch> L = asLaunch(Q))
        if (L->KernelRef == R)
          return;
    if (const auto *CE = dyn_cast_or_null<CallExpr>(P))
      if (CE->getCallee() != Cur && cudaApi(calleeName(CE), ApiRole::KernelQuery))
        return;
    if (const auto *UO = dyn_cast_or_null<UnaryOperator>(P))
      if (UO->getOpcode() == UO_AddrOf) {
        const Stmt *Q = parent(Fn, UO);
        while (Q && (isa<ParenExpr>(Q) || isa<ImplicitCastExpr>(Q) || isa<ExplicitCastExpr>(Q)))
          Q = parent(Fn, Q);
        if (const auto *CE = dyn_cast_or_null<CallExpr>(Q))
          if (cudaApi(calleeName(CE), ApiRole::KernelQuery))
            return;
      }
  }
  for (const std::string &Key : paramKeysOf(K))
    if (Fn)
      Out.ParamSpans.push_back({Key, spanOf(Fn)});
  for (const std::string &Key : paramKeysOf(K))
    Out.ParamBlockers.push_back(
        {Key,
         {DiagID::LaunchNotRewritable,
          "'" + patternOf(K)->getQualifiedNameAsString() +
              "' is used here other than in a direct <<<>>> launch (function pointer or "
              "launch API)",
          ST.point(R->getBeginLoc()),
          {}}});
}

void KernelRefs::blockNameLookups() {
  if (Pass.NameLookups.empty())
    return;
  std::unique_ptr<MangleContext> Mangler(Ctx.createMangleContext());
  std::vector<const FunctionDecl *> Named = Pass.Kernels;
  for (auto &[K, Keys] : Pass.ConstantParamKeys)
    if (!llvm::is_contained(Named, K))
      Named.push_back(K);
  for (const FunctionDecl *K : Named) {
    std::string Mangled;
    if (Mangler->shouldMangleDeclName(K)) {
      llvm::raw_string_ostream OS(Mangled);
      Mangler->mangleName(GlobalDecl(K), OS);
    }
    for (auto &[Name, CE] : Pass.NameLookups) {
      if (!Name.empty() && Name != K->getName() && Name != Mangled)
        continue;
      for (const std::string &Key : paramKeysOf(K))
        Out.ParamBlockers.push_back(
            {Key,
             {DiagID::LaunchNotRewritable,
              Name.empty() ? "a kernel is looked up by a name that is not a literal here; it "
                             "may be '" + patternOf(K)->getQualifiedNameAsString() + "'"
                           : "'" + patternOf(K)->getQualifiedNameAsString() +
                                 "' is looked up by name here and launched through an "
                                 "argument array",
              ST.point(CE->getBeginLoc()),
              {}}});
    }
  }
}

} // namespace tma::analysis
