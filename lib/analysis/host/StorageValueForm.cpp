// The storage rule's value form (DeviceStorage.h): a device copy that a
// kernel writes stays on the device for that kernel, and a host CUtensorMap
// beside it takes what each whole copy writes; every other launch passes
// that value, the snapshot a retargeted `*d` would hold.
#include "DeviceStorage.h"

#include "StorageIndex.h"

#include "../core/CudaApi.h"

#include "clang/Basic/IdentifierTable.h"
#include "clang/Lex/Lexer.h"

using namespace clang;

namespace tma::analysis {

namespace {
/// The variable `cudaMalloc(&v, ...)` allocates into, or null.
const VarDecl *allocatedVariable(const CallExpr *Call) {
  const CudaApi *Api = cudaApiOf(Call);
  if (!Api || Api->Dest < 0 || Call->getNumArgs() <= unsigned(Api->Dest))
    return nullptr;
  const auto *U = dyn_cast<UnaryOperator>(Call->getArg(Api->Dest)->IgnoreParenCasts());
  if (!U || U->getOpcode() != UO_AddrOf)
    return nullptr;
  const auto *R = dyn_cast<DeclRefExpr>(U->getSubExpr()->IgnoreParenImpCasts());
  return R ? dyn_cast<VarDecl>(R->getDecl()) : nullptr;
}
} // namespace

const FunctionDecl *DeviceStorage::valueFormScope(Group &G) {
  if (G.AllocCalls.size() != 1)
    return nullptr;
  const FunctionDecl *Main = G.AllocCalls.front().second;
  for (const std::string &K : G.Members) {
    const StorageNode &N = Idx->Nodes[K];
    const FunctionDecl *Fn = localOf(N);
    if (!Fn && outlivesButOnlyRelays(N))
      continue;
    if (!Fn || (Fn != Main && !launcherOf(Main, Fn)) || (Fn == Main && isa<ParmVarDecl>(N.D)))
      return nullptr;
  }
  return Main;
}

bool DeviceStorage::outlivesButOnlyRelays(const StorageNode &N) {
  // A static local, a global of this unit or the result of a function
  // that returns one: it outlives Main's block, but the group's every use
  // of it is an operation valueForm requires to be made in Main (or a
  // launcher only Main calls), so between Main's copies and launches only
  // Main's own statements read or write the device copy through it.
  if (!N.Closed)
    return false;
  if (N.K == StorageNode::Result)
    return true;
  const auto *V = dyn_cast_or_null<VarDecl>(N.D);
  return N.K == StorageNode::Variable && V && !isa<ParmVarDecl>(V) && !V->getType()->isReferenceType() &&
         (V->isStaticLocal() || V->hasGlobalStorage());
}

bool DeviceStorage::unknownUse(Group &G, const CallExpr *Call, const FunctionDecl *Fn,
                               std::string Why) {
  if (!G.ValueForm) {
    G.RefusedUnknown = !G.Why;
    return refuse(G, Call, std::move(Why));
  }
  HostUse U;
  U.Kind = HostUseKind::Other;
  U.Where = ST.point(Call->getBeginLoc());
  U.What = Why + ": the device copy stays, and the launches made before it pass the value";
  G.R.Uses.push_back(std::move(U));
  G.Unknowns.push_back({Call, Fn, std::move(Why)});
  return true;
}

std::optional<std::string> DeviceStorage::unknownMayPrecede(Group &G, const FunctionDecl *Main,
                                                            const CallExpr *U,
                                                            const FunctionDecl *UFn,
                                                            const CallExpr *L,
                                                            const FunctionDecl *LFn) {
  SourceManager &SM = Ctx.getSourceManager();
  if (UFn != Main)
    return "it is made in another function than the launches";
  // capturedLaunchesAgree has read every capture that may take a launch
  // of the group (or found them all on the legacy default stream): its
  // launches run again at each replay, which must not follow the use
  // either (nor wait on a held stream).
  for (const auto &[Replay, Fn] : G.Replays) {
    if (Fn != Main || In.MayBeHeld(Replay, Fn))
      return "a CUDA graph replays a launch of it later";
    if (In.ReachesAvoiding(U, Replay, {}, Main))
      return "a CUDA graph replays a launch of it at line " +
             std::to_string(SM.getExpansionLineNumber(Replay->getBeginLoc())) + " after it";
  }
  std::vector<const Stmt *> Anchors = anchorsIn(Main, L, LFn);
  if (In.MayBeHeld(L, LFn) && heldUntilAfter(Main, L, LFn, Anchors, U))
    return "the launch at line " + std::to_string(SM.getExpansionLineNumber(L->getBeginLoc())) +
           " may wait on a held stream until later";
  for (const Stmt *At : Anchors)
    if (In.ReachesAvoiding(U, At, {}, Main))
      return "the launch at line " + std::to_string(SM.getExpansionLineNumber(At->getBeginLoc())) +
             " may be made after it";
  return std::nullopt;
}

bool DeviceStorage::unknownUsesAfterLaunches(Group &G, const FunctionDecl *Main) {
  for (const Group::Unknown &U : G.Unknowns)
    for (const Group::Op &L : G.Ops)
      if (L.Launch)
        if (std::optional<std::string> Then = unknownMayPrecede(G, Main, U.Call, U.Fn, L.Call, L.Fn))
          return refuse(G, U.Call,
                        U.Why + ", which may write the device copy at any time after it: " + *Then);
  return true;
}

bool DeviceStorage::unknownsAfter(Group &G, const FunctionDecl *Main, const CallExpr *Launch) {
  for (const Group::Op &L : G.Ops)
    if (L.Launch && L.Call == Launch)
      return llvm::none_of(G.Unknowns, [&](const Group::Unknown &U) {
        return unknownMayPrecede(G, Main, U.Call, U.Fn, L.Call, L.Fn).has_value();
      });
  return G.Unknowns.empty();
}

bool DeviceStorage::heldUntilAfter(const FunctionDecl *Main, const CallExpr *Call,
                                   const FunctionDecl *Fn, llvm::ArrayRef<const Stmt *> Anchors,
                                   const Stmt *S) {
  std::vector<const Stmt *> Waits = coveringWaits(Main, streamIn(Main, Call, Fn));
  return Anchors.empty() || llvm::any_of(Anchors, [&](const Stmt *At) {
           return In.ReachesAvoiding(At, S, Waits, Main);
         });
}

bool DeviceStorage::launcherOf(const FunctionDecl *Main, const FunctionDecl *Fn) {
  return Fn && Main && Fn != Main && !callsFrom(Main, Fn).empty();
}

bool DeviceStorage::valueForm(Group &G) {
  std::string Name = "'" + G.R.Name + "'";
  auto Refuse = [&](const Stmt *At, const std::string &Why) {
    return refuse(G, At, "the value form cannot keep " + Name + " for the kernels that write it: " +
                             Why);
  };
  // A stream-ordered copy from a pointer (`cudaMemcpyAsync(d, pin, ...)`)
  // is taken too: pointerCopiesReadAtCall has shown that it reads `*pin`
  // as it is at its call, which the value's assignment there takes.
  const FunctionDecl *Main = valueFormScope(G);
  if (!Main || G.AllocCalls.size() != 1 || G.AllocCalls.front().second != Main ||
      G.WholeCopies.empty() || !In.ReachesAvoiding || !In.DominatedBy || !In.MayBeHeld)
    return refuse(G, G.AllocCalls.empty() ? nullptr : G.AllocCalls.front().first,
                  "the value form needs the device copy allocated and copied into in one function "
                  "whose locals hold it");
  // Writes are made in Main; launches there, or in a launcher only Main
  // calls, whose pointer parameter then takes the value's address.
  for (const Group::Op &O : G.Ops)
    if (!O.Call || (O.Fn != Main && !(O.Launch && launcherOf(Main, O.Fn))))
      return Refuse(O.Call, "it is used in another function");
  const CallExpr *Alloc = G.AllocCalls.front().first;
  const VarDecl *Root = allocatedVariable(Alloc);
  // The declaration statement of the allocated variable, in a block.
  const DeclStmt *RootDecl = nullptr;
  const CompoundStmt *Scope = nullptr;
  std::function<void(const Stmt *)> Find = [&](const Stmt *S) {
    if (!S || RootDecl)
      return;
    if (const auto *DS = dyn_cast<DeclStmt>(S); DS && DS->isSingleDecl() && DS->getSingleDecl() == Root) {
      Scope = dyn_cast_or_null<CompoundStmt>(parent(Main, DS));
      RootDecl = Scope ? DS : nullptr;
      return;
    }
    for (const Stmt *C : S->children())
      Find(C);
  };
  if (Root && Root->hasLocalStorage() && !isa<ParmVarDecl>(Root))
    Find(Main->getBody());
  if (!RootDecl)
    return Refuse(Alloc, "the allocated variable is not declared alone in a block");
  SourceManager &SM = Ctx.getSourceManager();
  auto Within = [&](const Stmt *S) {
    return SM.isBeforeInTranslationUnit(RootDecl->getEndLoc(), S->getBeginLoc()) &&
           SM.isBeforeInTranslationUnit(S->getEndLoc(), Scope->getRBracLoc());
  };
  std::set<const CallExpr *> Whole;
  for (const Group::WholeCopy &C : G.WholeCopies) {
    if (!isa_and_nonnull<CompoundStmt>(parent(Main, C.Call)) || !Within(C.Call))
      return Refuse(C.Call, "this copy is not a statement of its own in the allocated variable's block");
    if (!G.LateCopies.count(C.Call))
      Whole.insert(C.Call);
  }
  // A write of part of the device copy by the host's API that runs at its
  // call is made again on the value right after it: what the launches
  // that read the value would have read from the device copy.
  std::map<const CallExpr *, const Group::Partial *> Repeated;
  for (const Group::Partial &P : G.Partials)
    if (P.Fn == Main && !P.Rest.empty() && P.Offset % 8 == 0 &&
        isa_and_nonnull<CompoundStmt>(parent(Main, P.Call)) && Within(P.Call) &&
        !In.MayBeHeld(P.Call, P.Fn))
      Repeated[P.Call] = &P;
  if (!unknownUsesAfterLaunches(G, Main))
    return false;
  // Copies that run at their call replace every earlier write.
  std::vector<const Stmt *> AtCall = copiesAtCall(G, Main);
  if (const Stmt *Early = launchBeforeACopy(G, Main, AtCall))
    return Refuse(Early, "this launch may run before a copy that runs at its call has written "
                         "the device copy");
  for (const RetargetedLaunch &L : G.R.Launches)
    if (L.Fn == Main ? L.Bare.File.empty() : !launcherOf(Main, L.Fn))
      return refuse(G, nullptr, "the value form edits only launches that name the device copy as an "
                                "argument, or its launcher's parameter");
  for (const Group::Op &L : G.Ops) {
    if (!L.Launch)
      continue;
    for (const Stmt *At : anchorsIn(Main, L.Call, L.Fn)) {
      if (!Within(At))
        return Refuse(At, "this launch is outside the allocated variable's block");
      // A launch whose kernel runs later passes the map whose copies it
      // then reads (sourceReadLater): no write made before those copies
      // reaches it.
      if (G.PassSource.count(L.Call))
        continue;
      // No write the form leaves on the device may reach the launch
      // before a whole copy replaces it. One held until a known release
      // lands after it: a launch that runs at its call reads it only from
      // there.
      bool LaunchHeld = In.MayBeHeld(L.Call, L.Fn);
      for (const Group::Op &W : G.Ops) {
        if (W.Launch || Whole.count(W.Call) || Repeated.count(W.Call))
          continue;
        std::vector<const Stmt *> From;
        if (!LaunchHeld && In.ReleasesOf && In.MayBeHeld(W.Call, W.Fn))
          if (std::optional<std::vector<const Stmt *>> Releases = In.ReleasesOf(W.Call, W.Fn)) {
            // The releases that may come after it, before a host wait that
            // covers its stream (after one, it has run).
            std::vector<const Stmt *> Ran = coveringWaits(Main, streamIn(Main, W.Call, W.Fn));
            for (const Stmt *R : *Releases)
              if (In.ReachesAvoiding(W.Call, R, Ran, Main))
                From.push_back(R);
          }
        if (From.empty())
          From.push_back(W.Call);
        if (llvm::any_of(From, [&](const Stmt *F) { return In.ReachesAvoiding(F, At, AtCall, Main); }))
          return Refuse(W.Call, "this write of the device copy may be read by the launch at line " +
                                    std::to_string(SM.getExpansionLineNumber(At->getBeginLoc())));
      }
    }
  }
  // The arguments that hand the device copy to a launcher's parameter.
  std::vector<std::pair<const Expr *, CharSourceRange>> ToLaunchers;
  for (const std::string &K : G.Members) {
    const StorageNode &N = Idx->Nodes[K];
    if (N.K != StorageNode::Parameter || localOf(N) == Main)
      continue;
    for (const StorageRef &R : N.Defs) {
      std::optional<std::string> Named = storageOf(R.E);
      std::optional<CharSourceRange> Range = ST.fileRange(R.E->getSourceRange());
      if (R.Fn != Main || !Named || !G.Members.count(*Named) || !Range)
        return Refuse(R.E, "this argument hands the launcher something other than the device copy "
                           "by its name");
      ToLaunchers.push_back({R.E, *Range});
    }
  }
  // A name no identifier of the unit spells.
  std::string Value = Root->getNameAsString() + "_value";
  for (unsigned N = 2; Ctx.Idents.find(Value) != Ctx.Idents.end(); ++N)
    Value = Root->getNameAsString() + "_value" + std::to_string(N);
  std::optional<CharSourceRange> DeclEnd = ST.fileRange(RootDecl->getEndLoc());
  if (!DeclEnd)
    return Refuse(RootDecl, "its declaration is spelled inside a macro body");
  std::string DeclIndent = ST.indentOf(RootDecl->getBeginLoc());
  // The edits: nothing on the allocation, the frees, the partial writes;
  // after each whole copy, the assignment of what it copies; the launches
  // pass the value; the value declared after the allocated variable.
  std::map<SourcePoint, const Group::WholeCopy *> CopyAt;
  std::set<SourcePoint> LateAt;
  for (const Group::WholeCopy &C : G.WholeCopies)
    if (G.LateCopies.count(C.Call))
      LateAt.insert(ST.point(C.Call->getBeginLoc()));
    else
      CopyAt[ST.point(C.Call->getBeginLoc())] = &C;
  std::map<SourcePoint, const Group::Partial *> PartialAt;
  for (const auto &[Call, P] : Repeated)
    PartialAt[ST.point(Call->getBeginLoc())] = P;
  // After the statement that holds \p Call, on a line of its own.
  auto After = [&](const CallExpr *Call, const std::string &Text) -> std::optional<TextEdit> {
    SourceLocation Semi = Lexer::findLocationAfterToken(SM.getExpansionLoc(Call->getEndLoc()),
                                                        tok::semi, SM, Ctx.getLangOpts(), false);
    if (Semi.isInvalid())
      return std::nullopt;
    return ST.insertBefore(Semi, "\n" + ST.indentOf(Call->getBeginLoc()) + Text);
  };
  for (HostUse &U : G.R.Uses) {
    if (U.Kind == HostUseKind::Other || U.Kind == HostUseKind::Launch)
      continue;
    U.Removal.clear();
    auto C = CopyAt.find(U.Where);
    auto P = PartialAt.find(U.Where);
    if (U.Kind == HostUseKind::Alloc)
      U.Removal.push_back(ST.insertBefore(DeclEnd->getEnd(), "\n" + DeclIndent + "CUtensorMap " + Value + ";"));
    if (U.Kind == HostUseKind::Copy && P != PartialAt.end()) {
      // The same write on the value: `memset(&d_value.opaque[6], b, n)`.
      const Group::Partial &W = *P->second;
      std::string Dest = W.Offset ? "&" + Value + ".opaque[" + std::to_string(W.Offset / 8) + "]"
                                  : "&" + Value;
      std::optional<TextEdit> E = After(W.Call, W.Callee + "(" + Dest + W.Rest + ");");
      if (!E)
        return Refuse(W.Call, "the end of this write's statement is not found");
      U.Removal.push_back(*E);
      U.What += " (kept: '" + Value + "' takes the same write)";
      continue;
    }
    if (U.Kind == HostUseKind::Copy && LateAt.count(U.Where)) {
      U.What += " (kept: it lands after every launch, and '" + Value + "' does not take it)";
      continue;
    }
    if (U.Kind != HostUseKind::Copy || C == CopyAt.end())
      continue; // an allocation, a free or another partial write stays as it is
    std::optional<TextEdit> E = After(C->second->Call, Value + " = " + C->second->SourceText + ";");
    if (!E)
      return Refuse(C->second->Call, "the end of this copy's statement is not found");
    U.Removal.push_back(*E);
    U.What += " (kept: '" + Value + "' takes what it copies)";
  }
  // A launch in Main passes the value (an argument array's slot, its
  // address); a launcher's launch stays `*m`, m now the value's address.
  for (RetargetedLaunch &L : G.R.Launches) {
    if (L.Fn != Main)
      continue;
    L.Edit = L.Bare;
    L.Edit.Text = L.Bare.Text + Value;
  }
  for (const auto &[Arg, Range] : ToLaunchers) {
    HostUse U;
    U.Where = ST.point(Arg->getBeginLoc());
    U.What = "the launcher is passed the address of '" + Value + "'";
    U.Removal.push_back(ST.replace(Range, "&" + Value));
    G.R.Uses.push_back(std::move(U));
  }
  G.R.Mirrored = true;
  // The note names the device copy by the variable allocated into, which
  // the value is named after, not by the storage a launch first read.
  G.R.Name = Root->getNameAsString();
  G.R.Where = ST.point(Root->getLocation());
  G.R.ValueName = Value;
  G.R.ValueSkipsLateCopies = !LateAt.empty();
  G.R.Kept = G.StayingAt;
  for (const SourcePoint &P : G.StayingAt)
    G.R.Touched.erase(P);
  return true;
}

} // namespace tma::analysis
