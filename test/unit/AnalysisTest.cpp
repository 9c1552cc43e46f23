// The engine on small in-memory programs with the real CUDA headers: use
// classification and host tracing, checked through the facts of each pass.
#include <algorithm>
#include "tma/Engine.h"

#include "llvm/Support/FileSystem.h"

#include <gtest/gtest.h>

using namespace tma;

namespace {
class AnalysisTest : public ::testing::Test {
protected:
  void SetUp() override {
    CudaInstallation C = findCuda("");
    if (C.Path.empty())
      GTEST_SKIP() << C.Error;
    Opts.Compile.CudaPath = C.Path;
  }
  PassFacts facts(CudaSide Side, const std::string &Code) {
    std::string File = "/virtual/test.cu";
    PassRun R = runPass(Side, File, {{File, "#include <cuda.h>\n#include <cuda_runtime.h>\n" + Code}},
                        Opts.Compile, Opts, /*Analyze=*/true);
    EXPECT_TRUE(R.Ran);
    for (const CompilerError &E : R.Errors)
      ADD_FAILURE() << "unexpected compiler error: " << E.Message;
    return R.Facts;
  }
  EngineOptions Opts;
};
} // namespace

TEST_F(AnalysisTest, ReadOnlyParamHasNoBlockersAndAnAddressEdit) {
  PassFacts F = facts(CudaSide::Device, R"(
    __global__ void k(const CUtensorMap* p) {
      asm volatile("prefetch.tensormap [%0];" :: "l"(p) : "memory");
    })");
  ASSERT_EQ(F.Params.size(), 1u);
  EXPECT_TRUE(F.Params[0].Blockers.empty());
  EXPECT_TRUE(F.Params[0].DefinitionSeen);
  bool HasAmp = false;
  for (const TextEdit &E : F.Params[0].Edits)
    HasAmp |= E.Text == "&" && E.Length == 0;
  EXPECT_TRUE(HasAmp);
}

TEST_F(AnalysisTest, DeviceOnlyCodeIsSeenOnlyByTheDevicePass) {
  std::string Code = R"(
    __global__ void k(const CUtensorMap* p) {
    #ifdef __CUDA_ARCH__
      asm volatile("tensormap.replace.tile.global_address.global.b1024.b64 [%0], %1;" :: "l"(p), "l"(0ull));
    #endif
    })";
  PassFacts Device = facts(CudaSide::Device, Code);
  PassFacts Host = facts(CudaSide::Host, Code);
  ASSERT_EQ(Device.Params.size(), 1u);
  ASSERT_EQ(Host.Params.size(), 1u);
  ASSERT_EQ(Device.Params[0].Blockers.size(), 1u);
  EXPECT_EQ(Device.Params[0].Blockers[0].ID, DiagID::DeviceWrite);
  EXPECT_TRUE(Host.Params[0].Blockers.empty());
  // Merged, the write refuses the descriptor.
  Plan P = makePlan({Device, Host}, {});
  EXPECT_FALSE(P.Params[0].Rewrite);
}

TEST_F(AnalysisTest, HelperBodiesAreFollowed) {
  PassFacts F = facts(CudaSide::Device, R"(
    __device__ void reads(const void* d) { asm volatile("prefetch.tensormap [%0];" :: "l"(d)); }
    __device__ void writes(const void* d) { asm volatile("st.global.b32 [%0], 1;" :: "l"(d)); }
    __global__ void ok(const CUtensorMap* p) { reads(p); }
    __global__ void bad(const CUtensorMap* p) { writes(p); })");
  ASSERT_EQ(F.Params.size(), 2u);
  for (const DescriptorParam &P : F.Params) {
    if (P.KernelName == "ok")
      EXPECT_TRUE(P.Blockers.empty());
    else {
      ASSERT_FALSE(P.Blockers.empty());
      EXPECT_EQ(P.Blockers[0].ID, DiagID::DeviceWrite);
      ASSERT_FALSE(P.Blockers[0].Notes.empty()) << "the note points at the call";
    }
  }
}

TEST_F(AnalysisTest, LaunchTracesTheHostDescriptor) {
  PassFacts F = facts(CudaSide::Host, R"(
    __global__ void k(const CUtensorMap* p) { asm volatile("prefetch.tensormap [%0];" :: "l"(p)); }
    void run() {
      struct { CUtensorMap maps[2]; } s{};
      CUtensorMap* d;
      cudaMalloc(&d, sizeof(CUtensorMap));
      cudaMemcpy(d, &s.maps[1], sizeof(CUtensorMap), cudaMemcpyHostToDevice);
      k<<<1, 1>>>(d);
      cudaFree(d);
    })");
  ASSERT_EQ(F.Launches.size(), 1u);
  EXPECT_TRUE(F.Launches[0].Blockers.empty());
  EXPECT_EQ(F.Launches[0].HostDescriptor, "s.maps[1]");
  ASSERT_EQ(F.Buffers.size(), 1u);
  unsigned Removable = 0;
  for (const HostUse &U : F.Buffers[0].Uses)
    Removable += !U.Removal.empty();
  EXPECT_EQ(Removable, 4u) << "declaration, allocation, copy and free";
}

