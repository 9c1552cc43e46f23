// The storage rule applied to the launches the host flows refused: each
// refused argument that reads a storage asks DeviceStorage for its group;
// a group whose every use is classified replaces the refused sites of its
// launches, and the device buffers the flows found for its storages.
#include "Retargeting.h"

#include "DeviceStorage.h"
#include "ObjectReach.h"

#include "../core/HoldReleases.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"

#include <map>

#include <set>

using namespace clang;

namespace tma::analysis {

namespace {

class Retargeting : public PassComponent {
public:
  explicit Retargeting(PassContext &P) : PassComponent(P), Reach(P), Releases(P) {}

  void run() {
    DeviceStorage Storage(Ctx, ST, inputs());
    for (const DeviceStorage::Veto &V : Storage.vetoes())
      Out.StorageVetoes.push_back(
          {V.Key, blockerFor(ReasonID::StorageUnclassifiedUse, {V.Name, V.Why.Message}, V.Why.Where)});
    std::vector<RefusedArg> Candidates = Pass.RefusedArgs;
    llvm::append_range(Candidates, sharedWithStayingKernels());
    if (Candidates.empty())
      return;
    std::vector<Retarget> Accepted;
    std::set<SourcePoint> Done, Tried;
    for (const RefusedArg &RA : Candidates) {
      if (Done.count(ST.point(RA.Arg->getBeginLoc())) ||
          !Tried.insert(ST.point(RA.Arg->getBeginLoc())).second)
        continue;
      std::optional<Note> WhyNot;
      std::optional<Retarget> R = Storage.retarget(RA.Arg, WhyNot);
      if (R && !sharesWithOthers(*R, WhyNot))
        R.reset();
      if (!R || !kernelsStay(*R, WhyNot)) {
        // The value form keeps the device copy for those kernels, or for a
        // use no row classifies, and passes the map as it is at a launch
        // where the snapshot cannot say which copy it reads. Where it
        // cannot, the first reason stays, unless the value form refused at
        // that same use no row classifies and says what more it would need.
        bool Unknown = !R && Storage.refusedUnknownUse();
        std::optional<Note> ValueWhyNot;
        R = Storage.retarget(RA.Arg, ValueWhyNot, /*ValueForm=*/true);
        if (R && !sharesWithOthers(*R, ValueWhyNot))
          R.reset();
        if (!R && Unknown && WhyNot && ValueWhyNot && ValueWhyNot->Where == WhyNot->Where &&
            llvm::StringRef(ValueWhyNot->Message).starts_with(WhyNot->Message))
          WhyNot = ValueWhyNot;
      }
      if (!R) {
        if (WhyNot)
          noteWhyNot(ST.point(RA.Arg->getBeginLoc()), *WhyNot);
        continue;
      }
      Done.insert(R->Touched.begin(), R->Touched.end());
      Done.insert(R->Kept.begin(), R->Kept.end());
      Accepted.push_back(std::move(*R));
    }
    for (Retarget &R : Accepted)
      apply(R);
  }

private:
  ObjectReach Reach; // the host descriptor's proof, for copies of one value
  HoldReleases Releases; // where a held stream is let go

  bool stays(const std::string &ParamKey) {
    auto Slot = Pass.ParamSlot.find(ParamKey);
    return Slot != Pass.ParamSlot.end() && !Out.Params[Slot->second].Blockers.empty();
  }

  /// The launch arguments a flow accepted whose device buffer is also
  /// launched with a kernel whose descriptor stays by reference: the plan
  /// would refuse them (plan.shared-copy-kept), and only the value form
  /// can keep the device copy for that kernel.
  std::vector<RefusedArg> sharedWithStayingKernels() {
    std::set<SourcePoint> Sites;
    for (const DeviceBuffer &B : Out.Buffers) {
      if (B.Kind != BufferKind::Variable ||
          llvm::none_of(B.Uses, [&](const HostUse &U) {
            return U.Kind == HostUseKind::Launch && stays(U.ParamKey);
          }))
        continue;
      for (const HostUse &U : B.Uses)
        if (U.Kind == HostUseKind::Launch && !stays(U.ParamKey))
          Sites.insert(U.Where);
    }
    // A kernel's launch arguments, and a launcher call's that stand for
    // its launch.
    std::vector<RefusedArg> Args = Pass.AnsweredArgs;
    for (const auto &[KL, Fn] : Pass.Launches)
      for (const Expr *A : KL.Args)
        if (A)
          Args.push_back({A, Fn});
    std::vector<RefusedArg> Out;
    for (const RefusedArg &A : Args)
      if (Sites.erase(ST.point(A.Arg->getBeginLoc())))
        Out.push_back(A);
    return Out;
  }

