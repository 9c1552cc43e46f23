// Stream time for the storage rule (DeviceStorage.h), operation by
// operation: when each operation on a retargeted group runs, against when
// the retargeted text makes it (at its call), and when a stream-ordered copy
// reads its source.
#include "DeviceStorage.h"

#include "StorageIndex.h"

#include "../core/Climb.h"
#include "../core/CudaApi.h"
#include "../core/Types.h"

#include "clang/AST/ExprCXX.h"

using namespace clang;

namespace tma::analysis {

std::vector<const Stmt *> DeviceStorage::anchorsIn(const FunctionDecl *Main, const CallExpr *Call,
                                                   const FunctionDecl *Fn) {
  if (!Call || !Fn || !Main)
    return {};
  if (Fn->getCanonicalDecl() == Main->getCanonicalDecl())
    return {Call};
  // A launcher's launch: made where the launcher is called.
  return callsFrom(Main, Fn);
}

std::vector<const Stmt *> DeviceStorage::callsFrom(const FunctionDecl *Main, const FunctionDecl *Fn) {
  auto It = Idx->FunctionUses.find(Fn->getCanonicalDecl());
  if (It == Idx->FunctionUses.end() || Fn->isExternallyVisible() ||
      Idx->AddressTaken.count(Fn->getCanonicalDecl()))
    return {};
  std::vector<const Stmt *> Out;
  for (const auto &[Ref, Caller] : It->second) {
    if (!Caller || Caller->getCanonicalDecl() != Main->getCanonicalDecl() ||
        !Idx->DirectCalls.count(Ref))
      return {};
    const Stmt *P =
        climb(Ref, [&](const Stmt *S) { return parent(Main, S); }, parensAndImplicitCasts).Parent;
    if (!isa_and_nonnull<CallExpr>(P))
      return {};
    Out.push_back(P);
  }
  return Out;
}

std::optional<const ValueDecl *> DeviceStorage::streamIn(const FunctionDecl *Main,
                                                         const CallExpr *Call,
                                                         const FunctionDecl *Fn) {
  std::optional<const ValueDecl *> Stream = streamOf(Call, Fn);
  // A stream variable of another function (a launcher's parameter) is not
  // one Main's waits name.
  if (Stream && *Stream && Fn->getCanonicalDecl() != Main->getCanonicalDecl())
    return std::nullopt;
  return Stream;
}

std::vector<const Stmt *>
DeviceStorage::coveringWaits(const FunctionDecl *Main, std::optional<const ValueDecl *> Stream) {
  auto [It, New] = HostWaits.try_emplace(Main);
  if (New) {
    std::function<void(const Stmt *)> Walk = [&](const Stmt *S) {
      if (!S)
        return;
      if (const auto *CE = dyn_cast<CallExpr>(S))
        if (std::optional<HostWait> W = hostWaitOf(CE, Main))
          It->second.push_back({CE, *W});
      for (const Stmt *C : S->children())
        Walk(C);
    };
    Walk(Main->getBody());
  }
  std::vector<const Stmt *> Out;
  for (const auto &[Call, W] : It->second)
    if (W.All || (Stream && W.Stream && *W.Stream == *Stream))
      Out.push_back(Call);
  return Out;
}

std::optional<std::pair<const Stmt *, std::string>> DeviceStorage::heldWorkDisagrees(Group &G) {
  const FunctionDecl *Main = G.FirstCopyFn;
  auto No = [](const Stmt *At, std::string Why) {
    return std::make_optional(std::make_pair(At, std::move(Why)));
  };
  // Not placed: the operation-by-operation rule does not answer (empty
  // message), and the group-wide rule's message stands.
  if (!Main || !Main->getBody() || !In.ReachesAvoiding || !In.MayBeHeld)
    return No(G.HeldAt, "");
  struct Placed {
    const Group::Op *Op;
    std::vector<const Stmt *> Anchors;
    std::optional<const ValueDecl *> Stream;
    bool Held, Writes;
  };
  std::vector<Placed> Ops;
  for (const Group::Op &O : G.Ops) {
    Placed P{&O, anchorsIn(Main, O.Call, O.Fn), std::nullopt, false, !O.Launch};
    if (P.Anchors.empty())
      return No(O.Call ? O.Call : G.HeldAt, "");
    P.Stream = streamIn(Main, O.Call, O.Fn);
    P.Held = In.MayBeHeld(O.Call, O.Fn);
    Ops.push_back(std::move(P));
  }
  // Storage that only Main's call uses: its locals, and parameters of
  // functions only Main calls.
  bool Local = llvm::all_of(G.Members, [&](const std::string &K) {
    const StorageNode &N = Idx->Nodes[K];
    const FunctionDecl *Fn = localOf(N);
    if (!Fn)
      return false;
    bool Parameter = isa<ParmVarDecl>(N.D);
    if (Fn->getCanonicalDecl() == Main->getCanonicalDecl())
      return !Parameter;
    return Parameter && !callsFrom(Main, Fn).empty();
  });
  std::string Name = "'" + G.R.Name + "'";
  std::string Hold = In.StreamHold ? " (" + In.StreamHold() + ")" : std::string();
  auto What = [&](const Placed &P) { return (P.Op->Launch ? "launch of " : "write of ") + Name; };
  auto Line = [&](const Stmt *S) { return std::to_string(ST.point(S->getBeginLoc()).Line); };
  // Out of order or not, two writes of one value, or a write of the value
  // the retargeted launch passes, leave each launch reading what it did.
  auto SameValue = [&](const Placed &A, const Stmt *At, const Placed &B, const Stmt *Bt) {
    if (A.Writes && B.Writes)
      return writeOneValue(G, Main, {At, Bt});
    return A.Writes ? writeMatchesLaunch(G, Main, At, Bt) : writeMatchesLaunch(G, Main, Bt, At);
  };
  for (const Placed &A : Ops) {
    if (!A.Held)
      continue;
    std::vector<const Stmt *> Waits = coveringWaits(Main, A.Stream);
    // An operation of Main's that waits behind a hold only known stores
    // let go.
    std::optional<std::vector<const Stmt *>> Releases;
    if (In.ReleasesOf && A.Op->Fn && A.Op->Fn->getCanonicalDecl() == Main->getCanonicalDecl())
      Releases = In.ReleasesOf(A.Op->Call, A.Op->Fn);
    // A write the value form leaves on the device (a kernel that writes
    // the device copy, a partial write it does not repeat), held until a
    // known release: a launch made before every release it may wait for
    // runs before it lands, and passes the value, which never takes it.
    bool DeviceOnly = G.ValueForm && A.Writes && Releases &&
                      (llvm::any_of(G.Staying, [&](const auto &S) { return S.first == A.Op->Call; }) ||
                       llvm::any_of(G.Partials, [&](const Group::Partial &P) { return P.Call == A.Op->Call; }));
    auto LandsAfter = [&](const Stmt *Bt) {
      return llvm::none_of(*Releases, [&](const Stmt *R) { return In.ReachesAvoiding(R, Bt, Waits, Main); });
    };
    // A launch that runs at its call, where A (held) has not landed or has
    // landed in the text's order, and passes the map the copies that have
    // landed copy (passesLanded), reads neither A's effect nor the order
    // of A and a later write. Two writes that run out of order differ only
    // for another launch made after both calls: one made before the later
    // call reads neither's effect in the retargeted text, and in the
    // original it runs before the later write (on its stream) or is itself
    // held out of order with it.
    auto RunsBeforeLanding = [&](const Placed &L, const Stmt *Lt) {
      return A.Writes && Releases && !L.Held && LandsAfter(Lt) &&
             passesLanded(G, Main, L.Op->Call, Lt);
    };
    // A whole copy that runs at its call, once both writes have landed (a
    // host wait covering each held one's stream comes first on every
    // path), replaces what either wrote: a launch only after it reads
    // neither.
    auto LaunchAfterThat = [&](const Stmt *At, const Placed &B, const Stmt *Bt) {
      std::vector<const Stmt *> Replaced =
          copiesAfterBoth(G, Main, At, A.Held, A.Stream, Bt, B.Held, B.Stream);
      for (const Placed &L : Ops) {
        if (!L.Op->Launch)
          continue;
        // A captured launch runs at its graph's replays.
        if (std::optional<std::vector<const Stmt *>> Replays = replaysOf(L.Op->Call, Main)) {
          if (llvm::any_of(*Replays, [&](const Stmt *R) { return In.ReachesAvoiding(Bt, R, Replaced, Main); }))
            return true;
          continue;
        }
        for (const Stmt *Lt : L.Anchors)
          if (In.ReachesAvoiding(Bt, Lt, Replaced, Main) && !RunsBeforeLanding(L, Lt))
            return true;
      }
      return false;
    };
    for (const Stmt *At : A.Anchors) {
      // Storage that outlives Main's call is used again by the next call.
      if (!Local && In.ReachesAvoiding(At, nullptr, Waits, Main))
        return No(At, "this " + What(A) + " is enqueued on a stream that may be held" + Hold +
                          " and may still wait when '" + Main->getNameAsString() + "' returns, which " +
                          Name + " outlives: the next call's operations on it may run first");
      // A copy that lands after every launch: no launch reads it, nor the
      // order it lands in with other writes.
      if (G.LateCopies.count(A.Op->Call))
        continue;
      if (A.Op->Launch && Releases && readsAtRelease(G, Main, A.Op->Call, *Releases, Waits))
        continue;
      for (const Placed &B : Ops) {
        if (&A == &B || !(A.Writes || B.Writes) || G.LateCopies.count(B.Op->Call))
          continue;
        // One stream runs its work in the order it is enqueued.
        if (A.Stream && B.Stream && *A.Stream == *B.Stream)
          continue;
        for (const Stmt *Bt : B.Anchors)
          if (In.ReachesAvoiding(At, Bt, Waits, Main) &&
              !(DeviceOnly && B.Op->Launch && !B.Held && LandsAfter(Bt)) &&
              !(B.Op->Launch && RunsBeforeLanding(B, Bt)) &&
              (!A.Writes || !B.Writes || LaunchAfterThat(At, B, Bt)) && !SameValue(A, At, B, Bt))
            return No(Bt, "this " + What(B) + " may run before the " + What(A) + " at line " +
                              Line(At) + ", which waits on a stream that may be held" + Hold +
                              " until a host wait covers it, where the retargeted text makes each "
                              "at its call");
      }
    }
  }
  return std::nullopt;
}

std::vector<const Stmt *> DeviceStorage::copiesAfterBoth(Group &G, const FunctionDecl *Main,
                                                         const Stmt *A, bool AHeld,
                                                         std::optional<const ValueDecl *> AStream,
                                                         const Stmt *B, bool BHeld,
                                                         std::optional<const ValueDecl *> BStream) {
  std::vector<const Stmt *> AWaits = AHeld ? coveringWaits(Main, AStream) : std::vector<const Stmt *>();
  std::vector<const Stmt *> BWaits = BHeld ? coveringWaits(Main, BStream) : std::vector<const Stmt *>();
  auto Landed = [&](const Stmt *X, bool Held, llvm::ArrayRef<const Stmt *> Waits, const Stmt *W) {
    return !Held || !In.ReachesAvoiding(X, W, Waits, Main);
  };
  std::vector<const Stmt *> Copies;
  for (const Stmt *W : copiesAtCall(G, Main))
    if (W != A && W != B && Landed(A, AHeld, AWaits, W) && Landed(B, BHeld, BWaits, W))
      Copies.push_back(W);
  return Copies;
}

std::optional<std::vector<const Stmt *>> DeviceStorage::replaysOf(const CallExpr *Launch,
                                                                  const FunctionDecl *Main) {
  const Captures &C = captures();
  if (!Launch || !C.List || !In.Between)
    return std::nullopt;
  std::optional<const ValueDecl *> S = streamIn(Main, Launch, Main);
  for (const GraphCapture &Cap : *C.List)
    if (S && *S && Cap.Stream == *S && Cap.Fn == Main && In.Between(Cap.Begin, Cap.End, Launch, Main))
      return std::vector<const Stmt *>(Cap.Replays.begin(), Cap.Replays.end());
  if (const GraphCapture *Cap = S ? nullptr : roundCaptureOf(Launch, Main))
    return std::vector<const Stmt *>(Cap->Replays.begin(), Cap->Replays.end());
  return std::nullopt;
}

bool DeviceStorage::passesLanded(Group &G, const FunctionDecl *Main, const CallExpr *Launch,
                                 const Stmt *At) {
  if (!Launch || At != Launch)
    return false;
  if (G.PassSource.count(Launch))
    return true;
  // The writes that may have landed when the launch runs at its call: all
  // but the held ones that land only after a release it does not follow.
  std::vector<const Stmt *> Landed;
  for (const Group::Op &X : G.Ops) {
    if (X.Launch)
      continue;
    if (!X.Call || X.Fn->getCanonicalDecl() != Main->getCanonicalDecl())
      return false;
    std::vector<const Stmt *> XWaits = coveringWaits(Main, streamIn(Main, X.Call, X.Fn));
    if (In.MayBeHeld(X.Call, X.Fn) && In.ReachesAvoiding(X.Call, At, XWaits, Main)) {
      // Landed only after a release none of which may come before the
      // launch (on a path through a release and a wait it has landed, on
      // one without it has not: not one answer).
      std::optional<std::vector<const Stmt *>> Releases = In.ReleasesOf(X.Call, X.Fn);
      if (!Releases || llvm::any_of(*Releases, [&](const Stmt *R) {
            return In.ReachesAvoiding(X.Call, R, {}, Main) && In.ReachesAvoiding(R, At, {}, Main);
          }))
        return false;
      continue;
    }
    // Held, but a host wait covering its stream comes between it and the
    // launch on every path: it has landed, in the text's order where no
    // other write may be made while it waits.
    if (In.MayBeHeld(X.Call, X.Fn))
      for (const Group::Op &Y : G.Ops)
        if (!Y.Launch && &Y != &X && In.ReachesAvoiding(X.Call, Y.Call, XWaits, Main))
          return false;
    Landed.push_back(X.Call);
  }
  // Of those, the last before the launch on some path.
  std::vector<const Stmt *> Last = lastOf(Main, Landed, At);
  if (Last.empty())
    return false;
  // A held write among them may still be pending: only ones made at their call.
  if (llvm::any_of(Last, [&](const Stmt *X) { return In.MayBeHeld(cast<CallExpr>(X), Main); }))
    return false;
  const VarDecl *Source = sourceLandedBefore(G, Main, Launch, Last);
  if (Source)
    G.PassSource[Launch] = Source;
  return Source != nullptr;
}

bool DeviceStorage::readsAtRelease(Group &G, const FunctionDecl *Main, const CallExpr *Launch,
                                   llvm::ArrayRef<const Stmt *> Releases,
                                   llvm::ArrayRef<const Stmt *> Waits) {
  const Stmt *At = Launch;
  // A use no row classifies may write at any time after it: only ones the
  // kernel has read the device copy before are harmless. (Partial writes
  // and the launches of kernels that write the device copy are writes of
  // the group, which no copy of one value matches below.)
  if (!unknownsAfter(G, Main, Launch))
    return false;
  // The releases the launch may wait for, one on every path from it to a
  // covering wait or the return (none: the original never runs it then).
  std::vector<const Stmt *> Reached;
  for (const Stmt *R : Releases)
    if (In.ReachesAvoiding(At, R, Waits, Main))
      Reached.push_back(R);
  if (Reached.empty() || In.ReachesAvoiding(At, nullptr, Reached, Main))
    return false;
  for (const Stmt *W : Waits)
    if (In.ReachesAvoiding(At, W, Reached, Main))
      return false;
  // Writes its own stream runs after it: they cannot change what it reads.
  std::vector<const Stmt *> Later = runAfterOnItsStream(G, Main, Launch);
  // No other write of the group runs while the launch may: none between a
  // release and a covering wait, none held out of the text's order at a
  // release.
  for (const Group::Op &X : G.Ops) {
    if (X.Launch || llvm::is_contained(Later, X.Call))
      continue;
    if (!X.Call || X.Fn->getCanonicalDecl() != Main->getCanonicalDecl())
      return false;
    for (const Stmt *R : Reached)
      if (In.ReachesAvoiding(R, X.Call, Waits, Main))
        return false;
  }
  for (const Stmt *R : Reached)
    if (heldWriteLandsLate(G, Main, R, Later))
      return false;
  // It reads what the writes last before a release wrote; the retargeted
  // launch passes what those last before it wrote, or the map they copy.
  std::vector<const Stmt *> Read;
  for (const Stmt *R : Reached) {
    std::vector<const Stmt *> Last = lastWritesBefore(G, Main, R, Later);
    if (Last.empty())
      return false;
    llvm::append_range(Read, Last);
  }
  std::vector<const Stmt *> Set = lastWritesBefore(G, Main, At);
  if (!Set.empty()) {
    llvm::append_range(Set, Read);
    if (writeOneValue(G, Main, Set))
      return true;
  }
  if (const VarDecl *Source = sourceReadLater(G, Main, Launch, Read)) {
    G.PassSource[Launch] = Source;
    return true;
  }
  return false;
}

std::vector<const Stmt *> DeviceStorage::runAfterOnItsStream(Group &G, const FunctionDecl *Main,
                                                             const CallExpr *Launch) {
  std::vector<const Stmt *> Later;
  std::optional<const ValueDecl *> Stream = streamIn(Main, Launch, Main);
  if (!Stream || !*Stream)
    return Later; // the default stream: its order with other streams is the legacy one
  for (const Group::Op &X : G.Ops)
    if (!X.Launch && X.Call && X.Fn->getCanonicalDecl() == Main->getCanonicalDecl() &&
        streamIn(Main, X.Call, X.Fn) == Stream && !In.ReachesAvoiding(X.Call, Launch, {}, Main))
      Later.push_back(X.Call);
  return Later;
}

bool DeviceStorage::heldWriteLandsLate(Group &G, const FunctionDecl *Main, const Stmt *P,
                                       llvm::ArrayRef<const Stmt *> Except) {
  for (const Group::Op &X : G.Ops) {
    if (X.Launch || llvm::is_contained(Except, X.Call))
      continue;
    if (!X.Call || X.Fn->getCanonicalDecl() != Main->getCanonicalDecl())
      return true;
    if (!In.MayBeHeld(X.Call, X.Fn) || !In.ReachesAvoiding(X.Call, P, {}, Main))
      continue;
    std::vector<const Stmt *> XWaits = coveringWaits(Main, streamOf(X.Call, X.Fn));
    // Still waiting at P, or out of order with a write made while it waits.
    if (In.ReachesAvoiding(X.Call, P, XWaits, Main))
      return true;
    // The order of the two matters only where no copy replaces both
    // before P.
    for (const Group::Op &Y : G.Ops) {
      if (Y.Launch || &Y == &X || llvm::is_contained(Except, Y.Call))
        continue;
      if (!Y.Call)
        return true; // a write not placed
      if (!In.ReachesAvoiding(X.Call, Y.Call, XWaits, Main))
        continue;
      std::optional<const ValueDecl *> YStream = streamIn(Main, Y.Call, Y.Fn);
      std::vector<const Stmt *> Replaced =
          copiesAfterBoth(G, Main, X.Call, true, streamIn(Main, X.Call, X.Fn), Y.Call,
                          In.MayBeHeld(Y.Call, Y.Fn), YStream);
      if (In.ReachesAvoiding(Y.Call, P, Replaced, Main))
        return true;
    }
  }
  return false;
}

bool DeviceStorage::hostUnchangedBetween(const FunctionDecl *Main, const VarDecl *Source,
                                         const Stmt *From, const Stmt *To,
                                         llvm::ArrayRef<const Stmt *> Device) {
  return In.HostUnchangedBetween(
      Source, From, To, Main, [&](const Stmt *X) { return callbackRunsOutside(Main, X, From, To); },
      Device);
}

bool DeviceStorage::callbackRunsOutside(const FunctionDecl *Main, const Stmt *X,
                                        const Stmt *From, const Stmt *To) {
  const auto *Call = dyn_cast<CallExpr>(X);
  const CudaApi *Api = Call ? cudaApiOf(Call) : nullptr;
  if (!Api || Api->Role != ApiRole::HostCallback || !In.ReachesAvoiding)
    return false;
  // Behind a hold that only releases after To let go: not started by To.
  if (In.ReleasesOf)
    if (std::optional<std::vector<const Stmt *>> Releases = In.ReleasesOf(Call, Main);
        Releases && llvm::none_of(*Releases, [&](const Stmt *R) {
          return In.ReachesAvoiding(X, R, {}, Main) && In.ReachesAvoiding(R, To, {}, Main);
        }))
      return true;
  // Finished before From (a host wait covering its stream on every path
  // from it to From), and not enqueued again between From and To.
  std::vector<const Stmt *> Waits = coveringWaits(Main, streamIn(Main, Call, Main));
  return !In.ReachesAvoiding(X, From, Waits, Main) &&
         !(In.ReachesAvoiding(From, X, {}, Main) && In.ReachesAvoiding(X, To, {}, Main));
}

const VarDecl *DeviceStorage::sourceReadLater(Group &G, const FunctionDecl *Main,
                                              const CallExpr *Launch,
                                              llvm::ArrayRef<const Stmt *> Last) {
  const VarDecl *Source = copiedMap(G, Main, Launch, Last);
  if (!Source)
    return nullptr;
  for (const Stmt *C : Last)
    if (!hostUnchangedBetween(Main, Source, Launch, C))
      return nullptr;
  return Source;
}

const VarDecl *DeviceStorage::sourceLandedBefore(Group &G, const FunctionDecl *Main,
                                                 const CallExpr *Launch,
                                                 llvm::ArrayRef<const Stmt *> Landed) {
  if (!unknownsAfter(G, Main, Launch))
    return nullptr;
  const VarDecl *Source = copiedMap(G, Main, Launch, Landed);
  if (!Source)
    return nullptr;
  for (const Stmt *C : Landed)
    if (!hostUnchangedBetween(Main, Source, C, Launch))
      return nullptr;
  return Source;
}

const VarDecl *DeviceStorage::copiedMap(Group &G, const FunctionDecl *Main, const CallExpr *Launch,
                                        llvm::ArrayRef<const Stmt *> Copies) {
  if (Copies.empty() || !In.HostUnchangedBetween ||
      llvm::none_of(G.R.Launches, [&](const RetargetedLaunch &L) { return L.launchCall() == Launch; }) ||
      !writeOneValue(G, Main, std::vector<const Stmt *>(Copies.begin(), Copies.end())))
    return nullptr;
  // The map named by the first copy's own text (a copy from page-locked
  // memory names none, though writeOneValue reads the map staged into it).
  auto Copy = llvm::find_if(G.WholeCopies, [&](const Group::WholeCopy &C) { return C.Call == Copies.front(); });
  const VarDecl *Source = Copy != G.WholeCopies.end() ? Copy->Source : nullptr;
  if (!Source || Copy->SourceText != Source->getName())
    return nullptr;
  // Declared before the launch, in a block around it.
  const Stmt *Decl = nullptr;
  std::function<void(const Stmt *)> Find = [&](const Stmt *S) {
    if (!S || Decl)
      return;
    if (const auto *DS = dyn_cast<DeclStmt>(S); DS && llvm::is_contained(DS->decls(), Source))
      Decl = DS;
    for (const Stmt *C : S->children())
      Find(C);
  };
  Find(Main->getBody());
  const auto *Block = Decl ? dyn_cast_or_null<CompoundStmt>(parent(Main, Decl)) : nullptr;
  SourceManager &SM = Ctx.getSourceManager();
  if (!Block || !SM.isBeforeInTranslationUnit(Decl->getEndLoc(), Launch->getBeginLoc()) ||
      !SM.isBeforeInTranslationUnit(Launch->getEndLoc(), Block->getRBracLoc()))
    return nullptr;
  return Source;
}

void DeviceStorage::findLateCopies(Group &G) {
  const FunctionDecl *Main = valueFormScope(G);
  if (!Main || !Idx->GraphCalls.empty() || !In.ReleasesOf || !In.MayBeHeld || !In.ReachesAvoiding)
    return;
  for (const Group::WholeCopy &C : G.WholeCopies)
    if (C.Fn == Main && landsAfterEveryLaunch(G, Main, C.Call))
      G.LateCopies.insert(C.Call);
  // All the held copies or none: where some land before a launch, the
  // value takes every held copy at its call, one rule for the reader (and
  // for the semantic fuzzer's oracle, which judges one snapshot per map).
  for (const Group::WholeCopy &C : G.WholeCopies)
    if (!G.LateCopies.count(C.Call) && In.MayBeHeld(C.Call, C.Fn)) {
      G.LateCopies.clear();
      return;
    }
}

bool DeviceStorage::landsAfterEveryLaunch(Group &G, const FunctionDecl *Main, const CallExpr *W) {
  if (!In.MayBeHeld(W, Main))
    return false;
  std::optional<std::vector<const Stmt *>> Releases = In.ReleasesOf(W, Main);
  if (!Releases)
    return false;
  // The releases that may let it go: those that may come after it before
  // a host wait covering its stream.
  std::vector<const Stmt *> Ran = coveringWaits(Main, streamIn(Main, W, Main));
  std::vector<const Stmt *> From;
  for (const Stmt *R : *Releases)
    if (In.ReachesAvoiding(W, R, Ran, Main))
      From.push_back(R);
  if (From.empty())
    return false;
  for (const Group::Op &L : G.Ops) {
    if (!L.Launch)
      continue;
    std::vector<const Stmt *> Anchors = anchorsIn(Main, L.Call, L.Fn);
    if (Anchors.empty() || In.MayBeHeld(L.Call, L.Fn))
      return false;
    for (const Stmt *At : Anchors)
      if (llvm::any_of(From, [&](const Stmt *R) { return In.ReachesAvoiding(R, At, {}, Main); }))
        return false;
  }
  return true;
}

DeviceStorage::StagingWrites DeviceStorage::stagingWritesOf(Group &G, const CallExpr *Copy,
                                                            const FunctionDecl *CopyFn,
                                                            const VarDecl *Pin) {
  StagingWrites Out;
  std::string Name = "'" + Pin->getNameAsString() + "'";
  auto Dont = [&](const Stmt *At, const std::string &What) {
    Out.At = At;
    Out.Why = What;
    return Out;
  };
  const auto *Fn = dyn_cast<FunctionDecl>(Pin->getDeclContext());
  if (!Fn || !CopyFn || Fn->getCanonicalDecl() != CopyFn->getCanonicalDecl() || Pin->isStaticLocal())
    return Dont(Copy, Name + " is not a local variable of the function that copies");
  if (Pin->getInit() && !Pin->getInit()->IgnoreParenImpCasts()->isNullPointerConstant(
                          Ctx, Expr::NPC_ValueDependentIsNotNull))
    return Dont(Copy, Name + " is given a value where it is declared");
  auto It = Idx->Nodes.find(Idx->variableKey(Pin));
  if (It == Idx->Nodes.end() || !It->second.Defs.empty())
    return Dont(Copy, Name + " is given a value other than a page-locked allocation");
  // Every use of the pointer, classified: what writes `*pin`, and where.
  for (const StorageRef &R : It->second.Uses) {
    auto Up = [&](const Stmt *S) { return parent(CopyFn, S); };
    Climbed C = climb(R.E, Up, parens);
    const Stmt *Par = C.Parent;
    if (const auto *UO = dyn_cast_or_null<UnaryOperator>(Par); UO && UO->getOpcode() == UO_AddrOf) {
      Climbed CA = climb(UO, Up, parensAndCasts);
      const auto *Call = dyn_cast_or_null<CallExpr>(CA.Parent);
      const CudaApi *Api = cudaApiOf(Call);
      if (Api && Api->Role == ApiRole::HostAlloc && isArgAt(Call, Api->Dest, CA.Child)) {
        Out.Writes.push_back(Call); // a new object
        continue;
      }
      return Dont(UO, "the address of " + Name + " is taken here");
    }
    // Through conversions: a read of the pointer's value.
    Climbed CV = climb(R.E, Up, parensAndCasts);
    const Stmt *V = CV.Parent;
    if (const auto *Call = dyn_cast_or_null<CallExpr>(V)) {
      const CudaApi *Api = cudaApiOf(Call);
      bool Src = Api && isArgAt(Call, Api->Src, CV.Child) &&
                 llvm::any_of(G.PointerCopies, [&](const Group::PointerCopy &X) { return X.Call == Call; });
      bool Free = Api && Api->Role == ApiRole::HostFree && isArgAt(Call, Api->Dest, CV.Child);
      if (Src)
        continue;
      if (Free) {
        Out.Writes.push_back(Call);
        continue;
      }
      return Dont(Call, Name + " is passed here");
    }
    if (const auto *D = dyn_cast_or_null<UnaryOperator>(V); D && D->getOpcode() == UO_Deref) {
      // `*pin = value`: a write of the object; `*pin` read as a value.
      Climbed CD = climb(D, Up, parensAndImplicitCasts);
      const Stmt *Q = CD.Parent;
      if (const auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(Q);
          Op && Op->getOperator() == OO_Equal && Op->getArg(0) == CD.Child) {
        Out.Writes.push_back(Op);
        continue;
      }
      if (const auto *BO = dyn_cast_or_null<BinaryOperator>(Q);
          BO && BO->getOpcode() == BO_Assign && BO->getLHS() == CD.Child) {
        Out.Writes.push_back(BO);
        continue;
      }
      const auto *CC = dyn_cast_or_null<CXXConstructExpr>(Q);
      if (CC && CC->getConstructor()->isCopyOrMoveConstructor() && CC->getNumArgs() == 1)
        continue; // a copy of the object
      if (const auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(Q);
          Op && Op->getOperator() == OO_Equal && Op->getNumArgs() == 2 && Op->getArg(1) == CD.Child)
        continue; // `h = *pin`
      return Dont(D, "'*" + Pin->getNameAsString() + "' is used here in a way the tool does not follow");
    }
    return Dont(R.E, Name + " is used here in a way the tool does not follow");
  }
  return Out;
}

bool DeviceStorage::pointerCopiesReadAtCall(Group &G) {
  for (const Group::PointerCopy &PC : G.PointerCopies) {
    if (G.LateCopies.count(PC.Call))
      continue; // what it reads, no launch reads
    const VarDecl *P = PC.Source;
    const CudaApi *CopyApi = cudaApiOf(PC.Call);
    std::string Copy = "the " + CopyApi->Name.str() + " into '" + G.R.Name + "'";
    auto Dont = [&](const Stmt *At, const std::string &What) {
      return refuse(G, At, What + ": " + Copy + " reads '*" + P->getNameAsString() +
                               "' when its stream runs it, not at the call");
    };
    StagingWrites S = stagingWritesOf(G, PC.Call, PC.Fn, PC.Source);
    if (!S.Why.empty())
      return Dont(S.At, S.Why);
    std::optional<const ValueDecl *> Stream = streamOf(PC.Call, PC.Fn);
    std::vector<const Stmt *> Waits = coveringWaits(PC.Fn, Stream);
    for (const Stmt *W : S.Writes)
      if (In.ReachesAvoiding(PC.Call, W, Waits, PC.Fn) && !sameStagedValue(PC.Fn, PC.Call, W, S.Writes))
        return Dont(W, "'*" + P->getNameAsString() +
                           "' is written or freed here before a host wait that covers the copy's "
                           "stream");
  }
  return true;
}

/// The local map a write `*pin = m;` stores, or null.
static const VarDecl *storedMap(const Stmt *W) {
  const Expr *Value = nullptr;
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(W); Op && Op->getNumArgs() == 2)
    Value = Op->getArg(1);
  else if (const auto *BO = dyn_cast<BinaryOperator>(W); BO && BO->getOpcode() == BO_Assign)
    Value = BO->getRHS();
  const auto *R = Value ? dyn_cast<DeclRefExpr>(Value->IgnoreParenImpCasts()) : nullptr;
  const auto *V = R ? dyn_cast<VarDecl>(R->getDecl()) : nullptr;
  return V && V->hasLocalStorage() && !V->getType()->isReferenceType() &&
                 isTensorMapRecord(V->getType())
             ? V
             : nullptr;
}

