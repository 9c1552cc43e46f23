// The CUDA API table (CudaApi.h): one row per runtime or driver call that
// the analysis follows. A new launch form or copy API is one row here.
#include "CudaApi.h"

#include "Types.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Expr.h"

#include <algorithm>

namespace tma::analysis {
namespace {

CudaApi launchArgs(llvm::StringRef N, int Kernel, int First) {
  CudaApi A{N, ApiRole::LaunchArgs};
  A.KernelArg = Kernel;
  A.ArgsArg = First;
  return A;
}
CudaApi launchArray(llvm::StringRef N, int Kernel, int Args, int Extra, bool Handle) {
  CudaApi A{N, ApiRole::LaunchArray};
  A.KernelArg = Kernel;
  A.ArgsArg = Args;
  A.ExtraArg = Extra;
  A.Handle = Handle;
  return A;
}
CudaApi memory(llvm::StringRef N, ApiRole Role, int Dest, int Src = -1, int Size = -1,
               int Kind = -1) {
  CudaApi A{N, Role};
  A.Dest = Dest;
  A.Src = Src;
  A.SizeArg = Size;
  A.KindArg = Kind;
  return A;
}
CudaApi takesKernel(llvm::StringRef N, ApiRole Role, int Kernel) {
  CudaApi A{N, Role};
  A.KernelArg = Kernel;
  return A;
}
CudaApi symbolCopy(llvm::StringRef N) {
  CudaApi A = memory(N, ApiRole::SymbolCopy, 0, 1, 2, 4);
  A.OffsetArg = 3;
  return A;
}
CudaApi handleBind(llvm::StringRef N, int Handle, int Kernel) {
  CudaApi A = takesKernel(N, ApiRole::HandleBind, Kernel);
  A.Dest = Handle;
  return A;
}
CudaApi nameLookup(llvm::StringRef N, int NameArg) {
  CudaApi A{N, ApiRole::NameLookup};
  A.NameArg = NameArg;
  return A;
}

const std::vector<CudaApi> &table() {
  static const std::vector<CudaApi> Rows = {
      // Launches.
      launchArgs("cudaLaunchKernelEx", 1, 2), // the C++ template
      launchArray("cudaLaunchKernel", 0, 3, -1, false),
      launchArray("cudaLaunchCooperativeKernel", 0, 3, -1, false),
      launchArray("cudaLaunchKernelExC", 1, 2, -1, false),
      launchArray("cuLaunchKernel", 0, 9, 10, true),
      launchArray("cuLaunchCooperativeKernel", 0, 9, -1, true),
      launchArray("cuLaunchKernelEx", 1, 2, 3, true),
      // Allocations, copies and frees of a device copy.
      memory("cudaMalloc", ApiRole::Alloc, 0, -1, 1),
      memory("cudaMallocAsync", ApiRole::Alloc, 0, -1, 1),
      memory("cuMemAlloc", ApiRole::Alloc, 0, -1, 1),
      memory("cuMemAllocAsync", ApiRole::Alloc, 0, -1, 1),
      memory("cudaMemcpy", ApiRole::Copy, 0, 1, 2, 3),
      memory("cudaMemcpyAsync", ApiRole::Copy, 0, 1, 2, 3),
      memory("cuMemcpyHtoD", ApiRole::Copy, 0, 1, 2),
      memory("cuMemcpyHtoDAsync", ApiRole::Copy, 0, 1, 2),
      symbolCopy("cudaMemcpyToSymbol"),
      symbolCopy("cudaMemcpyToSymbolAsync"),
      memory("cudaFree", ApiRole::Free, 0),
      memory("cudaFreeAsync", ApiRole::Free, 0),
      memory("cuMemFree", ApiRole::Free, 0),
      memory("cuMemFreeAsync", ApiRole::Free, 0),
      // Other writes of device memory: through a pointer that may reach a
      // device copy, they change it.
      memory("cudaMemset", ApiRole::DeviceWrite, 0),
      memory("cudaMemsetAsync", ApiRole::DeviceWrite, 0),
      memory("cudaMemset2D", ApiRole::DeviceWrite, 0),
      memory("cudaMemset2DAsync", ApiRole::DeviceWrite, 0),
      memory("cudaMemset3D", ApiRole::DeviceWrite, 0),
      memory("cudaMemset3DAsync", ApiRole::DeviceWrite, 0),
      memory("cudaMemcpy2D", ApiRole::DeviceWrite, 0),
      memory("cudaMemcpy2DAsync", ApiRole::DeviceWrite, 0),
      memory("cudaMemcpy3D", ApiRole::DeviceWrite, -1),
      memory("cudaMemcpy3DAsync", ApiRole::DeviceWrite, -1),
      memory("cudaMemcpyPeer", ApiRole::DeviceWrite, 0),
      memory("cudaMemcpyPeerAsync", ApiRole::DeviceWrite, 0),
      memory("cuMemsetD8", ApiRole::DeviceWrite, 0),
      memory("cuMemsetD16", ApiRole::DeviceWrite, 0),
      memory("cuMemsetD32", ApiRole::DeviceWrite, 0),
      memory("cuMemsetD8Async", ApiRole::DeviceWrite, 0),
      memory("cuMemsetD16Async", ApiRole::DeviceWrite, 0),
      memory("cuMemsetD32Async", ApiRole::DeviceWrite, 0),
      memory("cuMemcpy", ApiRole::DeviceWrite, 0),
      memory("cuMemcpyAsync", ApiRole::DeviceWrite, 0),
      memory("cuMemcpyDtoD", ApiRole::DeviceWrite, 0),
      memory("cuMemcpyDtoDAsync", ApiRole::DeviceWrite, 0),
      memory("cuMemcpy2D", ApiRole::DeviceWrite, -1),
      memory("cuMemcpy2DAsync", ApiRole::DeviceWrite, -1),
      memory("cuMemcpy3D", ApiRole::DeviceWrite, -1),
      memory("cuMemcpy3DAsync", ApiRole::DeviceWrite, -1),
      // Host code the stream runs later, on another thread.
      takesKernel("cudaLaunchHostFunc", ApiRole::HostCallback, 1),
      takesKernel("cudaStreamAddCallback", ApiRole::HostCallback, 1),
      takesKernel("cuLaunchHostFunc", ApiRole::HostCallback, 1),
      takesKernel("cuStreamAddCallback", ApiRole::HostCallback, 1),
      // CUDA graphs: a captured launch is replayed later with the arguments
      // it had when it was captured.
      memory("cudaStreamBeginCapture", ApiRole::GraphCapture, -1),
      memory("cudaStreamBeginCaptureToGraph", ApiRole::GraphCapture, -1),
      memory("cudaGraphLaunch", ApiRole::GraphCapture, -1),
      memory("cuStreamBeginCapture", ApiRole::GraphCapture, -1),
      memory("cuGraphLaunch", ApiRole::GraphCapture, -1),
      // Logging: a pointer passed to these is printed, not used.
      memory("printf", ApiRole::Log, -1),
      memory("fprintf", ApiRole::Log, -1),
      memory("snprintf", ApiRole::Log, -1),
      memory("sprintf", ApiRole::Log, -1),
      // Calls that take a kernel without launching it.
      takesKernel("cudaFuncSetAttribute", ApiRole::KernelQuery, 0),
      takesKernel("cudaFuncGetAttributes", ApiRole::KernelQuery, 1),
      takesKernel("cudaFuncSetCacheConfig", ApiRole::KernelQuery, 0),
      takesKernel("cudaFuncSetSharedMemConfig", ApiRole::KernelQuery, 0),
      takesKernel("cudaOccupancyMaxActiveBlocksPerMultiprocessor", ApiRole::KernelQuery, 1),
      takesKernel("cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
                  ApiRole::KernelQuery, 1),
      takesKernel("cudaOccupancyMaxPotentialBlockSize", ApiRole::KernelQuery, 2),
      takesKernel("cudaOccupancyMaxPotentialBlockSizeVariableSMem", ApiRole::KernelQuery, 2),
      takesKernel("cudaOccupancyMaxPotentialBlockSizeWithFlags", ApiRole::KernelQuery, 2),
      takesKernel("cudaOccupancyAvailableDynamicSMemPerBlock", ApiRole::KernelQuery, 1),
      takesKernel("cudaOccupancyMaxActiveClusters", ApiRole::KernelQuery, 1),
      takesKernel("cudaOccupancyMaxPotentialClusterSize", ApiRole::KernelQuery, 1),
      takesKernel("cuFuncGetAttribute", ApiRole::HandleQuery, 2),
      takesKernel("cuFuncSetAttribute", ApiRole::HandleQuery, 0),
      takesKernel("cuFuncSetCacheConfig", ApiRole::HandleQuery, 0),
      takesKernel("cuFuncSetSharedMemConfig", ApiRole::HandleQuery, 0),
      takesKernel("cuOccupancyMaxActiveBlocksPerMultiprocessor", ApiRole::HandleQuery, 1),
      takesKernel("cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", ApiRole::HandleQuery,
                  1),
      takesKernel("cuOccupancyMaxPotentialBlockSize", ApiRole::HandleQuery, 2),
      takesKernel("cuOccupancyMaxPotentialBlockSizeWithFlags", ApiRole::HandleQuery, 2),
      takesKernel("cuOccupancyAvailableDynamicSMemPerBlock", ApiRole::HandleQuery, 1),
      takesKernel("cuOccupancyMaxActiveClusters", ApiRole::HandleQuery, 1),
      takesKernel("cuOccupancyMaxPotentialClusterSize", ApiRole::HandleQuery, 1),
      handleBind("cudaGetFuncBySymbol", 0, 1),
      // Kernels found by name.
      nameLookup("cuModuleGetFunction", 2),
      nameLookup("cuLibraryGetKernel", 2),
  };
  return Rows;
}

} // namespace

llvm::StringRef driverBaseName(llvm::StringRef Name) {
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (llvm::StringRef Suffix : {"_ptsz", "_ptds", "_v2", "_v3"})
      if (Name.consume_back(Suffix))
        Changed = true;
  }
  return Name;
}

