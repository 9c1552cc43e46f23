#include "tma/AsmClassifier.h"

#include <gtest/gtest.h>

using namespace tma;

TEST(AsmClassifier, AcquireFenceAloneIsRemovable) {
  for (const char *Scope : {"cta", "cluster", "gpu", "sys"}) {
    std::string Asm = std::string("fence.proxy.tensormap::generic.acquire.") + Scope + " [%0], 128;";
    AsmOperandUse U = classifyAsmOperand(Asm, 0);
    EXPECT_EQ(U.Role, AsmOperandRole::AcquireFence) << Scope;
    EXPECT_TRUE(U.SoleAcquireFence) << Scope;
  }
}

TEST(AsmClassifier, AcquireFenceOnAnotherOperandDoesNotCount) {
  AsmOperandUse U = classifyAsmOperand("fence.proxy.tensormap::generic.acquire.gpu [%1], 128;", 0);
  EXPECT_EQ(U.Role, AsmOperandRole::NotReferenced);
}

TEST(AsmClassifier, NamedOperands) {
  AsmOperandUse U = classifyAsmOperand(
      "fence.proxy.tensormap::generic.acquire.gpu [%[map]], 128;", 3, "map");
  EXPECT_EQ(U.Role, AsmOperandRole::AcquireFence);
}

TEST(AsmClassifier, FenceMixedWithOtherPtxIsNotSole) {
  AsmOperandUse U = classifyAsmOperand(
      "fence.proxy.tensormap::generic.acquire.gpu [%0], 128;\n\tprefetch.tensormap [%0];", 0);
  EXPECT_EQ(U.Role, AsmOperandRole::AcquireFence);
  EXPECT_FALSE(U.SoleAcquireFence);
}

TEST(AsmClassifier, TmaInstructionsRead) {
  for (const char *Asm :
       {"cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
        "[%0], [%1, {%2, %3}], [%4];",
        "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%1, {%2, %3}], [%0];",
        "cp.reduce.async.bulk.tensor.1d.global.shared::cta.add.tile.bulk_group [%1, {%2}], [%0];",
        "cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%1, {%2, %3}];",
        "prefetch.tensormap [%1];"}) {
    EXPECT_EQ(classifyAsmOperand(Asm, 1).Role, AsmOperandRole::TensorRead) << Asm;
  }
}

TEST(AsmClassifier, OnlyTheTensorMapOperandOfTmaReads) {
  // Shared memory, barriers and coordinates of a TMA instruction are not
  // the tensor map: a descriptor there is not a known use.
  const char *Load = "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
                     "[%0], [%1, {%2, %3}], [%4];";
  for (unsigned I : {0u, 2u, 4u})
    EXPECT_EQ(classifyAsmOperand(Load, I).Role, AsmOperandRole::Unknown) << I;
  const char *Store = "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];";
  EXPECT_EQ(classifyAsmOperand(Store, 0).Role, AsmOperandRole::TensorRead);
  EXPECT_EQ(classifyAsmOperand(Store, 1).Role, AsmOperandRole::Unknown);
  EXPECT_EQ(classifyAsmOperand("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group "
                               "[ %[map] , {%1}], [%0];",
                               2, "map")
                .Role,
            AsmOperandRole::TensorRead);
  EXPECT_EQ(classifyAsmOperand("prefetch.tensormap [%0, 8];", 0).Role, AsmOperandRole::Unknown);
}

TEST(AsmClassifier, WritesAreRecognised) {
  EXPECT_EQ(classifyAsmOperand("tensormap.replace.tile.global_address.global.b1024.b64 [%0], %1;", 0).Role,
            AsmOperandRole::Write);
  EXPECT_EQ(classifyAsmOperand("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic."
                               "release.gpu.sync.aligned [%0], [%1], 128;",
                               0)
                .Role,
            AsmOperandRole::Write);
  EXPECT_EQ(classifyAsmOperand("st.global.b64 [%0], %1;", 0).Role, AsmOperandRole::Write);
  EXPECT_EQ(classifyAsmOperand("fence.proxy.tensormap::generic.release.gpu [%0], 128;", 0).Role,
            AsmOperandRole::AcquireFence == AsmOperandRole::Write ? AsmOperandRole::AcquireFence
                                                                  : AsmOperandRole::Write);
}

TEST(AsmClassifier, UnknownInstructionIsNotAssumedSafe) {
  AsmOperandUse U = classifyAsmOperand("ld.global.u64 %0, [%1];", 1);
  EXPECT_EQ(U.Role, AsmOperandRole::Unknown);
  EXPECT_EQ(U.Instruction, "ld.global.u64 %0, [%1]");
}

TEST(AsmClassifier, OperandNumbersDoNotMatchPrefixes) {
  // %1 must not match %10; %%1 is a literal.
  EXPECT_EQ(classifyAsmOperand("st.global.b32 [%10], %2;", 1).Role, AsmOperandRole::NotReferenced);
  EXPECT_EQ(classifyAsmOperand("mov.u32 %0, %%1;", 1).Role, AsmOperandRole::NotReferenced);
}

TEST(AsmClassifier, SplitStripsCommentsPredicatesAndScopes) {
  std::vector<std::string> I = splitPtxInstructions(
      "{\n .reg .pred p; // a comment\n @p prefetch.tensormap [%0];\n /* x */ L1: bra L1; }");
  ASSERT_EQ(I.size(), 2u);
  EXPECT_EQ(I[0], "prefetch.tensormap [%0]");
  EXPECT_EQ(I[1], "bra L1");
}