bool DeviceStorage::sameStagedValue(const FunctionDecl *Fn, const Stmt *Copy, const Stmt *W,
                                    llvm::ArrayRef<const Stmt *> Writes) {
  const VarDecl *Map = storedMap(W);
  if (!Map || !Fn || Map->getDeclContext() != Fn)
    return false;
  std::vector<const Stmt *> Last = lastOf(Fn, Writes, Copy);
  if (Last.empty())
    return false;
  for (const Stmt *L : Last)
    if (L == W || storedMap(L) != Map || !hostUnchangedBetween(Fn, Map, L, W))
      return false;
  return true;
}

bool DeviceStorage::holdsOneValue(Group &G) {
  if (G.OneValue)
    return *G.OneValue;
  G.OneValue = false;
  const FunctionDecl *Main = localTo(G);
  if (!Main || G.PartialWrites || !G.PointerCopies.empty() || G.WholeCopies.empty() ||
      !In.DominatedBy || !In.HostUnchangedBetween || !In.MayBeHeld)
    return false;
  // Every copy of one local map of the function whose locals the storages
  // are (each call of it copies its own map into its own device copy),
  // unchanged between any copy and any copy that may run after it (itself
  // again, in a loop): each writes the value the first one wrote.
  std::vector<const Stmt *> Copies;
  for (const Group::WholeCopy &C : G.WholeCopies)
    Copies.push_back(C.Call);
  if (!writeOneValue(G, Main, Copies))
    return false;
  if (launchBeforeACopy(G, Main, copiesAtCall(G, Main)))
    return false;
  G.OneValue = true;
  return true;
}

