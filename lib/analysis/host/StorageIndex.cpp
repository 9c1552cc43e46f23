// The storage index: one walk over the translation unit that records every
// reference to every storage of a descriptor pointer, every value stored into
// one, and the parents of every function body (DeviceStorage's input).
#include "StorageIndex.h"

#include "../core/CudaApi.h"
#include "../core/GenericLambdas.h"
#include "../core/Types.h"

#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;

namespace tma::analysis {

/// A pointer to a descriptor, or a reference to such a pointer.
bool holdsDescriptorPointer(QualType T) {
  if (const auto *R = T->getAs<ReferenceType>())
    T = R->getPointeeType();
  return isDescriptorPointer(T);
}

bool holdsDeviceAddress(QualType T) {
  if (const auto *R = T->getAs<ReferenceType>())
    T = R->getPointeeType();
  // The typedef chain, by name: CUdeviceptr -> CUdeviceptr_v2 -> integer.
  for (const auto *TT = T->getAs<TypedefType>(); TT;
       TT = TT->getDecl()->getUnderlyingType()->getAs<TypedefType>())
    if (TT->getDecl()->getName() == "CUdeviceptr" || TT->getDecl()->getName() == "CUdeviceptr_v2")
      return true;
  return false;
}

bool holdsDescriptorAddress(QualType T) { return holdsDescriptorPointer(T) || holdsDeviceAddress(T); }

QualType ownedDescriptorDeleter(QualType T) {
  if (T.isNull() || T->isReferenceType())
    return {};
  const auto *Spec =
      dyn_cast_or_null<ClassTemplateSpecializationDecl>(T.getCanonicalType()->getAsCXXRecordDecl());
  if (!Spec || !Spec->isInStdNamespace() || Spec->getName() != "unique_ptr")
    return {};
  const TemplateArgumentList &Args = Spec->getTemplateArgs();
  if (Args.size() != 2 || Args[0].getKind() != TemplateArgument::Type ||
      Args[1].getKind() != TemplateArgument::Type || !isTensorMapRecord(Args[0].getAsType()))
    return {};
  return Args[1].getAsType();
}

bool mayBeDeleter(const CXXRecordDecl *RD) {
  RD = RD ? RD->getDefinition() : nullptr;
  // A lambda is never a deleter the rule follows (deleterCallOf refuses
  // it): its parameters are those of a callable, followed through its calls.
  if (!RD || RD->isLambda())
    return false;
  return llvm::any_of(RD->methods(), [](const CXXMethodDecl *M) {
    return M->getOverloadedOperator() == OO_Call &&
           llvm::any_of(M->parameters(),
                        [](const ParmVarDecl *P) { return holdsDescriptorPointer(P->getType()); });
  });
}

DeleterCall deleterCallOf(QualType D, const SourceText &ST) {
  DeleterCall C;
  QualType T = D.getCanonicalType();
  PrintingPolicy Policy{LangOptions()};
  Policy.SuppressTagKeyword = true;
  std::string Spelled = "'" + D.getAsString(Policy) + "'";
  const CXXRecordDecl *RD = T->getAsCXXRecordDecl();
  if (T->isPointerType() || T->isReferenceType() || T->isFunctionType()) {
    C.WhyNot = "the function its deleter " + Spelled + " points to, a call the tool cannot edit";
  } else if (!RD || !RD->getDefinition()) {
    C.WhyNot = "its deleter " + Spelled + ", which is not a class defined here";
  } else if (RD->isLambda()) {
    C.WhyNot = "a lambda deleter, whose free the tool does not edit (a class with an "
               "'operator()(CUtensorMap *)' it does)";
  } else if (ST.inSystemHeader(RD->getLocation())) {
    C.WhyNot = "the library's deleter " + Spelled + ", which the tool cannot edit" +
               (RD->getName() == "default_delete" ? " (a delete of device memory)" : "");
  }
  if (!C.WhyNot.empty())
    return C;
  RD = RD->getDefinition();
  unsigned Ops = 0;
  for (const Decl *M : RD->decls()) {
    const auto *FD = dyn_cast<FunctionDecl>(M);
    if (const auto *FT = dyn_cast<FunctionTemplateDecl>(M))
      FD = FT->getTemplatedDecl();
    if (FD && FD->getOverloadedOperator() == OO_Call) {
      ++Ops;
      C.Op = isa<FunctionTemplateDecl>(M) ? nullptr : cast<CXXMethodDecl>(FD);
    }
  }
  const FunctionDecl *Def = C.Op ? C.Op->getDefinition() : nullptr;
  if (Ops != 1 || !Def || C.Op->getNumParams() != 1 ||
      !isDescriptorPointer(C.Op->getParamDecl(0)->getType())) {
    C.Op = nullptr;
    C.WhyNot = "its deleter " + Spelled + ", which has no one 'operator()(CUtensorMap *)' whose "
               "body is seen here";
  }
  return C;
}

const CXXConstructExpr *constructionOf(const Expr *E) {
  while (E) {
    E = E->IgnoreParens();
    if (const auto *CE = dyn_cast<CXXConstructExpr>(E))
      return CE;
    if (const auto *EWC = dyn_cast<ExprWithCleanups>(E))
      E = EWC->getSubExpr();
    else if (const auto *BT = dyn_cast<CXXBindTemporaryExpr>(E))
      E = BT->getSubExpr();
    else if (const auto *MT = dyn_cast<MaterializeTemporaryExpr>(E))
      E = MT->getSubExpr();
    else if (const auto *FC = dyn_cast<CXXFunctionalCastExpr>(E))
      E = FC->getSubExpr();
    else if (const auto *IC = dyn_cast<ImplicitCastExpr>(E); IC && IC->getCastKind() == CK_NoOp)
      E = IC->getSubExpr();
    else
      return nullptr;
  }
  return nullptr;
}

std::string StorageIndex::keyAt(char Kind, const Decl *D) const {
  SourcePoint P = ST.point(ST.SM.getExpansionLoc(D->getLocation()));
  return std::string(1, Kind) + ":" + P.File + ":" + std::to_string(P.Offset);
}

static const FunctionDecl *definitionOf(const FunctionDecl *FD) {
  FD = patternOf(FD);
  if (const FunctionDecl *Def = FD->getDefinition())
    return Def;
  return FD;
}

std::string StorageIndex::elementKey(const VarDecl *Container, int64_t Index) const {
  return keyAt('E', Container) + "[" + std::to_string(Index) + "]";
}

/// The library holders of values the storage rule follows by element, and
/// what their slots are: a container indexed by a constant (`std::array`,
/// `std::vector`), or a fixed set of slots (`std::pair`: `first` and
/// `second`; `std::tuple`: `std::get<I>`; `std::optional`: `*o`,
/// `o.value()`). Each row says which accesses name a slot; any other use
/// of the holder may reach every slot (closeContainers).
enum class Holder { None, CArray, Indexed, Pair, Tuple, Optional, Reference };

static Holder holderKind(QualType T) {
  if (const ArrayType *AT = T->getAsArrayTypeUnsafe())
    return holdsDescriptorAddress(AT->getElementType()) ? Holder::CArray : Holder::None;
  const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(T->getAsCXXRecordDecl());
  if (!Spec || !Spec->isInStdNamespace())
    return Holder::None;
  llvm::StringRef Name = Spec->getName();
  const TemplateArgumentList &Args = Spec->getTemplateArgs();
  auto SlotHolds = [&](unsigned I) {
    return I < Args.size() && Args[I].getKind() == TemplateArgument::Type &&
           holdsDescriptorAddress(Args[I].getAsType());
  };
  if (Name == "vector" || Name == "array")
    return SlotHolds(0) ? Holder::Indexed : Holder::None;
  if (Name == "optional")
    return SlotHolds(0) ? Holder::Optional : Holder::None;
  if (Name == "reference_wrapper")
    return SlotHolds(0) ? Holder::Reference : Holder::None;
  if (Name == "pair")
    return SlotHolds(0) || SlotHolds(1) ? Holder::Pair : Holder::None;
  if (Name == "tuple" && Args.size() == 1 && Args[0].getKind() == TemplateArgument::Pack)
    for (const TemplateArgument &A : Args[0].pack_elements())
      if (A.getKind() == TemplateArgument::Type && holdsDescriptorAddress(A.getAsType()))
        return Holder::Tuple;
  return Holder::None;
}

/// A local array, or a library holder (holderKind) of descriptor pointers.
static bool isPointerContainer(const VarDecl *V) { return holderKind(V->getType()) != Holder::None; }

/// The holder variable \p E names, directly.
static const VarDecl *holderNamed(const Expr *E, const DeclRefExpr *&Ref) {
  Ref = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
  const auto *V = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  return V && isPointerContainer(V) ? V : nullptr;
}

/// How the code names slot \p At of holder \p V, for messages.
static std::string slotName(const VarDecl *V, int64_t At) {
  if (const auto *DD = dyn_cast<DecompositionDecl>(V); DD && At < int64_t(DD->bindings().size()))
    return DD->bindings()[At]->getNameAsString();
  std::string N = V->getNameAsString();
  switch (holderKind(V->getType())) {
  case Holder::Pair:
    return N + (At == 0 ? ".first" : ".second");
  case Holder::Tuple:
    return "std::get<" + std::to_string(At) + ">(" + N + ")";
  case Holder::Optional:
    return "*" + N;
  case Holder::Reference:
    return N + ".get()";
  default:
    return N + "[" + std::to_string(At) + "]";
  }
}

std::optional<HolderSlot> holderSlotOf(const Expr *E, ASTContext &Ctx) {
  HolderSlot S;
  auto Constant = [&](const Expr *Index) -> std::optional<int64_t> {
    Expr::EvalResult K;
    if (Index->isValueDependent() || !Index->EvaluateAsInt(K, Ctx))
      return std::nullopt;
    return K.Val.getInt().getExtValue();
  };
  auto Found = [&](const Expr *Base, std::optional<int64_t> At,
                   std::initializer_list<Holder> Kinds) -> std::optional<HolderSlot> {
    S.Container = holderNamed(Base, S.Ref);
    if (!S.Container || !At || !llvm::is_contained(Kinds, holderKind(S.Container->getType())))
      return std::nullopt;
    S.Index = *At;
    return S;
  };
  if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E))
    return Found(AS->getBase(), Constant(AS->getIdx()), {Holder::CArray});
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(E)) {
    if (OC->getOperator() == OO_Subscript && OC->getNumArgs() == 2)
      return Found(OC->getArg(0), Constant(OC->getArg(1)), {Holder::Indexed});
    if (OC->getOperator() == OO_Star && OC->getNumArgs() == 1)
      return Found(OC->getArg(0), 0, {Holder::Optional});
    return std::nullopt;
  }
  if (const auto *ME = dyn_cast<MemberExpr>(E)) {
    const auto *F = dyn_cast<FieldDecl>(ME->getMemberDecl());
    if (!F || ME->isArrow())
      return std::nullopt;
    std::optional<int64_t> At;
    if (F->getName() == "first")
      At = 0;
    else if (F->getName() == "second")
      At = 1;
    return Found(ME->getBase(), At, {Holder::Pair});
  }
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *M = MC->getMethodDecl();
    if (!M || MC->getNumArgs() != 0)
      return std::nullopt;
    // `w.get()` and the conversion `T &` of a std::reference_wrapper.
    if (isa<CXXConversionDecl>(M) || (M->getIdentifier() && M->getName() == "get"))
      return Found(MC->getImplicitObjectArgument(), 0, {Holder::Reference});
    if (M->getIdentifier() && M->getName() == "value")
      return Found(MC->getImplicitObjectArgument(), 0, {Holder::Optional});
    return std::nullopt;
  }
  // `auto [p, n] = std::pair<CUtensorMap *, int>(d, 0);`: `p` names a slot
  // of the hidden holder the declaration makes.
  if (const auto *R = dyn_cast<DeclRefExpr>(E))
    if (const auto *B = dyn_cast<BindingDecl>(R->getDecl()))
      if (const auto *DD = dyn_cast_or_null<DecompositionDecl>(B->getDecomposedDecl());
          DD && isPointerContainer(DD) && holderKind(DD->getType()) != Holder::Optional &&
          holderKind(DD->getType()) != Holder::Reference) {
        S.Container = DD;
        S.Ref = nullptr;
        S.Index = llvm::find(DD->bindings(), B) - DD->bindings().begin();
        return S;
      }
  if (const auto *CE = dyn_cast<CallExpr>(E)) {
    // std::get<I>(holder)
    const FunctionDecl *FD = CE->getDirectCallee();
    if (!FD || !FD->isInStdNamespace() || !FD->getIdentifier() || FD->getName() != "get" ||
        CE->getNumArgs() != 1)
      return std::nullopt;
    const TemplateArgumentList *Args = FD->getTemplateSpecializationArgs();
    if (!Args || Args->size() == 0 || Args->get(0).getKind() != TemplateArgument::Integral)
      return std::nullopt;
    return Found(CE->getArg(0), Args->get(0).getAsIntegral().getExtValue(),
                 {Holder::Pair, Holder::Tuple, Holder::Indexed});
  }
  return std::nullopt;
}

