// One rule for every use of a storage: what a reference does to the object
// it names (reads it, writes it, makes another name reach it, or lets code
// the analysis cannot see reach it), and from that the proof that an object
// is unchanged between two points of a function. Modelled on clang's
// ExprMutationAnalyzer, extended with what it does not see: aliases bound
// before the interval, lambdas that run inside it, and addresses that
// escaped to code that runs inside it.
#include "ObjectReach.h"

#include "../core/CudaApi.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;

namespace tma::analysis {

namespace {
bool isLocalVariable(const VarDecl *V) {
  return V && V->hasLocalStorage() && !V->isStaticLocal() && !isa<ParmVarDecl>(V);
}

/// From \p P, the parent of \p Cur, past what wraps a temporary.
const Stmt *skipTransparent(const Stmt *P, const Stmt *&Cur, ParentOf Parent) {
  if (!P || !temporaryWrappers(P, Cur))
    return P;
  Climbed C = climb(P, Parent, temporaryWrappers);
  Cur = C.Child;
  return C.Parent;
}
} // namespace

/// The references to \p D in \p Fn, without adding an entry to the index
/// (callers may be iterating over another entry of it).
std::vector<const DeclRefExpr *> ObjectReach::refsOf(const FunctionDecl *Fn, const Decl *D) {
  auto &Refs = index(Fn).Refs;
  auto It = Refs.find(D);
  if (It == Refs.end())
    return {};
  return std::vector<const DeclRefExpr *>(It->second.begin(), It->second.end());
}

/// \p U only stores the address where it escapes (ObjectUse::StoresOnly).
static ObjectUse stored(ObjectUse U) {
  U.StoresOnly = true;
  return U;
}

ObjectUse ObjectReach::make(Effect E, const Stmt *At, std::string Via, const VarDecl *Alias) {
  ObjectUse U;
  U.What = E;
  U.At = At;
  U.Via = std::move(Via);
  U.Alias = Alias;
  return U;
}

const LambdaExpr *ObjectReach::outermostLambda(const Stmt *S, const FunctionDecl *Fn) {
  const LambdaExpr *Found = nullptr;
  const Stmt *Cur = S;
  for (const Stmt *P = parent(Fn, Cur); P; Cur = P, P = parent(Fn, P))
    if (const auto *LE = dyn_cast<LambdaExpr>(P))
      if (LE->getBody() == Cur)
        Found = LE;
  return Found;
}

/// The argument \p Cur of \p Call is bound to a parameter of type \p T
/// (or is variadic when T is null): what the call does to the object.
ObjectUse ObjectReach::argumentUse(const CallExpr *Call, const Stmt *Cur, bool Pointer,
                                   unsigned Depth, bool DevicePointer) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  std::string Name = Callee ? "'" + Callee->getQualifiedNameAsString() + "'" : "an indirect call";
  if (!Callee)
    return make(Effect::Escape, Call, Name);
  bool System = ST.inSystemHeader(Callee->getLocation());
  if (isa<CUDAKernelCallExpr>(Call) || isKernel(Callee))
    // A kernel cannot keep a pointer past its run; host storage it cannot
    // reach. A device copy it is given is another use of that copy.
    return make(DevicePointer ? Effect::Write : Effect::Escape, Call, Name);
  // A stream callback's user data is handed to the callback, which runs
  // when the stream reaches it, after later statements: kept, not used at
  // the call (issue 41).
  if (const CudaApi *Api = cudaApiOf(Call); Api && Api->Role == ApiRole::HostCallback)
    return make(Effect::Escape, Call, Name);
  unsigned First = isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(Callee) ? 1 : 0;
  int Param = -1;
  for (unsigned I = 0; I < Call->getNumArgs(); ++I)
    if (Call->getArg(I) == Cur)
      Param = int(I) - int(First);
  if (Param < 0) // the object of a member operator call: `h = x`, `h.f()`
    return make(Effect::Write, Call, Name);
  if (unsigned(Param) >= Callee->getNumParams())
    // Variadic: printf("%p", d) keeps nothing; a user's variadic function may.
    return make(System ? Effect::Read : Effect::Escape, Call, Name);
  QualType T = Callee->getParamDecl(Param)->getType();
  if (!Pointer && !T->isReferenceType())
    return make(Effect::Read, Call, Name); // passed by value: a copy
  QualType Pointee = T->isReferenceType() ? T.getNonReferenceType() : T->getPointeeType();
  if (!Pointee.isNull() && Pointee.isConstQualified() && !Pointee->isPointerType() &&
      callHonoursConst(Call, Depth))
    return make(Effect::Read, Call, Name);
  return make(mayKeep(Callee, unsigned(Param), Depth + 1) ? Effect::Escape : Effect::Write, Call,
              Name);
}

