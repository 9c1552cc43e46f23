// The storage rule (DeviceStorage.h): every use of every storage a device
// copy's pointer can reach is classified; a group whose uses all are is
// retargeted to host memory, and one use that is not refuses it by name.
#include "DeviceStorage.h"

#include "StorageIndex.h"

#include "../core/Climb.h"
#include "../core/CudaApi.h"
#include "../core/Launch.h"
#include "../core/Types.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;

namespace tma::analysis {

/// `*E` for pointer expression \p E spelled \p Text, parenthesised only
/// where `*` would bind to less than all of it: a postfix expression (a
/// name, `a.b`, `f()`, `a[i]`, `(...)`) needs none, as a reviewer writes
/// `*h.get()`, not `*(h.get())`.
static std::string dereferenced(const Expr *E, const std::string &Text) {
  bool Postfix =
      isa<DeclRefExpr, MemberExpr, ParenExpr, CallExpr, ArraySubscriptExpr>(E->IgnoreImpCasts());
  return Postfix ? "*" + Text : "*(" + Text + ")";
}

static constexpr size_t MaxStorages = 256;

DeviceStorage::DeviceStorage(ASTContext &Ctx, const SourceText &ST, StorageInputs In)
    : Ctx(Ctx), ST(ST), In(std::move(In)), Idx(std::make_unique<StorageIndex>(Ctx, ST)) {}

DeviceStorage::~DeviceStorage() = default;

const Stmt *DeviceStorage::parent(const FunctionDecl *Fn, const Stmt *S) {
  return Idx->parent(Fn, S);
}

/// \p E without parentheses, implicit casts, casts between pointer types,
/// cleanups and temporaries: the value it passes on.
static const Expr *valueOf(const Expr *E) {
  for (;;) {
    E = E->IgnoreParenImpCasts();
    if (const auto *C = dyn_cast<ExplicitCastExpr>(E); C && C->getType()->isPointerType())
      E = C->getSubExpr();
    else if (const auto *EWC = dyn_cast<ExprWithCleanups>(E))
      E = EWC->getSubExpr();
    else if (const auto *MT = dyn_cast<MaterializeTemporaryExpr>(E))
      E = MT->getSubExpr();
    else if (const auto *DA = dyn_cast<CXXDefaultArgExpr>(E))
      E = DA->getExpr();
    else if (const auto *DI = dyn_cast<CXXDefaultInitExpr>(E))
      E = DI->getExpr();
    else
      return E;
  }
}

/// The element storage `maps[0]` names, or "".
std::string DeviceStorage::elementOf(const Expr *E) {
  std::optional<HolderSlot> S = holderSlotOf(E, Ctx);
  return S ? Idx->elementKey(S->Container, S->Index) : std::string();
}

std::optional<std::string> DeviceStorage::storageOf(const Expr *E) {
  E = valueOf(E);
  std::string Key;
  if (const auto *R = dyn_cast<DeclRefExpr>(E); R && isa<VarDecl>(R->getDecl())) {
    if (const auto *V = dyn_cast<VarDecl>(R->getDecl()); V && holdsDescriptorAddress(V->getType()))
      Key = Idx->variableKey(V);
  } else if (Key = elementOf(E); !Key.empty()) {
  } else if (const auto *ME = dyn_cast<MemberExpr>(E)) {
    if (const auto *F = dyn_cast<FieldDecl>(ME->getMemberDecl());
        F && holdsDescriptorAddress(F->getType()))
      Key = Idx->fieldKey(F);
  } else if (Key = ownerRead(E); !Key.empty()) {
  } else if (const auto *CE = dyn_cast<CallExpr>(E)) {
    if (const FunctionDecl *FD = CE->getDirectCallee();
        FD && !isKernel(FD) && holdsDescriptorAddress(FD->getReturnType()))
      Key = Idx->resultKey(FD);
  }
  if (Key.empty() || !Idx->Nodes.count(Key))
    return std::nullopt;
  return Key;
}

bool DeviceStorage::refuse(Group &G, const Stmt *At, std::string Why) {
  return refuse(G, At ? At->getBeginLoc() : SourceLocation(), std::move(Why));
}

bool DeviceStorage::refuse(Group &G, SourceLocation At, std::string Why) {
  if (!G.Why)
    G.Why = Note{std::move(Why), ST.point(At)};
  return false;
}

SourceSpan DeviceStorage::spanOf(const FunctionDecl *Fn) {
  const SourceManager &SM = ST.SM;
  SourceLocation B = SM.getExpansionLoc(Fn->getBeginLoc());
  SourceLocation E = SM.getExpansionRange(Fn->getEndLoc()).getEnd();
  SourceSpan S;
  S.Begin = ST.point(B);
  S.End = SM.getFileOffset(E) + Lexer::MeasureTokenLength(E, SM, Ctx.getLangOpts());
  return S;
}

/// Why a storage can be reached by code this translation unit does not
/// show: the calls of a function whose address is taken or that is virtual,
/// another unit's calls, a global another unit names, device memory.
/// Can code other than its own function's body use the storage: a field, a
/// parameter or result (its callers), a global? A local, even a `static`
/// one, of a function in a header is used only by that function's text,
/// which every translation unit including the header gets edited alike.
static bool usableFromOtherCode(const StorageNode &N) {
  if (N.K == StorageNode::Field || N.K == StorageNode::Parameter || N.K == StorageNode::Result)
    return true;
  if (isa<FieldDecl>(N.D))
    return true; // an owner that is a field
  const auto *V = dyn_cast<VarDecl>(N.D);
  return V && V->hasGlobalStorage() && !V->isStaticLocal();
}

bool DeviceStorage::whyOpen(Group &G, const StorageNode &N, SourceLocation At) {
  if (!N.Closed)
    return refuse(G, At, N.WhyOpen);
  if (In.DeclaredElsewhere && usableFromOtherCode(N))
    if (std::optional<std::string> Why = In.DeclaredElsewhere(N.D))
      return refuse(G, At, *Why);
  const FunctionDecl *Owner = nullptr;
  if (N.K == StorageNode::Result)
    Owner = cast<FunctionDecl>(N.D);
  if (N.K == StorageNode::Parameter)
    Owner = dyn_cast<FunctionDecl>(N.D->getDeclContext());
  if (Owner) {
    if (!Owner->hasBody() && N.K == StorageNode::Result)
      return refuse(G, At, "'" + N.Name + "' returns it, and its body is not seen");
    if (const auto *M = dyn_cast<CXXMethodDecl>(Owner); M && M->isVirtual())
      return refuse(G, At, "'" + Owner->getQualifiedNameAsString() +
                               "' is virtual: its callers are not all seen");
    if (Idx->AddressTaken.count(patternOf(Owner)->getFirstDecl()))
      return refuse(G, At, "the address of '" + Owner->getQualifiedNameAsString() +
                               "' is taken: its calls are not all seen");
    if (In.CallableElsewhere)
      if (std::optional<std::string> Why = In.CallableElsewhere(Owner))
        return refuse(G, At, *Why);
    if (const auto *M = dyn_cast<CXXMethodDecl>(Owner))
      if (auto It = Idx->LibraryHandled.find(M->getParent()->getCanonicalDecl());
          It != Idx->LibraryHandled.end())
        return refuse(G, At, "'" + Owner->getQualifiedNameAsString() + "' may be called by '" +
                                 It->second + "', library code the tool does not see");
    if (const auto *Op = dyn_cast<CXXMethodDecl>(Owner);
        Op && Op->getOverloadedOperator() == OO_Call && mayBeDeleter(Op->getParent()))
      return deleterClosed(G, Op, At) && deleterStaysInOwners(G, Op, At);
    return true;
  }
  if (const auto *V = dyn_cast<VarDecl>(N.D)) {
    if (V->hasAttr<CUDADeviceAttr>() || V->hasAttr<CUDAConstantAttr>() ||
        V->hasAttr<CUDASharedAttr>())
      return refuse(G, At, "'" + N.Name + "' lives in device memory");
    if (V->hasGlobalStorage() && !V->isStaticLocal() && In.NamedElsewhere)
      if (std::optional<std::string> Why = In.NamedElsewhere(V))
        return refuse(G, At, *Why);
  }
  if (const auto *F = dyn_cast<FieldDecl>(N.D)) {
    if (F->getParent()->isUnion())
      return refuse(G, At, "'" + N.Name + "' is a member of a union");
    const RecordDecl *RD = F->getParent()->getDefinition();
    auto Esc = RD ? Idx->RecordEscapes.find(RD) : Idx->RecordEscapes.end();
    if (Esc != Idx->RecordEscapes.end())
      return refuse(G, Esc->second->getBeginLoc(),
                    "an object holding '" + N.Name +
                        "' is passed here to code whose body is not seen, which may read or "
                        "change it");
  }
  return true;
}

bool DeviceStorage::join(Group &G, const std::string &Key, const Stmt *At) {
  return join(G, Key, At ? At->getBeginLoc() : SourceLocation());
}

bool DeviceStorage::join(Group &G, const std::string &Key, SourceLocation At) {
  if (G.Members.count(Key))
    return true;
  auto It = Idx->Nodes.find(Key);
  if (It == Idx->Nodes.end())
    return refuse(G, At, "the pointer is stored where the tool does not follow it");
  if (G.Members.size() >= MaxStorages)
    return refuse(G, At, "the device copy reaches more storages than the tool follows");
  if (!whyOpen(G, It->second, At))
    return false;
  G.Members.insert(Key);
  G.Work.push_back(Key);
  if (const auto *V = dyn_cast<VarDecl>(It->second.D))
    G.R.Variables.push_back(V);
  if (It->second.K == StorageNode::Result)
    G.R.Functions.push_back(cast<FunctionDecl>(It->second.D));
  if (It->second.K == StorageNode::Parameter)
    if (const auto *FD = dyn_cast<FunctionDecl>(It->second.D->getDeclContext()))
      G.R.Functions.push_back(FD);
  return true;
}

/// A value stored into a storage of the group: null, another storage (which
/// joins), or either branch of a conditional.
bool DeviceStorage::classifyValue(Group &G, const StorageNode &N, const Expr *V,
                                  const FunctionDecl *Fn) {
  V = valueOf(V);
  if (V->isNullPointerConstant(Ctx, Expr::NPC_ValueDependentIsNotNull) != Expr::NPCK_NotNull)
    return true;
  if (const auto *CO = dyn_cast<ConditionalOperator>(V))
    return classifyValue(G, N, CO->getTrueExpr(), Fn) &&
           classifyValue(G, N, CO->getFalseExpr(), Fn);
  if (std::optional<std::string> Key = storageOf(V))
    return join(G, *Key, V);
  return refuse(G, V, "the value stored into '" + N.Name + "' here ('" + ST.text(CharSourceRange::getTokenRange(V->getSourceRange())) +
                          "') is not a device copy the tool follows");
}

bool DeviceStorage::valueUsed(const Stmt *Call, const FunctionDecl *Fn) {
  auto [Cur, P] = climb(Call, [&](const Stmt *S) { return parent(Fn, S); }, parensAndCleanups);
  if (!P)
    return true;
  if (isa<CompoundStmt>(P))
    return false;
  // The statement of a case or a label (`case 2: cudaMemcpy(...);`).
  if (const auto *SC = dyn_cast<SwitchCase>(P))
    return SC->getSubStmt() != Cur;
  if (const auto *L = dyn_cast<LabelStmt>(P))
    return L->getSubStmt() != Cur;
  if (const auto *If = dyn_cast<IfStmt>(P))
    return If->getCond() == Cur;
  if (const auto *For = dyn_cast<ForStmt>(P))
    return For->getCond() == Cur;
  if (const auto *W = dyn_cast<WhileStmt>(P))
    return W->getCond() == Cur;
  if (const auto *D = dyn_cast<DoStmt>(P))
    return D->getCond() == Cur;
  return true;
}

void DeviceStorage::addUse(Group &G, HostUseKind K, const CallExpr *Call, const StorageRef &R,
                           const std::string &Effect, std::string What) {
  HostUse U;
  U.Kind = K;
  U.Where = ST.point(Call->getBeginLoc());
  U.What = std::move(What);
  std::optional<CharSourceRange> Range = ST.fileRange(Call->getSourceRange());
  if (!Range) {
    refuse(G, Call, "this " + U.What + " is spelled inside a macro body");
    return;
  }
  // The error code the call returned, where it is used: the runtime's or
  // the driver's success.
  const CudaApi *Api = cudaApiOf(Call);
  const char *Success =
      Api && !Api->Name.starts_with("cuda") ? "CUDA_SUCCESS" : "cudaSuccess";
  // `CHECK(cudaMemcpy(d, &h, ...));` becomes the plain statement `*d = h;`:
  // an assignment has no error code to check.
  const Stmt *Top = Call;
  for (const Stmt *P = parent(R.Fn, Top); P; P = parent(R.Fn, Top)) {
    if (isa<CompoundStmt>(P) && P->getBeginLoc().isFileID())
      break;
    Top = P;
  }
  if (std::optional<CharSourceRange> Whole = Top != Call ? ST.soleMacroArgument(Top, Call)
                                                         : std::nullopt) {
    U.Removal.push_back(ST.replace(*Whole, Effect));
    G.R.Uses.push_back(std::move(U));
    return;
  }
  bool Used = valueUsed(Call, R.Fn);
  if (Used && !Effect.empty())
    if (std::optional<std::vector<TextEdit>> Plain = plainStatement(Call, R.Fn, Effect, Success)) {
      U.Removal = std::move(*Plain);
      G.R.Uses.push_back(std::move(U));
      return;
    }
  std::string Text = Used ? "(" + Effect + ", " + Success + ")" : Effect;
  U.Removal.push_back(ST.replace(*Range, Text));
  G.R.Uses.push_back(std::move(U));
}

/// Does \p S hold anything another edit of the run may change: a call the
/// CUDA table knows, a kernel launch, or a name of a storage the rule may
/// retarget (a descriptor pointer, a device address, an owner)?
static bool mayHoldEdits(const Stmt *S) {
  if (!S)
    return false;
  if (isa<CUDAKernelCallExpr>(S))
    return true;
  // A log call (`fprintf`) is edited only through the names it is given.
  if (const auto *Call = dyn_cast<CallExpr>(S))
    if (const CudaApi *Api = cudaApiOf(Call); Api && Api->Role != ApiRole::Log)
      return true;
  if (isa<DeclRefExpr, MemberExpr>(S)) {
    QualType T = cast<Expr>(S)->getType();
    if (holdsDescriptorAddress(T) || !ownedDescriptorDeleter(T).isNull())
      return true;
  }
  return llvm::any_of(S->children(), mayHoldEdits);
}

/// Is \p E the success code \p Success (`cudaSuccess`, `CUDA_SUCCESS`)?
static bool isSuccessCode(const Expr *E, llvm::StringRef Success) {
  const auto *R = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
  return R && isa<EnumConstantDecl>(R->getDecl()) && R->getDecl()->getName() == Success;
}

/// The `if` with no else (nor init, condition variable or constexpr) whose
/// condition tests \p E for failure (`E != Success`, either side, or `E`),
/// and whose branch holds nothing another edit may change; null otherwise.
const IfStmt *DeviceStorage::failureTest(const Expr *E, const FunctionDecl *Fn,
                                         llvm::StringRef Success) {
  auto Up = [&](const Stmt *S) { return parent(Fn, S); };
  Climbed C = climb(E, Up, parensImplicitCastsAndCleanups);
  if (const auto *BO = dyn_cast_or_null<BinaryOperator>(C.Parent);
      BO && BO->getOpcode() == BO_NE &&
      (isSuccessCode(BO->getRHS(), Success) || isSuccessCode(BO->getLHS(), Success)))
    C = climb(BO, Up, parensAndImplicitCasts);
  const auto *If = dyn_cast_or_null<IfStmt>(C.Parent);
  if (!If || If->getCond() != C.Child || If->getElse() || If->getInit() ||
      If->getConditionVariable() || If->isConsteval() || If->isConstexpr() ||
      mayHoldEdits(If->getThen()))
    return nullptr;
  return If;
}

/// The file range of the whole `if` \p If, its branch's `;` included.
std::optional<CharSourceRange> DeviceStorage::wholeIf(const IfStmt *If) {
  std::optional<CharSourceRange> Whole = ST.fileRange(If->getSourceRange());
  if (!Whole || isa<CompoundStmt>(If->getThen()))
    return Whole;
  SourceLocation Semi = Lexer::findLocationAfterToken(
      ST.SM.getExpansionLoc(If->getThen()->getEndLoc()), tok::semi, ST.SM, Ctx.getLangOpts(), false);
  if (Semi.isInvalid())
    return std::nullopt;
  return CharSourceRange::getCharRange(Whole->getBegin(), Semi);
}

/// Where the error variable \p V, which the call that initialises it no
/// longer sets to anything but success, is only tested for failure by
/// `if`s (failureTest) whose branches alone use it otherwise: the removal
/// of each such `if`. None otherwise.
std::optional<std::vector<TextEdit>> DeviceStorage::onlyFailureTests(const VarDecl *V,
                                                                     const FunctionDecl *Fn,
                                                                     llvm::StringRef Success) {
  std::vector<const DeclRefExpr *> Uses;
  std::function<void(const Stmt *)> Walk = [&](const Stmt *S) {
    if (!S)
      return;
    if (const auto *R = dyn_cast<DeclRefExpr>(S); R && R->getDecl() == V)
      Uses.push_back(R);
    for (const Stmt *Child : S->children())
      Walk(Child);
  };
  Walk(Fn->getBody());
  // Each use is a failure test's condition, or must lie in such a test's
  // branch, which goes with it.
  std::vector<const IfStmt *> Tests;
  std::vector<const DeclRefExpr *> Others;
  for (const DeclRefExpr *R : Uses) {
    if (const IfStmt *If = failureTest(R, Fn, Success))
      Tests.push_back(If);
    else
      Others.push_back(R);
  }
  auto InATest = [&](const Stmt *S) {
    for (; S; S = parent(Fn, S))
      if (llvm::any_of(Tests, [&](const IfStmt *If) { return If->getThen() == S; }))
        return true;
    return false;
  };
  if (Tests.empty() || !llvm::all_of(Others, InATest))
    return std::nullopt;
  std::vector<TextEdit> Out;
  for (const IfStmt *If : Tests) {
    std::optional<TextEdit> Gone = ST.removeStatement(If->getSourceRange());
    if (!Gone)
      return std::nullopt;
    Out.push_back(*Gone);
  }
  return Out;
}

/// Where the statement around \p Call tests or keeps the error code that
/// the retargeted effect \p Effect no longer returns, the edits that make it
/// a plain statement (issue 42): `if (CALL != cudaSuccess) <error>` (or
/// `if (CALL)`) with no else becomes `Effect;`, its branch no longer able to
/// run; `cudaError_t err = CALL;` whose variable only such `if`s test
/// becomes `Effect;` and the `if`s go; otherwise it, `err = CALL;` and
/// `return CALL;` in a block get `Effect;` on a line before them and the
/// success code in the call's place. None for other shapes, and where the
/// branch removed holds something another edit may change; the comma form
/// stays there.
std::optional<std::vector<TextEdit>> DeviceStorage::plainStatement(const CallExpr *Call,
                                                                   const FunctionDecl *Fn,
                                                                   const std::string &Effect,
                                                                   llvm::StringRef Success) {
  if (const IfStmt *If = failureTest(Call, Fn, Success)) {
    std::optional<CharSourceRange> Whole = wholeIf(If);
    if (!Whole)
      return std::nullopt;
    return std::vector<TextEdit>{ST.replace(*Whole, Effect + ";")};
  }
  // The statement the value is kept or returned by, in a block.
  Climbed C = climb(Call, [&](const Stmt *S) { return parent(Fn, S); }, parensImplicitCastsAndCleanups);
  const Stmt *Holder = nullptr;
  const VarDecl *Kept = nullptr;
  if (const auto *DS = dyn_cast_or_null<DeclStmt>(C.Parent)) {
    const auto *V = DS->isSingleDecl() ? dyn_cast<VarDecl>(DS->getSingleDecl()) : nullptr;
    if (V && V->getInit() && V->getInit()->IgnoreParenImpCasts() == Call->IgnoreParenImpCasts()) {
      Holder = DS;
      Kept = V;
    }
  } else if (const auto *BO = dyn_cast_or_null<BinaryOperator>(C.Parent)) {
    if (BO->getOpcode() == BO_Assign && BO->getRHS() == C.Child)
      Holder = BO;
  } else if (isa_and_nonnull<ReturnStmt>(C.Parent)) {
    Holder = C.Parent;
  }
  if (!Holder || !isa_and_nonnull<CompoundStmt>(parent(Fn, Holder)))
    return std::nullopt;
  std::optional<CharSourceRange> Range = ST.fileRange(Call->getSourceRange());
  std::optional<CharSourceRange> At = ST.fileRange(Holder->getSourceRange());
  if (!Range || !At)
    return std::nullopt;
  // A variable whose only job was to carry the code to its tests goes with them.
  if (Kept && !Kept->isStaticLocal() && !Kept->getType()->isReferenceType())
    if (std::optional<std::vector<TextEdit>> Tests = onlyFailureTests(Kept, Fn, Success)) {
      // A declaration's range holds its ';'.
      Tests->push_back(ST.replace(*At, Effect + ";"));
      return Tests;
    }
  return std::vector<TextEdit>{
      ST.insertBefore(At->getBegin(), Effect + ";\n" + ST.indentOf(At->getBegin())),
      ST.replace(*Range, Success.str())};
}

/// How an edit spells the host pointer that the storage reference \p Ref
/// (spelled \p Text) holds once retargeted: the reference itself, or for a
/// CUdeviceptr its cast, as the typed launch spells it.
static std::string hostPointer(const Expr *Ref, const std::string &Text) {
  return Ref->getType()->isIntegerType() ? "(CUtensorMap *)" + Text : Text;
}

/// `cudaMalloc(&p, sizeof(CUtensorMap))`: p = new CUtensorMap (a
/// CUdeviceptr keeps the address as its integer).
bool DeviceStorage::classifyAlloc(Group &G, const StorageNode &N, const Expr *Cur,
                                  const StorageRef &R) {
  Climbed Up = climb(Cur, [&](const Stmt *S) { return parent(R.Fn, S); }, parensAndCasts);
  Cur = cast<Expr>(Up.Child);
  const auto *Call = dyn_cast_or_null<CallExpr>(Up.Parent);
  const CudaApi *Api = cudaApiOf(Call);
  if (!Api || Api->Role != ApiRole::Alloc || Api->Dest < 0 ||
      Call->getNumArgs() <= unsigned(std::max(Api->Dest, Api->SizeArg)) ||
      Call->getArg(Api->Dest) != Cur)
    return refuse(G, R.E, "the address of '" + N.Name + "' is taken here");
  Expr::EvalResult Size;
  if (Api->SizeArg < 0 || !Call->getArg(Api->SizeArg)->EvaluateAsInt(Size, Ctx) ||
      Size.Val.getInt() != 128)
    return refuse(G, Call, "'" + N.Name + "' is allocated with a size other than one CUtensorMap");
  std::optional<CharSourceRange> Ref = ST.fileRange(R.E->getSourceRange());
  if (!Ref)
    return refuse(G, R.E, "'" + N.Name + "' is spelled inside a macro body");
  ++G.Allocs;
  G.AllocCalls.push_back({Call, R.Fn});
  const char *Fresh =
      R.E->getType()->isIntegerType() ? "(CUdeviceptr)new CUtensorMap" : "new CUtensorMap";
  addUse(G, HostUseKind::Alloc, Call, R, ST.text(*Ref) + " = " + Fresh,
         Api->Name.str() + " of '" + N.Name + "'");
  return !G.Why;
}

/// The local pointer to a descriptor that \p Src names, or null.
static const VarDecl *pointerVariable(const Expr *Src) {
  const auto *R = dyn_cast<DeclRefExpr>(Src->IgnoreParenImpCasts());
  const auto *V = R ? dyn_cast<VarDecl>(R->getDecl()) : nullptr;
  if (!V || !V->hasLocalStorage() || isa<ParmVarDecl>(V) || !V->getType()->isPointerType() ||
      !isTensorMapRecord(V->getType()->getPointeeType()))
    return nullptr;
  return V;
}

/// A copy into the storage, or a free of it: an assignment, a delete.
/// The local host descriptor \p Src is the address of (`&h`, h a local
/// CUtensorMap variable, not a reference), or null.
static const VarDecl *localDescriptorAt(const Expr *Src) {
  const auto *UO = dyn_cast<UnaryOperator>(Src->IgnoreParenImpCasts());
  if (!UO || UO->getOpcode() != UO_AddrOf)
    return nullptr;
  const auto *R = dyn_cast<DeclRefExpr>(UO->getSubExpr()->IgnoreParens());
  const auto *V = R ? dyn_cast<VarDecl>(R->getDecl()) : nullptr;
  if (!V || !V->hasLocalStorage() || isa<ParmVarDecl>(V) || V->getType()->isReferenceType() ||
      !isTensorMapRecord(V->getType()))
    return nullptr;
  return V;
}

bool DeviceStorage::classifyMemoryCall(Group &G, const StorageNode &N, const CallExpr *Call,
                                       unsigned Arg, const StorageRef &R) {
  const CudaApi *Api = cudaApiOf(Call);
  std::optional<CharSourceRange> Ref = ST.fileRange(R.E->getSourceRange());
  std::string Name = "'" + N.Name + "'";
  if (Api->Role == ApiRole::Free && int(Arg) == Api->Dest) {
    if (!Ref)
      return refuse(G, R.E, Name + " is spelled inside a macro body");
    addUse(G, HostUseKind::Free, Call, R, "delete " + hostPointer(R.E, ST.text(*Ref)),
           Api->Name.str() + " of " + Name);
    return !G.Why;
  }
  if (int(Arg) == Api->Dest && (Api->Role == ApiRole::DeviceWrite || Api->Role == ApiRole::Copy) &&
      !isWholeDescriptorCopy(Call, *Api, Ctx))
    return classifyPartialWrite(G, N, Call, Call->getArg(Arg), 0, R);
  if (Api->Role != ApiRole::Copy)
    return refuse(G, Call, Name + " is passed to '" + Api->Name.str() + "'");
  if (int(Arg) != Api->Dest)
    return refuse(G, Call, "the device copy in " + Name + " is copied from here ('" +
                               Api->Name.str() + "' reads it)");
  if (!isWholeDescriptorCopy(Call, *Api, Ctx))
    return refuse(G, Call, "this " + Api->Name.str() + " into " + Name +
                               " is not a host-to-device copy of one whole CUtensorMap");
  const Expr *Src = valueOf(Call->getArg(Api->Src));
  const VarDecl *SrcPointer = pointerVariable(Src);
  std::string SrcText;
  if (const auto *UO = dyn_cast<UnaryOperator>(Src);
      UO && UO->getOpcode() == UO_AddrOf && isTensorMapRecord(UO->getSubExpr()->getType())) {
    if (std::optional<CharSourceRange> S = ST.fileRange(UO->getSubExpr()->getSourceRange()))
      SrcText = ST.text(*S);
  } else if (Api->streamOrdered() && !SrcPointer) {
    // Pinned memory behind a pointer is read when the stream runs the copy,
    // not when it is issued: an assignment would read it too early, unless
    // nothing writes it meanwhile (pointerCopiesReadAtCall).
    return refuse(G, Call, "this " + Api->Name.str() + " into " + Name +
                               " reads through a pointer that may be pinned memory, when the "
                               "stream runs it");
  } else if (Src->getType()->isPointerType() &&
             isTensorMapRecord(Src->getType()->getPointeeType())) {
    if (std::optional<CharSourceRange> S = ST.fileRange(Src->getSourceRange()))
      SrcText = dereferenced(Src, ST.text(*S));
  } else {
    return refuse(G, Call, "this " + Api->Name.str() + " into " + Name +
                               " reads something that is not a CUtensorMap");
  }
  if (SrcText.empty() || !Ref)
    return refuse(G, Call, "this " + Api->Name.str() + " is spelled inside a macro body");
  noteWrite(G, Call, R.Fn);
  G.WholeCopies.push_back({Call, R.Fn, localDescriptorAt(Src), SrcText});
  if (Api->streamOrdered() && SrcPointer)
    G.PointerCopies.push_back({Call, R.Fn, SrcPointer});
  addUse(G, HostUseKind::Copy, Call, R, "*" + hostPointer(R.E, ST.text(*Ref)) + " = " + SrcText,
         Api->Name.str() + " into " + Name);
  return !G.Why;
}

bool DeviceStorage::classifyPartialWrite(Group &G, const StorageNode &N, const CallExpr *Call,
                                         const Expr *Dest, uint64_t Offset, const StorageRef &R) {
  const CudaApi *Api = cudaApiOf(Call);
  std::string Name = "'" + N.Name + "'";
  bool Memset = Api->Name == "cudaMemset", Memcpy = Api->Name == "cudaMemcpy";
  if (!Memset && !Memcpy) {
    if (G.ValueForm && Api->streamOrdered())
      return classifyQueuedPartialWrite(G, N, Call, Dest, Offset, R);
    return refuse(G, Call, Name + " is written here by '" + Api->Name.str() +
                               "', a write the tool does not turn into a host write");
  }
  if (Call->getNumArgs() < (Memset ? 3u : 4u) || Call->getArg(Api->Dest) != Dest)
    return refuse(G, Call, Name + " is used here in a way the tool does not follow");
  // The host writes at the call what the device copy holds once the call's
  // work has run: a memset's value is an argument; a synchronous copy from
  // host memory reads its source before it returns.
  Expr::EvalResult Size, Kind;
  if (!Call->getArg(2)->EvaluateAsInt(Size, Ctx) || Size.Val.getInt().isNegative() ||
      Offset + Size.Val.getInt().getZExtValue() > 128)
    return refuse(G, Call, "this " + Api->Name.str() + " of " + Name +
                               " may write outside the CUtensorMap it points to");
  if (Memcpy && (!Call->getArg(3)->EvaluateAsInt(Kind, Ctx) || Kind.Val.getInt() != 1))
    return refuse(G, Call, "this cudaMemcpy into " + Name + " is not a copy from host memory");
  if (R.E->getType()->isIntegerType())
    return refuse(G, Call, Name + " is written by '" + Api->Name.str() + "' as an integer");
  // The destination, and the arguments after it (the value form repeats
  // the write on another destination).
  std::string DestText, Rest;
  bool SideEffects = false;
  for (unsigned A = 0; A < 3; ++A) {
    std::optional<CharSourceRange> Text = ST.fileRange(Call->getArg(A)->getSourceRange());
    if (!Text)
      return refuse(G, Call, "this " + Api->Name.str() + " is spelled inside a macro body");
    if (!A) {
      DestText = ST.text(*Text);
      continue;
    }
    Rest += ", " + ST.text(*Text);
    SideEffects = SideEffects || Call->getArg(A)->HasSideEffects(Ctx);
  }
  std::string Args = DestText + Rest;
  noteWrite(G, Call, R.Fn); // another write of the group, like a copy
  G.PartialWrites = true;
  G.Partials.push_back({Call, R.Fn, Offset, Memset ? "memset" : "memcpy", SideEffects ? "" : Rest});
  addUse(G, HostUseKind::Copy, Call, R, (Memset ? "memset(" : "memcpy(") + Args + ")",
         Api->Name.str() + " of part of " + Name);
  return !G.Why;
}

bool DeviceStorage::classifyQueuedPartialWrite(Group &G, const StorageNode &N,
                                                const CallExpr *Call, const Expr *Dest,
                                                uint64_t Offset, const StorageRef &R) {
  const CudaApi *Api = cudaApiOf(Call);
  std::string Name = "'" + N.Name + "'";
  // Its bytes, to bound the write: one call of the stream's writes the
  // table gives a byte count.
  Expr::EvalResult Size;
  if (Api->SizeArg < 0 || Call->getNumArgs() <= unsigned(Api->SizeArg) ||
      Call->getArg(Api->Dest) != Dest)
    return refuse(G, Call, Name + " is written here by '" + Api->Name.str() +
                               "', a write the tool does not turn into a host write");
  if (!Call->getArg(Api->SizeArg)->EvaluateAsInt(Size, Ctx) || Size.Val.getInt().isNegative() ||
      Offset + Size.Val.getInt().getZExtValue() > 128)
    return refuse(G, Call, "this " + Api->Name.str() + " of " + Name +
                               " may write outside the CUtensorMap it points to");
  // It lands when its stream runs it, with what its source then holds: the
  // value form leaves it on the device copy, like a kernel that writes it,
  // and no launch that passes the value may be made once it may have
  // landed, unless a copy that runs at its call comes between (valueForm,
  // and the stream-time check for a held one).
  noteWrite(G, Call, R.Fn);
  G.PartialWrites = true;
  G.Partials.push_back({Call, R.Fn, Offset, "", ""});
  addUse(G, HostUseKind::Copy, Call, R, "",
         Api->Name.str() + " of part of " + Name + ", left on the device copy");
  return !G.Why;
}

bool DeviceStorage::classifyMapWord(Group &G, const StorageNode &N, const MemberExpr *ME,
                                    const StorageRef &R) {
  std::string Name = "'" + N.Name + "'";
  const auto *F = dyn_cast<FieldDecl>(ME->getMemberDecl());
  if (!ME->isArrow() || !F || F->getName() != "opaque" || !isTensorMapRecord(ME->getBase()->getType()->getPointeeType()))
    return refuse(G, ME, Name + " is dereferenced or changed on the host here");
  auto Up = [&](const Stmt *S) { return parent(R.Fn, S); };
  // `d->opaque` decays to its first word; `d->opaque[c]` is word c, whose
  // address is taken.
  uint64_t Offset = 0;
  const Stmt *Word = ME;
  const Stmt *P = Up(ME);
  if (const auto *IC = dyn_cast_or_null<ImplicitCastExpr>(P);
      IC && IC->getCastKind() == CK_ArrayToPointerDecay) {
    Word = IC;
    P = Up(IC);
  }
  if (const auto *AS = dyn_cast_or_null<ArraySubscriptExpr>(P); AS && AS->getBase() == Word) {
    Expr::EvalResult Index;
    if (!AS->getIdx()->EvaluateAsInt(Index, Ctx) || Index.Val.getInt().isNegative() ||
        Index.Val.getInt().getZExtValue() >= 16)
      return refuse(G, AS, Name + " is written here at a word the tool cannot count");
    Offset = Index.Val.getInt().getZExtValue() * 8;
    const auto *Addr = dyn_cast_or_null<UnaryOperator>(Up(AS));
    if (!Addr || Addr->getOpcode() != UO_AddrOf)
      return refuse(G, AS, Name + " is dereferenced or changed on the host here");
    Word = Addr;
  } else if (Word == ME) {
    return refuse(G, ME, Name + " is dereferenced or changed on the host here");
  }
  Climbed C = climb(Word, Up, parensAndCasts);
  const auto *Call = dyn_cast_or_null<CallExpr>(C.Parent);
  const CudaApi *Api = cudaApiOf(Call);
  if (!Api || !isArgAt(Call, Api->Dest, C.Child))
    return refuse(G, Word, Name + " is dereferenced or changed on the host here");
  return classifyPartialWrite(G, N, Call, cast<Expr>(C.Child), Offset, R);
}

/// A launch argument: the kernel's parameter must be one of its descriptors.
/// The launch argument \p A (spelled \p Range) becomes `*A`.
TextEdit DeviceStorage::derefEdit(const Expr *A, CharSourceRange Range) {
  return ST.replace(Range, dereferenced(A, ST.text(Range)));
}

bool DeviceStorage::classifyCallArg(Group &G, const StorageNode &N, const CallExpr *Call,
                                    const Expr *Cur, const StorageRef &R) {
  if (asLaunch(Call))
    return classifyLaunch(G, Call, Cur, R);
  if (isa<CUDAKernelCallExpr>(Call))
    return classifyPointerLaunch(G, Call, Cur);
  unsigned Arg = 0;
  while (Arg < Call->getNumArgs() && Call->getArg(Arg) != Cur)
    ++Arg;
  if (Arg == Call->getNumArgs())
    return refuse(G, Call, "'" + N.Name + "' is used here in a way the tool does not follow");
  if (const CudaApi *Api = cudaApiOf(Call)) {
    if (Api->Role == ApiRole::Log) {
      HostUse U;
      U.Kind = HostUseKind::Other;
      U.Where = ST.point(Call->getBeginLoc());
      U.What = "'" + N.Name + "' is printed here: the address it prints is now a host address";
      G.R.Uses.push_back(std::move(U));
      return true;
    }
    return classifyMemoryCall(G, N, Call, Arg, R);
  }
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee)
    return unknownUse(G, Call, R.Fn, "'" + N.Name + "' is passed to an indirect call");
  std::string Name = Callee->getQualifiedNameAsString();
  if (ST.inSystemHeader(Callee->getLocation()) || !Callee->hasBody())
    return unknownUse(G, Call, R.Fn,
                      "'" + N.Name + "' is passed to '" + Name + "', whose body is not seen");
  unsigned P = Arg - (isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(Callee) ? 1 : 0);
  if (P >= Callee->getNumParams() || !holdsDescriptorAddress(Callee->getParamDecl(P)->getType()))
    return refuse(G, Call, "'" + N.Name + "' is passed to '" + Name +
                               "' as an argument that is not a descriptor pointer");
  return join(G, Idx->parameterKey(Callee, P), Call);
}