/// A call on a holder that reads none of its slots' values and changes
/// nothing: `o.has_value()`, `bool(o)` of a `std::optional`; `size()`,
/// `empty()` of a `std::vector` or `std::array`. The holder's reference.
static const DeclRefExpr *holderQueryOf(const Expr *E) {
  const auto *MC = dyn_cast<CXXMemberCallExpr>(E);
  const CXXMethodDecl *M = MC ? MC->getMethodDecl() : nullptr;
  if (!M || MC->getNumArgs() != 0 || !M->isConst())
    return nullptr;
  const DeclRefExpr *Ref;
  const VarDecl *V = holderNamed(MC->getImplicitObjectArgument(), Ref);
  if (!V)
    return nullptr;
  Holder K = holderKind(V->getType());
  bool Query = false;
  if (K == Holder::Optional)
    Query = isa<CXXConversionDecl>(M) || (M->getIdentifier() && M->getName() == "has_value");
  else if (K == Holder::Indexed)
    Query = M->getIdentifier() && llvm::is_contained({"size", "empty", "max_size"}, M->getName());
  return Query ? Ref : nullptr;
}

std::vector<std::pair<int64_t, const Expr *>> holderInitialisers(const VarDecl *V) {
  std::vector<std::pair<int64_t, const Expr *>> Out;
  Holder K = holderKind(V->getType());
  const Expr *Init = V->getInit();
  if (K == Holder::None || !Init)
    return Out;
  Init = Init->IgnoreImplicit();
  if (const auto *IL = dyn_cast<InitListExpr>(Init)) {
    // `CUtensorMap *maps[2] = {d, e};`; `std::array<CUtensorMap *, 2> a{d, e}`
    // is an aggregate whose one field is the array (brace elision).
    if (K == Holder::Indexed && V->getType()->isRecordType() && IL->getNumInits() == 1)
      IL = dyn_cast<InitListExpr>(IL->getInit(0)->IgnoreImplicit());
    if (!IL || !IL->getType()->isConstantArrayType() || (K != Holder::CArray && K != Holder::Indexed))
      return Out;
    for (unsigned At = 0; At < IL->getNumInits(); ++At)
      if (!isa<ImplicitValueInitExpr>(IL->getInit(At)))
        Out.push_back({At, IL->getInit(At)});
    return Out;
  }
  // `std::reference_wrapper<CUtensorMap *> w = std::ref(d)`: the slot is
  // `d` itself, a name of the same storage.
  if (const auto *Call = dyn_cast<CallExpr>(Init); Call && K == Holder::Reference) {
    const FunctionDecl *FD = Call->getDirectCallee();
    if (FD && FD->isInStdNamespace() && FD->getIdentifier() &&
        (FD->getName() == "ref" || FD->getName() == "cref") && Call->getNumArgs() == 1 &&
        holdsDescriptorAddress(Call->getArg(0)->getType()))
      Out.push_back({0, Call->getArg(0)});
    return Out;
  }
  // `std::pair<CUtensorMap *, int> p{d, 0}`, `std::tuple<int, CUtensorMap *> t{0, d}`,
  // `std::optional<CUtensorMap *> o = d`: the library's constructor from
  // one value per slot stores each argument into its slot.
  const auto *CE = dyn_cast<CXXConstructExpr>(Init);
  if (!CE || (K != Holder::Pair && K != Holder::Tuple && K != Holder::Optional && K != Holder::Reference) ||
      !CE->getConstructor() || CE->getConstructor()->isCopyOrMoveConstructor())
    return Out;
  // One argument per slot, each slot of a descriptor pointer given one (not
  // a converting, in-place or piecewise constructor).
  std::vector<QualType> Slots;
  const auto *Spec = cast<ClassTemplateSpecializationDecl>(V->getType()->getAsCXXRecordDecl());
  for (const TemplateArgument &A : Spec->getTemplateArgs().asArray()) {
    if (A.getKind() == TemplateArgument::Pack)
      for (const TemplateArgument &P : A.pack_elements())
        Slots.push_back(P.getKind() == TemplateArgument::Type ? P.getAsType() : QualType());
    else if (A.getKind() == TemplateArgument::Type)
      Slots.push_back(A.getAsType());
  }
  if (CE->getNumArgs() != Slots.size())
    return Out;
  for (unsigned At = 0; At < CE->getNumArgs(); ++At) {
    const Expr *A = CE->getArg(At);
    bool Slot = !Slots[At].isNull() && holdsDescriptorAddress(Slots[At]);
    if (isa<CXXDefaultArgExpr>(A) || (Slot && !holdsDescriptorAddress(A->getType())))
      return {};
    if (Slot)
      Out.push_back({At, A});
  }
  return Out;
}

