// The facts of a TU written as JSON and read back are the same facts: every
// field is set to a value of its own, so a field that toJSON or fromJSON
// leaves out shows as a difference.
#include "tma/FactsCache.h"
#include "tma/FactsJson.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace tma;

namespace {

SourcePoint point(const std::string &File, unsigned N) { return {File, N, N + 1, N + 2}; }

Blocker blocker(unsigned N) {
  // A different row and message each time, so a field read into another
  // blocker's place shows.
  const ReasonInfo &Row = allReasons()[N % allReasons().size()];
  Blocker B(Row.ID, {"arg " + std::to_string(N)}, point("/b.cu", N),
            {{"note " + std::to_string(N), point("/n.cu", N + 5)}});
  B.Message = "blocker " + std::to_string(N);
  return B;
}

TextEdit edit(unsigned N) { return {"/e.cu", N, N + 3, "text " + std::to_string(N)}; }

SourceSpan span(unsigned N) { return {point("/s.cu", N), N + 40}; }

LaunchSite launch(unsigned N) {
  LaunchSite L;
  L.ParamKey = "launch-param-" + std::to_string(N);
  L.KernelName = "k" + std::to_string(N);
  L.Where = point("/l.cu", N);
  L.Edits = {edit(N)};
  L.BufferKey = "buffer-key";
  L.HostDescriptor = "host_map";
  L.Blockers = {blocker(N + 1)};
  L.ReliesOn = {span(N + 2)};
  L.LauncherKey = "launcher-key";
  L.UnlessLaunchers = {{"unless-key", blocker(N + 3)}};
  L.ArrayCount = 4;
  return L;
}

PassFacts pass(const std::string &Side) {
  PassFacts P;
  P.Side = Side;
  DescriptorParam D;
  D.Key = "c:@F@k#0";
  D.KernelName = "ns::k<int>";
  D.ParamName = "map";
  D.Index = 2;
  D.Where = point("/k.cu", 10);
  D.DefinitionSeen = true;
  D.ExternallyVisible = false;
  D.FromConstant = true;
  D.Edits = {edit(1), edit(2)};
  D.FencesRemoved = {point("/k.cu", 30)};
  D.Blockers = {blocker(4)};
  D.ReliesOn = {span(5)};
  D.Array.Candidate = true;
  D.Array.Edits = {edit(20)};
  D.Array.FencesRemoved = {point("/k.cu", 31)};
  D.Array.Blockers = {blocker(21)};
  D.Array.ScalarBlockers = {blocker(22)};
  D.Array.Layout = {{8, 8}, {0, 128}};
  D.Array.Slot = 1;
  D.Array.ParamSpaceLimit = 4096;
  P.Params = {D};
  P.Launches = {launch(6)};
  DeviceBuffer B;
  B.Key = "/h.cu:99";
  B.Name = "d";
  B.Where = point("/h.cu", 99);
  B.Kind = BufferKind::Retargeted;
  B.Storages = {"storage-a"};
  B.ValueName = "d_value";
  B.ValueSkipsLateCopies = true;
  HostUse U;
  U.Kind = HostUseKind::Free;
  U.Where = point("/h.cu", 120);
  U.What = "cudaFree";
  U.Removal = {edit(7)};
  U.ParamKey = "use-param";
  U.SharedWith = {"other-var"};
  U.LauncherKey = "use-launcher";
  B.Uses = {U};
  P.Buffers = {B};
  P.ParamBlockers = {{"pb-key", blocker(8)}};
  P.ParamSpans = {{"ps-key", span(9)}};
  P.TiedParams = {{{"tied-a", "tied-b"}, {"tied here", point("/t.cu", 3)}}};
  LauncherForward F;
  F.LauncherKey = "c:@F@launch#1";
  F.ParamKey = "fwd-param";
  F.LauncherName = "launch";
  F.Edits = {edit(10)};
  F.Body = span(11);
  F.LocalCalls = 3;
  F.CalledElsewhere = {blocker(12)};
  F.Uncalled = launch(13);
  P.Launchers = {F};
  P.StorageVetoes = {{"veto-key", blocker(14)}};
  return P;
}

TUFacts sampleUnit() {
  TUFacts U;
  TUStatus &S = U.Status;
  S.File = "/src/k.cu";
  S.Compile.CudaPath = "/usr/local/cuda";
  S.Compile.CudaVersion = 13000;
  S.Compile.NvccMacros = false;
  S.Compile.GpuArch = "sm_100a";
  S.Compile.ExtraArgs = {"-I/inc", "-DX=1"};
  S.Notes = {"a note"};
  S.Failed = true;
  S.FailMessage = "it failed";
  CompilerError E{"unknown type", point("/src/k.cu", 50), /*InMacro=*/true, /*DiagID=*/1234,
                  /*Contained=*/true};
  S.Errors = {E};
  S.MayHide = {E};
  S.Deps = {"/src/k.cu", "/inc/h.cuh"};
  S.Aliases = {{"/inc/h.cuh", {"/link/h.cuh", "/inc/../inc/h.cuh"}}};
  S.Skipped = true;
  S.PrefilterReason = "it spells CUtensorMap";
  S.PrefilterFiles = {"/src/k.cu"};
  U.Passes = {pass("device"), pass("host")};
  U.SecondRound = true;
  U.Inputs.Key = "0123abcd";
  U.Inputs.Files = {{"/src/k.cu", "ffee"}, {"/gone.h", ""}};
  return U;
}

} // namespace

