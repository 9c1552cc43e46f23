// K4: launches through a local function-pointer variable; every kernel it
// may hold is tied to the others and changes with them or not at all.
#include "KernelRefs.h"
#include "LaunchArgs.h"
#include "PointerLaunches.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;

namespace tma::analysis {
namespace {

/// The function type a declared pointer type spells (`void (*)(...)`,
/// through qualifiers and parentheses), or a null location.
FunctionProtoTypeLoc spelledFunctionType(TypeLoc TL) {
  for (;;) {
    if (auto Q = TL.getAs<QualifiedTypeLoc>())
      TL = Q.getUnqualifiedLoc();
    else if (auto Ptr = TL.getAs<PointerTypeLoc>())
      TL = Ptr.getPointeeLoc();
    else if (auto Par = TL.getAs<ParenTypeLoc>())
      TL = Par.getInnerLoc();
    else
      break;
  }
  return TL.getAs<FunctionProtoTypeLoc>();
}

/// The written '*' of parameter \p I of \p FTL, or a null location.
PointerTypeLoc spelledParamStar(FunctionProtoTypeLoc FTL, unsigned I) {
  const ParmVarDecl *P = FTL && I < FTL.getNumParams() ? FTL.getParam(I) : nullptr;
  TypeLoc PTL = P && P->getTypeSourceInfo() ? P->getTypeSourceInfo()->getTypeLoc() : TypeLoc();
  while (PTL && PTL.getAs<QualifiedTypeLoc>())
    PTL = PTL.getAs<QualifiedTypeLoc>().getUnqualifiedLoc();
  return PTL ? PTL.getAs<PointerTypeLoc>() : PointerTypeLoc();
}

/// The alias that is the pointer's declared type (`KernelFn f`), or null.
const TypedefNameDecl *aliasOf(const VarDecl *V) {
  if (!V->getTypeSourceInfo())
    return nullptr;
  TypeLoc TL = V->getTypeSourceInfo()->getTypeLoc();
  while (auto Q = TL.getAs<QualifiedTypeLoc>())
    TL = Q.getUnqualifiedLoc();
  auto TT = TL.getAs<TypedefTypeLoc>();
  return TT ? TT.getDecl()->getCanonicalDecl() : nullptr;
}

/// Is the pointer's type derived from one of its kernels (`decltype(&k)`,
/// `decltype(k) *`)? Then it follows the kernel's new type with no edit.
/// Returns the reference to the kernel in the decltype, or null.
const DeclRefExpr *derivedFromKernel(const VarDecl *V,
                                     const std::vector<const FunctionDecl *> &Kernels) {
  const auto *DT = V->getType()->getPointeeOrArrayElementType()->getAs<DecltypeType>();
  if (!DT)
    DT = V->getType()->getAs<DecltypeType>();
  if (!DT)
    return nullptr;
  const Expr *E = DT->getUnderlyingExpr()->IgnoreParenImpCasts();
  if (const auto *UO = dyn_cast<UnaryOperator>(E); UO && UO->getOpcode() == UO_AddrOf)
    E = UO->getSubExpr()->IgnoreParenImpCasts();
  const auto *R = dyn_cast<DeclRefExpr>(E);
  const auto *K = R ? dyn_cast<FunctionDecl>(R->getDecl()) : nullptr;
  bool OfKernel = K && llvm::any_of(Kernels, [&](const FunctionDecl *T) {
                    return patternOf(T)->getCanonicalDecl() == patternOf(K)->getCanonicalDecl();
                  });
  return OfKernel ? R : nullptr;
}

} // namespace

/// The kernels \p E may evaluate to: kernel names, `&kernel`, and
/// conditionals over them; a null pointer adds none. False for anything else.
bool PointerLaunches::pointerTargets(const Expr *E, std::vector<const DeclRefExpr *> &Targets) {
  E = E->IgnoreParenImpCasts();
  if (const auto *UO = dyn_cast<UnaryOperator>(E); UO && UO->getOpcode() == UO_AddrOf)
    E = UO->getSubExpr()->IgnoreParenImpCasts();
  if (const auto *CO = dyn_cast<ConditionalOperator>(E))
    return pointerTargets(CO->getTrueExpr(), Targets) &&
           pointerTargets(CO->getFalseExpr(), Targets);
  if (E->isNullPointerConstant(Ctx, Expr::NPC_ValueDependentIsNotNull))
    return true;
  const auto *R = dyn_cast<DeclRefExpr>(E);
  if (!R || !isKernel(dyn_cast<FunctionDecl>(R->getDecl())))
    return false;
  Targets.push_back(R);
  return true;
}

void PointerLaunches::analyzePointerLaunches(const VarDecl *V, const FunctionDecl *Fn,
                                          const Launches &Calls) {
  // Every value the variable can hold must be seen: a local variable set
  // only by its initialiser and by assignments of kernels, used only to
  // launch. Then each launch is a launch of every one of those kernels.
  std::vector<const DeclRefExpr *> Targets;
  std::optional<Reason> Why = whyTargetsUnseen(V, Fn, Calls, Targets);
  std::vector<const FunctionDecl *> Kernels;
  for (const DeclRefExpr *T : Targets)
    if (!llvm::is_contained(Kernels, cast<FunctionDecl>(T->getDecl())))
      Kernels.push_back(cast<FunctionDecl>(T->getDecl()));
  if (Kernels.empty())
    return; // nothing known to point at: the references say the rest

  // Pointers of one alias have one type: their kernels change together,
  // whether this one is accepted or not.
  if (const TypedefNameDecl *Alias = aliasOf(V))
    llvm::append_range(AliasKernels[Alias], Kernels);
  std::vector<TextEdit> TypeEdits;
  if (!Why && !V->getType()->getContainedAutoType())
    TypeEdits = parameterTypeEdits(V, Kernels, Why);
  for (const DeclRefExpr *T : Targets)
    Pass.AcceptedKernelRefs.insert(T);
  for (const FunctionDecl *K : Kernels)
    if (Pass.ConstantParamKeys.count(patternOf(K)) && !Why)
      Why = Reason{ReasonID::PointerConstantKernel, {patternOf(K)->getQualifiedNameAsString()},
                   V->getLocation()};
  if (Why)
    refusePointerLaunches(V, Fn, Calls, Kernels, *Why);
  else
    tiePointerTargets(V, Fn, Calls, Kernels, TypeEdits);
}

std::optional<PointerLaunches::Reason>
PointerLaunches::whyTargetsUnseen(const VarDecl *V, const FunctionDecl *Fn,
                                  const Launches &Calls,
                                  std::vector<const DeclRefExpr *> &Targets) {
  std::optional<Reason> Why;
  if (V->getInit() && !pointerTargets(V->getInit(), Targets))
    Why = Reason{ReasonID::PointerInitNotKernel, {spelled(V->getInit())},
                 V->getInit()->getBeginLoc()};
  if (isa<ParmVarDecl>(V) || !V->hasLocalStorage() || V->isStaticLocal())
    Why = Reason{ReasonID::PointerNotLocal, {Fn->getQualifiedNameAsString()}, V->getLocation()};
  if (Why)
    return Why;
  for (const DeclRefExpr *R : index(Fn).Refs[V])
    if ((Why = whyUseUnseen(R, Fn, Calls, Targets)))
      return Why;
  return std::nullopt;
}

std::optional<PointerLaunches::Reason>
PointerLaunches::whyUseUnseen(const DeclRefExpr *R, const FunctionDecl *Fn,
                              const Launches &Calls,
                              std::vector<const DeclRefExpr *> &Targets) {
  auto [Cur, P] = climb(Fn, R, parensImplicitCastsAndDeref);
  if (const auto *KC = dyn_cast_or_null<CUDAKernelCallExpr>(P);
      KC && KC->getCallee() == Cur && llvm::is_contained(Calls, KC))
    return std::nullopt;
  // An attribute or occupancy query reads the kernel it holds, keeps nothing.
  if (KernelRefChecks.isQueryArgument(R, Fn, /*ThroughAddressOf=*/false))
    return std::nullopt;
  if (const auto *BO = dyn_cast_or_null<BinaryOperator>(P);
      BO && BO->getOpcode() == BO_Assign && BO->getLHS() == Cur) {
    if (!pointerTargets(BO->getRHS(), Targets))
      return Reason{ReasonID::PointerAssignedNotKernel, {spelled(BO->getRHS())},
                    BO->getRHS()->getBeginLoc()};
    return std::nullopt;
  }
  return Reason{ReasonID::PointerOtherUse, {}, R->getBeginLoc()};
}

std::vector<TextEdit>
PointerLaunches::parameterTypeEdits(const VarDecl *V, const std::vector<const FunctionDecl *> &Kernels,
                                    std::optional<Reason> &Why) {
  if (const DeclRefExpr *Named = derivedFromKernel(V, Kernels)) {
    Pass.AcceptedKernelRefs.insert(Named); // names the kernel's type, nothing more
    return {};
  }
  // A written function type names the parameter's type: its '*' goes too.
  std::vector<TextEdit> Edits;
  const TypedefNameDecl *Alias = nullptr;
  FunctionProtoTypeLoc FTL = spelledType(V, Alias, Why);
  if (Why)
    return {};
  for (unsigned I : descriptorParamIndexes(Kernels.front())) {
    PointerTypeLoc Star = spelledParamStar(FTL, I);
    std::optional<CharSourceRange> R =
        Star ? ST.fileRange(SourceRange(Star.getStarLoc(), Star.getStarLoc())) : std::nullopt;
    if (!R || ST.inSystemHeader(V->getLocation())) {
      Why = Reason{ReasonID::PointerTypeNotEditable, {}, V->getLocation()};
      break;
    }
    Edits.push_back(starDeletion(*R));
  }
  return Edits;
}

FunctionProtoTypeLoc PointerLaunches::spelledType(const VarDecl *V, const TypedefNameDecl *&Alias,
                                                  std::optional<Reason> &Why) {
  TypeLoc TL = V->getTypeSourceInfo()->getTypeLoc();
  if (FunctionProtoTypeLoc FTL = spelledFunctionType(TL))
    return FTL;
  while (auto Q = TL.getAs<QualifiedTypeLoc>())
    TL = Q.getUnqualifiedLoc();
  auto TT = TL.getAs<TypedefTypeLoc>();
  if (!TT)
    return {};
  const TypedefNameDecl *TD = TT.getDecl();
  const SourceManager &SM = Ctx.getSourceManager();
  if (!SM.isWrittenInMainFile(SM.getExpansionLoc(TD->getLocation()))) {
    Why = Reason{ReasonID::PointerAliasElsewhere, {TD->getNameAsString()}, V->getLocation()};
    return {};
  }
  // The alias changes with the kernels: every name of it must be the type
  // of a pointer that launches them.
  for (SourceLocation L : aliasUses(TD)) {
    bool OfPointer = llvm::any_of(Pass.PointerLaunches, [&](const auto &Entry) {
      const TypeSourceInfo *TSI = Entry.first->getTypeSourceInfo();
      return TSI && TSI->getTypeLoc().getBeginLoc() == L;
    });
    if (!OfPointer) {
      Why = Reason{ReasonID::PointerAliasOtherUse, {TD->getNameAsString()}, L};
      return {};
    }
  }
  Alias = TD;
  return spelledFunctionType(TD->getTypeSourceInfo()->getTypeLoc());
}

namespace {
/// Every written name of an alias in the translation unit.
class AliasUseFinder : public RecursiveASTVisitor<AliasUseFinder> {
public:
  std::map<const TypedefNameDecl *, std::vector<SourceLocation>> Uses;
  bool VisitTypedefTypeLoc(TypedefTypeLoc TL) {
    Uses[TL.getDecl()->getCanonicalDecl()].push_back(TL.getBeginLoc());
    return true;
  }
};
} // namespace

const std::vector<SourceLocation> &PointerLaunches::aliasUses(const TypedefNameDecl *TD) {
  if (!AliasUses) {
    AliasUseFinder F;
    F.TraverseDecl(Ctx.getTranslationUnitDecl());
    AliasUses = std::move(F.Uses);
  }
  return (*AliasUses)[TD->getCanonicalDecl()];
}

TextEdit PointerLaunches::starDeletion(CharSourceRange Star) {
  // `const CUtensorMap *, float *` -> `const CUtensorMap, float *`, but
  // `const CUtensorMap *map` -> `const CUtensorMap map`.
  TextEdit Del = ST.replace(Star, "");
  llvm::StringRef Buf = ST.SM.getBufferData(ST.SM.getFileID(Star.getBegin()));
  if (Del.Offset + Del.Length < Buf.size() &&
      !clang::isAsciiIdentifierContinue(Buf[Del.Offset + Del.Length]))
    while (Del.Offset > 0 && (Buf[Del.Offset - 1] == ' ' || Buf[Del.Offset - 1] == '\t')) {
      --Del.Offset;
      ++Del.Length;
    }
  return Del;
}

void PointerLaunches::refusePointerLaunches(const VarDecl *V, const FunctionDecl *Fn,
                                            const Launches &Calls,
                                            const std::vector<const FunctionDecl *> &Kernels,
                                            const Reason &Why) {
  std::string VName = V->getNameAsString();
  std::vector<Note> LaunchedAt;
  for (const CUDAKernelCallExpr *KC : Calls)
    LaunchedAt.push_back({"launched through '" + VName + "' here", ST.point(KC->getBeginLoc())});
  // Each launch is a launch of each kernel, refused: it counts as one.
  for (const FunctionDecl *K : Kernels)
    for (unsigned I : descriptorParamIndexes(K))
      for (const CUDAKernelCallExpr *KC : Calls) {
        LaunchSite LS;
        LS.ParamKey = paramKey(K, I);
        LS.KernelName = patternOf(K)->getQualifiedNameAsString();
        LS.Where = ST.point(KC->getBeginLoc());
        LS.ReliesOn.push_back(spanOf(Fn));
        std::vector<std::string> Args{LS.KernelName, VName};
        llvm::append_range(Args, Why.Args);
        LS.Blockers.push_back(blockerFor(Why.ID, Args, ST.point(Why.At), LaunchedAt));
        Out.Launches.push_back(std::move(LS));
      }
}

void PointerLaunches::tiePointerTargets(const VarDecl *V, const FunctionDecl *Fn,
                                        const Launches &Calls,
                                        const std::vector<const FunctionDecl *> &Kernels,
                                        const std::vector<TextEdit> &TypeEdits) {
  for (const CUDAKernelCallExpr *KC : Calls)
    Pass.PointerTargets[KC] = Kernels;
  // Every kernel it may point to changes, or none: they share one type.
  for (unsigned I : descriptorParamIndexes(Kernels.front())) {
    std::vector<std::string> Keys;
    for (const FunctionDecl *K : Kernels)
      if (!llvm::is_contained(Keys, paramKey(K, I)))
        Keys.push_back(paramKey(K, I));
    Out.TiedParams.push_back({Keys, {"'" + V->getNameAsString() +
                                         "' may point to each of these kernels",
                                     ST.point(V->getLocation())}});
  }
  for (const CUDAKernelCallExpr *KC : Calls)
    for (const FunctionDecl *K : Kernels) {
      KernelLaunch KL;
      KL.E = KC;
      KL.Kernel = K;
      KL.Args.assign(KC->arg_begin(), KC->arg_end());
      KL.Form = "<<<>>>";
      // Analysed once every pointer's targets are known: an upload group
      // decided now would not count the launches of pointers not yet seen.
      Deferred.push_back({KL, Fn, TypeEdits});
    }
}

void PointerLaunches::analyzeDeferredLaunches() {
  // The kernels of every pointer of one alias change together.
  for (const auto &[Alias, Kernels] : AliasKernels)
    for (unsigned I : descriptorParamIndexes(Kernels.front())) {
      std::vector<std::string> Keys;
      for (const FunctionDecl *K : Kernels)
        if (!llvm::is_contained(Keys, paramKey(K, I)))
          Keys.push_back(paramKey(K, I));
      Out.TiedParams.push_back({Keys, {"the alias '" + Alias->getNameAsString() +
                                           "' is the type of pointers to each of these kernels",
                                       ST.point(Alias->getLocation())}});
    }
  for (size_t N = 0; N < Deferred.size(); ++N)
    for (unsigned I : descriptorParamIndexes(Deferred[N].KL.Kernel))
      if (I < Deferred[N].KL.Args.size())
        LaunchArgFlow.analyzeLaunchArg(Deferred[N].KL, I, Deferred[N].Fn, 0,
                                             Deferred[N].TypeEdits);
}

} // namespace tma::analysis