std::string StorageIndex::variableKey(const VarDecl *V) const {
  if (const auto *PV = dyn_cast<ParmVarDecl>(V))
    if (const auto *FD = dyn_cast<FunctionDecl>(PV->getDeclContext()))
      return parameterKey(FD, PV->getFunctionScopeIndex());
  if (const VarDecl *Def = V->getDefinition())
    V = Def;
  return keyAt('V', V);
}

std::string StorageIndex::parameterKey(const FunctionDecl *FD, unsigned I) const {
  const FunctionDecl *Def = definitionOf(FD);
  if (I >= Def->getNumParams())
    return keyAt('P', FD) + "#" + std::to_string(I);
  return keyAt('P', Def->getParamDecl(I));
}

std::string StorageIndex::fieldKey(const FieldDecl *F) const { return keyAt('F', F); }

std::string StorageIndex::resultKey(const FunctionDecl *FD) const {
  return keyAt('R', patternOf(FD)->getFirstDecl());
}

StorageNode &StorageIndex::node(const std::string &Key, StorageNode::Kind K, const Decl *D,
                                std::string Name) {
  StorageNode &N = Nodes[Key];
  if (!N.D) {
    N.K = K;
    N.D = D;
    N.Name = std::move(Name);
  }
  return N;
}

const Stmt *StorageIndex::parent(const FunctionDecl *Fn, const Stmt *S) {
  if (!Fn)
    return nullptr;
  auto It = Parents.find(Fn);
  if (It == Parents.end()) {
    auto PM = std::make_unique<ParentMap>(const_cast<Stmt *>(Fn->getBody()));
    if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(Fn))
      for (const CXXCtorInitializer *Init : Ctor->inits())
        if (Init->isWritten() && Init->getInit())
          PM->addStmt(Init->getInit());
    It = Parents.emplace(Fn, std::move(PM)).first;
  }
  return It->second->getParent(S);
}

