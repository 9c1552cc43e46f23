// The host side of a pass: the flows by which a launch's descriptor
// argument is traced back to a host descriptor (one component per flow).
#pragma once

#include "../core/PassContext.h"

#include <functional>

namespace tma::analysis {

struct CudaApi;

/// H6: an upload helper that encodes, allocates, copies and returns the
/// device pointer, and the variables its callers keep it in. Decided once
/// per helper; the group is one pseudo device buffer whose users are every
/// launch of every caller's variable.
struct UploadGroup {
  std::optional<Blocker> Why; // set: not rewritable
  std::string BufferKey;
};

/// A descriptor pointer at namespace or file scope (`static CUtensorMap *d;`).
bool isFileScopePointer(const clang::VarDecl *V);
/// Is this reference to the host descriptor a plain read?
enum class HostRefKind { Read, Write, AddressEscapes };
HostRefKind classifyHostRef(const clang::DeclRefExpr *R, clang::ParentMap &PM);
/// `&h`, `&s.map`, `&maps[1]`: an lvalue with no side effects whose value
/// the launch can name. Returns its root variable.
const clang::VarDecl *simpleLValueRoot(const clang::Expr *E, clang::ASTContext &Ctx);

/// What one use does to the object it reaches (host/ObjectReach.cpp).
enum class Effect {
  Read,   // reads or copies it
  Write,  // may change it here, and keeps nothing
  Alias,  // binds a local reference or pointer that reaches it (ObjectUse::Alias)
  Escape, // may change it here, and hands its address to code that may keep it
};
struct ObjectUse {
  Effect What = Effect::Read;
  const clang::Stmt *At = nullptr;     // the expression that has the effect
  std::string Via;                     // for messages: the callee, the alias
  const clang::VarDecl *Alias = nullptr;
};
/// "Is \p Object unchanged from the copy (\p CopyTop) to \p End?"
struct ObjectQuery {
  const clang::VarDecl *Object;
  const clang::Stmt *CopyTop;
  const clang::Stmt *End;
  const clang::FunctionDecl *Fn;
  /// References of the object that touch storage the copy does not read
  /// (another field of the same struct): skipped.
  std::function<bool(const clang::DeclRefExpr *)> Disjoint;
  /// Calls that are part of the question (the copy itself, the launch).
  std::vector<const clang::Stmt *> Skip;
  std::vector<Note> Notes; // added to every blocker ("copied here")
};

/// The object proof (host/ObjectReach.cpp): one classification of every
/// use of a storage, through the names that reach it (references and
/// pointers bound to it, lambdas that capture it) and the escapes that let
/// unseen code reach it. A host descriptor is unchanged between a copy and
/// a launch when no name that reaches it changes it in between, no lambda
/// that changes it runs in between, and, once its address has escaped, no
/// code that could write through that address runs in between.
class ObjectReach : public PassComponent {
public:
  explicit ObjectReach(PassContext &P) : PassComponent(P) {}

