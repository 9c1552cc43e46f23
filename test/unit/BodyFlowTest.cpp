// The paths of a body (lib/analysis/core/BodyFlow.h) on small C++ bodies:
// "between", "dominates", "reaches" and "reachesAvoiding" follow goto,
// switch, loops and try, not the order of the text.
#include "../../lib/analysis/core/BodyFlow.h"

#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Tooling/Tooling.h"

#include <gtest/gtest.h>

using namespace clang;
using tma::analysis::BodyFlow;

namespace {
/// The calls of `run`, by callee name in the order of the text
/// (`copy`, `launch`, `write`; the n-th of each).
struct Calls : RecursiveASTVisitor<Calls> {
  std::map<std::string, std::vector<const CallExpr *>> ByName;
  bool VisitCallExpr(CallExpr *C) {
    if (const FunctionDecl *F = C->getDirectCallee())
      ByName[F->getNameAsString()].push_back(C);
    return true;
  }
};

class BodyFlowTest : public ::testing::Test {
protected:
  void load(const std::string &Body) {
    C = Calls();
    Flow.reset();
    PM.reset();
    AST = tooling::buildASTFromCodeWithArgs(
        "void copy(); void launch(); void write(); void wait(); bool cond();\nvoid run(int x) {\n" + Body +
            "\n}\n",
        {"-std=c++17", "-fexceptions", "-fcxx-exceptions"});
    ASSERT_TRUE(AST);
    for (const Decl *D : AST->getASTContext().getTranslationUnitDecl()->decls())
      if (const auto *F = dyn_cast<FunctionDecl>(D); F && F->getName() == "run" && F->hasBody())
        Run = F;
    ASSERT_TRUE(Run);
    PM = std::make_unique<ParentMap>(Run->getBody());
    Flow = BodyFlow::build(Run, *PM);
    ASSERT_TRUE(Flow);
    C.TraverseDecl(const_cast<FunctionDecl *>(Run));
  }
  const Stmt *call(const std::string &Name, unsigned N = 0) { return C.ByName[Name].at(N); }
  std::unique_ptr<ASTUnit> AST;
  const FunctionDecl *Run = nullptr;
  std::unique_ptr<ParentMap> PM;
  std::unique_ptr<BodyFlow> Flow;
  Calls C;
};
} // namespace

TEST_F(BodyFlowTest, StraightLineIsTheText) {
  load("copy(); write(); launch(); write();");
  EXPECT_TRUE(Flow->between(call("copy"), call("launch"), call("write", 0)));
  EXPECT_FALSE(Flow->between(call("copy"), call("launch"), call("write", 1)));
  EXPECT_TRUE(Flow->dominates(call("copy"), call("launch")));
}

TEST_F(BodyFlowTest, DominatedByAnyOfSeveral) {
  // Each branch copies before the launch: neither copy alone comes first
  // on every path, the two together do; a path with no copy does not.
  load("if (x) copy(); else copy(); launch(); if (x) copy(); launch();");
  EXPECT_FALSE(Flow->dominates(call("copy", 0), call("launch", 0)));
  EXPECT_TRUE(Flow->dominatedBy({call("copy", 0), call("copy", 1)}, call("launch", 0)));
  EXPECT_TRUE(Flow->dominatedBy({call("copy", 0), call("copy", 1)}, call("launch", 1)));
  EXPECT_FALSE(Flow->dominatedBy({call("copy", 2)}, call("launch", 1)));
  EXPECT_FALSE(Flow->dominatedBy({}, call("launch", 0)));
}

TEST_F(BodyFlowTest, AGotoSkipsTheReCopy) {
  load("copy(); launch(); write(); if (x) goto again; copy(); again: launch();");
  EXPECT_FALSE(Flow->dominates(call("copy", 1), call("launch", 1)));
  EXPECT_TRUE(Flow->dominates(call("copy", 0), call("launch", 1)));
  EXPECT_TRUE(Flow->between(call("copy", 0), call("launch", 1), call("write")));
  // Past the re-copy nothing of the first interval is between.
  EXPECT_FALSE(Flow->between(call("copy", 1), call("launch", 1), call("write")));
}