  StorageInputs inputs() {
    StorageInputs In;
    // A storage another translation unit can reach is open unless this
    // unit is the whole program: there, a copy or a launch would go on
    // treating it as device memory, and nothing would be edited to match
    // (unlike the flows, the rule keeps every signature, so nothing fails
    // to compile either).
    In.CallableElsewhere = [this](const FunctionDecl *F) -> std::optional<std::string> {
      std::string Name = "'" + F->getQualifiedNameAsString() + "'";
      if (std::optional<std::string> Units = otherUnitsReaching(F))
        return Name + " is also named in " + *Units +
               ", where it may be called with a device pointer or what it returns used as one";
      if (!F->isExternallyVisible() || wholeProgramInOneUnit() || Opts.UnitsKnown)
        return std::nullopt;
      return Name + " has external linkage: another translation unit may call it with a device "
             "pointer or use what it returns as one (make it static, or " + oneUnitRun() + ")";
    };
    In.StreamHold = [this] { return Pass.streamHoldNote(); };
    In.MayBeHeld = [this](const CallExpr *Op, const FunctionDecl *Fn) { return Pass.mayBeHeld(Op, Fn); };
    In.HoldSite = [this] { return Pass.StreamHold; };
    In.ReleasesOf = [this](const CallExpr *Op, const FunctionDecl *Fn) {
      return Releases.releasesOf(Op, Fn);
    };
    In.Between = [this](const Stmt *From, const Stmt *To, const Stmt *X, const FunctionDecl *Fn) {
      return between(From, To, X, Fn);
    };
    In.EventWaitAt = [this]() -> const Stmt * { return Pass.EventWait; };
    In.DominatedBy = [this](llvm::ArrayRef<const Stmt *> As, const Stmt *To, const FunctionDecl *Fn) {
      return dominatedBy(As, To, Fn);
    };
    In.KernelStays = [this](const FunctionDecl *Kernel, unsigned Index) {
      return stays(paramKey(Kernel, Index));
    };
    In.HostUnchangedBetween = [this](const VarDecl *Object, const Stmt *From, const Stmt *To,
                                     const FunctionDecl *Fn,
                                     const std::function<bool(const Stmt *)> &RunsOutside,
                                     llvm::ArrayRef<const Stmt *> Skip) {
      ObjectQuery Q{Object, From, To, Fn, nullptr, {From, To}, {}, RunsOutside};
      llvm::append_range(Q.Skip, Skip);
      return !Reach.changeBetween(Q);
    };
    In.ReachesAvoiding = [this](const Stmt *From, const Stmt *To, llvm::ArrayRef<const Stmt *> Stops,
                                const FunctionDecl *Fn) { return reachesAvoiding(From, To, Stops, Fn); };
    In.NamedElsewhere = [this](const VarDecl *V) -> std::optional<std::string> {
      std::string Name = "'" + V->getQualifiedNameAsString() + "'";
      if (std::optional<std::string> Units = otherUnitsReaching(V))
        return Name + " is also named in " + *Units + ", where it may be used as device memory";
      if (!V->isExternallyVisible() || wholeProgramInOneUnit() || Opts.UnitsKnown)
        return std::nullopt;
      return Name + " has external linkage: another translation unit may use it (make it "
             "static, or " + oneUnitRun() + ")";
    };
    In.DeclaredElsewhere = [this](const Decl *D) -> std::optional<std::string> {
      const SourceManager &SM = Ctx.getSourceManager();
      SourceLocation Loc = SM.getExpansionLoc(D->getLocation());
      if (wholeProgramInOneUnit() || SM.isInMainFile(Loc))
        return std::nullopt;
      std::string Name = "it";
      if (const auto *ND = dyn_cast<NamedDecl>(D))
        Name = "'" + ND->getQualifiedNameAsString() + "'";
      if (!Opts.UnitsKnown) // no compile database: any unit may include it
        return Name + " is declared in a header: another translation unit that includes it may "
               "copy into, free or launch it as device memory (" + oneUnitRun() + ")";
      std::vector<std::string> Others = otherUnitsIncluding(SM.getFilename(Loc));
      if (Others.empty())
        return std::nullopt;
      return Name + " is declared in a header that " + llvm::join(Others, ", ") +
             " may also include, where it may be copied into, freed or launched as device memory";
    };
    In.PointerTargets = [this](const CallExpr *Call) -> std::vector<const FunctionDecl *> {
      const auto *KC = dyn_cast<CUDAKernelCallExpr>(Call);
      auto It = KC ? Pass.PointerTargets.find(KC) : Pass.PointerTargets.end();
      if (It == Pass.PointerTargets.end())
        return {};
      return It->second;
    };
    In.ArraySlotLaunches = [this](const Expr *E) {
      auto It = Pass.ArraySlotLaunches.find(E);
      return It == Pass.ArraySlotLaunches.end()
                 ? std::vector<std::pair<const CallExpr *, const FunctionDecl *>>()
                 : It->second;
    };
    In.ArraySlotOf = [this](const Expr *E)
        -> std::optional<std::pair<const FunctionDecl *, unsigned>> {
      auto It = Pass.ArraySlotExprs.find(E);
      if (It == Pass.ArraySlotExprs.end())
        return std::nullopt;
      return It->second;
    };
    return In;
  }

