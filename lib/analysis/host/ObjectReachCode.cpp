// The object proof's question about code (ObjectReach.h): which code may
// write memory it is not handed by name — a call into the user's code, a
// library call given a pointer that may reach a descriptor, a constructor
// that runs the user's code. Split from ObjectReach.cpp, which asks it.
#include "ObjectReach.h"

#include "../core/CudaApi.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;

namespace tma::analysis {

/// A callable object: a closure, or anything with an operator().
bool isCallableType(QualType T) {
  T = T.getNonReferenceType();
  if (T->isFunctionPointerType() || T->isMemberFunctionPointerType() ||
      T->isBlockPointerType())
    return true;
  const auto *RD = T->getAsCXXRecordDecl();
  if (!RD || !RD->hasDefinition())
    return false;
  if (RD->isLambda())
    return true;
  for (const CXXMethodDecl *M : RD->methods())
    if (M->getOverloadedOperator() == OO_Call)
      return true;
  return false;
}

static bool givenCallable(const CallExpr *Call, const CudaApi *Api);

bool ObjectReach::mayRunUserCode(const Stmt *S, bool DeviceToo) {
  if (const auto *CE = dyn_cast<CXXConstructExpr>(S)) {
    const CXXConstructorDecl *C = CE->getConstructor();
    if (!C || C->isTrivial() || ST.inSystemHeader(C->getLocation()))
      return false;
    // `LaunchShape shape;`: a constructor the compiler made runs only the
    // constructors of the bases and members.
    if (!C->isUserProvided())
      return madeInitRunsUserCode(C->getParent(), 0);
    return true;
  }
  const auto *Call = dyn_cast<CallExpr>(S);
  return Call && callMayWrite(Call, DeviceToo, /*GlobalsOnly=*/true, 0);
}

/// May the constructor the compiler makes for \p RD run user code: a
/// member's initialiser, or a base's or member's constructor of the user's?
bool ObjectReach::madeInitRunsUserCode(const CXXRecordDecl *RD, unsigned Depth) {
  if (!RD || Depth > 4)
    return RD != nullptr;
  if (ST.inSystemHeader(RD->getLocation()) || !RD->hasDefinition())
    return false;
  auto RecordRuns = [&](QualType T) {
    const CXXRecordDecl *R = Ctx.getBaseElementType(T)->getAsCXXRecordDecl();
    if (!R || ST.inSystemHeader(R->getLocation()) || !R->hasDefinition())
      return false;
    for (const CXXConstructorDecl *C : R->ctors())
      if (C->isDefaultConstructor() && C->isUserProvided())
        return true;
    return madeInitRunsUserCode(R, Depth + 1);
  };
  for (const CXXBaseSpecifier &B : RD->bases())
    if (RecordRuns(B.getType()))
      return true;
  for (const FieldDecl *F : RD->fields())
    if (F->hasInClassInitializer() || RecordRuns(F->getType()))
      return true;
  return false;
}

/// May \p Call write storage it was not given by name, or (\p DeviceToo)
/// launch a kernel? A user function is followed into its body
/// (functionMayWrite). A library function runs the callbacks it is given
/// and writes through the pointers it is given; with \p GlobalsOnly only a
/// pointer read from a global (or through `->`) may be an escaped address.
bool ObjectReach::callMayWrite(const CallExpr *Call, bool DeviceToo, bool GlobalsOnly,
                               unsigned Depth) {
  if (isa<CUDAKernelCallExpr>(Call))
    return DeviceToo; // device code cannot reach host storage
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee)
    return true;
  // A trivial assignment (`config.blockDim = dim3(2)`) writes only the
  // object it is given by name.
  if (const auto *MD = dyn_cast<CXXMethodDecl>(Callee); MD && MD->isTrivial())
    return false;
  // For a device copy: a launch runs a kernel that may write it, and a
  // copy or memset writes device memory through a pointer that may reach it.
  const CudaApi *Api = cudaApiOf(Call);
  if (DeviceToo && Api &&
      llvm::is_contained({ApiRole::LaunchArgs, ApiRole::LaunchArray, ApiRole::Copy,
                          ApiRole::DeviceWrite},
                         Api->Role))
    return true;
  if (!ST.inSystemHeader(Callee->getLocation()))
    return functionMayWrite(Callee, Depth + 1, DeviceToo);
  if (givenCallable(Call, Api))
    return true;
  for (const Expr *A : Call->arguments())
    if (mayWriteDescriptorThrough(A) && (!GlobalsOnly || readsNonLocal(A)))
      return true;
  return false;
}

