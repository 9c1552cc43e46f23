#include "tma/Planner.h"

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

static void addUnique(std::vector<Blocker> &To, const Blocker &B) {
  for (const Blocker &X : To)
    if (X.ID == B.ID && X.Where == B.Where && X.Message == B.Message)
      return;
  To.push_back(B);
}

static bool underRoot(const std::string &File, const std::string &Root) {
  if (Root.empty())
    return true;
  llvm::StringRef F(File), R(Root);
  if (!F.starts_with(R))
    return false;
  return F.size() == R.size() || R.ends_with("/") || F[R.size()] == '/';
}

/// Why \p File may not be edited, or nullopt.
static std::optional<std::string> notEditable(const std::string &File, const PlanOptions &Opts) {
  if (!underRoot(File, Opts.InRoot))
    return "'" + File + "' would be edited but is outside --in-root " + Opts.InRoot;
  if (!Opts.BuildTree.empty() && underRoot(File, Opts.BuildTree))
    return "'" + File + "' would be edited but is in the build tree '" + Opts.BuildTree +
           "' (the compile database's directory): generated code is not edited; change its "
           "generator";
  return std::nullopt;
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

Plan makePlan(const std::vector<PassFacts> &Facts, const PlanOptions &Opts) {
  // 1. Merge the facts of every pass.
  std::map<std::string, DescriptorParam> Params;
  std::map<std::pair<std::string, SourcePoint>, LaunchSite> Launches;
  std::map<std::string, DeviceBuffer> Buffers;
  std::map<std::string, std::set<TextEdit>> ParamEdits;
  std::map<std::string, std::set<SourcePoint>> ParamFences;
  for (const PassFacts &PF : Facts) {
    for (const DescriptorParam &P : PF.Params) {
      auto [It, New] = Params.emplace(P.Key, P);
      DescriptorParam &M = It->second;
      if (!New) {
        llvm::append_range(M.ReliesOn, P.ReliesOn);
        if (P.DefinitionSeen && !M.DefinitionSeen)
          M.Where = P.Where;
        M.DefinitionSeen |= P.DefinitionSeen;
        for (const Blocker &B : P.Blockers)
          addUnique(M.Blockers, B);
      }
      ParamEdits[P.Key].insert(P.Edits.begin(), P.Edits.end());
      ParamFences[P.Key].insert(P.FencesRemoved.begin(), P.FencesRemoved.end());
    }
    for (const auto &[Key, B] : PF.ParamBlockers)
      if (Params.count(Key))
        addUnique(Params[Key].Blockers, B);
    for (const LaunchSite &L : PF.Launches) {
      auto [It, New] = Launches.emplace(std::make_pair(L.ParamKey, L.Where), L);
      if (New)
        continue;
      LaunchSite &M = It->second;
      llvm::append_range(M.ReliesOn, L.ReliesOn);
      for (const Blocker &B : L.Blockers)
        addUnique(M.Blockers, B);
      if (M.Edits != L.Edits && !M.Edits.empty() && !L.Edits.empty())
        addUnique(M.Blockers, {DiagID::Conflict,
                               "the device and host passes disagree on this launch argument",
                               L.Where, {}});
      if (M.Edits.empty())
        M.Edits = L.Edits;
    }
    for (const DeviceBuffer &B : PF.Buffers) {
      auto [It, New] = Buffers.emplace(B.Key, B);
      if (New)
        continue;
      for (const HostUse &U : B.Uses) {
        bool Seen = llvm::any_of(It->second.Uses, [&](const HostUse &X) {
          return X.Kind == U.Kind && X.Where == U.Where;
        });
        if (!Seen)
          It->second.Uses.push_back(U);
      }
    }
  }
  // ParamBlockers of one pass may name a param first seen in another pass.
  for (const PassFacts &PF : Facts) {
    for (const auto &[Key, B] : PF.ParamBlockers)
      if (Params.count(Key))
        addUnique(Params[Key].Blockers, B);
    for (const auto &[Key, S] : PF.ParamSpans)
      if (Params.count(Key))
        Params[Key].ReliesOn.push_back(S);
  }

  // 2. Decide each descriptor parameter.
  Plan P;
  std::map<std::string, size_t> Slot;
  for (auto &[Key, DP] : Params) {
    ParamDecision D;
    D.Key = Key;
    D.KernelName = DP.KernelName;
    D.ParamName = DP.ParamName;
    D.Index = DP.Index;
    D.Where = DP.Where;
    D.Blockers = DP.Blockers;
    D.ReliesOn = DP.ReliesOn;
    D.ExternallyVisible = DP.ExternallyVisible;
    D.FromConstant = DP.FromConstant;
    if (!DP.DefinitionSeen)
      addUnique(D.Blockers, {DiagID::Escapes,
                             "the definition of kernel '" + DP.KernelName +
                                 "' is not in this translation unit; its uses of '" +
                                 DP.ParamName + "' cannot be checked",
                             DP.Where, {}});
    for (auto &[LK, L] : Launches)
      if (LK.first == Key) {
        ++D.Launches;
        llvm::append_range(D.ReliesOn, L.ReliesOn);
        for (const Blocker &B : L.Blockers)
          addUnique(D.Blockers, B);
      }
    if (D.Launches == 0)
      addUnique(D.Blockers, {DiagID::LaunchNotRewritable,
                             "no launch of kernel '" + DP.KernelName +
                                 "' in the given sources; launches elsewhere would break",
                             DP.Where, {}});
    for (const TextEdit &E : ParamEdits[Key])
      if (std::optional<std::string> Why = notEditable(E.File, Opts)) {
        addUnique(D.Blockers, {DiagID::Declaration, *Why, DP.Where, {}});
        break;
      }
    llvm::sort(D.ReliesOn);
    D.ReliesOn.erase(std::unique(D.ReliesOn.begin(), D.ReliesOn.end()), D.ReliesOn.end());
    auto Pre = Opts.Preblocked.find(Key);
    if (Pre != Opts.Preblocked.end())
      D.Blockers.insert(D.Blockers.begin(), Pre->second);
    D.Rewrite = D.Blockers.empty();
    Slot[Key] = P.Params.size();
    P.Params.push_back(std::move(D));
  }

  // Who is launched with each device buffer: taken from the buffer's own
  // uses, so that a launch refused before it was traced still counts.
  std::map<std::string, std::vector<std::pair<std::string, SourcePoint>>> BufferUsers;
  for (auto &[BK, B] : Buffers)
    for (const HostUse &U : B.Uses)
      if (U.Kind == HostUseKind::Launch && Slot.count(U.ParamKey))
        BufferUsers[BK].push_back({U.ParamKey, U.Where});

  // Parameters tied together (one function pointer launches them all).
  std::vector<std::pair<std::vector<size_t>, Note>> Ties;
  for (const PassFacts &PF : Facts)
    for (const auto &[Keys, Why] : PF.TiedParams) {
      std::vector<size_t> Slots;
      for (const std::string &K : Keys)
        if (Slot.count(K))
          Slots.push_back(Slot[K]);
      if (Slots.size() > 1)
        Ties.push_back({Slots, Why});
    }

  // A device copy shared with a descriptor that stays by reference may be
  // changed on the device (tensormap.replace in another kernel): then no
  // launch of it can pass the host descriptor instead. Refusals spread.
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (const auto &[Slots, Why] : Ties) {
      auto Kept = llvm::find_if(Slots, [&](size_t S) { return !P.Params[S].Rewrite; });
      if (Kept == Slots.end())
        continue;
      for (size_t S : Slots) {
        ParamDecision &D = P.Params[S];
        if (!D.Rewrite)
          continue;
        D.Rewrite = false;
        D.Blockers.push_back({DiagID::LaunchNotRewritable,
                              "it is launched through a function pointer that may also point "
                              "to '" + P.Params[*Kept].KernelName +
                                  "', whose descriptor stays by reference",
                              Why.Where,
                              {Why}});
        Changed = true;
      }
    }
    for (auto &[BK, Users] : BufferUsers) {
      // __constant__ memory cannot be changed on the device: a kernel that
      // keeps reading it only keeps the copies in place.
      if (llvm::StringRef(BK).starts_with("constant:"))
        continue;
      const std::pair<std::string, SourcePoint> *Kept = nullptr;
      for (const auto &User : Users)
        if (!P.Params[Slot[User.first]].Rewrite)
          Kept = &User;
      if (!Kept)
        continue;
      const std::string &KeptKernel = P.Params[Slot[Kept->first]].KernelName;
      for (const auto &User : Users) {
        ParamDecision &D = P.Params[Slot[User.first]];
        if (!D.Rewrite)
          continue;
        D.Rewrite = false;
        D.Blockers.push_back(
            {DiagID::HostNotTraceable,
             "the device copy passed here is also passed to '" + KeptKernel +
                 "', whose descriptor stays by reference and may be changed on the device",
             User.second,
             {{"'" + KeptKernel + "' is launched with it here", Kept->second}}});
        Changed = true;
      }
    }
  }

  // 3. Units: rewritten parameters whose launches share a device buffer.
  std::vector<size_t> Leader(P.Params.size());
  for (size_t I = 0; I < Leader.size(); ++I)
    Leader[I] = I;
  auto Find = [&](size_t X) {
    while (Leader[X] != X)
      X = Leader[X] = Leader[Leader[X]];
    return X;
  };
  for (auto &[BK, Users] : BufferUsers)
    for (const auto &User : Users)
      if (P.Params[Slot[User.first]].Rewrite && P.Params[Slot[Users.front().first]].Rewrite)
        Leader[Find(Slot[User.first])] = Find(Slot[Users.front().first]);
  for (const auto &[Slots, Why] : Ties)
    if (P.Params[Slots.front()].Rewrite)
      for (size_t S : Slots)
        Leader[Find(S)] = Find(Slots.front());
  // Buffers declared in one statement (`CUtensorMap *d_a, *d_b;`) are removed
  // together or not at all: their parameters change together.
  for (auto &[BK, B] : Buffers) {
    auto Mine = BufferUsers.find(BK);
    if (Mine == BufferUsers.end() || !P.Params[Slot[Mine->second.front().first]].Rewrite)
      continue;
    for (const HostUse &U : B.Uses)
      for (const std::string &Sibling : U.SharedWith) {
        auto Theirs = BufferUsers.find(Sibling);
        if (Theirs != BufferUsers.end() && P.Params[Slot[Theirs->second.front().first]].Rewrite)
          Leader[Find(Slot[Theirs->second.front().first])] =
              Find(Slot[Mine->second.front().first]);
      }
  }

  std::map<size_t, size_t> UnitOf;
  for (size_t I = 0; I < P.Params.size(); ++I) {
    ParamDecision &D = P.Params[I];
    if (!D.Rewrite)
      continue;
    auto [It, New] = UnitOf.emplace(Find(I), P.Units.size());
    if (New)
      P.Units.emplace_back();
    D.Unit = It->second;
    EditUnit &U = P.Units[D.Unit];
    U.ParamKeys.push_back(D.Key);
    U.Edits.insert(U.Edits.end(), ParamEdits[D.Key].begin(), ParamEdits[D.Key].end());
    U.FencesRemoved += ParamFences[D.Key].size();
    for (auto &[LK, L] : Launches)
      if (LK.first == D.Key) {
        U.Edits.insert(U.Edits.end(), L.Edits.begin(), L.Edits.end());
        ++U.LaunchesChanged;
      }
  }

  // 4. Device buffers whose every launch now passes the host descriptor go.
  // First which go (and in which unit), then their edits: a declaration
  // shared with other variables goes only when all of them go together.
  std::map<std::string, size_t> Removed; // buffer key -> unit
  for (auto &[BK, B] : Buffers) {
    auto Users = BufferUsers.find(BK);
    if (Users == BufferUsers.end())
      continue;
    bool AllRewritten = llvm::all_of(Users->second, [&](const auto &User) {
      return P.Params[Slot[User.first]].Rewrite;
    });
    if (!AllRewritten)
      continue; // still used by a refused launch
    size_t UnitIndex = P.Params[Slot[Users->second.front().first]].Unit;
    const HostUse *Blocking = nullptr;
    for (const HostUse &Use : B.Uses)
      if (Use.Kind == HostUseKind::Other ||
          (Use.Kind != HostUseKind::Launch && Use.Kind != HostUseKind::Declaration &&
           Use.Removal.empty()))
        Blocking = &Use;
    if (Blocking) {
      P.Units[UnitIndex].LeftInPlace.push_back(
          {"device buffer '" + B.Name + "' is kept: " +
               (Blocking->Kind == HostUseKind::Other
                    ? "it has another use here"
                    : "this " + Blocking->What + " cannot be removed on its own"),
           Blocking->Where});
      continue;
    }
    Removed[BK] = UnitIndex;
  }
  for (const auto &[BK, UnitIndex] : Removed) {
    const DeviceBuffer &B = Buffers[BK];
    EditUnit &U = P.Units[UnitIndex];
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

  // Nothing outside --in-root or in the build tree is edited: not a
  // declaration, not a launch.
  for (size_t I = 0; I < P.Units.size(); ++I)
    for (const TextEdit &E : P.Units[I].Edits)
      if (std::optional<std::string> Why = notEditable(E.File, Opts)) {
        P.refuseUnit(I, {DiagID::Declaration, *Why, {E.File, E.Offset, 0, 0}, {}});
        break;
      }

  // 5. Conflicts refuse the unit (and both units when they collide).
  for (size_t I = 0; I < P.Units.size(); ++I) {
    EditUnit &U = P.Units[I];
    llvm::sort(U.Edits);
    U.Edits.erase(std::unique(U.Edits.begin(), U.Edits.end()), U.Edits.end());
    if (const TextEdit *C = firstConflict(U.Edits))
      P.refuseUnit(I, {DiagID::Conflict, "two edits for this descriptor overlap",
                       {C->File, C->Offset, 0, 0}, {}});
  }
  for (size_t I = 0; I < P.Units.size(); ++I)
    for (size_t J = I + 1; J < P.Units.size(); ++J) {
      if (P.Units[I].Refused || P.Units[J].Refused)
        continue;
      for (const TextEdit &A : P.Units[I].Edits)
        for (const TextEdit &B : P.Units[J].Edits)
          if (editsConflict(A, B)) {
            Blocker Why{DiagID::Conflict, "edits of two descriptors overlap",
                        {A.File, A.Offset, 0, 0}, {}};
            P.refuseUnit(I, Why);
            P.refuseUnit(J, Why);
            goto next;
          }
    next:;
    }
  llvm::sort(P.Params, [](const ParamDecision &A, const ParamDecision &B) {
    return std::tie(A.Where, A.Index) < std::tie(B.Where, B.Index);
  });
  return P;
}

} // namespace tma