/// What holds the use \p Cur (climbed through casts) decides it.
bool DeviceStorage::classifyParent(Group &G, const StorageNode &N, const StorageRef &R,
                                   const Expr *Cur, const Stmt *P) {
  std::string Name = "'" + N.Name + "'";
  if (!P) {
    // A constructor's member initialiser: `device(other.device)`.
    if (const auto *Ctor = dyn_cast_or_null<CXXConstructorDecl>(R.Fn))
      for (const CXXCtorInitializer *Init : Ctor->inits())
        if (Init->getInit() == Cur && Init->getMember())
          return join(G, Idx->fieldKey(Init->getMember()), Cur);
    return refuse(G, R.E, Name + " is used here in a way the tool does not follow");
  }
  if (const auto *BO = dyn_cast<BinaryOperator>(P)) {
    if (BO->getOpcode() == BO_Assign && BO->getLHS() == Cur) {
      if (valueUsed(BO, R.Fn))
        return refuse(G, BO, "the value of this assignment to " + Name + " is used");
      return classifyValue(G, N, BO->getRHS(), R.Fn);
    }
    if (BO->getOpcode() == BO_Assign) {
      if (std::optional<std::string> Key = storageOf(BO->getLHS()))
        return join(G, *Key, BO);
      return refuse(G, BO, Name + " is stored here where the tool does not follow it");
    }
    if (BO->isEqualityOp())
      return true;
    if (BO->getOpcode() == BO_Comma && BO->getLHS() == Cur)
      return true;
    return refuse(G, BO, "pointer arithmetic or another operation on " + Name + " here");
  }
  if (const auto *ME = dyn_cast<MemberExpr>(P); ME && ME->getBase() == Cur)
    return classifyMapWord(G, N, ME, R);
  if (const auto *UO = dyn_cast<UnaryOperator>(P)) {
    if (UO->getOpcode() == UO_LNot)
      return true;
    return refuse(G, UO, Name + " is dereferenced or changed on the host here");
  }
  if (const auto *Call = dyn_cast<CallExpr>(P)) {
    if (Call->getCallee() == Cur)
      return refuse(G, Call, Name + " is called");
    // `std::ref(d)` making a holder's slot (holderInitialisers).
    if (auto It = Idx->ElementInits.find(Cur); It != Idx->ElementInits.end())
      return join(G, It->second, Call);
    return classifyCallArg(G, N, Call, Cur, R);
  }
  if (const auto *CE = dyn_cast<CXXConstructExpr>(P)) {
    // `std::pair<CUtensorMap *, int> p{d, 0}`: the slot (a storage of its
    // own) joins (holderInitialisers).
    if (auto It = Idx->ElementInits.find(Cur); It != Idx->ElementInits.end())
      return join(G, It->second, CE);
    // `std::unique_ptr<CUtensorMap, D> d(p)`: the owner joins.
    if (auto It = Idx->OwnerInits.find(CE); It != Idx->OwnerInits.end() && CE->getArg(0) == Cur)
      return join(G, It->second, CE);
    const CXXConstructorDecl *Ctor = CE->getConstructor();
    for (unsigned A = 0; A < CE->getNumArgs(); ++A)
      if (CE->getArg(A) == Cur && Ctor && Ctor->hasBody() &&
          !ST.inSystemHeader(Ctor->getLocation()) && A < Ctor->getNumParams() &&
          holdsDescriptorAddress(Ctor->getParamDecl(A)->getType()))
        return join(G, Idx->parameterKey(Ctor, A), CE);
    return refuse(G, CE, Name + " is passed to a constructor the tool does not follow");
  }
  if (isa<ReturnStmt>(P)) {
    const FunctionDecl *Fn = R.Fn;
    for (const Stmt *Up = P; Up; Up = parent(R.Fn, Up))
      if (const auto *LE = dyn_cast<LambdaExpr>(Up)) {
        Fn = LE->getCallOperator();
        break;
      }
    if (!holdsDescriptorAddress(Fn->getReturnType()))
      return refuse(G, P, Name + " is returned as another type");
    return join(G, Idx->resultKey(Fn), P);
  }
  if (const auto *DS = dyn_cast<DeclStmt>(P)) {
    for (const Decl *D : DS->decls())
      if (const auto *V = dyn_cast<VarDecl>(D); V && V->getInit() && holdsDescriptorAddress(V->getType()) &&
                                                 valueOf(V->getInit()) == valueOf(Cur))
        return join(G, Idx->variableKey(V), DS);
    return refuse(G, DS, Name + " initialises something the tool does not follow");
  }
  if (const auto *LE = dyn_cast<LambdaExpr>(P)) {
    // A capture: by copy or by reference, the lambda's uses of the name
    // are uses of the same storage; an init-capture is a variable of its own.
    auto Init = LE->capture_init_begin();
    for (const LambdaCapture &C : LE->captures()) {
      if (*Init == Cur && C.capturesVariable()) {
        if (const auto *V = dyn_cast<VarDecl>(C.getCapturedVar()); V && V->isInitCapture())
          return join(G, Idx->variableKey(V), LE);
        return true;
      }
      ++Init;
    }
    return refuse(G, LE, Name + " is used by a lambda in a way the tool does not follow");
  }
  if (const auto *IL = dyn_cast<InitListExpr>(P)) {
    const RecordDecl *RD = IL->getType()->getAsRecordDecl();
    unsigned I = 0;
    if (RD)
      for (const FieldDecl *F : RD->fields()) {
        if (I < IL->getNumInits() && IL->getInit(I) == Cur)
          return join(G, Idx->fieldKey(F), IL);
        ++I;
      }
    // `CUtensorMap *maps[2] = {d, e};`: the element (a storage of its own)
    // joins.
    if (auto It = Idx->ElementInits.find(Cur); It != Idx->ElementInits.end())
      return join(G, It->second, IL);
    return refuse(G, IL, Name + " is put in a list the tool does not follow");
  }
  if (isa<UnaryExprOrTypeTraitExpr>(P))
    return true; // sizeof: not evaluated
  return refuse(G, P, Name + " is used here in a way the tool does not follow");
}