/// Is library call \p Call (its API row \p Api, if any) given a callable
/// it may run? The CUDA API takes kernels as function pointers (occupancy
/// queries, attributes, launches); only its host-callback calls run host
/// code.
static bool givenCallable(const CallExpr *Call, const CudaApi *Api) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  bool TakesKernels = Callee && Callee->getName().starts_with("cu") &&
                      !(Api && Api->Role == ApiRole::HostCallback);
  for (const Expr *A : Call->arguments()) {
    QualType AT = A->IgnoreParenImpCasts()->getType();
    bool KernelPointer = TakesKernels && (AT->isFunctionPointerType() || AT->isFunctionType());
    if (isCallableType(AT) && !KernelPointer)
      return true;
  }
  return false;
}

/// Does explicit cast \p C take away a `const` its operand had, so that
/// code given a pointer or reference to const may still write through it:
/// a const_cast, a C-style, functional or reinterpret cast from a pointer
/// or reference to const to one to non-const (at any level), or a pointer
/// made from an integer (which may be any address)?
static bool dropsConst(const ExplicitCastExpr *C) {
  if (isa<CXXConstCastExpr>(C) || C->getCastKind() == CK_IntegralToPointer)
    return true;
  QualType From = C->getSubExpr()->getType(), To = C->getTypeAsWritten();
  if (To->isReferenceType())
    return From.isConstQualified() && !To.getNonReferenceType().isConstQualified();
  while (From->isPointerType() && To->isPointerType()) {
    From = From->getPointeeType();
    To = To->getPointeeType();
    if (From.isConstQualified() && !To.isConstQualified())
      return true;
  }
  return false;
}

/// `const` is a promise only where the code keeps it (issue 41: a use no
/// row classifies is a write). A library function keeps it; a function of
/// the user's keeps it when its definition is visible, not virtual, casts
/// no `const` away, and calls (directly, to a depth) only functions that
/// keep it too. An indirect call may run anything.
bool ObjectReach::honoursConst(const FunctionDecl *F, unsigned Depth) {
  if (!F)
    return false;
  if (ST.inSystemHeader(F->getLocation()))
    return true;
  if (const auto *M = dyn_cast<CXXMethodDecl>(F); M && M->isVirtual())
    return false; // an override may not
  const FunctionDecl *Def = nullptr;
  if (Depth > 8 || !F->hasBody(Def) || !Def)
    return false;
  auto [Memo, New] = ConstMemo.emplace(Def, false); // recursion: assume it does not
  if (!New)
    return Memo->second;
  llvm::SmallVector<const Stmt *, 64> Work{Def->getBody()};
  if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(Def))
    for (const CXXCtorInitializer *I : Ctor->inits())
      Work.push_back(I->getInit());
  bool Honours = true;
  while (Honours && !Work.empty()) {
    const Stmt *S = Work.pop_back_val();
    if (!S)
      continue;
    if (const auto *C = dyn_cast<ExplicitCastExpr>(S); C && dropsConst(C))
      Honours = false;
    else if (const auto *Call = dyn_cast<CallExpr>(S))
      Honours = callHonoursConst(Call, Depth + 1);
    else if (const auto *CE = dyn_cast<CXXConstructExpr>(S);
             CE && CE->getConstructor() && !CE->getConstructor()->isTrivial())
      Honours = honoursConst(CE->getConstructor(), Depth + 1);
    for (const Stmt *Child : S->children())
      Work.push_back(Child);
  }
  ConstMemo[Def] = Honours;
  return Honours;
}

