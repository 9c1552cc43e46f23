// Issue 21, host side: a whole-array copy of N host descriptors into a device
// buffer (a `CUtensorMap[N]`, a `std::array<CUtensorMap, N>`, a
// `std::vector<CUtensorMap>` constructed with N and never resized), and the
// proof that a launch may pass the N host descriptors by value instead.
#include "HostBuffers.h"
#include "ObjectReach.h"

#include "../core/CudaApi.h"
#include "../device/DescriptorArrayType.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;

namespace tma::analysis {

namespace {
/// The standard container \p T is (`std::array`, `std::vector`) with
/// descriptor elements; empty otherwise.
llvm::StringRef descriptorContainer(QualType T) {
  const auto *RD = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      T.getNonReferenceType()->getAsCXXRecordDecl());
  if (!RD || !RD->isInStdNamespace() || RD->getTemplateArgs().size() < 1 ||
      RD->getTemplateArgs()[0].getKind() != TemplateArgument::Type ||
      !isTensorMapRecord(RD->getTemplateArgs()[0].getAsType()))
    return "";
  llvm::StringRef Name = RD->getName();
  return Name == "array" || Name == "vector" ? Name : "";
}

/// The count of a `CUtensorMap[N]` or a `std::array<CUtensorMap, N>`.
std::optional<unsigned> countOfType(QualType T, ASTContext &Ctx) {
  if (const auto *CA = Ctx.getAsConstantArrayType(T))
    return isTensorMapRecord(CA->getElementType())
               ? std::optional<unsigned>(CA->getSize().getZExtValue())
               : std::nullopt;
  if (descriptorContainer(T) != "array")
    return std::nullopt;
  const auto *RD = cast<ClassTemplateSpecializationDecl>(T->getAsCXXRecordDecl());
  const TemplateArgument &N = RD->getTemplateArgs()[1];
  if (N.getKind() != TemplateArgument::Integral)
    return std::nullopt;
  return unsigned(N.getAsIntegral().getZExtValue());
}

bool isConstantZero(const Expr *E, ASTContext &Ctx) {
  Expr::EvalResult R;
  return E->EvaluateAsInt(R, Ctx) && R.Val.getInt() == 0;
}

/// The variable whose elements \p E points to, from the first: `maps`
/// (decayed), `&maps[0]`, `arr.data()`, `&vec[0]`; null otherwise.
const VarDecl *arrayRootOf(const Expr *E, ASTContext &Ctx) {
  E = E->IgnoreParenImpCasts();
  if (const auto *UO = dyn_cast<UnaryOperator>(E); UO && UO->getOpcode() == UO_AddrOf) {
    const Expr *Sub = UO->getSubExpr()->IgnoreParens();
    if (const auto *AS = dyn_cast<ArraySubscriptExpr>(Sub); AS && isConstantZero(AS->getIdx(), Ctx))
      E = AS->getBase()->IgnoreParenImpCasts();
    else if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(Sub);
             OC && OC->getOperator() == OO_Subscript && OC->getNumArgs() == 2 &&
             isConstantZero(OC->getArg(1), Ctx))
      E = OC->getArg(0)->IgnoreParenImpCasts();
    else
      return nullptr;
  } else if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *M = MC->getMethodDecl();
    if (!M || M->getName() != "data" || MC->getNumArgs() != 0)
      return nullptr;
    E = MC->getImplicitObjectArgument()->IgnoreParenImpCasts();
  }
  const auto *R = dyn_cast<DeclRefExpr>(E);
  const auto *V = R ? dyn_cast<VarDecl>(R->getDecl()) : nullptr;
  if (!V || !(Ctx.getAsConstantArrayType(V->getType()) || !descriptorContainer(V->getType()).empty()))
    return nullptr;
  return V;
}