/// `(CUdeviceptr)d` as the device address of a driver copy or free
/// (`cuMemcpyHtoD((CUdeviceptr)d, &h, n)`): the pointer, in the integer the
/// driver API takes for it.
bool DeviceStorage::isDriverAddress(const ExplicitCastExpr *EC, const FunctionDecl *Fn) {
  if (!EC->getType()->isIntegerType() || Ctx.getTypeSize(EC->getType()) != 64)
    return false;
  auto [Cur, P] = climb(EC, [&](const Stmt *S) { return parent(Fn, S); }, parensAndImplicitCasts);
  const auto *Call = dyn_cast_or_null<CallExpr>(P);
  const CudaApi *Api = cudaApiOf(Call);
  return Api && (Api->Role == ApiRole::Copy || Api->Role == ApiRole::Free) &&
         isArgAt(Call, Api->Dest, Cur);
}

bool DeviceStorage::classifyUse(Group &G, const StorageNode &N, const StorageRef &R) {
  if (!G.SeenUses.insert(R.E).second)
    return true;
  if (!R.Fn)
    return refuse(G, R.E, "'" + N.Name + "' is used outside a function");
  if (R.Fn->hasAttr<CUDAGlobalAttr>() || (R.Fn->hasAttr<CUDADeviceAttr>() && !R.Fn->hasAttr<CUDAHostAttr>()))
    return refuse(G, R.E, "'" + N.Name + "' is used in device code");
  G.Spans.insert(R.Fn);
  G.R.Touched.insert(ST.point(R.E->getBeginLoc()));
  if (N.K == StorageNode::Owner)
    return classifyOwnerUse(G, N, R);
  return classifyPointerUse(G, N, R);
}

