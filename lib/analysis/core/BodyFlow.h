// Order and reachability of statements in one function body, asked of
// clang's CFG (issue 30): the order of statements in the text is not the
// order of execution once a body has a `goto`, a `switch` whose cases jump
// past code, a loop written with a label, or a `try` whose handler resumes.
// Every question about "between", "before" and "always runs first" that a
// proof rests on is answered here, over every path.
#pragma once

#include "clang/AST/Decl.h"
#include "clang/AST/ParentMap.h"
#include "clang/Analysis/CFG.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"

#include <map>
#include <memory>
#include <vector>

namespace tma::analysis {

/// The CFG of one body as a graph of its elements (one node per statement
/// or expression clang evaluates, in evaluation order), with the questions
/// the proofs ask. A statement that is not an element itself (a compound
/// statement, an `if`) stands for the elements inside it; one inside an
/// element (a lambda's body) for the element that holds it.
class BodyFlow {
public:
  /// Null when clang cannot build the CFG (the callers fall back to the
  /// order of the text).
  static std::unique_ptr<BodyFlow> build(const clang::FunctionDecl *FD, clang::ParentMap &PM);

  /// Can \p X run after \p From and before \p To, on a path that does not
  /// run \p From again (a second run of From starts a new interval)? X
  /// inside From or To is not between them.
  bool between(const clang::Stmt *From, const clang::Stmt *To, const clang::Stmt *X);
  /// Does every path from the function's entry to \p To run \p A first?
  bool dominates(const clang::Stmt *A, const clang::Stmt *To);
  /// Does every path from the function's entry to \p To run one of \p As
  /// first? False when To or one of As is not known to the graph.
  bool dominatedBy(llvm::ArrayRef<const clang::Stmt *> As, const clang::Stmt *To);
  /// Can \p To run after \p At (on any path, through loops and jumps)?
  bool reaches(const clang::Stmt *At, const clang::Stmt *To);
  /// Can \p To run after \p From on a path that runs none of \p Stops
  /// (From itself may run again on it)? With \p To null: can the body
  /// return on such a path (a return, a throw, its end; not an exception
  /// leaving a call, which the proofs do not follow)? From and To stand for their own element when
  /// they are one (a call: where it is made, after its arguments).
  bool reachesAvoiding(const clang::Stmt *From, const clang::Stmt *To,
                       llvm::ArrayRef<const clang::Stmt *> Stops);

private:
  BodyFlow(std::unique_ptr<clang::CFG> G, clang::ParentMap &PM);

  using Nodes = llvm::SmallVector<unsigned, 4>;
  /// The nodes that stand for \p S: its own element and those inside it,
  /// or else the element around it.
  Nodes span(const clang::Stmt *S);
  /// Nodes reached from \p Start (excluded unless reached again) going
  /// forward (\p Forward) or backward, never entering \p Stop.
  llvm::BitVector walk(llvm::ArrayRef<unsigned> Start, bool Forward,
                       const llvm::BitVector &Stop);
  llvm::BitVector setOf(llvm::ArrayRef<unsigned> N);
  /// Nodes reached from the function's entry without entering \p Stop.
  llvm::BitVector fromEntryAvoiding(const llvm::BitVector &Stop);
  /// The node of \p S when it is an element, else span(S).
  Nodes at(const clang::Stmt *S);

  std::unique_ptr<clang::CFG> Graph;
  clang::ParentMap &PM;
  std::vector<std::vector<unsigned>> Succ, Pred;
  std::vector<unsigned> EntryNodes; // the first nodes of the body
  llvm::BitVector Leaving;          // nodes after which the body returns
  llvm::DenseMap<const clang::Stmt *, unsigned> NodeOf;
  llvm::DenseMap<const clang::Stmt *, Nodes> Spans;
  std::map<std::pair<const clang::Stmt *, const clang::Stmt *>, llvm::BitVector> Intervals;
  llvm::DenseMap<const clang::Stmt *, llvm::BitVector> Reached, AvoidingFromEntry;
};

} // namespace tma::analysis
