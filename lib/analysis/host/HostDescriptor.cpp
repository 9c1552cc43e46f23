// The host descriptor a copy reads, and the proof that a launch may pass
// it by value: local, in scope, and not written between the copy and the launch.
#include "HostBuffers.h"
#include "../core/CudaApi.h"
#include "../core/Types.h"
#include "HostRefs.h"
#include "ObjectReach.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/StmtCXX.h"

using namespace clang;

namespace tma::analysis {

/// A part of the object: `(h)`, `h.field`, `h[i]` (its base), `h` decayed.
static bool partOfObject(const Stmt *P, const Stmt *Child) {
  const auto *AS = dyn_cast<ArraySubscriptExpr>(P);
  const auto *IC = dyn_cast<ImplicitCastExpr>(P);
  return isa<ParenExpr, MemberExpr>(P) || (AS && AS->getBase() == Child) ||
         (IC && IC->getCastKind() == CK_ArrayToPointerDecay);
}

HostRefKind classifyHostRef(const DeclRefExpr *R, ParentMap &PM) {
  auto Parent = [&](const Stmt *S) { return PM.getParent(S); };
  auto [Cur, P] = climb(R, Parent, partOfObject);
  if (!P)
    return HostRefKind::Write;
  if (const auto *IC = dyn_cast<ImplicitCastExpr>(P))
    if (IC->getCastKind() == CK_LValueToRValue || IC->getCastKind() == CK_NoOp)
      return HostRefKind::Read;
  if (isa<CXXConstructExpr>(P) || isa<UnaryExprOrTypeTraitExpr>(P) ||
      isa<CUDAKernelCallExpr>(P))
    return HostRefKind::Read;
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(P))
    return OC->isAssignmentOp() && OC->getArg(0) == Cur ? HostRefKind::Write
                                                        : HostRefKind::Read;
  if (const auto *UO = dyn_cast<UnaryOperator>(P)) {
    if (UO->getOpcode() != UO_AddrOf)
      return HostRefKind::Write;
    Climbed Address = climb(UO, Parent, parensAndCasts);
    const auto *CE = dyn_cast_or_null<CallExpr>(Address.Parent);
    if (!CE)
      return HostRefKind::AddressEscapes;
    const FunctionDecl *FD = CE->getDirectCallee();
    for (unsigned I = 0; FD && I < CE->getNumArgs() && I < FD->getNumParams(); ++I)
      if (CE->getArg(I) == Address.Child) {
        QualType T = FD->getParamDecl(I)->getType();
        if (T->isPointerType() && T->getPointeeType().isConstQualified())
          return HostRefKind::Read;
        return HostRefKind::Write;
      }
    return HostRefKind::Write;
  }
  if (const auto *CE = dyn_cast<CallExpr>(P)) {
    const FunctionDecl *FD = CE->getDirectCallee();
    for (unsigned I = 0; FD && I < CE->getNumArgs() && I < FD->getNumParams(); ++I)
      if (CE->getArg(I) == Cur) {
        QualType T = FD->getParamDecl(I)->getType();
        if (T->isReferenceType() && T->getPointeeType().isConstQualified())
          return HostRefKind::Read;
      }
    return HostRefKind::Write;
  }
  // An assignment, compound or not, writes where it is.
  if (isa<BinaryOperator>(P))
    return HostRefKind::Write;
  // A lambda's capture: its uses are in the body, where the lambda rules
  // look.
  if (isa<LambdaExpr>(P))
    return HostRefKind::Read;
  // Closed world (issue 41): a use no row above classifies (an aggregate's
  // reference member bound to it, `Ref{h}`, and a structured binding of
  // that; a conditional lvalue) may make another name for the object,
  // through which it may change at any later time.
  return HostRefKind::AddressEscapes;
}

/// `&h`, `&s.map`, `&maps[1]`: an lvalue with no side effects whose value
/// the launch can name. Returns its root variable.
const VarDecl *simpleLValueRoot(const Expr *E, ASTContext &Ctx) {
  E = E->IgnoreParens();
  if (const auto *R = dyn_cast<DeclRefExpr>(E))
    return dyn_cast<VarDecl>(R->getDecl());
  if (const auto *ME = dyn_cast<MemberExpr>(E))
    return ME->isArrow() ? nullptr : simpleLValueRoot(ME->getBase(), Ctx);
  if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E)) {
    Expr::EvalResult Idx;
    if (!AS->getIdx()->EvaluateAsInt(Idx, Ctx))
      return nullptr;
    return simpleLValueRoot(AS->getBase()->IgnoreImpCasts(), Ctx);
  }
  return nullptr;
}