/// The records whose descriptor-pointer fields an object of type \p T
/// holds (directly, or in fields of record type), into \p Out.
static void recordsHolding(QualType T, std::vector<const RecordDecl *> &Out, unsigned Depth = 0) {
  T = T.getNonReferenceType();
  while (T->isPointerType() || T->isArrayType())
    T = T->isPointerType() ? T->getPointeeType() : QualType(T->getPointeeOrArrayElementType(), 0);
  const auto *RD = T->getAsRecordDecl();
  if (!RD || !RD->getDefinition() || Depth > 3)
    return;
  RD = RD->getDefinition();
  for (const FieldDecl *F : RD->fields()) {
    if (holdsDescriptorAddress(F->getType()) || !ownedDescriptorDeleter(F->getType()).isNull())
      Out.push_back(RD);
    else
      recordsHolding(F->getType(), Out, Depth + 1);
  }
  if (const auto *CRD = dyn_cast<CXXRecordDecl>(RD)) {
    for (const CXXBaseSpecifier &B : CRD->bases())
      recordsHolding(B.getType(), Out, Depth + 1);
    // A container of them (std::vector<Entry>, std::unordered_map<K, Entry>).
    if (const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(CRD))
      for (const TemplateArgument &A : Spec->getTemplateArgs().asArray())
        if (A.getKind() == TemplateArgument::Type)
          recordsHolding(A.getAsType(), Out, Depth + 1);
  }
}

namespace {

class Indexer : public RecursiveASTVisitor<Indexer> {
public:
  explicit Indexer(StorageIndex &I) : I(I) {}
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitImplicitCode() const { return false; }

  bool TraverseDecl(Decl *D) {
    if (!D)
      return true;
    if (!isa<TranslationUnitDecl, NamespaceDecl, LinkageSpecDecl>(D) &&
        I.ST.inSystemHeader(D->getLocation()))
      return true;
    auto *FD = dyn_cast<FunctionDecl>(D);
    // A template's pattern is dependent: its instantiations are walked.
    if (FD && FD->isDependentContext() && !isa<CXXMethodDecl>(FD->getDeclContext()))
      return true;
    if (FD && FD->isDependentContext())
      return true;
    bool Push = FD && FD->doesThisDeclarationHaveABody();
    if (Push) {
      Stack.push_back(FD);
      Innermost.push_back(FD);
      if (holdsDescriptorAddress(FD->getReturnType()) && !isKernel(FD))
        I.node(I.resultKey(FD), StorageNode::Result, FD, FD->getQualifiedNameAsString());
      else if (FD->getTemplateInstantiationPattern())
        I.OtherInstantiationType.emplace(I.resultKey(FD), FD->getReturnType().getAsString());
    }
    bool R = RecursiveASTVisitor::TraverseDecl(D);
    if (Push) {
      Stack.pop_back();
      Innermost.pop_back();
    }
    return R;
  }

  bool TraverseLambdaExpr(LambdaExpr *LE) {
    if (std::optional<bool> Walked = traverseInstantiationsOf(*this, LE))
      return *Walked;
    Innermost.push_back(LE->getCallOperator());
    bool R = RecursiveASTVisitor::TraverseLambdaExpr(LE);
    Innermost.pop_back();
    return R;
  }

