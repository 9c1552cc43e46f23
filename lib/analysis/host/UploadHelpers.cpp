// H6/H8: upload helpers that encode, allocate, copy and return the device
// copy, and the variables and caches their callers keep it in. The helper
// is rewritten to return the descriptor by value; the group of the
// helper's allocation and copy and every caller's variable is one pseudo
// device buffer, decided once.
#include "HostBuffers.h"
#include "HostRefs.h"
#include "ObjectReach.h"
#include "UploadHelpers.h"

#include "../core/CudaApi.h"
#include "clang/AST/ExprCXX.h"

#include <set>

using namespace clang;

namespace tma::analysis {
namespace {

/// The helper's body as H6 needs it: `... D; alloc(&D); copy(D, &M);
/// return D;` at its top level.
struct HelperBody {
  const FunctionDecl *Def = nullptr;
  const ReturnStmt *Ret = nullptr;
  const DeclRefExpr *RetRef = nullptr; // `D` in `return D;`
  const VarDecl *D = nullptr;          // the device copy
  DeviceBuffer Inner;                  // D's uses in the helper
  std::vector<TextEdit> Edits;         // the helper's own edits
};

/// One upload helper's analysis: the helper, then every caller. A
/// template helper is one group: its text is edited once for all its
/// instantiations, so every instantiation and every caller of each must
/// be rewritable, and all must ask for the same edits of the template.
class UploadAnalysis : public PassComponent {
public:
  /// \p U: a plain helper, or the pattern of a template helper.
  UploadAnalysis(PassContext &P, UploadHelpers &Helpers, HostBuffers &Buffers, ObjectReach &Reach,
                 const FunctionDecl *U)
      : PassComponent(P), Helpers(Helpers), Buffers(Buffers), Reach(Reach), U(U),
        UName(U->getQualifiedNameAsString()) {}

  /// The group, or why not.
  std::optional<Blocker> run(std::string &BufferKey);

private:
  UploadHelpers &Helpers; // for the file-scope cache check
  HostBuffers &Buffers;
  ObjectReach &Reach;
  const FunctionDecl *U;
  std::string UName;
  /// U itself, or each instantiation of the template U; canonical.
  std::vector<const FunctionDecl *> Instances;
  HelperBody H; // of the instance being checked; at the end, of the first
  DeviceBuffer Group;
  HostUse Whole; // the helper and the callers' declarations: one unit
  std::vector<HostUse> Frees;
  std::set<const VarDecl *> CheckedCaches;