TEST_F(BodyFlowTest, ALabelMakesALoop) {
  load("copy(); again: launch(); write(); if (cond()) goto again;");
  EXPECT_TRUE(Flow->between(call("copy"), call("launch"), call("write")));
  EXPECT_TRUE(Flow->reaches(call("write"), call("launch")));
}

TEST_F(BodyFlowTest, ALoopThatCopiesFirstIsSafe) {
  load("for (int i = 0; i < x; ++i) { write(); copy(); launch(); }");
  EXPECT_FALSE(Flow->between(call("copy"), call("launch"), call("write")));
  EXPECT_TRUE(Flow->reaches(call("launch"), call("write")));
}

TEST_F(BodyFlowTest, ALoopAroundTheLaunchOnly) {
  load("copy(); for (int i = 0; i < x; ++i) { launch(); write(); }");
  EXPECT_TRUE(Flow->between(call("copy"), call("launch"), call("write")));
}

TEST_F(BodyFlowTest, ASwitchCaseEntersBelowTheCopy) {
  load("switch (x) { case 1: write(); copy(); [[fallthrough]]; case 2: launch(); break; }");
  EXPECT_FALSE(Flow->dominates(call("copy"), call("launch")));
  EXPECT_FALSE(Flow->between(call("copy"), call("launch"), call("write")));
}

TEST_F(BodyFlowTest, AThrowSkipsTheCopy) {
  load("try { write(); if (x) throw 1; copy(); } catch (int) {} launch();");
  EXPECT_FALSE(Flow->dominates(call("copy"), call("launch")));
}

TEST_F(BodyFlowTest, BranchesAreNotBetweenEachOther) {
  load("copy(); if (x) { launch(); } else { write(); launch(); }");
  EXPECT_FALSE(Flow->between(call("copy"), call("launch", 0), call("write")));
  EXPECT_TRUE(Flow->between(call("copy"), call("launch", 1), call("write")));
  EXPECT_FALSE(Flow->between(call("copy"), call("launch", 1), call("launch", 0)));
}

// Stream time: what may run while an operation waits for its host wait.
TEST_F(BodyFlowTest, AWaitEndsTheInterval) {
  load("launch(); write(); wait(); write();");
  const Stmt *Wait = call("wait");
  EXPECT_TRUE(Flow->reachesAvoiding(call("launch"), call("write", 0), {Wait}));
  EXPECT_FALSE(Flow->reachesAvoiding(call("launch"), call("write", 1), {Wait}));
  EXPECT_TRUE(Flow->reachesAvoiding(call("launch"), call("write", 1), {}));
  // The body returns only after the wait.
  EXPECT_FALSE(Flow->reachesAvoiding(call("launch"), nullptr, {Wait}));
  EXPECT_TRUE(Flow->reachesAvoiding(call("launch"), nullptr, {}));
}

TEST_F(BodyFlowTest, AWaitOnOneBranchDoesNotCover) {
  load("launch(); if (x) wait(); write();");
  EXPECT_TRUE(Flow->reachesAvoiding(call("launch"), call("write"), {call("wait")}));
}

TEST_F(BodyFlowTest, ALoopBringsAnEarlierWriteBack) {
  load("for (int i = 0; i < x; ++i) { write(); launch(); } wait();");
  EXPECT_TRUE(Flow->reachesAvoiding(call("launch"), call("write"), {call("wait")}));
}

TEST_F(BodyFlowTest, AWaitInTheLoopCoversTheNextRound) {
  load("for (int i = 0; i < x; ++i) { write(); launch(); wait(); }");
  EXPECT_FALSE(Flow->reachesAvoiding(call("launch"), call("write"), {call("wait")}));
}

TEST_F(BodyFlowTest, AnExceptionAcrossACallIsNotAReturn) {
  load("launch(); copy(); wait();");
  EXPECT_FALSE(Flow->reachesAvoiding(call("launch"), nullptr, {call("wait")}));
  load("launch(); if (x) return; wait();");
  EXPECT_TRUE(Flow->reachesAvoiding(call("launch"), nullptr, {call("wait")}));
}
