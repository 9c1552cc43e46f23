// Where a held stream is let go (HoldReleases.h).
#include "HoldReleases.h"

#include "Climb.h"
#include "CudaApi.h"
#include "StreamHolds.h"

#include "clang/AST/ExprCXX.h"

#include <functional>

using namespace clang;

namespace tma::analysis {

namespace {

/// A local variable of \p Fn given no value where it is declared.
bool plainLocal(const VarDecl *V, const FunctionDecl *Fn) {
  return V && !isa<ParmVarDecl>(V) && V->hasLocalStorage() && V->getDeclContext() == Fn &&
         (!V->getInit() || V->getInit()->IgnoreParenImpCasts()->isNullPointerConstant(
                               V->getASTContext(), Expr::NPC_ValueDependentIsNotNull));
}

const VarDecl *variableOf(const Expr *E) {
  const auto *R = E ? dyn_cast<DeclRefExpr>(E->IgnoreParenCasts()) : nullptr;
  return R ? dyn_cast<VarDecl>(R->getDecl()) : nullptr;
}

/// A call of an API of role \p Role whose argument \p Index is \p E.
const CallExpr *apiArg(const Stmt *Parent, const Stmt *E, ApiRole Role, int CudaApi::*Index) {
  const auto *Call = dyn_cast_or_null<CallExpr>(Parent);
  const CudaApi *Api = cudaApiOf(Call);
  return Api && Api->Role == Role && isArgAt(Call, Api->*Index, E) ? Call : nullptr;
}

} // namespace

std::optional<std::vector<const Stmt *>> HoldReleases::releasesOf(const CallExpr *Op,
                                                                 const FunctionDecl *Fn) {
  if (!Op || !Fn || !Pass.StreamHold || Pass.AnyStreamHeld)
    return std::nullopt;
  std::optional<const ValueDecl *> S = streamOf(Op, Fn);
  if (!S || !*S || !Pass.HeldStreams.count(*S))
    return std::nullopt;
  // Every hold of the stream: a launch here of a kernel that waits for one
  // flag. A host function that cannot wait holds it no longer than itself.
  std::vector<const Stmt *> Holds;
  const VarDecl *DevFlag = nullptr;
  for (const auto &[Call, HoldFn] : Pass.HoldCalls) {
    std::optional<const ValueDecl *> HS = streamOf(Call, HoldFn);
    if (!HS || *HS != *S)
      continue;
    if (!HoldFn || HoldFn->getCanonicalDecl() != Fn->getCanonicalDecl())
      return std::nullopt;
    if (const CudaApi *Api = cudaApiOf(Call); Api && Api->Role == ApiRole::HostCallback) {
      const auto *R = Api->KernelArg >= 0 && unsigned(Api->KernelArg) < Call->getNumArgs()
                          ? dyn_cast<DeclRefExpr>(Call->getArg(Api->KernelArg)->IgnoreParenCasts())
                          : nullptr;
      if (R && cannotWait(dyn_cast<FunctionDecl>(R->getDecl())))
        continue;
      return std::nullopt;
    }
    const auto *KC = dyn_cast<CUDAKernelCallExpr>(Call);
    std::optional<unsigned> P = KC ? flagWaitParameter(KC->getDirectCallee()) : std::nullopt;
    const VarDecl *V = P && *P < Call->getNumArgs() ? variableOf(Call->getArg(*P)) : nullptr;
    if (!V || (DevFlag && V != DevFlag))
      return std::nullopt;
    DevFlag = V;
    Holds.push_back(Call);
  }
  if (!DevFlag)
    return std::nullopt;
  auto [It, New] = Stores.try_emplace(DevFlag);
  if (New)
    It->second = flagStores(DevFlag, Holds, Fn);
  if (!It->second || !dominatedBy(Holds, Op, Fn))
    return std::nullopt;
  // A store that reaches the operation with no hold enqueued in between
  // may have let the stream go already.
  for (const Stmt *Store : *It->second)
    if (reachesAvoiding(Store, Op, Holds, Fn))
      return std::nullopt;
  return It->second;
}

std::optional<std::vector<const Stmt *>>
HoldReleases::flagStores(const VarDecl *DevFlag, llvm::ArrayRef<const Stmt *> Holds,
                         const FunctionDecl *Fn) {
  if (!plainLocal(DevFlag, Fn) || !Fn->getBody())
    return std::nullopt;
  // Every reference to either pointer, and whether a lambda holds it.
  std::vector<std::pair<const DeclRefExpr *, bool>> Refs;
  const VarDecl *HostFlag = nullptr;
  std::function<void(const Stmt *, bool)> Walk = [&](const Stmt *S, bool InLambda) {
    if (!S)
      return;
    if (const auto *R = dyn_cast<DeclRefExpr>(S))
      Refs.push_back({R, InLambda});
    for (const Stmt *C : S->children())
      Walk(C, InLambda || isa<LambdaExpr>(S));
  };
  Walk(Fn->getBody(), false);
  // The device pointer: an argument of a hold, or mapped from the host's.
  for (const auto &[R, InLambda] : Refs) {
    if (R->getDecl() != DevFlag)
      continue;
    if (InLambda)
      return std::nullopt;
    Climbed C = climb(Fn, R, parensAndImplicitCasts);
    if (llvm::is_contained(Holds, C.Parent))
      continue;
    const auto *Addr = dyn_cast_or_null<UnaryOperator>(C.Parent);
    if (!Addr || Addr->getOpcode() != UO_AddrOf)
      return std::nullopt;
    Climbed CA = climb(Fn, Addr, parensAndCasts);
    const CallExpr *Map = apiArg(CA.Parent, CA.Child, ApiRole::MappedAddress, &CudaApi::Dest);
    const VarDecl *Host = Map ? variableOf(Map->getArg(cudaApiOf(Map)->Src)) : nullptr;
    if (!Host || (HostFlag && Host != HostFlag))
      return std::nullopt;
    HostFlag = Host;
  }
  if (!HostFlag || !plainLocal(HostFlag, Fn))
    return std::nullopt;
  // The host pointer: allocated, mapped, stored through, freed.
  std::vector<const Stmt *> Out;
  for (const auto &[R, InLambda] : Refs) {
    if (R->getDecl() != HostFlag)
      continue;
    if (InLambda)
      return std::nullopt;
    Climbed C = climb(Fn, R, parensAndImplicitCasts);
    if (const auto *Addr = dyn_cast_or_null<UnaryOperator>(C.Parent);
        Addr && Addr->getOpcode() == UO_AddrOf) {
      Climbed CA = climb(Fn, Addr, parensAndCasts);
      if (apiArg(CA.Parent, CA.Child, ApiRole::HostAlloc, &CudaApi::Dest))
        continue;
      return std::nullopt;
    }
    if (const auto *Deref = dyn_cast_or_null<UnaryOperator>(C.Parent);
        Deref && Deref->getOpcode() == UO_Deref) {
      Climbed CD = climb(Fn, Deref, parens);
      const auto *Store = dyn_cast_or_null<BinaryOperator>(CD.Parent);
      if (!Store || Store->getOpcode() != BO_Assign || Store->getLHS()->IgnoreParens() != Deref ||
          !isa_and_nonnull<CompoundStmt>(parent(Fn, Store)))
        return std::nullopt;
      const auto *Zero = dyn_cast<IntegerLiteral>(Store->getRHS()->IgnoreParenImpCasts());
      if (!Zero || Zero->getValue() != 0)
        Out.push_back(Store);
      continue;
    }
    Climbed CV = climb(Fn, R, parensAndCasts);
    if (apiArg(CV.Parent, CV.Child, ApiRole::MappedAddress, &CudaApi::Src) ||
        apiArg(CV.Parent, CV.Child, ApiRole::HostFree, &CudaApi::Dest))
      continue;
    return std::nullopt;
  }
  return Out;
}

} // namespace tma::analysis
