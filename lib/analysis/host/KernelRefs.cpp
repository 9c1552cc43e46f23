// References to a kernel other than its launches (accounted for by a launch
// form or a query call, or a blocker), and kernels looked up by name.
#include "KernelRefs.h"

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
    auto [Cur, P] = climb(Fn, R, parensAndImplicitCasts);
    if (const auto *KC = dyn_cast_or_null<CUDAKernelCallExpr>(P))
      if (KC->getCallee() == Cur)
        return;
    for (const Stmt *Q = P; Q && (Q == P || isa<UnaryOperator>(P)); Q = parent(Fn, Q))
      if (std::optional<KernelLaunch> L = asLaunch(Q))
        if (L->KernelRef == R)
          return;
    if (isQueryArgument(R, Fn, /*ThroughAddressOf=*/true))
      return;
  }
  for (const std::string &Key : paramKeysOf(K))
    if (Fn)
      Out.ParamSpans.push_back({Key, spanOf(Fn)});
  for (const std::string &Key : paramKeysOf(K))
    Out.ParamBlockers.push_back(
        {Key, blockerFor(ReasonID::KernelRefOtherUse, {patternOf(K)->getQualifiedNameAsString()},
                         ST.point(R->getBeginLoc()))});
}

bool KernelRefs::isQueryArgument(const Expr *E, const FunctionDecl *Fn, bool ThroughAddressOf) {
  // `cudaFuncSetAttribute(k<64>, ...)`, `cudaFuncGetAttributes(&a, (void *)&k)`:
  // the kernel's value, as it is or cast, is all the call gets.
  Climbed Up = climb(Fn, E, parensAndCasts);
  if (const auto *UO = dyn_cast_or_null<UnaryOperator>(Up.Parent);
      UO && UO->getOpcode() == UO_AddrOf && ThroughAddressOf)
    Up = climb(Fn, UO, parensAndCasts); // once: `&&k` is no kernel
  const Stmt *Cur = Up.Child, *P = Up.Parent;
  const auto *CE = dyn_cast_or_null<CallExpr>(P);
  const CudaApi *Api = CE ? cudaApi(calleeName(CE), ApiRole::KernelQuery) : nullptr;
  if (!Api || CE->getNumArgs() <= unsigned(Api->KernelArg) || CE->getArg(Api->KernelArg) != Cur)
    return false;
  // A template argument spelled as the kernel's old type would no longer
  // match it (`cudaFuncSetAttribute<void(const CUtensorMap *)>(k, ...)`).
  const auto *Callee = dyn_cast<DeclRefExpr>(CE->getCallee()->IgnoreParenImpCasts());
  return Callee && !Callee->hasExplicitTemplateArgs();
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
            {Key, blockerFor(Name.empty() ? ReasonID::KernelRefLookupNotLiteral
                                          : ReasonID::KernelRefLookedUpByName,
                             {patternOf(K)->getQualifiedNameAsString()},
                             ST.point(CE->getBeginLoc()))});
    }
  }
}

} // namespace tma::analysis