ObjectUse ObjectReach::objectUse(const Expr *LV, const FunctionDecl *Fn, unsigned Depth,
                                 bool DevicePointer) {
  auto Parent = [&](const Stmt *S) { return parent(Fn, S); };
  const Stmt *Cur = LV;
  const Stmt *P = Parent(Cur);
  for (;;) {
    P = skipTransparent(P, Cur, Parent);
    if (!P)
      return make(Effect::Write, Cur);
    if (const auto *ME = dyn_cast<MemberExpr>(P); ME && !ME->isArrow() && ME->getBase() == Cur &&
                                                  isa<FieldDecl>(ME->getMemberDecl())) {
      Cur = P;
      P = Parent(P);
      continue;
    }
    if (const auto *AS = dyn_cast<ArraySubscriptExpr>(P); AS && AS->getBase() == Cur) {
      Cur = P;
      P = Parent(P);
      continue;
    }
    if (const auto *IC = dyn_cast<ImplicitCastExpr>(P);
        IC && IC->getCastKind() == CK_ArrayToPointerDecay) {
      const Stmt *Up = Parent(P);
      if (const auto *AS = dyn_cast_or_null<ArraySubscriptExpr>(Up); AS && AS->getBase() == P) {
        Cur = Up;
        P = Parent(Up);
        continue;
      }
      return pointerUse(IC, Fn, Depth, DevicePointer);
    }
    break;
  }
  if (const auto *IC = dyn_cast<ImplicitCastExpr>(P)) {
    if (IC->getCastKind() == CK_LValueToRValue)
      return make(Effect::Read, P);
    if (IC->getCastKind() == CK_NoOp) // to const: a const reference or a copy
      return objectUseOfConst(IC, Fn, Depth, DevicePointer);
    return make(Effect::Write, P);
  }
  if (isa<UnaryExprOrTypeTraitExpr>(P) || isa<CXXTypeidExpr>(P) || isa<CXXNoexceptExpr>(P))
    return make(Effect::Read, P);
  if (const auto *EC = dyn_cast<ExplicitCastExpr>(P); EC && EC->getCastKind() == CK_ToVoid)
    return make(Effect::Read, P); // `(void)h.opaque[0];`: evaluated, discarded
  if (const auto *CE = dyn_cast<CXXConstructExpr>(P))
    return constructorArgumentUse(CE, Cur, Depth);
  if (const auto *UO = dyn_cast<UnaryOperator>(P)) {
    if (UO->getOpcode() == UO_AddrOf)
      return pointerUse(UO, Fn, Depth, DevicePointer);
    return make(Effect::Write, P);
  }
  if (const auto *BO = dyn_cast<BinaryOperator>(P)) {
    if (BO->getOpcode() == BO_Comma && BO->getLHS() == Cur)
      return make(Effect::Read, P);
    return make(Effect::Write, P);
  }
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(P))
    return methodUse(MC->getMethodDecl(), P, Depth);
  if (const auto *ME = dyn_cast<MemberExpr>(P); ME && isa<CXXMethodDecl>(ME->getMemberDecl()))
    return methodUse(cast<CXXMethodDecl>(ME->getMemberDecl()), P, Depth);
  if (const auto *Call = dyn_cast<CallExpr>(P))
    return argumentUse(Call, Cur, /*Pointer=*/false, Depth, DevicePointer);
  if (const auto *DS = dyn_cast<DeclStmt>(P)) {
    for (const Decl *D : DS->decls())
      if (const auto *V = dyn_cast<VarDecl>(D); V && V->getInit() == Cur) {
        if (!V->getType()->isReferenceType())
          return make(Effect::Read, P); // a copy
        // A reference, const or not, is another name: followed where it
        // is a local (a const_cast of it is a use no row reads).
        if (isLocalVariable(V))
          return make(Effect::Alias, P, "'" + V->getNameAsString() + "'", V);
        return make(Effect::Escape, P, "'" + V->getNameAsString() + "'");
      }
    return make(Effect::Write, P);
  }
  if (isa<ReturnStmt>(P))
    return make(Fn->getReturnType()->isReferenceType() ? Effect::Escape : Effect::Read, P,
                "the return of '" + Fn->getNameAsString() + "'");
  if (isa<LambdaExpr>(P))
    return make(Effect::Read, P); // a capture's initialiser: its uses are in the body
  if (isa<InitListExpr, CXXParenListInitExpr>(P))
    return aggregateElementUse(cast<Expr>(P));
  return make(Effect::Escape, P, "a use the proof does not classify");
}