  bool TraverseConstructorInitializer(CXXCtorInitializer *Init) {
    if (Init->isWritten() && Init->getMember() && holdsDescriptorAddress(Init->getMember()->getType()))
      fieldNode(Init->getMember()).Defs.push_back({Init->getInit(), top()});
    if (Init->isWritten() && Init->getMember() && isOwner(Init->getMember())) {
      ownerNode(Init->getMember()).Defs.push_back({Init->getInit(), top()});
      initialises(Init->getInit(), I.fieldKey(Init->getMember()));
    }
    return RecursiveASTVisitor::TraverseConstructorInitializer(Init);
  }

  bool VisitDeclRefExpr(DeclRefExpr *R) {
    if (isa<BindingDecl>(R->getDecl()))
      element(R);
    if (const auto *V = dyn_cast<VarDecl>(R->getDecl()); V && holdsDescriptorAddress(V->getType()))
      variableNode(V).Uses.push_back({R, top()});
    if (const auto *V = dyn_cast<VarDecl>(R->getDecl()); V && isOwner(V))
      ownerNode(V).Uses.push_back({R, top()});
    if (const auto *V = dyn_cast<VarDecl>(R->getDecl()); V && isPointerContainer(V))
      ContainerRefs[V].push_back(R);
    if (const auto *FD = dyn_cast<FunctionDecl>(R->getDecl()))
      FunctionRefs.push_back({R, FD});
    if (const auto *FD = dyn_cast<FunctionDecl>(R->getDecl()))
      I.FunctionUses[FD->getCanonicalDecl()].push_back({R, top()});
    return true;
  }

  /// `Holder s = {d};`: braces that give a field a value are a definition
  /// of that field, as an assignment would be (the semantic form, once).
  bool VisitInitListExpr(InitListExpr *IL) {
    const InitListExpr *Sem = IL->isSemanticForm() ? IL : IL->getSemanticForm();
    if (!Sem || !SeenInitLists.insert(Sem).second)
      return true;
    const auto *RD = Sem->getType()->getAsCXXRecordDecl();
    if (!RD || RD->isUnion())
      return true;
    unsigned Slot = RD->getNumBases();
    for (const FieldDecl *F : RD->fields()) {
      if (Slot < Sem->getNumInits() && holdsDescriptorAddress(F->getType()) &&
          !isa<ImplicitValueInitExpr>(Sem->getInit(Slot)))
        fieldNode(F).Defs.push_back({Sem->getInit(Slot), top()});
      ++Slot;
    }
    return true;
  }
  std::set<const InitListExpr *> SeenInitLists;

  bool VisitMemberExpr(MemberExpr *ME) {
    // `p.first` of a local `std::pair`: its element, not the library's field.
    if (holderSlotOf(ME, I.Ctx)) {
      element(ME);
      return true;
    }
    if (const auto *F = dyn_cast<FieldDecl>(ME->getMemberDecl());
        F && holdsDescriptorAddress(F->getType()))
      fieldNode(F).Uses.push_back({ME, top()});
    if (const auto *F = dyn_cast<FieldDecl>(ME->getMemberDecl()); F && isOwner(F))
      ownerNode(F).Uses.push_back({ME, top()});
    return true;
  }

  bool VisitCallExpr(CallExpr *CE) {
    element(CE); // `a[0]` of a std::array, `std::get<1>(t)`, `*o`, `o.value()`
    handedToLibrary(CE->getDirectCallee());
    if (const auto *Callee = dyn_cast<DeclRefExpr>(CE->getCallee()->IgnoreParenImpCasts()))
      CalleeRefs.insert(Callee);
    const FunctionDecl *FD = CE->getDirectCallee();
    if (const CudaApi *Api = cudaApiOf(CE); Api && Api->Role == ApiRole::GraphCapture)
      I.GraphCalls.push_back({CE, top()});
    for (const Expr *A : CE->arguments()) {
      // Code that is not seen may read or change the object; so may any
      // callee that takes it as raw memory (memcpy, memset, cudaMemcpy).
      const auto *Raw = dyn_cast<ImplicitCastExpr>(A);
      if (!FD || (!FD->hasBody() && !I.ST.inSystemHeader(FD->getLocation())))
        escapes(A);
      else if (Raw && Raw->getType()->isVoidPointerType())
        escapes(Raw->getSubExpr());
    }
    if (!FD || I.ST.inSystemHeader(FD->getLocation()))
      return true;
    if (holdsDescriptorAddress(FD->getReturnType()) && !isKernel(FD))
      I.node(I.resultKey(FD), StorageNode::Result, FD, FD->getQualifiedNameAsString())
          .Uses.push_back({CE, top()});
    unsigned Offset = isa<CXXOperatorCallExpr>(CE) && isa<CXXMethodDecl>(FD) ? 1 : 0;
    for (unsigned A = Offset; A < CE->getNumArgs(); ++A)
      paramDef(FD, A - Offset, CE->getArg(A));
    return true;
  }

  bool VisitCXXConstructExpr(CXXConstructExpr *CE) {
    handedToLibrary(CE->getConstructor());
    if (QualType Del = ownedDescriptorDeleter(CE->getType()); !Del.isNull())
      OwnerConstructions.push_back({CE, Del});
    const CXXConstructorDecl *Ctor = CE->getConstructor();
    if (!Ctor || I.ST.inSystemHeader(Ctor->getLocation()))
      return true;
    if (!Ctor->hasBody() && !Ctor->isImplicit())
      for (const Expr *A : CE->arguments())
        escapes(A);
    for (unsigned A = 0; A < CE->getNumArgs(); ++A)
      paramDef(Ctor, A, CE->getArg(A));
    return true;
  }

