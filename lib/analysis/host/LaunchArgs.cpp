// Every descriptor argument of every launch, traced back to its host
// descriptor through the host flows. The flows form one ordered registry
// (HostFlows below): each is asked in turn, and the first that claims the
// argument decides it. Adding a flow: one function, one registry line.
#include "HostBuffers.h"
#include "HostRefs.h"
#include "LaunchArgs.h"
#include "ObjectReach.h"
#include "Launchers.h"
#include "UploadHelpers.h"

#include "../core/CudaApi.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;

namespace tma::analysis {

namespace {
/// `(const T *)v` or `static_cast<const T *>(v)` of a `T *` variable, or
/// `(CUtensorMap *)dptr` of a CUdeviceptr: the variable's reference, or null.
const DeclRefExpr *throughConstCast(const Expr *E) {
  const auto *C = dyn_cast<ExplicitCastExpr>(E);
  if (!C || !isa<CStyleCastExpr, CXXStaticCastExpr>(C) || !C->getType()->isPointerType())
    return nullptr;
  const Expr *Sub = C->getSubExpr()->IgnoreParenImpCasts();
  QualType From = Sub->getType(), To = C->getType();
  // `(CUtensorMap *)dptr`: a driver allocation's address, a CUdeviceptr.
  if (From->isIntegerType() && isDescriptorPointer(To))
    return dyn_cast<DeclRefExpr>(Sub);
  if (!From->isPointerType() ||
      From->getPointeeType().getUnqualifiedType().getCanonicalType() !=
          To->getPointeeType().getUnqualifiedType().getCanonicalType())
    return nullptr;
  return dyn_cast<DeclRefExpr>(Sub);
}

using Flow = FlowAnswer (LaunchArgs::*)(const LaunchArg &, LaunchSite &);
/// The host flows in catalogue order; the first that claims an argument
/// decides it, so the refusals that guard the later flows come before them.
struct HostFlow {
  const char *Name;
  Flow Ask;
};
const HostFlow HostFlows[] = {
    {"launched from device code", &LaunchArgs::launchedFromDevice},
    {"H6 upload-helper call", &LaunchArgs::uploadHelperCall},
    {"H1 device copy in a plan object", &LaunchArgs::memberDeviceCopy},
    {"not a variable", &LaunchArgs::notAVariable},
    {"H7 launcher parameter", &LaunchArgs::launcherParameter},
    {"H8 static cache", &LaunchArgs::staticLocalCache},
    {"H8 file-scope cache", &LaunchArgs::fileScopeCache},
    {"not a local variable", &LaunchArgs::notLocal},
    {"spelled in a macro", &LaunchArgs::spelledInMacro},
    {"H6 upload-helper variable", &LaunchArgs::uploadHelperVariable},
    {"H1-H3 device buffer", &LaunchArgs::deviceBuffer},
};
} // namespace

void LaunchArgs::analyzeLaunch(const KernelLaunch &KL, const FunctionDecl *Fn) {
  for (unsigned I : descriptorParamIndexes(KL.Kernel))
    if (I < KL.Args.size() && KL.Args[I])
      analyzeLaunchArg(KL, I, Fn, 0, {});
}

void LaunchArgs::analyzeLaunchArg(const KernelLaunch &KL, unsigned Index,
                                  const FunctionDecl *Fn, unsigned Depth,
                                  const std::vector<TextEdit> &Extra) {
  if (Index >= KL.Args.size())
    return;
  LaunchArg A{KL, Index, Fn, Depth, Extra, KL.Args[Index], nullptr, nullptr, nullptr};
  A.Ref = dyn_cast<DeclRefExpr>(A.Arg->IgnoreParenImpCasts());
  A.Spelled = A.Ref;
  if (!A.Ref) // `(const CUtensorMap *)d`, of a local: the cast goes with the argument
    if (const DeclRefExpr *R = throughConstCast(A.Arg->IgnoreParenImpCasts());
        R && isa<VarDecl>(R->getDecl()) && !isa<ParmVarDecl>(R->getDecl()) &&
        cast<VarDecl>(R->getDecl())->hasLocalStorage()) {
      A.Ref = R;
      A.Spelled = A.Arg->IgnoreParenImpCasts();
    }
  A.Var = A.Ref ? dyn_cast<VarDecl>(A.Ref->getDecl()) : nullptr;
  LaunchSite LS;
  if (KL.ForeignLauncher) {
    LS.LauncherKey = paramKey(KL.ForeignLauncher, Index);
    LS.KernelName = KL.ForeignLauncher->getQualifiedNameAsString();
  } else {
    LS.ParamKey = paramKey(KL.Kernel, Index);
    LS.KernelName = patternOf(KL.Kernel)->getQualifiedNameAsString();
  }
  LS.Where = ST.point(A.Arg->getBeginLoc());
  LS.ReliesOn.push_back(spanOf(Fn));
  LS.HostDescriptor = spelled(A.Arg);
  for (const HostFlow &F : HostFlows) {
    FlowAnswer Answer = (this->*F.Ask)(A, LS);
    if (Answer.Verdict == FlowAnswer::NotMine)
      continue;
    if (Answer.Verdict == FlowAnswer::Forwarded)
      return; // the launches through the launcher's callers stand for it
    if (!KL.ForeignLauncher)
      Pass.AnsweredArgs.push_back({A.Arg, Fn});
    if (Answer.Why) {
      LS.Blockers.push_back(std::move(*Answer.Why));
      if (!KL.ForeignLauncher)
        Pass.RefusedArgs.push_back({A.Arg, Fn});
    } else
      llvm::append_range(LS.Edits, Extra);
    Out.Launches.push_back(std::move(LS));
    return;
  }
}

FlowAnswer LaunchArgs::refuse(ReasonID Why, llvm::ArrayRef<std::string> Args, SourceLocation At,
                              std::vector<Note> Notes) {
  return FlowAnswer::refused(blockerFor(Why, Args, ST.point(At), std::move(Notes)));
}

FlowAnswer LaunchArgs::launchedFromDevice(const LaunchArg &A, LaunchSite &LS) {
  if (!runsOnDevice(A.Fn))
    return FlowAnswer::notMine();
  return refuse(ReasonID::LaunchFromDevice, {LS.KernelName}, A.KL.E->getBeginLoc());
}

FlowAnswer LaunchArgs::notAVariable(const LaunchArg &A, LaunchSite &LS) {
  if (A.Var)
    return FlowAnswer::notMine();
  return refuse(ReasonID::LaunchArgNotVariable, {LS.HostDescriptor}, A.Arg->getBeginLoc());
}

// H7: a launcher function forwards its parameter; its callers pass the
// device copy, and each call is analysed as a launch.
FlowAnswer LaunchArgs::launcherParameter(const LaunchArg &A, LaunchSite &LS) {
  const auto *PV = dyn_cast<ParmVarDecl>(A.Var);
  if (!PV)
    return FlowAnswer::notMine();
  if (std::optional<Blocker> Why = LauncherFlow.forwardThroughLauncher(
          A.KL, A.Index, PV, A.Fn, A.Depth, LS, A.Extra))
    return FlowAnswer::refused(std::move(*Why));
  return FlowAnswer::forwarded();
}

/// The upload helper that assigns the cache \p Cache in \p Fn
/// (`cache = helper(...)`), or null.
const FunctionDecl *LaunchArgs::cacheHelper(const VarDecl *Cache, const FunctionDecl *Fn) {
  const FunctionDecl *Helper = nullptr;
  for (const DeclRefExpr *R : index(Fn).Refs[Cache]) {
    const auto *BO = dyn_cast_or_null<BinaryOperator>(parent(Fn, R));
    if (!BO || BO->getOpcode() != BO_Assign || BO->getLHS()->IgnoreParens() != R)
      continue;
    const auto *Call = dyn_cast<CallExpr>(BO->getRHS()->IgnoreImplicit());
    const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
    if (Callee && !isKernel(Callee) && isDescriptorPointer(Callee->getReturnType()))
      Helper = Callee;
  }
  return Helper;
}

/// The launch passes the cache \p A.Var of upload helper \p Helper: the
/// cache keeps the descriptor on the host, the launch passes `*cache`.
FlowAnswer LaunchArgs::passCachedDescriptor(const LaunchArg &A, const FunctionDecl *Helper,
                                            const CharSourceRange &ArgRange, LaunchSite &LS) {
  const UploadGroup &G = UploadFlow.uploadGroup(Helper);
  if (G.Why)
    return FlowAnswer::refused(*G.Why);
  LS.BufferKey = G.BufferKey;
  LS.HostDescriptor = "*" + A.Var->getNameAsString();
  LS.Form = LaunchForm::Snapshot;
  LS.Edits.push_back(ST.insertBefore(ArgRange.getBegin(), "*"));
  return FlowAnswer::accepted();
}

// H8: a static cache `static CUtensorMap *d = nullptr; if (!d) d =
// upload(...);`: the helper returns the descriptor, the cache keeps it on
// the host (`d = new CUtensorMap(upload(...))`), launches pass `*d`.
FlowAnswer LaunchArgs::staticLocalCache(const LaunchArg &A, LaunchSite &LS) {
  if (!A.Var->isStaticLocal() || !isDescriptorPointer(A.Var->getType()))
    return FlowAnswer::notMine();
  const FunctionDecl *Helper = cacheHelper(A.Var, A.Fn);
  std::optional<CharSourceRange> ArgRange = ST.fileRange(A.Ref->getSourceRange());
  if (!Helper || !ArgRange)
    return FlowAnswer::notMine(); // refused below as not a local variable
  return passCachedDescriptor(A, Helper, *ArgRange, LS);
}

// H8 at file scope: `static CUtensorMap *d = nullptr;` assigned from an
// upload helper in one or more functions of this translation unit and read
// by launches; the same rewrite as a static local cache.
FlowAnswer LaunchArgs::fileScopeCache(const LaunchArg &A, LaunchSite &LS) {
  if (!isFileScopePointer(A.Var))
    return FlowAnswer::notMine();
  const FunctionDecl *Helper = nullptr;
  std::vector<SourceSpan> Users;
  for (auto &[R, Fn] : Pass.FileScopePointerRefs[A.Var->getCanonicalDecl()])
    if (Fn && !Fn->isDependentContext()) {
      if (const FunctionDecl *H = cacheHelper(A.Var, Fn))
        Helper = H;
      if (!llvm::is_contained(Users, spanOf(Fn)))
        Users.push_back(spanOf(Fn));
    }
  std::optional<CharSourceRange> ArgRange = ST.fileRange(A.Ref->getSourceRange());
  if (!Helper || !ArgRange)
    return FlowAnswer::notMine(); // refused below as not a local variable
  if (std::optional<Blocker> Why =
          UploadFlow.fileScopeCacheProblem(A.Var, ST.point(A.Arg->getBeginLoc()))) {
    Why->Notes.push_back({"declared here", ST.point(A.Var->getLocation())});
    return FlowAnswer::refused(std::move(*Why));
  }
  // An error in any function that assigns or reads it may hide a use.
  for (const SourceSpan &S : Users)
    if (!llvm::is_contained(LS.ReliesOn, S))
      LS.ReliesOn.push_back(S);
  return passCachedDescriptor(A, Helper, *ArgRange, LS);
}

FlowAnswer LaunchArgs::notLocal(const LaunchArg &A, LaunchSite &) {
  if (A.Var->hasLocalStorage() && !A.Var->isStaticLocal())
    return FlowAnswer::notMine();
  return refuse(ReasonID::LaunchArgNotLocal,
                {A.Var->getNameAsString(), A.Fn->getQualifiedNameAsString()},
                A.Arg->getBeginLoc());
}

FlowAnswer LaunchArgs::spelledInMacro(const LaunchArg &A, LaunchSite &) {
  if (ST.fileRange(A.Ref->getSourceRange()))
    return FlowAnswer::notMine();
  return refuse(ReasonID::LaunchArgInMacro, {A.Var->getNameAsString()}, A.Arg->getBeginLoc());
}

/// The upload helper \p E calls (a function returning a descriptor
/// pointer), or null.
static const FunctionDecl *uploadHelperCalled(const Expr *E) {
  const auto *Call = dyn_cast_or_null<CallExpr>(E);
  const FunctionDecl *Helper = Call ? Call->getDirectCallee() : nullptr;
  if (!Helper || isKernel(Helper) || !isDescriptorPointer(Helper->getReturnType()))
    return nullptr;
  return Helper;
}

/// The launch passes what upload helper \p Helper returns, spelled \p Passed:
/// the helper's group decides.
FlowAnswer LaunchArgs::passHelperResult(const FunctionDecl *Helper, std::string Passed,
                                        LaunchSite &LS) {
  const UploadGroup &G = UploadFlow.uploadGroup(Helper);
  if (G.Why)
    return FlowAnswer::refused(*G.Why);
  LS.BufferKey = G.BufferKey;
  LS.HostDescriptor = std::move(Passed);
  return FlowAnswer::accepted();
}

// H6 in the argument list: `k<<<g, b>>>(upload(...), ...)`. The helper
// returns the descriptor, so the launch passes it unchanged.
FlowAnswer LaunchArgs::uploadHelperCall(const LaunchArg &A, LaunchSite &LS) {
  const Expr *Arg = A.Arg->IgnoreParenImpCasts();
  if (const auto *Cleanups = dyn_cast<ExprWithCleanups>(Arg))
    Arg = Cleanups->getSubExpr()->IgnoreParenImpCasts();
  const FunctionDecl *Helper = uploadHelperCalled(Arg);
  if (!Helper)
    return FlowAnswer::notMine();
  return passHelperResult(Helper, spelled(Arg), LS);
}

// H6: the variable holds what an upload helper returned.
FlowAnswer LaunchArgs::uploadHelperVariable(const LaunchArg &A, LaunchSite &LS) {
  const FunctionDecl *Helper =
      uploadHelperCalled(A.Var->getInit() ? A.Var->getInit()->IgnoreImplicit() : nullptr);
  if (!Helper || A.Spelled != A.Ref) // its edits name the variable, not a cast
    return FlowAnswer::notMine();
  return passHelperResult(Helper, A.Var->getNameAsString(), LS);
}

// H1-H3: a device buffer: the copy that reaches the launch, unchanged
// until it, reads a host descriptor the launch can pass by value.
FlowAnswer LaunchArgs::deviceBuffer(const LaunchArg &A, LaunchSite &LS) {
  return traceDeviceCopy(A, A.Var, A.Spelled, LS);
}

/// The local struct variable and pointer field of `plan.device`, or none.
static std::optional<BufferStorage> memberStorage(const Expr *E) {
  const auto *ME = dyn_cast<MemberExpr>(E->IgnoreParenImpCasts());
  const auto *F = ME ? dyn_cast<FieldDecl>(ME->getMemberDecl()) : nullptr;
  if (!F || ME->isArrow() || F->getParent()->isUnion() || !isDescriptorPointer(F->getType()))
    return std::nullopt;
  const auto *Base = dyn_cast<DeclRefExpr>(ME->getBase()->IgnoreParens());
  const auto *V = Base ? dyn_cast<VarDecl>(Base->getDecl()) : nullptr;
  if (!V || !V->hasLocalStorage() || V->isStaticLocal() || isa<ParmVarDecl>(V) ||
      V->getType()->isReferenceType())
    return std::nullopt;
  return BufferStorage(V, F);
}

// H1 with a plan object: `plan.device` is a field of a local struct
// variable that also keeps the host descriptor (`plan.host`). The field is
// a device buffer of its own; the variable used whole counts as a use.
FlowAnswer LaunchArgs::memberDeviceCopy(const LaunchArg &A, LaunchSite &LS) {
  if (A.Var)
    return FlowAnswer::notMine();
  std::optional<BufferStorage> S = memberStorage(A.Arg);
  if (!S)
    return FlowAnswer::notMine();
  // Code of the struct itself (a constructor, the destructor, a method)
  // could allocate, free or read the field unseen: only plain aggregates.
  const auto *RD = dyn_cast<CXXRecordDecl>(S->Field->getParent());
  if (RD && (!RD->isAggregate() || !RD->hasTrivialDestructor() ||
             llvm::any_of(RD->methods(),
                          [](const CXXMethodDecl *M) { return !M->isImplicit(); })))
    return refuse(ReasonID::LaunchArgFieldOfClass,
                  {HostBuffers::storageName(*S), RD->getQualifiedNameAsString()},
                  A.Arg->getBeginLoc(), {{"declared here", ST.point(S->Field->getLocation())}});
  return traceDeviceCopy(A, *S, A.Arg->IgnoreParenImpCasts(), LS);
}

/// The copy into \p S that reaches the launch, unchanged until it, and the
/// host descriptor it reads; the argument \p Spelled becomes that descriptor.
FlowAnswer LaunchArgs::traceDeviceCopy(const LaunchArg &A, BufferStorage S, const Expr *Spelled,
                                       LaunchSite &LS) {
  DeviceBuffer &Buf = Buffers.bufferFacts(S, A.Fn);
  std::string Name = HostBuffers::storageName(S);
  LS.BufferKey = Buf.Key;
  const Stmt *Launch = A.KL.E;
  const CopyInfo *Reaching = Buffers.reachingCopy(S, Launch, A.Fn);
  if (!Reaching)
    return refuse(ReasonID::LaunchNoReachingCopy, {Name}, A.Arg->getBeginLoc(),
                  {{"'" + Name + "' is declared here", Buf.Where}});
  if (std::optional<Blocker> Why = Buffers.changedBetween(S, *Reaching, Launch, A.Fn,
                                                                 &LS.UnlessLaunchers))
    return FlowAnswer::refused(std::move(*Why));
  if (Reaching->Array)
    return passHostArray(A, *Reaching, Spelled, Name, LS);
  std::string HostDescriptor;
  if (std::optional<Blocker> Why = Buffers.hostDescriptorAt(
          Reaching->Call, Reaching->Top, Launch, A.KL.ArgsDecl ? A.KL.ArgsDecl : Launch, A.Fn,
          A.Arg->getBeginLoc(), Name, HostDescriptor))
    return FlowAnswer::refused(std::move(*Why));
  // A launch that is not a call (not read here) counts as held (null).
  std::vector<std::pair<const CallExpr *, const FunctionDecl *>> Ops{
      {dyn_cast<CallExpr>(Launch), A.Fn}};
  for (const CopyInfo &C : Pass.BufferCopies[S])
    Ops.push_back({C.Call, A.Fn});
  appendChangeOps(S, Launch, A.Fn, Ops);
  if (std::optional<Blocker> Why =
          Buffers.deferredReadBlocker(Reaching->Call, Reaching->Top, Pass.BufferCopies[S].size(),
                                      Name, A.Fn, deviceChange(S), Pass.firstHeld(Ops),
                                      onOneStream(S, Launch, A.Fn), S.Var,
                                      onLegacyStream(S, Launch)))
    return FlowAnswer::refused(std::move(*Why));
  std::optional<CharSourceRange> ArgRange = ST.fileRange(Spelled->getSourceRange());
  if (!ArgRange)
    return refuse(ReasonID::LaunchArgInMacro, {Name}, A.Arg->getBeginLoc());
  LS.HostDescriptor = HostDescriptor;
  // `&d` in a `void *` argument array becomes `&h`; a const host descriptor
  // needs the cast that drops its const (the launch only reads it).
  if (const Expr *Slot = A.KL.ArgsDecl ? uncastAddressOf(Spelled, A.Fn) : nullptr;
      Slot && readsConstHost(Reaching->Call))
    if (std::optional<CharSourceRange> SlotRange = ST.fileRange(Slot->getSourceRange())) {
      LS.Edits.push_back(ST.replace(*SlotRange, "(void *)&" + LS.HostDescriptor));
      return FlowAnswer::accepted();
    }
  LS.Edits.push_back(ST.replace(*ArgRange, LS.HostDescriptor));
  return FlowAnswer::accepted();
}

/// The first use of \p S, other than its copies, launches and frees, that
/// may change the device copy (a kernel given it, a memset, a name that
/// is not followed), or null.
const Stmt *LaunchArgs::deviceChange(BufferStorage S) {
  if (auto Leak = Pass.BufferLeaks.find(S); Leak != Pass.BufferLeaks.end())
    return Leak->second.first;
  for (const Stmt *O : Pass.BufferOtherUses[S])
    if (!Pass.ForeignLauncherArgs.count(O))
      return O;
  return nullptr;
}

/// The operations of the other uses of \p S that may change the device
/// copy (deviceChange's), for the question whether any runs on a stream that
/// may be held (issue 41: `cudaMemsetAsync(d, 0, 8, s)` written before the
/// copy runs when `s` is let go, after it).
void LaunchArgs::appendChangeOps(BufferStorage S, const Stmt *Launch, const FunctionDecl *Fn,
                                 std::vector<std::pair<const CallExpr *, const FunctionDecl *>> &Ops) {
  if (auto Leak = Pass.BufferLeaks.find(S); Leak != Pass.BufferLeaks.end())
    appendOpsOfUse(Leak->second.first, Launch, Fn, Ops, 0);
  for (const Stmt *O : Pass.BufferOtherUses[S])
    if (!Pass.ForeignLauncherArgs.count(O))
      appendOpsOfUse(O, Launch, Fn, Ops, 0);
}

/// The work that use \p U of the device copy's pointer may enqueue.
/// Work enqueued after \p Launch (and not again before it, in a loop) may
/// run after the kernel, the schedule the rewrite keeps. A use inside a
/// call of \p Fn is that call's (a kernel, the CUDA API, a function of the
/// user's); one that initialises a local (`CUtensorMap *a[1] = {d};`, `auto
/// &q = d;`) is the uses of that local, followed a few names deep; any
/// other (a name kept elsewhere, a use in another function) may lead to
/// work on any stream, so it counts as held wherever something may hold one.
void LaunchArgs::appendOpsOfUse(const Stmt *U, const Stmt *Launch, const FunctionDecl *Fn,
                                std::vector<std::pair<const CallExpr *, const FunctionDecl *>> &Ops,
                                unsigned Depth) {
  if (!isAncestor(Fn->getBody(), U, Fn)) {
    Ops.push_back({nullptr, Fn});
    return;
  }
  if (!Buffers.reach().beforeEnd(U, Launch, Fn))
    return;
  const Stmt *P = parent(Fn, U);
  for (; P; P = parent(Fn, P)) {
    if (const auto *Call = dyn_cast<CallExpr>(P)) {
      Ops.push_back({Call, Fn});
      return;
    }
    if (isa<CompoundStmt>(P) || isa<DeclStmt>(P))
      break;
  }
  const auto *DS = dyn_cast_or_null<DeclStmt>(P);
  const auto *V = DS && DS->isSingleDecl() ? dyn_cast<VarDecl>(DS->getSingleDecl()) : nullptr;
  if (!V || !V->hasLocalStorage() || V->isStaticLocal() || isa<ParmVarDecl>(V) || Depth > 3) {
    Ops.push_back({nullptr, Fn});
    return;
  }
  if (auto Refs = index(Fn).Refs.find(V); Refs != index(Fn).Refs.end())
    for (const DeclRefExpr *R : Refs->second)
      appendOpsOfUse(R, Launch, Fn, Ops, Depth + 1);
}

/// A local variable of the function (or a field of one): only that
/// function's code, and what it hands the pointer to, can reach it.
bool LaunchArgs::localStorage(BufferStorage S) {
  return S.Var->hasLocalStorage() && !S.Var->isStaticLocal() && !isa<ParmVarDecl>(S.Var) &&
         !S.Var->getType()->isReferenceType();
}

/// Is every operation on local \p S enqueued on one stream, so that the
/// device runs them in the order they are written: \p Launch, every copy
/// into it, and no other use that may change it?
bool LaunchArgs::onOneStream(BufferStorage S, const Stmt *Launch, const FunctionDecl *Fn) {
  const auto *Call = dyn_cast<CallExpr>(Launch);
  if (!Call || !localStorage(S) || deviceChange(S))
    return false;
  std::optional<const ValueDecl *> Stream;
  if (isa<CUDAKernelCallExpr>(Call) || cudaApiOf(Call)) {
    Stream = streamOf(Call, Fn);
  } else {
    // A launcher of the user's that enqueues nothing on another stream
    // launches on the default one.
    const FunctionDecl *Callee = Call->getDirectCallee();
    const FunctionDecl *Def = Callee ? Callee->getDefinition() : nullptr;
    if (Def && !Pass.otherStreamWork(Def))
      Stream = nullptr;
  }
  return Stream && llvm::all_of(Pass.BufferCopies[S], [&](const CopyInfo &C) {
           return streamOf(C.Call, Fn) == Stream;
         });
}

/// Is every operation on local \p S on the legacy default stream, which no
/// CUDA graph can capture: \p Launch (a launch the tool reads the stream
/// of) and every copy into it, with no other use that may change it?
bool LaunchArgs::onLegacyStream(BufferStorage S, const Stmt *Launch) {
  const auto *Call = dyn_cast<CallExpr>(Launch);
  return Call && (isa<CUDAKernelCallExpr>(Call) || cudaApiOf(Call)) && localStorage(S) &&
         !deviceChange(S) && analysis::onLegacyStream(Call) &&
         llvm::all_of(Pass.BufferCopies[S],
                      [](const CopyInfo &C) { return analysis::onLegacyStream(C.Call); });
}

/// Issue 21: the copy that reaches the launch is of N host descriptors: the
/// launch passes them by value, `TmaDescriptorArray<N>::copyOf(h)`, when N
/// is proven and the host array is unchanged until the launch.
FlowAnswer LaunchArgs::passHostArray(const LaunchArg &A, const CopyInfo &Reaching,
                                     const Expr *Spelled, const std::string &Name,
                                     LaunchSite &LS) {
  const ArrayCopy &AC = *Reaching.Array;
  if (AC.Why)
    return FlowAnswer::refused(*AC.Why);
  if (A.KL.ArgsDecl)
    return refuse(ReasonID::ArrayArgumentArray, {std::to_string(AC.Count), LS.KernelName},
                  A.Arg->getBeginLoc());
  std::string Passed;
  if (std::optional<Blocker> Why =
          Buffers.hostArrayAt(Reaching, A.KL.E, A.KL.E, A.Fn, A.Arg->getBeginLoc(), Passed))
    return FlowAnswer::refused(std::move(*Why));
  std::optional<CharSourceRange> ArgRange = ST.fileRange(Spelled->getSourceRange());
  if (!ArgRange)
    return refuse(ReasonID::LaunchArgInMacro, {Name}, A.Arg->getBeginLoc());
  LS.HostDescriptor = Passed;
  LS.ArrayCount = AC.Count;
  LS.Edits.push_back(ST.replace(*ArgRange, Passed));
  return FlowAnswer::accepted();
}

/// `&d` around \p E, written with no cast around it, or null.
const Expr *LaunchArgs::uncastAddressOf(const Expr *E, const FunctionDecl *Fn) {
  Climbed Up = climb(Fn, E, parens);
  const auto *UO = dyn_cast_or_null<UnaryOperator>(Up.Parent);
  if (!UO || UO->getOpcode() != UO_AddrOf)
    return nullptr;
  return isa_and_nonnull<ExplicitCastExpr>(climb(Fn, UO, parensAndImplicitCasts).Parent) ? nullptr
                                                                                       : UO;
}

/// Does the copy read a const host descriptor (`&h` of a `const
/// CUtensorMap &h`, a `const CUtensorMap *` staged pointer)?
bool LaunchArgs::readsConstHost(const CallExpr *Copy) {
  const CudaApi *Api = cudaApiOf(Copy);
  if (!Api || Api->Src < 0 || unsigned(Api->Src) >= Copy->getNumArgs())
    return false;
  QualType T = Copy->getArg(Api->Src)->IgnoreParenImpCasts()->getType();
  return T->isPointerType() && T->getPointeeType().isConstQualified();
}

} // namespace tma::analysis