/// The object is an element of an aggregate's initialiser: a copy into a
/// value member or a const reference reads it; a member that is a
/// non-const reference (`struct Ref { CUtensorMap &m; }; Ref{h}`, and a
/// structured binding of it) is another name for it that the proof does
/// not follow (issue 41: an unfollowed name is a write at any later time).
/// Any such member counts, whichever element the object initialises.
ObjectUse ObjectReach::aggregateElementUse(const Expr *Init) {
  const auto *RD = Init->getType()->getAsRecordDecl();
  if (!RD)
    return make(Effect::Read, Init); // an array of values
  for (const FieldDecl *F : RD->fields()) {
    QualType T = F->getType();
    if (T->isReferenceType() && !T.getNonReferenceType().isConstQualified())
      return make(Effect::Escape, Init, "'" + RD->getNameAsString() + "::" +
                                            F->getNameAsString() + "'");
  }
  return make(Effect::Read, Init);
}

/// `h` converted to `const CUtensorMap` (lvalue): bound to a const
/// reference or copied. A copy changes nothing; a const reference is kept
/// to only by code that honours it (issue 41: a function that casts the
/// `const` away, a method of a class with a `mutable` descriptor, a local
/// reference whose own uses decide).
ObjectUse ObjectReach::objectUseOfConst(const Expr *E, const FunctionDecl *Fn, unsigned Depth,
                                        bool DevicePointer) {
  const Stmt *P = parent(Fn, E);
  if (const auto *IC = dyn_cast_or_null<ImplicitCastExpr>(P);
      IC && IC->getCastKind() == CK_ArrayToPointerDecay)
    return pointerUse(IC, Fn, Depth, DevicePointer);
  if (const auto *UO = dyn_cast_or_null<UnaryOperator>(P); UO && UO->getOpcode() == UO_AddrOf)
    return pointerUse(UO, Fn, Depth, DevicePointer);
  if (const auto *OC = dyn_cast_or_null<CXXOperatorCallExpr>(P);
      OC && OC->getNumArgs() > 0 && OC->getArg(0) == E &&
      isa_and_nonnull<CXXMethodDecl>(OC->getDirectCallee()))
    return methodUse(cast<CXXMethodDecl>(OC->getDirectCallee()), P, Depth);
  if (const auto *Call = dyn_cast_or_null<CallExpr>(P))
    return argumentUse(Call, E, /*Pointer=*/false, Depth, DevicePointer);
  if (const auto *CE = dyn_cast_or_null<CXXConstructExpr>(P))
    return constructorArgumentUse(CE, E, Depth);
  if (const auto *ME = dyn_cast_or_null<MemberExpr>(P);
      ME && ME->getBase() == E && isa<CXXMethodDecl>(ME->getMemberDecl()))
    return methodUse(cast<CXXMethodDecl>(ME->getMemberDecl()), P, Depth);
  if (const auto *DS = dyn_cast_or_null<DeclStmt>(P))
    for (const Decl *D : DS->decls())
      if (const auto *V = dyn_cast<VarDecl>(D);
          V && V->getInit() == E && V->getType()->isReferenceType())
        return isLocalVariable(V) ? make(Effect::Alias, P, "'" + V->getNameAsString() + "'", V)
                                  : make(Effect::Escape, P, "'" + V->getNameAsString() + "'");
  return make(Effect::Read, E);
}

/// The object calls method \p M (at \p At): a read only where the method
/// keeps its `const` (constMethodOnlyReads); any other may write it, or
/// keep a name of it (issue 41).
ObjectUse ObjectReach::methodUse(const CXXMethodDecl *M, const Stmt *At, unsigned Depth) {
  return make(constMethodOnlyReads(M, Depth) ? Effect::Read : Effect::Escape, At,
              M ? "'" + M->getQualifiedNameAsString() + "'" : "");
}

