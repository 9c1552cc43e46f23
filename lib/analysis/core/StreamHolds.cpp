#include "StreamHolds.h"

#include "Types.h"

#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include "clang/AST/StmtCXX.h"


using namespace clang;

namespace tma::analysis {
namespace {

/// Inline PTX that may observe a write of another agent: a load with
/// volatile, acquire or relaxed semantics, or an atomic, not in shared
/// memory.
bool pollsInAsm(const GCCAsmStmt *A) {
  std::string Asm = A->getAsmString();
  llvm::StringRef Text = Asm;
  if (Text.contains("shared"))
    return false;
  bool OrderedLoad = Text.contains("ld.") && (Text.contains("volatile") || Text.contains("acquire") ||
                                              Text.contains("relaxed"));
  return OrderedLoad || Text.contains("atom.");
}

/// A call of an atomic operation: `atomicAdd`, `__atomic_load_n`,
/// `cuda::atomic_ref<T>::load`, `std::atomic<T>::load`.
bool isAtomicCall(const CallExpr *CE) {
  const FunctionDecl *FD = CE->getDirectCallee();
  if (!FD)
    return false;
  auto Atomic = [](llvm::StringRef N) { return N.contains_insensitive("atomic"); };
  if (FD->getIdentifier() && Atomic(FD->getName()))
    return true;
  const auto *M = dyn_cast<CXXMethodDecl>(FD);
  return M && M->getParent()->getIdentifier() && Atomic(M->getParent()->getName());
}

/// Does \p S read memory another agent may change while it runs?
bool polls(const Stmt *S) {
  if (!S)
    return false;
  if (const auto *IC = dyn_cast<ImplicitCastExpr>(S);
      IC && IC->getCastKind() == CK_LValueToRValue &&
      IC->getSubExpr()->getType().isVolatileQualified())
    return true;
  if (const auto *A = dyn_cast<GCCAsmStmt>(S); A && pollsInAsm(A))
    return true;
  if (const auto *CE = dyn_cast<CallExpr>(S); CE && isAtomicCall(CE))
    return true;
  for (const Stmt *C : S->children())
    if (polls(C))
      return true;
  return false;
}

const Stmt *firstPollingLoop(const Stmt *S) {
  if (!S)
    return nullptr;
  if (isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(S) && polls(S))
    return S;
  for (const Stmt *C : S->children())
    if (const Stmt *L = firstPollingLoop(C))
      return L;
  return nullptr;
}

} // namespace

const Stmt *pollingLoop(const FunctionDecl *FD) {
  if (!FD || !FD->hasBody() || !(FD->hasAttr<CUDAGlobalAttr>() || FD->hasAttr<CUDADeviceAttr>()))
    return nullptr;
  const Stmt *Body = FD->getBody();
  if (const Stmt *L = firstPollingLoop(Body))
    return L;
  // A goto that jumps back makes a loop the statements do not spell.
  return hasGoto(Body) && polls(Body) ? Body : nullptr;
}

namespace {

/// `*p` read through implicit casts, where `p` is parameter \p P.
bool readsThrough(const Expr *E, const ParmVarDecl *&P) {
  const auto *D = dyn_cast<UnaryOperator>(E->IgnoreParenImpCasts());
  if (!D || D->getOpcode() != UO_Deref)
    return false;
  const auto *R = dyn_cast<DeclRefExpr>(D->getSubExpr()->IgnoreParenImpCasts());
  P = R ? dyn_cast<ParmVarDecl>(R->getDecl()) : nullptr;
  return P && D->getType().isVolatileQualified() && D->getType()->isIntegerType();
}

/// The condition of a wait for a value other than zero: `!*p`, `*p == 0`.
const ParmVarDecl *zeroTest(const Expr *Cond) {
  const ParmVarDecl *P = nullptr;
  Cond = Cond->IgnoreParenImpCasts();
  if (const auto *Not = dyn_cast<UnaryOperator>(Cond); Not && Not->getOpcode() == UO_LNot)
    return readsThrough(Not->getSubExpr(), P) ? P : nullptr;
  const auto *Eq = dyn_cast<BinaryOperator>(Cond);
  if (!Eq || Eq->getOpcode() != BO_EQ)
    return nullptr;
  const auto *Zero = dyn_cast<IntegerLiteral>(Eq->getRHS()->IgnoreParenImpCasts());
  return Zero && Zero->getValue() == 0 && readsThrough(Eq->getLHS(), P) ? P : nullptr;
}

bool emptyBody(const Stmt *S) {
  if (isa<NullStmt>(S))
    return true;
  const auto *CS = dyn_cast<CompoundStmt>(S);
  return CS && CS->body_empty();
}

bool waitsOrCalls(const Stmt *S) {
  if (!S)
    return false;
  if (isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt, GotoStmt, IndirectGotoStmt, AsmStmt,
          CallExpr, CXXConstructExpr, CXXThrowExpr, CoroutineBodyStmt>(S))
    return true;
  if (const auto *Del = dyn_cast<CXXDeleteExpr>(S)) {
    const CXXRecordDecl *RD = Del->getDestroyedType()->getAsCXXRecordDecl();
    if (RD && !RD->hasTrivialDestructor())
      return true;
  }
  for (const Stmt *C : S->children())
    if (waitsOrCalls(C))
      return true;
  return false;
}

} // namespace

std::optional<unsigned> flagWaitParameter(const FunctionDecl *K) {
  const FunctionDecl *Def = K ? K->getDefinition() : nullptr;
  if (!Def || !Def->hasAttr<CUDAGlobalAttr>())
    return std::nullopt;
  const auto *Body = dyn_cast_or_null<CompoundStmt>(Def->getBody());
  if (!Body || Body->size() != 1)
    return std::nullopt;
  const auto *Loop = dyn_cast<WhileStmt>(Body->body_front());
  if (!Loop || Loop->getConditionVariable() || !emptyBody(Loop->getBody()))
    return std::nullopt;
  const ParmVarDecl *P = zeroTest(Loop->getCond());
  if (!P)
    return std::nullopt;
  return P->getFunctionScopeIndex();
}

bool cannotWait(const FunctionDecl *Fn) {
  const FunctionDecl *Def = Fn ? Fn->getDefinition() : nullptr;
  return Def && Def->getBody() && !waitsOrCalls(Def->getBody());
}

} // namespace tma::analysis