/// Does call \p Call keep the `const` of what it is given? Its callee
/// must (honoursConst), and a library function given a callable, or one
/// that is the call of a callable object (`std::function`), runs the
/// user's code with what it is given. A kernel cannot reach host memory.
bool ObjectReach::callHonoursConst(const CallExpr *Call, unsigned Depth) {
  if (isa<CUDAKernelCallExpr>(Call))
    return true;
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!honoursConst(Callee, Depth))
    return false;
  if (!ST.inSystemHeader(Callee->getLocation()))
    return true; // its body, callables and all, was walked
  if (givenCallable(Call, cudaApiOf(Call)))
    return false;
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call))
    return !isCallableType(MC->getImplicitObjectArgument()->getType());
  return true;
}

/// Does a member of \p RD declared `mutable` hold a descriptor (itself, or
/// in a member or base it holds by value), which a `const` method may change?
bool ObjectReach::mutableHoldsDescriptor(const CXXRecordDecl *RD, unsigned Depth) {
  if (!RD || !RD->hasDefinition() || Depth > 8)
    return false;
  for (const FieldDecl *F : RD->fields()) {
    QualType T = F->getType();
    if (T->isReferenceType() || T->isPointerType())
      continue; // a write through it needs no `mutable`
    if (F->isMutable() && (containsTensorMap(T) || T->isDependentType()))
      return true;
    if (mutableHoldsDescriptor(Ctx.getBaseElementType(T)->getAsCXXRecordDecl(), Depth + 1))
      return true;
  }
  for (const CXXBaseSpecifier &B : RD->bases())
    if (mutableHoldsDescriptor(B.getType()->getAsCXXRecordDecl(), Depth + 1))
      return true;
  return false;
}

/// Does calling \p M on an object leave what the object holds as it was:
/// a `const` method that keeps the promise, of a class whose `mutable`
/// members hold no descriptor?
bool ObjectReach::constMethodOnlyReads(const CXXMethodDecl *M, unsigned Depth) {
  return M && M->isConst() && honoursConst(M, Depth) &&
         !mutableHoldsDescriptor(M->getParent(), 0);
}

/// Does \p E read a variable that is not local, or go through `->`?
bool ObjectReach::readsNonLocal(const Expr *E) {
  llvm::SmallVector<const Stmt *, 8> Work{E};
  while (!Work.empty()) {
    const Stmt *X = Work.pop_back_val();
    if (!X)
      continue;
    if (const auto *DR = dyn_cast<DeclRefExpr>(X))
      if (const auto *V = dyn_cast<VarDecl>(DR->getDecl()); V && !V->hasLocalStorage())
        return true;
    if (isa<MemberExpr>(X) && cast<MemberExpr>(X)->isArrow())
      return true;
    for (const Stmt *C : X->children())
      Work.push_back(C);
  }
  return false;
}

/// A non-const pointer argument that may point to a descriptor: `void *`,
/// bytes, the descriptor type (not `FILE *`, `int *`, ...).
bool ObjectReach::mayWriteDescriptorThrough(const Expr *A) {
  QualType T = A->IgnoreParenImpCasts()->getType();
  if (!T->isPointerType() || T->getPointeeType().isConstQualified())
    return false;
  QualType P = T->getPointeeType();
  return P->isVoidType() || P->isCharType() || P->isPointerType() ||
         isTensorMapRecord(P) || P->isDependentType();
}