/// The object is argument \p Cur of constructor call \p CE: a trivial
/// constructor copies it; a constructor of the user's that takes it by
/// value or by const reference and keeps its `const` reads it; any other
/// may write it or keep a name of it.
ObjectUse ObjectReach::constructorArgumentUse(const CXXConstructExpr *CE, const Stmt *Cur,
                                              unsigned Depth) {
  const CXXConstructorDecl *Ctor = CE->getConstructor();
  if (Ctor && Ctor->isTrivial())
    return make(Effect::Read, CE);
  for (unsigned I = 0; Ctor && I < CE->getNumArgs() && I < Ctor->getNumParams(); ++I)
    if (CE->getArg(I) == Cur) {
      QualType T = Ctor->getParamDecl(I)->getType();
      if (!T->isReferenceType() && !T->isPointerType())
        return make(Effect::Read, CE); // a copy
      if (T->isReferenceType() && T.getNonReferenceType().isConstQualified() &&
          honoursConst(Ctor, Depth))
        return make(Effect::Read, CE);
    }
  return make(Effect::Escape, CE, "'" + (Ctor ? Ctor->getQualifiedNameAsString() : "") + "'");
}

ObjectUse ObjectReach::pointerUse(const Expr *PV, const FunctionDecl *Fn, unsigned Depth,
                                  bool DevicePointer) {
  auto Parent = [&](const Stmt *S) { return parent(Fn, S); };
  const Stmt *Cur = PV;
  const Stmt *P = Parent(Cur);
  for (;;) {
    P = skipTransparent(P, Cur, Parent);
    if (P && (isa<ImplicitCastExpr>(P) || isa<ExplicitCastExpr>(P))) {
      if (cast<CastExpr>(P)->getCastKind() == CK_PointerToBoolean)
        return make(Effect::Read, P);
      // An integer handle (`uintptr_t u = (uintptr_t)&h`) may be turned
      // back into a pointer anywhere: the proof no longer sees its uses.
      if (cast<CastExpr>(P)->getCastKind() == CK_PointerToIntegral)
        return make(Effect::Escape, P, "an integer handle");
      Cur = P;
      P = Parent(P);
      continue;
    }
    if (const auto *CO = dyn_cast_or_null<AbstractConditionalOperator>(P);
        CO && CO->getCond() != Cur) {
      Cur = P;
      P = Parent(P);
      continue;
    }
    if (const auto *BO = dyn_cast_or_null<BinaryOperator>(P);
        BO && BO->isAdditiveOp() && BO->getType()->isPointerType()) {
      Cur = P; // still points into the object
      P = Parent(P);
      continue;
    }
    break;
  }
  if (!P)
    return make(Effect::Escape, Cur);
  if (const auto *UO = dyn_cast<UnaryOperator>(P)) {
    if (UO->getOpcode() == UO_Deref)
      return objectUse(UO, Fn, Depth, DevicePointer);
    if (UO->getOpcode() == UO_LNot)
      return make(Effect::Read, P);
    return make(Effect::Escape, P);
  }
  if (const auto *ME = dyn_cast<MemberExpr>(P); ME && ME->isArrow() && ME->getBase() == Cur)
    return isa<FieldDecl>(ME->getMemberDecl()) ? objectUse(ME, Fn, Depth, DevicePointer)
                                               : make(Effect::Escape, P);
  if (const auto *AS = dyn_cast<ArraySubscriptExpr>(P); AS && AS->getBase() == Cur)
    return objectUse(AS, Fn, Depth, DevicePointer);
  if (const auto *BO = dyn_cast<BinaryOperator>(P)) {
    if (BO->isComparisonOp() || BO->isLogicalOp() ||
        (BO->getOpcode() == BO_Comma && BO->getLHS() == Cur) || BO->getOpcode() == BO_Sub)
      return make(Effect::Read, P);
    if (BO->getOpcode() == BO_Assign && BO->getRHS() == Cur) {
      const auto *L = dyn_cast<DeclRefExpr>(BO->getLHS()->IgnoreParens());
      const auto *V = L ? dyn_cast<VarDecl>(L->getDecl()) : nullptr;
      if (V && isLocalVariable(V) && !V->getType()->isReferenceType())
        return make(Effect::Alias, P, "'" + V->getNameAsString() + "'", V);
      return stored(make(Effect::Escape, P, "'" + spelled(BO->getLHS()) + "'"));
    }
    return make(Effect::Escape, P);
  }
  if (const auto *Call = dyn_cast<CallExpr>(P))
    return argumentUse(Call, Cur, /*Pointer=*/true, Depth, DevicePointer);
  if (const auto *DS = dyn_cast<DeclStmt>(P)) {
    for (const Decl *D : DS->decls())
      if (const auto *V = dyn_cast<VarDecl>(D); V && V->getInit() == Cur) {
        // A pointer to const is another name as any: followed where it is
        // a local (a cast that drops the const is a use no row reads).
        if (isLocalVariable(V) && !V->getType()->isReferenceType())
          return make(Effect::Alias, P, "'" + V->getNameAsString() + "'", V);
        return stored(make(Effect::Escape, P, "'" + V->getNameAsString() + "'"));
      }
    return make(Effect::Escape, P);
  }
  if (isa<UnaryExprOrTypeTraitExpr>(P))
    return make(Effect::Read, P);
  if (const auto *CE = dyn_cast<CXXConstructExpr>(P))
    return make(Effect::Escape, P,
                CE->getConstructor() ? "'" + CE->getConstructor()->getQualifiedNameAsString() + "'"
                                     : "");
  if (isa<ReturnStmt>(P))
    return make(Effect::Escape, P, "the return of '" + Fn->getNameAsString() + "'");
  // An element of a braced initialiser: a pointer member or element holds
  // it. Where the object has a destructor of its own, that destructor runs
  // code no statement shows (at the end of the full-expression for a
  // temporary) and may write through what it holds: an escape as any.
  if (const auto *IL = dyn_cast<InitListExpr>(P)) {
    const auto *RD = Ctx.getBaseElementType(IL->getType())->getAsCXXRecordDecl();
    if (RD && RD->hasDefinition() && !RD->hasTrivialDestructor())
      return make(Effect::Escape, P);
    return stored(make(Effect::Escape, P));
  }
  return make(Effect::Escape, P);
}

