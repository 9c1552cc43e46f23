// One pass over one CUDA side: the components, wired through their
// constructors (each names the components it calls), and the phases in
// order. It proposes edits and blockers; the planner decides.
#include "tma/PassAnalysis.h"

#include "core/PassContext.h"
#include "device/KernelSignatures.h"
#include "device/UseWalker.h"
#include "host/ArgumentArrays.h"
#include "host/ConstantMemory.h"
#include "host/HostBuffers.h"
#include "host/KernelRefs.h"
#include "host/LaunchArgs.h"
#include "host/Launchers.h"
#include "host/ObjectReach.h"
#include "host/PointerLaunches.h"
#include "host/Retargeting.h"
#include "host/UploadHelpers.h"

namespace tma {

using namespace analysis;

namespace {

/// The components of one pass, each constructed with the ones it calls.
/// Launchers and LaunchArgs call each other (a launcher's parameter is
/// traced through the launcher's calls): Launchers gets a callback bound
/// to LaunchArgs, which is constructed after it.
struct PassComponents {
  explicit PassComponents(PassContext &P)
      : Walker(P), Signatures(P, Walker), Reach(P), KernelRefChecks(P),
        LauncherFlow(P,
                     [this](const KernelLaunch &KL, unsigned I, const clang::FunctionDecl *Fn,
                            unsigned Depth, const std::vector<TextEdit> &Extra) {
                       LaunchArgFlow.analyzeLaunchArg(KL, I, Fn, Depth, Extra);
                     }),
        Buffers(P, LauncherFlow, Reach), UploadFlow(P, Buffers, Reach),
        LaunchArgFlow(P, Buffers, LauncherFlow, UploadFlow),
        Constants(P, Walker, Signatures, Buffers), PointerFlow(P, KernelRefChecks, LaunchArgFlow),
        ArgArrays(P) {}

  UseWalker Walker;
  KernelSignatures Signatures;
  ObjectReach Reach;
  KernelRefs KernelRefChecks;
  Launchers LauncherFlow;
  HostBuffers Buffers;
  UploadHelpers UploadFlow;
  LaunchArgs LaunchArgFlow;
  ConstantMemory Constants;
  PointerLaunches PointerFlow;
  ArgumentArrays ArgArrays;
};

} // namespace

PassFacts analyzePass(clang::ASTContext &Ctx, llvm::StringRef Side, const AnalysisOptions &Opts) {
  PassContext P(Ctx, Side, Opts);
  PassComponents C(P);
  // Reads the AST; writes the collected facts.
  collect(P);
  // Device side: each kernel's parameters and uses -> Out.Params.
  for (const clang::FunctionDecl *K : P.Kernels)
    C.Signatures.analyzeKernel(K);
  // H12: writes ConstantParamKeys, read by every later phase through paramKeysOf.
  C.Constants.analyzeConstantDescriptors();
  // K4, before any device buffer's uses are classified: writes
  // PointerTargets (read by HostBuffers) and AcceptedKernelRefs.
  for (auto &[V, Where] : P.PointerLaunches)
    C.PointerFlow.analyzePointerLaunches(V, Where.first, Where.second);
  C.PointerFlow.analyzeDeferredLaunches();
  // H4: adds the resolved array launches to Launches; writes ArraySlots.
  for (auto &[CE, Fn] : P.ArrayLaunchCalls)
    C.ArgArrays.resolveArrayLaunch(CE, Fn);
  // Every launch's descriptor arguments -> Out.Launches, Out.Buffers.
  for (auto &[KL, Fn] : P.Launches)
    C.LaunchArgFlow.analyzeLaunch(KL, Fn);
  // H7 across TUs: calls of launchers whose body another TU holds.
  C.LauncherFlow.analyzeForeignCalls();
  // The storage rule: refused arguments whose storage it retargets.
  retargetRefusedLaunches(P);
  // What is left: references that are not launches, lookups by name.
  for (auto &[R, Fn] : P.KernelRefs)
    C.KernelRefChecks.analyzeKernelRef(R, Fn);
  C.KernelRefChecks.blockNameLookups();
  return std::move(P.Out);
}

} // namespace tma