/// May \p F (a host function of the user's) write anything but its own
/// locals, or run code that may (with \p DeviceToo: or launch a kernel)?
/// Its body must be visible; writes through pointers, references, members
/// and globals count, and so do the calls it makes, followed to a depth.
bool ObjectReach::functionMayWrite(const FunctionDecl *F, unsigned Depth, bool DeviceToo) {
  const FunctionDecl *Def = nullptr;
  if (Depth > 8 || !F->hasBody(Def) || !Def)
    return true;
  auto Key = std::make_pair(Def, DeviceToo);
  auto [Memo, New] = WriteMemo.emplace(Key, true); // recursion: assume it writes
  if (!New)
    return Memo->second;
  auto OwnLocal = [&](const Expr *LHS) {
    const auto *R = dyn_cast<DeclRefExpr>(LHS->IgnoreParenImpCasts());
    const auto *V = R ? dyn_cast<VarDecl>(R->getDecl()) : nullptr;
    return V && V->hasLocalStorage() && !V->getType()->isReferenceType() &&
           V->getDeclContext() == Def;
  };
  bool Writes = false;
  for (const Stmt *S : index(Def).Stmts) {
    if (Writes)
      break;
    if (const auto *BO = dyn_cast<BinaryOperator>(S); BO && BO->isAssignmentOp())
      Writes = !OwnLocal(BO->getLHS());
    else if (const auto *UO = dyn_cast<UnaryOperator>(S); UO && UO->isIncrementDecrementOp())
      Writes = !OwnLocal(UO->getSubExpr());
    else if (const auto *CE = dyn_cast<CXXConstructExpr>(S))
      Writes = CE->getConstructor() && !CE->getConstructor()->isTrivial() &&
               !ST.inSystemHeader(CE->getConstructor()->getLocation());
    else if (const auto *Call = dyn_cast<CallExpr>(S))
      Writes = callMayWrite(Call, DeviceToo, /*GlobalsOnly=*/false, Depth);
  }
  WriteMemo[Key] = Writes;
  return Writes;
}

/// The lvalue \p S writes: an assignment's left side, `++x`, `x += 1`,
/// or the object of an assignment operator; null for anything else.
static const Expr *writtenLValue(const Stmt *S) {
  if (const auto *BO = dyn_cast<BinaryOperator>(S); BO && BO->isAssignmentOp())
    return BO->getLHS();
  if (const auto *UO = dyn_cast<UnaryOperator>(S); UO && UO->isIncrementDecrementOp())
    return UO->getSubExpr();
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(S);
      OC && OC->getNumArgs() > 0 &&
      (OC->isAssignmentOp() || OC->getOperator() == OO_PlusPlus ||
       OC->getOperator() == OO_MinusMinus))
    return OC->getArg(0);
  return nullptr;
}

/// \p LV past the fields (`.f`) and array elements (`x[2]` of an array
/// `x`) that lie inside the object it starts from.
static const Expr *pastFieldsAndElements(const Expr *LV) {
  const Expr *E = LV->IgnoreParenImpCasts();
  for (;;) {
    if (const auto *ME = dyn_cast<MemberExpr>(E); ME && !ME->isArrow()) {
      E = ME->getBase()->IgnoreParenImpCasts();
      continue;
    }
    if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E);
        AS && AS->getBase()->IgnoreParenImpCasts()->getType()->isArrayType()) {
      E = AS->getBase()->IgnoreParenImpCasts();
      continue;
    }
    return E;
  }
}

/// The variable \p LV names directly (`x`, `x.f`, `x[2]` of an array `x`),
/// or null when it goes through a pointer, a reference or a call.
static const VarDecl *directRoot(const Expr *LV) {
  const auto *R = dyn_cast<DeclRefExpr>(pastFieldsAndElements(LV));
  const auto *V = R ? dyn_cast<VarDecl>(R->getDecl()) : nullptr;
  if (!V || V->getType()->isReferenceType())
    return nullptr;
  return V;
}