TEST(FactsJson, RoundTripKeepsEveryField) {
  TUFacts U = sampleUnit();
  std::string Text = factsToJson(U);
  llvm::Expected<TUFacts> Back = factsFromJson(Text);
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_EQ(factsToJson(*Back), Text);
  // Values that only a field of their own carries, read back.
  const PassFacts &P = Back->Passes[1];
  EXPECT_EQ(P.Side, "host");
  EXPECT_EQ(P.Params[0].KernelName, "ns::k<int>");
  EXPECT_TRUE(P.Params[0].FromConstant);
  EXPECT_FALSE(P.Params[0].ExternallyVisible);
  EXPECT_TRUE(P.Params[0].Array.Candidate);
  EXPECT_EQ(P.Params[0].Array.Layout[1].Align, 128u);
  EXPECT_EQ(P.Params[0].Array.Slot, 1u);
  EXPECT_EQ(P.Params[0].Array.ParamSpaceLimit, 4096u);
  EXPECT_EQ(P.Params[0].Array.ScalarBlockers[0].Message, "blocker 22");
  EXPECT_EQ(P.Launches[0].ArrayCount, 4u);
  EXPECT_EQ(P.Params[0].Blockers[0].Reason, allReasons()[4 % allReasons().size()].ID);
  EXPECT_EQ(P.Params[0].Blockers[0].ID, allReasons()[4 % allReasons().size()].Diag);
  EXPECT_EQ(P.Params[0].Blockers[0].Message, "blocker 4");
  EXPECT_EQ(P.Buffers[0].Kind, BufferKind::Retargeted);
  EXPECT_EQ(P.Buffers[0].Uses[0].Kind, HostUseKind::Free);
  EXPECT_EQ(P.Buffers[0].ValueName, "d_value");
  EXPECT_TRUE(P.Buffers[0].ValueSkipsLateCopies);
  EXPECT_EQ(P.TiedParams[0].first, (std::vector<std::string>{"tied-a", "tied-b"}));
  EXPECT_EQ(P.Launchers[0].Uncalled.UnlessLaunchers[0].first, "unless-key");
  EXPECT_EQ(P.Launchers[0].LocalCalls, 3u);
  EXPECT_EQ(P.StorageVetoes[0].second.Message, "blocker 14");
  EXPECT_EQ(Back->Status.Compile.ExtraArgs, U.Status.Compile.ExtraArgs);
  EXPECT_FALSE(Back->Status.Compile.NvccMacros);
  EXPECT_EQ(Back->Status.Errors[0].DiagID, 1234u);
  EXPECT_TRUE(Back->Status.Errors[0].InMacro);
  EXPECT_EQ(Back->Status.Aliases, U.Status.Aliases);
  EXPECT_TRUE(Back->SecondRound);
  EXPECT_EQ(Back->Inputs.Files, U.Inputs.Files);
}

TEST(FactsJson, DefaultFactsRoundTrip) {
  TUFacts U;
  U.Status.File = "/x.cu";
  llvm::Expected<TUFacts> Back = factsFromJson(factsToJson(U));
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_EQ(Back->Status.File, "/x.cu");
  EXPECT_TRUE(Back->Passes.empty());
  EXPECT_EQ(Back->Passes.size(), 0u);
}

TEST(FactsJson, RejectsOtherVersionsAndDamage) {
  std::string Text = factsToJson(sampleUnit());
  std::string Version = "\"version\": " + std::to_string(FactsFormatVersion);
  ASSERT_NE(Text.find(Version), std::string::npos);
  std::string Newer = Text;
  Newer.replace(Newer.find(Version), Version.size(), "\"version\": 999");
  llvm::Expected<TUFacts> FromNewer = factsFromJson(Newer);
  ASSERT_FALSE(bool(FromNewer));
  EXPECT_NE(llvm::toString(FromNewer.takeError()).find("version 999"), std::string::npos);

  std::string UnknownDiag = Text;
  UnknownDiag.replace(UnknownDiag.find("\"tma-103\""), 9, "\"tma-999\"");
  llvm::Expected<TUFacts> FromUnknown = factsFromJson(UnknownDiag);
  EXPECT_FALSE(bool(FromUnknown));
  llvm::consumeError(FromUnknown.takeError());

  std::string Missing = Text;
  Missing.replace(Missing.find("\"localCalls\""), 12, "\"localCallz\"");
  llvm::Expected<TUFacts> FromMissing = factsFromJson(Missing);
  EXPECT_FALSE(bool(FromMissing));
  llvm::consumeError(FromMissing.takeError());

  llvm::Expected<TUFacts> FromGarbage = factsFromJson("{ not json");
  EXPECT_FALSE(bool(FromGarbage));
  llvm::consumeError(FromGarbage.takeError());
}