/// A use of a pointer storage, or the pointer an owner's `get()` reads.
bool DeviceStorage::classifyPointerUse(Group &G, const StorageNode &N, const StorageRef &R) {
  const Expr *Cur = R.E;
  const Stmt *P = parent(R.Fn, Cur);
  // `&d`, `&(*o)`: the address of the storage itself.
  const Stmt *Addressed = climb(Cur, [&](const Stmt *S) { return parent(R.Fn, S); }, parens).Parent;
  if (const auto *UO = dyn_cast_or_null<UnaryOperator>(Addressed); UO && UO->getOpcode() == UO_AddrOf) {
    if (auto Slot = In.ArraySlotOf ? In.ArraySlotOf(R.E) : std::nullopt)
      return classifyArraySlot(G, UO, R.E, Slot->first, Slot->second, R.Fn);
    return classifyAlloc(G, N, UO, R);
  }
  // Climb what passes the pointer on unchanged.
  while (P) {
    if (const auto *IC = dyn_cast<ImplicitCastExpr>(P)) {
      if (IC->getCastKind() == CK_PointerToBoolean || IC->getCastKind() == CK_IntegralToBoolean)
        return true; // a null test
    } else if (const auto *EC = dyn_cast<ExplicitCastExpr>(P)) {
      if (!EC->getType()->isPointerType() && !EC->getType()->isVoidType() &&
          !isDriverAddress(EC, R.Fn))
        return refuse(G, EC, "'" + N.Name + "' is converted to a non-pointer here");
    } else if (const auto *CO = dyn_cast<ConditionalOperator>(P)) {
      if (CO->getCond() == Cur)
        return refuse(G, CO, "'" + N.Name + "' is used here in a way the tool does not follow");
    } else if (!isa<ParenExpr, MaterializeTemporaryExpr, ExprWithCleanups>(P)) {
      break;
    }
    if (const auto *EC = dyn_cast<ExplicitCastExpr>(P); EC && EC->getType()->isVoidType())
      return true; // discarded
    Cur = cast<Expr>(P);
    G.R.Touched.insert(ST.point(Cur->getBeginLoc()));
    P = parent(R.Fn, Cur);
  }
  return classifyParent(G, N, R, Cur, P);
}

