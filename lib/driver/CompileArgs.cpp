#include "tma/CompileArgs.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Process.h"

namespace tma {

static unsigned readCudaVersion(llvm::StringRef Root) {
  llvm::SmallString<256> Header(Root);
  llvm::sys::path::append(Header, "include", "cuda.h");
  auto Buf = llvm::MemoryBuffer::getFile(Header);
  if (!Buf)
    return 0;
  llvm::StringRef Text = (*Buf)->getBuffer();
  size_t Pos = Text.find("#define CUDA_VERSION ");
  if (Pos == llvm::StringRef::npos)
    return 0;
  unsigned V = 0;
  Text.substr(Pos + 21).ltrim().take_while(llvm::isDigit).getAsInteger(10, V);
  return V;
}

static bool looksLikeCuda(llvm::StringRef Root) {
  llvm::SmallString<256> Header(Root);
  llvm::sys::path::append(Header, "include", "cuda.h");
  return llvm::sys::fs::exists(Header);
}

CudaInstallation findCuda(llvm::StringRef Explicit) {
  CudaInstallation C;
  std::vector<std::pair<std::string, std::string>> Candidates;
  if (!Explicit.empty())
    Candidates.push_back({Explicit.str(), "--cuda-path"});
  else {
    if (std::optional<std::string> Env = llvm::sys::Process::GetEnv("CUDA_PATH"))
      if (!Env->empty())
        Candidates.push_back({*Env, "CUDA_PATH"});
    if (llvm::ErrorOr<std::string> Nvcc = llvm::sys::findProgramByName("nvcc")) {
      llvm::SmallString<256> Real;
      if (llvm::sys::fs::real_path(*Nvcc, Real))
        Real = *Nvcc;
      Candidates.push_back({llvm::sys::path::parent_path(llvm::sys::path::parent_path(Real)).str(),
                            "nvcc on PATH"});
    }
    Candidates.push_back({"/usr/local/cuda", "default"});
  }
  for (auto &[Path, By] : Candidates) {
    if (!looksLikeCuda(Path)) {
      if (By == "--cuda-path" || By == "CUDA_PATH") {
        C.Error = "no CUDA toolkit at '" + Path + "' (from " + By +
                  "): include/cuda.h is missing";
        return C;
      }
      continue;
    }
    C.Path = Path;
    C.FoundBy = By;
    C.Version = readCudaVersion(Path);
    return C;
  }
  C.Error = "no CUDA toolkit found: install the CUDA 13 toolkit at /usr/local/cuda, "
            "or give --cuda-path=DIR or CUDA_PATH";
  return C;
}

llvm::StringRef sideName(CudaSide S) {
  return S == CudaSide::Device ? "device" : "host";
}

llvm::StringRef clangResourceDir() { return TMA_CLANG_RESOURCE_DIR; }

llvm::StringRef nvccCompatHeaderPath() { return "/tma-modernize-virtual/nvcc_host_minmax.h"; }

llvm::StringRef nvccCompatHeader() {
  // nvcc's crt/math_functions.hpp defines these overloads for host and
  // device (`static inline __host__ __device__`); clang's CUDA headers only
  // for the device, so host code calling max(a, b) does not compile. The
  // same overloads, host only: the device side keeps clang's.
  return R"(// tma-modernize: nvcc's host max/min, for the analysis only.
#define TMA_NVCC_MINMAX(R, A, B) \
  static inline __attribute__((host)) R max(A a, B b) { return (R)a > (R)b ? (R)a : (R)b; } \
  static inline __attribute__((host)) R min(A a, B b) { return (R)a < (R)b ? (R)a : (R)b; }
TMA_NVCC_MINMAX(int, int, int)
TMA_NVCC_MINMAX(unsigned int, unsigned int, unsigned int)
TMA_NVCC_MINMAX(unsigned int, int, unsigned int)
TMA_NVCC_MINMAX(unsigned int, unsigned int, int)
TMA_NVCC_MINMAX(long, long, long)
TMA_NVCC_MINMAX(unsigned long, unsigned long, unsigned long)
TMA_NVCC_MINMAX(unsigned long, long, unsigned long)
TMA_NVCC_MINMAX(unsigned long, unsigned long, long)
TMA_NVCC_MINMAX(long long, long long, long long)
TMA_NVCC_MINMAX(unsigned long long, unsigned long long, unsigned long long)
TMA_NVCC_MINMAX(unsigned long long, long long, unsigned long long)
TMA_NVCC_MINMAX(unsigned long long, unsigned long long, long long)
TMA_NVCC_MINMAX(float, float, float)
TMA_NVCC_MINMAX(double, double, double)
TMA_NVCC_MINMAX(double, float, double)
TMA_NVCC_MINMAX(double, double, float)
#undef TMA_NVCC_MINMAX
)";
}