/// The pointer variable \p LV is reached through with one dereference
/// (`*p`, `p->f.g`, `p[i]`), or null.
static const VarDecl *pointerRoot(const Expr *LV) {
  const Expr *E = pastFieldsAndElements(LV);
  const Expr *Base = nullptr;
  if (const auto *UO = dyn_cast<UnaryOperator>(E); UO && UO->getOpcode() == UO_Deref)
    Base = UO->getSubExpr();
  else if (const auto *ME = dyn_cast<MemberExpr>(E); ME && ME->isArrow())
    Base = ME->getBase();
  else if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E))
    Base = AS->getBase();
  const auto *R = Base ? dyn_cast<DeclRefExpr>(Base->IgnoreParenImpCasts()) : nullptr;
  const auto *V = R ? dyn_cast<VarDecl>(R->getDecl()) : nullptr;
  return V && V->getType()->isPointerType() ? V : nullptr;
}

bool ObjectReach::pointsOnlyToNewMemory(const VarDecl *P, const FunctionDecl *Fn) {
  if (!P->hasLocalStorage() || P->isStaticLocal() || isa<ParmVarDecl>(P) ||
      P->getType()->isReferenceType())
    return false;
  auto Fresh = [&](const Expr *E) {
    E = E->IgnoreParenCasts();
    return isa<CXXNewExpr>(E) || E->isNullPointerConstant(Ctx, Expr::NPC_ValueDependentIsNotNull);
  };
  if (P->getInit() && !Fresh(P->getInit()))
    return false;
  for (const DeclRefExpr *R : refsOf(Fn, P)) {
    Climbed C = climb(Fn, R, parens);
    if (const auto *IC = dyn_cast_or_null<ImplicitCastExpr>(C.Parent);
        IC && IC->getCastKind() == CK_LValueToRValue)
      continue; // its value read: where it points does not change
    if (isa_and_nonnull<UnaryExprOrTypeTraitExpr>(C.Parent))
      continue;
    if (const auto *BO = dyn_cast_or_null<BinaryOperator>(C.Parent);
        BO && BO->getOpcode() == BO_Assign && BO->getLHS() == C.Child && Fresh(BO->getRHS()))
      continue;
    if (const auto *UO = dyn_cast_or_null<UnaryOperator>(C.Parent);
        UO && UO->getOpcode() == UO_AddrOf) {
      // `cudaMallocHost(&p, n)`: the API stores a new allocation's address.
      Climbed CA = climb(Fn, UO, parensAndCasts);
      const auto *Call = dyn_cast_or_null<CallExpr>(CA.Parent);
      const CudaApi *Api = cudaApiOf(Call);
      if (Api && (Api->Role == ApiRole::HostAlloc || Api->Role == ApiRole::Alloc) &&
          isArgAt(Call, Api->Dest, CA.Child))
        continue;
    }
    return false;
  }
  return true;
}

const Stmt *ObjectReach::writeThroughBetween(const Stmt *CopyTop, const Stmt *End,
                                             const FunctionDecl *Fn,
                                             llvm::ArrayRef<const Stmt *> Skip,
                                             bool ByNameToo) {
  for (const Stmt *S : index(Fn).Stmts) {
    const Expr *LV = writtenLValue(S);
    if (!LV || llvm::is_contained(Skip, S) || inUnevaluatedOperand(S, Fn) ||
        !inInterval(CopyTop, End, S, Fn))
      continue;
    const VarDecl *Root = directRoot(LV);
    // Through a pointer that only ever holds new allocations: memory no
    // named object lies in (what '*staged' is, by name, is asked apart).
    if (!Root && !ByNameToo)
      if (const VarDecl *P = pointerRoot(LV); P && pointsOnlyToNewMemory(P, Fn))
        continue;
    if (!Root)
      return S;
    // By name, only an object that holds a descriptor can be what a
    // descriptor pointer points to (`src = &h; ... h = next;`).
    if (ByNameToo && containsTensorMap(Root->getType()))
      return S;
  }
  return nullptr;
}

