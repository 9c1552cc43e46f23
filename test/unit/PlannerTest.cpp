#include "tma/Planner.h"

#include <gtest/gtest.h>

using namespace tma;

namespace {
SourcePoint at(unsigned Off) { return {"/src/a.cu", Off, 1, Off + 1}; }
TextEdit edit(unsigned Off, unsigned Len, std::string Text) {
  return {"/src/a.cu", Off, Len, std::move(Text)};
}

/// One kernel with one descriptor, one launch through buffer 'd'.
PassFacts oneKernel(std::string Side) {
  PassFacts F;
  F.Side = Side;
  DescriptorParam P;
  P.Key = "c:@F@k#0";
  P.KernelName = "k";
  P.ParamName = "map";
  P.Where = at(10);
  P.DefinitionSeen = true;
  P.Edits = {edit(10, 20, "const __grid_constant__ CUtensorMap map"), edit(50, 0, "&")};
  F.Params.push_back(P);
  LaunchSite L;
  L.ParamKey = P.Key;
  L.Where = at(200);
  L.Edits = {edit(200, 1, "h")};
  L.BufferKey = "/src/a.cu:150";
  F.Launches.push_back(L);
  DeviceBuffer B;
  B.Key = L.BufferKey;
  B.Name = "d";
  B.Where = at(150);
  B.Uses = {{HostUseKind::Declaration, at(150), "decl", {edit(140, 20, "")}},
            {HostUseKind::Alloc, at(165), "cudaMalloc", {edit(160, 30, "")}},
            {HostUseKind::Launch, at(200), "launch", {}, P.Key}};
  F.Buffers.push_back(B);
  return F;
}
} // namespace

TEST(Planner, IdenticalEditsFromBothPassesMerge) {
  Plan P = makePlan({oneKernel("device"), oneKernel("host")}, {});
  ASSERT_EQ(P.Params.size(), 1u);
  EXPECT_TRUE(P.Params[0].Rewrite);
  ASSERT_EQ(P.Units.size(), 1u);
  // signature, '&', launch argument, declaration, allocation: each once.
  EXPECT_EQ(P.Units[0].Edits.size(), 5u);
  EXPECT_EQ(P.Units[0].LaunchesChanged, 1u);
  EXPECT_EQ(P.Units[0].AllocsRemoved, 1u);
}

TEST(Planner, BlockerInOnePassRefusesTheGroup) {
  PassFacts Host = oneKernel("host");
  PassFacts Device = oneKernel("device");
  Device.Params[0].Blockers.push_back(
      blockerFor(ReasonID::DeviceDescriptorWritten, {"*map = m"}, at(60)));
  Plan P = makePlan({Device, Host}, {});
  EXPECT_FALSE(P.Params[0].Rewrite);
  EXPECT_EQ(P.Params[0].Blockers.front().ID, DiagID::DeviceWrite);
  EXPECT_TRUE(P.editsByFile().empty()) << "a refused group edits nothing, launches included";
}

TEST(Planner, ConflictingEditsRefuseWithTma109) {
  PassFacts Device = oneKernel("device");
  PassFacts Host = oneKernel("host");
  Host.Params[0].Edits.push_back(edit(45, 10, "x")); // overlaps the '&' insertion at 50
  Plan P = makePlan({Device, Host}, {});
  EXPECT_FALSE(P.Params[0].Rewrite);
  EXPECT_EQ(P.Params[0].Blockers.front().ID, DiagID::Conflict);
  EXPECT_TRUE(P.editsByFile().empty());
}

TEST(Planner, PassesDisagreeingOnALaunchConflict) {
  PassFacts Device = oneKernel("device");
  PassFacts Host = oneKernel("host");
  Host.Launches[0].Edits = {edit(200, 1, "other")};
  Plan P = makePlan({Device, Host}, {});
  EXPECT_FALSE(P.Params[0].Rewrite);
  EXPECT_EQ(P.Params[0].Blockers.front().ID, DiagID::Conflict);
}

TEST(Planner, NoLaunchMeansNoRewrite) {
  PassFacts F = oneKernel("host");
  F.Launches.clear();
  Plan P = makePlan({F}, {});
  EXPECT_FALSE(P.Params[0].Rewrite);
  EXPECT_EQ(P.Params[0].Blockers.front().ID, DiagID::LaunchNotRewritable);
  EXPECT_EQ(P.Params[0].Blockers.front().Reason, ReasonID::PlanNoLaunch);
}

