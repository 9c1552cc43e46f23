// The pass context (PassContext.h): its construction, and the helpers every
// component shares for facts (parameter slots, keys) and source text.
#include "PassContext.h"

#include "CudaApi.h"


#include "clang/Lex/Lexer.h"

using namespace clang;

namespace tma::analysis {

PassContext::PassContext(ASTContext &Ctx, llvm::StringRef Side, const AnalysisOptions &Opts)
    : Ctx(Ctx), ST(Ctx.getSourceManager(), Ctx.getLangOpts()), Opts(Opts) {
  Out.Side = Side.str();
}

PassContext::~PassContext() = default;

bool PassContext::wholeProgram() {
  if (Opts.Scope != ProgramScope::WholeIfDefinesMain)
    return Opts.Scope == ProgramScope::Whole;
  if (!DefinesMain) {
    DefinesMain = false;
    for (const Decl *D : Ctx.getTranslationUnitDecl()->decls())
      if (const auto *FD = dyn_cast<FunctionDecl>(D); FD && FD->isMain() && FD->hasBody())
        DefinesMain = true;
  }
  return *DefinesMain;
}

const CallExpr *PassContext::otherStreamWork(const FunctionDecl *Fn) {
  // A lambda's body is walked as part of the function around it (or, for
  // a generic one, on its own): it has no record of its own to trust.
  if (const auto *M = dyn_cast_or_null<CXXMethodDecl>(Fn); M && M->getParent()->isLambda())
    Fn = nullptr;
  if (!Fn)
    return OtherStreamCall;
  std::set<const FunctionDecl *> Seen{Fn};
  std::vector<const FunctionDecl *> Work{Fn};
  while (!Work.empty()) {
    const FunctionDecl *F = Work.back();
    Work.pop_back();
    if (auto It = OtherStreamCalls.find(F); It != OtherStreamCalls.end())
      return It->second;
    if (auto It = Callees.find(F); It != Callees.end())
      for (const FunctionDecl *C : It->second)
        if (Seen.insert(C).second)
          Work.push_back(C);
  }
  return nullptr;
}

void PassContext::finishStreamHolds() {
  if (!StreamHold)
    return;
  // A hold whose stream is not read here, or one another stream may come to
  // wait for (an event; a graph that captures it replays it on any stream),
  // may hold any stream.
  if (PollsInDeviceFunction || EventWait)
    AnyStreamHeld = true;
  for (const auto &[K, Uses] : PollingKernelUses)
    if (Uses.first > Uses.second)
      AnyStreamHeld = true; // named other than by a `<<<>>>` launch
  for (const auto &[Call, Fn] : HoldCalls) {
    std::optional<const ValueDecl *> S = streamOf(Call, Fn);
    const auto *V = S ? dyn_cast_or_null<VarDecl>(*S) : nullptr;
    if (S && !*S)
      DefaultStreamHeld = true;
    else if (V && createdNonBlocking(V, Fn))
      HeldStreams.insert(V);
    else
      AnyStreamHeld = true;
  }
  for (const auto &[Call, Fn] : CaptureCalls)
    for (const Expr *A : Call->arguments())
      if (const auto *R = dyn_cast<DeclRefExpr>(A->IgnoreParenImpCasts());
          R && HeldStreams.count(R->getDecl()))
        AnyStreamHeld = true;
}

bool PassContext::mayBeHeld(const CallExpr *Op, const FunctionDecl *Fn) const {
  if (!StreamHold)
    return false;
  if (AnyStreamHeld || !Op)
    return true;
  // A call of the user's (a launcher): the streams of the work it enqueues
  // are not read here; only work on the default stream alone is.
  if (!isa<CUDAKernelCallExpr>(Op) && !cudaApiOf(Op)) {
    const FunctionDecl *Callee = Op->getDirectCallee();
    const FunctionDecl *Def = Callee ? Callee->getDefinition() : nullptr;
    if (!Def || const_cast<PassContext *>(this)->otherStreamWork(Def))
      return true;
    return DefaultStreamHeld;
  }
  std::optional<const ValueDecl *> S = streamOf(Op, Fn);
  // A local stream created non-blocking anew in each round of a loop: a
  // hold enqueued on it would have held any stream (finishStreamHolds, as
  // streamOf does not read it), so no round's stream is held.
  if (!S) {
    const VarDecl *V = streamVariableOf(Op);
    return !(V && createdNonBlocking(V, Fn, /*EachRound=*/true));
  }
  if (!*S)
    return DefaultStreamHeld;
  // A parameter may be handed a held stream; another local stream variable,
  // created once (streamOf's fixed variable), is a stream of its own.
  const auto *V = dyn_cast<VarDecl>(*S);
  return HeldStreams.count(*S) || !V || isa<ParmVarDecl>(V) || !V->hasLocalStorage();
}

const Stmt *PassContext::firstHeld(
    llvm::ArrayRef<std::pair<const CallExpr *, const FunctionDecl *>> Ops) const {
  for (const auto &[Op, Fn] : Ops)
    if (mayBeHeld(Op, Fn))
      return Op ? Op : StreamHold;
  return nullptr;
}

std::string PassContext::streamHoldNote() const {
  if (!StreamHold)
    return std::string();
  return StreamHoldWhat + ", so a stream may be held until later statements run";
}

DescriptorParam &PassComponent::paramFacts(const FunctionDecl *FD, unsigned Index) {
  std::string Key = paramKey(FD, Index);
  auto It = Pass.ParamSlot.find(Key);
  if (It != Pass.ParamSlot.end())
    return Out.Params[It->second];
  Pass.ParamSlot[Key] = Out.Params.size();
  DescriptorParam DP;
  DP.Key = Key;
  DP.KernelName = patternOf(FD)->getQualifiedNameAsString();
  DP.Index = Index;
  const ParmVarDecl *P = FD->getParamDecl(Index);
  DP.ParamName = P->getName().str();
  DP.Where = ST.point(P->getLocation());
  DP.ExternallyVisible = patternOf(FD)->isExternallyVisible();
  Out.Params.push_back(std::move(DP));
  return Out.Params.back();
}


std::vector<std::string> PassComponent::paramKeysOf(const FunctionDecl *K) {
  std::vector<std::string> Keys;
  for (unsigned I : descriptorParamIndexes(K))
    Keys.push_back(paramKey(K, I));
  auto It = Pass.ConstantParamKeys.find(patternOf(K));
  if (It != Pass.ConstantParamKeys.end())
    llvm::append_range(Keys, It->second);
  return Keys;
}

/// Can another translation unit call \p F without being verified with its
/// new signature: external linkage, no declaration in a header (a TU
/// including an edited header is re-parsed with it), not the whole program.
static bool mayBeCalledUnseen(const FunctionDecl *F, const SourceManager &SM,
                              bool WholeProgram) {
  bool InHeader = llvm::any_of(F->redecls(), [&](const FunctionDecl *D) {
    return SM.getFileID(SM.getExpansionLoc(D->getLocation())) != SM.getMainFileID();
  });
  return F->isExternallyVisible() && !InHeader && !WholeProgram;
}

std::optional<Blocker> PassComponent::calledUnverified(const FunctionDecl *F, ReasonID Alone,
                                                       ReasonID WithUnits, SourceLocation At) {
  if (!mayBeCalledUnseen(F, Ctx.getSourceManager(), Pass.wholeProgram()))
    return std::nullopt;
  std::string Name = F->getQualifiedNameAsString();
  if (Opts.UnitsNotInRun.empty())
    return blockerFor(Alone, {Name}, ST.point(At));
  return blockerFor(WithUnits, {Name, unitsNotInRun()}, ST.point(At));
}

std::optional<std::string> PassComponent::callableUnverified(const FunctionDecl *F,
                                                             llvm::StringRef Role) {
  if (!mayBeCalledUnseen(F, Ctx.getSourceManager(), Pass.wholeProgram()))
    return std::nullopt;
  std::string Why = Role.str() + " '" + F->getQualifiedNameAsString() +
                    "' has external linkage and no declaration in a header: other translation "
                    "units may call it (make it static, or declare it in a header";
  if (Opts.UnitsNotInRun.empty())
    return Why + ")";
  return Why + ", or " + unitsNotInRun() + ")";
}

std::string PassComponent::unitsNotInRun() {
  // Name what the run would need to cover the whole program.
  const std::vector<std::string> &Missing = Opts.UnitsNotInRun;
  if (Missing.empty())
    return "run over every translation unit of a compile database";
  std::string Why = "run over every translation unit of the compile database; not in this run: ";
  for (size_t I = 0; I < Missing.size() && I < 3; ++I)
    Why += (I ? ", '" : "'") + Missing[I] + "'";
  if (Missing.size() > 3)
    Why += " and " + std::to_string(Missing.size() - 3) + " more";
  return Why;
}

SourceSpan PassComponent::spanOf(const Decl *D) {
  SourceSpan S;
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation B = SM.getExpansionLoc(D->getBeginLoc());
  SourceLocation E = SM.getExpansionRange(D->getEndLoc()).getEnd();
  S.Begin = ST.point(B);
  S.End = SM.getFileOffset(E) + Lexer::MeasureTokenLength(E, SM, Ctx.getLangOpts());
  return S;
}

void PassComponent::block(UseSink &Sink, ReasonID R, llvm::ArrayRef<std::string> Args,
                          SourceLocation Loc) {
  Sink.Blockers.push_back(blockerFor(R, Args, ST.point(Loc)));
}

unsigned PassComponent::offsetOf(SourceLocation L) {
  return Ctx.getSourceManager().getFileOffset(Ctx.getSourceManager().getExpansionLoc(L));
}

std::string PassComponent::spelled(const Expr *E) {
  if (std::optional<CharSourceRange> R = ST.fileRange(E->getSourceRange()))
    return ST.text(*R);
  return "<expr>";
}

} // namespace tma::analysis