/// A pointer argument whose object the proof cannot name: not `&x` or an
/// array `x` of a variable, nor a local pointer variable (whose binding the
/// proof follows), but a call's result, an element, `p->f`, a global.
static bool unnamedPointer(const Expr *A) {
  const Expr *E = A->IgnoreParenImpCasts();
  while (const auto *C = dyn_cast<ExplicitCastExpr>(E))
    E = C->getSubExpr()->IgnoreParenImpCasts();
  if (const auto *UO = dyn_cast<UnaryOperator>(E); UO && UO->getOpcode() == UO_AddrOf) {
    E = UO->getSubExpr()->IgnoreParenImpCasts();
    if (E->getType()->isFunctionType())
      return false; // a kernel handed to a query
    return !directRoot(E);
  }
  // A function (a kernel given as `(void *)k`) is no data.
  if (E->getType()->isFunctionType() || E->getType()->isFunctionPointerType())
    return false;
  if (const auto *R = dyn_cast<DeclRefExpr>(E); R && isa<FunctionDecl>(R->getDecl()))
    return false;
  if (E->getType()->isArrayType() || isa<DeclRefExpr>(E)) {
    const auto *R = dyn_cast<DeclRefExpr>(E);
    const auto *V = R ? dyn_cast<VarDecl>(R->getDecl()) : nullptr;
    return !V || !V->hasLocalStorage() || V->getType()->isReferenceType();
  }
  return true;
}

const Stmt *ObjectReach::libraryWriteBetween(const Stmt *CopyTop, const Stmt *End,
                                             const FunctionDecl *Fn,
                                             llvm::ArrayRef<const Stmt *> Skip) {
  for (const Stmt *S : index(Fn).Stmts) {
    const auto *Call = dyn_cast<CallExpr>(S);
    const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
    if (!Callee || !ST.inSystemHeader(Callee->getLocation()) || llvm::is_contained(Skip, S) ||
        !inInterval(CopyTop, End, S, Fn))
      continue;
    // A launch's configuration (`<<<g, b, 0, stream>>>`) passes its stream.
    if (isa_and_nonnull<CUDAKernelCallExpr>(parent(Fn, Call)))
      continue;
    for (const Expr *A : Call->arguments())
      if (mayWriteDescriptorThrough(A) && unnamedPointer(A) &&
          A->IgnoreParenImpCasts()->isNullPointerConstant(
              Ctx, Expr::NPC_ValueDependentIsNotNull) == Expr::NPCK_NotNull)
        return S;
    if (changesHolder(Call))
      return S;
  }
  return nullptr;
}

/// A library function that gives a name of what an object holds and
/// changes nothing itself (`std::get`, `*o`, `a[i]`, `w.get()`): a write
/// through what it returns is one writeThroughBetween sees.
static bool isLibraryAccessor(const FunctionDecl *F) {
  if (isa<CXXConversionDecl>(F))
    return true;
  if (F->isOverloadedOperator())
    return llvm::is_contained({OO_Star, OO_Arrow, OO_Subscript, OO_EqualEqual, OO_ExclaimEqual,
                               OO_Less, OO_LessEqual, OO_Greater, OO_GreaterEqual},
                              F->getOverloadedOperator());
  if (!F->getDeclName().isIdentifier())
    return false;
  return llvm::is_contained({"get", "value", "front", "back", "data", "begin", "end", "at",
                             "size", "empty", "has_value"},
                            F->getName());
}

