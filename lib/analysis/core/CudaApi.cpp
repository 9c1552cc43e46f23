// The CUDA API table (CudaApi.h): one row per runtime or driver call that
// the analysis follows. A new launch form or copy API is one row here.
#include "CudaApi.h"

#include "Types.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"

#include "llvm/ADT/DenseMap.h"

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
CudaApi rowsCopy(llvm::StringRef N) {
  CudaApi A = memory(N, ApiRole::Copy, 0, 2, 4, 6);
  A.RowsArg = 5;
  return A;
}
CudaApi synchronize(llvm::StringRef N, bool All) {
  CudaApi A{N, ApiRole::Synchronize};
  A.AllStreams = All;
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
      // (dst, dpitch, src, spitch, width, rows, kind): one row of 128 bytes
      // is a whole descriptor; any other shape writes the device copy in
      // part, which no proof follows.
      rowsCopy("cudaMemcpy2D"),
      rowsCopy("cudaMemcpy2DAsync"),
      symbolCopy("cudaMemcpyToSymbol"),
      symbolCopy("cudaMemcpyToSymbolAsync"),
      memory("cudaFree", ApiRole::Free, 0),
      memory("cudaFreeAsync", ApiRole::Free, 0),
      memory("cuMemFree", ApiRole::Free, 0),
      memory("cuMemFreeAsync", ApiRole::Free, 0),
      // Other writes of device memory: through a pointer that may reach a
      // device copy, they change it. Where the size is a byte count, it is
      // SizeArg: a write of part of a device copy is bounded by it.
      memory("cudaMemset", ApiRole::DeviceWrite, 0, -1, 2),
      memory("cudaMemsetAsync", ApiRole::DeviceWrite, 0, -1, 2),
      memory("cudaMemset2D", ApiRole::DeviceWrite, 0),
      memory("cudaMemset2DAsync", ApiRole::DeviceWrite, 0),
      memory("cudaMemset3D", ApiRole::DeviceWrite, 0),
      memory("cudaMemset3DAsync", ApiRole::DeviceWrite, 0),
      memory("cudaMemcpy3D", ApiRole::DeviceWrite, -1),
      memory("cudaMemcpy3DAsync", ApiRole::DeviceWrite, -1),
      memory("cudaMemcpyPeer", ApiRole::DeviceWrite, 0),
      memory("cudaMemcpyPeerAsync", ApiRole::DeviceWrite, 0),
      memory("cuMemsetD8", ApiRole::DeviceWrite, 0, -1, 2),
      memory("cuMemsetD16", ApiRole::DeviceWrite, 0),
      memory("cuMemsetD32", ApiRole::DeviceWrite, 0),
      memory("cuMemsetD8Async", ApiRole::DeviceWrite, 0, -1, 2),
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
      memory("cuStreamWaitValue32", ApiRole::StreamWait, -1),
      memory("cuStreamWaitValue64", ApiRole::StreamWait, -1),
      memory("cuStreamBatchMemOp", ApiRole::StreamWait, -1),
      memory("cudaStreamWaitEvent", ApiRole::EventWait, -1),
      // The host waits for a stream's work, or every stream's.
      synchronize("cudaStreamSynchronize", false),
      synchronize("cuStreamSynchronize", false),
      synchronize("cudaDeviceSynchronize", true),
      synchronize("cuCtxSynchronize", true),
      // Page-locked host memory: a stream-ordered copy from it reads it
      // when the stream runs the copy.
      memory("cudaMallocHost", ApiRole::HostAlloc, 0),
      memory("cudaHostAlloc", ApiRole::HostAlloc, 0),
      memory("cuMemAllocHost", ApiRole::HostAlloc, 0),
      memory("cuMemHostAlloc", ApiRole::HostAlloc, 0),
      memory("cudaFreeHost", ApiRole::HostFree, 0),
      memory("cuMemFreeHost", ApiRole::HostFree, 0),
      memory("cudaHostGetDevicePointer", ApiRole::MappedAddress, 0, 1),
      memory("cuMemHostGetDevicePointer", ApiRole::MappedAddress, 0, 1),
      memory("cuStreamWaitEvent", ApiRole::EventWait, -1),
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

bool isArgAt(const clang::CallExpr *Call, int Index, const clang::Stmt *E) {
  return Call && Index >= 0 && unsigned(Index) < Call->getNumArgs() && Call->getArg(Index) == E;
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

bool copiesOneBlock(const clang::CallExpr *Call, const CudaApi &Api, clang::ASTContext &Ctx) {
  if (Api.RowsArg < 0)
    return true;
  clang::Expr::EvalResult Rows;
  return unsigned(Api.RowsArg) < Call->getNumArgs() &&
         Call->getArg(Api.RowsArg)->EvaluateAsInt(Rows, Ctx) && Rows.Val.getInt() == 1;
}

bool isWholeDescriptorCopy(const clang::CallExpr *Call, const CudaApi &Api,
                           clang::ASTContext &Ctx) {
  if (Api.Role != ApiRole::Copy ||
      Call->getNumArgs() <= unsigned(std::max(Api.SizeArg, Api.KindArg)) ||
      !copiesOneBlock(Call, Api, Ctx))
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

namespace {
using namespace clang;

/// `cudaStream_t` and `CUstream`: both are `CUstream_st *`.
bool isStreamType(QualType T) {
  const auto *PT = T.getCanonicalType()->getAs<PointerType>();
  const auto *RD = PT ? PT->getPointeeType()->getAsRecordDecl() : nullptr;
  return RD && RD->getName() == "CUstream_st";
}

/// The legacy default stream, spelled as the headers spell it: no argument
/// (the parameter's default), 0, NULL, nullptr, cudaStreamLegacy (1) or
/// cudaStreamPerThread (2), which also waits for the legacy stream.
bool isDefaultStream(const Expr *E) {
  if (const auto *DA = dyn_cast<CXXDefaultArgExpr>(E))
    E = DA->getExpr();
  E = E->IgnoreParenCasts();
  if (isa<CXXNullPtrLiteralExpr, GNUNullExpr>(E))
    return true;
  const auto *IL = dyn_cast<IntegerLiteral>(E);
  return IL && IL->getValue().ule(2);
}

/// Every statement under \p S, in order.
void eachStmt(const Stmt *S, llvm::function_ref<void(const Stmt *)> F) {
  if (!S)
    return;
  F(S);
  for (const Stmt *C : S->children())
    eachStmt(C, F);
}

/// The parents of the statements of one body, parentheses skipped.
class Parents {
public:
  explicit Parents(const Stmt *Body) {
    eachStmt(Body, [&](const Stmt *S) {
      for (const Stmt *C : S->children())
        if (C)
          Parent[C] = S;
    });
  }
  const Stmt *operator()(const Stmt *S) const {
    const Stmt *P = Parent.lookup(S);
    while (isa_and_nonnull<ParenExpr>(P))
      P = Parent.lookup(P);
    return P;
  }

private:
  llvm::DenseMap<const Stmt *, const Stmt *> Parent;
};
} // namespace

/// A stream variable that names one stream throughout \p Fn: a parameter
/// only read, or a local only read but for one creation
/// (`cudaStreamCreate(&s)`, outside any loop; \p InLoops: or inside one,
/// where it names the stream of the round).
static bool fixedStreamVariable(const VarDecl *V, const FunctionDecl *Fn, bool InLoops = false) {
  if (!V || !Fn || !Fn->getBody() || V->getType()->isReferenceType() ||
      !(isa<ParmVarDecl>(V) || (V->hasLocalStorage() && !V->isStaticLocal())))
    return false;
  Parents Up(Fn->getBody());
  unsigned Creations = 0;
  bool Fixed = true;
  eachStmt(Fn->getBody(), [&](const Stmt *S) {
    const auto *R = dyn_cast<DeclRefExpr>(S);
    if (!Fixed || !R || R->getDecl() != V)
      return;
    const Stmt *P = Up(R);
    if (const auto *IC = dyn_cast_or_null<ImplicitCastExpr>(P);
        IC && IC->getCastKind() == CK_LValueToRValue)
      return;
    const auto *Addr = dyn_cast_or_null<UnaryOperator>(P);
    const auto *Call = Addr && Addr->getOpcode() == UO_AddrOf
                           ? dyn_cast_or_null<CallExpr>(Up(Addr)) : nullptr;
    if (!Call) {
      const Stmt *Q = Addr ? Up(Addr) : nullptr;
      while (isa_and_nonnull<ImplicitCastExpr>(Q))
        Q = Up(Q);
      Call = dyn_cast_or_null<CallExpr>(Q);
    }
    std::string Callee = Call ? calleeName(Call) : "";
    llvm::StringRef Name = driverBaseName(Callee);
    bool Creation = Name.starts_with("cudaStreamCreate") || Name.starts_with("cuStreamCreate");
    for (const Stmt *L = Call; Creation && !InLoops && L; L = Up(L))
      if (isLoop(L))
        Creation = false;
    Fixed = Creation && ++Creations == 1;
  });
  return Fixed;
}

bool createdNonBlocking(const VarDecl *V, const FunctionDecl *Fn, bool EachRound) {
  if (!V || !Fn || !Fn->getBody() || !V->hasLocalStorage() || isa<ParmVarDecl>(V))
    return false;
  bool NonBlocking = false;
  eachStmt(Fn->getBody(), [&](const Stmt *S) {
    const auto *Call = dyn_cast<CallExpr>(S);
    if (!Call || Call->getNumArgs() < 2)
      return;
    std::string Callee = calleeName(Call);
    llvm::StringRef Name = driverBaseName(Callee);
    if (Name != "cudaStreamCreateWithFlags" && Name != "cudaStreamCreateWithPriority" &&
        Name != "cuStreamCreate" && Name != "cuStreamCreateWithPriority")
      return;
    const auto *Addr = dyn_cast<UnaryOperator>(Call->getArg(0)->IgnoreParenImpCasts());
    const auto *R = Addr && Addr->getOpcode() == UO_AddrOf
                        ? dyn_cast<DeclRefExpr>(Addr->getSubExpr()->IgnoreParenImpCasts())
                        : nullptr;
    Expr::EvalResult Flags;
    if (R && R->getDecl() == V &&
        Call->getArg(1)->EvaluateAsInt(Flags, V->getASTContext()) &&
        (Flags.Val.getInt().getZExtValue() & 1))
      NonBlocking = true;
  });
  return NonBlocking && fixedStreamVariable(V, Fn, EachRound);
}

/// What a stream expression names: null for the default stream, a fixed
/// stream variable, or none.
static std::optional<const ValueDecl *> streamNamed(const Expr *Stream, const FunctionDecl *Fn) {
  if (!Stream || isDefaultStream(Stream))
    return nullptr;
  const auto *R = dyn_cast<DeclRefExpr>(Stream->IgnoreParenImpCasts());
  const auto *V = R ? dyn_cast<VarDecl>(R->getDecl()) : nullptr;
  if (fixedStreamVariable(V, Fn))
    return V;
  return std::nullopt;
}

/// The stream of a launch configuration `&cfg`: a local initialised with
/// braces, whose stream field is left unset, set by the braces, or
/// assigned once in the block that declares it before any launch reads it
/// (`cfg.stream = stream;`), and which is named otherwise only for its
/// other fields and by its address handed straight to a launch.
static std::optional<const ValueDecl *> configStream(const Expr *Config, const FunctionDecl *Fn) {
  const auto *UO = dyn_cast<UnaryOperator>(Config->IgnoreParenImpCasts());
  const auto *R = UO && UO->getOpcode() == UO_AddrOf
                      ? dyn_cast<DeclRefExpr>(UO->getSubExpr()->IgnoreParens())
                      : nullptr;
  const auto *V = R ? dyn_cast<VarDecl>(R->getDecl()) : nullptr;
  const RecordDecl *RD = V ? V->getType()->getAsRecordDecl() : nullptr;
  const auto *Init = V && V->hasLocalStorage() && V->getInit()
                         ? dyn_cast<InitListExpr>(V->getInit()->IgnoreImplicit())
                         : nullptr;
  if (!RD || !Init || !Fn || !Fn->getBody())
    return std::nullopt;
  if (Init->isSyntacticForm() && Init->getSemanticForm())
    Init = Init->getSemanticForm();
  std::optional<const ValueDecl *> Stream = nullptr;
  for (const FieldDecl *F : RD->fields())
    if (isStreamType(F->getType()) && F->getFieldIndex() < Init->getNumInits() &&
        !isa<ImplicitValueInitExpr>(Init->getInit(F->getFieldIndex())))
      Stream = streamNamed(Init->getInit(F->getFieldIndex()), Fn);
  Parents Up(Fn->getBody());
  const Stmt *Block = nullptr; // where the configuration is declared
  eachStmt(Fn->getBody(), [&](const Stmt *S) {
    if (const auto *DS = dyn_cast<DeclStmt>(S); DS && llvm::is_contained(DS->decls(), V))
      Block = Up(DS);
  });
  bool Kept = Stream.has_value();
  const Stmt *Assigned = nullptr;
  SourceLocation FirstLaunch;
  const SourceManager &SM = Fn->getASTContext().getSourceManager();
  eachStmt(Fn->getBody(), [&](const Stmt *S) {
    const auto *Ref = dyn_cast<DeclRefExpr>(S);
    if (!Ref || Ref->getDecl() != V || !Kept)
      return;
    const Stmt *P = Up(Ref);
    if (const auto *ME = dyn_cast_or_null<MemberExpr>(P)) {
      const auto *F = dyn_cast<FieldDecl>(ME->getMemberDecl());
      if (F && !isStreamType(F->getType()))
        return;
      // `cfg.stream = s;`, once, a statement of the declaring block.
      const auto *BO = dyn_cast_or_null<BinaryOperator>(Up(ME));
      Kept = F && BO && BO->getOpcode() == BO_Assign && BO->getLHS()->IgnoreParens() == ME &&
             !Assigned && Block && Up(BO) == Block;
      if (Kept) {
        Assigned = BO;
        Stream = streamNamed(BO->getRHS(), Fn);
        Kept = Stream.has_value();
      }
      return;
    }
    if (const auto *Addr = dyn_cast_or_null<UnaryOperator>(P); Addr && Addr->getOpcode() == UO_AddrOf) {
      const Stmt *Q = Up(Addr);
      while (isa_and_nonnull<ImplicitCastExpr>(Q))
        Q = Up(Q);
      const auto *Call = dyn_cast_or_null<CallExpr>(Q);
      const CudaApi *Api = Call ? cudaApiOf(Call) : nullptr;
      Kept = Api && (Api->Role == ApiRole::LaunchArgs || Api->Role == ApiRole::LaunchArray);
      if (Kept && (FirstLaunch.isInvalid() ||
                   SM.isBeforeInTranslationUnit(Call->getBeginLoc(), FirstLaunch)))
        FirstLaunch = Call->getBeginLoc();
      return;
    }
    Kept = false;
  });
  if (!Kept || (Assigned && FirstLaunch.isValid() &&
                !SM.isBeforeInTranslationUnit(Assigned->getBeginLoc(), FirstLaunch)))
    return std::nullopt;
  return Stream;
}

/// Where \p CE names its stream: the operand (null: none, the default), or
/// in \p Config the launch configuration whose field holds it
/// (cudaLaunchKernelEx, cuLaunchKernelEx).
static const Expr *streamOperand(const CallExpr *CE, const Expr *&Config) {
  Config = nullptr;
  if (const auto *KC = dyn_cast<CUDAKernelCallExpr>(CE)) {
    // The host's configuration call takes the stream fourth (as a `void *`
    // in clang's wrapper); a launch from device code (an implicitly
    // `__host__ __device__` lambda's, on the device side) calls
    // cudaLaunchDevice, whose stream is its cudaStream_t parameter.
    const CallExpr *Call = KC->getConfig();
    const FunctionDecl *ConfigFn = Call ? Call->getDirectCallee() : nullptr;
    for (unsigned I = 0; ConfigFn && I < Call->getNumArgs() && I < ConfigFn->getNumParams(); ++I)
      if (isStreamType(ConfigFn->getParamDecl(I)->getType()))
        return Call->getArg(I);
    return Call && Call->getNumArgs() > 3 ? Call->getArg(3) : nullptr;
  }
  const CudaApi *Api = cudaApiOf(CE);
  const FunctionDecl *FD = CE->getDirectCallee();
  if (!Api || !FD)
    return nullptr;
  switch (Api->Role) {
  case ApiRole::LaunchArgs:
  case ApiRole::LaunchArray:
  case ApiRole::Copy:
  case ApiRole::SymbolCopy:
  case ApiRole::DeviceWrite:
  case ApiRole::HostCallback:
  case ApiRole::StreamWait:
    break;
  default:
    return nullptr;
  }
  for (unsigned I = 0; I < CE->getNumArgs() && I < FD->getNumParams(); ++I)
    if (isStreamType(FD->getParamDecl(I)->getType()))
      return CE->getArg(I);
  // The stream of cudaLaunchKernelEx and cuLaunchKernelEx is a field of
  // their configuration.
  if ((Api->Role == ApiRole::LaunchArgs || Api->Role == ApiRole::LaunchArray) &&
      Api->KernelArg == 1 && CE->getNumArgs() > 0)
    Config = CE->getArg(0);
  return nullptr;
}

std::optional<const ValueDecl *> streamOf(const CallExpr *CE, const FunctionDecl *Fn) {
  const Expr *Config;
  const Expr *Stream = streamOperand(CE, Config);
  return Config ? configStream(Config, Fn) : streamNamed(Stream, Fn);
}

const VarDecl *streamVariableOf(const CallExpr *CE) {
  const Expr *Config;
  const Expr *Stream = streamOperand(CE, Config);
  const auto *R = Stream && !Config ? dyn_cast<DeclRefExpr>(Stream->IgnoreParenImpCasts()) : nullptr;
  const auto *V = R ? dyn_cast<VarDecl>(R->getDecl()) : nullptr;
  return V && V->hasLocalStorage() && !isa<ParmVarDecl>(V) && !V->getType()->isReferenceType() ? V
                                                                                              : nullptr;
}

std::optional<HostWait> hostWaitOf(const CallExpr *CE, const FunctionDecl *Fn) {
  const CudaApi *Api = cudaApiOf(CE);
  if (!Api || Api->Role != ApiRole::Synchronize)
    return std::nullopt;
  HostWait W;
  W.All = Api->AllStreams;
  const FunctionDecl *FD = CE->getDirectCallee();
  W.Stream = std::nullopt;
  // Not a stream operand of streamOperand's: a wait enqueues no work.
  for (unsigned I = 0; !W.All && FD && I < CE->getNumArgs() && I < FD->getNumParams(); ++I)
    if (isStreamType(FD->getParamDecl(I)->getType()))
      W.Stream = streamNamed(CE->getArg(I), Fn);
  return W;
}

bool onLegacyStream(const CallExpr *CE) {
  // nvcc --default-stream per-thread defines it (CompileDatabase's
  // translation does too): a launch with no stream goes to the thread's.
  if (CE->getCalleeDecl() &&
      CE->getCalleeDecl()->getASTContext().Idents.get("CUDA_API_PER_THREAD_DEFAULT_STREAM")
          .hasMacroDefinition())
    return false;
  const Expr *Config;
  const Expr *Stream = streamOperand(CE, Config);
  if (Config)
    return false;
  if (!Stream)
    return true;
  if (const auto *DA = dyn_cast<CXXDefaultArgExpr>(Stream))
    Stream = DA->getExpr();
  // cudaStreamPerThread (2) is the thread's stream, which a graph may capture.
  const auto *IL = dyn_cast<IntegerLiteral>(Stream->IgnoreParenCasts());
  return isDefaultStream(Stream) && !(IL && IL->getValue() == 2);
}

bool mayHoldStream(const CudaApi &Api) {
  return Api.Role == ApiRole::HostCallback || Api.Role == ApiRole::StreamWait;
}

bool enqueuesOnOtherStream(const CallExpr *CE, const FunctionDecl *Fn) {
  // Asked of every call (the collector): which variable names the stream
  // does not matter here, so the body is walked only for a configuration.
  const Expr *Config;
  const Expr *Stream = streamOperand(CE, Config);
  if (Config) {
    std::optional<const ValueDecl *> S = configStream(Config, Fn);
    return !S || *S;
  }
  return Stream && !isDefaultStream(Stream);
}

} // namespace tma::analysis
