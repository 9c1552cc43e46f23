// The context of one pass over one CUDA side: the AST, the facts the
// collector found and the facts written so far. Every component derives
// from PassComponent, which gives it the shared navigation (parents,
// references, statement order) over function bodies; the components
// themselves, and which one may call which, are wired in PassAnalysis.cpp
// through their constructors.
#pragma once

#include "BodyFlow.h"
#include "Climb.h"
#include "Launch.h"
#include "Types.h"

#include "tma/Facts.h"
#include "tma/PassAnalysis.h"
#include "tma/SourceText.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ParentMap.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <map>
#include <set>
#include <tuple>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tma::analysis {

/// The per-function index: parents of every statement and the references to
/// every declaration, built once per body.
struct BodyIndex {
  std::unique_ptr<clang::ParentMap> PM;
  llvm::DenseMap<const clang::Decl *, llvm::SmallVector<const clang::DeclRefExpr *, 4>> Refs;
  /// Every statement of the body (lambda bodies included), each once.
  std::vector<const clang::Stmt *> Stmts;
  /// The body's paths (clang's CFG), built when first asked; null when
  /// clang cannot build it.
  std::unique_ptr<BodyFlow> Flow;
  bool FlowTried = false;
};

/// Where a use walk records what it finds: the kernel's own facts, or a
/// scratch sink for a helper function (whose text is never edited).
struct UseSink {
  std::vector<TextEdit> Edits;
  std::vector<SourcePoint> Fences;
  std::vector<Blocker> Blockers;
  std::vector<SourceSpan> ReliesOn;
};

enum class ValueMode { Pointer, Integer };

/// A whole-array copy of host descriptors (issue 21): what it reads (the
/// array's variable and the source as spelled), its count N, or why N is
/// not a proven compile-time constant.
struct ArrayCopy {
  const clang::VarDecl *Root = nullptr;
  const clang::Expr *Source = nullptr;
  unsigned Count = 0;
  std::optional<Blocker> Why;
};

/// A host-to-device copy into a device buffer and its top statement.
struct CopyInfo {
  const clang::CallExpr *Call;
  const clang::Stmt *Top;
  /// A copy of an array of descriptors, not of one.
  std::optional<ArrayCopy> Array = std::nullopt;
};

/// Where a device buffer's pointer lives: a host variable (`d`), or one
/// pointer field of a local struct variable (`plan.device`, H1 with a plan
/// object that keeps the host descriptor and its device copy side by side).
struct BufferStorage {
  const clang::VarDecl *Var = nullptr;
  const clang::FieldDecl *Field = nullptr; // null: the variable itself
  BufferStorage(const clang::VarDecl *V, const clang::FieldDecl *F = nullptr)
      : Var(V), Field(F) {}
  bool operator<(const BufferStorage &O) const {
    return std::tie(Var, Field) < std::tie(O.Var, O.Field);
  }
};

/// A launch argument the host flows refused (LaunchArgs), for the storage
/// rule (host/Retargeting.cpp).
struct RefusedArg {
  const clang::Expr *Arg;
  const clang::FunctionDecl *Fn;
};

struct PassContext {
  PassContext(clang::ASTContext &Ctx, llvm::StringRef Side, const AnalysisOptions &Opts);
  ~PassContext();

  clang::ASTContext &Ctx;
  SourceText ST;
  const AnalysisOptions &Opts;
  /// What the pass has found so far: the output.
  PassFacts Out;

  /// Does the run see every translation unit that could call a function
  /// of this one (AnalysisOptions::Scope)?
  bool wholeProgram();
  std::optional<bool> DefinesMain;

