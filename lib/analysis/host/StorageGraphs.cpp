// The storage rule's graphs (DeviceStorage.h): a launch of a group that a
// CUDA graph captures runs at each replay, reading the device copy then,
// where the retargeted launch passes `*d` as it was at the capture. The
// unit's captures are read whole (GraphCapture), and a captured launch is
// kept only where no write of its group may run between the capture and a
// replay.
#include "DeviceStorage.h"

#include "StorageIndex.h"

#include "../core/Climb.h"
#include "../core/CudaApi.h"
#include "../core/Types.h"

#include "clang/AST/ExprCXX.h"

using namespace clang;

namespace tma::analysis {

static const char *const UnreadGraph =
    "a CUDA graph is captured or replayed in this translation unit: a replay after a later copy "
    "would pass the descriptor it captured";

/// A local variable of \p Fn that \p E names (through parentheses and
/// casts), or null.
static const VarDecl *localVariable(const Expr *E) {
  const auto *R = dyn_cast<DeclRefExpr>(E->IgnoreParenCasts());
  const auto *V = R ? dyn_cast<VarDecl>(R->getDecl()) : nullptr;
  return V && V->hasLocalStorage() && !isa<ParmVarDecl>(V) ? V : nullptr;
}

/// The local variable whose address \p E is (`&g`), or null.
static const VarDecl *addressedVariable(const Expr *E) {
  const auto *UO = dyn_cast<UnaryOperator>(E->IgnoreParenCasts());
  return UO && UO->getOpcode() == UO_AddrOf ? localVariable(UO->getSubExpr()) : nullptr;
}

/// Every reference to \p V in \p S.
static void referencesTo(const Stmt *S, const VarDecl *V, std::vector<const DeclRefExpr *> &Out) {
  if (!S)
    return;
  if (const auto *R = dyn_cast<DeclRefExpr>(S); R && R->getDecl() == V)
    Out.push_back(R);
  for (const Stmt *C : S->children())
    referencesTo(C, V, Out);
}

std::optional<GraphCapture> DeviceStorage::readCapture(const CallExpr *Begin,
                                                       const FunctionDecl *Fn) {
  if (Begin->getNumArgs() < 1 || !Fn->getBody())
    return std::nullopt;
  GraphCapture Cap;
  Cap.Begin = Begin;
  Cap.Fn = Fn;
  Cap.Stream = localVariable(Begin->getArg(0));
  if (!Cap.Stream)
    return std::nullopt;
  auto Up = [&](const Stmt *S) { return parent(Fn, S); };
  // The call that takes \p R (or `&R`) as an argument, and which.
  auto CallTaking = [&](const DeclRefExpr *R, unsigned &Arg) -> const CallExpr * {
    Climbed C = climb(R, Up, parensAndCasts);
    if (const auto *UO = dyn_cast_or_null<UnaryOperator>(C.Parent);
        UO && UO->getOpcode() == UO_AddrOf)
      C = climb(UO, Up, parensAndCasts);
    const auto *Call = dyn_cast_or_null<CallExpr>(C.Parent);
    for (Arg = 0; Call && Arg < Call->getNumArgs(); ++Arg)
      if (Call->getArg(Arg) == C.Child)
        return Call;
    return nullptr;
  };
  std::vector<const DeclRefExpr *> Refs;
  referencesTo(Fn->getBody(), Cap.Stream, Refs);
  for (const DeclRefExpr *R : Refs) {
    unsigned Arg = 0;
    const CallExpr *Call = CallTaking(R, Arg);
    std::string Name = Call ? calleeName(Call) : std::string();
    if (Call == Begin)
      continue;
    if (Name == "cudaStreamBeginCapture" || Name == "cudaStreamBeginCaptureToGraph")
      return std::nullopt; // the stream captured twice: which work each takes is not read
    if (Name == "cudaStreamEndCapture" && Arg == 0) {
      if (Cap.End)
        return std::nullopt;
      Cap.End = Call;
    }
  }
  if (!Cap.End || Cap.End->getNumArgs() < 2)
    return std::nullopt;
  const VarDecl *Graph = addressedVariable(Cap.End->getArg(1));
  if (!Graph)
    return std::nullopt;
  // The graph is only instantiated and destroyed.
  std::vector<const VarDecl *> Execs;
  Refs.clear();
  referencesTo(Fn->getBody(), Graph, Refs);
  for (const DeclRefExpr *R : Refs) {
    unsigned Arg = 0;
    const CallExpr *Call = CallTaking(R, Arg);
    std::string Name = Call ? calleeName(Call) : std::string();
    if (Call == Cap.End || (Name == "cudaGraphDestroy" && Arg == 0))
      continue;
    if (!llvm::StringRef(Name).starts_with("cudaGraphInstantiate") || Arg != 1 || Call->getNumArgs() < 2)
      return std::nullopt;
    const VarDecl *Exec = addressedVariable(Call->getArg(0));
    if (!Exec)
      return std::nullopt;
    Execs.push_back(Exec);
  }
  // Each executable graph is only replayed and destroyed.
  for (const VarDecl *Exec : Execs) {
    Refs.clear();
    referencesTo(Fn->getBody(), Exec, Refs);
    for (const DeclRefExpr *R : Refs) {
      unsigned Arg = 0;
      const CallExpr *Call = CallTaking(R, Arg);
      std::string Name = Call ? calleeName(Call) : std::string();
      bool Kept = llvm::StringRef(Name).starts_with("cudaGraphInstantiate") ||
                  Name == "cudaGraphExecDestroy";
      if (Kept && Arg == 0)
        continue;
      if (Name != "cudaGraphLaunch" || Arg != 0)
        return std::nullopt;
      Cap.Replays.push_back(Call);
    }
  }
  return Cap;
}

const DeviceStorage::Captures &DeviceStorage::captures() {
  if (CapturesRead)
    return *CapturesRead;
  CapturesRead.emplace();
  auto Unread = [&](const Stmt *S) -> const Captures & {
    CapturesRead->Unread = S;
    return *CapturesRead;
  };
  // A wait for an event may join another stream's work to a capture.
  if (const Stmt *Wait = In.EventWaitAt ? In.EventWaitAt() : nullptr)
    return Unread(Wait);
  std::vector<GraphCapture> List;
  for (const auto &[Call, Fn] : Idx->GraphCalls) {
    llvm::StringRef Name = cudaApiOf(Call)->Name;
    if (Name == "cudaGraphLaunch")
      continue;
    std::optional<GraphCapture> Cap =
        Name == "cudaStreamBeginCapture" && Fn ? readCapture(Call, Fn) : std::nullopt;
    if (!Cap)
      return Unread(Call);
    List.push_back(std::move(*Cap));
  }
  // Every replay is one of a capture read here.
  for (const auto &[Call, Fn] : Idx->GraphCalls)
    if (cudaApiOf(Call)->Name != "cudaStreamBeginCapture" &&
        llvm::none_of(List, [&](const GraphCapture &C) { return llvm::is_contained(C.Replays, Call); }))
      return Unread(Call);
  CapturesRead->List = std::move(List);
  return *CapturesRead;
}

const GraphCapture *DeviceStorage::roundCaptureOf(const CallExpr *Op, const FunctionDecl *Fn) {
  // A stream created anew in each round of a loop names no one stream
  // through the function, but work enqueued through the capture's own
  // variable between its begin and its end is recorded into that graph.
  const Captures &C = captures();
  if (!Op || !C.List || !In.Between)
    return nullptr;
  for (const GraphCapture &X : *C.List)
    if (X.Stream == streamVariableOf(Op) && X.Fn == Fn && In.Between(X.Begin, X.End, Op, Fn))
      return &X;
  return nullptr;
}

bool DeviceStorage::capturedLaunchesAgree(Group &G) {
  const Captures &C = captures();
  std::string Name = "'" + G.R.Name + "'";
  // Captures not read whole: only work on the legacy default stream, which
  // no graph can capture, is known not to be replayed.
  if (!C.List)
    return G.Legacy || refuse(G, C.Unread ? C.Unread : Idx->GraphCalls.back().first, UnreadGraph);
  for (const Group::Op &O : G.Ops) {
    if (!O.Call)
      return refuse(G, Idx->GraphCalls.back().first, UnreadGraph); // a launch of an argument array not seen
    if (onLegacyStream(O.Call))
      continue;
    std::optional<const ValueDecl *> S = streamOf(O.Call, O.Fn);
    if (S && !*S)
      continue; // the default stream: no capture read here uses it
    const GraphCapture *Cap = nullptr;
    for (const GraphCapture &X : *C.List)
      if (S && X.Stream == *S)
        Cap = &X;
    if (!Cap && !S)
      Cap = roundCaptureOf(O.Call, O.Fn);
    if (!Cap) {
      const auto *V = S ? dyn_cast<VarDecl>(*S) : nullptr;
      if (V && V->hasLocalStorage() && !isa<ParmVarDecl>(V))
        continue; // a local stream no capture uses
      return refuse(G, O.Call, "this work on " + Name +
                                   " is enqueued on a stream a CUDA graph of this translation unit "
                                   "may capture, and a replay would run it again later");
    }
    if (O.Fn != Cap->Fn)
      return refuse(G, O.Call, UnreadGraph);
    if (!In.Between || !In.Between(Cap->Begin, Cap->End, O.Call, Cap->Fn))
      continue; // on the captured stream, but not while it is captured
    if (!O.Launch)
      return refuse(G, O.Call, "this write of " + Name +
                                   " is captured into a CUDA graph, whose replays make it again later");
    G.Captured = true;
    for (const CallExpr *Replay : Cap->Replays)
      G.Replays.push_back({Replay, Cap->Fn});
    // A replay reads what every copy writes alike.
    if (holdsOneValue(G))
      continue;
    const CallExpr *Mismatch = nullptr;
    for (const CallExpr *Replay : Cap->Replays) {
      noteHeld(G, Replay, Cap->Fn);
      for (const Group::Op &W : G.Ops) {
        if (W.Launch)
          continue;
        if (W.Fn != Cap->Fn)
          return refuse(G, W.Call, Name + " is written in another function, which may run between "
                                          "the capture of a launch into a CUDA graph and its replay");
        // A write of the value the launch was captured with changes nothing.
        if (!Mismatch && In.Between(O.Call, Replay, W.Call, Cap->Fn) &&
            !writeMatchesLaunch(G, Cap->Fn, W.Call, O.Call))
          Mismatch = W.Call;
      }
    }
    // Or the capture takes, by value, the map whose copy each replay reads.
    if (Mismatch && !replaysReadOneSource(G, *Cap, O.Call))
      return refuse(G, Mismatch,
                    Name + " is written here, between the capture of a launch into a CUDA graph "
                           "and its replay, which reads it then, where the retargeted launch "
                           "passes it as it was at the capture");
  }
  return true;
}

bool DeviceStorage::replaysReadOneSource(Group &G, const GraphCapture &Cap, const CallExpr *Launch) {
  // Each replay runs its launch when it is enqueued (a replay that may
  // wait on a held stream reads later still), after the writes last
  // before it.
  std::vector<const Stmt *> Read;
  for (const CallExpr *Replay : Cap.Replays) {
    if (!In.MayBeHeld || In.MayBeHeld(Replay, Cap.Fn))
      return false;
    if (heldWriteLandsLate(G, Cap.Fn, Replay))
      return false;
    std::vector<const Stmt *> Last = lastWritesBefore(G, Cap.Fn, Replay);
    if (Last.empty())
      return false;
    llvm::append_range(Read, Last);
  }
  const VarDecl *Source = sourceReadLater(G, Cap.Fn, Launch, Read);
  if (Source)
    G.PassSource[Launch] = Source;
  return Source != nullptr;
}

} // namespace tma::analysis
