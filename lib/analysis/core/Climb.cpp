// The one climb (Climb.h) and the predicates of what passes a value on.
#include "Climb.h"

using namespace clang;

namespace tma::analysis {

Climbed climb(const Stmt *S, ParentOf Parent, PassesThrough Through) {
  const Stmt *P = Parent(S);
  while (P && Through(P, S)) {
    S = P;
    P = Parent(P);
  }
  return {S, P};
}

bool parens(const Stmt *P, const Stmt *) { return isa<ParenExpr>(P); }

bool parensAndImplicitCasts(const Stmt *P, const Stmt *) {
  return isa<ParenExpr, ImplicitCastExpr>(P);
}

bool parensAndCasts(const Stmt *P, const Stmt *) { return isa<ParenExpr, CastExpr>(P); }

bool statementWrappers(const Stmt *P, const Stmt *) {
  return isa<ExprWithCleanups, ParenExpr>(P) ||
         (isa<CStyleCastExpr>(P) && cast<Expr>(P)->getType()->isVoidType());
}

bool parensAndCleanups(const Stmt *P, const Stmt *) {
  return isa<ParenExpr, ExprWithCleanups>(P);
}

bool temporaryWrappers(const Stmt *P, const Stmt *) {
  return isa<ParenExpr, ExprWithCleanups, MaterializeTemporaryExpr, CXXBindTemporaryExpr>(P);
}

bool parensCastsAndTemporaries(const Stmt *P, const Stmt *C) {
  return parensAndCasts(P, C) || isa<MaterializeTemporaryExpr>(P);
}

bool parensCastsAndAddressOf(const Stmt *P, const Stmt *C) {
  const auto *UO = dyn_cast<UnaryOperator>(P);
  return parensAndCasts(P, C) || (UO && UO->getOpcode() == UO_AddrOf);
}

bool parensImplicitCastsAndDeref(const Stmt *P, const Stmt *C) {
  const auto *UO = dyn_cast<UnaryOperator>(P);
  return parensAndImplicitCasts(P, C) || (UO && UO->getOpcode() == UO_Deref);
}

bool parensAndValueCasts(const Stmt *P, const Stmt *) {
  const auto *IC = dyn_cast<ImplicitCastExpr>(P);
  return isa<ParenExpr>(P) || (IC && IC->getCastKind() != CK_PointerToBoolean);
}

bool parensImplicitCastsAndCleanups(const Stmt *P, const Stmt *) {
  return isa<ExprWithCleanups, ImplicitCastExpr, ParenExpr>(P);
}

} // namespace tma::analysis