bool ObjectReach::mayKeep(const FunctionDecl *F, unsigned I, unsigned Depth) {
  // Library and CUDA API functions (cuTensorMapEncodeTiled, memcpy, ...)
  // do not keep a pointer they are given.
  // A library member function or constructor (a container's push_back,
  // std::thread), or a parameter that binds a reference to the pointer
  // (std::async's forwarding references), stores what it is given.
  if (ST.inSystemHeader(F->getLocation()))
    return isa<CXXMethodDecl>(F) ||
           (I < F->getNumParams() && F->getParamDecl(I)->getType()->isReferenceType());
  const FunctionDecl *Def = nullptr;
  if (Depth > 8 || !F->hasBody(Def) || !Def || I >= Def->getNumParams())
    return true;
  auto Key = std::make_pair(Def, I);
  auto [Memo, New] = KeepMemo.emplace(Key, true); // recursion: assume it keeps
  if (!New)
    return Memo->second;
  const ParmVarDecl *P = Def->getParamDecl(I);
  bool Keeps = false;
  for (const DeclRefExpr *R : refsOf(Def, P)) {
    if (outermostLambda(R, Def)) {
      Keeps = true;
      break;
    }
    ObjectUse U = useOfName(R, P, Def, Depth, /*DevicePointer=*/false);
    if (U.What == Effect::Escape || U.What == Effect::Alias) {
      Keeps = true;
      break;
    }
  }
  KeepMemo[Key] = Keeps;
  return Keeps;
}

/// A reference \p R to variable \p V that reaches the object: V is the
/// object (or a reference to it), or a pointer to it.
ObjectUse ObjectReach::useOfName(const DeclRefExpr *R, const VarDecl *V, const FunctionDecl *Fn,
                                 unsigned Depth, bool DevicePointer) {
  QualType T = V->getType().getNonReferenceType();
  if (!T->isPointerType() || (V->getType()->isReferenceType() && DevicePointer))
    return objectUse(R, Fn, Depth, DevicePointer);
  // A pointer: its value reaches the object; the variable itself does not.
  auto [Cur, P] = climb(Fn, R, parens);
  if (const auto *IC = dyn_cast_or_null<ImplicitCastExpr>(P);
      IC && IC->getCastKind() == CK_LValueToRValue)
    return pointerUse(IC, Fn, Depth, DevicePointer);
  if (const auto *BO = dyn_cast_or_null<BinaryOperator>(P);
      BO && BO->getOpcode() == BO_Assign && BO->getLHS() == Cur)
    return make(Effect::Read, P); // pointed elsewhere: nothing changes the object
  if (isa_and_nonnull<UnaryExprOrTypeTraitExpr>(P))
    return make(Effect::Read, P);
  // `&p`, `p++`, a non-const reference to `p`: the pointer itself escapes.
  return make(Effect::Escape, P ? P : Cur, "'" + V->getNameAsString() + "'");
}

