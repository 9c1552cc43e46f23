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

} // namespace tma::analysis
