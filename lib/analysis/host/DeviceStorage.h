// The storage rule: a device object that holds a copy of a descriptor is the
// host value it was copied from. Owns the storage groups and their retargeting.
#pragma once

#include "tma/Facts.h"
#include "tma/SourceText.h"

#include "../core/CudaApi.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMap.h"
#include "llvm/ADT/ArrayRef.h"

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tma::analysis {

struct StorageIndex;

/// One expression that touches a storage, in the function that holds it
/// (null at namespace scope or in a class's member initialiser).
struct StorageRef {
  const clang::Expr *E = nullptr;
  const clang::FunctionDecl *Fn = nullptr;
};

/// A storage that holds the same pointer as another whatever their uses
/// say: an owner and the parameter of its deleter's `operator()`, which the
/// owner's destructor calls with it (\p At: the owner's declaration).
struct StoragePeer {
  std::string Key;
  clang::SourceLocation At;
};

/// A place a descriptor pointer lives: a variable (local, static, global,
/// parameter), a field of every object of a class, what a function
/// returns, one element, at a constant index, of a local array or
/// container of descriptor pointers (`maps[0]`), or a variable or field
/// that owns it (`std::unique_ptr<CUtensorMap, D>`, read by `get()`). Keyed
/// by the spelling position of its declaration, so that every
/// instantiation of a template shares one storage.
struct StorageNode {
  enum Kind { Variable, Parameter, Field, Result, Element, Owner } K = Variable;
  std::string Name;
  const clang::Decl *D = nullptr; // one declaration (for linkage and messages)
  std::vector<StorageRef> Uses;   // every reference (Result: every call)
  std::vector<StorageRef> Defs;   // values stored into it from elsewhere (Owner: its construction)
  std::vector<StoragePeer> Peers; // storages of the same group by construction
  bool Closed = true;             // no other translation unit can reach it
  std::string WhyOpen;
};

/// One launch argument that reads a retargeted storage.
struct RetargetedLaunch {
  const clang::FunctionDecl *Kernel;
  unsigned Index;
  SourcePoint Where;
  TextEdit Edit; // the argument becomes `*p`
  /// The argument as written, to be replaced whole by its text (empty, or
  /// `&` for an argument array's slot) followed by the value form's name;
  /// unset for a launch the value form does not edit (one through a
  /// function pointer).
  TextEdit Bare;
  /// The function that makes the launch (a launcher's own launch: the
  /// launcher).
  const clang::FunctionDecl *Fn = nullptr;
  /// The launch call, where the argument is one of its own (not a slot of
  /// an argument array): the one a host map may be passed to instead.
  const clang::CallExpr *Call = nullptr;
  /// An argument array's slot: the one launch that reads the array, where
  /// there is one (the slot may then take a host map's address instead).
  const clang::CallExpr *SlotLaunch = nullptr;
  /// The launch a host map may be passed to instead: Call, or SlotLaunch.
  const clang::CallExpr *launchCall() const { return Call ? Call : SlotLaunch; }
  /// Edit passes a local host map by value: the one whose copy the kernel
  /// reads when it runs, later than the call (DeviceStorage::sourceReadLater).
  /// (Its name; empty: the launch passes the snapshot.)
  std::string ByValue;
};

/// A storage group retargeted to host memory: its storage keeps its shape
/// and points to a host CUtensorMap.
struct Retarget {
  std::string Key;  // the group's first storage
  std::string Name; // the storage named at the first launch
  SourcePoint Where;
  std::vector<HostUse> Uses;              // Alloc, Copy, Free (with edits), Other (notes)
  std::vector<RetargetedLaunch> Launches; // every launch of every storage of the group
  std::set<SourcePoint> Touched;          // every use's position
  std::vector<std::string> Storages;      // the keys of the group's storages
  std::vector<const clang::VarDecl *> Variables;
  std::vector<const clang::FunctionDecl *> Functions; // whose parameters or result join
  std::vector<SourceSpan> ReliesOn;
  /// The value form (DeviceStorage::valueForm): the device copy stays for
  /// the kernels that write it, and a host CUtensorMap beside it, named
  /// ValueName, takes what each whole copy writes; the other launches pass
  /// it. Kept: the staying kernels' launch arguments, left as they are.
  bool Mirrored = false;
  std::string ValueName;
  bool ValueSkipsLateCopies = false; // a late copy stays on the device copy alone
  std::set<SourcePoint> Kept;
};

/// What the rule needs from the rest of the pass, as callbacks.
struct StorageInputs {
  /// Why another translation unit may call \p F (external linkage, and the
  /// run is not the whole program in one translation unit), or none. The
  /// rule edits no signature, so such a caller would go on passing a device
  /// pointer (or using a returned one as one) unseen.
  std::function<std::optional<std::string>(const clang::FunctionDecl *)> CallableElsewhere;
  /// Why another translation unit may name the global \p V, or none.
  std::function<std::optional<std::string>(const clang::VarDecl *)> NamedElsewhere;
  /// Why another translation unit may use the storage declared by \p D (a
  /// field, a parameter, a result or a global): it is declared in a header
  /// that other units may include (and the run is not the whole program in
  /// one translation unit), or none. Locals of a function in a header are
  /// not asked: only that function's text uses them.
  std::function<std::optional<std::string>(const clang::Decl *)> DeclaredElsewhere;
  /// The kernels a `<<<>>>` launch through a function-pointer variable may
  /// run, when every one is known (PointerLaunches); empty otherwise.
  std::function<std::vector<const clang::FunctionDecl *>(const clang::CallExpr *)> PointerTargets;
  /// The (kernel, parameter) whose slot of a resolved argument array is
  /// `&E` (ArgumentArrays), or none.
  std::function<std::optional<std::pair<const clang::FunctionDecl *, unsigned>>(const clang::Expr *)>
      ArraySlotOf;
  /// The launches that read the argument-array slot `&E` (ArgumentArrays).
  std::function<std::vector<std::pair<const clang::CallExpr *, const clang::FunctionDecl *>>(
      const clang::Expr *)>
      ArraySlotLaunches;
  /// What may hold a stream, for the message (PassContext::streamHoldNote).
  std::function<std::string()> StreamHold;
  /// May this operation on a storage (a copy into it, a launch of it; null:
  /// one the rule does not read) wait on a held stream
  /// (PassContext::mayBeHeld)?
  std::function<bool(const clang::CallExpr *, const clang::FunctionDecl *)> MayBeHeld;
  /// The first thing that may hold a stream (PassContext::StreamHold).
  std::function<const clang::Stmt *()> HoldSite;
  /// The statements that may release the hold the operation waits behind
  /// (HoldReleases::releasesOf), or none: it may run at any time from its
  /// call until a host wait covers it.
  std::function<std::optional<std::vector<const clang::Stmt *>>(const clang::CallExpr *,
                                                                const clang::FunctionDecl *)>
      ReleasesOf;
  /// Can \p X run after \p From and before \p To in \p Fn, on a path that
  /// does not run From again (PassComponent::between, over the CFG)?
  std::function<bool(const clang::Stmt *, const clang::Stmt *, const clang::Stmt *,
                     const clang::FunctionDecl *)>
      Between;
  /// The first wait for an event in the unit, or null: it may join another
  /// stream's work to a capture (PassContext::EventWait).
  std::function<const clang::Stmt *()> EventWaitAt;
  /// Can \p To (null: the return) run after \p From in \p Fn on a path
  /// that runs none of \p Stops (PassComponent::reachesAvoiding)?
  std::function<bool(const clang::Stmt *, const clang::Stmt *, llvm::ArrayRef<const clang::Stmt *>,
                     const clang::FunctionDecl *)>
      ReachesAvoiding;
  /// Does every path from \p Fn's entry to \p To run one of \p As first
  /// (PassComponent::dominatedBy)?
  std::function<bool(llvm::ArrayRef<const clang::Stmt *>, const clang::Stmt *,
                     const clang::FunctionDecl *)>
      DominatedBy;
  /// Is the host descriptor \p Object unchanged from \p From to \p To in
  /// \p Fn, by every name and escape the object proof follows
  /// (ObjectReach::changeBetween)?
  /// Stream callbacks for which \p RunsOutside answers true cannot run in
  /// between; the calls \p Skip are not taken for writers.
  std::function<bool(const clang::VarDecl *, const clang::Stmt *, const clang::Stmt *,
                     const clang::FunctionDecl *,
                     const std::function<bool(const clang::Stmt *)> &RunsOutside,
                     llvm::ArrayRef<const clang::Stmt *> Skip)>
      HostUnchangedBetween;
  /// Does the descriptor parameter \p Index of \p Kernel stay by
  /// reference (a kernel that writes it on the device, say)?
  std::function<bool(const clang::FunctionDecl *, unsigned)> KernelStays;
};

/// One capture of a stream into a CUDA graph, read whole in one function:
/// `cudaStreamBeginCapture(s, ...)` and `cudaStreamEndCapture(s, &g)` on a
/// local stream variable, the graph only instantiated and destroyed, each
/// executable graph made from it only replayed (`cudaGraphLaunch`) and
/// destroyed. Work enqueued on `s` between the two calls is captured: it
/// runs at each replay, with the arguments it had at its call.
struct GraphCapture {
  const clang::CallExpr *Begin = nullptr, *End = nullptr;
  const clang::VarDecl *Stream = nullptr;
  const clang::FunctionDecl *Fn = nullptr;
  std::vector<const clang::CallExpr *> Replays;
};

/// The storage analysis (host/DeviceStorage.cpp). One walk indexes every
/// reference to every storage of a descriptor pointer; retarget() then
/// classifies every use of every storage a launch argument's value can come
/// from or go to: allocation, whole-descriptor host-to-device copy, free,
/// null test or comparison, a copy into other storage (which joins the
/// group), a launch argument of a descriptor parameter, a logging call. One
/// use it cannot classify refuses the group and is named.
class DeviceStorage {
public:
  DeviceStorage(clang::ASTContext &Ctx, const SourceText &ST, StorageInputs In);
  ~DeviceStorage();

  /// The group that launch argument \p Arg (in \p Fn) reads, retargeted; or
  /// why not, as a note that names the use.
  /// With \p ValueForm, launches of kernels whose descriptor stays by
  /// reference are writes of the device copy left as they are, and the
  /// group is accepted only in the value form (valueForm).
  std::optional<Retarget> retarget(const clang::Expr *Arg, std::optional<Note> &WhyNot,
                                   bool ValueForm = false);
  /// Did the last retarget() outside the value form refuse at a use no row
  /// classifies (which the value form may take)?
  bool refusedUnknownUse() const { return LastRefusedUnknown; }
  /// Every storage declared outside the main file that has a use here the
  /// rule cannot classify, with that use: another translation unit's group
  /// must not retarget it.
  struct Veto {
    std::string Key, Name;
    Note Why;
  };
  std::vector<Veto> vetoes();

private:
  struct Group;
  clang::ASTContext &Ctx;
  const SourceText &ST;
  StorageInputs In;
  std::unique_ptr<StorageIndex> Idx;
  bool LastRefusedUnknown = false;

  const clang::Stmt *parent(const clang::FunctionDecl *Fn, const clang::Stmt *S);
  bool classifyArraySlot(Group &G, const clang::UnaryOperator *Addr, const clang::Expr *Storage,
                         const clang::FunctionDecl *Kernel, unsigned Index,
                         const clang::FunctionDecl *Fn);
  std::string elementOf(const clang::Expr *E);
  bool isDriverAddress(const clang::ExplicitCastExpr *EC, const clang::FunctionDecl *Fn);
  /// The storage \p E reads (a variable, a field, a call's result), if any.
  std::optional<std::string> storageOf(const clang::Expr *E);
  /// Adds the storage \p Key to \p G; false (refused) when it is open.
  bool join(Group &G, const std::string &Key, const clang::Stmt *At);
  bool join(Group &G, const std::string &Key, clang::SourceLocation At);
  bool whyOpen(Group &G, const StorageNode &N, clang::SourceLocation At);
  /// Why a deleter's `operator()` (\p Op) may be called where this
  /// translation unit does not show it: its class handed to code not seen,
  /// or an argument of a template other than a descriptor owner.
  bool deleterClosed(Group &G, const clang::CXXMethodDecl *Op, clang::SourceLocation At);
  bool deleterStaysInOwners(Group &G, const clang::CXXMethodDecl *Op, clang::SourceLocation At);
  bool classifyUse(Group &G, const StorageNode &N, const StorageRef &R);
  /// Work on a held stream may run a launch after statements written
  /// later: the kernel reads the device copy then, where the retargeted
  /// launch passes `*d` as it is at the call. They agree when every copy
  /// and launch of the group is on one stream (which runs them in written
  /// order), or when none of them may be held (Group::HeldAt), or when the
  /// group is copied into once, outside any loop in its scope, and not
  /// again by a later call. False (refused) otherwise.
  bool copiedOnceForOtherStreams(Group &G);
  /// The function whose locals (variables, elements of its local
  /// containers, fields of its local objects) every storage of the group
  /// is, or null.
  const clang::FunctionDecl *localTo(Group &G);
  /// The function whose local variable, closed local element, parameter or
  /// field of a class it declares, held only by its automatic locals, \p N
  /// is (storage each call of it makes anew), or null.
  const clang::FunctionDecl *localOf(const StorageNode &N);
  /// Stream time, operation by operation (host/StorageStreamTime.cpp): an
  /// operation of the group on a stream that may be held runs at some time
  /// between its call and the first host wait that covers its stream
  /// (`cudaStreamSynchronize` of it, `cudaDeviceSynchronize`), any other at
  /// its call (the schedule copiedOnceForOtherStreams' rule rests on); the
  /// retargeted group makes each at its call. They agree when every
  /// operation is made in one function (or a function only it calls), no
  /// held one may still wait when that function returns, and no operation
  /// on another stream, one of the two a write, may run while a held one
  /// waits. Empty when they agree, else why not and where.
  std::optional<std::pair<const clang::Stmt *, std::string>> heldWorkDisagrees(Group &G);
  /// A stream-ordered copy from a pointer (`cudaMemcpyAsync(d, pin, ...)`)
  /// reads its source when its stream runs it, where the retargeted copy
  /// (`*d = *pin`) reads it at the call. They agree when the pointer is a
  /// local variable that only a page-locked allocation sets and whose
  /// every use is classified (a write of `*pin`, a read, the copies, the
  /// free), and no write of `*pin` may run before a host wait that covers
  /// the copy's stream but one that stores what `*pin` holds at the call
  /// (sameStagedValue). False (refused) otherwise.
  bool pointerCopiesReadAtCall(Group &G);
  /// The writes of `*pin` for a copy \p Copy in \p Fn from \p Pin (its page-locked
  /// allocation, `*pin = m;`, its free), every use of `pin` classified;
  /// else the first use that is not, and why.
  struct StagingWrites {
    std::vector<const clang::Stmt *> Writes;
    const clang::Stmt *At = nullptr;
    std::string Why;
  };
  StagingWrites stagingWritesOf(Group &G, const clang::CallExpr *Copy, const clang::FunctionDecl *Fn,
                                const clang::VarDecl *Pin);
  /// What the copy \p Copy from \p Pin copies where it reads `*pin` at its
  /// call: a local map of \p Main as it was at each of the staging writes
  /// (`*pin = m;`) last before the call, where every one of them stores that
  /// map. Map null otherwise, and for a copy that lands after every launch.
  struct StagedValue {
    const clang::VarDecl *Map = nullptr;
    std::vector<const clang::Stmt *> ReadAt;
  };
  StagedValue stagedMapAtCall(Group &G, const clang::CallExpr *Copy, const clang::VarDecl *Pin,
                              const clang::FunctionDecl *Main);
  /// The value form's whole copies of the group's function that land
  /// after every launch (landsAfterEveryLaunch), into G.LateCopies: what
  /// they copy no launch reads, so neither their order with other work nor
  /// when they read their source matters. None in a unit with a graph,
  /// and none unless every held whole copy of the group is one.
  void findLateCopies(Group &G);
  /// Is \p W, an operation of \p Main, held behind a hold that only known
  /// stores let go (HoldReleases), where no launch of the group is held,
  /// and every launch of the group is made before any release that may let
  /// \p W go on every path (none may be made after one)?
  bool landsAfterEveryLaunch(Group &G, const clang::FunctionDecl *Main, const clang::CallExpr *W);
  /// Does write \p W of `*pin` (`*pin = m;`), made after the copy \p Copy
  /// from `pin` in \p Fn, store what `*pin` holds at the copy's call: every
  /// write of it (\p Writes) last before the copy is `*pin = m;` of the
  /// same local map, unchanged from there to \p W?
  bool sameStagedValue(const clang::FunctionDecl *Fn, const clang::Stmt *Copy,
                       const clang::Stmt *W, llvm::ArrayRef<const clang::Stmt *> Writes);
  /// Where the operation \p Op (of the group) is made in \p Main: its call,
  /// or each call of the function that holds it when only \p Main calls
  /// that function directly; empty when neither.
  std::vector<const clang::Stmt *> anchorsIn(const clang::FunctionDecl *Main,
                                             const clang::CallExpr *Call,
                                             const clang::FunctionDecl *Fn);
  /// Every call of \p Fn, when each reference to it is a direct call in
  /// \p Main's body (and other units cannot name it); else empty.
  std::vector<const clang::Stmt *> callsFrom(const clang::FunctionDecl *Main,
                                             const clang::FunctionDecl *Fn);
  /// May the held launch \p Call of \p Fn (made at \p Anchors in \p Main)
  /// still wait when \p S runs: can S run after one of its calls before a
  /// host wait that covers its stream? Then a write at S may land before
  /// the kernel reads. True where the launch is not placed in Main.
  bool heldUntilAfter(const clang::FunctionDecl *Main, const clang::CallExpr *Call,
                      const clang::FunctionDecl *Fn, llvm::ArrayRef<const clang::Stmt *> Anchors,
                      const clang::Stmt *S);
  /// The stream \p Call of \p Fn enqueues on, as \p Main's waits name it:
  /// none for another function's stream variable (a launcher's parameter),
  /// which only waits for every stream cover.
  std::optional<const clang::ValueDecl *> streamIn(const clang::FunctionDecl *Main,
                                                   const clang::CallExpr *Call,
                                                   const clang::FunctionDecl *Fn);
  /// The host waits of \p Main's body that cover work on \p Stream (none:
  /// not known, so only waits for every stream).
  std::vector<const clang::Stmt *> coveringWaits(const clang::FunctionDecl *Main,
                                                 std::optional<const clang::ValueDecl *> Stream);
  /// Every host wait of each function's body, found once.
  std::map<const clang::FunctionDecl *, std::vector<std::pair<const clang::CallExpr *, HostWait>>>
      HostWaits;
  /// The unit's graph captures, when every call that captures or replays
  /// a graph is part of one read whole (GraphCapture); else none, and the
  /// call that is not (\p Unread) with why.
  struct Captures {
    std::optional<std::vector<GraphCapture>> List;
    const clang::Stmt *Unread = nullptr;
  };
  std::optional<Captures> CapturesRead;
  const Captures &captures();
  std::optional<GraphCapture> readCapture(const clang::CallExpr *Begin,
                                          const clang::FunctionDecl *Fn);
  /// With a graph in the unit: a launch of the group that a capture takes
  /// passes `*d` as it is at the capture, and the kernel reads the device
  /// copy at each replay; they agree when no write of the group may run
  /// between the capture and a replay. A copy captured, or an operation on
  /// a stream a capture may use unseen, refuses. False (refused) otherwise.
  bool capturedLaunchesAgree(Group &G);
  /// Does every replay of \p Cap read a copy of one local map, unchanged
  /// since the capture of \p Launch, which the captured launch then passes
  /// by value (sourceReadLater; Group::PassSource)?
  bool replaysReadOneSource(Group &G, const GraphCapture &Cap, const clang::CallExpr *Launch);
  /// Does the device copy hold one value from its first copy on: every
  /// write of the group a whole copy from one local host descriptor that
  /// does not change between any two of them, all made in the one function
  /// whose locals the storages are, and every launch made after a copy
  /// that runs at its call? Then whenever a copy or launch runs, it writes
  /// or reads that value, which the retargeted `*d` holds at every launch's
  /// call: the order the streams run them in does not matter
  /// (host/StorageStreamTime.cpp).
  bool holdsOneValue(Group &G);
  /// Does the held launch \p At of \p Main read what the retargeted launch
  /// passes? It waits behind a hold that only the stores \p Releases let
  /// go (In.ReleasesOf), so it runs after every write made before the
  /// first of them on its path, and nothing writes the group between a
  /// release and the host wait (\p Waits) that covers the launch: it
  /// reads what the last writes before a release wrote, which must be the
  /// value the writes last before it wrote (writeOneValue).
  bool readsAtRelease(Group &G, const clang::FunctionDecl *Main, const clang::CallExpr *Launch,
                      llvm::ArrayRef<const clang::Stmt *> Releases,
                      llvm::ArrayRef<const clang::Stmt *> Waits);
  /// The whole copies of \p Main that run at their call once both writes
  /// \p A and \p B have landed (a host wait covering each held one's
  /// stream comes first on every path): each replaces what either wrote,
  /// so their order matters only to what runs before such a copy.
  std::vector<const clang::Stmt *>
  copiesAfterBoth(Group &G, const clang::FunctionDecl *Main, const clang::Stmt *A, bool AHeld,
                  std::optional<const clang::ValueDecl *> AStream, const clang::Stmt *B, bool BHeld,
                  std::optional<const clang::ValueDecl *> BStream);
  /// The capture of the unit that takes \p Op, made in \p Fn on a stream
  /// variable that names no one stream through \p Fn (created in each
  /// round of a loop): the one whose own variable \p Op's stream operand
  /// names and between whose begin and end \p Op is made; else null.
  const GraphCapture *roundCaptureOf(const clang::CallExpr *Op, const clang::FunctionDecl *Fn);
  /// The replays of the graph \p Launch (made by \p Main) is captured
  /// into, when it is made while a capture read whole records its stream
  /// (also through roundCaptureOf); none otherwise.
  std::optional<std::vector<const clang::Stmt *>> replaysOf(const clang::CallExpr *Launch,
                                                            const clang::FunctionDecl *Main);
  /// Is the local map \p Source unchanged from \p From to \p To in \p Main
  /// (In.HostUnchangedBetween), where a stream callback that may reach it
  /// runs only as its stream lets it (callbackRunsOutside)? The statements
  /// \p Device (the group's own copies, which write only the device copy)
  /// are not taken for writers of the map.
  bool hostUnchangedBetween(const clang::FunctionDecl *Main, const clang::VarDecl *Source,
                            const clang::Stmt *From, const clang::Stmt *To,
                            llvm::ArrayRef<const clang::Stmt *> Device = {});
  /// Can the stream callback enqueued by \p X (a statement of \p Main) not
  /// run between \p From and \p To: held behind a hold that no release
  /// before \p To lets go, or seen to finish by a host wait before \p From
  /// and not enqueued again before \p To?
  bool callbackRunsOutside(const clang::FunctionDecl *Main, const clang::Stmt *X,
                           const clang::Stmt *From, const clang::Stmt *To);
  /// May a write of the group that waits on a held stream and may run
  /// before \p P land out of the text's order there: still waiting at \p P,
  /// or after a write made while it waits? Then the writes last before
  /// \p P in the text are not those last to land (lastWritesBefore).
  /// Writes in \p Except are left out (they run after the launch asked about).
  bool heldWriteLandsLate(Group &G, const clang::FunctionDecl *Main, const clang::Stmt *P,
                          llvm::ArrayRef<const clang::Stmt *> Except = {});
  /// The writes of the group that \p Launch's own stream (a named one) runs
  /// after it: enqueued on it by \p Main, never before the launch's call on
  /// any path. A stream runs its work in order, so the launch reads none of
  /// them, however long both wait behind a hold.
  std::vector<const clang::Stmt *> runAfterOnItsStream(Group &G, const clang::FunctionDecl *Main,
                                                       const clang::CallExpr *Launch);
  /// The local host map \p Launch (a launch of \p Main that runs at its
  /// call, before a held write made earlier lands) may pass by value: \p
  /// Landed, the writes last before it among those that may have landed,
  /// are whole copies of one local map that does not change from them to
  /// the launch, in scope at the launch. Null otherwise.
  const clang::VarDecl *sourceLandedBefore(Group &G, const clang::FunctionDecl *Main,
                                           const clang::CallExpr *Launch,
                                           llvm::ArrayRef<const clang::Stmt *> Landed);
  /// The one local map \p Copies (writes of the group) are whole copies of,
  /// spelled by its name and in scope at \p Launch (a launch of the group
  /// whose argument the form edits), or null.
  const clang::VarDecl *copiedMap(Group &G, const clang::FunctionDecl *Main,
                                  const clang::CallExpr *Launch,
                                  llvm::ArrayRef<const clang::Stmt *> Copies);
  /// Does the launch \p Launch, made at \p At and run at its call, read
  /// the copies that landed before it while a held write made earlier lands
  /// after it, and pass the map they copy (sourceLandedBefore; recorded in
  /// Group::PassSource)?
  bool passesLanded(Group &G, const clang::FunctionDecl *Main, const clang::CallExpr *Launch,
                    const clang::Stmt *At);
  /// Of \p Writes (statements of \p Main), the ones that may be the last
  /// made before \p At: each on a path to it that runs no other; empty
  /// where a path reaches it through none of them.
  std::vector<const clang::Stmt *> lastOf(const clang::FunctionDecl *Main,
                                          llvm::ArrayRef<const clang::Stmt *> Writes,
                                          const clang::Stmt *At);
  /// The local host map \p Launch (a launch of \p Main whose kernel runs
  /// later than the call: at a release, at a graph's replay) may pass by
  /// value where the snapshot at its call is not what the kernel reads:
  /// \p Last, the writes the kernel reads, are whole copies of one local
  /// map that does not change from the launch's call to any of them, in
  /// scope at the launch, whose argument the form edits. Null otherwise.
  const clang::VarDecl *sourceReadLater(Group &G, const clang::FunctionDecl *Main,
                                        const clang::CallExpr *Launch,
                                        llvm::ArrayRef<const clang::Stmt *> Last);
  /// Do the writes \p Writes of the group, all made in \p Main, write one
  /// value: each a whole copy of one local host map of Main, read at its
  /// call, or through a pointer at the staging writes stagedMapAtCall
  /// names, that the object proof shows unchanged between any two of those
  /// reads, each again included (host/StorageStreamTime.cpp)?
  bool writeOneValue(Group &G, const clang::FunctionDecl *Main,
                     std::vector<const clang::Stmt *> Writes);
  /// The writes of the group that may be the last one made before \p At
  /// in \p Main; none when a path reaches \p At with no write, or a write is
  /// made in another function.
  std::vector<const clang::Stmt *> lastWritesBefore(Group &G, const clang::FunctionDecl *Main,
                                                    const clang::Stmt *At,
                                                    llvm::ArrayRef<const clang::Stmt *> Except = {});
  /// Does the write \p W, wherever it runs against the launch made at \p
  /// Launch, write the value the retargeted launch passes there: the one
  /// the writes that may be last before the launch write, and, for a write
  /// that may be held, those that may be last before it?
  bool writeMatchesLaunch(Group &G, const clang::FunctionDecl *Main, const clang::Stmt *W,
                          const clang::Stmt *Launch);
  /// The group's whole copies made in \p Main that run at their call (on
  /// no stream that may be held).
  std::vector<const clang::Stmt *> copiesAtCall(Group &G, const clang::FunctionDecl *Main);
  /// The first launch of the group (where \p Main makes it) that may run
  /// before one of \p AtCall has written the device copy since its
  /// allocation; null when every launch comes after such a copy.
  const clang::Stmt *launchBeforeACopy(Group &G, const clang::FunctionDecl *Main,
                                       llvm::ArrayRef<const clang::Stmt *> AtCall);
  /// The value form, for a group whose kernels that write the device copy
  /// stay by reference: the device copy, its allocation, copies, frees and
  /// those kernels' launches stay as they are; a local `CUtensorMap`
  /// declared after the allocated variable takes, after each whole copy,
  /// what it copies, and every other launch passes it. Sound where the
  /// group is one function's locals with one allocation, every other write
  /// of the device copy (a staying kernel's launch, a partial write)
  /// reaches no launch the form edits before a whole copy that runs at its
  /// call replaces it, and every such launch comes after such a copy (with
  /// the stream and graph rules asked of every write). False (refused)
  /// otherwise; on success it rewrites the group's edits.
  bool valueForm(Group &G);
  /// A use no row classifies (\p Why says what it is): in the value form,
  /// recorded as a write that may happen at any time after it; otherwise
  /// it refuses.
  bool unknownUse(Group &G, const clang::CallExpr *Call, const clang::FunctionDecl *Fn,
                  std::string Why);
  /// Does every launch the value form edits run before each of the
  /// group's unknown uses can write the device copy: made in the function
  /// that holds the uses, on no path after one of them, on no stream that
  /// may be held (which later code could release after writing), and
  /// captured into no CUDA graph (whose replays make it again later)? A write the
  /// use makes after such a launch is either ordered after its kernel or
  /// races with it, and the CUDA memory model leaves a racing read
  /// undefined: the value the launch passes is one its kernel may read.
  /// False (refused) otherwise.
  bool unknownUsesAfterLaunches(Group &G, const clang::FunctionDecl *Main);
  /// Why unknown use \p U (in \p UFn) may write the device copy before
  /// launch \p L (in \p LFn) reads it (made in another function, a graph
  /// replays the launch, the launch may wait on a held stream past it or be
  /// made after it); none
  /// where the kernel has read the device copy by then.
  std::optional<std::string> unknownMayPrecede(Group &G, const clang::FunctionDecl *Main,
                                               const clang::CallExpr *U,
                                               const clang::FunctionDecl *UFn,
                                               const clang::CallExpr *L,
                                               const clang::FunctionDecl *LFn);
  /// Does every unknown use of the group come after \p Launch has read the
  /// device copy (unknownMayPrecede)?
  bool unknownsAfter(Group &G, const clang::FunctionDecl *Main, const clang::CallExpr *Launch);
  /// The function the value form keeps the group in: the one that
  /// allocates it, when every storage is its local, a parameter of a
  /// launcher only it calls, or storage that outlivesButOnlyRelays; else
  /// null.
  const clang::FunctionDecl *valueFormScope(Group &G);
  /// A storage of the group that is not a local of one call (a static
  /// local, a global of this unit, an accessor's result) and that the
  /// value form may still leave holding the device copy: other units
  /// cannot reach it, and valueForm requires its every use to be made in
  /// the function that allocates.
  bool outlivesButOnlyRelays(const StorageNode &N);
  /// Is \p Fn a function other than \p Main that only Main calls, each call
  /// direct (callsFrom)?
  bool launcherOf(const clang::FunctionDecl *Main, const clang::FunctionDecl *Fn);
  /// Is the group's one copy made only right after an allocation: inside
  /// the `then` of a null test of a member that allocates into it
  /// (`if (!d) { cudaMalloc(&d, ...); cudaMemcpy(d, ...); }`)?
  bool copiedOnlyWhenAllocated(Group &G);
  /// Records \p Call (in \p Fn), a copy into the group or a partial write
  /// of it: its stream, whether it may be held, the group's operations, its
  /// count of copies and its first.
  void noteWrite(Group &G, const clang::CallExpr *Call, const clang::FunctionDecl *Fn);
  /// Records \p Call (in \p Fn; null: a launch not seen), a launch of the
  /// group: whether it may be held, and the group's operations.
  void noteLaunch(Group &G, const clang::CallExpr *Call, const clang::FunctionDecl *Fn);
  /// Records \p Op (a copy or a launch of the group, in \p Fn; null: one
  /// the rule does not read) as Group::HeldAt when it may be held.
  void noteHeld(Group &G, const clang::CallExpr *Op, const clang::FunctionDecl *Fn);
  /// Does \p Fn run at most once in the program: `main`, or a function
  /// other units cannot name, whose one reference is a direct call outside
  /// any loop (and goto) of a function that runs once?
  bool runsOnce(const clang::FunctionDecl *Fn, unsigned Depth = 0);
  bool classifyPointerUse(Group &G, const StorageNode &N, const StorageRef &R);
  /// A use of an owner: `get()` reads the pointer, `if (d)` tests it, a move
  /// into another owner joins it; anything else refuses.
  bool classifyOwnerUse(Group &G, const StorageNode &N, const StorageRef &R);
  bool classifyOwnerMove(Group &G, const StorageNode &N, const StorageRef &R,
                         const clang::CallExpr *Move);
  /// An owner's construction: from a pointer (which joins), null, or a move
  /// from another owner (which joins).
  bool classifyOwnerDef(Group &G, const StorageNode &N, const clang::Expr *Init,
                        const clang::FunctionDecl *Fn);
  bool classifyDef(Group &G, const StorageNode &N, const StorageRef &R);
  /// The owner storage `d.get()` reads, or "".
  std::string ownerRead(const clang::Expr *E);
  std::optional<std::string> ownerOf(const clang::Expr *E);
  bool classifyParent(Group &G, const StorageNode &N, const StorageRef &R,
                      const clang::Expr *Cur, const clang::Stmt *P);
  bool classifyValue(Group &G, const StorageNode &N, const clang::Expr *V,
                     const clang::FunctionDecl *Fn);
  bool classifyCallArg(Group &G, const StorageNode &N, const clang::CallExpr *Call,
                       const clang::Expr *Cur, const StorageRef &R);
  bool classifyAlloc(Group &G, const StorageNode &N, const clang::Expr *Cur,
                     const StorageRef &R);
  bool classifyMemoryCall(Group &G, const StorageNode &N, const clang::CallExpr *Call,
                          unsigned Arg, const StorageRef &R);
  bool classifyLaunch(Group &G, const clang::CallExpr *Call, const clang::Expr *Cur,
                      const StorageRef &R);
  /// A write of part of the device copy (or all of it, by a memset) that
  /// the host makes on the retargeted map at the call, as the device copy
  /// would have it after the call: `cudaMemset(D, b, n)` or a synchronous
  /// `cudaMemcpy(D, src, n, cudaMemcpyHostToDevice)` whose destination \p
  /// Dest (the argument as written) is the storage or `&d->opaque[c]`, at
  /// byte \p Offset, with the n bytes inside the map. It becomes `memset`
  /// or `memcpy` with the same arguments.
  bool classifyPartialWrite(Group &G, const StorageNode &N, const clang::CallExpr *Call,
                            const clang::Expr *Dest, uint64_t Offset, const StorageRef &R);
  /// The value form's part of classifyPartialWrite: a stream-ordered write
  /// of part of the device copy (`cudaMemcpyAsync(&d->opaque[3], pin, 8,
  /// ...)`, `cudaMemsetAsync`), which lands when its stream runs it and
  /// stays on the device copy; refused outside the value form.
  bool classifyQueuedPartialWrite(Group &G, const StorageNode &N, const clang::CallExpr *Call,
                                  const clang::Expr *Dest, uint64_t Offset, const StorageRef &R);
  /// `d->opaque`, `&d->opaque[c]`: the sub-object of the map that \p ME
  /// names, given to a partial write; refused otherwise.
  bool classifyMapWord(Group &G, const StorageNode &N, const clang::MemberExpr *ME,
                       const StorageRef &R);
  TextEdit derefEdit(const clang::Expr *A, clang::CharSourceRange Range);
  bool classifyPointerLaunch(Group &G, const clang::CallExpr *Call, const clang::Expr *Cur);
  bool refuse(Group &G, const clang::Stmt *At, std::string Why);
  bool refuse(Group &G, clang::SourceLocation At, std::string Why);
  void addUse(Group &G, HostUseKind K, const clang::CallExpr *Call, const StorageRef &R,
              const std::string &Effect, std::string What);
  bool valueUsed(const clang::Stmt *Call, const clang::FunctionDecl *Fn);
  const clang::IfStmt *failureTest(const clang::Expr *E, const clang::FunctionDecl *Fn,
                                   llvm::StringRef Success);
  std::optional<clang::CharSourceRange> wholeIf(const clang::IfStmt *If);
  std::optional<std::vector<TextEdit>> onlyFailureTests(const clang::VarDecl *V,
                                                        const clang::FunctionDecl *Fn,
                                                        llvm::StringRef Success);
  std::optional<std::vector<TextEdit>> plainStatement(const clang::CallExpr *Call,
                                                      const clang::FunctionDecl *Fn,
                                                      const std::string &Effect,
                                                      llvm::StringRef Success);
  SourceSpan spanOf(const clang::FunctionDecl *Fn);
};

/// One group being classified: the storages joined so far, those still to
/// visit, and what the retargeting edits.
struct DeviceStorage::Group {
  std::set<std::string> Members;
  std::deque<std::string> Work;
  Retarget R;
  std::optional<Note> Why;
  std::set<const clang::Expr *> SeenUses;
  std::set<const clang::FunctionDecl *> Spans;
  unsigned Allocs = 0, Copies = 0;
  /// The first copy into the group, and the function that holds it.
  const clang::CallExpr *FirstCopy = nullptr;
  const clang::FunctionDecl *FirstCopyFn = nullptr;
  /// The stream of every copy into the group and launch of it so far, when
  /// it is one (streamOf; null: the default stream). None once two differ
  /// or one is not known (a launch through an argument array).
  std::optional<const clang::ValueDecl *> Stream = nullptr;
  bool StreamSeen = false;
  /// Every copy and launch so far is on the legacy default stream
  /// (onLegacyStream), which no CUDA graph can capture.
  bool Legacy = true;
  /// Every copy into the group, partial write of it and launch of it, with
  /// its function (null: not known), for the graph rule.
  struct Op {
    const clang::CallExpr *Call;
    const clang::FunctionDecl *Fn;
    bool Launch;
  };
  std::vector<Op> Ops;
  /// Every stream-ordered copy into the group from a pointer variable
  /// (`cudaMemcpyAsync(d, pin, ...)`), with its function and the pointer.
  struct PointerCopy {
    const clang::CallExpr *Call;
    const clang::FunctionDecl *Fn;
    const clang::VarDecl *Source;
  };
  std::vector<PointerCopy> PointerCopies;
  /// Every whole copy into the group, with its function and the local
  /// host descriptor it copies (`&h`; null for any other source).
  struct WholeCopy {
    const clang::CallExpr *Call;
    const clang::FunctionDecl *Fn;
    const clang::VarDecl *Source;
    std::string SourceText; // what the retargeted copy assigns (`h`, `*p`)
  };
  std::vector<WholeCopy> WholeCopies;
  /// Asked for the value form (retarget's ValueForm).
  bool ValueForm = false;
  /// The launches of kernels that stay by reference (value form only),
  /// with their functions, and their arguments' positions.
  std::vector<std::pair<const clang::CallExpr *, const clang::FunctionDecl *>> Staying;
  std::set<SourcePoint> StayingAt;
  /// Every allocation of the group, with its function.
  std::vector<std::pair<const clang::CallExpr *, const clang::FunctionDecl *>> AllocCalls;
  /// A write of part of the device copy (classifyPartialWrite) was seen.
  bool PartialWrites = false;
  /// Each write of part of the device copy by the host's API
  /// (classifyPartialWrite), with the host call that makes the same write
  /// on a map, its destination left to fill in: the callee and the
  /// arguments after the destination, or empty where an argument has side
  /// effects (the value form then cannot repeat it). A write its stream
  /// makes later (classifyQueuedPartialWrite) has neither.
  struct Partial {
    const clang::CallExpr *Call;
    const clang::FunctionDecl *Fn;
    uint64_t Offset;
    std::string Callee, Rest;
  };
  std::vector<Partial> Partials;
  /// The value form's whole copies that land after every launch of the
  /// group (findLateCopies): held until a release no launch follows, they
  /// stay on the device copy, and the value does not take them.
  std::set<const clang::CallExpr *> LateCopies;
  /// The uses no row classifies (a call through a pointer, a function
  /// whose body is not seen), with their functions: each may write the
  /// device copy at any time after it, on any stream. Only the value form,
  /// which keeps the device copy, takes them (unknownUsesAfterLaunches).
  struct Unknown {
    const clang::CallExpr *Call;
    const clang::FunctionDecl *Fn;
    std::string Why;
  };
  std::vector<Unknown> Unknowns;
  /// A use no row classifies refused the group outside the value form.
  bool RefusedUnknown = false;
  /// A launch of the group is captured into a CUDA graph, whose replays
  /// make it again later (capturedLaunchesAgree).
  bool Captured = false;
  /// The replays of the captures that take a launch of the group, with the
  /// function that makes them: where those launches run again.
  std::vector<std::pair<const clang::CallExpr *, const clang::FunctionDecl *>> Replays;
  /// holdsOneValue's answer, once asked.
  std::optional<bool> OneValue;
  /// Launches that pass a local host map by value (sourceReadLater).
  std::map<const clang::CallExpr *, const clang::VarDecl *> PassSource;
  /// The first operation of the group on a stream that may be held (the
  /// hold itself for one the rule does not read), or null.
  const clang::Stmt *HeldAt = nullptr;
  void enqueuedOn(std::optional<const clang::ValueDecl *> S, bool OnLegacyStream) {
    if (StreamSeen && Stream != S)
      Stream = std::nullopt;
    else if (!StreamSeen)
      Stream = S;
    StreamSeen = true;
    Legacy = Legacy && OnLegacyStream;
  }
};

} // namespace tma::analysis