/// The statements of \p Fn between the copy and the end that may run code
/// able to write through an escaped address: the first, or null.
const Stmt *ObjectReach::userCodeBetween(const Stmt *CopyTop, const Stmt *End,
                                         const FunctionDecl *Fn,
                                         llvm::ArrayRef<const Stmt *> Skip, bool DeviceToo,
                                         const std::function<bool(const Stmt *)> &Outside) {
  const Stmt *First = nullptr;
  for (const Stmt *S : index(Fn).Stmts) {
    if (llvm::is_contained(Skip, S) || !inInterval(CopyTop, End, S, Fn) ||
        !mayRunUserCode(S, DeviceToo) || (Outside && Outside(S)))
      continue;
    if (!First || offsetOf(S->getBeginLoc()) < offsetOf(First->getBeginLoc()))
      First = S;
  }
  return First;
}

bool ObjectReach::inInterval(const Stmt *From, const Stmt *To, const Stmt *X,
                             const FunctionDecl *Fn) {
  // Code in the launch's own arguments runs before the kernel reads them.
  return between(From, To, X, Fn) || (X != To && isAncestor(To, X, Fn));
}

/// May code that runs before \p End (in this call, or again before the next
/// one, in a loop) have made it through \p At?
bool ObjectReach::beforeEnd(const Stmt *At, const Stmt *End, const FunctionDecl *Fn) {
  if (flow(Fn))
    return reaches(At, End, Fn);
  if (offsetOf(At->getBeginLoc()) < offsetOf(End->getBeginLoc()))
    return true;
  for (const Stmt *L = parent(Fn, End); L; L = parent(Fn, L))
    if (isLoop(L) && isAncestor(L, At, Fn))
      return true;
  return false;
}

std::optional<Blocker> ObjectReach::changeBetween(const ObjectQuery &Q) {
  const FunctionDecl *Fn = Q.Fn;
  std::string HName = "'" + Q.Object->getNameAsString() + "'";
  auto Reasoned = [&](ReasonID Why, std::vector<std::string> Args, const Stmt *At,
                      std::vector<Note> Extra) {
    llvm::append_range(Extra, Q.Notes);
    return blockerFor(Why, Args, ST.point(At->getBeginLoc()), std::move(Extra));
  };
  struct Name {
    const VarDecl *Var;
    std::string Via; // how it reaches the object, for messages; empty: the object
    const Stmt *Bound;
  };
  std::vector<Name> Names{{Q.Object, "", nullptr}};
  // What escaped, and where: code that runs later may write through it.
  std::vector<std::pair<const Stmt *, std::string>> Escapes;
  if (Q.Object->getType()->isReferenceType())
    Escapes.push_back({Fn->getBody(), HName + " is a reference: the object it names may be "
                                              "reached through other names"});
  // Lambdas that change the object when they run.
  std::vector<std::pair<const LambdaExpr *, const DeclRefExpr *>> Writers;
  for (size_t N = 0; N < Names.size(); ++N) {
    const Name Cur = Names[N];
    auto Refs = index(Fn).Refs.find(Cur.Var);
    if (Refs == index(Fn).Refs.end())
      continue;
    for (const DeclRefExpr *R : Refs->second) {
      if (inUnevaluatedOperand(R, Fn))
        continue;
      if (N == 0 && Q.Disjoint && Q.Disjoint(R))
        continue;
      const LambdaExpr *LE = outermostLambda(R, Fn);
      if (LE && N == 0 && !Cur.Var->getType()->isPointerType())
        if (const LambdaCapture *C = captureOf(LE, Cur.Var);
            C && C->getCaptureKind() == LCK_ByCopy && !Cur.Var->getType()->isReferenceType())
          continue; // the lambda's own copy
      ObjectUse U = useOfName(R, Cur.Var, Fn, 0, /*DevicePointer=*/false);
      if (U.What == Effect::Read)
        continue;
      if (U.What == Effect::Alias && llvm::none_of(Names, [&](const Name &X) {
            return X.Var == U.Alias;
          })) {
        std::string Via = Cur.Via.empty() ? U.Via : U.Via + " (through " + Cur.Via + ")";
        Names.push_back({U.Alias, Via, U.At});
      }
      if (LE) {
        Writers.push_back({LE, R});
        continue;
      }
      if (U.What == Effect::Alias)
        continue;
      if (U.What == Effect::Escape && beforeEnd(U.At, Q.End, Fn))
        Escapes.push_back({U.At, "the address of " + HName + " escapes here" +
                                     (U.Via.empty() ? "" : " to " + U.Via)});
      if (U.What == Effect::Escape && U.StoresOnly)
        continue; // stored, not written: writes through it are asked below
      if (!inInterval(Q.CopyTop, Q.End, R, Fn))
        continue;
      if (Cur.Via.empty())
        return Reasoned(ReasonID::HostModifiedBetween, {Q.Object->getNameAsString()}, R, {});
      return Reasoned(ReasonID::HostChangedThroughAlias, {Q.Object->getNameAsString(), Cur.Via},
                      R, {{"the alias is bound here", ST.point(Cur.Bound->getBeginLoc())}});
    }
  }
  for (auto &[LE, R] : Writers)
    if (std::optional<Blocker> B = lambdaRunsBetween(Q, LE, R, Escapes))
      return B;
  if (Escapes.empty())
    return std::nullopt;
  if (const Stmt *Run = userCodeBetween(Q.CopyTop, Q.End, Fn, Q.Skip, false, Q.RunsOutside)) {
    std::string What = isa<CallExpr>(Run) ? calleeName(cast<CallExpr>(Run)) : "";
    if (What.empty())
      What = spelled(cast<Expr>(Run));
    return Reasoned(ReasonID::HostEscapedCallBetween, {Q.Object->getNameAsString(), What}, Run,
                    {{Escapes.front().second, ST.point(Escapes.front().first->getBeginLoc())}});
  }
  // Whoever holds the escaped address (a container, a struct, a global)
  // may write through it with no call of the user's: a write through any
  // pointer or reference may be one.
  std::vector<Note> EscapeNote{
      {Escapes.front().second, ST.point(Escapes.front().first->getBeginLoc())}};
  const Stmt *W = writeThroughBetween(Q.CopyTop, Q.End, Fn, Q.Skip, false);
  if (!W)
    W = libraryWriteBetween(Q.CopyTop, Q.End, Fn, Q.Skip);

  if (W)
    return Reasoned(ReasonID::HostEscapedWriteBetween,
                    {Q.Object->getNameAsString(), spelled(cast<Expr>(W))}, W, EscapeNote);
  // A stream callback or a thread started before the end runs whenever it
  // likes, with no statement in between.
  if (const Stmt *C = concurrentCodeBefore(Q.End, Fn, Q.RunsOutside))
    return Reasoned(ReasonID::HostConcurrentCode,
                    {Q.Object->getNameAsString(), "'" + spelled(cast<Expr>(C)) + "'"}, C,
                    EscapeNote);
  return std::nullopt;
}

