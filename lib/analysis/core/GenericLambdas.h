// Walking a generic lambda as the code that runs: the instantiations of its
// call operator. Its pattern is dependent (a template kernel launched there
// has no callee yet, a call through `auto` has no target), so every visitor
// that records launches or uses walks the instantiations instead, each as a
// function of its own.
#pragma once

#include "Types.h"

#include "clang/AST/ExprCXX.h"

#include <optional>

namespace tma::analysis {

/// Walks \p LE's explicit captures, then each instantiation of its call
/// operator through \p V.TraverseDecl. None when \p LE is a plain lambda or
/// a generic one never called: \p V walks it as usual.
template <class Visitor>
std::optional<bool> traverseInstantiationsOf(Visitor &V, clang::LambdaExpr *LE) {
  std::vector<clang::FunctionDecl *> Runs = genericLambdaInstantiations(LE);
  if (Runs.empty())
    return std::nullopt;
  for (unsigned I = 0, N = LE->capture_size(); I != N; ++I) {
    const clang::LambdaCapture *C = LE->capture_begin() + I;
    if (C->isExplicit() && !V.TraverseLambdaCapture(LE, C, LE->capture_init_begin()[I]))
      return false;
  }
  for (clang::FunctionDecl *S : Runs)
    if (!V.TraverseDecl(S))
      return false;
  return true;
}

} // namespace tma::analysis