std::vector<std::string> passArguments(CudaSide Side, const CompileOptions &Opts) {
  std::vector<std::string> Args = {
      "-x", "cuda",
      Side == CudaSide::Device ? "--cuda-device-only" : "--cuda-host-only",
      "--cuda-gpu-arch=" + Opts.GpuArch,
      "-resource-dir=" + clangResourceDir().str(),
      // The toolkit is newer than this clang knows: that is expected.
      "-Wno-unknown-cuda-version",
      // nvcc accepts `extern __shared__ T x;` for a non-array T (a static
      // definition); clang only in relocatable-device-code mode. The flag
      // changes no analysis: a kernel is treated as launchable from other
      // TUs either way.
      "-fgpu-rdc",
      // Every error must be seen: code nvcc accepts can raise more than
      // clang's default 20, and "too many errors" would stop the parse.
      "-ferror-limit=0",
  };
  if (!Opts.CudaPath.empty()) {
    Args.push_back("--cuda-path=" + Opts.CudaPath);
    // nvcc adds CCCL (<cuda/barrier>, <cuda/ptx>, cub, thrust) implicitly,
    // from its nvcc.profile; clang does not.
    llvm::SmallString<256> Cccl(Opts.CudaPath);
    llvm::sys::path::append(Cccl, "include", "cccl");
    if (llvm::sys::fs::is_directory(Cccl)) {
      Args.push_back("-isystem");
      Args.push_back(std::string(Cccl));
    }
  }
  if (Opts.NvccMacros && Opts.CudaVersion) {
    // Code tests these to pick nvcc paths; clang defines none of them.
    Args.push_back("-D__NVCC__");
    Args.push_back("-D__CUDACC_VER_MAJOR__=" + std::to_string(Opts.CudaVersion / 1000));
    Args.push_back("-D__CUDACC_VER_MINOR__=" + std::to_string(Opts.CudaVersion % 1000 / 10));
    Args.push_back("-D__CUDACC_VER_BUILD__=0");
  }
  if (Opts.NvccMacros) {
    Args.push_back("-include");
    Args.push_back(nvccCompatHeaderPath().str());
  }
  bool HasStd = llvm::any_of(Opts.ExtraArgs, [](const std::string &A) {
    return llvm::StringRef(A).starts_with("-std=");
  });
  if (!HasStd)
    Args.push_back("-std=c++17");
  llvm::append_range(Args, Opts.ExtraArgs);
  return Args;
}

unsigned paramSpaceLimitFor(const CompileOptions &Opts, unsigned Limit) {
  if ((Opts.LowestSm && Opts.LowestSm < 70) ||
      (Opts.CommandCudaVersion && Opts.CommandCudaVersion < 12010))
    return std::min(Limit, 4096u);
  return Limit;
}

unsigned cudaVersionAt(llvm::StringRef Root) {
  return looksLikeCuda(Root) ? readCudaVersion(Root) : 0;
}

} // namespace tma