  // Filled by the collector (core/Collector.cpp), read by the components.
  std::vector<const clang::FunctionDecl *> Kernels;
  std::vector<std::pair<KernelLaunch, const clang::FunctionDecl *>> Launches;
  std::vector<std::pair<const clang::DeclRefExpr *, const clang::FunctionDecl *>> KernelRefs;
  /// Launches through a function-pointer variable (`k<<<g, b>>>(...)` with
  /// `auto *k = flag ? a<true> : a<false>`), by variable (K4).
  std::map<const clang::VarDecl *, std::pair<const clang::FunctionDecl *,
                                             std::vector<const clang::CUDAKernelCallExpr *>>>
      PointerLaunches;
  /// Every `__constant__ CUtensorMap` and the references to it, with the
  /// function holding each (null at namespace scope).
  std::map<const clang::VarDecl *,
           std::vector<std::pair<const clang::DeclRefExpr *, const clang::FunctionDecl *>>>
      ConstantRefs;
  /// Kernels looked up by name (cuModuleGetFunction, cuLibraryGetKernel):
  /// the name, or empty when it is not a string literal.
  std::vector<std::pair<std::string, const clang::CallExpr *>> NameLookups;
  /// The first call in the user's code that captures or replays a CUDA
  /// graph (ApiRole::GraphCapture), or null: a launch such a graph captures
  /// is replayed with the arguments it had then.
  const clang::CallExpr *GraphCall = nullptr;
  /// The first call in the user's code that enqueues work on a stream other
  /// than the default one (enqueuesOnOtherStream), or null: that work, and
  /// what waits for it, may run after statements written later. And the
  /// first such call of each function.
  const clang::CallExpr *OtherStreamCall = nullptr;
  std::map<const clang::FunctionDecl *, const clang::CallExpr *> OtherStreamCalls;
  /// The first thing in the user's code that may hold a stream until host
  /// code written later runs (StreamHolds.h), or null; and what it is, for
  /// messages ("'hold' waits in a loop on memory ...").
  const clang::Stmt *StreamHold = nullptr;
  std::string StreamHoldWhat;
  /// What holds the collector saw, by the stream each holds: a launch of a
  /// polling kernel, a host function, a wait for a value (the call and its
  /// function); the polling kernels, with how many references and `<<<>>>`
  /// launches name each; a polling loop in a device function that is not a
  /// kernel; the first wait for an event and every graph capture.
  std::vector<std::pair<const clang::CallExpr *, const clang::FunctionDecl *>> HoldCalls;
  std::map<const clang::FunctionDecl *, std::pair<unsigned, unsigned>> PollingKernelUses;
  bool PollsInDeviceFunction = false;
  const clang::CallExpr *EventWait = nullptr;
  std::vector<std::pair<const clang::CallExpr *, const clang::FunctionDecl *>> CaptureCalls;
  /// Which streams may be held (finishStreamHolds): every stream, or the
  /// legacy default one, or these local non-blocking stream variables.
  bool AnyStreamHeld = false, DefaultStreamHeld = false;
  std::set<const clang::ValueDecl *> HeldStreams;
  /// Reads the holds above into the held streams; the collector calls it.
  void finishStreamHolds();
  /// May \p Op (a launch or a copy of \p Fn) wait on a held stream, so
  /// that it runs after statements written later? A stream nothing holds
  /// runs it when it is enqueued in a schedule the device may pick.
  bool mayBeHeld(const clang::CallExpr *Op, const clang::FunctionDecl *Fn) const;
  /// The first of \p Ops that mayBeHeld, or null. A null operation (one
  /// the caller cannot name) may be held wherever a hold exists, and then
  /// the answer is the hold itself.
  const clang::Stmt *
  firstHeld(llvm::ArrayRef<std::pair<const clang::CallExpr *, const clang::FunctionDecl *>> Ops) const;
  /// A note naming StreamHold, for a refusal that rests on it.
  std::string streamHoldNote() const;
  /// The user's functions each function calls directly (definitions).
  std::map<const clang::FunctionDecl *, std::set<const clang::FunctionDecl *>> Callees;
  /// The first call enqueuing work on a stream other than the default one
  /// in \p Fn or a function it calls (directly or not); with no \p Fn, in
  /// the translation unit. Null: none.
  const clang::CallExpr *otherStreamWork(const clang::FunctionDecl *Fn);
  /// References to host functions that return a descriptor pointer (H6).
  std::map<const clang::FunctionDecl *,
           std::vector<std::pair<const clang::DeclRefExpr *, const clang::FunctionDecl *>>>
      UploadRefs;
  /// References to host functions that take a descriptor pointer (H7).
  std::map<const clang::FunctionDecl *,
           std::vector<std::pair<const clang::DeclRefExpr *, const clang::FunctionDecl *>>>
      LauncherRefs;
  /// References to file-scope descriptor pointers (`static CUtensorMap *d;`,
  /// caches of H8), with the function holding each (null outside one).
  std::map<const clang::VarDecl *,
           std::vector<std::pair<const clang::DeclRefExpr *, const clang::FunctionDecl *>>>
      FileScopePointerRefs;
  /// Calls of the argument-array launch APIs (H4), resolved in run().
  std::vector<std::pair<const clang::CallExpr *, const clang::FunctionDecl *>> ArrayLaunchCalls;