TEST(Planner, BufferWithAnotherUseIsKept) {
  PassFacts F = oneKernel("host");
  F.Buffers[0].Uses.push_back({HostUseKind::Other, at(300), "cudaMemset", {}});
  Plan P = makePlan({F}, {});
  ASSERT_TRUE(P.Params[0].Rewrite);
  EXPECT_EQ(P.Units[0].Edits.size(), 3u) << "signature, '&', launch only";
  EXPECT_EQ(P.Units[0].AllocsRemoved, 0u);
  ASSERT_EQ(P.Units[0].LeftInPlace.size(), 1u);
}

TEST(Planner, DeviceCopySharedWithARefusedKernelRefusesEveryReader) {
  PassFacts F = oneKernel("host");
  DescriptorParam Q = F.Params[0];
  Q.Key = "c:@F@k2#0";
  Q.KernelName = "k2";
  Q.Edits = {edit(400, 20, "const __grid_constant__ CUtensorMap map")};
  Q.Blockers = {blockerFor(ReasonID::DeviceDescriptorWritten, {"*map = m"}, at(420))};
  F.Params.push_back(Q);
  LaunchSite L2 = F.Launches[0];
  L2.ParamKey = Q.Key;
  L2.Where = at(500);
  L2.Edits = {edit(500, 1, "h")};
  F.Launches.push_back(L2);
  F.Buffers[0].Uses.push_back({HostUseKind::Launch, at(500), "launch", {}, Q.Key});
  Plan P = makePlan({F}, {});
  // k2 writes the shared device copy on the device: k cannot read the host
  // descriptor instead, so it is refused too and nothing is edited.
  for (const ParamDecision &D : P.Params) {
    EXPECT_FALSE(D.Rewrite) << D.KernelName;
    if (D.KernelName == "k") {
      ASSERT_FALSE(D.Blockers.empty());
      EXPECT_EQ(D.Blockers.front().ID, DiagID::HostNotTraceable);
      EXPECT_EQ(D.Blockers.front().Reason, ReasonID::PlanSharedCopyKept);
    }
  }
  EXPECT_TRUE(P.Units.empty());
  EXPECT_TRUE(P.editsByFile().empty());
}

/// k and k2 both read one buffer; k2 is refused (it writes the descriptor).
PassFacts sharedWithRefusedKernel() {
  PassFacts F = oneKernel("host");
  DescriptorParam Q = F.Params[0];
  Q.Key = "c:@F@k2#0";
  Q.KernelName = "k2";
  Q.Edits = {edit(400, 20, "const __grid_constant__ CUtensorMap map")};
  Q.Blockers = {blockerFor(ReasonID::DeviceDescriptorWritten, {"*map = m"}, at(420))};
  F.Params.push_back(Q);
  F.Buffers[0].Uses.push_back({HostUseKind::Launch, at(500), "launch", {}, Q.Key});
  return F;
}

TEST(Planner, ConstantSymbolSharedWithARefusedKernelDoesNotSpread) {
  // __constant__ memory cannot change on the device: k still reads the host
  // descriptor. The planner goes by the kind, not by the key's spelling.
  PassFacts F = sharedWithRefusedKernel();
  F.Buffers[0].Kind = BufferKind::ConstantSymbol;
  Plan P = makePlan({F}, {});
  ASSERT_EQ(P.Params.size(), 2u);
  EXPECT_TRUE(P.Params[0].Rewrite) << P.Params[0].KernelName;
  EXPECT_FALSE(P.Params[1].Rewrite) << P.Params[1].KernelName;

  PassFacts G = sharedWithRefusedKernel();
  G.Buffers[0].Key = G.Launches[0].BufferKey = "constant:/src/a.cu:150";
  EXPECT_FALSE(makePlan({G}, {}).Params[0].Rewrite) << "a variable named like a symbol spreads";
}

TEST(Planner, OutsideInRootIsRefused) {
  PlanOptions O;
  O.InRoot = "/elsewhere";
  Plan P = makePlan({oneKernel("host")}, O);
  EXPECT_FALSE(P.Params[0].Rewrite);
  EXPECT_EQ(P.Params[0].Blockers.front().ID, DiagID::Declaration);
  EXPECT_EQ(P.Params[0].Blockers.front().Reason, ReasonID::PlanOutsideInRoot);
  EXPECT_EQ(P.Params[0].Blockers.front().Message,
            "'/src/a.cu' would be edited but is outside --in-root /elsewhere");
}

