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
  std::vector<std::string> ExtraArgs; // after "--"
};

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
