// makePlan in steps: merge the facts of every pass, decide each descriptor
// parameter, spread refusals through what ties parameters together, group
// the rewritten ones into edit units, remove the device buffers they no
// longer need, and refuse units that edit what they may not or that conflict.
#include "tma/Planner.h"
#include "ArrayForm.h"
#include "Blockers.h"
#include "tma/SourceText.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <set>

namespace tma {

bool editsConflict(const TextEdit &A, const TextEdit &B) {
  if (A == B || A.File != B.File)
    return false;
  if (A.Length == 0 && B.Length == 0)
    return A.Offset == B.Offset;
  if (A.Length == 0)
    return A.Offset > B.Offset && A.Offset < B.Offset + B.Length;
  if (B.Length == 0)
    return B.Offset > A.Offset && B.Offset < A.Offset + A.Length;
  return A.Offset < B.Offset + B.Length && B.Offset < A.Offset + A.Length;
}

void Plan::refuseUnit(size_t U, const Blocker &Why) {
  Units[U].Refused = true;
  for (ParamDecision &D : Params)
    if (D.Unit == U && D.Rewrite) {
      D.Rewrite = false;
      D.Blockers.insert(D.Blockers.begin(), Why);
    }
}

std::map<std::string, std::vector<TextEdit>> Plan::editsByFile() const {
  std::map<std::string, std::vector<TextEdit>> Out;
  for (const EditUnit &U : Units)
    if (!U.Refused)
      for (const TextEdit &E : U.Edits)
        Out[E.File].push_back(E);
  for (auto &KV : Out) {
    llvm::sort(KV.second);
    KV.second.erase(std::unique(KV.second.begin(), KV.second.end()), KV.second.end());
  }
  return Out;
}

std::map<std::string, std::vector<TextEdit>> Plan::editsByFile(size_t Only) const {
  std::map<std::string, std::vector<TextEdit>> Out;
  for (const TextEdit &E : Units[Only].Edits)
    Out[E.File].push_back(E);
  return Out;
}

namespace {

/// A descriptor parameter launched at a position (from a buffer's launch use).
using ParamUse = std::pair<std::string, SourcePoint>;

/// The facts of every pass, merged by key.
struct MergedFacts {
  std::map<std::string, DescriptorParam> Params;
  std::map<std::pair<std::string, SourcePoint>, LaunchSite> Launches; // (param key, position)
  std::map<std::string, DeviceBuffer> Buffers;
  std::map<std::string, std::set<TextEdit>> ParamEdits;
  std::map<std::string, std::set<SourcePoint>> ParamFences;
  /// Launchers by the key of their forwarded parameter (H7 across TUs), and
  /// those called from another translation unit.
  std::map<std::string, LauncherForward> Forwards;
  std::set<std::string> CalledFromElsewhere;
  /// Storages some translation unit uses in a way the storage rule cannot
  /// classify, with that use.
  std::map<std::string, Blocker> StorageVetoes;
};

/// Parameters rewritten together or not at all (by slot in Plan::Params).
struct Tie {
  std::vector<size_t> Slots;
  Note Why;
};

/// The plan being made, with what the steps after the decisions share.
struct Planning {
  const MergedFacts &F;
  const PlanOptions &Opts;
  Plan P;
  std::map<std::string, size_t> Slot; // param key -> index in P.Params
  /// The descriptors launched with each device buffer.
  std::map<std::string, std::vector<ParamUse>> BufferUsers;
  std::vector<Tie> Ties;