bool DeviceStorage::classifyDef(Group &G, const StorageNode &N, const StorageRef &R) {
  if (N.K == StorageNode::Owner)
    return classifyOwnerDef(G, N, R.E, R.Fn);
  return classifyValue(G, N, R.E, R.Fn);
}

std::optional<Retarget> DeviceStorage::retarget(const Expr *Arg, std::optional<Note> &WhyNot,
                                                bool ValueForm) {
  std::optional<std::string> Start = storageOf(Arg);
  if (!Start)
    return std::nullopt;
  Group G;
  G.ValueForm = ValueForm;
  G.R.Name = Idx->Nodes[*Start].Name; // the value form names the variable allocated into
  G.R.Where = ST.point(Idx->Nodes[*Start].D->getLocation());
  join(G, *Start, Arg);
  while (!G.Why && !G.Work.empty()) {
    std::string Key = G.Work.front();
    G.Work.pop_front();
    const StorageNode &N = Idx->Nodes[Key];
    for (const StoragePeer &Peer : N.Peers)
      if (!join(G, Peer.Key, Peer.At))
        break;
    for (const StorageRef &R : N.Uses)
      if (G.Why || !classifyUse(G, N, R))
        break;
    for (const StorageRef &R : N.Defs) {
      if (G.Why)
        break;
      if (R.Fn)
        G.Spans.insert(R.Fn);
      classifyDef(G, N, R);
    }
  }
  // A parameter of a function nothing here calls receives its pointer from
  // callers in other translation units, which are analysed with it.
  // Only a function other units can name has such callers: a lambda's or
  // a static function's parameter with no call here is called unseen.
  bool Uncalled = llvm::all_of(G.Members, [&](const std::string &K) {
    const StorageNode &N = Idx->Nodes[K];
    const auto *Fn = dyn_cast<FunctionDecl>(N.D->getDeclContext());
    const auto *M = dyn_cast_or_null<CXXMethodDecl>(Fn);
    return N.K == StorageNode::Parameter && N.Defs.empty() && Fn && Fn->isExternallyVisible() &&
           !(M && M->getParent()->isLambda());
  });
  if (!G.Why && !Uncalled && (G.Allocs == 0 || G.Copies == 0))
    refuse(G, Arg, G.Allocs ? "no host-to-device copy of a CUtensorMap into '" + G.R.Name + "' is seen"
                            : "no cudaMalloc of '" + G.R.Name + "' is seen");
  if (!G.Why && G.ValueForm)
    findLateCopies(G);
  if (!G.Why)
    copiedOnceForOtherStreams(G);
  if (!G.Why && !G.PointerCopies.empty())
    pointerCopiesReadAtCall(G);
  // Every use of the group is classified: when its copies and launches are
  // all on the legacy default stream, no graph captures any of them.
  if (!G.Why && !Idx->GraphCalls.empty())
    capturedLaunchesAgree(G);
  if (!G.Why && G.ValueForm)
    valueForm(G);
  LastRefusedUnknown = G.RefusedUnknown;
  if (G.Why) {
    WhyNot = G.Why;
    return std::nullopt;
  }
  // Launches whose kernel runs later than the call and reads a copy of a
  // map unchanged since the call pass that map.
  for (RetargetedLaunch &L : G.R.Launches)
    if (auto It = G.PassSource.find(L.launchCall()); L.launchCall() && It != G.PassSource.end()) {
      L.ByValue = It->second->getNameAsString();
      L.Edit.Text = L.ByValue;
      if (!L.Call) {
        // An argument array's slot takes the map's address; a `void *`
        // slot takes a const one only through a cast.
        L.Edit = L.Bare;
        L.Edit.Text = (It->second->getType().isConstQualified() ? "(void *)&" : "&") + L.ByValue;
      }
    }
  G.R.Key = "storage:" + *G.Members.begin();
  G.R.Storages.assign(G.Members.begin(), G.Members.end());
  for (const FunctionDecl *Fn : G.Spans)
    G.R.ReliesOn.push_back(spanOf(Fn));
  return std::move(G.R);
}