  bool wholeProgramInOneUnit() { return Pass.wholeProgram() && Opts.SingleUnit; }
  /// The header files (not the main file) that declare \p D.
  template <class DeclT> std::vector<llvm::StringRef> headersDeclaring(const DeclT *D) {
    const SourceManager &SM = Ctx.getSourceManager();
    std::vector<llvm::StringRef> Headers;
    for (const DeclT *R : D->redecls())
      if (SourceLocation L = SM.getExpansionLoc(R->getLocation()); !SM.isInMainFile(L))
        Headers.push_back(SM.getFilename(L));
    return Headers;
  }
  /// With a compile database, the other units that can reach \p D, spelled
  /// for a message: with external linkage and a plain name, those whose
  /// files spell it (a declaration of their own, or a header's); otherwise
  /// those that may include a header declaring it. None without a database.
  template <class DeclT> std::optional<std::string> otherUnitsReaching(const DeclT *D) {
    if (wholeProgramInOneUnit() || !Opts.UnitsKnown)
      return std::nullopt;
    std::vector<std::string> Units;
    // An operator or a constructor is reached through its class, whose
    // header other units include: asked as a header's declaration.
    if (D->isExternallyVisible() && D->getDeclName().isIdentifier())
      Units = otherUnitsSpelling(spelledNames(D));
    else
      for (llvm::StringRef H : headersDeclaring(D))
        for (std::string &U : otherUnitsIncluding(H))
          if (!llvm::is_contained(Units, U))
            Units.push_back(std::move(U));
    if (Units.empty())
      return std::nullopt;
    return llvm::join(Units, ", ");
  }
  /// The names a unit must spell to reach \p D: its own, and those of the
  /// named namespaces around it (issue 33: `M2::d_map` is not reached by a
  /// unit that only spells `M10::d_map`); an inline namespace is reached
  /// without its name, so it asks nothing.
  static std::vector<std::string> spelledNames(const NamedDecl *D) {
    std::vector<std::string> Names = {D->getName().str()};
    for (const DeclContext *C = D->getDeclContext(); C; C = C->getParent())
      if (const auto *NS = dyn_cast<NamespaceDecl>(C))
        if (!NS->isInline() && !NS->isAnonymousNamespace() && NS->getIdentifier())
          Names.push_back(NS->getName().str());
    return Names;
  }
  /// The other units of the database whose files spell each of \p Names as
  /// a whole identifier, in any of them (a unit whose files are not all
  /// known counts).
  std::vector<std::string> otherUnitsSpelling(const std::vector<std::string> &Names) {
    return otherUnitsWhere([&](const std::vector<std::string> &Files) {
      return llvm::all_of(Names, [&](const std::string &Name) {
        return llvm::any_of(Files,
                            [&](const std::string &F) { return F == "*" || spells(F, Name); });
      });
    });
  }
  /// The other units of the database that have a file \p Matches accepts
  /// (a unit whose files are not all known counts), quoted, up to three and
  /// a count.
  std::vector<std::string>
  otherUnits(llvm::function_ref<bool(const std::string &File)> Matches) {
    return otherUnitsWhere([&](const std::vector<std::string> &Files) {
      return llvm::any_of(Files, [&](const std::string &F) { return F == "*" || Matches(F); });
    });
  }
  /// The other units of the database whose file list \p Matches accepts,
  /// quoted, up to three and a count.
  std::vector<std::string>
  otherUnitsWhere(llvm::function_ref<bool(const std::vector<std::string> &Files)> Matches) {
    if (This.empty())
      This = thisUnit();
    std::vector<std::string> Others;
    unsigned More = 0;
    for (const auto &[Unit, Files] : Opts.UnitIncludes)
      if (Unit != This && Matches(Files)) {
        if (Others.size() < 3)
          Others.push_back("'" + Unit + "'");
        else
          ++More;
      }
    if (More)
      Others.push_back(std::to_string(More) + " more");
    return Others;
  }
  bool spells(const std::string &File, llvm::StringRef Name) {
    auto [It, New] = FileTexts.try_emplace(File);
    if (New)
      if (auto Buf = llvm::MemoryBuffer::getFile(File))
        It->second = (*Buf)->getBuffer().str();
      else
        It->second = Name.str(); // unreadable: it may spell anything
    llvm::StringRef Text = It->second;
    for (size_t At = Text.find(Name); At != llvm::StringRef::npos; At = Text.find(Name, At + 1)) {
      auto IsId = [](char C) { return llvm::isAlnum(C) || C == '_'; };
      bool Before = At > 0 && IsId(Text[At - 1]);
      bool After = At + Name.size() < Text.size() && IsId(Text[At + Name.size()]);
      if (!Before && !After)
        return true;
    }
    return false;
  }
  std::string thisUnit() {
    const SourceManager &SM = Ctx.getSourceManager();
    if (OptionalFileEntryRef Main = SM.getFileEntryRefForID(SM.getMainFileID()))
      return normalizePath(Main->getName());
    return "";
  }
  std::map<std::string, std::string> FileTexts; // files read by spells()
  std::string This;                             // this unit, normalised (otherUnits)
  /// The units of the compile database other than this one that may include
  /// \p Header (by the prefilter's text scan).
  std::vector<std::string> otherUnitsIncluding(llvm::StringRef Header) {
    std::string File = normalizePath(Header);
    return otherUnits([&](const std::string &F) { return F == File; });
  }
  /// What would let the rule see every use: the whole program in one run
  /// of one translation unit.
  std::string oneUnitRun() {
    if (Opts.UnitsNotInRun.empty())
      return "run over the whole program in one translation unit";
    return "run over the whole program in one translation unit; not in this run: " +
           llvm::join(llvm::ArrayRef(Opts.UnitsNotInRun).take_front(3), ", ");
  }