  // Written by one component, read by others (the phase order in
  // PassAnalysis.cpp writes each before it is read).
  /// Keys of the parameters a kernel gains from `__constant__` descriptors
  /// it reads, by kernel pattern (ConstantMemory): blocked like its own
  /// descriptor parameters when the kernel is used other than in a launch.
  std::map<const clang::FunctionDecl *, std::vector<std::string>> ConstantParamKeys;
  /// The kernels each accepted function-pointer launch may run (PointerLaunches).
  std::map<const clang::CUDAKernelCallExpr *, std::vector<const clang::FunctionDecl *>>
      PointerTargets;
  /// Kernel references that a resolved argument-array launch accounts for
  /// (ArgumentArrays, PointerLaunches).
  llvm::DenseSet<const clang::DeclRefExpr *> AcceptedKernelRefs;
  /// `&d` in an argument array: the variable's reference -> (kernel, slot).
  llvm::DenseMap<const clang::DeclRefExpr *, std::pair<const clang::FunctionDecl *, unsigned>>
      ArraySlots;
  /// Every `&storage` slot of a resolved argument array (a variable, a
  /// field, a global): the storage's expression -> (kernel, slot), for the
  /// storage rule.
  llvm::DenseMap<const clang::Expr *, std::pair<const clang::FunctionDecl *, unsigned>>
      ArraySlotExprs;
  /// The launches that read each such slot, with their functions.
  std::map<const clang::Expr *,
           std::vector<std::pair<const clang::CallExpr *, const clang::FunctionDecl *>>>
      ArraySlotLaunches;
  /// Index of each descriptor parameter's facts in Out.Params, by key.
  std::map<std::string, size_t> ParamSlot;
  /// The copies into each device buffer and its other uses (HostBuffers).
  std::map<BufferStorage, std::vector<CopyInfo>> BufferCopies;
  std::map<BufferStorage, std::vector<const clang::Stmt *>> BufferOtherUses;
  /// Of those, the calls that take the device pointer and that the tool
  /// does not follow (an indirect call, a function whose body is not
  /// seen), with how to name the callee: each may write the device copy at
  /// any time after it (the closed world). Read by changedBetween.
  struct UnseenCall {
    const clang::Stmt *Call;
    std::string Callee; // how to name it: "an indirect call", "'f' (its body is not seen)"
    std::string Passed; // the name it is given: the buffer's, an alias's, the memory's other name
  };
  std::map<BufferStorage, std::vector<UnseenCall>> BufferUnseenCalls;
  /// References of a device buffer that are the destination of a copy of a
  /// part of it (`cudaMemcpy(d + k, ...)`, issue 21). Written by
  /// HostBuffers::classifyBufferUse, read by changedBetween.
  std::map<const clang::Stmt *, const clang::CallExpr *> PartialCopies;
  /// Written by HostBuffers::bufferFacts, read by changedBetween: the first
  /// use through which other code may reach a buffer's device copy, and how.
  std::map<BufferStorage, std::pair<const clang::Stmt *, std::string>> BufferLeaks;
  /// The other uses that pass a device buffer to a launcher defined in
  /// another TU, with the launcher parameter's key (HostBuffers).
  llvm::DenseMap<const clang::Stmt *, std::string> ForeignLauncherArgs;
  /// The launch arguments the host flows refused, in order (LaunchArgs).
  std::vector<RefusedArg> RefusedArgs;
  /// Every launch argument a host flow answered for, refused or not: a
  /// kernel launch's, or a launcher call's that stands for it (LaunchArgs).
  std::vector<RefusedArg> AnsweredArgs;
  /// One index per function body.
  std::map<const clang::Stmt *, std::unique_ptr<BodyIndex>> Bodies;
};

/// Fills the collected facts of \p P from its translation unit.
void collect(PassContext &P);

/// The base of every component: the context, and navigation over bodies
/// shared by all (core/BodyIndex.cpp, core/PassContext.cpp).
class PassComponent {
protected:
  explicit PassComponent(PassContext &P)
      : Pass(P), Ctx(P.Ctx), ST(P.ST), Out(P.Out), Opts(P.Opts) {}

  PassContext &Pass;
  clang::ASTContext &Ctx;
  SourceText &ST;
  PassFacts &Out;
  const AnalysisOptions &Opts;