/// `V.size() * sizeof(CUtensorMap)` or the other way round.
bool isSizeOfWhole(const Expr *E, const VarDecl *V, ASTContext &Ctx) {
  const auto *BO = dyn_cast<BinaryOperator>(E->IgnoreParenImpCasts());
  if (!BO || BO->getOpcode() != BO_Mul)
    return false;
  auto IsSize = [&](const Expr *X) {
    const auto *MC = dyn_cast<CXXMemberCallExpr>(X->IgnoreParenImpCasts());
    const auto *R = MC ? dyn_cast<DeclRefExpr>(MC->getImplicitObjectArgument()->IgnoreParenImpCasts())
                       : nullptr;
    return R && R->getDecl() == V && MC->getMethodDecl() &&
           MC->getMethodDecl()->getName() == "size";
  };
  auto IsOne = [&](const Expr *X) {
    Expr::EvalResult R;
    return X->EvaluateAsInt(R, Ctx) && R.Val.getInt() == 128;
  };
  return (IsSize(BO->getLHS()) && IsOne(BO->getRHS())) ||
         (IsSize(BO->getRHS()) && IsOne(BO->getLHS()));
}

/// Methods of a vector that cannot change its size.
bool keepsSize(llvm::StringRef Method) {
  return llvm::is_contained({"data", "size", "at", "front", "back", "begin", "end", "cbegin",
                             "cend", "empty", "operator[]"},
                            Method);
}
} // namespace

/// The count N a `std::vector<CUtensorMap>` local holds: constructed with a
/// constant count (or a list of N), and every use one that keeps its size.
std::optional<unsigned> HostBuffers::vectorCount(const VarDecl *V, const FunctionDecl *Fn,
                                                 std::string &Why) {
  if (!V->hasLocalStorage() || V->isStaticLocal() || isa<ParmVarDecl>(V) ||
      V->getType()->isReferenceType()) {
    Why = "'" + V->getNameAsString() + "' is not a local vector";
    return std::nullopt;
  }
  for (const DeclRefExpr *R : index(Fn).Refs[V]) {
    if (inUnevaluatedOperand(R, Fn))
      continue;
    Climbed Up = climb(Fn, R, parensAndImplicitCasts);
    const auto *ME = dyn_cast_or_null<MemberExpr>(Up.Parent);
    const auto *OC = dyn_cast_or_null<CXXOperatorCallExpr>(Up.Parent);
    bool Keeps = (ME && isa<CXXMethodDecl>(ME->getMemberDecl()) &&
                  keepsSize(ME->getMemberDecl()->getNameAsString())) ||
                 (OC && OC->getOperator() == OO_Subscript && OC->getArg(0) == Up.Child);
    if (!Keeps) {
      Why = "'" + V->getNameAsString() + "' is used here ('" +
            spelled(cast<Expr>(Up.Parent ? Up.Parent : Up.Child)) + "'), which may change its size";
      return std::nullopt;
    }
  }
  const Expr *Init = V->getInit() ? V->getInit()->IgnoreImplicit() : nullptr;
  if (const auto *CE = dyn_cast_or_null<CXXConstructExpr>(Init)) {
    Expr::EvalResult N;
    if (CE->getNumArgs() >= 1 && !isa<CXXDefaultArgExpr>(CE->getArg(0)) &&
        CE->getArg(0)->getType()->isIntegerType() && CE->getArg(0)->EvaluateAsInt(N, Ctx))
      return unsigned(N.Val.getInt().getZExtValue());
    if (CE->getNumArgs() >= 1)
      if (const auto *IL = dyn_cast<CXXStdInitializerListExpr>(CE->getArg(0)->IgnoreImplicit()))
        if (const auto *List = dyn_cast<InitListExpr>(IL->getSubExpr()->IgnoreImplicit()))
          return List->getNumInits();
  }
  Why = "'" + V->getNameAsString() + "' is not constructed with a constant count";
  return std::nullopt;
}