  Blocker why(ReasonID R, llvm::ArrayRef<std::string> Args, SourceLocation At) {
    return blockerFor(R, Args, ST.point(At));
  }
  bool isInstance(const FunctionDecl *F) const {
    return F && llvm::is_contained(Instances, F->getCanonicalDecl());
  }
  std::optional<Blocker> collectInstances();
  std::optional<Blocker> checkInstances();
  std::optional<Blocker> findHelperBody(const FunctionDecl *I);
  std::optional<Blocker> removeHelperUses();
  std::optional<Blocker> checkCopiedDescriptor();
  const clang::Stmt *nextStatement(const clang::Stmt *Top);
  std::optional<Blocker> editReturnType();
  std::optional<Blocker> checkCaller(const DeclRefExpr *R, const FunctionDecl *Caller);
  std::optional<Blocker> keepInCache(const CallExpr *Call, const VarDecl *Cache,
                                     const FunctionDecl *Caller);
  std::optional<Blocker> keepInLocal(const DeclRefExpr *R, const CallExpr *Call,
                                     const VarDecl *CV, const FunctionDecl *Caller);
  std::optional<Blocker> checkCacheUse(const DeclRefExpr *VR, const VarDecl *Cache,
                                       const FunctionDecl *Caller);
  std::optional<Blocker> checkLocalUse(const DeclRefExpr *VR, const VarDecl *CV,
                                       const FunctionDecl *Caller);
  bool launchUses(const Stmt *S, const Expr *Value);
  void assembleGroup();
};

/// The source range of the '*' of a pointer type, through qualifiers.
std::optional<CharSourceRange> starOf(TypeLoc TL, SourceText &ST) {
  while (auto Q = TL.getAs<QualifiedTypeLoc>())
    TL = Q.getUnqualifiedLoc();
  auto PTL = TL.getAs<PointerTypeLoc>();
  if (!PTL)
    return std::nullopt;
  return ST.fileRange(SourceRange(PTL.getStarLoc(), PTL.getStarLoc()));
}

/// The reason for a use that is neither a launch nor the one allowed: a
/// launch through a function pointer that is not followed (K4 refused it),
/// or something else.
ReasonID otherUse(const Stmt *Use, ReasonID ToPointerLaunch, ReasonID Other) {
  return isa_and_nonnull<CUDAKernelCallExpr>(Use) ? ToPointerLaunch : Other;
}

/// Is \p S (through parentheses) a null pointer constant test of the
/// pointer: `!d`, `if (d)`, `d == nullptr`?
bool isNullTest(const Stmt *Use, ASTContext &Ctx) {
  if (const auto *B = dyn_cast_or_null<ImplicitCastExpr>(Use);
      B && B->getCastKind() == CK_PointerToBoolean)
    return true;
  if (const auto *UO = dyn_cast_or_null<UnaryOperator>(Use); UO && UO->getOpcode() == UO_LNot)
    return true;
  const auto *Cmp = dyn_cast_or_null<BinaryOperator>(Use);
  return Cmp && Cmp->isEqualityOp() &&
         (Cmp->getLHS()->isNullPointerConstant(Ctx, Expr::NPC_ValueDependentIsNotNull) ||
          Cmp->getRHS()->isNullPointerConstant(Ctx, Expr::NPC_ValueDependentIsNotNull));
}

} // namespace

/// The instantiations of a template helper: each instantiated from the
/// template's own body (an explicit specialization has another text).
std::optional<Blocker> UploadAnalysis::collectInstances() {
  const FunctionTemplateDecl *T = U->getDescribedFunctionTemplate();
  if (!T) {
    Instances.push_back(U->getCanonicalDecl());
    return std::nullopt;
  }
  for (const FunctionDecl *I : T->getCanonicalDecl()->specializations()) {
    if (I->getTemplateSpecializationKind() == TSK_ExplicitSpecialization)
      return why(ReasonID::UploadExplicitSpecialization, {UName}, I->getLocation());
    Instances.push_back(I->getCanonicalDecl());
  }
  return std::nullopt;
}

/// Every instance has the helper's shape and asks for the same edits (of
/// the template's text, for a template).
std::optional<Blocker> UploadAnalysis::checkInstances() {
  std::optional<HelperBody> First;
  for (const FunctionDecl *I : Instances) {
    H = HelperBody();
    std::optional<Blocker> Why = findHelperBody(I);
    if (!Why)
      Why = removeHelperUses();
    if (!Why)
      Why = checkCopiedDescriptor();
    if (Why)
      return Why;
    if (First && H.Edits != First->Edits)
      return why(ReasonID::UploadInstantiationsDiffer, {UName, I->getNameAsString()},
                 I->getPointOfInstantiation());
    if (!First)
      First = H;
  }
  if (!First)
    return why(ReasonID::UploadNotCalled, {UName}, U->getLocation());
  H = *First;
  return std::nullopt;
}

std::optional<Blocker> UploadAnalysis::findHelperBody(const FunctionDecl *I) {
  const FunctionDecl *Def = nullptr;
  bool Instantiated = I->getTemplatedKind() == FunctionDecl::TK_FunctionTemplateSpecialization &&
                      isTemplateInstantiation(I->getTemplateSpecializationKind());
  if (!I->hasBody(Def) || !Def ||
      (Def->getTemplatedKind() != FunctionDecl::TK_NonTemplate && !Instantiated) ||
      isa<CXXMethodDecl>(Def) || Def->hasAttr<CUDADeviceAttr>())
    return why(ReasonID::UploadBodyNotPlain, {UName}, I->getLocation());
  if (std::optional<Blocker> Unseen =
          calledUnverified(U, ReasonID::UploadExternalLinkage,
                           ReasonID::UploadExternalLinkageUnitsMissing, U->getLocation()))
    return Unseen;
  const auto *Body = dyn_cast<CompoundStmt>(Def->getBody());
  H.Def = Def;
  H.Ret = Body && !Body->body_empty() ? dyn_cast<ReturnStmt>(Body->body_back()) : nullptr;
  H.RetRef = H.Ret && H.Ret->getRetValue()
                 ? dyn_cast<DeclRefExpr>(H.Ret->getRetValue()->IgnoreParenImpCasts())
                 : nullptr;
  H.D = H.RetRef ? dyn_cast<VarDecl>(H.RetRef->getDecl()) : nullptr;
  if (!H.D || !H.D->hasLocalStorage() || isa<ParmVarDecl>(H.D))
    return why(ReasonID::UploadNoLocalReturn, {UName}, Def->getLocation());
  return std::nullopt;
}

/// The device copy's uses in the helper: one allocation and one copy, each
/// removable, and the return.
std::optional<Blocker> UploadAnalysis::removeHelperUses() {
  H.Inner = Buffers.bufferFacts(H.D, H.Def);
  std::string DName = H.D->getNameAsString();
  unsigned Allocs = 0;
  for (const HostUse &Use : H.Inner.Uses) {
    if (Use.Kind == HostUseKind::Other) {
      if (Use.Where == ST.point(H.RetRef->getBeginLoc()))
        continue; // the return itself is the one other use allowed
      return why(ReasonID::UploadCopyOtherUse, {DName, UName}, H.RetRef->getBeginLoc());
    }
    if (Use.Kind == HostUseKind::Free || Use.Kind == HostUseKind::Launch)
      return why(ReasonID::UploadCopyFreedOrLaunched, {DName, UName}, H.Def->getLocation());
    if (Use.Removal.empty())
      return why(ReasonID::UploadUseNotRemovable, {Use.What, UName}, H.Def->getLocation());
    Allocs += Use.Kind == HostUseKind::Alloc;
    llvm::append_range(H.Edits, Use.Removal);
  }
  if (Pass.BufferCopies[H.D].size() != 1 || Allocs != 1)
    return why(ReasonID::UploadNotExactlyOnce, {UName}, H.Def->getLocation());
  return std::nullopt;
}

/// The statement after \p Top in the helper's body, or null.
const Stmt *UploadAnalysis::nextStatement(const Stmt *Top) {
  const auto *Body = cast<CompoundStmt>(H.Def->getBody());
  for (auto It = Body->body_begin(); It != Body->body_end(); ++It)
    if (*It == Top)
      return std::next(It) == Body->body_end() ? nullptr : *std::next(It);
  return nullptr;
}

/// The copy always runs and reads a local CUtensorMap (or a parameter) that
/// nothing changes before the return; `return D;` becomes `return M;`.
std::optional<Blocker> UploadAnalysis::checkCopiedDescriptor() {
  const CallExpr *Copy = Pass.BufferCopies[H.D].front().Call;
  const Stmt *CopyTop = Pass.BufferCopies[H.D].front().Top;
  if (parent(H.Def, CopyTop) != H.Def->getBody() || !runsWhenReached(Copy, CopyTop, H.Def) ||
      !dominates(Copy, H.Ret, H.Def)) // a goto may jump past it
    return why(ReasonID::UploadCopyNotAlways, {UName}, Copy->getBeginLoc());
  const CudaApi *Api = cudaApiOf(Copy);
  if (!Api || Api->Src < 0 || unsigned(Api->Src) >= Copy->getNumArgs())
    return why(ReasonID::UploadCopyNotLocal, {UName}, Copy->getBeginLoc());
  const auto *Addr = dyn_cast<UnaryOperator>(stripCasts(Copy->getArg(Api->Src)));
  const auto *MRef = Addr && Addr->getOpcode() == UO_AddrOf
                         ? dyn_cast<DeclRefExpr>(Addr->getSubExpr()->IgnoreParens())
                         : nullptr;
  const auto *M = MRef ? dyn_cast<VarDecl>(MRef->getDecl()) : nullptr;
  if (!M || !M->hasLocalStorage() || !isTensorMapRecord(M->getType().getNonReferenceType()))
    return why(ReasonID::UploadCopyNotLocal, {UName}, Copy->getBeginLoc());
  // A parameter (by value, or a reference to the caller's descriptor) is
  // returned as it is when copied; a reference's object may change through
  // another name, so nothing may run in between.
  if (isa<ParmVarDecl>(M) && nextStatement(CopyTop) != H.Ret)
    return why(ReasonID::UploadParamCopyRunsBetween, {UName, M->getNameAsString()},
               Copy->getBeginLoc());
  for (const DeclRefExpr *R : index(H.Def).Refs[M])
    if (classifyHostRef(R, *index(H.Def).PM) != HostRefKind::Read &&
        between(CopyTop, H.Ret, R, H.Def))
      return why(ReasonID::UploadChangedBeforeReturn, {M->getNameAsString()}, R->getBeginLoc());
  ObjectQuery Q{M, CopyTop, H.Ret, H.Def, nullptr, {Copy}, {}};
  if (std::optional<Blocker> Changed = Reach.changeBetween(Q)) {
    Changed->Message = "in upload helper '" + UName + "', before the return: " + Changed->Message;
    return Changed;
  }
  std::optional<CharSourceRange> R = ST.fileRange(H.RetRef->getSourceRange());
  if (!R)
    return why(ReasonID::UploadReturnInMacro, {UName}, H.Ret->getBeginLoc());
  H.Edits.push_back(ST.replace(*R, M->getNameAsString()));
  return std::nullopt;
}

/// The return type loses its '*' in every declaration.
std::optional<Blocker> UploadAnalysis::editReturnType() {
  for (const FunctionDecl *Redecl : U->redecls()) {
    TypeSourceInfo *TSI = Redecl->getTypeSourceInfo();
    auto FTL = TSI ? TSI->getTypeLoc().getAsAdjusted<FunctionTypeLoc>() : FunctionTypeLoc();
    std::optional<CharSourceRange> Star = FTL ? starOf(FTL.getReturnLoc(), ST) : std::nullopt;
    if (!Star || ST.inSystemHeader(Redecl->getLocation()))
      return why(ReasonID::UploadReturnTypeNotEditable, {UName}, Redecl->getLocation());
    H.Edits.push_back(ST.replace(*Star, ""));
  }
  return std::nullopt;
}

/// \p S is a launch that passes \p Value (a variable holding the helper's
/// result, or the helper's call itself) as descriptors: one use per slot,
/// and per kernel an accepted function-pointer launch may run (K4).
bool UploadAnalysis::launchUses(const Stmt *S, const Expr *Value) {
  bool Slot = false;
  auto Use = [&](const FunctionDecl *K, unsigned J) {
    HostUse LU;
    LU.Kind = HostUseKind::Launch;
    LU.Where = ST.point(Value->getBeginLoc());
    LU.What = "launch of '" + patternOf(K)->getQualifiedNameAsString() + "'";
    LU.ParamKey = paramKey(K, J);
    Group.Uses.push_back(LU);
    Slot = true;
  };
  if (auto PL = Pass.PointerTargets.find(dyn_cast_or_null<CUDAKernelCallExpr>(S));
      S && PL != Pass.PointerTargets.end()) {
    for (unsigned J = 0; J < PL->first->getNumArgs(); ++J)
      if (PL->first->getArg(J)->IgnoreParenImpCasts() == Value)
        for (const FunctionDecl *K : PL->second)
          if (llvm::is_contained(descriptorParamIndexes(K), J))
            Use(K, J);
    return Slot;
  }
  std::optional<KernelLaunch> L = asLaunch(S);
  for (unsigned J : L ? descriptorParamIndexes(L->Kernel) : std::vector<unsigned>())
    if (J < L->Args.size() && L->Args[J] && L->Args[J]->IgnoreParenImpCasts() == Value)
      Use(L->Kernel, J);
  return Slot;
}

/// A use of cache \p Cache: an assignment from the helper, a null test or
/// a launch.
std::optional<Blocker> UploadAnalysis::checkCacheUse(const DeclRefExpr *VR, const VarDecl *Cache,
                                                     const FunctionDecl *Caller) {
  auto [C, Q] = climb(Caller, VR, parens);
  if (const auto *BO = dyn_cast_or_null<BinaryOperator>(Q);
      BO && BO->getOpcode() == BO_Assign && BO->getLHS() == C) {
    const auto *RC = dyn_cast<CallExpr>(BO->getRHS()->IgnoreImplicit());
    if (RC && isInstance(RC->getDirectCallee()))
      return std::nullopt; // this very assignment, or another from the helper
    return why(ReasonID::UploadCacheOtherAssignment, {Cache->getNameAsString(), UName},
               BO->getBeginLoc());
  }
  const Stmt *Use = Q && parensAndValueCasts(Q, C) ? climb(Caller, Q, parensAndValueCasts).Parent : Q;
  if (isNullTest(Use, Ctx) || launchUses(Use, VR))
    return std::nullopt;
  return why(otherUse(Use, ReasonID::UploadCacheToPointerLaunch, ReasonID::UploadCacheOtherUse),
             {Cache->getNameAsString(), UName}, VR->getBeginLoc());
}

/// H8: `cache = helper(...)` becomes `cache = new CUtensorMap(helper(...))`.
std::optional<Blocker> UploadAnalysis::keepInCache(const CallExpr *Call, const VarDecl *Cache,
                                                   const FunctionDecl *Caller) {
  std::optional<CharSourceRange> CallText = ST.fileRange(Call->getSourceRange());
  if (!CallText)
    return why(ReasonID::UploadCallInMacro, {UName}, Call->getBeginLoc());
  std::string Pointee = Cache->getType()->getPointeeType().getUnqualifiedType().getAsString(
      Ctx.getPrintingPolicy());
  Whole.Removal.push_back(ST.insertBefore(CallText->getBegin(), "new " + Pointee + "("));
  Whole.Removal.push_back(ST.insertBefore(CallText->getEnd(), ")"));
  if (!CheckedCaches.insert(Cache->getCanonicalDecl()).second)
    return std::nullopt; // its uses are checked (and its launches counted) once
  if (!Cache->isStaticLocal()) {
    if (std::optional<Blocker> Why =
            Helpers.fileScopeCacheProblem(Cache, ST.point(Cache->getLocation())))
      return Why;
    for (auto &[VR, Fn] : Pass.FileScopePointerRefs[Cache->getCanonicalDecl()])
      if (std::optional<Blocker> Why = checkCacheUse(VR, Cache, Fn))
        return Why;
    return std::nullopt;
  }
  for (const DeclRefExpr *VR : index(Caller).Refs[Cache])
    if (std::optional<Blocker> Why = checkCacheUse(VR, Cache, Caller))
      return Why;
  return std::nullopt;
}

/// A use of the caller's variable \p CV: a launch or a removable free.
std::optional<Blocker> UploadAnalysis::checkLocalUse(const DeclRefExpr *VR, const VarDecl *CV,
                                                     const FunctionDecl *Caller) {
  if (launchUses(climb(Caller, VR, parensAndImplicitCasts).Parent, VR))
    return std::nullopt;
  auto [C, Q] = climb(Caller, VR, parensAndCasts); // cudaFree((void *)p)
  const auto *FreeCall = dyn_cast_or_null<CallExpr>(Q);
  std::string FreeName = FreeCall ? driverBaseName(calleeName(FreeCall)).str() : "";
  const CudaApi *Api = FreeCall ? cudaApi(FreeName, ApiRole::Free) : nullptr;
  if (!Api || unsigned(Api->Dest) >= FreeCall->getNumArgs() || FreeCall->getArg(Api->Dest) != C)
    return why(otherUse(Q, ReasonID::UploadLocalToPointerLaunch, ReasonID::UploadLocalOtherUse),
               {CV->getNameAsString(), UName}, VR->getBeginLoc());
  HostUse FU;
  FU.Kind = HostUseKind::Free;
  FU.What = FreeName;
  FU.Where = ST.point(FreeCall->getBeginLoc());
  FU.Removal = Buffers.removeHostCall(FreeCall, Caller);
  if (FU.Removal.empty())
    return why(ReasonID::UploadFreeNotRemovable, {FreeName, CV->getNameAsString()},
               FreeCall->getBeginLoc());
  Frees.push_back(std::move(FU));
  return std::nullopt;
}

/// H6: `CUtensorMap *d = helper(...)` in a local that is only launched with
/// and freed; its '*' goes.
std::optional<Blocker> UploadAnalysis::keepInLocal(const DeclRefExpr *R, const CallExpr *Call,
                                                   const VarDecl *CV, const FunctionDecl *Caller) {
  if (!Call || !CV || !CV->getInit() || CV->getInit()->IgnoreImplicit() != Call ||
      CV->isStaticLocal() || runsOnDevice(Caller))
    return why(ReasonID::UploadResultOtherUse, {UName}, R->getBeginLoc());
  if (CV->getType()->isPointerType()) {
    TypeSourceInfo *TSI = CV->getTypeSourceInfo();
    std::optional<CharSourceRange> Star = TSI ? starOf(TSI->getTypeLoc(), ST) : std::nullopt;
    if (!Star)
      return why(ReasonID::UploadLocalNotEditable, {CV->getNameAsString()}, CV->getLocation());
    Whole.Removal.push_back(ST.replace(*Star, ""));
  }
  for (const DeclRefExpr *VR : index(Caller).Refs[CV])
    if (std::optional<Blocker> Why = checkLocalUse(VR, CV, Caller))
      return Why;
  return std::nullopt;
}

/// The cache, starting null, that `Call` is assigned to (`cache =
/// helper(...)` in \p Caller): a static local of the caller, or a pointer at
/// file scope; or null.
static const VarDecl *cacheOf(const CallExpr *Call, const Stmt *Up, const FunctionDecl *Caller,
                              ASTContext &Ctx) {
  const auto *BO = dyn_cast_or_null<BinaryOperator>(Up);
  if (!Call || !BO || BO->getOpcode() != BO_Assign || BO->getRHS()->IgnoreImplicit() != Call)
    return nullptr;
  const auto *LR = dyn_cast<DeclRefExpr>(BO->getLHS()->IgnoreParens());
  const auto *LV = LR ? dyn_cast<VarDecl>(LR->getDecl()) : nullptr;
  if (!LV || !(LV->isStaticLocal() ? LV->getDeclContext() == Caller : isFileScopePointer(LV)))
    return nullptr;
  const VarDecl *Def = LV->getDefinition() ? LV->getDefinition() : LV;
  if (Def->getInit() &&
      !Def->getInit()->isNullPointerConstant(Ctx, Expr::NPC_ValueDependentIsNotNull))
    return nullptr;
  return LV;
}

/// The group: launches first (added as callers were checked), then the
/// whole, the helper's allocation and copy, and the callers' frees.
void UploadAnalysis::assembleGroup() {
  HostUse AllocUse, CopyUse;
  AllocUse.Kind = HostUseKind::Alloc;
  CopyUse.Kind = HostUseKind::Copy;
  AllocUse.Where = CopyUse.Where = Group.Where;
  for (const HostUse &Use : H.Inner.Uses)
    if (Use.Kind == HostUseKind::Alloc)
      AllocUse.Removal = Use.Removal;
    else if (Use.Kind == HostUseKind::Copy)
      CopyUse.Removal = Use.Removal;
  for (const TextEdit &E : H.Edits)
    if (!llvm::is_contained(AllocUse.Removal, E) && !llvm::is_contained(CopyUse.Removal, E))
      Whole.Removal.push_back(E);
  Group.Uses.push_back(std::move(Whole));
  Group.Uses.push_back(std::move(AllocUse));
  Group.Uses.push_back(std::move(CopyUse));
  llvm::append_range(Group.Uses, Frees);
}

/// One use of the helper (of an instance): the initialiser of a local
/// variable (H6), an assignment to a cache (H8), or a descriptor argument
/// of a launch (H6: the launch then passes the returned descriptor, and
/// nothing else changes at the call).
std::optional<Blocker> UploadAnalysis::checkCaller(const DeclRefExpr *R,
                                                   const FunctionDecl *Caller) {
  const CallExpr *Call = directCallOf(R, Caller);
  const Stmt *Up = Call ? climb(Caller, Call, parensImplicitCastsAndCleanups).Parent : nullptr;
  if (Call && !runsOnDevice(Caller) && launchUses(Up, Call))
    return std::nullopt;
  const auto *DS = dyn_cast_or_null<DeclStmt>(Up);
  const VarDecl *CV = DS && DS->isSingleDecl() ? dyn_cast<VarDecl>(DS->getSingleDecl()) : nullptr;
  const VarDecl *Cache = cacheOf(Call, Up, Caller, Ctx);
  if (Cache && !runsOnDevice(Caller))
    return keepInCache(Call, Cache, Caller);
  return keepInLocal(R, Call, CV, Caller);
}

std::optional<Blocker> UploadAnalysis::run(std::string &BufferKey) {
  for (auto Step : {&UploadAnalysis::collectInstances, &UploadAnalysis::checkInstances,
                    &UploadAnalysis::editReturnType})
    if (std::optional<Blocker> Why = (this->*Step)())
      return Why;
  Group.Key = "upload:" + H.Inner.Key;
  Group.Kind = BufferKind::UploadHelper;
  Group.Name = UName;
  Group.Where = ST.point(H.Def->getLocation());
  Whole.Kind = HostUseKind::Declaration;
  Whole.Where = Group.Where;
  Whole.What = "upload helper '" + UName + "'";
  bool Called = false;
  for (const FunctionDecl *I : Instances) {
    auto Calls = Pass.UploadRefs.find(I);
    if (Calls == Pass.UploadRefs.end())
      continue;
    Called = true;
    for (auto &[R, Caller] : Calls->second)
      if (std::optional<Blocker> Why = checkCaller(R, Caller))
        return Why;
  }
  if (!Called)
    return why(ReasonID::UploadNotCalled, {UName}, U->getLocation());
  assembleGroup();
  BufferKey = Group.Key;
  Out.Buffers.push_back(std::move(Group));
  return std::nullopt;
}

bool isFileScopePointer(const VarDecl *V) {
  // A __device__/__constant__/__managed__ pointer lives on the device: not a
  // host cache.
  return V->hasGlobalStorage() && !V->isStaticLocal() && !V->hasAttr<CUDADeviceAttr>() &&
         !V->hasAttr<CUDAConstantAttr>() &&
         V->getDeclContext()->getRedeclContext()->isFileContext() &&
         isDescriptorPointer(V->getType());
}

std::optional<Blocker> UploadHelpers::fileScopeCacheProblem(const VarDecl *Cache,
                                                            SourcePoint Where) {
  std::string Name = Cache->getQualifiedNameAsString();
  const SourceManager &SM = Ctx.getSourceManager();
  // The whole program in one translation unit: no other unit can name it.
  bool OnlyUnit = Pass.wholeProgram() && Opts.SingleUnit;
  if (Cache->isExternallyVisible() && !OnlyUnit)
    return blockerFor(ReasonID::CacheExternalLinkage, {Name}, Where);
  if (!OnlyUnit && llvm::any_of(Cache->redecls(), [&](const VarDecl *D) {
        return SM.getFileID(SM.getExpansionLoc(D->getLocation())) != SM.getMainFileID();
      }))
    return blockerFor(ReasonID::CacheInHeader, {Name}, Where);
  for (auto &[R, Fn] : Pass.FileScopePointerRefs[Cache->getCanonicalDecl()]) {
    if (!Fn)
      return blockerFor(ReasonID::CacheOutsideFunction, {Name}, Where);
    if (Fn->isTemplateInstantiation() || Fn->isDependentContext())
      return blockerFor(ReasonID::CacheInTemplate, {Name, Fn->getQualifiedNameAsString()},
                        Where);
    if (runsOnDevice(Fn))
      return blockerFor(ReasonID::CacheInDeviceCode, {Name, Fn->getQualifiedNameAsString()},
                        Where);
  }
  return std::nullopt;
}

const UploadGroup &UploadHelpers::uploadGroup(const FunctionDecl *U) {
  // An instantiation of a template helper is decided with its template.
  if (const FunctionTemplateDecl *T = U->getPrimaryTemplate())
    U = T->getCanonicalDecl()->getTemplatedDecl();
  U = U->getCanonicalDecl();
  auto Known = Uploads.find(U);
  if (Known != Uploads.end())
    return Known->second;
  UploadGroup &G = Uploads[U];
  G.Why = UploadAnalysis(Pass, *this, Buffers, Reach, U).run(G.BufferKey);
  if (G.Why)
    G.BufferKey.clear();
  return G;
}

} // namespace tma::analysis