  bool touches(const Retarget &R, const DeviceBuffer &B) {
    if (llvm::any_of(R.Variables, [&](const VarDecl *V) { return ST.point(V->getLocation()) == B.Where; }))
      return true;
    return llvm::any_of(B.Uses, [&](const HostUse &U) { return R.Touched.count(U.Where); });
  }

  /// A device buffer a flow found, shared with launches outside the group:
  /// its edits and the group's would disagree.
  bool sharesWithOthers(const Retarget &R, std::optional<Note> &WhyNot) {
    for (const DeviceBuffer &B : Out.Buffers) {
      if (!touches(R, B))
        continue;
      for (const HostUse &U : B.Uses)
        if (U.Kind == HostUseKind::Launch && !R.Touched.count(U.Where) && !R.Kept.count(U.Where)) {
          WhyNot = Note{"the device copy is also launched here, where the storage rule does not "
                        "reach",
                        U.Where};
          return false;
        }
    }
    return true;
  }

  /// A kernel of the group that stays by reference (its descriptor is
  /// changed on the device, say) keeps the whole group on the device: the
  /// flows' answer for the other launches stands.
  bool kernelsStay(const Retarget &R, std::optional<Note> &WhyNot) {
    for (const RetargetedLaunch &L : R.Launches) {
      auto Slot = Pass.ParamSlot.find(paramKey(L.Kernel, L.Index));
      if (Slot == Pass.ParamSlot.end() || Out.Params[Slot->second].Blockers.empty())
        continue;
      WhyNot = Note{"it is also launched with kernel '" +
                        patternOf(L.Kernel)->getQualifiedNameAsString() +
                        "', whose descriptor stays by reference",
                    L.Where};
      return false;
    }
    return true;
  }

