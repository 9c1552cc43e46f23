// Device buffers and the host descriptor a copy reads (host/DeviceBuffers.cpp, host/HostDescriptor.cpp).
#pragma once

#include "../core/PassContext.h"

#include <functional>

namespace tma::analysis {

struct CudaApi;
class Launchers;
class ObjectReach;


/// Device buffers (a host variable holding a device copy: its allocation,
/// copies, frees and launches) and the host descriptor a copy reads
/// (host/DeviceBuffers.cpp, host/HostDescriptor.cpp).
class HostBuffers : public PassComponent {
public:
  HostBuffers(PassContext &P, Launchers &LauncherFlow, ObjectReach &Reach)
      : PassComponent(P), LauncherFlow(LauncherFlow), Reach(Reach) {}

  /// The object proof the buffers' own questions use (ObjectReach.h).
  ObjectReach &reach() { return Reach; }

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

  /// Issue 21: \p Call (of \p Api) copies host descriptors, more than one,
  /// into \p Into: the array it reads and its count, or why the count is
  /// not proven (host/HostArrays.cpp). None: not a copy of descriptors.
  std::optional<ArrayCopy> arrayCopyOf(const clang::CallExpr *Call, const CudaApi &Api,
                                       const clang::FunctionDecl *Fn, llvm::StringRef Into);
  /// What the variable's initialiser gives the field \p S.Field (null: it
  /// starts null).
  const clang::Expr *fieldInitialiser(BufferStorage S);
  /// A launch that may read its device copy later than its call: a CUDA
  /// graph may capture it (Pass.GraphCall: the translation unit captures
  /// or replays one) and replay it, or its stream may run it after
  /// statements written later: \p HeldOp, the first operation on the
  /// device copy (a copy into it, the launch) on a stream something may
  /// hold (Pass.mayBeHeld), or null,
  /// unless \p OneStreamOrder: every operation on the device copy (its
  /// copies, the launch) is on one stream (the default one, or a stream
  /// variable that holds one stream: `streamOf`), which runs them in the
  /// order the host writes them, whatever other streams do. On a stream,
  /// a loop around \p Storage's declaration makes a new device copy in each
  /// round, so it does not run the copy again.
  /// By value it passes the descriptor as it is at the call; by reference
  /// the kernel reads what the device copy holds when it runs. They agree
  /// when the device copy never changes once made: \p Copies (every copy
  /// into \p Into) is the one \p Copy, no other use of it may change it
  /// (\p DeviceChange: the first such use, or null) and, when the copy is
  /// enqueued on a stream (a graph may capture it and run it again at each
  /// replay) or runs in a loop, it reads a local host descriptor that
  /// nothing changes after it, nor in the loop. Why not, or none. A graph
  /// is no reason when \p OnLegacyStream: the copies and the launch are on
  /// the legacy default stream, which no graph can capture.
  std::optional<Blocker> deferredReadBlocker(const clang::CallExpr *Copy,
                                             const clang::Stmt *CopyTop, size_t Copies,
                                             llvm::StringRef Into, const clang::FunctionDecl *Fn,
                                             const clang::Stmt *DeviceChange = nullptr,
                                             const clang::Stmt *HeldOp = nullptr,
                                             bool OneStreamOrder = false,
                                             const clang::VarDecl *Storage = nullptr,
                                             bool OnLegacyStream = false);
  /// Nothing changes local \p H after \p Copy (to the end of \p Fn), nor in
  /// \p Loop (around the copy) at all, and no other name for it is made;
  /// otherwise \p Refuse's blocker.
  std::optional<Blocker>
  hostUnchangedAfter(const clang::VarDecl *H, const clang::CallExpr *Copy,
                     const clang::Stmt *CopyTop, const clang::Stmt *Loop,
                     const clang::FunctionDecl *Fn,
                     const std::function<Blocker(const std::string &, clang::SourceLocation)> &Refuse);
  /// The proof that \p Launch may pass the host array \p Copy read by
  /// value: local, in scope at \p Named, not named between the copy and
  /// the launch, changed through no other name. \p Passed: the argument,
  /// `TmaDescriptorArray<N>::copyOf(source)`.
  std::optional<Blocker> hostArrayAt(const CopyInfo &Copy, const clang::Stmt *Launch,
                                     const clang::Stmt *Named, const clang::FunctionDecl *Fn,
                                     clang::SourceLocation ArgLoc, std::string &Passed);

private:
  /// Is local \p H declared in a block around \p Named, before it?
  bool inScopeAt(const clang::VarDecl *H, const clang::Stmt *Named,
                 const clang::FunctionDecl *Fn);
  std::optional<unsigned> vectorCount(const clang::VarDecl *V, const clang::FunctionDecl *Fn,
                                      std::string &Why);
  Launchers &LauncherFlow;
  ObjectReach &Reach;
  std::map<BufferStorage, size_t> BufferSlot;
  /// One use of \p S in \p Fn (reference \p R: `d`, or `plan.device`),
  /// classified.
  HostUse classifyBufferUse(BufferStorage S, const clang::Expr *R,
                            const clang::FunctionDecl *Fn, DeviceBuffer &B);
  /// How to name the callee of \p Call when the tool does not follow it (a
  /// call through a pointer, a function whose body is not seen), or none.
  std::optional<std::string> unseenCallee(const clang::CallExpr *Call);
  /// Where \p R (a reference to \p S in \p Fn) binds a local reference
  /// to the pointer variable (`CUtensorMap *&q = d;`), which the flow does
  /// not follow: q's uses as an argument of a call the tool does not
  /// follow are the buffer's too (PassContext::BufferUnseenCalls).
  void unseenCallsThroughReference(BufferStorage S, const clang::Expr *R,
                                   const clang::FunctionDecl *Fn);
  /// Where \p R (a name of the buffer's memory in \p Fn) is an argument of a
  /// call the tool does not follow: that call is the buffer's too.
  void unseenCallArgument(BufferStorage S, const clang::Expr *R, const clang::FunctionDecl *Fn);
  /// The calls the tool does not follow that are given a pointer variable
  /// named in \p Init, the memory \p S starts as (`CUtensorMap *e = d;`):
  /// they reach S's memory under the other name.
  void unseenCallsOfOtherNames(BufferStorage S, const clang::Expr *Init,
                               const clang::FunctionDecl *Fn);
  /// The references to \p S in \p Fn; for a field, also in \p Whole the
  /// uses of its variable as a whole (`&plan`, `plan = other`, `f(plan)`),
  /// each of which may change or copy the field.
  std::vector<const clang::Expr *> storageRefs(BufferStorage S, const clang::FunctionDecl *Fn,
                                               std::vector<const clang::Stmt *> &Whole);
  HostUse declarationUse(const clang::VarDecl *V, const clang::FunctionDecl *Fn,
                         const DeviceBuffer &B);
};

} // namespace tma::analysis