  bool VisitReturnStmt(ReturnStmt *RS) {
    const FunctionDecl *Fn = Innermost.empty() ? nullptr : Innermost.back();
    if (Fn && RS->getRetValue() && holdsDescriptorAddress(Fn->getReturnType()))
      I.node(I.resultKey(Fn), StorageNode::Result, Fn, Fn->getQualifiedNameAsString())
          .Defs.push_back({RS->getRetValue(), top()});
    return true;
  }

  bool VisitVarDecl(VarDecl *V) {
    declaredStorage(V, I.variableKey(V), V->getInit(), top(), !isa<ParmVarDecl>(V));
    initialisedElements(V);
    return true;
  }

  /// `CUtensorMap *maps[2] = {d, nullptr};`, `std::pair<CUtensorMap *, int>
  /// p{d, 0}`: each initialiser is a value stored into its element, which
  /// is a storage of its own (element), so `maps[0]` and `d` join one group.
  void initialisedElements(const VarDecl *V) {
    std::vector<std::pair<int64_t, const Expr *>> Inits = holderInitialisers(V);
    // A holder made from another (a copy, a factory's result, std::nullopt)
    // holds values the tool does not split into its slots.
    const Expr *Init = V->getInit() ? V->getInit()->IgnoreImplicit() : nullptr;
    const auto *CE = dyn_cast_or_null<CXXConstructExpr>(Init);
    auto Carries = [&](const Expr *A) {
      const Expr *Bare = A->IgnoreImplicit();
      if (isa<CXXDefaultArgExpr>(Bare)) // the allocator
        return false;
      if (isa<CXXStdInitializerListExpr>(Bare) || A->getType()->isRecordType())
        return true;
      return holdsDescriptorAddress(A->getType()) &&
             Bare->isNullPointerConstant(I.Ctx, Expr::NPC_ValueDependentIsNotNull) ==
                 Expr::NPCK_NotNull;
    };
    bool Plain = CE && !CE->getConstructor()->isCopyOrMoveConstructor() &&
                 llvm::none_of(CE->arguments(), Carries); // `std::vector<T *> v(2, nullptr)`
    if (Init && Inits.empty() && isPointerContainer(V) && !Plain && !isa<InitListExpr>(Init))
      OpenInit.emplace(V, "'" + V->getNameAsString() + "' is initialised by a value the tool does "
                          "not split into its elements");
    for (auto [At, Init] : Inits) {
      if (!holdsDescriptorAddress(Init->getType()))
        continue;
      std::string Key = I.elementKey(V, At);
      I.node(Key, StorageNode::Element, V, slotName(V, At)).Defs.push_back({Init, top()});
      I.ElementInits.emplace(Init, Key);
      ElementsOf[V].insert(Key);
    }
    // The braces of a `std::array` are the library's field: the elements
    // above stand for it.
    if (const auto *IL = dyn_cast_or_null<InitListExpr>(V->getInit() ? V->getInit()->IgnoreImplicit() : nullptr);
        IL && V->getType()->isRecordType() && isPointerContainer(V))
      SeenInitLists.insert(IL->isSemanticForm() ? IL : IL->getSemanticForm());
  }

  bool VisitFieldDecl(FieldDecl *F) {
    const Expr *Init = F->hasInClassInitializer() ? F->getInClassInitializer() : nullptr;
    declaredStorage(F, I.fieldKey(F), Init, nullptr, true);
    return true;
  }

  StorageNode &storageNode(VarDecl *V) { return variableNode(V); }
  StorageNode &storageNode(FieldDecl *F) { return fieldNode(F); }

  /// A variable or field \p D (keyed \p Key, initialised by \p Init in
  /// \p At): an owner, joined to its deleter, or, when it holds a
  /// descriptor's address and \p Stores (not a parameter: its values are
  /// its callers' arguments), a storage whose initialiser is a value.
  template <class DeclT>
  void declaredStorage(DeclT *D, const std::string &Key, const Expr *Init, const FunctionDecl *At,
                       bool Stores) {
    if (isOwner(D)) {
      StorageNode &N = ownerNode(D);
      if (Init) {
        N.Defs.push_back({Init, At});
        initialises(Init, Key);
      }
      linkDeleter(Key, ownedDescriptorDeleter(D->getType()), D->getLocation());
      return;
    }
    ownersElsewhere(D->getType(), D->getLocation());
    if (!holdsDescriptorAddress(D->getType()) && inInstantiation(D))
      I.OtherInstantiationType.emplace(Key, D->getType().getAsString());
    if (!Stores || !holdsDescriptorAddress(D->getType()))
      return;
    StorageNode &N = storageNode(D);
    if (Init)
      N.Defs.push_back({Init, At});
  }

  /// Functions named other than as a direct callee: their calls are unseen.
  bool VisitArraySubscriptExpr(ArraySubscriptExpr *E) {
    element(E);
    return true;
  }


  /// A template argument that is a possible deleter, or an owner with one,
  /// of any template but the owner itself: that template's code may call
  /// the deleter where the tool does not see.
  bool VisitTemplateSpecializationTypeLoc(TemplateSpecializationTypeLoc TL) {
    const auto *TST = TL.getTypePtr();
    const CXXRecordDecl *Own = deleterRecord(ownedDescriptorDeleter(QualType(TST, 0)));
    for (const TemplateArgument &A : TST->template_arguments()) {
      if (A.getKind() != TemplateArgument::Type)
        continue;
      const CXXRecordDecl *D = deleterRecord(A.getAsType());
      if (!D)
        D = deleterRecord(ownedDescriptorDeleter(A.getAsType()));
      if (D && D != Own)
        I.DeleterElsewhere.emplace(D, TL.getBeginLoc());
    }
    return true;
  }

