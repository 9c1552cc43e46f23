// One pass over one CUDA side: the phases in order, each a component of its
// own (core/, device/, host/). It proposes edits and blockers; the planner decides.
#include "tma/PassAnalysis.h"

#include "core/PassContext.h"
#include "device/Device.h"
#include "host/Host.h"
#include "host/Retargeting.h"

namespace tma {

using namespace analysis;

PassFacts analyzePass(clang::ASTContext &Ctx, llvm::StringRef Side, const AnalysisOptions &Opts) {
  PassContext P(Ctx, Side, Opts);
  // Reads the AST; writes the collected facts.
  collect(P);
  // Device side: each kernel's parameters and uses -> Out.Params.
  for (const clang::FunctionDecl *K : P.Kernels)
    P.Signatures->analyzeKernel(K);
  // H12: writes ConstantParamKeys, read by every later phase through paramKeysOf.
  P.Constants->analyzeConstantDescriptors();
  // K4, before any device buffer's uses are classified: writes
  // PointerTargets (read by HostBuffers) and AcceptedKernelRefs.
  for (auto &[V, Where] : P.PointerLaunches)
    P.PointerFlow->analyzePointerLaunches(V, Where.first, Where.second);
  P.PointerFlow->analyzeDeferredLaunches();
  // H4: adds the resolved array launches to Launches; writes ArraySlots.
  for (auto &[CE, Fn] : P.ArrayLaunchCalls)
    P.ArgArrays->resolveArrayLaunch(CE, Fn);
  // Every launch's descriptor arguments -> Out.Launches, Out.Buffers.
  for (auto &[KL, Fn] : P.Launches)
    P.LaunchArgFlow->analyzeLaunch(KL, Fn);
  // H7 across TUs: calls of launchers whose body another TU holds.
  P.LauncherFlow->analyzeForeignCalls();
  // The storage rule: refused arguments whose storage it retargets.
  retargetRefusedLaunches(P);
  // What is left: references that are not launches, lookups by name.
  for (auto &[R, Fn] : P.KernelRefs)
    P.KernelRefChecks->analyzeKernelRef(R, Fn);
  P.KernelRefChecks->blockNameLookups();
  return std::move(P.Out);
}

} // namespace tma