  /// Why \p Q.Object may have changed between the copy and the end; none
  /// when it cannot have.
  std::optional<Blocker> changeBetween(const ObjectQuery &Q);
  /// A device copy's pointer value at reference \p R (of its variable, in
  /// \p Fn): why other code may reach the copy through it (an alias that is
  /// not followed, a pointer to the variable, a lambda, a call that keeps
  /// it), or none. A followed alias (a local only read) goes to \p Aliases.
  std::optional<std::string> deviceCopyLeak(const clang::Expr *R, const clang::FunctionDecl *Fn,
                                            std::vector<const clang::VarDecl *> &Aliases);
  /// A local descriptor pointer initialised from a device copy and only
  /// read after: it names the same copy, so its uses are the copy's uses.
  bool isFollowedDeviceAlias(const clang::VarDecl *V, const clang::FunctionDecl *Fn);
  /// The local device-copy variable that \p V, a followed alias, was
  /// initialised from (`CUtensorMap *alias = d;`), or null.
  const clang::VarDecl *aliasedDeviceCopy(const clang::VarDecl *V, const clang::FunctionDecl *Fn);
  /// Does the proof follow what reference \p R of \p V does: anything but
  /// an escape (`CUtensorMap *p = &h;` binds a local it follows)?
  bool accountsFor(const clang::DeclRefExpr *R, const clang::VarDecl *V,
                  const clang::FunctionDecl *Fn);
  /// Does \p F (its body, when visible) keep parameter \p I beyond the call?
  bool mayKeep(const clang::FunctionDecl *F, unsigned I, unsigned Depth = 0);
  /// The first statement from the copy to \p End (the launch's arguments
  /// included) that may run host code of the user's, or with \p DeviceToo
  /// a kernel; \p Skip: the copy and the launch. Null when none.
  const clang::Stmt *userCodeBetween(const clang::Stmt *CopyTop, const clang::Stmt *End,
                                     const clang::FunctionDecl *Fn,
                                     llvm::ArrayRef<const clang::Stmt *> Skip, bool DeviceToo);
  /// May code that runs before \p End (or again before it, in a loop) have
  /// been reached through something made at \p At?
  bool beforeEnd(const clang::Stmt *At, const clang::Stmt *End, const clang::FunctionDecl *Fn);
  /// The outermost lambda of \p Fn whose body holds \p S, or null.
  const clang::LambdaExpr *outermostLambda(const clang::Stmt *S, const clang::FunctionDecl *Fn);

private:
  std::vector<const clang::DeclRefExpr *> refsOf(const clang::FunctionDecl *Fn,
                                                const clang::Decl *D);
  static ObjectUse make(Effect E, const clang::Stmt *At, std::string Via = "",
                        const clang::VarDecl *Alias = nullptr);
  ObjectUse useOfName(const clang::DeclRefExpr *R, const clang::VarDecl *V,
                      const clang::FunctionDecl *Fn, unsigned Depth, bool DevicePointer);
  ObjectUse objectUse(const clang::Expr *LV, const clang::FunctionDecl *Fn, unsigned Depth,
                      bool DevicePointer);
  ObjectUse objectUseOfConst(const clang::Expr *E, const clang::FunctionDecl *Fn, unsigned Depth,
                             bool DevicePointer);
  ObjectUse pointerUse(const clang::Expr *PV, const clang::FunctionDecl *Fn, unsigned Depth,
                       bool DevicePointer);
  ObjectUse argumentUse(const clang::CallExpr *Call, const clang::Stmt *Cur, bool Pointer,
                        unsigned Depth, bool DevicePointer);
  /// May \p S run host code of the user's (or, with \p DeviceToo, a kernel)?
  bool mayRunUserCode(const clang::Stmt *S, bool DeviceToo);
  bool inInterval(const clang::Stmt *From, const clang::Stmt *To, const clang::Stmt *X,
                  const clang::FunctionDecl *Fn);
  const clang::LambdaCapture *captureOf(const clang::LambdaExpr *LE, const clang::VarDecl *V);
  std::optional<Blocker>
  lambdaRunsBetween(const ObjectQuery &Q, const clang::LambdaExpr *LE,
                    const clang::DeclRefExpr *R,
                    std::vector<std::pair<const clang::Stmt *, std::string>> &Escapes);
  bool mayWriteDescriptorThrough(const clang::Expr *A);
  bool functionMayWrite(const clang::FunctionDecl *F, unsigned Depth, bool DeviceToo);
  bool callMayWrite(const clang::CallExpr *Call, bool DeviceToo, bool GlobalsOnly,
                    unsigned Depth);
  bool readsNonLocal(const clang::Expr *E);
  std::map<std::pair<const clang::FunctionDecl *, unsigned>, bool> KeepMemo;
  std::map<std::pair<const clang::FunctionDecl *, bool>, bool> WriteMemo;
};

/// Device buffers (a host variable holding a device copy: its allocation,
/// copies, frees and launches) and the host descriptor a copy reads
/// (host/DeviceBuffers.cpp, host/HostDescriptor.cpp).
class HostBuffers : public PassComponent {
public:
  explicit HostBuffers(PassContext &P) : PassComponent(P) {}