TEST(Planner, EditsConflict) {
  EXPECT_FALSE(editsConflict(edit(0, 5, "a"), edit(0, 5, "a")));
  EXPECT_TRUE(editsConflict(edit(0, 5, "a"), edit(4, 2, "b")));
  EXPECT_FALSE(editsConflict(edit(0, 5, "a"), edit(5, 2, "b")));
  EXPECT_TRUE(editsConflict(edit(3, 0, "&"), edit(3, 0, "*")));
  EXPECT_TRUE(editsConflict(edit(3, 0, "&"), edit(0, 10, "")));
  EXPECT_FALSE(editsConflict(edit(0, 0, "&"), edit(0, 10, "")));
}

namespace {
/// The kernel's TU: the launch inside launcher 'run' forwards its parameter.
PassFacts launcherDefinition(unsigned LocalCalls) {
  PassFacts F = oneKernel("host");
  F.Launches.clear();
  F.Buffers.clear();
  LauncherForward L;
  L.LauncherKey = "c:@F@run#0";
  L.ParamKey = "c:@F@k#0";
  L.LauncherName = "run";
  L.Edits = {edit(300, 1, "&"), {"/src/run.h", 40, 1, "&"}};
  L.LocalCalls = LocalCalls;
  L.Uncalled.ParamKey = L.ParamKey;
  L.Uncalled.Where = at(320);
  L.Uncalled.Blockers.push_back(blockerFor(ReasonID::LauncherNotCalled, {"run"}, at(290)));
  F.Launchers.push_back(L);
  return F;
}

/// A host-only TU calling 'run' with buffer 'd', through the same header.
PassFacts launcherCaller(std::string LauncherKey) {
  PassFacts F;
  F.Side = "host";
  LaunchSite L;
  L.LauncherKey = LauncherKey;
  L.Where = {"/src/main.cpp", 200, 9, 3};
  L.Edits = {{"/src/main.cpp", 200, 1, "h"}, {"/src/run.h", 40, 1, "&"}};
  L.BufferKey = "/src/main.cpp:150";
  F.Launches.push_back(L);
  DeviceBuffer B;
  B.Key = L.BufferKey;
  B.Name = "d";
  B.Where = {"/src/main.cpp", 150, 7, 3};
  HostUse Call{HostUseKind::Launch, L.Where, "call of launcher 'run'", {}, ""};
  Call.LauncherKey = LauncherKey;
  B.Uses = {{HostUseKind::Declaration, B.Where, "decl", {{"/src/main.cpp", 140, 20, ""}}},
            Call};
  F.Buffers.push_back(B);
  return F;
}
} // namespace

TEST(Planner, CallsOfALauncherInAnotherTUJoinItsKernel) {
  Plan P = makePlan({launcherDefinition(0), launcherCaller("c:@F@run#0")}, {});
  ASSERT_EQ(P.Params.size(), 1u);
  EXPECT_TRUE(P.Params[0].Rewrite);
  ASSERT_EQ(P.Units.size(), 1u);
  EXPECT_EQ(P.Units[0].LaunchesChanged, 1u);
  auto Edits = P.editsByFile();
  // The header's '&' is proposed by both TUs and applied once; the
  // caller's buffer goes.
  EXPECT_EQ(Edits["/src/run.h"].size(), 1u);
  EXPECT_EQ(Edits["/src/main.cpp"].size(), 2u);
}

TEST(Planner, ALauncherNoTUCallsStaysRefused) {
  Plan P = makePlan({launcherDefinition(0)}, {});
  ASSERT_EQ(P.Params.size(), 1u);
  EXPECT_FALSE(P.Params[0].Rewrite);
  EXPECT_EQ(P.Params[0].Blockers.front().Message,
            "launcher 'run' is not called in the given sources");
}

TEST(Planner, ACallOfAFunctionNoTUFollowsKeepsTheBuffer) {
  PassFacts Caller = launcherCaller("c:@F@other#0");
  Caller.Launches.push_back({});
  Caller.Launches.back().ParamKey = "c:@F@k#0";
  Caller.Launches.back().Where = {"/src/main.cpp", 260, 10, 3};
  Caller.Launches.back().Edits = {{"/src/main.cpp", 260, 1, "h"}};
  Caller.Buffers[0].Uses.push_back(
      {HostUseKind::Launch, Caller.Launches.back().Where, "launch", {}, "c:@F@k#0"});
  Plan P = makePlan({oneKernel("host"), Caller}, {});
  ASSERT_EQ(P.Units.size(), 1u);
  ASSERT_EQ(P.Units[0].LeftInPlace.size(), 1u) << "'other' may read the copy";
  EXPECT_EQ(P.editsByFile()["/src/main.cpp"].size(), 1u);
}