const LambdaCapture *ObjectReach::captureOf(const LambdaExpr *LE, const VarDecl *V) {
  for (const LambdaCapture &C : LE->captures())
    if (C.capturesVariable() && C.getCapturedVar() == V)
      return &C;
  return nullptr;
}

/// Lambda \p LE changes the object (at \p R) when it runs: where does it
/// run? At each call of the local that holds it, where it is invoked, or
/// in code it is handed to (which may also keep it: an escape).
std::optional<Blocker>
ObjectReach::lambdaRunsBetween(const ObjectQuery &Q, const LambdaExpr *LE, const DeclRefExpr *R,
                               std::vector<std::pair<const Stmt *, std::string>> &Escapes) {
  const FunctionDecl *Fn = Q.Fn;
  std::vector<Note> Notes{{"the lambda reaches '" + Q.Object->getNameAsString() + "' here",
                           ST.point(R->getBeginLoc())}};
  llvm::append_range(Notes, Q.Notes);
  auto Runs = [&](std::string Lambda, const Stmt *At) {
    return blockerFor(ReasonID::HostLambdaRunsBetween, {Lambda, Q.Object->getNameAsString()},
                      ST.point(At->getBeginLoc()), Notes);
  };
  auto Parent = [&](const Stmt *S) { return parent(Fn, S); };
  const Stmt *Cur = LE;
  const Stmt *P = Parent(Cur);
  for (;;) {
    P = skipTransparent(P, Cur, Parent);
    if (P && (isa<ImplicitCastExpr>(P) || isa<CXXConstructExpr>(P) ||
              isa<CXXFunctionalCastExpr>(P))) {
      Cur = P;
      P = Parent(P);
      continue;
    }
    break;
  }
  const VarDecl *Holder = nullptr;
  if (const auto *DS = dyn_cast_or_null<DeclStmt>(P))
    for (const Decl *D : DS->decls())
      if (const auto *V = dyn_cast<VarDecl>(D); V && V->getInit() == Cur && isLocalVariable(V))
        Holder = V;
  if (!Holder) {
    const Stmt *At = P ? P : LE;
    if (inInterval(Q.CopyTop, Q.End, At, Fn))
      return Runs("at line " + std::to_string(ST.point(LE->getBeginLoc()).Line), At);
    if (!isa_and_nonnull<CXXOperatorCallExpr>(P) && beforeEnd(At, Q.End, Fn))
      Escapes.push_back({At, "a lambda that reaches it is handed over here"});
    return std::nullopt;
  }
  std::string Name = "'" + Holder->getNameAsString() + "'";
  for (const DeclRefExpr *HR : refsOf(Fn, Holder)) {
    if (inInterval(Q.CopyTop, Q.End, HR, Fn))
      return Runs(Name, HR);
    auto [X, XP] = analysis::climb(HR, Parent, parensAndImplicitCasts);
    const auto *OC = dyn_cast_or_null<CXXOperatorCallExpr>(XP);
    bool Called = OC && OC->getOperator() == OO_Call && OC->getArg(0) == X;
    if (!Called && beforeEnd(HR, Q.End, Fn))
      Escapes.push_back({HR, "lambda " + Name + ", which reaches it, is handed over here"});
  }
  return std::nullopt;
}

