// Navigation over function bodies shared by every component: the parent
// map and references of a body, statement order and reachability.
#include "PassContext.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "Types.h"

using namespace clang;

namespace tma::analysis {

BodyIndex &PassComponent::index(const FunctionDecl *FD) {
  Stmt *Body = FD->getBody();
  std::unique_ptr<BodyIndex> &Slot = Pass.Bodies[Body];
  if (!Slot) {
    Slot = std::make_unique<BodyIndex>();
    Slot->PM = std::make_unique<ParentMap>(Body);
    llvm::SmallVector<const Stmt *, 64> Work{Body};
    while (!Work.empty()) {
      const Stmt *S = Work.pop_back_val();
      if (!S)
        continue;
      Slot->Stmts.push_back(S);
      if (const auto *R = dyn_cast<DeclRefExpr>(S)) {
        Slot->Refs[R->getDecl()].push_back(R);
        // `auto &[words] = map;`: a name of a part of the decomposed
        // variable, which the proofs follow as a use of that variable.
        if (const auto *BD = dyn_cast<BindingDecl>(R->getDecl()))
          if (const ValueDecl *Whole = BD->getDecomposedDecl())
            Slot->Refs[Whole].push_back(R);
      }
      for (const Stmt *C : S->children())
        Work.push_back(C);
    }
    for (auto &KV : Slot->Refs)
      llvm::sort(KV.second, [](const DeclRefExpr *A, const DeclRefExpr *B) {
        return A->getBeginLoc() < B->getBeginLoc();
      });
  }
  return *Slot;
}

const Stmt *PassComponent::topStatement(const Stmt *S, const FunctionDecl *Fn) {
  // The statement as the user wrote it: a block that a macro expansion
  // opens (do { ... } while (0)) does not count.
  const Stmt *Cur = S;
  while (const Stmt *P = parent(Fn, Cur)) {
    if (isa<CompoundStmt>(P) && P->getBeginLoc().isFileID())
      return Cur;
    Cur = P;
  }
  return Cur;
}

const DeclStmt *PassComponent::declStmtOf(const VarDecl *V, const FunctionDecl *Fn) {
  llvm::SmallVector<const Stmt *, 64> Work{Fn->getBody()};
  while (!Work.empty()) {
    const Stmt *S = Work.pop_back_val();
    if (!S)
      continue;
    if (const auto *DS = dyn_cast<DeclStmt>(S))
      for (const Decl *D : DS->decls())
        if (D == V)
          return DS;
    for (const Stmt *C : S->children())
      Work.push_back(C);
  }
  return nullptr;
}

bool PassComponent::isAncestor(const Stmt *A, const Stmt *S, const FunctionDecl *Fn) {
  for (const Stmt *Cur = S; Cur; Cur = parent(Fn, Cur))
    if (Cur == A)
      return true;
  return false;
}

/// The innermost lambda of \p Fn whose body holds \p S, or null.
static const LambdaExpr *innermostLambda(const Stmt *S, ParentMap &PM) {
  const Stmt *Cur = S;
  for (const Stmt *P = PM.getParent(Cur); P; Cur = P, P = PM.getParent(P))
    if (const auto *LE = dyn_cast<LambdaExpr>(P); LE && LE->getBody() == Cur)
      return LE;
  return nullptr;
}

const FunctionDecl *PassComponent::flowBody(const Stmt *A, const Stmt *B,
                                            const FunctionDecl *Fn) {
  // Statements of one lambda's body run in the order of that body, each
  // time the lambda is called: its own graph answers. (In the enclosing
  // function's graph the whole body is the one node that makes it.)
  ParentMap &PM = *index(Fn).PM;
  const LambdaExpr *LA = innermostLambda(A, PM);
  if (LA && LA == innermostLambda(B, PM))
    return LA->getCallOperator();
  return Fn;
}

BodyFlow *PassComponent::flow(const FunctionDecl *Fn) {
  BodyIndex &I = index(Fn);
  if (!I.FlowTried) {
    I.FlowTried = true;
    I.Flow = BodyFlow::build(Fn, *I.PM);
  }
  return I.Flow.get();
}

bool PassComponent::dominates(const Stmt *A, const Stmt *To, const FunctionDecl *Fn) {
  BodyFlow *F = flow(flowBody(A, To, Fn));
  return F && F->dominates(A, To);
}

bool PassComponent::dominatedBy(llvm::ArrayRef<const Stmt *> As, const Stmt *To,
                                const FunctionDecl *Fn) {
  ParentMap &PM = *index(Fn).PM;
  if (innermostLambda(To, PM) ||
      llvm::any_of(As, [&](const Stmt *A) { return innermostLambda(A, PM) != nullptr; }))
    return false;
  BodyFlow *F = flow(Fn);
  return F && F->dominatedBy(As, To);
}

bool PassComponent::reaches(const Stmt *At, const Stmt *To, const FunctionDecl *Fn) {
  if (BodyFlow *F = flow(flowBody(At, To, Fn)))
    return F->reaches(At, To);
  return true;
}

bool PassComponent::reachesAvoiding(const Stmt *From, const Stmt *To,
                                    llvm::ArrayRef<const Stmt *> Stops, const FunctionDecl *Fn) {
  ParentMap &PM = *index(Fn).PM;
  if (innermostLambda(From, PM) || (To && innermostLambda(To, PM)))
    return true;
  if (BodyFlow *F = flow(Fn))
    return F->reachesAvoiding(From, To, Stops);
  return true;
}

bool PassComponent::between(const Stmt *From, const Stmt *To, const Stmt *X,
                           const FunctionDecl *Fn) {
  // Every path, not the text: a goto or a switch case may skip a copy, a
  // label may make a loop.
  const FunctionDecl *Body = flowBody(From, To, Fn);
  if (Body != Fn) {
    // Within one lambda's body: code outside it does not run in between.
    const Stmt *LambdaBody = Body->getBody();
    if (!isAncestor(LambdaBody, X, Fn))
      return false;
    if (BodyFlow *F = flow(Body))
      return F->between(From, To, X);
  } else if (!innermostLambda(From, *index(Fn).PM) && !innermostLambda(To, *index(Fn).PM)) {
    if (BodyFlow *F = flow(Fn))
      return F->between(From, To, X);
  }
  // The copy and the launch in different bodies (one in a lambda): the
  // order of the text, as below.
  // No CFG: the text's order, and a loop around the launch but not around
  // the copy runs X again before the next launch; a jump anywhere in the
  // body may reach anything.
  if (llvm::any_of(index(Fn).Stmts, [](const Stmt *S) {
        return isa<GotoStmt, IndirectGotoStmt, SwitchStmt, CXXTryStmt>(S);
      }))
    return true;
  unsigned XOff = offsetOf(X->getBeginLoc());
  if (XOff > offsetOf(From->getEndLoc()) && XOff < offsetOf(To->getBeginLoc()))
    return true;
  for (const Stmt *L = parent(Fn, To); L; L = parent(Fn, L))
    if (isLoop(L) && isAncestor(L, X, Fn) && !isAncestor(L, From, Fn))
      return true;
  return false;
}

const CopyInfo *PassComponent::reachingOf(llvm::ArrayRef<CopyInfo> Copies, const Stmt *Launch,
                                          const FunctionDecl *Fn) {
  const CopyInfo *Reaching = nullptr;
  for (const CopyInfo &C : Copies) {
    if (!runsWhenReached(C.Call, C.Top, Fn))
      continue; // under a condition or in a loop body: it may not run
    // A goto, or a switch case below it, may reach the launch without it.
    if (!dominates(C.Call, Launch, Fn))
      continue;
    const Stmt *Block = parent(Fn, C.Top);
    if (!Block || !isAncestor(Block, Launch, Fn) || isAncestor(C.Top, Launch, Fn) ||
        offsetOf(C.Top->getEndLoc()) >= offsetOf(Launch->getBeginLoc()))
      continue;
    // Of the copies that always run first, the nearest: every other one
    // runs before it.
    if (!Reaching || dominates(Reaching->Call, C.Call, Fn))
      Reaching = &C;
  }
  return Reaching;
}

bool PassComponent::runsWhenReached(const Stmt *S, const Stmt *Top, const FunctionDecl *Fn) {
  for (const Stmt *Cur = S; Cur && Cur != Top;) {
    const Stmt *P = parent(Fn, Cur);
    if (!P)
      return false;
    if (const auto *If = dyn_cast<IfStmt>(P))
      if (If->getCond() == Cur || If->getInit() == Cur) {
        Cur = P;
        continue;
      }
    if (const auto *Sw = dyn_cast<SwitchStmt>(P))
      if (Sw->getCond() == Cur || Sw->getInit() == Cur) {
        Cur = P;
        continue;
      }
    if (isa<IfStmt, SwitchStmt, ForStmt, WhileStmt, CXXForRangeStmt,
            AbstractConditionalOperator>(P))
      return false;
    if (const auto *BO = dyn_cast<BinaryOperator>(P))
      if (BO->isLogicalOp() && BO->getRHS() == Cur)
        return false;
    Cur = P;
  }
  return true;
}

bool PassComponent::inUnevaluatedOperand(const Stmt *S, const FunctionDecl *Fn) {
  for (const Stmt *P = parent(Fn, S); P; P = parent(Fn, P))
    if (isa<UnaryExprOrTypeTraitExpr>(P) || isa<CXXTypeidExpr>(P) ||
        isa<CXXNoexceptExpr>(P))
      return true;
  return false;
}

const CallExpr *PassComponent::directCallOf(const DeclRefExpr *R, const FunctionDecl *Fn) {
  if (!Fn || !Fn->getBody())
    return nullptr;
  auto [Cur, P] = climb(Fn, R, parensAndImplicitCasts);
  const auto *Call = dyn_cast_or_null<CallExpr>(P);
  return Call && Call->getCallee() == Cur ? Call : nullptr;
}

} // namespace tma::analysis