std::optional<ArrayCopy> HostBuffers::arrayCopyOf(const CallExpr *Call, const CudaApi &Api,
                                                      const FunctionDecl *Fn,
                                                      llvm::StringRef Into) {
  if (Api.Role != ApiRole::Copy || Api.Src < 0 ||
      Call->getNumArgs() <= unsigned(std::max({Api.SizeArg, Api.KindArg, Api.Src})) ||
      !copiesOneBlock(Call, Api, Ctx))
    return std::nullopt;
  Expr::EvalResult Kind;
  if (Api.KindArg >= 0 &&
      (!Call->getArg(Api.KindArg)->EvaluateAsInt(Kind, Ctx) ||
       (Kind.Val.getInt() != 1 /*HostToDevice*/ && Kind.Val.getInt() != 4 /*Default*/)))
    return std::nullopt;
  const Expr *Src = Call->getArg(Api.Src)->IgnoreParenImpCasts();
  while (const auto *EC = dyn_cast<ExplicitCastExpr>(Src))
    Src = EC->getSubExpr()->IgnoreParenImpCasts();
  ArrayCopy C;
  C.Source = Src;
  C.Root = arrayRootOf(Src, Ctx);
  QualType SrcType = Src->getType();
  bool FromDescriptors = C.Root || isDescriptorPointer(SrcType) ||
                         (SrcType->isPointerType() && isTensorMapRecord(SrcType->getPointeeType()));
  if (!FromDescriptors)
    return std::nullopt;
  std::string From = spelled(Src);
  const Expr *Size = Call->getArg(Api.SizeArg);
  Expr::EvalResult Bytes;
  bool ConstantSize = Size->EvaluateAsInt(Bytes, Ctx);
  if (ConstantSize && Bytes.Val.getInt() == 128 && !C.Root)
    return std::nullopt; // one descriptor: the single-descriptor flows
  SourcePoint At = ST.point(Call->getBeginLoc());
  auto NoBound = [&](std::string Why) {
    C.Why = blockerFor(ReasonID::ArrayNoCompileTimeBound, {Into.str(), From, std::move(Why)}, At);
    return C;
  };
  if (!C.Root)
    return NoBound("it is a pointer; the array it points to is not seen");
  std::optional<unsigned> N = countOfType(C.Root->getType(), Ctx);
  std::string Why;
  if (!N && descriptorContainer(C.Root->getType()) == "vector")
    N = vectorCount(C.Root, Fn, Why);
  if (!N)
    return NoBound(Why.empty() ? "its type has no constant count" : Why);
  if (ConstantSize && Bytes.Val.getInt() != uint64_t(*N) * 128) {
    C.Why = blockerFor(ReasonID::ArrayCopySize,
                       {Into.str(), std::to_string(Bytes.Val.getInt().getZExtValue()), From,
                        std::to_string(*N), std::to_string(uint64_t(*N) * 128)},
                       At);
    return C;
  }
  if (!ConstantSize && !isSizeOfWhole(Size, C.Root, Ctx))
    return NoBound("the size '" + spelled(Size) + "' is not a compile-time constant");
  C.Count = *N;
  return C;
}

std::optional<Blocker> HostBuffers::hostArrayAt(const CopyInfo &Copy, const Stmt *Launch,
                                                const Stmt *Named, const FunctionDecl *Fn,
                                                SourceLocation ArgLoc, std::string &Passed) {
  std::vector<Note> CopyNote{{"copied here", ST.point(Copy.Call->getBeginLoc())}};
  const VarDecl *H = Copy.Array->Root;
  if (!H->hasLocalStorage() || H->isStaticLocal() || isa<ParmVarDecl>(H) ||
      H->getType()->isReferenceType())
    return blockerFor(ReasonID::HostNotLocal,
                      {H->getNameAsString(), Fn->getQualifiedNameAsString()},
                      ST.point(Copy.Call->getBeginLoc()));
  if (!inScopeAt(H, Named, Fn))
    return blockerFor(ReasonID::HostNotInScope, {H->getNameAsString()}, ST.point(ArgLoc),
                      CopyNote);
  // The launch reads the array when it runs: nothing may name it between
  // the copy and the launch, and no other name may change it.
  for (const DeclRefExpr *R : index(Fn).Refs[H])
    if (between(Copy.Top, Launch, R, Fn) && !inUnevaluatedOperand(R, Fn))
      return blockerFor(ReasonID::ArrayUsedBetween, {H->getNameAsString()},
                        ST.point(R->getBeginLoc()), CopyNote);
  ObjectQuery Q{H, Copy.Top, Launch, Fn, nullptr, {Copy.Call, Launch}, CopyNote};
  if (std::optional<Blocker> Why = Reach.changeBetween(Q))
    return Why;
  Passed = std::string(DescriptorArrayTypeName) + "<" + std::to_string(Copy.Array->Count) +
           ">::copyOf(" + spelled(Copy.Array->Source) + ")";
  return std::nullopt;
}

} // namespace tma::analysis