/// Is \p E a test that \p V is null: `!v`, `v == nullptr`, `v == 0`,
/// `nullptr == v`?
static bool nullTestOf(const Expr *E, const VarDecl *V) {
  E = E->IgnoreParenImpCasts();
  auto IsV = [&](const Expr *X) {
    const auto *R = dyn_cast<DeclRefExpr>(X->IgnoreParenImpCasts());
    return R && R->getDecl()->getCanonicalDecl() == V->getCanonicalDecl();
  };
  auto IsNull = [&](const Expr *X) {
    return X->IgnoreParenImpCasts()->isNullPointerConstant(V->getASTContext(),
                                                           Expr::NPC_ValueDependentIsNotNull) !=
           Expr::NPCK_NotNull;
  };
  if (const auto *U = dyn_cast<UnaryOperator>(E); U && U->getOpcode() == UO_LNot)
    return IsV(U->getSubExpr());
  if (const auto *B = dyn_cast<BinaryOperator>(E); B && B->getOpcode() == BO_EQ)
    return (IsV(B->getLHS()) && IsNull(B->getRHS())) || (IsV(B->getRHS()) && IsNull(B->getLHS()));
  return false;
}

/// Does \p S hold an allocation into \p V (`cudaMalloc(&v, ...)`)?
static bool allocatesInto(const Stmt *S, const VarDecl *V) {
  if (!S)
    return false;
  if (const auto *CE = dyn_cast<CallExpr>(S)) {
    const CudaApi *Api = cudaApiOf(CE);
    if (Api && Api->Role == ApiRole::Alloc && Api->Dest >= 0 &&
        CE->getNumArgs() > unsigned(Api->Dest)) {
      const Expr *A = CE->getArg(Api->Dest)->IgnoreParenCasts();
      if (const auto *U = dyn_cast<UnaryOperator>(A); U && U->getOpcode() == UO_AddrOf)
        if (const auto *R = dyn_cast<DeclRefExpr>(U->getSubExpr()->IgnoreParenImpCasts()))
          if (R->getDecl()->getCanonicalDecl() == V->getCanonicalDecl())
            return true;
    }
  }
  for (const Stmt *C : S->children())
    if (allocatesInto(C, V))
      return true;
  return false;
}

