// The one table of CUDA API knowledge (runtime and driver): which calls
// launch, allocate, copy, free, look up or only query a kernel, and where
// their kernel and arguments are. Every analysis asks it; none spells a name.
#pragma once

#include "llvm/ADT/StringRef.h"

#include <optional>

namespace clang {
class ASTContext;
class CallExpr;
class Stmt;
class FunctionDecl;
class ValueDecl;
class VarDecl;
}

namespace tma::analysis {

enum class ApiRole {
  /// `cudaLaunchKernelEx(config, kernel, args...)`: the kernel's arguments
  /// one to one from FirstKernelArg.
  LaunchArgs,
  /// `cudaLaunchKernel(k, g, b, args, ...)`, `cuLaunchKernel(f, ..., args, extra)`:
  /// the kernel's arguments as an array of addresses at ArgsArg.
  LaunchArray,
  /// `cudaMalloc(&d, n)`: allocates into the variable whose address is Dest.
  Alloc,
  /// `cudaMemcpy(d, &h, n, kind)`, `cuMemcpyHtoD(d, &h, n)`,
  /// `cudaMemcpy2D(d, dpitch, &h, spitch, n, rows, kind)`: a host-to-device copy.
  Copy,
  /// `cudaMemcpyToSymbol(sym, &h, n, offset, kind)`.
  SymbolCopy,
  /// `cudaFree(d)`.
  Free,
  /// Takes the kernel (KernelArg) without launching it: attributes,
  /// occupancy, cache configuration.
  KernelQuery,
  /// Takes a CUfunction handle (KernelArg) without launching it.
  HandleQuery,
  /// `cudaGetFuncBySymbol(&f, kernel)`: binds a CUfunction handle.
  HandleBind,
  /// `cuModuleGetFunction(&f, module, "name")`: a kernel found by its name.
  NameLookup,
  /// `cudaStreamBeginCapture`, `cudaGraphLaunch`: launches captured into a
  /// graph and replayed later, with the arguments they had when captured.
  GraphCapture,
  /// `printf`, `fprintf`: a pointer argument is printed, not used.
  Log,
  /// `cudaMemset(d, v, n)`, `cudaMemcpy3D(...)`, `cuMemcpyDtoD(d, ...)`:
  /// writes device memory (at Dest, or wherever its parameters say) that
  /// the proofs do not follow as a descriptor copy.
  DeviceWrite,
  /// `cudaLaunchHostFunc(s, fn, data)`: runs host code (KernelArg: the
  /// function) when the stream reaches it, on another thread, at a time
  /// the program does not order with its own statements.
  HostCallback,
  /// `cuStreamWaitValue32(s, addr, v, flags)`, `cuStreamBatchMemOp`: the
  /// stream waits until memory holds a value, which host code may write
  /// only later: the stream may be held behind later statements.
  StreamWait,
  /// `cudaStreamWaitEvent(s, e)`: the stream waits for the work an event
  /// recorded, which may be held.
  EventWait,
  /// `cudaStreamSynchronize(s)`, `cudaDeviceSynchronize()`: the host waits
  /// until the stream's work (AllStreams: every stream's) has run.
  Synchronize,
  /// `cudaMallocHost(&p, n)`, `cudaHostAlloc(&p, n, flags)`: allocates
  /// page-locked host memory into the variable whose address is Dest.
  HostAlloc,
  /// `cudaFreeHost(p)`: frees page-locked host memory (Dest).
  HostFree,
  /// `cudaHostGetDevicePointer(&d, h, flags)`: stores at Dest the device
  /// address of the mapped page-locked memory at Src; reads and writes
  /// neither.
  MappedAddress,
};

struct CudaApi {
  llvm::StringRef Name;
  ApiRole Role;
  /// The kernel (or CUfunction handle) argument; -1: none.
  int KernelArg = -1;
  /// LaunchArgs: the first kernel argument. LaunchArray: the argument array.
  int ArgsArg = -1;
  /// LaunchArray: the `extra` array (-1: none).
  int ExtraArg = -1;
  /// LaunchArray: the kernel is a CUfunction handle, not the symbol.
  bool Handle = false;
  /// Copies: the destination, the source, the size and the copy kind (-1: none).
  /// Alloc and Free: Dest is the pointer. HandleBind: Dest is the handle's
  /// address, KernelArg the kernel.
  int Dest = -1, Src = -1, SizeArg = -1, KindArg = -1;
  /// SymbolCopy: the offset into the symbol (-1: none).
  int OffsetArg = -1;
  /// Copies of rows (`cudaMemcpy2D`): the number of rows, SizeArg the bytes
  /// of each (-1: a copy of one block). Only a copy of one row is read as a
  /// block of SizeArg bytes.
  int RowsArg = -1;
  /// NameLookup: the name argument.
  int NameArg = -1;
  /// Synchronize: waits for every stream, not the one it is given.
  bool AllStreams = false;
  /// Enqueued on a stream (`cudaMemcpyAsync`, `cuMemcpyHtoDAsync`): it runs
  /// when the stream reaches it, and a graph that captures the stream
  /// replays it.
  bool streamOrdered() const { return Name.ends_with("Async"); }
};

/// The API \p Name (as written, or as cuda.h maps it: `cuMemAlloc_v2`,
/// `cuLaunchKernel_ptsz`), or null.
const CudaApi *cudaApi(llvm::StringRef Name);
/// The API \p CE calls directly, or null.
const CudaApi *cudaApiOf(const clang::CallExpr *CE);
/// A host-to-device copy of one whole descriptor: 128 bytes and, where the
/// API takes a kind, cudaMemcpyHostToDevice, or cudaMemcpyDefault from the
/// address of a host object the program names (`&h`, `&plan.map`).
bool isWholeDescriptorCopy(const clang::CallExpr *Call, const CudaApi &Api,
                           clang::ASTContext &Ctx);
/// Does \p Call copy one block of SizeArg bytes: an API without rows, or
/// one row of a copy of rows (`cudaMemcpy2D(d, dp, &h, sp, 128, 1, kind)`)?
bool copiesOneBlock(const clang::CallExpr *Call, const CudaApi &Api, clang::ASTContext &Ctx);
/// Is \p E the argument of \p Call at \p Index (a row's argument index;
/// -1: the row has none)?
bool isArgAt(const clang::CallExpr *Call, int Index, const clang::Stmt *E);
/// cudaApi(Name) when it has \p Role, else null.
const CudaApi *cudaApi(llvm::StringRef Name, ApiRole Role);

/// Can \p Api hold the stream it is enqueued on until later host code
/// runs: a host function (which may wait for the program's threads) or a
/// wait for a value in memory?
bool mayHoldStream(const CudaApi &Api);

/// Does \p CE enqueue work (a launch, a copy, a memset, a host function)
/// on a stream that may run it after the statements that follow the call?
/// Only the legacy default stream (no stream, 0, cudaStreamLegacy) and the
/// per-thread default stream keep the order the host writes: a synchronous
/// copy waits for their work. Any other stream (a variable, a parameter, a
/// launch configuration whose stream is set) may be non-blocking or held
/// behind other work. \p Fn: the function holding the call, where a
/// launch configuration is looked up.
bool enqueuesOnOtherStream(const clang::CallExpr *CE, const clang::FunctionDecl *Fn);
/// The stream \p CE enqueues its work on: null for the default stream (or
/// a call that enqueues nothing), a variable that holds one stream all
/// through \p Fn (a parameter only read, a local created once), or none
/// when it is not known. Work of two calls on one such stream runs in the
/// order the calls are written.
std::optional<const clang::ValueDecl *> streamOf(const clang::CallExpr *CE,
                                                 const clang::FunctionDecl *Fn);

/// The local variable (not a reference or a parameter) that \p CE's stream
/// operand names, however often it is assigned, or null: the stream of the
/// call at the time it is made, not one stream through the function.
const clang::VarDecl *streamVariableOf(const clang::CallExpr *CE);

/// Is \p V a local stream variable of \p Fn created once, with the
/// non-blocking flag (`cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)`,
/// `cuStreamCreate(&s, CU_STREAM_NON_BLOCKING)`): a stream the legacy
/// default stream neither waits for nor makes wait? \p EachRound: or
/// created so by one statement inside a loop, a new stream each round.
bool createdNonBlocking(const clang::VarDecl *V, const clang::FunctionDecl *Fn,
                        bool EachRound = false);

/// What a host wait waits for: every stream (All), or the stream \p
/// Stream names as streamOf does (null: the default stream; none: not
/// known).
struct HostWait {
  bool All = false;
  std::optional<const clang::ValueDecl *> Stream;
};
/// The wait \p CE makes (`cudaStreamSynchronize(s)`, `cudaDeviceSynchronize()`),
/// or none when it is not a Synchronize call.
std::optional<HostWait> hostWaitOf(const clang::CallExpr *CE, const clang::FunctionDecl *Fn);

/// Is \p CE's work (a launch, a copy) enqueued on the legacy default stream:
/// no stream, 0, NULL, nullptr or cudaStreamLegacy, in a translation unit
/// not built for the per-thread default stream? A CUDA graph cannot
/// capture that stream, so no replay runs such work again. A launch
/// configuration's stream is not read here (false). Synchronous copies
/// (cudaMemcpy, cuMemcpyHtoD) are on it.
bool onLegacyStream(const clang::CallExpr *CE);

/// cuda.h maps driver API names to versioned and per-thread-stream symbols
/// (cuMemAlloc -> cuMemAlloc_v2, cuLaunchKernel -> cuLaunchKernel_ptsz):
/// the name as written in the documentation.
llvm::StringRef driverBaseName(llvm::StringRef Name);

} // namespace tma::analysis