  ParamDecision &decision(const std::string &Key) { return P.Params[Slot.find(Key)->second]; }
};

} // namespace


// --- 1. Merge ---------------------------------------------------------------

static void mergeParam(MergedFacts &M, const DescriptorParam &P) {
  auto [It, New] = M.Params.emplace(P.Key, P);
  DescriptorParam &Into = It->second;
  if (!New) {
    llvm::append_range(Into.ReliesOn, P.ReliesOn);
    if (P.DefinitionSeen && !Into.DefinitionSeen)
      Into.Where = P.Where;
    Into.DefinitionSeen |= P.DefinitionSeen;
    for (const Blocker &B : P.Blockers)
      addUnique(Into.Blockers, B);
    mergeArrayForm(Into.Array, P.Array);
  }
  M.ParamEdits[P.Key].insert(P.Edits.begin(), P.Edits.end());
  M.ParamFences[P.Key].insert(P.FencesRemoved.begin(), P.FencesRemoved.end());
}

/// Blockers found away from the kernel, for the parameters merged so far.
static void mergeParamBlockers(MergedFacts &M, const PassFacts &PF) {
  for (const auto &[Key, B] : PF.ParamBlockers)
    if (M.Params.count(Key))
      addUnique(M.Params[Key].Blockers, B);
}

static void mergeLaunch(MergedFacts &M, const LaunchSite &L) {
  auto [It, New] = M.Launches.emplace(std::make_pair(L.ParamKey, L.Where), L);
  if (New)
    return;
  LaunchSite &Into = It->second;
  llvm::append_range(Into.ReliesOn, L.ReliesOn);
  for (const Blocker &B : L.Blockers)
    addUnique(Into.Blockers, B);
  if (Into.Edits != L.Edits && !Into.Edits.empty() && !L.Edits.empty())
    addUnique(Into.Blockers, blockerFor(ReasonID::PlanPassesDisagree, {}, L.Where));
  if (Into.Edits.empty())
    Into.Edits = L.Edits;
}

static void mergeBuffer(MergedFacts &M, const DeviceBuffer &B) {
  auto [It, New] = M.Buffers.emplace(B.Key, B);
  if (New)
    return;
  for (const std::string &K : B.Storages)
    if (!llvm::is_contained(It->second.Storages, K))
      It->second.Storages.push_back(K);
  for (const HostUse &U : B.Uses) {
    auto Seen = llvm::find_if(It->second.Uses, [&](const HostUse &X) {
      return X.Kind == U.Kind && X.Where == U.Where;
    });
    if (Seen == It->second.Uses.end()) {
      It->second.Uses.push_back(U);
      continue;
    }
    // One declaration seen by several units (an upload helper in a header):
    // each unit adds the edits of its own callers (`CUtensorMap *d =
    // upload(h)` loses its '*' in every unit that calls it, issue 33).
    if (U.Kind == HostUseKind::Declaration)
      for (const TextEdit &E : U.Removal)
        if (!llvm::is_contained(Seen->Removal, E))
          Seen->Removal.push_back(E);
  }
}

// --- 1a. Launchers across translation units (H7) ---------------------------

/// Every pass's forwarded launcher parameters, by key; the declarations
/// each pass saw are all edited.
static void collectForwards(MergedFacts &M, const std::vector<PassFacts> &Facts) {
  for (const PassFacts &PF : Facts)
    for (const LauncherForward &F : PF.Launchers) {
      auto [It, New] = M.Forwards.emplace(F.LauncherKey, F);
      if (New)
        continue;
      for (const TextEdit &E : F.Edits)
        if (!llvm::is_contained(It->second.Edits, E))
          It->second.Edits.push_back(E);
      It->second.LocalCalls = std::max(It->second.LocalCalls, F.LocalCalls);
    }
}

/// The blockers a site keeps because a function it passes the copy to in
/// between is no launcher the run follows.
static void keepUnlessLaunchers(const MergedFacts &M, LaunchSite &L) {
  for (const auto &[Key, B] : L.UnlessLaunchers)
    if (!M.Forwards.count(Key))
      addUnique(L.Blockers, B);
  L.UnlessLaunchers.clear();
}

/// A call of a launcher defined in another TU becomes a launch of the
/// kernel's parameter, with the launcher's declaration edits; false when no
/// pass followed the launcher (the function is no launcher of this run).
static bool joinLauncher(MergedFacts &M, LaunchSite &L) {
  auto F = M.Forwards.find(L.LauncherKey);
  if (F == M.Forwards.end())
    return false;
  M.CalledFromElsewhere.insert(L.LauncherKey);
  L.ParamKey = F->second.ParamKey;
  L.ReliesOn.push_back(F->second.Body);
  for (const Blocker &B : F->second.CalledElsewhere)
    addUnique(L.Blockers, B);
  if (L.Blockers.empty())
    llvm::append_range(L.Edits, F->second.Edits);
  return true;
}

/// A launcher that no translation unit calls: its launch stays refused.
static void refuseUncalledLaunchers(MergedFacts &M) {
  for (auto &[Key, F] : M.Forwards)
    if (F.LocalCalls == 0 && !M.CalledFromElsewhere.count(Key))
      mergeLaunch(M, F.Uncalled);
}

/// A buffer passed to a launcher defined elsewhere is launched with the
/// kernel's parameter; passed to any other function, it has another use.
static void joinLauncherUses(const MergedFacts &M, DeviceBuffer &B) {
  for (HostUse &U : B.Uses) {
    if (U.LauncherKey.empty())
      continue;
    auto F = M.Forwards.find(U.LauncherKey);
    if (F == M.Forwards.end())
      U.Kind = HostUseKind::Other;
    else
      U.ParamKey = F->second.ParamKey;
  }
}

static MergedFacts mergeFacts(const std::vector<PassFacts> &Facts) {
  MergedFacts M;
  collectForwards(M, Facts);
  for (const PassFacts &PF : Facts) {
    for (const DescriptorParam &P : PF.Params)
      mergeParam(M, P);
    mergeParamBlockers(M, PF);
    for (LaunchSite L : PF.Launches) {
      keepUnlessLaunchers(M, L);
      if (L.LauncherKey.empty() || joinLauncher(M, L))
        mergeLaunch(M, L);
    }
    for (DeviceBuffer B : PF.Buffers) {
      joinLauncherUses(M, B);
      mergeBuffer(M, B);
    }
    for (const auto &[Key, Why] : PF.StorageVetoes)
      M.StorageVetoes.emplace(Key, Why);
  }
  refuseUncalledLaunchers(M);
  // ParamBlockers of one pass may name a param first seen in another pass.
  for (const PassFacts &PF : Facts) {
    mergeParamBlockers(M, PF);
    for (const auto &[Key, S] : PF.ParamSpans)
      if (M.Params.count(Key))
        M.Params[Key].ReliesOn.push_back(S);
  }
  return M;
}

// --- 2. Decide --------------------------------------------------------------

static bool underRoot(const std::string &File, const std::string &Root) {
  return Root.empty() || isUnder(File, Root);
}

/// Why \p File may not be edited (blocked at \p Where), or nullopt.
static std::optional<Blocker> notEditable(const std::string &File, const PlanOptions &Opts,
                                          const SourcePoint &Where) {
  if (!underRoot(File, Opts.InRoot))
    return blockerFor(ReasonID::PlanOutsideInRoot, {File, Opts.InRoot}, Where);
  if (!Opts.BuildTree.empty() && underRoot(File, Opts.BuildTree))
    return blockerFor(ReasonID::PlanInBuildTree, {File, Opts.BuildTree}, Where);
  return std::nullopt;
}

/// A parameter's edits in the form decided: one descriptor (\p ArrayCount
/// 0) or an array of ArrayCount.
static std::vector<TextEdit> paramEdits(const MergedFacts &M, const std::string &Key,
                                        unsigned ArrayCount) {
  if (ArrayCount)
    return arrayEdits(M.Params.find(Key)->second.Array, ArrayCount);
  const std::set<TextEdit> &Edits = M.ParamEdits.find(Key)->second;
  return {Edits.begin(), Edits.end()};
}

/// The decision for one parameter from its own facts and its launches'.
static ParamDecision decideParam(const MergedFacts &M, const DescriptorParam &DP,
                                 const PlanOptions &Opts) {
  ParamDecision D;
  D.Key = DP.Key;
  D.KernelName = DP.KernelName;
  D.ParamName = DP.ParamName;
  D.Index = DP.Index;
  D.Where = DP.Where;
  D.Blockers = DP.Blockers;
  D.ReliesOn = DP.ReliesOn;
  D.ExternallyVisible = DP.ExternallyVisible;
  D.FromConstant = DP.FromConstant;
  std::vector<const LaunchSite *> Sites;
  for (auto &[LK, L] : M.Launches)
    if (LK.first == DP.Key)
      Sites.push_back(&L);
  // The use walk's blockers of the form the launches choose (issue 21).
  ArrayChoice Form = chooseArrayForm(DP, Sites);
  D.ArrayCount = Form.Count;
  for (const Blocker &B : Form.Blockers)
    addUnique(D.Blockers, B);
  if (!DP.DefinitionSeen)
    addUnique(D.Blockers, blockerFor(ReasonID::PlanDefinitionNotSeen,
                                     {DP.KernelName, DP.ParamName}, DP.Where));
  for (auto &[LK, L] : M.Launches)
    if (LK.first == DP.Key) {
      ++D.Launches;
      D.LaunchChoices.push_back({L.Where, L.Form, L.HostDescriptor});
      llvm::append_range(D.ReliesOn, L.ReliesOn);
      for (const Blocker &B : L.Blockers)
        addUnique(D.Blockers, B);
    }
  if (D.Launches == 0)
    addUnique(D.Blockers, blockerFor(ReasonID::PlanNoLaunch, {DP.KernelName}, DP.Where));
  for (const TextEdit &E : paramEdits(M, DP.Key, D.ArrayCount))
    if (std::optional<Blocker> Why = notEditable(E.File, Opts, DP.Where)) {
      addUnique(D.Blockers, *Why);
      break;
    }
  llvm::sort(D.ReliesOn);
  D.ReliesOn.erase(std::unique(D.ReliesOn.begin(), D.ReliesOn.end()), D.ReliesOn.end());
  auto Pre = Opts.Preblocked.find(DP.Key);
  if (Pre != Opts.Preblocked.end())
    D.Blockers.insert(D.Blockers.begin(), Pre->second);
  D.Rewrite = D.Blockers.empty();
  return D;
}

static void decideParams(Planning &S) {
  for (auto &[Key, DP] : S.F.Params) {
    S.Slot[Key] = S.P.Params.size();
    S.P.Params.push_back(decideParam(S.F, DP, S.Opts));
  }
}

// --- 3. Spread refusals -----------------------------------------------------

/// Who is launched with each device buffer: taken from the buffer's own
/// uses, so that a launch refused before it was traced still counts.
static void collectBufferUsers(Planning &S) {
  for (auto &[BK, B] : S.F.Buffers)
    for (const HostUse &U : B.Uses)
      if (U.Kind == HostUseKind::Launch && S.Slot.count(U.ParamKey))
        S.BufferUsers[BK].push_back({U.ParamKey, U.Where});
}

/// Parameters tied together (one function pointer launches them all).
static void collectTies(Planning &S, const std::vector<PassFacts> &Facts) {
  for (const PassFacts &PF : Facts)
    for (const auto &[Keys, Why] : PF.TiedParams) {
      std::vector<size_t> Slots;
      for (const std::string &K : Keys)
        if (S.Slot.count(K))
          Slots.push_back(S.Slot[K]);
      if (Slots.size() > 1)
        S.Ties.push_back({Slots, Why});
    }
}

/// A tie with one refused parameter refuses the others. True if any changed.
static bool spreadThroughTies(Planning &S) {
  bool Changed = false;
  for (const auto &[Slots, Why] : S.Ties) {
    auto Kept = llvm::find_if(Slots, [&](size_t I) { return !S.P.Params[I].Rewrite; });
    if (Kept == Slots.end())
      continue;
    for (size_t I : Slots) {
      ParamDecision &D = S.P.Params[I];
      if (!D.Rewrite)
        continue;
      D.Rewrite = false;
      D.Blockers.push_back(blockerFor(ReasonID::PlanTiedKernelKept,
                                      {S.P.Params[*Kept].KernelName}, Why.Where, {Why}));
      Changed = true;
    }
  }
  return Changed;
}

/// A retargeted group none of whose storages another translation unit uses
/// unclassified; otherwise its launches stay, with that use as the reason.
static void refuseVetoedStorages(Planning &S) {
  for (auto &[BK, B] : S.F.Buffers) {
    if (B.Kind != BufferKind::Retargeted && B.Kind != BufferKind::Mirrored)
      continue;
    const Blocker *Why = nullptr;
    for (const std::string &Key : B.Storages)
      if (auto It = S.F.StorageVetoes.find(Key); It != S.F.StorageVetoes.end())
        Why = &It->second;
    auto Users = S.BufferUsers.find(BK);
    if (!Why || Users == S.BufferUsers.end())
      continue;
    for (const ParamUse &User : Users->second) {
      ParamDecision &D = S.decision(User.first);
      if (D.Rewrite) {
        D.Rewrite = false;
        D.Blockers.push_back(*Why);
      }
    }
  }
}

/// A device buffer launched with a refused parameter refuses the others.
/// True if any changed.
static bool spreadThroughBuffers(Planning &S) {
  bool Changed = false;
  for (auto &[BK, Users] : S.BufferUsers) {
    // __constant__ memory cannot be changed on the device: a kernel that
    // keeps reading it only keeps the copies in place.
    if (S.F.Buffers.find(BK)->second.Kind == BufferKind::ConstantSymbol)
      continue;
    const ParamUse *Kept = nullptr;
    for (const ParamUse &User : Users)
      if (!S.decision(User.first).Rewrite)
        Kept = &User;
    if (!Kept)
      continue;
    const std::string &KeptKernel = S.decision(Kept->first).KernelName;
    for (const ParamUse &User : Users) {
      ParamDecision &D = S.decision(User.first);
      if (!D.Rewrite)
        continue;
      D.Rewrite = false;
      D.Blockers.push_back(
          blockerFor(ReasonID::PlanSharedCopyKept, {KeptKernel}, User.second,
                     {{"'" + KeptKernel + "' is launched with it here", Kept->second}}));
      Changed = true;
    }
  }
  return Changed;
}

/// A device copy shared with a descriptor that stays by reference may be
/// changed on the device (tensormap.replace in another kernel): then no
/// launch of it can pass the host descriptor instead. Refusals spread until
/// nothing changes.
static void spreadRefusals(Planning &S) {
  for (bool Changed = true; Changed;) {
    Changed = spreadThroughTies(S);
    Changed |= spreadThroughBuffers(S);
  }
}

// --- 4. Units ---------------------------------------------------------------

namespace {
/// Union-find over parameter slots.
struct Groups {
  std::vector<size_t> Leader;
  explicit Groups(size_t N) : Leader(N) {
    for (size_t I = 0; I < N; ++I)
      Leader[I] = I;
  }
  size_t find(size_t X) {
    while (Leader[X] != X)
      X = Leader[X] = Leader[Leader[X]];
    return X;
  }
  void join(size_t A, size_t B) { Leader[find(A)] = find(B); }
};
} // namespace

/// Rewritten parameters change together when they are launched with one
/// device buffer, tied, or launched with buffers declared in one statement.
static Groups groupParams(Planning &S) {
  Groups G(S.P.Params.size());
  for (auto &[BK, Users] : S.BufferUsers)
    for (const ParamUse &User : Users)
      if (S.decision(User.first).Rewrite && S.decision(Users.front().first).Rewrite)
        G.join(S.Slot[User.first], S.Slot[Users.front().first]);
  for (const auto &[Slots, Why] : S.Ties)
    if (S.P.Params[Slots.front()].Rewrite)
      for (size_t I : Slots)
        G.join(I, Slots.front());
  // Buffers declared in one statement (`CUtensorMap *d_a, *d_b;`) are removed
  // together or not at all: their parameters change together.
  for (auto &[BK, B] : S.F.Buffers) {
    auto Mine = S.BufferUsers.find(BK);
    if (Mine == S.BufferUsers.end() || !S.decision(Mine->second.front().first).Rewrite)
      continue;
    for (const HostUse &U : B.Uses)
      for (const std::string &Sibling : U.SharedWith) {
        auto Theirs = S.BufferUsers.find(Sibling);
        if (Theirs != S.BufferUsers.end() && S.decision(Theirs->second.front().first).Rewrite)
          G.join(S.Slot[Theirs->second.front().first], S.Slot[Mine->second.front().first]);
      }
  }
  return G;
}

/// Adds a rewritten parameter's edits, fences and launches to its unit.
static void addToUnit(const MergedFacts &M, const ParamDecision &D, EditUnit &U) {
  U.ParamKeys.push_back(D.Key);
  std::vector<TextEdit> Edits = paramEdits(M, D.Key, D.ArrayCount);
  U.Edits.insert(U.Edits.end(), Edits.begin(), Edits.end());
  U.FencesRemoved += D.ArrayCount ? M.Params.find(D.Key)->second.Array.FencesRemoved.size()
                                  : M.ParamFences.find(D.Key)->second.size();
  for (auto &[LK, L] : M.Launches)
    if (LK.first == D.Key) {
      U.Edits.insert(U.Edits.end(), L.Edits.begin(), L.Edits.end());
      ++U.LaunchesChanged;
    }
}

/// One unit per group of rewritten parameters, numbered in parameter order.
static void formUnits(Planning &S) {
  Groups G = groupParams(S);
  std::map<size_t, size_t> UnitOf;
  for (size_t I = 0; I < S.P.Params.size(); ++I) {
    ParamDecision &D = S.P.Params[I];
    if (!D.Rewrite)
      continue;
    auto [It, New] = UnitOf.emplace(G.find(I), S.P.Units.size());
    if (New)
      S.P.Units.emplace_back();
    D.Unit = It->second;
    addToUnit(S.F, D, S.P.Units[D.Unit]);
  }
}

// --- 5. Device buffers ------------------------------------------------------

/// The use that keeps \p B in place: another use, or one that cannot be
/// removed on its own (the last such).
static const HostUse *keepingUse(const DeviceBuffer &B) {
  // A retargeted or mirrored storage goes whole: every use carries its edit.
  if (B.Kind == BufferKind::Retargeted || B.Kind == BufferKind::Mirrored)
    return nullptr;
  const HostUse *Blocking = nullptr;
  for (const HostUse &Use : B.Uses)
    if (Use.Kind == HostUseKind::Other ||
        (Use.Kind != HostUseKind::Launch && Use.Kind != HostUseKind::Declaration &&
         Use.Removal.empty()))
      Blocking = &Use;
  return Blocking;
}

/// Device buffers whose every launch now passes the host descriptor, each
/// with the unit that removes it; the others, when fully rewritten, get a
/// note in their unit saying why they stay.
static std::map<std::string, size_t> buffersToRemove(Planning &S) {
  std::map<std::string, size_t> Removed; // buffer key -> unit
  for (auto &[BK, B] : S.F.Buffers) {
    auto Users = S.BufferUsers.find(BK);
    if (Users == S.BufferUsers.end())
      continue;
    bool AllRewritten = llvm::all_of(
        Users->second, [&](const ParamUse &User) { return S.decision(User.first).Rewrite; });
    if (!AllRewritten)
      continue; // still used by a refused launch
    size_t UnitIndex = S.decision(Users->second.front().first).Unit;
    if (const HostUse *Blocking = keepingUse(B)) {
      S.P.Units[UnitIndex].LeftInPlace.push_back(
          {"device buffer '" + B.Name + "' is kept: " +
               (Blocking->Kind == HostUseKind::Other
                    ? "it has another use here"
                    : "this " + Blocking->What + " cannot be removed on its own"),
           Blocking->Where});
      continue;
    }
    Removed[BK] = UnitIndex;
  }
  return Removed;
}

/// Adds the removal of buffer \p B to unit \p UnitIndex. A declaration
/// shared with other variables goes only when all of them go together.
/// A retargeted storage keeps its shape and now points to host memory.
static void retargetBuffer(const DeviceBuffer &B, EditUnit &U) {
  if (B.Kind == BufferKind::Mirrored)
    U.LeftInPlace.push_back({"'" + B.Name +
                                 "' stays in device memory for the kernels and calls that may "
                                 "write it; '" + B.ValueName + "' beside it takes what each copy into it copies" +
                                 (B.ValueSkipsLateCopies
                                      ? " but those that land after every launch"
                                      : "") +
                                 ", and the other launches pass it",
                             B.Where});
  else
    U.LeftInPlace.push_back({"'" + B.Name +
                                 "' now holds the descriptor in host memory: its allocations, "
                                 "copies and frees are retargeted (new, assignment, delete)",
                             B.Where});
  for (const HostUse &Use : B.Uses) {
    U.Edits.insert(U.Edits.end(), Use.Removal.begin(), Use.Removal.end());
    bool Known = llvm::any_of(U.LeftInPlace, [&](const Note &N) {
      return N.Message == Use.What && N.Where == Use.Where;
    });
    if (Use.Kind == HostUseKind::Other && !Known)
      U.LeftInPlace.push_back({Use.What, Use.Where});
  }
}

static void removeBuffer(const DeviceBuffer &B, size_t UnitIndex,
                         const std::map<std::string, size_t> &Removed, EditUnit &U) {
  if (B.Kind == BufferKind::Retargeted || B.Kind == BufferKind::Mirrored)
    return retargetBuffer(B, U);
  for (const HostUse &Use : B.Uses) {
    if (Use.Kind == HostUseKind::Declaration) {
      bool SiblingsGo = llvm::all_of(Use.SharedWith, [&](const std::string &K) {
        auto It = Removed.find(K);
        return It != Removed.end() && It->second == UnitIndex;
      });
      if (Use.Removal.empty() || !SiblingsGo) {
        U.LeftInPlace.push_back(
            {"the declaration of '" + B.Name + "' shares its statement; remove it by hand",
             Use.Where});
        continue;
      }
    }
    U.Edits.insert(U.Edits.end(), Use.Removal.begin(), Use.Removal.end());
    U.CopiesRemoved += Use.Kind == HostUseKind::Copy;
    U.AllocsRemoved += Use.Kind == HostUseKind::Alloc;
    U.FreesRemoved += Use.Kind == HostUseKind::Free;
  }
}

/// First which buffers go (and in which unit), then their edits.
static void removeUnneededBuffers(Planning &S) {
  std::map<std::string, size_t> Removed = buffersToRemove(S);
  for (const auto &[BK, UnitIndex] : Removed)
    removeBuffer(S.F.Buffers.find(BK)->second, UnitIndex, Removed, S.P.Units[UnitIndex]);
}

// --- 6. Refused units -------------------------------------------------------

/// Nothing outside --in-root or in the build tree is edited: not a
/// declaration, not a launch.
static void refuseNotEditableUnits(Planning &S) {
  for (size_t I = 0; I < S.P.Units.size(); ++I)
    for (const TextEdit &E : S.P.Units[I].Edits)
      if (std::optional<Blocker> Why = notEditable(E.File, S.Opts, {E.File, E.Offset, 0, 0})) {
        S.P.refuseUnit(I, *Why);
        break;
      }
}

/// Returns the first pair of conflicting edits, if any.
static const TextEdit *firstConflict(const std::vector<TextEdit> &Sorted) {
  for (size_t I = 0; I < Sorted.size(); ++I)
    for (size_t J = I + 1; J < Sorted.size(); ++J) {
      if (Sorted[J].File != Sorted[I].File ||
          Sorted[J].Offset > Sorted[I].Offset + Sorted[I].Length)
        break;
      if (editsConflict(Sorted[I], Sorted[J]))
        return &Sorted[J];
    }
  return nullptr;
}

/// Sorts each unit's edits; overlapping edits in one unit refuse it.
static void refuseConflictsWithinUnits(Plan &P) {
  for (size_t I = 0; I < P.Units.size(); ++I) {
    EditUnit &U = P.Units[I];
    llvm::sort(U.Edits);
    U.Edits.erase(std::unique(U.Edits.begin(), U.Edits.end()), U.Edits.end());
    if (const TextEdit *C = firstConflict(U.Edits))
      P.refuseUnit(I, blockerFor(ReasonID::PlanEditsOverlap, {}, {C->File, C->Offset, 0, 0}));
  }
}

/// The first edit of \p A that conflicts with one of \p B, if any.
static const TextEdit *firstConflictBetween(const EditUnit &A, const EditUnit &B) {
  for (const TextEdit &EA : A.Edits)
    for (const TextEdit &EB : B.Edits)
      if (editsConflict(EA, EB))
        return &EA;
  return nullptr;
}

/// Two units whose edits collide are both refused.
static void refuseConflictsBetweenUnits(Plan &P) {
  for (size_t I = 0; I < P.Units.size(); ++I)
    for (size_t J = I + 1; J < P.Units.size(); ++J) {
      if (P.Units[I].Refused || P.Units[J].Refused)
        continue;
      if (const TextEdit *A = firstConflictBetween(P.Units[I], P.Units[J])) {
        Blocker Why = blockerFor(ReasonID::PlanUnitsOverlap, {}, {A->File, A->Offset, 0, 0});
        P.refuseUnit(I, Why);
        P.refuseUnit(J, Why);
      }
    }
}

Plan makePlan(const std::vector<PassFacts> &Facts, const PlanOptions &Opts) {
  MergedFacts Merged = mergeFacts(Facts);
  Planning S{Merged, Opts, {}, {}, {}, {}};
  decideParams(S);
  collectBufferUsers(S);
  refuseVetoedStorages(S);
  collectTies(S, Facts);
  spreadRefusals(S);
  formUnits(S);
  removeUnneededBuffers(S);
  refuseNotEditableUnits(S);
  refuseConflictsWithinUnits(S.P);
  refuseConflictsBetweenUnits(S.P);
  llvm::sort(S.P.Params, [](const ParamDecision &A, const ParamDecision &B) {
    return std::tie(A.Where, A.Index) < std::tie(B.Where, B.Index);
  });
  return std::move(S.P);
}

} // namespace tma