  DeviceBuffer &bufferFacts(BufferStorage S, const clang::FunctionDecl *Fn);
  /// How the buffer is spelled in messages: `d`, `plan.device`.
  static std::string storageName(BufferStorage S);
  /// The edit that removes the statement of host call \p CE (also inside an
  /// error-checking macro around exactly that call), or none.
  std::vector<TextEdit> removeHostCall(const clang::CallExpr *CE, const clang::FunctionDecl *Fn);
  /// The host descriptor that \p Copy reads (`&h`, or a staged pointer `p`),
  /// and the proof that \p Launch may pass it by value instead: it is local,
  /// in scope at \p Named, and nothing changes it between the copy and the
  /// launch. On success \p HostDescriptor is what the launch passes (`h`,
  /// `*p`).
  std::optional<Blocker> hostDescriptorAt(const clang::CallExpr *Copy, const clang::Stmt *CopyTop,
                                          const clang::Stmt *Launch, const clang::Stmt *Named,
                                          const clang::FunctionDecl *Fn,
                                          clang::SourceLocation ArgLoc,
                                          llvm::StringRef CopiedInto,
                                          std::string &HostDescriptor);
  /// The copy into \p V that reaches \p Launch: it always runs, in a block
  /// around the launch, before it (the last such); or null.
  const CopyInfo *reachingCopy(BufferStorage S, const clang::Stmt *Launch,
                               const clang::FunctionDecl *Fn);
  /// Why \p V may no longer hold what \p Reaching copied when \p Launch
  /// runs: copied again, or used, in between; none when it still does. A
  /// call in between of a launcher defined elsewhere goes to \p Unless
  /// (the planner keeps its blocker unless the launcher is followed), when
  /// given; otherwise it counts as any other use.
  std::optional<Blocker>
  changedBetween(BufferStorage V, const CopyInfo &Reaching, const clang::Stmt *Launch,
                 const clang::FunctionDecl *Fn,
                 std::vector<std::pair<std::string, Blocker>> *Unless = nullptr);

private:
  std::map<BufferStorage, size_t> BufferSlot;
  /// One use of \p S in \p Fn (reference \p R: `d`, or `plan.device`),
  /// classified.
  HostUse classifyBufferUse(BufferStorage S, const clang::Expr *R,
                            const clang::FunctionDecl *Fn, DeviceBuffer &B);
  /// The references to \p S in \p Fn; for a field, also in \p Whole the
  /// uses of its variable as a whole (`&plan`, `plan = other`, `f(plan)`),
  /// each of which may change or copy the field.
  std::vector<const clang::Expr *> storageRefs(BufferStorage S, const clang::FunctionDecl *Fn,
                                               std::vector<const clang::Stmt *> &Whole);
  HostUse declarationUse(const clang::VarDecl *V, const clang::FunctionDecl *Fn,
                         const DeviceBuffer &B);
};

/// H4: launches through argument arrays (`cudaLaunchKernel`,
/// `cuLaunchKernel`, ...) and CUfunction handles (host/ArgumentArrays.cpp).
class ArgumentArrays : public PassComponent {
public:
  explicit ArgumentArrays(PassContext &P) : PassComponent(P) {}

