// The clang command lines of the two CUDA passes, and where CUDA is.
#pragma once

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace tma {

struct CudaInstallation {
  std::string Path;    // empty when not found
  unsigned Version = 0; // CUDA_VERSION from cuda.h, e.g. 13000
  std::string FoundBy;  // "--cuda-path", "CUDA_PATH", "nvcc on PATH", "default"
  std::string Error;
};

/// Looks for CUDA in order: \p Explicit (--cuda-path), $CUDA_PATH, the
/// directory above `nvcc` on PATH, /usr/local/cuda.
CudaInstallation findCuda(llvm::StringRef Explicit);

enum class CudaSide { Device, Host };
llvm::StringRef sideName(CudaSide S);

struct CompileOptions {
  std::string CudaPath;
  unsigned CudaVersion = 0; // CUDA_VERSION of the toolkit, e.g. 13000
  /// Define what nvcc defines (__NVCC__, __CUDACC_VER_MAJOR__/MINOR__): on
  /// for nvcc commands and when no command is given, off for clang's.
  bool NvccMacros = true;
  std::string GpuArch = "sm_90a";
  /// The lowest sm number of the command's targets (`-gencode` for sm_60
  /// and sm_90: 60); 0 when it names none. Below 70 the kernel parameter
  /// space is 4,096 bytes.
  unsigned LowestSm = 0;
  /// CUDA_VERSION of the toolkit the compile command names (its nvcc's),
  /// 0 when it names none: below 12010 the parameter space is 4,096 bytes.
  unsigned CommandCudaVersion = 0;
  std::vector<std::string> ExtraArgs; // after "--"
};

/// Bytes of kernel parameters the translation unit's targets accept:
/// \p Limit (32,764 from CUDA 12.1), or 4,096 when a target is below sm_70.
unsigned paramSpaceLimitFor(const CompileOptions &Opts, unsigned Limit);

/// CUDA_VERSION of the toolkit at \p Root (its include/cuda.h), 0 when
/// there is none.
unsigned cudaVersionAt(llvm::StringRef Root);

/// Arguments for clang (without the program name and the input file).
std::vector<std::string> passArguments(CudaSide Side, const CompileOptions &Opts);

/// What nvcc's own headers declare and clang's do not (host max/min), as a
/// header the passes include first when NvccMacros is on. It exists only in
/// memory (runPass maps it): the analysis sees it, no output does.
llvm::StringRef nvccCompatHeaderPath();
llvm::StringRef nvccCompatHeader();

/// The clang resource directory recorded at build time.
llvm::StringRef clangResourceDir();

} // namespace tma