// A copy under an `if` does not reach the launch, so the H1 flow cannot pass
// the host descriptor; the storage rule keeps the copy where it is, as an
// assignment into host memory, and the launch passes *d: one retargeted
// buffer whose allocation and copy carry their edits.
TEST_F(AnalysisTest, CopyInsideAnIfIsRetargeted) {
  PassFacts F = facts(CudaSide::Host, R"(
    __global__ void k(const CUtensorMap* p) { asm volatile("prefetch.tensormap [%0];" :: "l"(p)); }
    void run(bool fresh, CUtensorMap h) {
      CUtensorMap* d;
      cudaMalloc(&d, sizeof(CUtensorMap));
      if (fresh)
        cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
      k<<<1, 1>>>(d);
    })");
  ASSERT_EQ(F.Launches.size(), 1u);
  EXPECT_TRUE(F.Launches[0].Blockers.empty());
  ASSERT_EQ(F.Launches[0].Edits.size(), 1u);
  EXPECT_EQ(F.Launches[0].Edits[0].Text, "*d");
  const DeviceBuffer *B = nullptr;
  for (const DeviceBuffer &Buf : F.Buffers)
    if (Buf.Key == F.Launches[0].BufferKey)
      B = &Buf;
  ASSERT_NE(B, nullptr);
  EXPECT_EQ(B->Kind, BufferKind::Retargeted);
  std::vector<std::string> Texts;
  for (const HostUse &U : B->Uses)
    for (const TextEdit &E : U.Removal)
      Texts.push_back(E.Text);
  EXPECT_NE(std::find(Texts.begin(), Texts.end(), "d = new CUtensorMap"), Texts.end());
  EXPECT_NE(std::find(Texts.begin(), Texts.end(), "*d = h"), Texts.end());
}

// One use the storage rule cannot classify (a device-to-host copy) keeps
// the flow's refusal, with a note that names it.
TEST_F(AnalysisTest, UnclassifiedUseKeepsTheRefusal) {
  PassFacts F = facts(CudaSide::Host, R"(
    __global__ void k(const CUtensorMap* p) { asm volatile("prefetch.tensormap [%0];" :: "l"(p)); }
    void run(bool fresh, CUtensorMap h) {
      CUtensorMap* d;
      cudaMalloc(&d, sizeof(CUtensorMap));
      if (fresh)
        cudaMemcpy(d, &h, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
      cudaMemcpy(&h, d, sizeof(CUtensorMap), cudaMemcpyDeviceToHost);
      k<<<1, 1>>>(d);
    })");
  ASSERT_EQ(F.Launches.size(), 1u);
  ASSERT_FALSE(F.Launches[0].Blockers.empty());
  EXPECT_EQ(F.Launches[0].Blockers[0].ID, DiagID::HostNotTraceable);
  bool Named = false;
  for (const Note &N : F.Launches[0].Blockers[0].Notes)
    Named |= N.Message.find("storage.unclassified-use") != std::string::npos &&
             N.Message.find("copied from here") != std::string::npos;
  EXPECT_TRUE(Named);
}

// Each compiler error is marked contained or not by the pass that saw it.
TEST_F(AnalysisTest, ErrorsNamingNoDescriptorAreContained) {
  std::string File = "/virtual/errors.cu";
  std::string Code = R"(#include <cuda.h>
#define USES_MAP(id) asm volatile("mov.u32 %0, %clusterid.y; prefetch.tensormap [%1];" : "=r"(id) : "l"(map))
struct Holder { const CUtensorMap *held; };
__global__ void k(const CUtensorMap *map, unsigned *out, Holder h) {
  unsigned a, b, c, d;
  asm volatile("mov.u32 %0, %clusterid.x;" : "=r"(a));
  asm volatile("mov.u32 %0, %clusterid.z; prefetch.tensormap [%1];" : "=r"(b) : "l"(map));
  USES_MAP(c);
  asm volatile("mov.u32 %0, %clusterid.w; prefetch.tensormap [%1];" : "=r"(d) : "l"(h.held));
  out[0] = a + b + c + d;
}
)";
  PassRun R = runPass(CudaSide::Device, File, {{File, Code}}, Opts.Compile, Opts, /*Analyze=*/true);
  ASSERT_TRUE(R.Ran);
  std::map<unsigned, bool> ContainedByLine;
  for (const CompilerError &E : R.Errors)
    ContainedByLine[E.Where.Line] = E.Contained;
  ASSERT_EQ(ContainedByLine.size(), 4u);
  EXPECT_TRUE(ContainedByLine[6]);  // names nothing that carries a descriptor
  EXPECT_FALSE(ContainedByLine[7]); // names the parameter
  EXPECT_FALSE(ContainedByLine[8]); // a project macro (whose body names it)
  EXPECT_FALSE(ContainedByLine[9]); // names a field whose type mentions CUtensorMap
}
