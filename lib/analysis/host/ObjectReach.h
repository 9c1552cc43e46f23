// The object proof: what every use of a storage does to the object it reaches (host/ObjectReach.cpp).
#pragma once

#include "../core/PassContext.h"

#include <functional>

namespace tma::analysis {

/// A callable object: a closure, or anything with an operator()
/// (host/ObjectReachCode.cpp).
bool isCallableType(clang::QualType T);

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
  /// An escape that only stores the address (into an aggregate's element,
  /// a variable the proof does not follow): nothing changes the object
  /// here; what writes through the stored address later is asked apart.
  bool StoresOnly = false;
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
  /// Code started on another thread (a stream callback) that the caller
  /// shows cannot run between the copy and the end (its stream is held
  /// until later, or a host wait saw it finish before): skipped.
  std::function<bool(const clang::Stmt *)> RunsOutside;
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
  /// Does the proof follow what reference \p R of \p V does: anything but
  /// an escape (`CUtensorMap *p = &h;` binds a local it follows)?
  bool accountsFor(const clang::DeclRefExpr *R, const clang::VarDecl *V,
                  const clang::FunctionDecl *Fn);
  /// Does \p F (its body, when visible) keep parameter \p I beyond the call?
  bool mayKeep(const clang::FunctionDecl *F, unsigned I, unsigned Depth = 0);
  /// The first statement from the copy to \p End (the launch's arguments
  /// included) that may run host code of the user's, or with \p DeviceToo
  /// a kernel; \p Skip: the copy and the launch; \p Outside: code that runs
  /// only outside the interval (a stream callback). Null when none.
  const clang::Stmt *userCodeBetween(const clang::Stmt *CopyTop, const clang::Stmt *End,
                                     const clang::FunctionDecl *Fn,
                                     llvm::ArrayRef<const clang::Stmt *> Skip, bool DeviceToo,
                                     const std::function<bool(const clang::Stmt *)> &Outside = {});
  /// May code that runs before \p End (or again before it, in a loop) have
  /// been reached through something made at \p At?
  bool beforeEnd(const clang::Stmt *At, const clang::Stmt *End, const clang::FunctionDecl *Fn);
  /// May \p Call write memory it is not given by name: run user code that
  /// does, or hand a library function a pointer that may reach a descriptor?
  bool mayWriteUnnamed(const clang::CallExpr *Call) {
    return callMayWrite(Call, /*DeviceToo=*/false, /*GlobalsOnly=*/false, 0);
  }
  /// The first write from the copy to \p End that goes through a pointer
  /// or reference (`*p = x`, `v[0]->opaque[1] = 2`, `r = x` with `r` a
  /// reference), which may reach any object whose address escaped; with
  /// \p ByNameToo also a write by name to a variable of a type that holds
  /// a descriptor (what a descriptor pointer may point to). Null when none.
  const clang::Stmt *writeThroughBetween(const clang::Stmt *CopyTop, const clang::Stmt *End,
                                         const clang::FunctionDecl *Fn,
                                         llvm::ArrayRef<const clang::Stmt *> Skip,
                                         bool ByNameToo);
  /// Is local pointer \p P only ever null or the address of a new
  /// allocation (`new`, `cudaMallocHost(&p, n)`), so that no named object
  /// lies where it points?
  bool pointsOnlyToNewMemory(const clang::VarDecl *P, const clang::FunctionDecl *Fn);
  /// The first library call from the copy to \p End given a writable
  /// pointer whose object the proof cannot name (`memcpy(maps[0], ...)`),
  /// or that changes an object that may hold a name of a descriptor
  /// (`t = std::make_tuple(o, 1)` for a `std::tuple<CUtensorMap &, int>`):
  /// after an escape it may write the object. Null when none.
  const clang::Stmt *libraryWriteBetween(const clang::Stmt *CopyTop, const clang::Stmt *End,
                                         const clang::FunctionDecl *Fn,
                                         llvm::ArrayRef<const clang::Stmt *> Skip);
  /// The first statement of \p Fn that starts host code which runs on
  /// another thread, at times the program's statements do not order (a
  /// stream callback, a thread or an async task given a callable), and from
  /// which \p End can be reached; null when none.
  const clang::Stmt *concurrentCodeBefore(const clang::Stmt *End, const clang::FunctionDecl *Fn,
                                          const std::function<bool(const clang::Stmt *)> &Outside = {});
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
  /// The object initialises an element of aggregate \p Init (ObjectReach.cpp).
  ObjectUse aggregateElementUse(const clang::Expr *Init);
  ObjectUse objectUseOfConst(const clang::Expr *E, const clang::FunctionDecl *Fn, unsigned Depth,
                             bool DevicePointer);
  ObjectUse methodUse(const clang::CXXMethodDecl *M, const clang::Stmt *At, unsigned Depth);
  ObjectUse constructorArgumentUse(const clang::CXXConstructExpr *CE, const clang::Stmt *Cur,
                                   unsigned Depth);
  ObjectUse pointerUse(const clang::Expr *PV, const clang::FunctionDecl *Fn, unsigned Depth,
                       bool DevicePointer);
  ObjectUse argumentUse(const clang::CallExpr *Call, const clang::Stmt *Cur, bool Pointer,
                        unsigned Depth, bool DevicePointer);
  /// May \p S run host code of the user's (or, with \p DeviceToo, a kernel)?
  bool mayRunUserCode(const clang::Stmt *S, bool DeviceToo);
  bool madeInitRunsUserCode(const clang::CXXRecordDecl *RD, unsigned Depth);
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
  /// Does \p F keep the `const` of what it is given (ObjectReachCode.cpp)?
  bool honoursConst(const clang::FunctionDecl *F, unsigned Depth);
  bool callHonoursConst(const clang::CallExpr *Call, unsigned Depth);
  bool mayHoldDescriptorName(clang::QualType T, unsigned Depth);
  bool changesHolder(const clang::CallExpr *Call);
  bool mutableHoldsDescriptor(const clang::CXXRecordDecl *RD, unsigned Depth);
  bool constMethodOnlyReads(const clang::CXXMethodDecl *M, unsigned Depth);
  std::map<std::pair<const clang::FunctionDecl *, unsigned>, bool> KeepMemo;
  std::map<const clang::FunctionDecl *, bool> ConstMemo;
  std::map<std::pair<const clang::FunctionDecl *, bool>, bool> WriteMemo;
};

} // namespace tma::analysis
