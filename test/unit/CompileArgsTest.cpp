#include "tma/CompileArgs.h"

#include "llvm/Support/FileSystem.h"

#include <algorithm>
#include <gtest/gtest.h>

using namespace tma;

static bool has(const std::vector<std::string> &V, const std::string &S) {
  return std::find(V.begin(), V.end(), S) != V.end();
}

TEST(CompileArgs, TwoSidesDifferOnlyInTheSideFlag) {
  CompileOptions O;
  O.CudaPath = "/usr/local/cuda";
  auto D = passArguments(CudaSide::Device, O);
  auto H = passArguments(CudaSide::Host, O);
  EXPECT_TRUE(has(D, "--cuda-device-only"));
  EXPECT_TRUE(has(H, "--cuda-host-only"));
  EXPECT_TRUE(has(D, "--cuda-gpu-arch=sm_90a"));
  EXPECT_TRUE(has(D, "-Wno-unknown-cuda-version"));
  EXPECT_TRUE(has(D, "--cuda-path=/usr/local/cuda"));
  EXPECT_TRUE(has(D, "-std=c++17"));
  EXPECT_TRUE(has(D, "-resource-dir=" + clangResourceDir().str()));
  EXPECT_EQ(D.size(), H.size());
}

TEST(CompileArgs, UserStdWins) {
  CompileOptions O;
  O.ExtraArgs = {"-std=c++20", "-DX=1"};
  auto D = passArguments(CudaSide::Device, O);
  EXPECT_FALSE(has(D, "-std=c++17"));
  EXPECT_TRUE(has(D, "-std=c++20"));
  EXPECT_TRUE(has(D, "-DX=1"));
}

TEST(CompileArgs, ResourceDirHasCudaWrappers) {
  EXPECT_TRUE(llvm::sys::fs::exists(clangResourceDir().str() +
                                    "/include/__clang_cuda_runtime_wrapper.h"));
}

TEST(CompileArgs, FindCudaExplicitPathMustBeAToolkit) {
  CudaInstallation C = findCuda("/nonexistent-cuda");
  EXPECT_TRUE(C.Path.empty());
  EXPECT_NE(C.Error.find("/nonexistent-cuda"), std::string::npos);
}

TEST(CompileArgs, FindCudaReadsVersion) {
  if (!llvm::sys::fs::exists("/usr/local/cuda/include/cuda.h"))
    GTEST_SKIP() << "no CUDA toolkit at /usr/local/cuda";
  CudaInstallation C = findCuda("/usr/local/cuda");
  EXPECT_EQ(C.Path, "/usr/local/cuda");
  EXPECT_EQ(C.FoundBy, "--cuda-path");
  EXPECT_GE(C.Version, 13000u);
}

TEST(CompileArgs, NvccMacrosFromTheToolkitVersion) {
  CompileOptions O;
  O.CudaVersion = 13000;
  auto D = passArguments(CudaSide::Device, O);
  EXPECT_TRUE(has(D, "-D__NVCC__"));
  EXPECT_TRUE(has(D, "-D__CUDACC_VER_MAJOR__=13"));
  EXPECT_TRUE(has(D, "-D__CUDACC_VER_MINOR__=0"));
  O.CudaVersion = 12040;
  EXPECT_TRUE(has(passArguments(CudaSide::Host, O), "-D__CUDACC_VER_MINOR__=4"));
  O.NvccMacros = false; // a clang command from a compile database
  EXPECT_FALSE(has(passArguments(CudaSide::Host, O), "-D__NVCC__"));
}
