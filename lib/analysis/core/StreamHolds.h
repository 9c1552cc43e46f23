// What may hold a stream until host code written later runs. Without such
// a thing, every schedule in which each operation runs when it is enqueued
// is one the device may pick: a rewrite that reads what the kernel reads in
// that schedule reads what the original may read (a race in the original
// resolves to it). With one, work enqueued on a stream may run only after
// later statements, and the proofs must count it then (PassContext::
// mayBeHeld).
#pragma once

#include <optional>
#include <string>

namespace clang {
class FunctionDecl;
class Stmt;
}

namespace tma::analysis {

/// The first loop of device function \p FD (a kernel or `__device__`
/// function) that polls memory another agent may write: a read of a
/// `volatile` object, an atomic operation, or inline PTX that loads with
/// `.volatile`, `.acquire` or `.relaxed` semantics or is an atomic, outside
/// shared memory (an `mbarrier` wait polls shared memory only, which host
/// code cannot write). Null: none, or \p FD is not device code.
const clang::Stmt *pollingLoop(const clang::FunctionDecl *FD);

/// The parameter of kernel \p K that it waits on and nothing else: its body
/// is one loop, `while (!*p) {}` or `while (*p == 0) {}`, over a pointer
/// parameter `p` to a volatile integer. Such a kernel ends once another
/// agent stores a value other than zero there, and writes nothing. None for
/// any other body.
std::optional<unsigned> flagWaitParameter(const clang::FunctionDecl *K);

/// Does host function \p Fn (one a stream runs, `cudaLaunchHostFunc`) run
/// to its end without waiting for anything: its body is seen and has no
/// loop, jump, call or inline assembly? Such a callback holds its stream
/// no longer than its own statements.
bool cannotWait(const clang::FunctionDecl *Fn);

} // namespace tma::analysis
