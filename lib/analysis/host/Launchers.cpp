// H7: launcher functions that forward a descriptor parameter to a launch;
// every call of the launcher is analysed as a launch.
#include "Launchers.h"

#include "../core/CudaApi.h"

#include "clang/AST/ExprCXX.h"

using namespace clang;

namespace tma::analysis {

std::optional<std::pair<const FunctionDecl *, unsigned>>
Launchers::launcherTarget(const FunctionDecl *L, unsigned ParamIndex, const Stmt **Offending,
                             unsigned Depth) {
  const FunctionDecl *Def = nullptr;
  if (Depth > 4 || !L->hasBody(Def) || !Def || Def->isDependentContext() || isKernel(Def) ||
      Def->hasAttr<CUDADeviceAttr>() || ParamIndex >= Def->getNumParams())
    return std::nullopt;
  const ParmVarDecl *PV = Def->getParamDecl(ParamIndex);
  std::optional<std::pair<const FunctionDecl *, unsigned>> Target;
  auto Refs = index(Def).Refs.find(PV);
  if (Refs == index(Def).Refs.end())
    return std::nullopt;
  for (const DeclRefExpr *R : Refs->second) {
    auto [Cur, P] = climb(Def, R, parensAndImplicitCasts);
    std::optional<KernelLaunch> KL = asLaunch(P);
    std::optional<std::pair<const FunctionDecl *, unsigned>> This;
    if (KL) {
      for (unsigned J : descriptorParamIndexes(KL->Kernel))
        if (J < KL->Args.size() && KL->Args[J] == Cur)
          This = {KL->Kernel, J};
    } else if (const auto *Call = dyn_cast_or_null<CallExpr>(P);
               Call && Call->getDirectCallee() && !isKernel(Call->getDirectCallee())) {
      // Forwarded to another launcher.
      for (unsigned J = 0; J < Call->getNumArgs(); ++J)
        if (Call->getArg(J) == Cur &&
            llvm::is_contained(descriptorParamIndexes(Call->getDirectCallee()), J))
          This = launcherTarget(Call->getDirectCallee(), J, nullptr, Depth + 1);
    }
    if (!This || (Target && *Target != *This)) {
      if (Offending)
        *Offending = R;
      return std::nullopt;
    }
    Target = This;
  }
  return Target;
}

std::optional<Blocker> Launchers::parameterEdits(const FunctionDecl *L, unsigned ParamIndex,
                                                  std::vector<TextEdit> &Edits) {
  // The parameter becomes a reference to the host descriptor in every
  // declaration: `const CUtensorMap *d` -> `const CUtensorMap &d`.
  for (const FunctionDecl *D : L->redecls()) {
    const ParmVarDecl *P = D->getParamDecl(ParamIndex);
    TypeSourceInfo *TSI = P->getTypeSourceInfo();
    auto PTL = TSI ? TSI->getTypeLoc().getAs<PointerTypeLoc>() : PointerTypeLoc();
    std::optional<CharSourceRange> Star =
        PTL ? ST.fileRange(SourceRange(PTL.getStarLoc(), PTL.getStarLoc())) : std::nullopt;
    if (ST.inSystemHeader(P->getLocation()) || !Star)
      return blockerFor(ReasonID::LauncherParamNotEditable,
                        {P->getNameAsString(), L->getQualifiedNameAsString()},
                        ST.point(P->getLocation()));
    Edits.push_back(ST.replace(*Star, "&"));
  }
  return std::nullopt;
}

std::optional<Blocker> Launchers::forwardThroughLauncher(const KernelLaunch &KL, unsigned I,
                                                            const ParmVarDecl *PV,
                                                            const FunctionDecl *L, unsigned Depth,
                                                            const LaunchSite &LS,
                                                            const std::vector<TextEdit> &Extra) {
  std::string Name = PV->getNameAsString(), LName = L->getQualifiedNameAsString();
  auto Why = [&](ReasonID R, llvm::ArrayRef<std::string> Args, SourceLocation At) {
    return blockerFor(R, Args, ST.point(At));
  };
  QualType T = PV->getType();
  if (!isDescriptorPointer(T) || !T->getPointeeType().isConstQualified() ||
      L->getTemplatedKind() != FunctionDecl::TK_NonTemplate || isa<CXXMethodDecl>(L))
    return Why(ReasonID::LauncherParamNotFollowed, {Name, LName, T.getAsString()},
               PV->getLocation());
  if (Depth >= 4)
    return Why(ReasonID::LauncherTooDeep, {}, PV->getLocation());
  unsigned ParamIndex = PV->getFunctionScopeIndex();
  const Stmt *Offending = nullptr;
  if (!launcherTarget(L, ParamIndex, &Offending))
    return Why(ReasonID::LauncherParamOtherUse, {Name, LName},
               Offending ? Offending->getBeginLoc() : PV->getLocation());
  if (std::optional<Blocker> Unseen =
          calledUnverified(L, ReasonID::LauncherExternalLinkage,
                           ReasonID::LauncherExternalLinkageUnitsMissing, L->getLocation()))
    return Unseen;
  std::vector<TextEdit> Edits = Extra;
  if (std::optional<Blocker> NotEditable = parameterEdits(L, ParamIndex, Edits))
    return NotEditable;
  unsigned Calls = 0;
  auto Refs = Pass.LauncherRefs.find(L->getCanonicalDecl());
  if (Refs != Pass.LauncherRefs.end())
    for (auto &[R, Caller] : Refs->second) {
      const CallExpr *Call = directCallOf(R, Caller);
      if (!Call || Call->getNumArgs() <= ParamIndex)
        return Why(ReasonID::LauncherOtherUse, {LName}, R->getBeginLoc());
      KernelLaunch Through = KL;
      Through.E = Call;
      Through.ArgsDecl = nullptr;
      Through.Args.assign(KL.Args.size(), nullptr);
      Through.Args[I] = Call->getArg(ParamIndex);
      Through.Form = "call of a launcher";
      Analyze(Through, I, Caller, Depth + 1, Edits);
      ++Calls;
    }
  recordForward(L, ParamIndex, LS, Edits, Calls);
  // An error in the launcher may hide a use of the parameter.
  if (Calls)
    Out.ParamSpans.push_back({LS.ParamKey, spanOf(L)});
  return std::nullopt;
}

void Launchers::recordForward(const FunctionDecl *L, unsigned ParamIndex, const LaunchSite &LS,
                              const std::vector<TextEdit> &Edits, unsigned Calls) {
  LauncherForward F;
  F.LauncherKey = paramKey(L, ParamIndex);
  F.ParamKey = LS.ParamKey;
  F.LauncherName = L->getQualifiedNameAsString();
  F.Edits = Edits;
  F.Body = spanOf(L);
  F.LocalCalls = Calls;
  // Calls from other translation units are all seen only when the run
  // covers the whole program (a header declaration does not help there).
  if (L->isExternallyVisible() && !Pass.wholeProgram())
    F.CalledElsewhere.push_back(blockerFor(ReasonID::LauncherCalledElsewhere,
                                           {F.LauncherName, unitsNotInRun()},
                                           ST.point(L->getLocation())));
  F.Uncalled = LS;
  F.Uncalled.Blockers.push_back(
      blockerFor(ReasonID::LauncherNotCalled, {F.LauncherName}, ST.point(L->getLocation())));
  Out.Launchers.push_back(std::move(F));
}

bool Launchers::isForeignLauncher(const FunctionDecl *L) {
  const IdentifierInfo *Id = L ? L->getIdentifier() : nullptr;
  return Id && !L->hasBody() && !isKernel(L) && !L->hasAttr<CUDADeviceAttr>() &&
         L->getTemplatedKind() == FunctionDecl::TK_NonTemplate && !isa<CXXMethodDecl>(L) &&
         !ST.inSystemHeader(L->getLocation()) && !cudaApi(Id->getName());
}

std::string Launchers::foreignLauncherKey(const FunctionDecl *L, unsigned ParamIndex) {
  if (!isForeignLauncher(L) || ParamIndex >= L->getNumParams())
    return std::string();
  QualType T = L->getParamDecl(ParamIndex)->getType();
  if (!isDescriptorPointer(T) || !T->getPointeeType().isConstQualified())
    return std::string();
  return paramKey(L, ParamIndex);
}

void Launchers::analyzeForeignCalls() {
  for (auto &[L, Refs] : Pass.LauncherRefs)
    for (unsigned ParamIndex : descriptorParamIndexes(L)) {
      std::string Key = foreignLauncherKey(L, ParamIndex);
      if (Key.empty())
        continue;
      std::vector<TextEdit> Edits;
      std::optional<Blocker> NotEditable = parameterEdits(L, ParamIndex, Edits);
      for (auto &[R, Caller] : Refs)
        analyzeForeignCall(L, ParamIndex, Key, R, Caller, NotEditable, Edits);
    }
}

void Launchers::analyzeForeignCall(const FunctionDecl *L, unsigned ParamIndex,
                                   const std::string &Key, const DeclRefExpr *R,
                                   const FunctionDecl *Caller,
                                   const std::optional<Blocker> &NotEditable,
                                   const std::vector<TextEdit> &Edits) {
  const CallExpr *Call = directCallOf(R, Caller);
  if (Call && Call->getNumArgs() > ParamIndex && !NotEditable) {
    KernelLaunch KL;
    KL.E = Call;
    KL.ForeignLauncher = L;
    KL.Args.assign(Call->getArgs(), Call->getArgs() + Call->getNumArgs());
    KL.Form = "call of a launcher";
    Analyze(KL, ParamIndex, Caller, 1, Edits);
    return;
  }
  // Refused: the launcher's kernel keeps its descriptor by reference.
  LaunchSite LS;
  LS.LauncherKey = Key;
  LS.KernelName = L->getQualifiedNameAsString();
  LS.Where = ST.point(R->getBeginLoc());
  if (Caller)
    LS.ReliesOn.push_back(spanOf(Caller));
  LS.Blockers.push_back(NotEditable
                            ? *NotEditable
                            : blockerFor(ReasonID::LauncherOtherUse, {LS.KernelName}, LS.Where));
  Out.Launches.push_back(std::move(LS));
}

} // namespace tma::analysis