  void resolveArrayLaunch(const clang::CallExpr *CE, const clang::FunctionDecl *Fn);

private:
  /// The kernel a CUfunction handle holds: bound once by
  /// cudaGetFuncBySymbol(&f, kernel) and otherwise only launched or queried.
  const clang::FunctionDecl *kernelOfHandle(const clang::VarDecl *F,
                                            const clang::FunctionDecl *Fn,
                                            const clang::DeclRefExpr *&Bound,
                                            std::string &WhyNot);
  /// The kernel \p CE launches (named, or held by a CUfunction handle), and
  /// in \p Sym the reference that names it; null when it is not seen.
  const clang::FunctionDecl *launchedKernel(const clang::CallExpr *CE, const CudaApi &Api,
                                            const clang::FunctionDecl *Fn,
                                            const clang::DeclRefExpr *&Sym);
  /// Records launch \p CE of \p K as not rewritable, for each descriptor.
  void refuseArrayLaunch(const clang::CallExpr *CE, const clang::FunctionDecl *K,
                         const clang::FunctionDecl *Fn, DiagID ID, std::string Msg,
                         clang::SourceLocation L);
  /// The local array of \p CE's arguments, one slot per parameter of \p K
  /// and read only by launches; null (refused) otherwise.
  const clang::VarDecl *argumentArray(const clang::CallExpr *CE, const CudaApi &Api,
                                      const clang::FunctionDecl *K,
                                      const clang::FunctionDecl *Fn);
  /// Is \p R (an argument array) the arguments of a launch?
  bool isLaunchArguments(const clang::DeclRefExpr *R, const clang::FunctionDecl *Fn);
  /// Each descriptor slot of \p Array is `&variable`: into KL.Args; false
  /// (refused) otherwise.
  bool readDescriptorSlots(KernelLaunch &KL, const clang::VarDecl *Array,
                           const clang::FunctionDecl *Fn);
};

/// H7: launcher functions that forward a descriptor parameter to a launch
/// (host/Launchers.cpp).
class Launchers : public PassComponent {
public:
  explicit Launchers(PassContext &P) : PassComponent(P) {}

  /// \p PV, a parameter of launcher \p L, is the descriptor argument of
  /// a launch. Analyses every call of L as a launch; returns why not when
  /// the launcher cannot be followed.
  std::optional<Blocker> forwardThroughLauncher(const KernelLaunch &KL, unsigned I,
                                                const clang::ParmVarDecl *PV,
                                                const clang::FunctionDecl *L, unsigned Depth,
                                                const LaunchSite &LS,
                                                const std::vector<TextEdit> &Extra);
  /// The launch a launcher's parameter is forwarded to: (kernel, index), when
  /// the parameter is used only as that launch's descriptor argument.
  std::optional<std::pair<const clang::FunctionDecl *, unsigned>>
  launcherTarget(const clang::FunctionDecl *L, unsigned ParamIndex,
                 const clang::Stmt **Offending = nullptr, unsigned Depth = 0);
  /// A plain host function of the user's whose body another translation
  /// unit holds (not a CUDA API): possibly a launcher defined elsewhere.
  bool isForeignLauncher(const clang::FunctionDecl *L);
  /// The key of \p L's parameter \p ParamIndex when L may be a launcher
  /// defined elsewhere and the parameter a `const CUtensorMap *`, else "".
  std::string foreignLauncherKey(const clang::FunctionDecl *L, unsigned ParamIndex);
  /// H7 across translation units: each call of a possible launcher defined
  /// elsewhere is analysed as a launch keyed by the launcher's parameter;
  /// the planner joins it with the defining TU's LauncherForward.
  void analyzeForeignCalls();

private:
  /// The '*' of parameter \p ParamIndex becomes '&' in every declaration of
  /// \p L (into \p Edits); why not, when one cannot be edited.
  std::optional<Blocker> parameterEdits(const clang::FunctionDecl *L, unsigned ParamIndex,
                                        std::vector<TextEdit> &Edits);
  /// The fact that joins calls of \p L in other TUs to the launch \p LS.
  void recordForward(const clang::FunctionDecl *L, unsigned ParamIndex, const LaunchSite &LS,
                     const std::vector<TextEdit> &Edits, unsigned Calls);
  void analyzeForeignCall(const clang::FunctionDecl *L, unsigned ParamIndex,
                          const std::string &Key, const clang::DeclRefExpr *R,
                          const clang::FunctionDecl *Caller,
                          const std::optional<Blocker> &NotEditable,
                          const std::vector<TextEdit> &Edits);
};

/// H6/H8: upload helpers that return the device copy (host/UploadHelpers.cpp).
class UploadHelpers : public PassComponent {
public:
  explicit UploadHelpers(PassContext &P) : PassComponent(P) {}