namespace {
/// The fields an lvalue names below its root variable, outermost last:
/// `plan.maps.a` is [maps, a]. The path stops at anything but a `.` member
/// (an array element, a call): what follows is taken as the whole object.
std::vector<const FieldDecl *> fieldPathDown(const Expr *E) {
  std::vector<const FieldDecl *> Path;
  E = E->IgnoreParens();
  while (const auto *ME = dyn_cast<MemberExpr>(E)) {
    const auto *F = dyn_cast<FieldDecl>(ME->getMemberDecl());
    if (!F || ME->isArrow())
      return {};
    Path.insert(Path.begin(), F);
    E = ME->getBase()->IgnoreParens();
  }
  return isa<DeclRefExpr>(E) ? Path : std::vector<const FieldDecl *>();
}

/// The same for a reference \p R to the root: the `.` members around it.
std::vector<const FieldDecl *> fieldPathUp(const DeclRefExpr *R, ParentMap &PM) {
  std::vector<const FieldDecl *> Path;
  const Stmt *Cur = R;
  for (const Stmt *P = PM.getParent(Cur); P; Cur = P, P = PM.getParent(P)) {
    if (isa<ParenExpr>(P))
      continue;
    const auto *ME = dyn_cast<MemberExpr>(P);
    const auto *F = ME ? dyn_cast<FieldDecl>(ME->getMemberDecl()) : nullptr;
    if (!F || ME->isArrow() || ME->getBase()->IgnoreParens() != Cur)
      break;
    Path.push_back(F);
  }
  return Path;
}

/// Two field paths from one root name storage that cannot overlap: they
/// part at two different fields of one struct (not a union).
bool disjointFields(llvm::ArrayRef<const FieldDecl *> A, llvm::ArrayRef<const FieldDecl *> B) {
  for (size_t I = 0; I < A.size() && I < B.size(); ++I)
    if (A[I] != B[I])
      return !A[I]->getParent()->isUnion();
  return false; // one holds the other
}
} // namespace

bool HostBuffers::inScopeAt(const VarDecl *H, const Stmt *Named, const FunctionDecl *Fn) {
  const Stmt *Decl = declStmtOf(H, Fn);
  const Stmt *Scope = Decl ? parent(Fn, Decl) : nullptr;
  return Scope && isAncestor(Scope, Named, Fn) &&
         offsetOf(Decl->getBeginLoc()) <= offsetOf(Named->getBeginLoc());
}

/// What \p Copy reads (its source argument, by the API's row), casts
/// stripped; and in \p HostLV the object when that is its address (`&h`).
static const Expr *copySource(const CallExpr *Copy, const Expr *&HostLV) {
  const CudaApi *Api = cudaApiOf(Copy);
  unsigned I = Api && Api->Src >= 0 ? unsigned(Api->Src) : 1;
  const Expr *Src = Copy->getArg(I)->IgnoreParenImpCasts();
  while (const auto *EC = dyn_cast<ExplicitCastExpr>(Src))
    Src = EC->getSubExpr()->IgnoreParenImpCasts();
  const auto *Addr = dyn_cast<UnaryOperator>(Src);
  HostLV = Addr && Addr->getOpcode() == UO_AddrOf ? Addr->getSubExpr() : nullptr;
  return Src;
}