  // Navigation (core/BodyIndex.cpp).
  BodyIndex &index(const clang::FunctionDecl *FD);
  const clang::Stmt *parent(const clang::FunctionDecl *Fn, const clang::Stmt *S) {
    return index(Fn).PM->getParent(S);
  }
  /// From \p S up to where its value goes, through what \p Through passes
  /// on (core/Climb.h).
  Climbed climb(const clang::FunctionDecl *Fn, const clang::Stmt *S, PassesThrough Through) {
    return analysis::climb(S, [&](const clang::Stmt *X) { return parent(Fn, X); }, Through);
  }
  /// The statement as the user wrote it, directly in a block.
  const clang::Stmt *topStatement(const clang::Stmt *S, const clang::FunctionDecl *Fn);
  const clang::DeclStmt *declStmtOf(const clang::VarDecl *V, const clang::FunctionDecl *Fn);
  bool isAncestor(const clang::Stmt *A, const clang::Stmt *S, const clang::FunctionDecl *Fn);
  /// Does \p S run whenever its top statement \p Top does? (No if, loop,
  /// switch, ?: or short-circuit operator in between; a macro's
  /// do { } while (0) runs once.)
  bool runsWhenReached(const clang::Stmt *S, const clang::Stmt *Top,
                       const clang::FunctionDecl *Fn);
  /// The last of \p Copies that always runs before \p Launch, in a block
  /// around it (the copy that reaches the launch); null when none does.
  const CopyInfo *reachingOf(llvm::ArrayRef<CopyInfo> Copies, const clang::Stmt *Launch,
                             const clang::FunctionDecl *Fn);
  /// The paths of \p Fn's body, or null (core/BodyFlow.h).
  BodyFlow *flow(const clang::FunctionDecl *Fn);
  /// Whose paths order \p A and \p B: the call operator of the lambda of
  /// \p Fn whose body holds both, or \p Fn.
  const clang::FunctionDecl *flowBody(const clang::Stmt *A, const clang::Stmt *B,
                                      const clang::FunctionDecl *Fn);
  /// Does every path from \p Fn's entry to \p To run \p A first?
  bool dominates(const clang::Stmt *A, const clang::Stmt *To, const clang::FunctionDecl *Fn);
  /// Does every path from \p Fn's entry to \p To run one of \p As first
  /// (BodyFlow::dominatedBy)? False when any is inside a lambda's body or
  /// there is no CFG.
  bool dominatedBy(llvm::ArrayRef<const clang::Stmt *> As, const clang::Stmt *To,
                   const clang::FunctionDecl *Fn);
  /// Can \p To run after \p At (through loops and jumps)?
  bool reaches(const clang::Stmt *At, const clang::Stmt *To, const clang::FunctionDecl *Fn);
  /// Can \p To (null: the return of \p Fn) run after \p From on a path of
  /// \p Fn's body that runs none of \p Stops (BodyFlow::reachesAvoiding)?
  /// True when either is inside a lambda's body or there is no CFG.
  bool reachesAvoiding(const clang::Stmt *From, const clang::Stmt *To,
                       llvm::ArrayRef<const clang::Stmt *> Stops, const clang::FunctionDecl *Fn);
  /// Can \p X run after \p From and before \p To, on a path that does not
  /// run \p From again? (Every path of the CFG: goto, switch, loops, try.)
  bool between(const clang::Stmt *From, const clang::Stmt *To, const clang::Stmt *X,
               const clang::FunctionDecl *Fn);
  bool inUnevaluatedOperand(const clang::Stmt *S, const clang::FunctionDecl *Fn);
  /// The call whose callee \p R is (through parentheses and implicit
  /// casts), or null: \p R is used some other way.
  const clang::CallExpr *directCallOf(const clang::DeclRefExpr *R,
                                      const clang::FunctionDecl *Fn);

  // Facts and text (core/PassContext.cpp).
  DescriptorParam &paramFacts(const clang::FunctionDecl *FD, unsigned Index);
  /// Every parameter key of kernel \p K: its descriptor pointers and the
  /// parameters it gains from `__constant__` descriptors.
  std::vector<std::string> paramKeysOf(const clang::FunctionDecl *K);
  /// Why another translation unit could call \p F without being verified
  /// with its new signature: external linkage and no declaration in a header
  /// (a TU including an edited header is re-parsed with it).
  std::optional<std::string> callableUnverified(const clang::FunctionDecl *F,
                                                llvm::StringRef Role);
  /// The refusal, at \p At, of \p F that another translation unit could
  /// call unverified (as callableUnverified): \p Alone when the run names
  /// no missing units, else \p WithUnits, whose %1 names them.
  std::optional<Blocker> calledUnverified(const clang::FunctionDecl *F, ReasonID Alone,
                                          ReasonID WithUnits, clang::SourceLocation At);
  /// What a run needs to see every translation unit of the program: the
  /// units of the compile database it leaves out.
  std::string unitsNotInRun();
  SourceSpan spanOf(const clang::Decl *D);
  /// Refuses through the row \p R of the reason table, its template filled
  /// with \p Args.
  void block(UseSink &Sink, ReasonID R, llvm::ArrayRef<std::string> Args,
             clang::SourceLocation Loc);
  unsigned offsetOf(clang::SourceLocation L);
  std::string spelled(const clang::Expr *E);
};

} // namespace tma::analysis