  /// An object of a possible deleter's class, outside the class's own
  /// members: where it goes decides whether its operator() is seen.
  bool VisitExpr(Expr *E) {
    // Some dependent expressions (a substituted pack) have no type.
    if (E->getType().isNull() || E->isTypeDependent())
      return true;
    const CXXRecordDecl *D = deleterRecord(E->getType().getNonReferenceType());
    const auto *InMember = Innermost.empty() ? nullptr : dyn_cast<CXXMethodDecl>(Innermost.back());
    if (D && !(InMember && InMember->getParent()->getCanonicalDecl() == D))
      I.DeleterObjects[D].push_back({E, top()});
    return true;
  }

  bool VisitCXXRecordDecl(CXXRecordDecl *RD) {
    if (RD->hasDefinition())
      for (const CXXBaseSpecifier &B : RD->getDefinition()->bases())
        if (const CXXRecordDecl *Base = B.getType()->getAsCXXRecordDecl())
          I.DerivedFrom.emplace(Base->getCanonicalDecl(), RD->getCanonicalDecl());
    return true;
  }

  void finish() {
    for (auto &[R, FD] : FunctionRefs)
      if (!CalleeRefs.count(R))
        I.AddressTaken.insert(patternOf(FD)->getFirstDecl());
    I.DirectCalls.insert(CalleeRefs.begin(), CalleeRefs.end());
    closeContainers();
    // One instantiation's type for a shared storage closes it for all.
    for (auto &[Key, Type] : I.OtherInstantiationType)
      if (auto It = I.Nodes.find(Key); It != I.Nodes.end() && It->second.Closed) {
        It->second.Closed = false;
        It->second.WhyOpen = "'" + It->second.Name +
                             "' is declared in a template, and one instantiation gives it the "
                             "type '" + Type + "', which an edit of the shared text would change too";
      }
    // An owner made other than as an owner storage's initialiser (a
    // temporary, an element of an array, a heap object) is destroyed where
    // the tool does not follow it, with a pointer it does not follow.
    for (auto &[CE, Del] : OwnerConstructions)
      if (!I.OwnerInits.count(CE))
        if (const CXXRecordDecl *D = deleterRecord(Del))
          I.DeleterElsewhere.emplace(D, CE->getBeginLoc());
  }

private:
  StorageIndex &I;
  std::vector<const FunctionDecl *> Stack, Innermost;
  std::vector<std::pair<const DeclRefExpr *, const FunctionDecl *>> FunctionRefs;
  std::set<const DeclRefExpr *> CalleeRefs;

  const FunctionDecl *top() const { return Stack.empty() ? nullptr : Stack.back(); }

  /// \p D is declared in an instantiation of a template (a function, a
  /// class, a generic lambda's call operator): its text is the pattern's.
  static bool inInstantiation(const Decl *D) {
    for (const DeclContext *C = D->getDeclContext(); C; C = C->getParent()) {
      if (const auto *FD = dyn_cast<FunctionDecl>(C); FD && FD->getTemplateInstantiationPattern())
        return true;
      if (const auto *CS = dyn_cast<ClassTemplateSpecializationDecl>(C);
          CS && CS->getSpecializationKind() != TSK_ExplicitSpecialization)
        return true;
    }
    return false;
  }

  /// A library template \p FD (a specialization, or a member of one) whose
  /// template arguments name user classes: it may construct or call them.
  void handedToLibrary(const FunctionDecl *FD) {
    if (!FD || !I.ST.inSystemHeader(FD->getLocation()))
      return;
    // A descriptor owner's members call its deleter only as the owner
    // rule follows (its destructor); the rule checks that deleter itself.
    const auto *CS = dyn_cast<ClassTemplateSpecializationDecl>(FD->getDeclContext());
    if (CS && !ownedDescriptorDeleter(I.Ctx.getCanonicalTagType(CS)).isNull())
      return;
    std::vector<const TemplateArgumentList *> Lists;
    if (const TemplateArgumentList *Args = FD->getTemplateSpecializationArgs())
      Lists.push_back(Args);
    if (CS)
      Lists.push_back(&CS->getTemplateArgs());
    for (const TemplateArgumentList *Args : Lists)
      for (const TemplateArgument &A : Args->asArray())
        if (A.getKind() == TemplateArgument::Type)
          handedType(A.getAsType(), FD);
  }
  void handedType(QualType T, const FunctionDecl *FD) {
    T = T.getNonReferenceType();
    while (T->isPointerType())
      T = T->getPointeeType();
    const CXXRecordDecl *RD = T->getAsCXXRecordDecl();
    if (RD && !I.ST.inSystemHeader(RD->getLocation()))
      I.LibraryHandled.emplace(RD->getCanonicalDecl(), FD->getQualifiedNameAsString());
  }

  /// The references of each container of descriptor pointers, those that
  /// name one element at a constant index, and its element storages.
  std::map<const VarDecl *, std::vector<const DeclRefExpr *>> ContainerRefs;
  std::set<const DeclRefExpr *> ElementRefs;
  std::map<const VarDecl *, std::set<std::string>> ElementsOf;
  /// Holders whose initialiser is not split into slots, and why.
  std::map<const VarDecl *, std::string> OpenInit;

  /// `maps[0]`, `std::get<1>(t)`, `p.first`, `*o`: one element of a
  /// container, a storage of its own. A query that reads no slot
  /// (holderQueryOf: `o.has_value()`, `v.size()`) is no other use.
  void element(const Expr *E) {
    if (const DeclRefExpr *Q = holderQueryOf(E)) {
      ElementRefs.insert(Q);
      return;
    }
    std::optional<HolderSlot> S = holderSlotOf(E, I.Ctx);
    if (!S)
      return;
    const VarDecl *V = S->Container;
    std::string Key = I.elementKey(V, S->Index);
    I.node(Key, StorageNode::Element, V, slotName(V, S->Index)).Uses.push_back({E, top()});
    ElementRefs.insert(S->Ref);
    ElementsOf[V].insert(Key);
  }