/// The host descriptor that \p Copy reads (`&h`, or a staged pointer `p`),
/// and the proof that \p Launch may pass it by value instead: it is local,
/// in scope at \p Named, and nothing changes it between the copy and the
/// launch. On success \p HostDescriptor is what the launch passes (`h`,
/// `*p`).
std::optional<Blocker> HostBuffers::hostDescriptorAt(
    const CallExpr *Copy, const Stmt *CopyTop, const Stmt *Launch, const Stmt *Named,
    const FunctionDecl *Fn, SourceLocation ArgLoc, llvm::StringRef CopiedInto,
    std::string &HostDescriptor) {
  std::vector<Note> CopyNote{{"copied here", ST.point(Copy->getBeginLoc())}};
  const Expr *HostLV;
  const Expr *Src = copySource(Copy, HostLV);
  const VarDecl *H = HostLV && isTensorMapRecord(HostLV->getType())
                         ? simpleLValueRoot(HostLV, Ctx)
                         : nullptr;
  // H3: the descriptor is staged behind a host pointer (a parameter, or
  // pinned/heap memory): the launch passes '*staged'.
  bool Staged = false;
  if (!H)
    if (const auto *PR = dyn_cast<DeclRefExpr>(Src))
      if (const auto *PV = dyn_cast<VarDecl>(PR->getDecl());
          PV && isDescriptorPointer(PV->getType()) &&
          (PV->hasLocalStorage() || isa<ParmVarDecl>(PV)) && !PV->isStaticLocal()) {
        H = PV;
        Staged = true;
      }
  if (!H) {
    return blockerFor(ReasonID::HostCopyNotFromVariable, {CopiedInto.str(), spelled(Src)},
                      ST.point(Copy->getBeginLoc()));
  }
  if (!H->hasLocalStorage() && !isa<ParmVarDecl>(H)) {
    return blockerFor(ReasonID::HostNotLocal,
                      {H->getNameAsString(), Fn->getQualifiedNameAsString()},
                      ST.point(Copy->getBeginLoc()));
  }
  // The launch must be able to name it (an argument array names it where
  // it is declared).
  if (!isa<ParmVarDecl>(H) && !inScopeAt(H, Named, Fn))
    return blockerFor(ReasonID::HostNotInScope, {H->getNameAsString()}, ST.point(ArgLoc),
                      CopyNote);
  // It must still hold the copied value at the launch. A write to another
  // field of the same struct (`plan.passes = 2` beside `plan.map`) cannot
  // change it.
  std::vector<const FieldDecl *> Copied =
      Staged ? std::vector<const FieldDecl *>() : fieldPathDown(HostLV);
  auto HRefs = index(Fn).Refs.find(H);
  if (HRefs != index(Fn).Refs.end())
    for (const DeclRefExpr *R : HRefs->second) {
      HostRefKind RK = classifyHostRef(R, *index(Fn).PM);
      if (RK == HostRefKind::Write && disjointFields(Copied, fieldPathUp(R, *index(Fn).PM)))
        continue;
      // An address the object proof below follows (kept in a local) is
      // not an escape; kept anywhere else, it is.
      if (RK == HostRefKind::AddressEscapes && !Reach.accountsFor(R, H, Fn)) {
        return blockerFor(ReasonID::HostAddressKept, {H->getNameAsString()},
                          ST.point(R->getBeginLoc()), CopyNote);
      }
      if (RK == HostRefKind::Write && between(CopyTop, Launch, R, Fn))
        return blockerFor(ReasonID::HostModifiedBetween, {H->getNameAsString()},
                          ST.point(R->getBeginLoc()), CopyNote);
    }
  // Through every other name (references and pointers bound to it, lambdas
  // that change it, escaped addresses that code in between may use), after
  // the rule for a staged pointer below, whose messages come first.
  ObjectQuery Q{H, CopyTop, Launch, Fn, nullptr, {Copy, Launch}, CopyNote};
  if (!Staged && !Copied.empty())
    Q.Disjoint = [&](const DeclRefExpr *R) {
      return disjointFields(Copied, fieldPathUp(R, *index(Fn).PM));
    };
  if (Staged) {
    // What '*staged' points to may change through any code that can reach
    // it: between the copy and the launch only the CUDA runtime may run,
    // and nothing may name the pointer.
    for (const Stmt *S : index(Fn).Stmts) {
      const auto *Call = dyn_cast<CallExpr>(S);
      if (!Call || Call == Copy || Call == Launch || !between(CopyTop, Launch, Call, Fn))
        continue;
      std::string Name = calleeName(Call);
      bool NamesIt = llvm::any_of(Call->arguments(), [&](const Expr *A) {
        const auto *D = dyn_cast<DeclRefExpr>(A->IgnoreParenImpCasts());
        return D && D->getDecl() == H;
      });
      // A call that writes only what it is given by name (`config.blockDim
      // = dim3(2)` on a local struct) cannot reach heap or pinned memory;
      // of the CUDA API only a stream callback runs host code.
      const CudaApi *Api = cudaApiOf(Call);
      bool MayReach = (!llvm::StringRef(Name).starts_with("cuda") ||
                       (Api && Api->Role == ApiRole::HostCallback)) &&
                      Reach.mayWriteUnnamed(Call);
      if (NamesIt || MayReach)
        return blockerFor(ReasonID::HostStagedCallBetween,
                          {Name.empty() ? spelled(Call) : Name, H->getNameAsString()},
                          ST.point(Call->getBeginLoc()), CopyNote);
    }
    // What it points to may be any object whose address was taken (the
    // local it was made from, `staged = &h`, assigned by name), or memory
    // reached through any other pointer.
    if (const Stmt *W = Reach.writeThroughBetween(CopyTop, Launch, Fn, {Copy, Launch}, true))
      return blockerFor(ReasonID::HostStagedWriteBetween,
                        {spelled(cast<Expr>(W)), H->getNameAsString()},
                        ST.point(W->getBeginLoc()), CopyNote);
    // A stream callback or a thread may change it at any time.
    if (const Stmt *C = Reach.concurrentCodeBefore(Launch, Fn))
      return blockerFor(ReasonID::HostConcurrentCode,
                        {"*" + H->getNameAsString(), "'" + spelled(cast<Expr>(C)) + "'"},
                        ST.point(C->getBeginLoc()), CopyNote);
  }
  if (std::optional<Blocker> Why = Reach.changeBetween(Q))
    return Why;
  HostDescriptor = Staged ? "*" + spelled(Src) : spelled(HostLV);
  return std::nullopt;
}