  /// \p U, or the template of which \p U is an instantiation: one group for
  /// all its instantiations.
  const UploadGroup &uploadGroup(const clang::FunctionDecl *U);
  /// Why the file-scope cache \p Cache (a descriptor pointer assigned from
  /// an upload helper) cannot be followed: another translation unit may use
  /// it, or a use is outside the plain host functions of this one.
  std::optional<std::string> fileScopeCacheProblem(const clang::VarDecl *Cache);

private:
  std::map<const clang::FunctionDecl *, UploadGroup> Uploads;
};

/// One descriptor argument of a launch, as the host flows see it.
struct LaunchArg {
  const KernelLaunch &KL;
  unsigned Index;
  const clang::FunctionDecl *Fn; // the function holding the launch
  unsigned Depth;                // launchers it went through
  const std::vector<TextEdit> &Extra; // edits that go with it (launcher parameters)
  const clang::Expr *Arg;
  const clang::DeclRefExpr *Ref; // Arg names a variable: the reference, or null
  const clang::VarDecl *Var;     // ... and the variable, or null
};

/// What a host flow says about a launch argument: not its flow, refused
/// (Why), accepted (the LaunchSite it filled in), or forwarded to the
/// callers of a launcher (their launch sites stand for it).
struct FlowAnswer {
  enum Kind { NotMine, Accepted, Refused, Forwarded } Verdict;
  std::optional<Blocker> Why;
  static FlowAnswer notMine() { return {NotMine, std::nullopt}; }
  static FlowAnswer accepted() { return {Accepted, std::nullopt}; }
  static FlowAnswer forwarded() { return {Forwarded, std::nullopt}; }
  static FlowAnswer refused(Blocker B) { return {Refused, std::move(B)}; }
};

/// Every descriptor argument of every launch, traced to its host
/// descriptor through the flows above (host/LaunchArgs.cpp): one ordered
/// registry of flows, each asked in turn until one claims the argument.
class LaunchArgs : public PassComponent {
public:
  explicit LaunchArgs(PassContext &P) : PassComponent(P) {}

  void analyzeLaunch(const KernelLaunch &KL, const clang::FunctionDecl *Fn);
  /// One descriptor argument of a launch (or of a call to a launcher that
  /// forwards it, \p Depth launchers deep); \p Extra: edits that go with it
  /// (the launchers' parameter types).
  void analyzeLaunchArg(const KernelLaunch &KL, unsigned I, const clang::FunctionDecl *Fn,
                        unsigned Depth, const std::vector<TextEdit> &Extra);

  // The host flows, in the order of the registry in LaunchArgs.cpp. Each
  // fills \p LS when it accepts the argument.
  FlowAnswer launchedFromDevice(const LaunchArg &A, LaunchSite &LS);
  FlowAnswer notAVariable(const LaunchArg &A, LaunchSite &LS);
  FlowAnswer launcherParameter(const LaunchArg &A, LaunchSite &LS);
  FlowAnswer staticLocalCache(const LaunchArg &A, LaunchSite &LS);
  FlowAnswer fileScopeCache(const LaunchArg &A, LaunchSite &LS);
  FlowAnswer notLocal(const LaunchArg &A, LaunchSite &LS);
  FlowAnswer spelledInMacro(const LaunchArg &A, LaunchSite &LS);
  FlowAnswer uploadHelperCall(const LaunchArg &A, LaunchSite &LS);
  FlowAnswer uploadHelperVariable(const LaunchArg &A, LaunchSite &LS);
  FlowAnswer memberDeviceCopy(const LaunchArg &A, LaunchSite &LS);
  FlowAnswer deviceBufferAlias(const LaunchArg &A, LaunchSite &LS);
  FlowAnswer deviceBuffer(const LaunchArg &A, LaunchSite &LS);

private:
  FlowAnswer refuse(DiagID ID, std::string Msg, clang::SourceLocation At,
                    std::vector<Note> Notes = {});
  const clang::FunctionDecl *cacheHelper(const clang::VarDecl *Cache,
                                         const clang::FunctionDecl *Fn);
  FlowAnswer traceDeviceCopy(const LaunchArg &A, BufferStorage S, const clang::Expr *Spelled,
                             LaunchSite &LS);
  FlowAnswer passHelperResult(const clang::FunctionDecl *Helper, std::string Passed,
                              LaunchSite &LS);
  FlowAnswer passCachedDescriptor(const LaunchArg &A, const clang::FunctionDecl *Helper,
                                  const clang::CharSourceRange &ArgRange, LaunchSite &LS);
};

/// H12: `__constant__ CUtensorMap` symbols filled by cudaMemcpyToSymbol
/// (host/ConstantMemory.cpp).
class ConstantMemory : public PassComponent {
public:
  explicit ConstantMemory(PassContext &P) : PassComponent(P) {}