void DeviceStorage::noteWrite(Group &G, const CallExpr *Call, const FunctionDecl *Fn) {
  G.enqueuedOn(streamOf(Call, Fn), onLegacyStream(Call));
  noteHeld(G, Call, Fn);
  G.Ops.push_back({Call, Fn, false});
  if (!G.Copies++) {
    G.FirstCopy = Call;
    G.FirstCopyFn = Fn;
  }
}

void DeviceStorage::noteLaunch(Group &G, const CallExpr *Call, const FunctionDecl *Fn) {
  noteHeld(G, Call, Fn);
  G.Ops.push_back({Call, Fn, true});
}

void DeviceStorage::noteHeld(Group &G, const CallExpr *Op, const FunctionDecl *Fn) {
  if (!G.HeldAt && In.MayBeHeld && In.MayBeHeld(Op, Fn))
    G.HeldAt = Op ? static_cast<const Stmt *>(Op) : In.HoldSite();
}

bool DeviceStorage::runsOnce(const FunctionDecl *Fn, unsigned Depth) {
  if (!Fn || Depth > 8)
    return false;
  if (Fn->isMain())
    return true;
  if (Fn->isExternallyVisible() || isa<CXXMethodDecl>(Fn) || Fn->isTemplateInstantiation())
    return false;
  auto It = Idx->FunctionUses.find(Fn->getCanonicalDecl());
  if (It == Idx->FunctionUses.end() || It->second.size() != 1)
    return false;
  auto [Ref, Caller] = It->second.front();
  if (!Caller || Caller == Fn || !Idx->DirectCalls.count(Ref) || !Caller->getBody())
    return false;
  for (const Stmt *P = parent(Caller, Ref); P; P = parent(Caller, P))
    if (isLoop(P) || isa<LambdaExpr>(P))
      return false;
  return !hasGoto(Caller->getBody()) && runsOnce(Caller, Depth + 1);
}