std::optional<Blocker> HostBuffers::deferredReadBlocker(const CallExpr *Copy, const Stmt *CopyTop,
                                                        size_t Copies, llvm::StringRef Into,
                                                        const FunctionDecl *Fn,
                                                        const Stmt *DeviceChange,
                                                        const Stmt *HeldOp, bool OneStreamOrder,
                                                        const VarDecl *Storage,
                                                        bool OnLegacyStream) {
  // A graph replays a captured launch later; a stream other than the
  // default one may run a launch after statements written later. Either
  // way the kernel reads the device copy when it runs, and a by-value
  // launch passes the descriptor as it is at the call.
  // A graph captures only work on a stream being captured, which the
  // legacy default stream cannot be.
  // A stream runs its work after later statements only while something
  // holds it: \p HeldOp is the first operation on the device copy (a copy
  // into it, the launch) on a stream that may be held (PassContext::
  // mayBeHeld).
  const Stmt *At = Pass.GraphCall && !OnLegacyStream ? Pass.GraphCall
                       : OneStreamOrder                  ? nullptr
                                                         : HeldOp;
  if (!At)
    return std::nullopt;
  bool Graph = At == Pass.GraphCall;
  std::vector<Note> AtNote{{Graph ? "a CUDA graph is captured or replayed here"
                                  : "this work on the device copy is enqueued on a stream that "
                                    "may be held",
                            ST.point(At->getBeginLoc())}};
  if (!Graph)
    AtNote.push_back({Pass.streamHoldNote(), ST.point(Pass.StreamHold->getBeginLoc())});
  auto Refuse = [&](const std::string &Detail, SourceLocation Where) {
    return blockerFor(Graph ? ReasonID::HostGraphReplay : ReasonID::HostOtherStream, {Detail},
                      ST.point(Where), AtNote);
  };
  if (Copies != 1)
    return Refuse("'" + Into.str() + "' is copied into " + std::to_string(Copies) +
                      (Graph ? " times, so a replay may read a later copy"
                             : " times, so the kernel may read a later copy"),
                  Copy->getBeginLoc());
  if (DeviceChange)
    return Refuse("'" + Into.str() + "' has another use here, which may change it before the "
                      "kernel reads it",
                  DeviceChange->getBeginLoc());
  // A synchronous copy outside any loop runs once: the device copy keeps
  // what it copied. One on a stream can be captured, and a replay runs it
  // again; one in a loop runs again for the next replays. Either reads the
  // host descriptor as it is then, which must be what the launch captured.
  // On a stream, a loop that declares the device copy anew in each round
  // (`for (...) { CUtensorMap *d; cudaMalloc(&d, ...); ... }`) copies into
  // each once: only a loop inside the storage's scope runs the copy again.
  const Stmt *StorageDecl = !Graph && Storage ? declStmtOf(Storage, Fn) : nullptr;
  const Stmt *Loop = nullptr; // the outermost around the copy
  for (const Stmt *P = parent(Fn, CopyTop); P; P = parent(Fn, P))
    if (isLoop(P) && !(StorageDecl && isAncestor(P, StorageDecl, Fn)))
      Loop = P;
  // A backward goto makes a loop of the whole body.
  if (!Loop && llvm::any_of(index(Fn).Stmts, [](const Stmt *S) {
        return isa<GotoStmt, IndirectGotoStmt>(S);
      }))
    Loop = Fn->getBody();
  const CudaApi *Api = cudaApiOf(Copy);
  if (Api && !Api->streamOrdered() && !Loop)
    return std::nullopt;
  const Expr *HostLV;
  const Expr *Src = copySource(Copy, HostLV);
  const VarDecl *H = HostLV ? simpleLValueRoot(HostLV, Ctx) : nullptr;
  if (!H || !H->hasLocalStorage() || H->getType()->isReferenceType())
    return Refuse("the copy reads '" + spelled(Src) +
                      "', not the address of a local descriptor, which may change before a replay",
                  Copy->getBeginLoc());
  return hostUnchangedAfter(H, Copy, CopyTop, Loop, Fn, Refuse);
}