  void noteWhyNot(const SourcePoint &Site, const Note &Why) {
    for (LaunchSite &LS : Out.Launches)
      if (LS.Where == Site && !LS.Blockers.empty()) {
        for (const Note &N : LS.Blockers.back().Notes)
          if (N.Where == Why.Where && N.Message.find(Why.Message) != std::string::npos)
            return;
        LS.Blockers.back().Notes.push_back(
            {"also: the storage rule cannot retarget it: " + Why.Message + " [" +
                 reasonInfo(ReasonID::StorageUnclassifiedUse).Name.str() + "]",
             Why.Where});
        return;
      }
  }

  void apply(Retarget &R) {
    std::set<std::string> Launchers;
    for (const FunctionDecl *F : R.Functions)
      for (unsigned I = 0; I < F->getNumParams(); ++I)
        Launchers.insert(paramKey(F, I));
    llvm::erase_if(Out.Buffers, [&](const DeviceBuffer &B) { return touches(R, B); });
    llvm::erase_if(Out.Launches, [&](const LaunchSite &LS) {
      return R.Touched.count(LS.Where) || (!LS.LauncherKey.empty() && Launchers.count(LS.LauncherKey));
    });
    llvm::erase_if(Out.Launchers,
                   [&](const LauncherForward &F) { return Launchers.count(F.LauncherKey); });
    DeviceBuffer B;
    B.Key = R.Key;
    B.Name = R.Name;
    B.Where = R.Where;
    B.Kind = R.Mirrored ? BufferKind::Mirrored : BufferKind::Retargeted;
    B.ValueName = R.ValueName;
    B.ValueSkipsLateCopies = R.ValueSkipsLateCopies;
    B.Uses = R.Uses;
    B.Storages = R.Storages;
    for (const RetargetedLaunch &L : R.Launches) {
      LaunchSite LS;
      LS.ParamKey = paramKey(L.Kernel, L.Index);
      LS.KernelName = patternOf(L.Kernel)->getQualifiedNameAsString();
      LS.Where = L.Where;
      LS.Edits.push_back(L.Edit);
      LS.BufferKey = R.Key;
      LS.HostDescriptor = L.ByValue.empty() ? L.Edit.Text : L.ByValue;
      // The storage holds the copy taken at the upload, or the launch
      // passes the map whose copy its kernel reads.
      LS.Form = L.ByValue.empty() ? LaunchForm::Snapshot : LaunchForm::ByValue;
      LS.ReliesOn = R.ReliesOn;
      Out.Launches.push_back(std::move(LS));
      HostUse U;
      U.Kind = HostUseKind::Launch;
      U.Where = L.Where;
      U.What = "launch of '" + patternOf(L.Kernel)->getQualifiedNameAsString() + "'";
      U.ParamKey = paramKey(L.Kernel, L.Index);
      B.Uses.push_back(std::move(U));
    }
    Out.Buffers.push_back(std::move(B));
  }
};

} // namespace

void retargetRefusedLaunches(PassContext &P) { Retargeting(P).run(); }

} // namespace tma::analysis
