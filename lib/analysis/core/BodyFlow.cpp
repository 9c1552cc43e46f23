// Paths through one body, from clang's CFG (BodyFlow.h).
#include "BodyFlow.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"

#include <functional>

using namespace clang;

namespace tma::analysis {

std::unique_ptr<BodyFlow> BodyFlow::build(const FunctionDecl *FD, ParentMap &PM) {
  if (!FD || !FD->getBody())
    return nullptr;
  CFG::BuildOptions BO;
  // Every expression is a node, so a reference inside a statement has its
  // own place in the order (a write in a call's argument, a launch's
  // arguments before the launch).
  BO.setAllAlwaysAdd();
  // A call inside a `try` may leave for its handlers.
  BO.AddEHEdges = true;
  std::unique_ptr<CFG> G =
      CFG::buildCFG(FD, FD->getBody(), &FD->getASTContext(), BO);
  if (!G)
    return nullptr;
  return std::unique_ptr<BodyFlow>(new BodyFlow(std::move(G), PM));
}

BodyFlow::BodyFlow(std::unique_ptr<CFG> G, ParentMap &PM) : Graph(std::move(G)), PM(PM) {
  // Number the statement elements of every block, in order.
  std::vector<std::vector<unsigned>> BlockNodes(Graph->getNumBlockIDs());
  unsigned N = 0;
  for (const CFGBlock *B : *Graph)
    for (const CFGElement &E : *B)
      if (std::optional<CFGStmt> S = E.getAs<CFGStmt>()) {
        BlockNodes[B->getBlockID()].push_back(N);
        NodeOf.try_emplace(S->getStmt(), N);
        ++N;
      }
  Succ.assign(N, {});
  Pred.assign(N, {});
  // The first nodes a path entering block B meets: its own first node, or
  // (an empty block) those of the blocks it leads to.
  std::vector<std::vector<unsigned>> Firsts(Graph->getNumBlockIDs());
  std::vector<char> Done(Graph->getNumBlockIDs(), 0);
  std::function<const std::vector<unsigned> &(const CFGBlock *)> FirstOf =
      [&](const CFGBlock *B) -> const std::vector<unsigned> & {
    unsigned ID = B->getBlockID();
    if (Done[ID])
      return Firsts[ID];
    Done[ID] = 1; // an empty cycle ends here
    if (!BlockNodes[ID].empty()) {
      Firsts[ID] = {BlockNodes[ID].front()};
      return Firsts[ID];
    }
    std::vector<unsigned> Acc;
    for (const CFGBlock::AdjacentBlock &S : B->succs())
      if (const CFGBlock *SB = S.getReachableBlock())
        for (unsigned X : FirstOf(SB))
          if (!llvm::is_contained(Acc, X))
            Acc.push_back(X);
    Firsts[ID] = std::move(Acc);
    return Firsts[ID];
  };
  for (const CFGBlock *B : *Graph) {
    const std::vector<unsigned> &Own = BlockNodes[B->getBlockID()];
    for (size_t I = 0; I + 1 < Own.size(); ++I)
      Succ[Own[I]].push_back(Own[I + 1]);
    if (Own.empty())
      continue;
    for (const CFGBlock::AdjacentBlock &S : B->succs())
      if (const CFGBlock *SB = S.getReachableBlock())
        for (unsigned X : FirstOf(SB))
          if (!llvm::is_contained(Succ[Own.back()], X))
            Succ[Own.back()].push_back(X);
  }
  for (unsigned From = 0; From < N; ++From)
    for (unsigned To : Succ[From])
      Pred[To].push_back(From);
  EntryNodes = FirstOf(&Graph->getEntry());
  // A block's last node leaves the body when the exit block follows it,
  // directly or through empty blocks.
  std::vector<char> Exits(Graph->getNumBlockIDs(), 2); // 2: not known yet
  std::function<bool(const CFGBlock *)> ReachesExit = [&](const CFGBlock *B) -> bool {
    char &E = Exits[B->getBlockID()];
    if (E != 2)
      return E;
    E = 0; // an empty cycle ends here
    if (B == &Graph->getExit())
      return E = 1;
    if (!BlockNodes[B->getBlockID()].empty())
      return false;
    for (const CFGBlock::AdjacentBlock &S : B->succs())
      if (const CFGBlock *SB = S.getReachableBlock(); SB && ReachesExit(SB))
        return E = 1;
    return false;
  };
  // Only a return, a throw, or the end of the body: a call's edge for the
  // exception it may throw (AddEHEdges) is not a return.
  Leaving.resize(N);
  for (const CFGBlock *B : *Graph) {
    const std::vector<unsigned> &Own = BlockNodes[B->getBlockID()];
    if (Own.empty())
      continue;
    const Stmt *Last = nullptr;
    if (std::optional<CFGStmt> S = B->back().getAs<CFGStmt>())
      Last = S->getStmt();
    // A block that ends in a call has the exit among its successors for
    // the exception; it returns when every successor leads to the exit.
    unsigned Succs = 0, ToExit = 0;
    for (const CFGBlock::AdjacentBlock &S : B->succs())
      if (const CFGBlock *SB = S.getReachableBlock()) {
        ++Succs;
        ToExit += ReachesExit(SB);
      }
    bool Returns = isa_and_nonnull<ReturnStmt, CXXThrowExpr>(Last) ||
                   (ToExit && (ToExit == Succs || !isa_and_nonnull<CallExpr>(Last)));
    if (Returns)
      Leaving.set(Own.back());
  }
}

BodyFlow::Nodes BodyFlow::span(const Stmt *S) {
  if (auto It = Spans.find(S); It != Spans.end())
    return It->second;
  Nodes Found;
  llvm::SmallVector<const Stmt *, 16> Work{S};
  while (!Work.empty()) {
    const Stmt *X = Work.pop_back_val();
    if (!X)
      continue;
    if (auto N = NodeOf.find(X); N != NodeOf.end())
      Found.push_back(N->second);
    for (const Stmt *C : X->children())
      Work.push_back(C);
  }
  // Not evaluated on its own (inside a lambda's body, a declaration's
  // pieces): it runs, or is made, where the element around it is.
  for (const Stmt *P = PM.getParent(S); Found.empty() && P; P = PM.getParent(P))
    if (auto N = NodeOf.find(P); N != NodeOf.end())
      Found.push_back(N->second);
  llvm::sort(Found);
  Found.erase(std::unique(Found.begin(), Found.end()), Found.end());
  Spans[S] = Found;
  return Found;
}

BodyFlow::Nodes BodyFlow::at(const Stmt *S) {
  if (auto N = NodeOf.find(S); N != NodeOf.end())
    return Nodes{N->second};
  return span(S);
}

llvm::BitVector BodyFlow::setOf(llvm::ArrayRef<unsigned> N) {
  llvm::BitVector B(Succ.size());
  for (unsigned X : N)
    B.set(X);
  return B;
}

llvm::BitVector BodyFlow::walk(llvm::ArrayRef<unsigned> Start, bool Forward,
                               const llvm::BitVector &Stop) {
  llvm::BitVector Seen(Succ.size());
  llvm::SmallVector<unsigned, 64> Work;
  auto Push = [&](unsigned From) {
    for (unsigned X : Forward ? Succ[From] : Pred[From])
      if (!Stop.test(X) && !Seen.test(X)) {
        Seen.set(X);
        Work.push_back(X);
      }
  };
  for (unsigned S : Start)
    Push(S);
  while (!Work.empty())
    Push(Work.pop_back_val());
  return Seen;
}

bool BodyFlow::between(const Stmt *From, const Stmt *To, const Stmt *X) {
  Nodes F = span(From), T = span(To), XN = span(X);
  if (F.empty() || T.empty() || XN.empty())
    return true; // not known to the graph: it may be anywhere
  auto [It, New] = Intervals.try_emplace({From, To});
  if (New) {
    llvm::BitVector StopF = setOf(F);
    llvm::BitVector In = walk(F, /*Forward=*/true, StopF);
    In &= walk(T, /*Forward=*/false, StopF);
    In.reset(setOf(T));
    It->second = std::move(In);
  }
  return llvm::any_of(XN, [&](unsigned N) { return It->second.test(N); });
}

llvm::BitVector BodyFlow::fromEntryAvoiding(const llvm::BitVector &Stop) {
  llvm::BitVector Seen(Succ.size());
  llvm::SmallVector<unsigned, 8> Roots;
  for (unsigned E : EntryNodes)
    if (!Stop.test(E)) {
      Seen.set(E);
      Roots.push_back(E);
    }
  Seen |= walk(Roots, /*Forward=*/true, Stop);
  return Seen;
}

bool BodyFlow::dominates(const Stmt *A, const Stmt *To) {
  Nodes AN = span(A), T = span(To);
  if (AN.empty() || T.empty())
    return false;
  auto [It, New] = AvoidingFromEntry.try_emplace(A);
  if (New)
    It->second = fromEntryAvoiding(setOf(AN));
  return llvm::none_of(T, [&](unsigned N) { return It->second.test(N); });
}

bool BodyFlow::dominatedBy(llvm::ArrayRef<const Stmt *> As, const Stmt *To) {
  Nodes T = span(To);
  if (T.empty() || As.empty())
    return false;
  llvm::BitVector Stop(Succ.size());
  for (const Stmt *A : As) {
    Nodes AN = span(A);
    if (AN.empty())
      return false;
    for (unsigned N : AN)
      Stop.set(N);
  }
  llvm::BitVector Seen = fromEntryAvoiding(Stop);
  return llvm::none_of(T, [&](unsigned N) { return Seen.test(N); });
}

bool BodyFlow::reachesAvoiding(const Stmt *From, const Stmt *To,
                               llvm::ArrayRef<const Stmt *> Stops) {
  Nodes F = at(From), T = To ? at(To) : Nodes();
  if (F.empty() || (To && T.empty()))
    return true; // not known to the graph: it may be anywhere
  llvm::BitVector Stop(Succ.size());
  for (const Stmt *S : Stops)
    for (unsigned N : span(S))
      Stop.set(N);
  llvm::BitVector Seen = walk(F, /*Forward=*/true, Stop);
  if (To)
    return llvm::any_of(T, [&](unsigned N) { return Seen.test(N); });
  return Seen.anyCommon(Leaving) || llvm::any_of(F, [&](unsigned N) { return Leaving.test(N); });
}

bool BodyFlow::reaches(const Stmt *At, const Stmt *To) {
  Nodes AN = span(At), T = span(To);
  if (AN.empty() || T.empty())
    return true;
  auto [It, New] = Reached.try_emplace(At);
  if (New)
    It->second = walk(AN, /*Forward=*/true, llvm::BitVector(Succ.size()));
  return llvm::any_of(T, [&](unsigned N) { return It->second.test(N); });
}

} // namespace tma::analysis