std::optional<std::string> ObjectReach::deviceCopyLeak(const Expr *R, const FunctionDecl *Fn,
                                                       std::vector<const VarDecl *> &Aliases) {
  if (const LambdaExpr *LE = outermostLambda(R, Fn))
    return "the lambda at line " + std::to_string(ST.point(LE->getBeginLoc()).Line) +
           ", which captures it";
  auto [Cur, P] = climb(Fn, R, parens);
  if (const auto *UO = dyn_cast_or_null<UnaryOperator>(P); UO && UO->getOpcode() == UO_AddrOf)
    return "a pointer to it, taken here";
  const auto *IC = dyn_cast_or_null<ImplicitCastExpr>(P);
  if (!IC || IC->getCastKind() != CK_LValueToRValue) {
    if (const auto *BO = dyn_cast_or_null<BinaryOperator>(P);
        BO && BO->isAssignmentOp() && BO->getLHS() == Cur) {
      // Pointed at memory it did not allocate (another allocation's
      // field, another pointer's copy): other names reach that memory.
      if (BO->getOpcode() == BO_Assign &&
          BO->getRHS()->IgnoreParenImpCasts()->isNullPointerConstant(
              Ctx, Expr::NPC_ValueDependentIsNotNull) == Expr::NPCK_NotNull)
        return "'" + spelled(BO->getRHS()) + "', the memory it is pointed at here";
      return std::nullopt; // pointed elsewhere
    }
    if (isa_and_nonnull<UnaryExprOrTypeTraitExpr>(P))
      return std::nullopt;
    return "a reference to it, bound here";
  }
  ObjectUse U = pointerUse(IC, Fn, 0, /*DevicePointer=*/true);
  // A kernel given the pointer (not as a descriptor) may store it on the
  // device, where any later kernel may write through it.
  if (const auto *Launch = dyn_cast_or_null<CallExpr>(U.At);
      U.What == Effect::Write && Launch &&
      (isa<CUDAKernelCallExpr>(Launch) ||
       (Launch->getDirectCallee() && isKernel(Launch->getDirectCallee()))))
    return "kernel " + U.Via + ", which may keep it on the device";
  if (U.What == Effect::Alias && isFollowedDeviceAlias(U.Alias, Fn)) {
    Aliases.push_back(U.Alias);
    return std::nullopt;
  }
  if (U.What == Effect::Alias || U.What == Effect::Escape)
    return U.Via.empty() ? std::string("a copy of its value, kept here") : U.Via;
  return std::nullopt;
}

bool ObjectReach::isFollowedDeviceAlias(const VarDecl *V, const FunctionDecl *Fn) {
  if (!isLocalVariable(V) || V->getType()->isReferenceType() ||
      !isDescriptorPointer(V->getType()))
    return false;
  for (const DeclRefExpr *R : refsOf(Fn, V)) {
    const auto *IC = dyn_cast_or_null<ImplicitCastExpr>(climb(Fn, R, parens).Parent);
    if (!IC || IC->getCastKind() != CK_LValueToRValue || outermostLambda(R, Fn))
      return false; // assigned, its address taken, or captured
  }
  return true;
}

bool ObjectReach::accountsFor(const DeclRefExpr *R, const VarDecl *V, const FunctionDecl *Fn) {
  return useOfName(R, V, Fn, 0, /*DevicePointer=*/false).What != Effect::Escape;
}


} // namespace tma::analysis
