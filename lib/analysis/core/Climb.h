// Climbing from an expression to where its value goes: through the nodes
// that only pass it on (parentheses, implicit casts, cleanups, ...), to the
// first ancestor that uses it. Every component climbs with this one helper;
// what counts as passing the value on is a named predicate below.
#pragma once

#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace tma::analysis {

/// The first ancestor that is not passed through, and its child on the way
/// (the start itself when its parent is not passed through).
struct Climbed {
  const clang::Stmt *Child;
  const clang::Stmt *Parent; // null: the top of the body
};

using ParentOf = llvm::function_ref<const clang::Stmt *(const clang::Stmt *)>;
/// Does the value of \p Child pass on through \p Parent?
using PassesThrough = bool (*)(const clang::Stmt *Parent, const clang::Stmt *Child);

Climbed climb(const clang::Stmt *S, ParentOf Parent, PassesThrough Through);

/// `(e)`.
bool parens(const clang::Stmt *P, const clang::Stmt *);
/// `(e)` and implicit conversions.
bool parensAndImplicitCasts(const clang::Stmt *P, const clang::Stmt *);
/// `(e)` and every conversion, implicit or written.
bool parensAndCasts(const clang::Stmt *P, const clang::Stmt *);
/// What wraps a call used as a statement: cleanups, `(e)`, `(void)e`.
bool statementWrappers(const clang::Stmt *P, const clang::Stmt *);
/// `(e)` and cleanups: a call's value as written.
bool parensAndCleanups(const clang::Stmt *P, const clang::Stmt *);
/// What wraps a temporary: cleanups, `(e)`, materialisation, binding.
bool temporaryWrappers(const clang::Stmt *P, const clang::Stmt *);
/// `(e)`, every conversion, and the temporary a reference binds
/// (`cudaLaunchKernelEx(&cfg, k, (const CUtensorMap *)d)`).
bool parensCastsAndTemporaries(const clang::Stmt *P, const clang::Stmt *);
/// `(e)`, conversions, and `&e`: a name whose address goes somewhere.
bool parensCastsAndAddressOf(const clang::Stmt *P, const clang::Stmt *);
/// `(e)`, implicit conversions, and `*e`: a function pointer called.
bool parensImplicitCastsAndDeref(const clang::Stmt *P, const clang::Stmt *);
/// `(e)` and implicit conversions but a pointer's test (`if (p)`).
bool parensAndValueCasts(const clang::Stmt *P, const clang::Stmt *);
/// `(e)`, implicit conversions and cleanups: a call's result used.
bool parensImplicitCastsAndCleanups(const clang::Stmt *P, const clang::Stmt *);

} // namespace tma::analysis
