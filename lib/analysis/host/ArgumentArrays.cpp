// H4: launches through argument arrays (cudaLaunchKernel, cuLaunchKernel, ...)
// and the CUfunction handles they name, resolved into ordinary launches.
#include "ArgumentArrays.h"
#include "StorageIndex.h"

#include "../core/CudaApi.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;

namespace tma::analysis {

const FunctionDecl *ArgumentArrays::kernelOfHandle(const VarDecl *F, const FunctionDecl *Fn,
                                                 const DeclRefExpr *&Bound, std::string &WhyNot,
                                                 const VarDecl *CopiedTo) {
  Bound = nullptr;
  if (isa<ParmVarDecl>(F) || !F->hasLocalStorage() || F->isStaticLocal()) {
    WhyNot = "the function handle '" + F->getNameAsString() + "' is not a local variable";
    return nullptr;
  }
  const FunctionDecl *K = nullptr;
  auto Refs = index(Fn).Refs.find(F);
  if (Refs == index(Fn).Refs.end())
    return nullptr;
  for (const DeclRefExpr *R : Refs->second) {
    auto [Cur, P] = climb(Fn, R, parensAndCasts);
    if (const auto *UO = dyn_cast_or_null<UnaryOperator>(P); UO && UO->getOpcode() == UO_AddrOf) {
      auto [QC, Q] = climb(Fn, UO, parensAndCasts);
      const auto *Bind = dyn_cast_or_null<CallExpr>(Q);
      const CudaApi *Api = Bind ? cudaApi(calleeName(Bind), ApiRole::HandleBind) : nullptr;
      if (Api && unsigned(std::max(Api->Dest, Api->KernelArg)) < Bind->getNumArgs() &&
          Bind->getArg(Api->Dest) == QC && !K) {
        const Expr *Sym = stripCasts(Bind->getArg(Api->KernelArg));
        if (const auto *A = dyn_cast<UnaryOperator>(Sym); A && A->getOpcode() == UO_AddrOf)
          Sym = stripCasts(A->getSubExpr());
        const auto *SR = dyn_cast<DeclRefExpr>(Sym);
        K = SR ? dyn_cast<FunctionDecl>(SR->getDecl()) : nullptr;
        if (K) {
          Bound = SR;
          continue;
        }
      }
      WhyNot = "the function handle '" + F->getNameAsString() + "' is set here: '" +
               spelled(cast<Expr>(Bind ? static_cast<const Stmt *>(Bind) : UO)) + "'";
      return nullptr;
    }
    // The initialiser of the handle this one is copied into
    // (`CUfunction f = (CUfunction)fn;`), which is checked on its own.
    if (const auto *DS = dyn_cast_or_null<DeclStmt>(P);
        DS && CopiedTo && CopiedTo->getInit() == Cur && llvm::is_contained(DS->decls(), CopiedTo))
      continue;
    if (const auto *CE = dyn_cast_or_null<CallExpr>(P)) {
      std::string Name = calleeName(CE);
      const CudaApi *Api = cudaApi(Name, ApiRole::LaunchArray);
      if (Api && Api->Handle && CE->getNumArgs() > unsigned(Api->KernelArg) &&
          CE->getArg(Api->KernelArg) == Cur)
        continue;
      if (cudaApi(Name, ApiRole::HandleQuery))
        continue;
    }
    WhyNot = "the function handle '" + F->getNameAsString() +
             "' is used here other than to launch or query the kernel";
    return nullptr;
  }
  // A copy of another local handle (through a cast: `CUfunction f =
  // (CUfunction)fn;`) holds the kernel that handle is bound to.
  const auto *From = !K && F->getInit() ? dyn_cast<DeclRefExpr>(stripCasts(F->getInit())) : nullptr;
  const auto *FromVar = From ? dyn_cast<VarDecl>(From->getDecl()) : nullptr;
  if (FromVar && FromVar != F && !CopiedTo)
    return kernelOfHandle(FromVar, Fn, Bound, WhyNot, F);
  if (!K)
    WhyNot = "the function handle '" + F->getNameAsString() +
             "' is not set by cudaGetFuncBySymbol in '" + Fn->getQualifiedNameAsString() + "'";
  return K;
}

void ArgumentArrays::resolveArrayLaunch(const CallExpr *CE, const FunctionDecl *Fn) {
  const CudaApi *Api = cudaApi(calleeName(CE), ApiRole::LaunchArray);
  if (!Api || CE->getNumArgs() <= unsigned(Api->ArgsArg) || CE->getNumArgs() <= unsigned(Api->KernelArg))
    return;
  const DeclRefExpr *Sym = nullptr;
  const FunctionDecl *K = launchedKernel(CE, *Api, Fn, Sym);
  // A kernel that gains a parameter from a __constant__ descriptor cannot
  // get it through an array this tool does not extend: its reference stays
  // unaccepted, and blocks.
  if (!isKernel(K) || descriptorParamIndexes(K).empty() ||
      Pass.ConstantParamKeys.count(patternOf(K)))
    return;
  Pass.AcceptedKernelRefs.insert(Sym);
  if (Api->ExtraArg >= 0 && CE->getNumArgs() > unsigned(Api->ExtraArg) &&
      CE->getArg(Api->ExtraArg)->isNullPointerConstant(Ctx, Expr::NPC_ValueDependentIsNotNull) ==
          Expr::NPCK_NotNull) {
    refuseArrayLaunch(CE, K, Fn, ReasonID::ArrayPackedExtra,
                      {patternOf(K)->getQualifiedNameAsString()},
                      CE->getArg(Api->ExtraArg)->getBeginLoc());
    return;
  }
  const VarDecl *Array = argumentArray(CE, *Api, K, Fn);
  if (!Array)
    return;
  KernelLaunch KL;
  KL.E = CE;
  KL.Kernel = K;
  KL.KernelRef = Sym;
  KL.Form = Api->Name;
  KL.ArgsDecl = declStmtOf(Array, Fn);
  if (readDescriptorSlots(KL, Array, Fn))
    Pass.Launches.push_back({KL, Fn});
}

const FunctionDecl *ArgumentArrays::launchedKernel(const CallExpr *CE, const CudaApi &Api,
                                                   const FunctionDecl *Fn,
                                                   const DeclRefExpr *&Sym) {
  const Expr *KE = stripCasts(CE->getArg(Api.KernelArg));
  if (const auto *A = dyn_cast<UnaryOperator>(KE); A && A->getOpcode() == UO_AddrOf)
    KE = stripCasts(A->getSubExpr());
  const auto *KR = dyn_cast<DeclRefExpr>(KE);
  if (!KR)
    return nullptr;
  if (!Api.Handle) {
    Sym = KR;
    return dyn_cast<FunctionDecl>(KR->getDecl());
  }
  // The kernel's own reference (if any) is refused where it is.
  std::string WhyNot;
  const auto *F = dyn_cast<VarDecl>(KR->getDecl());
  return F ? kernelOfHandle(F, Fn, Sym, WhyNot) : nullptr;
}

void ArgumentArrays::refuseArrayLaunch(const CallExpr *CE, const FunctionDecl *K,
                                       const FunctionDecl *Fn, ReasonID Why,
                                       llvm::ArrayRef<std::string> Args, SourceLocation L) {
  for (unsigned I : descriptorParamIndexes(K)) {
    LaunchSite LS;
    LS.ParamKey = paramKey(K, I);
    LS.KernelName = patternOf(K)->getQualifiedNameAsString();
    LS.Where = ST.point(CE->getBeginLoc());
    LS.ReliesOn.push_back(spanOf(Fn));
    LS.Blockers.push_back(blockerFor(Why, Args, ST.point(L)));
    Out.Launches.push_back(std::move(LS));
  }
}

const VarDecl *ArgumentArrays::argumentArray(const CallExpr *CE, const CudaApi &Api,
                                             const FunctionDecl *K, const FunctionDecl *Fn) {
  const Expr *ArgsExpr = CE->getArg(Api.ArgsArg);
  const auto *AR = dyn_cast<DeclRefExpr>(stripCasts(ArgsExpr));
  const auto *Array = AR ? dyn_cast<VarDecl>(AR->getDecl()) : nullptr;
  const auto *Init = Array ? dyn_cast_or_null<InitListExpr>(Array->getInit()) : nullptr;
  if (!Array || !Init || isa<ParmVarDecl>(Array) || !Array->hasLocalStorage() ||
      Array->isStaticLocal() || !Array->getType()->isConstantArrayType()) {
    refuseArrayLaunch(CE, K, Fn, ReasonID::ArrayNotLocal, {spelled(ArgsExpr)},
                      ArgsExpr->getBeginLoc());
    return nullptr;
  }
  // The array is read at each launch: nothing else may change a slot.
  for (const DeclRefExpr *R : index(Fn).Refs[Array])
    if (!isLaunchArguments(R, Fn)) {
      refuseArrayLaunch(CE, K, Fn, ReasonID::ArrayOtherUse, {Array->getNameAsString()},
                        R->getBeginLoc());
      return nullptr;
    }
  if (Init->getNumInits() != K->getNumParams()) {
    refuseArrayLaunch(CE, K, Fn, ReasonID::ArraySlotCount,
                      {Array->getNameAsString(), std::to_string(Init->getNumInits()),
                       patternOf(K)->getQualifiedNameAsString(),
                       std::to_string(K->getNumParams())},
                      Array->getLocation());
    return nullptr;
  }
  return Array;
}

bool ArgumentArrays::isLaunchArguments(const DeclRefExpr *R, const FunctionDecl *Fn) {
  auto [Cur, P] = climb(Fn, R, parensAndCasts);
  const auto *Use = dyn_cast_or_null<CallExpr>(P);
  const CudaApi *UseApi = Use ? cudaApi(calleeName(Use), ApiRole::LaunchArray) : nullptr;
  return UseApi && Use->getNumArgs() > unsigned(UseApi->ArgsArg) &&
         Use->getArg(UseApi->ArgsArg) == Cur;
}

/// `&slot()`: the address of the storage a function's reference result
/// names (an accessor of a global or a static local), a storage of the
/// storage rule's own (the function's result).
static bool accessorResult(const Expr *Storage) {
  const auto *Call = dyn_cast<CallExpr>(Storage);
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  return Callee && !isa<CXXMethodDecl>(Callee) && Callee->getReturnType()->isLValueReferenceType();
}

bool ArgumentArrays::readDescriptorSlots(KernelLaunch &KL, const VarDecl *Array,
                                         const FunctionDecl *Fn) {
  const FunctionDecl *K = KL.Kernel;
  const auto *Init = cast<InitListExpr>(Array->getInit());
  KL.Args.assign(K->getNumParams(), nullptr);
  for (unsigned I : descriptorParamIndexes(K)) {
    const Expr *Slot = stripCasts(Init->getInit(I));
    const auto *A = dyn_cast<UnaryOperator>(Slot);
    // `&d`, `&plan.device`, `&g_cache`: the storage of the pointer the
    // kernel's parameter receives, traced as a launch argument.
    const Expr *Storage = A && A->getOpcode() == UO_AddrOf ? A->getSubExpr()->IgnoreParens() : nullptr;
    const auto *DR = dyn_cast_or_null<DeclRefExpr>(Storage);
    const auto *ME = dyn_cast_or_null<MemberExpr>(Storage);
    // `&maps[0]`, `&w.get()`, `&std::get<1>(t)`, a structured binding: a
    // slot of a holder, a storage of the storage rule's own (holderSlotOf).
    bool Element = Storage && isDescriptorPointer(Storage->getType()) &&
                   (isa<ArraySubscriptExpr, CXXOperatorCallExpr>(Storage) ||
                    holderSlotOf(Storage, Ctx) || accessorResult(Storage));
    if (!(DR && isa<VarDecl>(DR->getDecl())) && !(ME && isa<FieldDecl>(ME->getMemberDecl())) &&
        !Element) {
      refuseArrayLaunch(cast<CallExpr>(KL.E), K, Fn, ReasonID::ArraySlotNotAddress,
                        {std::to_string(I), Array->getNameAsString(), spelled(Init->getInit(I))},
                        Init->getInit(I)->getBeginLoc());
      return false;
    }
    if (DR)
      Pass.ArraySlots[DR] = {K, I};
    Pass.ArraySlotExprs[Storage] = {K, I};
    Pass.ArraySlotLaunches[Storage].push_back({cast<CallExpr>(KL.E), Fn});
    KL.Args[I] = Storage;
  }
  return true;
}

} // namespace tma::analysis