bool DeviceStorage::copiedOnlyWhenAllocated(Group &G) {
  if (G.Copies != 1 || !G.FirstCopy || !G.FirstCopyFn)
    return false;
  for (const Stmt *Child = G.FirstCopy, *P = parent(G.FirstCopyFn, Child); P;
       Child = P, P = parent(G.FirstCopyFn, P)) {
    const auto *If = dyn_cast<IfStmt>(P);
    if (!If || If->getThen() != Child || !If->getCond())
      continue;
    for (const std::string &K : G.Members) {
      const auto *V = dyn_cast_or_null<VarDecl>(Idx->Nodes[K].D);
      if (V && nullTestOf(If->getCond(), V) && allocatesInto(If->getThen(), V))
        return true;
    }
  }
  return false;
}

/// The function that declares the class of the field \p N, when every use
/// of the field names an automatic local object of that function (`s.p`)
/// there, and every value stored into it is stored there: only that
/// function's call reaches the objects whose field it is.
static const FunctionDecl *localClassOwner(const StorageNode &N) {
  const auto *F = dyn_cast_or_null<FieldDecl>(N.D);
  const auto *RD = F ? dyn_cast<CXXRecordDecl>(F->getParent()) : nullptr;
  const auto *Fn = RD && !RD->isLambda() ? dyn_cast<FunctionDecl>(RD->getDeclContext()) : nullptr;
  if (!Fn)
    return nullptr;
  for (const StorageRef &R : N.Uses) {
    const auto *ME = dyn_cast_or_null<MemberExpr>(R.E);
    const auto *Base =
        ME && !ME->isArrow() ? dyn_cast<DeclRefExpr>(ME->getBase()->IgnoreParenImpCasts()) : nullptr;
    const auto *V = Base ? dyn_cast<VarDecl>(Base->getDecl()) : nullptr;
    if (!V || R.Fn != Fn || V->getDeclContext() != Fn || !V->hasLocalStorage() ||
        V->isStaticLocal() || isa<ParmVarDecl>(V) || V->getType()->isReferenceType())
      return nullptr;
  }
  for (const StorageRef &R : N.Defs)
    if (R.Fn != Fn)
      return nullptr;
  return Fn;
}

const FunctionDecl *DeviceStorage::localOf(const StorageNode &N) {
  // Only the function's code reaches its locals: its own streams count. An
  // element is its container's (a local whose every use is a constant
  // index: closeContainers); a field, that of the class the function
  // declares, when only its own locals are such objects.
  if (N.K == StorageNode::Field)
    return localClassOwner(N);
  const auto *V = dyn_cast_or_null<VarDecl>(N.D);
  const auto *Fn = V ? dyn_cast<FunctionDecl>(V->getDeclContext()) : nullptr;
  bool Named = N.K == StorageNode::Variable || N.K == StorageNode::Parameter ||
               (N.K == StorageNode::Element && N.Closed);
  if (!Named || !V || !V->hasLocalStorage() || V->isStaticLocal() || !Fn)
    return nullptr;
  return Fn;
}

const FunctionDecl *DeviceStorage::localTo(Group &G) {
  const FunctionDecl *Scope = nullptr;
  for (const std::string &K : G.Members) {
    const StorageNode &N = Idx->Nodes[K];
    const FunctionDecl *Fn = localOf(N);
    if (!Fn || isa<ParmVarDecl>(N.D) || (Scope && Scope != Fn))
      return nullptr;
    Scope = Fn;
  }
  return Scope;
}

bool DeviceStorage::copiedOnceForOtherStreams(Group &G) {
  bool AllLocal = localTo(G) != nullptr;
  // Every use of the group is classified, so its copies and launches are
  // all the work on its memory: on one stream they run in the order they
  // are written, whatever other streams do.
  if (G.Stream)
    return true;
  // Work on a stream runs after later statements only while something
  // holds the stream: HeldAt is the group's first copy or launch on one
  // that may be held.
  const Stmt *At = G.HeldAt;
  if (!At)
    return true;
  // Copies of one unchanged value: the order they land in is no matter.
  if (holdsOneValue(G))
    return true;
  // Operation by operation: where no held one may run out of order with
  // a write on another stream, the copies may be many.
  std::optional<std::pair<const Stmt *, std::string>> Disagrees = heldWorkDisagrees(G);
  if (!Disagrees)
    return true;
  // Where that rule names the operation that runs out of order, its
  // message is the refusal's; the group-wide one's otherwise.
  auto RefuseHeld = [&](const Stmt *At, const std::string &GroupWide) {
    if (!Disagrees->second.empty())
      return refuse(G, Disagrees->first, Disagrees->second);
    return refuse(G, At, GroupWide);
  };
  std::string Hold = In.StreamHold ? In.StreamHold() : std::string();
  std::string Why = "this work on '" + G.R.Name + "' is enqueued on a stream that may be held, "
                    "which may run it after later statements (" + Hold + "): it would read '" +
                    G.R.Name + "' then, where the retargeted launch passes it as it is at the "
                               "call, and ";
  if (G.Copies != 1)
    return RefuseHeld(At, Why + "'" + G.R.Name + "' is copied into " + std::to_string(G.Copies) +
                              " times");
  // A copy that runs again (in a loop, or under a goto that may jump
  // back) changes it while launches of an earlier round may wait.
  // A loop that declares the storages anew in each round copies into each
  // once.
  auto DeclaresGroup = [&](const Stmt *P) {
    return AllLocal && llvm::all_of(G.Members, [&](const std::string &K) {
             SourceLocation L = Idx->Nodes[K].D->getLocation();
             return ST.SM.isPointWithin(L, P->getBeginLoc(), P->getEndLoc());
           });
  };
  const Stmt *Loop = nullptr;
  for (const Stmt *P = parent(G.FirstCopyFn, G.FirstCopy); P; P = parent(G.FirstCopyFn, P))
    if (isLoop(P) && !DeclaresGroup(P))
      Loop = P;
  bool Jumps = false;
  std::function<void(const Stmt *)> FindGoto = [&](const Stmt *S) {
    if (!S || Jumps)
      return;
    const auto *GS = dyn_cast<GotoStmt>(S);
    Jumps = isa<IndirectGotoStmt>(S) ||
            (GS && !ST.SM.isBeforeInTranslationUnit(GS->getGotoLoc(),
                                                    GS->getLabel()->getLocation()));
    for (const Stmt *C : S->children())
      FindGoto(C);
  };
  if (!Loop && G.FirstCopyFn)
    FindGoto(G.FirstCopyFn->getBody());
  if (Loop || Jumps)
    return RefuseHeld(At, Why + "the copy into '" + G.R.Name + "' may run more than once (" +
                              (Loop ? "in a loop" : "a goto may jump back to it") + ")");
  // Storage that outlives a call of its function (a static, a global, a
  // member, what a parameter points to) is copied into again by the next
  // call, unless the copy runs only right after the allocation (under the
  // null test that allocates): then each allocation is copied into once.
  if (!AllLocal && !runsOnce(G.FirstCopyFn) && !copiedOnlyWhenAllocated(G))
    return RefuseHeld(At,
                  Why + "the copy into '" + G.R.Name +
                      "' runs again on the next call of '" +
                      (G.FirstCopyFn ? G.FirstCopyFn->getNameAsString() : std::string("?")) +
                      "', which '" + G.R.Name + "' outlives");
  return true;
}

std::vector<DeviceStorage::Veto> DeviceStorage::vetoes() {
  std::vector<Veto> Out;
  const SourceManager &SM = ST.SM;
  for (auto &[Key, N] : Idx->Nodes) {
    if (SM.isInMainFile(SM.getExpansionLoc(N.D->getLocation())))
      continue;
    // Each use on its own: what it joins is that storage's own question.
    Group G;
    G.Members.insert(Key);
    for (const StorageRef &R : N.Uses)
      if (!classifyUse(G, N, R))
        break;
    for (const StorageRef &R : N.Defs)
      if (!G.Why && !classifyDef(G, N, R))
        break;
    if (G.Why)
      Out.push_back({Key, N.Name, *G.Why});
  }
  return Out;
}

} // namespace tma::analysis
