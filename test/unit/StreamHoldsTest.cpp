// What holds a stream and what lets it go (lib/analysis/core/StreamHolds.h)
// on small CUDA functions: a kernel that only waits for a flag to become
// non-zero names the flag's parameter; any other body names none. A host
// function with no loop, jump or call cannot wait.
#include "../../lib/analysis/core/StreamHolds.h"

#include "clang/AST/Decl.h"
#include "clang/Tooling/Tooling.h"

#include <gtest/gtest.h>

using namespace clang;
using tma::analysis::cannotWait;
using tma::analysis::flagWaitParameter;

namespace {
class StreamHoldsTest : public ::testing::Test {
protected:
  const FunctionDecl *load(const std::string &Code, const std::string &Name) {
    AST = tooling::buildASTFromCodeWithArgs(
        "#define __global__ __attribute__((global))\n" + Code,
        {"-x", "cuda", "--cuda-host-only", "-nocudainc", "-nocudalib", "-std=c++17"}, "input.cu");
    if (!AST)
      return nullptr;
    for (const Decl *D : AST->getASTContext().getTranslationUnitDecl()->decls())
      if (const auto *F = dyn_cast<FunctionDecl>(D); F && F->getName() == Name && F->hasBody())
        return F;
    return nullptr;
  }
  std::unique_ptr<ASTUnit> AST;
};
} // namespace

TEST_F(StreamHoldsTest, AWaitForANonZeroFlagNamesItsParameter) {
  const FunctionDecl *K = load("__global__ void spin(int n, const volatile int *f) { while (!*f) {} }", "spin");
  ASSERT_TRUE(K);
  EXPECT_EQ(flagWaitParameter(K), std::optional<unsigned>(1));
  K = load("__global__ void spin(volatile int *f) { while (*f == 0); }", "spin");
  ASSERT_TRUE(K);
  EXPECT_EQ(flagWaitParameter(K), std::optional<unsigned>(0));
}

TEST_F(StreamHoldsTest, AnyOtherBodyNamesNone) {
  // A wait for another value, a kernel that also writes, a flag that is
  // not volatile (the loop may read it once).
  for (const char *Code : {"__global__ void spin(volatile int *f) { while (*f != 2) {} }",
                           "__global__ void spin(volatile int *f) { while (!*f) {} *f = 0; }",
                           "__global__ void spin(volatile int *f) { while (!*f) { f[1] = 1; } }",
                           "__global__ void spin(const int *f) { while (!*f) {} }"}) {
    const FunctionDecl *K = load(Code, "spin");
    ASSERT_TRUE(K) << Code;
    EXPECT_EQ(flagWaitParameter(K), std::nullopt) << Code;
  }
}

TEST_F(StreamHoldsTest, AHostFunctionWithoutLoopsOrCallsCannotWait) {
  const FunctionDecl *F = load("struct Job { int *p; int v; };\n"
                               "void later(void *q) { Job *j = static_cast<Job *>(q); *j->p = j->v; delete j; }",
                               "later");
  ASSERT_TRUE(F);
  EXPECT_TRUE(cannotWait(F));
  F = load("void block(); void later(void *) { block(); }", "later");
  ASSERT_TRUE(F);
  EXPECT_FALSE(cannotWait(F));
  F = load("void later(void *q) { while (!*static_cast<volatile int *>(q)) {} }", "later");
  ASSERT_TRUE(F);
  EXPECT_FALSE(cannotWait(F));
}
