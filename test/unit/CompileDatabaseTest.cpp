// Every nvcc flag is kept, mapped or dropped on purpose: one row per case.
#include "tma/CompileDatabase.h"

#include <gtest/gtest.h>

using namespace tma;

namespace {
struct Case {
  std::vector<std::string> Command; // after argv[0] and before the file
  std::vector<std::string> Expected;
  std::string Arch;
};

TranslatedCommand run(const std::vector<std::string> &Flags, const char *Compiler = "nvcc") {
  std::vector<std::string> Cmd{std::string("/usr/local/cuda/bin/") + Compiler};
  Cmd.insert(Cmd.end(), Flags.begin(), Flags.end());
  Cmd.push_back("/src/a.cu");
  return translateCommand(Cmd, "/src/a.cu");
}
} // namespace

TEST(CompileDatabase, NvccFlagTable) {
  const Case Cases[] = {
      {{"-x", "cu", "-c", "-o", "a.o"}, {}, ""},
      {{"-gencode=arch=compute_90a,code=sm_90a"}, {}, "sm_90a"},
      {{"-gencode", "arch=compute_80,code=sm_80", "-gencode", "arch=compute_90a,code=[sm_90a,compute_90a]"}, {}, "sm_90a"},
      {{"--generate-code=arch=compute_90,code=sm_90"}, {}, "sm_90"},
      {{"-arch=sm_90a"}, {}, "sm_90a"},
      {{"-arch", "sm_89"}, {}, "sm_89"},
      {{"--gpu-architecture=compute_90a", "--gpu-code=sm_90a"}, {}, "sm_90a"},
      {{"-arch=native"}, {}, ""},
      {{"-isystem=/opt/inc"}, {"-isystem", "/opt/inc"}, ""},
      {{"-isystem", "/opt/inc"}, {"-isystem", "/opt/inc"}, ""},
      {{"-I/inc", "-I", "/inc2", "--include-path=/inc3"}, {"-I/inc", "-I", "/inc2", "-I/inc3"}, ""},
      {{"-DA=1", "-D", "B", "--define-macro=C", "-UD"}, {"-DA=1", "-D", "B", "-DC", "-UD"}, ""},
      {{"-std=c++20"}, {"-std=c++20"}, ""},
      {{"--std=c++17"}, {"-std=c++17"}, ""},
      {{"-std", "c++17"}, {"-std=c++17"}, ""},
      {{"-Xcompiler", "-fPIC,-Wall,-DHOST=1"}, {"-DHOST=1"}, ""},
      {{"-Xcompiler=-fopenmp"}, {"-D_OPENMP=201511"}, ""},
      {{"-forward-unknown-to-host-compiler", "--expt-relaxed-constexpr", "--extended-lambda",
        "--expt-extended-lambda", "-lineinfo", "-G", "-g", "-O3", "--use_fast_math"},
       {},
       ""},
      {{"-ccbin", "/usr/bin/g++-12", "--threads", "4", "-Xptxas", "-v", "-maxrregcount=64"}, {}, ""},
      {{"-rdc=true"}, {"-fgpu-rdc"}, ""},
      {{"--relocatable-device-code=true"}, {"-fgpu-rdc"}, ""},
      {{"-rdc", "true"}, {"-fgpu-rdc"}, ""},
      {{"-dc"}, {}, ""},
      {{"-MD", "-MT", "a.o", "-MF", "a.d"}, {}, ""},
      {{"--diag-suppress=177", "-Xcudafe", "--diag_suppress=550"}, {}, ""},
      {{"--default-stream", "per-thread"}, {"-DCUDA_API_PER_THREAD_DEFAULT_STREAM=1"}, ""},
      {{"-default-stream=per-thread"}, {"-DCUDA_API_PER_THREAD_DEFAULT_STREAM=1"}, ""},
      {{"--default-stream=legacy", "-default-stream", "null"}, {}, ""},
  };
  for (const Case &C : Cases) {
    TranslatedCommand T = run(C.Command);
    std::string Joined;
    for (const std::string &A : C.Command)
      Joined += A + " ";
    EXPECT_TRUE(T.FromNvcc);
    EXPECT_EQ(T.Args, C.Expected) << Joined;
    EXPECT_EQ(T.GpuArch, C.Arch) << Joined;
  }
}

TEST(CompileDatabase, DroppedFlagsAreRecorded) {
  TranslatedCommand T = run({"-O3", "-lineinfo", "-ccbin", "g++"});
  ASSERT_EQ(T.Dropped.size(), 3u);
  EXPECT_EQ(T.Dropped[2], "-ccbin g++");
}

TEST(CompileDatabase, HostCompilerCommandKeepsWarningsDropsGccOnlyFlags) {
  TranslatedCommand T = run({"-fPIC", "-Wall", "-fno-gnu-unique", "-march=native", "-I/x"}, "g++");
  EXPECT_FALSE(T.FromNvcc);
  EXPECT_EQ(T.Args, (std::vector<std::string>{"-Wall", "-I/x"}));
}

TEST(CompileDatabase, ClangPerThreadDefaultStreamDefinesTheMacro) {
  TranslatedCommand T = run({"-fgpu-default-stream=per-thread", "-x", "cuda"}, "clang++");
  EXPECT_EQ(T.Args, (std::vector<std::string>{"-DCUDA_API_PER_THREAD_DEFAULT_STREAM=1"}));
}

TEST(CompileDatabase, ClangCudaArchIsRead) {
  TranslatedCommand T = run({"--cuda-gpu-arch=sm_90a", "-x", "cuda"}, "clang++");
  EXPECT_EQ(T.GpuArch, "sm_90a");
  EXPECT_TRUE(T.Args.empty());
}

TEST(CompileDatabase, RelativeIncludesAreFromTheEntrysDirectory) {
  TranslatedCommand T = translateCommand(
      {"nvcc", "-Iinc", "-I", "../other", "-isystem=sys", "-I/abs", "-c", "a.cu"}, "a.cu",
      "/proj/build");
  EXPECT_EQ(T.Args, (std::vector<std::string>{"-I/proj/build/inc", "-I", "/proj/build/../other",
                                              "-isystem", "/proj/build/sys", "-I/abs"}));
}
