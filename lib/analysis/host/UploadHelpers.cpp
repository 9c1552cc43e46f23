// H6/H8: upload helpers that encode, allocate, copy and return the device
// copy, and the variables and caches their callers keep it in.
#include "Host.h"

#include "../core/CudaApi.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;

namespace tma::analysis {

const UploadGroup &UploadHelpers::uploadGroup(const FunctionDecl *U) {
  U = U->getCanonicalDecl();
  auto Known = Uploads.find(U);
  if (Known != Uploads.end())
    return Known->second;
  UploadGroup &G = Uploads[U];
  std::string UName = U->getQualifiedNameAsString();
  auto Refuse = [&](std::string Msg, SourceLocation At) -> const UploadGroup & {
    G.Why = Blocker{DiagID::HostNotTraceable, std::move(Msg), ST.point(At), {}};
    return G;
  };
  const FunctionDecl *Def = nullptr;
  if (!U->hasBody(Def) || !Def || Def->getTemplatedKind() != FunctionDecl::TK_NonTemplate ||
      isa<CXXMethodDecl>(Def) || Def->hasAttr<CUDADeviceAttr>())
    return Refuse("'" + UName + "' returns the device copy; its body is not a plain host "
                  "function visible here",
                  U->getLocation());
  if (std::optional<std::string> Unseen = callableUnverified(U, "upload helper"))
    return Refuse(*Unseen, U->getLocation());
  // The helper: `... D; alloc(&D); copy(D, &M); return D;` at its top level.
  const auto *Body = dyn_cast<CompoundStmt>(Def->getBody());
  const auto *Ret = Body && !Body->body_empty() ? dyn_cast<ReturnStmt>(Body->body_back()) : nullptr;
  const auto *RetRef =
      Ret && Ret->getRetValue() ? dyn_cast<DeclRefExpr>(Ret->getRetValue()->IgnoreParenImpCasts())
                                : nullptr;
  const auto *D = RetRef ? dyn_cast<VarDecl>(RetRef->getDecl()) : nullptr;
  if (!D || !D->hasLocalStorage() || isa<ParmVarDecl>(D))
    return Refuse("'" + UName + "' does not end by returning a local device copy",
                  Def->getLocation());
  DeviceBuffer Inner = Pass.Buffers->bufferFacts(D, Def); // its uses in the helper
  const CallExpr *Copy = nullptr;
  std::vector<TextEdit> Edits;
  unsigned Allocs = 0;
  for (const HostUse &Use : Inner.Uses) {
    if (Use.Kind == HostUseKind::Other) {
      // The return itself is the one other use allowed.
      if (Use.Where == ST.point(RetRef->getBeginLoc()))
        continue;
      return Refuse("the device copy '" + D->getNameAsString() + "' in '" + UName +
                        "' has another use here",
                    RetRef->getBeginLoc());
    }
    if (Use.Kind == HostUseKind::Free || Use.Kind == HostUseKind::Launch)
      return Refuse("the device copy '" + D->getNameAsString() + "' in '" + UName +
                        "' is freed or launched inside it",
                    Def->getLocation());
    if (Use.Removal.empty())
      return Refuse("'" + Use.What + "' in '" + UName + "' cannot be removed on its own",
                    Def->getLocation());
    Allocs += Use.Kind == HostUseKind::Alloc;
    llvm::append_range(Edits, Use.Removal);
  }
  if (Pass.BufferCopies[D].size() != 1 || Allocs != 1)
    return Refuse("'" + UName + "' does not allocate and copy its device copy exactly once",
                  Def->getLocation());
  Copy = Pass.BufferCopies[D].front().Call;
  const Stmt *CopyTop = Pass.BufferCopies[D].front().Top;
  if (parent(Def, CopyTop) != Body || !runsWhenReached(Copy, CopyTop, Def))
    return Refuse("the copy in '" + UName + "' does not always run", Copy->getBeginLoc());
  const Expr *Src = stripCasts(Copy->getArg(1));
  const auto *Addr = dyn_cast<UnaryOperator>(Src);
  const auto *MRef = Addr && Addr->getOpcode() == UO_AddrOf
                         ? dyn_cast<DeclRefExpr>(Addr->getSubExpr()->IgnoreParens())
                         : nullptr;
  const auto *M = MRef ? dyn_cast<VarDecl>(MRef->getDecl()) : nullptr;
  if (!M || !M->hasLocalStorage() || isa<ParmVarDecl>(M) || !isTensorMapRecord(M->getType()))
    return Refuse("the copy in '" + UName + "' does not read a local CUtensorMap of it",
                  Copy->getBeginLoc());
  for (const DeclRefExpr *R : index(Def).Refs[M])
    if (classifyHostRef(R, *index(Def).PM) != HostRefKind::Read &&
        between(CopyTop, Ret, R, Def))
      return Refuse("'" + M->getNameAsString() + "' changes between the copy and the return",
                    R->getBeginLoc());
  // `return D;` -> `return M;`, and the return type loses its '*'.
  if (std::optional<CharSourceRange> R = ST.fileRange(RetRef->getSourceRange()))
    Edits.push_back(ST.replace(*R, M->getNameAsString()));
  else
    return Refuse("the return of '" + UName + "' is spelled in a macro", Ret->getBeginLoc());
  auto StarOf = [&](TypeLoc TL) -> std::optional<CharSourceRange> {
    while (auto Q = TL.getAs<QualifiedTypeLoc>())
      TL = Q.getUnqualifiedLoc();
    auto PTL = TL.getAs<PointerTypeLoc>();
    if (!PTL)
      return std::nullopt;
    return ST.fileRange(SourceRange(PTL.getStarLoc(), PTL.getStarLoc()));
  };
  for (const FunctionDecl *Redecl : U->redecls()) {
    TypeSourceInfo *TSI = Redecl->getTypeSourceInfo();
    auto FTL = TSI ? TSI->getTypeLoc().getAsAdjusted<FunctionTypeLoc>() : FunctionTypeLoc();
    std::optional<CharSourceRange> Star = FTL ? StarOf(FTL.getReturnLoc()) : std::nullopt;
    if (!Star || ST.inSystemHeader(Redecl->getLocation()))
      return Refuse("the return type of '" + UName + "' cannot be edited here",
                    Redecl->getLocation());
    Edits.push_back(ST.replace(*Star, ""));
  }
  // Every caller keeps the result in a local variable that is only launched
  // with and freed.
  DeviceBuffer Group;
  Group.Key = "upload:" + Inner.Key;
  Group.Kind = BufferKind::UploadHelper;
  Group.Name = UName;
  Group.Where = ST.point(Def->getLocation());
  HostUse Whole;
  Whole.Kind = HostUseKind::Declaration;
  Whole.Where = Group.Where;
  Whole.What = "upload helper '" + UName + "'";
  HostUse AllocUse, CopyUse;
  AllocUse.Kind = HostUseKind::Alloc;
  CopyUse.Kind = HostUseKind::Copy;
  AllocUse.Where = CopyUse.Where = Group.Where;
  std::vector<HostUse> Frees;
  // \p S is a launch that passes \p VR as descriptors: one use per slot.
  auto LaunchUses = [&](const Stmt *S, const DeclRefExpr *VR) {
    std::optional<KernelLaunch> L = asLaunch(S);
    bool Slot = false;
    for (unsigned J : L ? descriptorParamIndexes(L->Kernel) : std::vector<unsigned>())
      if (J < L->Args.size() && L->Args[J]->IgnoreParenImpCasts() == VR) {
        HostUse LU;
        LU.Kind = HostUseKind::Launch;
        LU.Where = ST.point(VR->getBeginLoc());
        LU.What = "launch of '" + patternOf(L->Kernel)->getQualifiedNameAsString() + "'";
        LU.ParamKey = paramKey(L->Kernel, J);
        Group.Uses.push_back(LU);
        Slot = true;
      }
    return Slot;
  };
  auto Calls = Pass.UploadRefs.find(U);
  if (Calls == Pass.UploadRefs.end())
    return Refuse("'" + UName + "' is not called", U->getLocation());
  for (auto &[R, Caller] : Calls->second) {
    const CallExpr *Call = directCallOf(R, Caller);
    const Stmt *Up = Call ? parent(Caller, Call) : nullptr;
    while (Up && isa<ExprWithCleanups, ImplicitCastExpr>(Up))
      Up = parent(Caller, Up);
    const auto *DS = dyn_cast_or_null<DeclStmt>(Up);
    const VarDecl *CV = nullptr;
    if (DS && DS->isSingleDecl())
      CV = dyn_cast<VarDecl>(DS->getSingleDecl());
    // H8: `cache = helper(...)` into a static local pointer that starts null.
    const VarDecl *Cache = nullptr;
    if (const auto *BO = dyn_cast_or_null<BinaryOperator>(Up);
        Call && BO && BO->getOpcode() == BO_Assign && BO->getRHS()->IgnoreImplicit() == Call)
      if (const auto *LR = dyn_cast<DeclRefExpr>(BO->getLHS()->IgnoreParens()))
        if (const auto *LV = dyn_cast<VarDecl>(LR->getDecl());
            LV && LV->isStaticLocal() && LV->getDeclContext() == Caller &&
            (!LV->getInit() ||
             LV->getInit()->isNullPointerConstant(Ctx, Expr::NPC_ValueDependentIsNotNull)))
          Cache = LV;
    if (Cache && !Caller->hasAttr<CUDADeviceAttr>() && !Caller->hasAttr<CUDAGlobalAttr>()) {
      std::optional<CharSourceRange> CallText = ST.fileRange(Call->getSourceRange());
      if (!CallText)
        return Refuse("the call of '" + UName + "' is spelled inside a macro body",
                      Call->getBeginLoc());
      std::string Pointee = Cache->getType()->getPointeeType().getUnqualifiedType().getAsString(
          Ctx.getPrintingPolicy());
      Whole.Removal.push_back(ST.insertBefore(CallText->getBegin(), "new " + Pointee + "("));
      Whole.Removal.push_back(ST.insertBefore(CallText->getEnd(), ")"));
      for (const DeclRefExpr *VR : index(Caller).Refs[Cache]) {
        const Stmt *C = VR;
        const Stmt *Q = parent(Caller, C);
        while (Q && isa<ParenExpr>(Q)) {
          C = Q;
          Q = parent(Caller, Q);
        }
        if (const auto *BO = dyn_cast_or_null<BinaryOperator>(Q);
            BO && BO->getOpcode() == BO_Assign && BO->getLHS() == C) {
          const auto *RC = dyn_cast<CallExpr>(BO->getRHS()->IgnoreImplicit());
          if (RC && RC->getDirectCallee() &&
              RC->getDirectCallee()->getCanonicalDecl() == U)
            continue; // this very assignment, or another from the helper
          return Refuse("the cache '" + Cache->getNameAsString() +
                            "' is assigned here other than from '" + UName + "'",
                        BO->getBeginLoc());
        }
        // Null tests read the pointer only: `!d`, `if (d)`, `d == nullptr`.
        const Stmt *Use = Q;
        while (Use && (isa<ParenExpr>(Use) ||
                       (isa<ImplicitCastExpr>(Use) &&
                        cast<ImplicitCastExpr>(Use)->getCastKind() != CK_PointerToBoolean)))
          Use = parent(Caller, Use);
        if (const auto *B = dyn_cast_or_null<ImplicitCastExpr>(Use);
            B && B->getCastKind() == CK_PointerToBoolean)
          continue;
        if (const auto *UO = dyn_cast_or_null<UnaryOperator>(Use); UO && UO->getOpcode() == UO_LNot)
          continue;
        if (const auto *Cmp = dyn_cast_or_null<BinaryOperator>(Use);
            Cmp && Cmp->isEqualityOp() &&
            (Cmp->getLHS()->isNullPointerConstant(Ctx, Expr::NPC_ValueDependentIsNotNull) ||
             Cmp->getRHS()->isNullPointerConstant(Ctx, Expr::NPC_ValueDependentIsNotNull)))
          continue;
        if (LaunchUses(Use, VR))
          continue;
        return Refuse("the cache '" + Cache->getNameAsString() + "', which holds the result of '" +
                          UName + "', is used here other than in a launch or a null test",
                      VR->getBeginLoc());
      }
      continue;
    }
    if (!Call || !CV || !CV->getInit() ||
        CV->getInit()->IgnoreImplicit() != Call || CV->isStaticLocal() ||
        Caller->hasAttr<CUDADeviceAttr>() || Caller->hasAttr<CUDAGlobalAttr>())
      return Refuse("'" + UName + "' is used here other than to initialise a local variable",
                    R->getBeginLoc());
    if (CV->getType()->isPointerType()) {
      TypeSourceInfo *TSI = CV->getTypeSourceInfo();
      std::optional<CharSourceRange> Star = TSI ? StarOf(TSI->getTypeLoc()) : std::nullopt;
      if (!Star)
        return Refuse("the declaration of '" + CV->getNameAsString() + "' cannot be edited",
                      CV->getLocation());
      Whole.Removal.push_back(ST.replace(*Star, ""));
    }
    for (const DeclRefExpr *VR : index(Caller).Refs[CV]) {
      const Stmt *C = VR;
      const Stmt *Q = parent(Caller, C);
      while (Q && (isa<ParenExpr>(Q) || isa<ImplicitCastExpr>(Q))) {
        C = Q;
        Q = parent(Caller, Q);
      }
      if (LaunchUses(Q, VR))
        continue;
      while (Q && isa<ExplicitCastExpr>(Q)) { // cudaFree((void *)p)
        C = Q;
        Q = parent(Caller, Q);
        while (Q && (isa<ParenExpr>(Q) || isa<ImplicitCastExpr>(Q))) {
          C = Q;
          Q = parent(Caller, Q);
        }
      }
      const auto *FreeCall = dyn_cast_or_null<CallExpr>(Q);
      std::string FreeName = FreeCall ? driverBaseName(calleeName(FreeCall)).str() : "";
      if (FreeCall && FreeCall->getNumArgs() >= 1 && FreeCall->getArg(0) == C &&
          cudaApi(FreeName, ApiRole::Free)) {
        HostUse FU;
        FU.Kind = HostUseKind::Free;
        FU.What = FreeName;
        FU.Where = ST.point(FreeCall->getBeginLoc());
        FU.Removal = Pass.Buffers->removeHostCall(FreeCall, Caller);
        if (FU.Removal.empty())
          return Refuse("this " + FreeName + " of '" + CV->getNameAsString() +
                            "' cannot be removed on its own",
                        FreeCall->getBeginLoc());
        Frees.push_back(std::move(FU));
        continue;
      }
      return Refuse("'" + CV->getNameAsString() + "', which holds the result of '" + UName +
                        "', is used here other than in a launch or a free",
                    VR->getBeginLoc());
    }
  }
  // The helper's own removals: its allocation, its copy, the declaration.
  for (const HostUse &Use : Inner.Uses)
    if (Use.Kind == HostUseKind::Alloc)
      AllocUse.Removal = Use.Removal;
    else if (Use.Kind == HostUseKind::Copy)
      CopyUse.Removal = Use.Removal;
  for (const TextEdit &E : Edits)
    if (!llvm::is_contained(AllocUse.Removal, E) && !llvm::is_contained(CopyUse.Removal, E))
      Whole.Removal.push_back(E);
  Group.Uses.push_back(std::move(Whole));
  Group.Uses.push_back(std::move(AllocUse));
  Group.Uses.push_back(std::move(CopyUse));
  llvm::append_range(Group.Uses, Frees);
  G.BufferKey = Group.Key;
  Out.Buffers.push_back(std::move(Group));
  return G;
}

} // namespace tma::analysis