DeviceStorage::StagedValue DeviceStorage::stagedMapAtCall(Group &G, const CallExpr *Copy,
                                                          const VarDecl *Pin, const FunctionDecl *Main) {
  // What it copies no launch reads, so nothing says when it reads it.
  if (G.LateCopies.count(Copy))
    return {};
  StagingWrites S = stagingWritesOf(G, Copy, Main, Pin);
  if (!S.Why.empty())
    return {};
  StagedValue Out;
  Out.ReadAt = lastOf(Main, S.Writes, Copy);
  for (const Stmt *L : Out.ReadAt) {
    const VarDecl *M = storedMap(L);
    if (!M || M->getDeclContext() != Main || (Out.Map && M != Out.Map))
      return {};
    Out.Map = M;
  }
  return Out;
}

bool DeviceStorage::writeOneValue(Group &G, const FunctionDecl *Main,
                                  std::vector<const Stmt *> Writes) {
  if (Writes.empty() || !In.HostUnchangedBetween)
    return false;
  const VarDecl *Source = nullptr;
  // Where each write reads the map: a whole copy at its call; a copy from
  // page-locked memory, which reads it at its call
  // (pointerCopiesReadAtCall, or the group is refused), where the staging
  // writes last before it stored the map, each where it was made.
  std::vector<const Stmt *> Reads;
  for (const Stmt *W : Writes) {
    auto C = llvm::find_if(G.WholeCopies, [&](const Group::WholeCopy &X) { return X.Call == W; });
    auto PC = llvm::find_if(G.PointerCopies, [&](const Group::PointerCopy &X) { return X.Call == W; });
    if (C == G.WholeCopies.end() || C->Fn != Main)
      return false;
    const VarDecl *From = C->Source;
    std::vector<const Stmt *> ReadAt{W};
    if (PC != G.PointerCopies.end()) {
      if (PC->Fn != Main)
        return false;
      StagedValue V = stagedMapAtCall(G, PC->Call, PC->Source, Main);
      From = V.Map;
      ReadAt = std::move(V.ReadAt);
    }
    if (!From || From->getDeclContext() != Main || (Source && From != Source))
      return false;
    Source = From;
    llvm::append_range(Reads, ReadAt);
  }
  // The copies themselves write only the device copy: between two reads
  // they change no map.
  for (const Stmt *From : Reads)
    for (const Stmt *To : Reads)
      if (!hostUnchangedBetween(Main, Source, From, To, Writes))
        return false;
  return true;
}