/// May an object of type \p T hold a name through which a descriptor can
/// be written (a non-const reference to one, a pointer to one, to `void`
/// or to bytes): a library holder whose template arguments say so
/// (`std::tuple<CUtensorMap &, int>`, `std::pair<CUtensorMap *, int>`), or
/// a class with such a member?
bool ObjectReach::mayHoldDescriptorName(QualType T, unsigned Depth) {
  if (T.isNull() || Depth > 4)
    return false;
  if (T->isReferenceType()) {
    QualType P = T.getNonReferenceType();
    if (!P.isConstQualified() && (containsTensorMap(P) || P->isDependentType()))
      return true;
    T = P;
  }
  if (T->isPointerType()) {
    QualType P = T->getPointeeType();
    return !P.isConstQualified() && (P->isVoidType() || P->isCharType() ||
                                     containsTensorMap(P) || P->isDependentType());
  }
  const auto *RD = T->getAsCXXRecordDecl();
  if (!RD || !RD->hasDefinition())
    return false;
  if (const auto *TS = dyn_cast<ClassTemplateSpecializationDecl>(RD))
    for (const TemplateArgument &A : TS->getTemplateArgs().asArray()) {
      if (A.getKind() == TemplateArgument::Type && mayHoldDescriptorName(A.getAsType(), Depth + 1))
        return true;
      if (A.getKind() == TemplateArgument::Pack)
        for (const TemplateArgument &E : A.pack_elements())
          if (E.getKind() == TemplateArgument::Type &&
              mayHoldDescriptorName(E.getAsType(), Depth + 1))
            return true;
    }
  for (const FieldDecl *F : RD->fields())
    if (mayHoldDescriptorName(F->getType(), Depth + 1))
      return true;
  return false;
}

/// Does library call \p Call change an object that may hold a name of a
/// descriptor (issue 41: `t = std::make_tuple(o, 1)` with `t` a
/// `std::tuple<CUtensorMap &, int>` writes the descriptor `t` was made
/// from): a non-const method other than an accessor called on it, or the
/// object given by non-const reference (`std::swap(t, u)`)?
bool ObjectReach::changesHolder(const CallExpr *Call) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee || isLibraryAccessor(Callee))
    return false;
  if (const auto *M = dyn_cast<CXXMethodDecl>(Callee); M && !M->isStatic() && !M->isConst()) {
    const Expr *Object = nullptr;
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call))
      Object = MC->getImplicitObjectArgument();
    else if (isa<CXXOperatorCallExpr>(Call) && Call->getNumArgs() > 0)
      Object = Call->getArg(0);
    if (Object && mayHoldDescriptorName(Object->getType(), 0))
      return true;
  }
  unsigned First = isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(Callee) ? 1 : 0;
  for (unsigned I = First; I < Call->getNumArgs() && I - First < Callee->getNumParams(); ++I) {
    QualType P = Callee->getParamDecl(I - First)->getType();
    if (P->isReferenceType() && !P.getNonReferenceType().isConstQualified() &&
        mayHoldDescriptorName(Call->getArg(I)->getType(), 0))
      return true;
  }
  return false;
}

const Stmt *ObjectReach::concurrentCodeBefore(const Stmt *End, const FunctionDecl *Fn,
                                              const std::function<bool(const Stmt *)> &Outside) {
  auto GivenCallable = [&](auto Args) {
    for (const Expr *A : Args)
      if (isCallableType(A->IgnoreParenImpCasts()->getType()))
        return true;
    return false;
  };
  for (const Stmt *S : index(Fn).Stmts) {
    bool Starts = false;
    if (const auto *Call = dyn_cast<CallExpr>(S)) {
      const CudaApi *Api = cudaApiOf(Call);
      const FunctionDecl *Callee = Call->getDirectCallee();
      Starts = (Api && Api->Role == ApiRole::HostCallback) ||
               (!Api && Callee && ST.inSystemHeader(Callee->getLocation()) &&
                !isa<CXXMethodDecl>(Callee) && GivenCallable(Call->arguments()) &&
                !Callee->getName().starts_with("cu"));
    } else if (const auto *CE = dyn_cast<CXXConstructExpr>(S)) {
      // A thread object given its function starts it.
      const CXXConstructorDecl *C = CE->getConstructor();
      Starts = C && ST.inSystemHeader(C->getLocation()) && !C->isCopyOrMoveConstructor() &&
               GivenCallable(CE->arguments());
    }
    if (Starts && reaches(S, End, Fn) && !(Outside && Outside(S)))
      return S;
  }
  return nullptr;
}

} // namespace tma::analysis