  void analyzeConstantDescriptors();
};

/// K4: launches through local function-pointer variables
/// (host/PointerLaunches.cpp).
class PointerLaunches : public PassComponent {
public:
  explicit PointerLaunches(PassContext &P) : PassComponent(P) {}

  void analyzePointerLaunches(const clang::VarDecl *V, const clang::FunctionDecl *Fn,
                              const std::vector<const clang::CUDAKernelCallExpr *> &Calls);
  /// The launches of every accepted pointer, once all targets are known.
  void analyzeDeferredLaunches();

private:
  /// Why not every kernel the pointer may hold is seen: what, and where.
  using Reason = std::pair<std::string, clang::SourceLocation>;
  using Launches = std::vector<const clang::CUDAKernelCallExpr *>;

  bool pointerTargets(const clang::Expr *E, std::vector<const clang::DeclRefExpr *> &Targets);
  /// Collects the kernels \p V may hold into \p Targets; why they may not
  /// be all of them (its initialiser, storage, or one of its uses).
  std::optional<Reason> whyTargetsUnseen(const clang::VarDecl *V, const clang::FunctionDecl *Fn,
                                         const Launches &Calls,
                                         std::vector<const clang::DeclRefExpr *> &Targets);
  /// One use of the pointer: a launch, an assignment of kernels, or neither.
  std::optional<Reason> whyUseUnseen(const clang::DeclRefExpr *R, const clang::FunctionDecl *Fn,
                                     const Launches &Calls,
                                     std::vector<const clang::DeclRefExpr *> &Targets);
  /// The edits that drop the '*' of each descriptor parameter in the
  /// pointer's written function type; sets \p Why when it cannot be edited.
  std::vector<TextEdit> parameterTypeEdits(const clang::VarDecl *V,
                                           const clang::FunctionDecl *Kernel,
                                           std::optional<Reason> &Why);
  TextEdit starDeletion(clang::CharSourceRange Star);
  /// Every launch through \p V, of every kernel it may hold, stays as it is.
  void refusePointerLaunches(const clang::VarDecl *V, const clang::FunctionDecl *Fn,
                             const Launches &Calls,
                             const std::vector<const clang::FunctionDecl *> &Kernels,
                             const Reason &Why);
  /// The kernels change together; each launch is traced for each of them.
  void tiePointerTargets(const clang::VarDecl *V, const clang::FunctionDecl *Fn,
                         const Launches &Calls,
                         const std::vector<const clang::FunctionDecl *> &Kernels,
                         const std::vector<TextEdit> &TypeEdits);
  struct DeferredLaunch {
    KernelLaunch KL;
    const clang::FunctionDecl *Fn;
    std::vector<TextEdit> TypeEdits;
  };
  std::vector<DeferredLaunch> Deferred;
};

/// References to a kernel other than its launches, and lookups by name:
/// each either accounted for or a blocker (host/KernelRefs.cpp).
class KernelRefs : public PassComponent {
public:
  explicit KernelRefs(PassContext &P) : PassComponent(P) {}

  void analyzeKernelRef(const clang::DeclRefExpr *R, const clang::FunctionDecl *Fn);
  /// Is \p E (a kernel, or a pointer holding one) the kernel argument of a
  /// call that takes a kernel without launching it (the KernelQuery rows:
  /// attributes, occupancy), through parentheses, casts and, when
  /// \p ThroughAddressOf, a `&`? Such a call neither launches the kernel
  /// nor keeps it.
  bool isQueryArgument(const clang::Expr *E, const clang::FunctionDecl *Fn,
                       bool ThroughAddressOf);
  /// A kernel fetched by name is launched through an argument array this
  /// tool cannot see: blocks every kernel whose name may match.
  void blockNameLookups();
};

} // namespace tma::analysis