std::vector<const Stmt *> DeviceStorage::lastWritesBefore(Group &G, const FunctionDecl *Main,
                                                          const Stmt *At,
                                                          llvm::ArrayRef<const Stmt *> Except) {
  std::vector<const Stmt *> Writes;
  for (const Group::Op &O : G.Ops) {
    if (O.Launch || llvm::is_contained(Except, O.Call))
      continue;
    if (O.Fn != Main || !O.Call)
      return {};
    Writes.push_back(O.Call);
  }
  return lastOf(Main, Writes, At);
}

std::vector<const Stmt *> DeviceStorage::lastOf(const FunctionDecl *Main,
                                                llvm::ArrayRef<const Stmt *> Writes, const Stmt *At) {
  if (!In.DominatedBy || !In.DominatedBy(Writes, At, Main))
    return {};
  std::vector<const Stmt *> Last;
  for (const Stmt *X : Writes) {
    std::vector<const Stmt *> Others;
    for (const Stmt *Y : Writes)
      if (Y != X)
        Others.push_back(Y);
    if (In.ReachesAvoiding(X, At, Others, Main))
      Last.push_back(X);
  }
  return Last;
}

bool DeviceStorage::writeMatchesLaunch(Group &G, const FunctionDecl *Main, const Stmt *W,
                                       const Stmt *Launch) {
  const auto *Call = dyn_cast<CallExpr>(W);
  std::vector<const Stmt *> Set = lastWritesBefore(G, Main, Launch);
  if (!Call || Set.empty())
    return false;
  // A held write may run after a launch made later, which then reads what
  // was there before it.
  if (In.MayBeHeld(Call, Main)) {
    std::vector<const Stmt *> Before = lastWritesBefore(G, Main, W, {Call});
    if (Before.empty())
      return false;
    llvm::append_range(Set, Before);
  }
  Set.push_back(W);
  return writeOneValue(G, Main, Set);
}