const CudaApi *cudaApi(llvm::StringRef Name) {
  Name = driverBaseName(Name);
  for (const CudaApi &A : table())
    if (A.Name == Name)
      return &A;
  return nullptr;
}

const CudaApi *cudaApi(llvm::StringRef Name, ApiRole Role) {
  const CudaApi *A = cudaApi(Name);
  return A && A->Role == Role ? A : nullptr;
}

const CudaApi *cudaApiOf(const clang::CallExpr *CE) {
  return CE ? cudaApi(calleeName(CE)) : nullptr;
}

/// `&h`, `&s.map`, `&a[0]` of a host object the program names (not through a
/// pointer, not a `__device__` or `__constant__` variable): memory that
/// cudaMemcpyDefault reads as host memory.
static bool addressOfHostObject(const clang::Expr *E) {
  using namespace clang;
  const auto *UO = dyn_cast<UnaryOperator>(E->IgnoreParenCasts());
  if (!UO || UO->getOpcode() != UO_AddrOf)
    return false;
  const Expr *Obj = UO->getSubExpr()->IgnoreParens();
  for (;;) {
    if (const auto *ME = dyn_cast<MemberExpr>(Obj); ME && !ME->isArrow())
      Obj = ME->getBase()->IgnoreParens();
    else if (const auto *AS = dyn_cast<ArraySubscriptExpr>(Obj);
             AS && AS->getBase()->IgnoreParenImpCasts()->getType()->isArrayType())
      Obj = AS->getBase()->IgnoreParenImpCasts();
    else
      break;
  }
  const auto *R = dyn_cast<DeclRefExpr>(Obj);
  const auto *V = R ? dyn_cast<VarDecl>(R->getDecl()) : nullptr;
  // A reference counts as the host object it names: host code binds one to
  // device memory only by dereferencing a device pointer.
  return V && !V->hasAttr<CUDADeviceAttr>() &&
         !V->hasAttr<CUDAConstantAttr>() && !V->hasAttr<CUDASharedAttr>();
}

bool isWholeDescriptorCopy(const clang::CallExpr *Call, const CudaApi &Api,
                           clang::ASTContext &Ctx) {
  if (Api.Role != ApiRole::Copy ||
      Call->getNumArgs() <= unsigned(std::max(Api.SizeArg, Api.KindArg)))
    return false;
  clang::Expr::EvalResult Size, Kind;
  if (!Call->getArg(Api.SizeArg)->EvaluateAsInt(Size, Ctx) || Size.Val.getInt() != 128)
    return false;
  if (Api.KindArg < 0)
    return true;
  if (!Call->getArg(Api.KindArg)->EvaluateAsInt(Kind, Ctx))
    return false;
  // cudaMemcpyDefault goes by the address: only a named host object's
  // address is known to be host memory.
  return Kind.Val.getInt() == 1 /*HostToDevice*/ ||
         (Kind.Val.getInt() == 4 /*Default*/ && Api.Src >= 0 &&
          addressOfHostObject(Call->getArg(Api.Src)));
}

} // namespace tma::analysis