  /// An element is a storage only while its container is a local variable
  /// used by nothing but constant indexes: anything else (a call, a loop
  /// over it, `data()`, a run-time index) may reach every element.
  void closeContainers() {
    for (auto &[V, Keys] : ElementsOf) {
      std::string Why;
      if (!V->hasLocalStorage() || V->isStaticLocal() || isa<ParmVarDecl>(V))
        Why = "'" + V->getNameAsString() + "' is not a local variable";
      if (auto It = OpenInit.find(V); Why.empty() && It != OpenInit.end())
        Why = It->second;
      for (const DeclRefExpr *R : ContainerRefs[V])
        if (Why.empty() && !ElementRefs.count(R))
          Why = "'" + V->getNameAsString() + "' is used other than by a constant index, which "
                "may reach any of its elements";
      if (!Why.empty())
        for (const std::string &Key : Keys) {
          I.Nodes[Key].Closed = false;
          I.Nodes[Key].WhyOpen = Why;
        }
    }
  }

  void escapes(const Expr *A) {
    std::vector<const RecordDecl *> Held;
    recordsHolding(A->getType(), Held);
    for (const RecordDecl *RD : Held)
      I.RecordEscapes.emplace(RD, A);
  }

  StorageNode &variableNode(const VarDecl *V) {
    bool Param = isa<ParmVarDecl>(V);
    return I.node(I.variableKey(V), Param ? StorageNode::Parameter : StorageNode::Variable, V,
                  V->getNameAsString());
  }
  /// The owners of a descriptor: variables (not parameters) and fields.
  static bool isOwner(const ValueDecl *D) {
    return !isa<ParmVarDecl>(D) && !ownedDescriptorDeleter(D->getType()).isNull();
  }
  StorageNode &ownerNode(const ValueDecl *D) {
    if (const auto *F = dyn_cast<FieldDecl>(D))
      return I.node(I.fieldKey(F), StorageNode::Owner, F,
                    F->getParent()->getNameAsString() + "::" + F->getNameAsString());
    return I.node(I.variableKey(cast<VarDecl>(D)), StorageNode::Owner, D, D->getNameAsString());
  }

  /// The owner's destructor calls its deleter's operator() with the owned
  /// pointer: the owner and that parameter are one storage's two names. A
  /// deleter the tool cannot follow leaves the owner open, saying why.
  void linkDeleter(const std::string &OwnerKey, QualType Del, SourceLocation At) {
    if (!Linked.insert(OwnerKey).second)
      return;
    StorageNode &O = I.Nodes[OwnerKey];
    DeleterCall C = deleterCallOf(Del, I.ST);
    if (!C.Op) {
      O.Closed = false;
      O.WhyOpen = "'" + O.Name + "' frees the device copy through " + C.WhyNot;
      return;
    }
    const ParmVarDecl *PV = definitionOf(C.Op)->getParamDecl(0);
    std::string ParamKey = I.parameterKey(C.Op, 0);
    I.node(ParamKey, StorageNode::Parameter, PV, PV->getNameAsString()).Peers.push_back({OwnerKey, At});
    O.Peers.push_back({ParamKey, At});
  }

  /// A declaration whose type holds owners without being one (an array of
  /// owners): their deleter runs where the tool does not follow them.
  void ownersElsewhere(QualType T, SourceLocation At) {
    T = T.getNonReferenceType();
    while (T->isArrayType() || T->isPointerType())
      T = T->isPointerType() ? T->getPointeeType() : QualType(T->getPointeeOrArrayElementType(), 0);
    if (const CXXRecordDecl *D = deleterRecord(ownedDescriptorDeleter(T)))
      I.DeleterElsewhere.emplace(D, At);
  }

  /// The class of \p T when it may be a deleter, canonical; else null.
  const CXXRecordDecl *deleterRecord(QualType T) {
    if (T.isNull())
      return nullptr;
    const CXXRecordDecl *RD = T.getCanonicalType()->getAsCXXRecordDecl();
    if (!RD)
      return nullptr;
    RD = RD->getCanonicalDecl();
    auto It = MayDelete.find(RD);
    if (It == MayDelete.end())
      It = MayDelete.emplace(RD, mayBeDeleter(RD)).first;
    return It->second ? RD : nullptr;
  }

  std::set<std::string> Linked;
  std::map<const CXXRecordDecl *, bool> MayDelete;
  std::vector<std::pair<const CXXConstructExpr *, QualType>> OwnerConstructions;
  void initialises(const Expr *Init, std::string OwnerKey) {
    if (const CXXConstructExpr *CE = constructionOf(Init))
      I.OwnerInits.emplace(CE, std::move(OwnerKey));
  }

  StorageNode &fieldNode(const FieldDecl *F) {
    return I.node(I.fieldKey(F), StorageNode::Field, F,
                  F->getParent()->getNameAsString() + "::" + F->getNameAsString());
  }
  void paramDef(const FunctionDecl *FD, unsigned P, const Expr *Arg) {
    if (P >= FD->getNumParams() || !holdsDescriptorAddress(FD->getParamDecl(P)->getType()) ||
        isKernel(FD))
      return;
    const ParmVarDecl *PV = definitionOf(FD)->getParamDecl(P);
    I.node(I.parameterKey(FD, P), StorageNode::Parameter, PV, PV->getNameAsString())
        .Defs.push_back({Arg, top()});
  }
};

} // namespace

StorageIndex::StorageIndex(ASTContext &Ctx, const SourceText &ST) : Ctx(Ctx), ST(ST) {
  Indexer V(*this);
  V.TraverseDecl(Ctx.getTranslationUnitDecl());
  V.finish();
}

} // namespace tma::analysis