std::vector<const Stmt *> DeviceStorage::copiesAtCall(Group &G, const FunctionDecl *Main) {
  std::vector<const Stmt *> AtCall;
  for (const Group::WholeCopy &C : G.WholeCopies)
    if (C.Fn == Main && !In.MayBeHeld(C.Call, C.Fn))
      AtCall.push_back(C.Call);
  return AtCall;
}

const Stmt *DeviceStorage::launchBeforeACopy(Group &G, const FunctionDecl *Main,
                                             llvm::ArrayRef<const Stmt *> AtCall) {
  // A launch that may run before every copy lands, or after a new
  // allocation no copy has written yet, reads what the device memory held
  // before.
  for (const Group::Op &O : G.Ops) {
    if (!O.Launch)
      continue;
    std::vector<const Stmt *> Anchors = anchorsIn(Main, O.Call, O.Fn);
    if (Anchors.empty())
      return O.Call ? O.Call : Main->getBody();
    for (const Stmt *A : Anchors) {
      if (!In.DominatedBy(AtCall, A, Main))
        return A;
      for (auto [Alloc, Fn] : G.AllocCalls)
        if (Fn != Main || In.ReachesAvoiding(Alloc, A, AtCall, Main))
          return A;
    }
  }
  return nullptr;
}

} // namespace tma::analysis