/// Does \p R bind a reference to what it names (`CUtensorMap &r = h;`,
/// `f(h)` with a non-const reference parameter)?
static bool bindsReference(const DeclRefExpr *R, ParentMap &PM) {
  const Stmt *Cur = R;
  const Stmt *P = PM.getParent(Cur);
  while (isa_and_nonnull<ParenExpr, MemberExpr, ArraySubscriptExpr>(P)) {
    Cur = P;
    P = PM.getParent(P);
  }
  if (const auto *DS = dyn_cast_or_null<DeclStmt>(P))
    for (const Decl *D : DS->decls())
      if (const auto *V = dyn_cast<VarDecl>(D);
          V && V->getType()->isReferenceType() && V->getInit() &&
          V->getInit()->IgnoreParenImpCasts() == Cur)
        return true;
  if (const auto *CE = dyn_cast_or_null<CallExpr>(P))
    if (const FunctionDecl *FD = CE->getDirectCallee())
      for (unsigned I = 0; I < CE->getNumArgs() && I < FD->getNumParams(); ++I)
        if (CE->getArg(I)->IgnoreParenImpCasts() == Cur) {
          QualType T = FD->getParamDecl(I)->getType();
          return T->isReferenceType() && !T.getNonReferenceType().isConstQualified();
        }
  return false;
}

std::optional<Blocker> HostBuffers::hostUnchangedAfter(
    const VarDecl *H, const CallExpr *Copy, const Stmt *CopyTop, const Stmt *Loop,
    const FunctionDecl *Fn,
    const std::function<Blocker(const std::string &, SourceLocation)> &Refuse) {
  ParentMap &PM = *index(Fn).PM;
  std::string Name = H->getNameAsString();
  auto HRefs = index(Fn).Refs.find(H);
  if (HRefs != index(Fn).Refs.end())
    for (const DeclRefExpr *R : HRefs->second) {
      SourceLocation L = R->getBeginLoc();
      if (isAncestor(Copy, R, Fn))
        continue;
      // Another name for it, made before the copy, may change it after.
      if (Reach.outermostLambda(R, Fn))
        return Refuse("'" + Name + "' is named in a lambda here, which may change it after the copy",
                      L);
      HostRefKind RK = classifyHostRef(R, PM);
      if (RK == HostRefKind::AddressEscapes || bindsReference(R, PM))
        return Refuse("another name for '" + Name + "' is made here, through which it may change",
                      L);
      if (RK == HostRefKind::Read)
        continue;
      if (offsetOf(L) > offsetOf(CopyTop->getBeginLoc()) || (Loop && isAncestor(Loop, R, Fn)) ||
          reaches(Copy, R, Fn))
        return Refuse("'" + Name + "' may change here, after the copy", L);
    }
  // Code that may reach it through an escaped address, to the end of the
  // function (a replay may come at any point after the copy).
  const auto *Body = dyn_cast_or_null<CompoundStmt>(Fn->getBody());
  if (Body && !Body->body_empty() && Body->body_back() != CopyTop) {
    ObjectQuery Q{H, CopyTop, Body->body_back(), Fn, nullptr, {Copy}, {}};
    if (std::optional<Blocker> Why = Reach.changeBetween(Q))
      return Refuse("'" + Name + "' may change after the copy (" + Why->Message + ")",
                    Copy->getBeginLoc());
  }
  return std::nullopt;
}

} // namespace tma::analysis
