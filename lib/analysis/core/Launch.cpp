// Recognises the launch forms whose arguments map one to one onto the
// kernel's parameters (Launch.h); array launches are in host/ArgumentArrays.
#include "Launch.h"

#include "CudaApi.h"
#include "Types.h"

using namespace clang;

namespace tma::analysis {

const VarDecl *functionPointerCallee(const CUDAKernelCallExpr *KC) {
  if (KC->getDirectCallee())
    return nullptr;
  const Expr *C = KC->getCallee()->IgnoreParenImpCasts();
  if (const auto *UO = dyn_cast<UnaryOperator>(C); UO && UO->getOpcode() == UO_Deref)
    C = UO->getSubExpr()->IgnoreParenImpCasts();
  const auto *R = dyn_cast<DeclRefExpr>(C);
  const auto *V = R ? dyn_cast<VarDecl>(R->getDecl()) : nullptr;
  return V && V->getType()->isFunctionPointerType() ? V : nullptr;
}

std::optional<KernelLaunch> asLaunch(const Stmt *S) {
  KernelLaunch L;
  if (const auto *KC = dyn_cast_or_null<CUDAKernelCallExpr>(S)) {
    L.E = KC;
    L.Kernel = KC->getDirectCallee();
    L.Args.assign(KC->arg_begin(), KC->arg_end());
    L.Form = "<<<>>>";
  } else if (const auto *CE = dyn_cast_or_null<CallExpr>(S)) {
    // The C++ template cudaLaunchKernelEx(config, kernel, args...) maps its
    // arguments one to one onto the kernel's parameters.
    const CudaApi *Api = cudaApi(calleeName(CE), ApiRole::LaunchArgs);
    if (!Api || CE->getNumArgs() < unsigned(Api->ArgsArg))
      return std::nullopt;
    const Expr *KRef = CE->getArg(Api->KernelArg)->IgnoreParenImpCasts();
    if (const auto *UO = dyn_cast<UnaryOperator>(KRef); UO && UO->getOpcode() == UO_AddrOf)
      KRef = UO->getSubExpr()->IgnoreParenImpCasts();
    const auto *DR = dyn_cast<DeclRefExpr>(KRef);
    if (!DR)
      return std::nullopt;
    L.E = CE;
    L.Kernel = dyn_cast<FunctionDecl>(DR->getDecl());
    L.KernelRef = DR;
    L.Args.assign(CE->arg_begin() + Api->ArgsArg, CE->arg_end());
    L.Form = Api->Name;
    L.FirstArg = Api->ArgsArg;
    if (L.Kernel && L.Args.size() != L.Kernel->getNumParams())
      return std::nullopt;
  } else {
    return std::nullopt;
  }
  if (!isKernel(L.Kernel))
    return std::nullopt;
  return L;
}


} // namespace tma::analysis