namespace {
std::string tempDir() {
  llvm::SmallString<128> Dir;
  EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("facts-cache-test", Dir));
  return std::string(Dir);
}
void writeFile(const std::string &Path, llvm::StringRef Text) {
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path, EC);
  ASSERT_FALSE(EC);
  OS << Text;
}
} // namespace

TEST(FactsCache, FingerprintFollowsContentOfEveryFile) {
  std::string Dir = tempDir();
  std::string Main = Dir + "/a.cu", Header = Dir + "/a.cuh";
  writeFile(Main, "#include \"a.cuh\"\n");
  writeFile(Header, "int x;\n");
  TUStatus TU;
  TU.File = Main;
  TU.Deps = {Main, Header};
  FileHashes Before;
  InputFingerprint F = fingerprintOf("key", TU, Before);
  EXPECT_EQ(F.Files.size(), 2u);
  FileHashes Same;
  EXPECT_TRUE(fingerprintHolds(F, Same));
  writeFile(Header, "int y;\n"); // same size, other content
  FileHashes After;
  EXPECT_FALSE(fingerprintHolds(F, After));
  llvm::sys::fs::remove_directories(Dir);
}

TEST(FactsCache, KeyFollowsFlagsAndOptions) {
  TUInput In;
  In.File = "/src/a.cu";
  In.Compile.ExtraArgs = {"-DA=1"};
  EngineOptions Opts;
  std::string Key = factsKey(In, Opts, true);
  EXPECT_EQ(factsKey(In, Opts, true), Key);
  EXPECT_NE(factsKey(In, Opts, false), Key);
  TUInput OtherFlags = In;
  OtherFlags.Compile.ExtraArgs = {"-DA=2"};
  EXPECT_NE(factsKey(OtherFlags, Opts, true), Key);
  EngineOptions Whole = Opts;
  Whole.Analysis.Scope = ProgramScope::Whole;
  EXPECT_NE(factsKey(In, Whole, true), Key);
  EngineOptions Strict = Opts;
  Strict.Strict = true;
  EXPECT_NE(factsKey(In, Strict, true), Key);
}

TEST(FactsCache, CachedFactsAreUsedOnlyWhileInputsHold) {
  std::string Dir = tempDir();
  std::string Main = Dir + "/a.cu";
  writeFile(Main, "int a;\n");
  TUFacts U;
  U.Status.File = Main;
  U.Passes = {pass("device")};
  FileHashes Hashes;
  U.Inputs = fingerprintOf("key-1", U.Status, Hashes);
  ASSERT_FALSE(bool(writeFactsFile(Dir + "/" + factsFileName(Main), U)));
  FileHashes Now;
  std::optional<TUFacts> Hit = loadCachedFacts(Dir, Main, "key-1", true, Now);
  ASSERT_TRUE(Hit.has_value());
  EXPECT_EQ(Hit->Passes.size(), 1u);
  EXPECT_FALSE(loadCachedFacts(Dir, Main, "key-2", true, Now).has_value());
  EXPECT_FALSE(loadCachedFacts(Dir, Main, "key-1", false, Now).has_value());
  writeFile(Main, "int b;\n");
  FileHashes Edited;
  EXPECT_FALSE(loadCachedFacts(Dir, Main, "key-1", true, Edited).has_value());
  llvm::sys::fs::remove_directories(Dir);
}

TEST(FactsCache, ShardsPartitionTheSources) {
  std::vector<TUInput> All(7);
  for (size_t I = 0; I < All.size(); ++I)
    All[I].File = "/s" + std::to_string(I) + ".cu";
  std::vector<std::string> Seen;
  for (unsigned K = 1; K <= 3; ++K)
    for (const TUInput &In : shardOf(All, K, 3))
      Seen.push_back(In.File);
  EXPECT_EQ(Seen.size(), All.size());
  llvm::sort(Seen);
  EXPECT_EQ(std::unique(Seen.begin(), Seen.end()), Seen.end());
  EXPECT_EQ(shardOf(All, 1, 3).size(), 3u);
  EXPECT_EQ(shardOf(All, 3, 3).size(), 2u);
}
