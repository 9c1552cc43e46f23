// The collector: one walk over the translation unit that records kernels,
// launches and every reference the components need (PassContext's inputs).
#include "PassContext.h"

#include "CudaApi.h"
#include "GenericLambdas.h"
#include "StreamHolds.h"

#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;

namespace tma::analysis {
namespace {

class Collector : public RecursiveASTVisitor<Collector> {
public:
  explicit Collector(PassContext &A) : A(A) {}
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitImplicitCode() const { return false; }

  bool TraverseDecl(Decl *D) {
    if (!D)
      return true;
    if (!isa<TranslationUnitDecl, NamespaceDecl, LinkageSpecDecl>(D) &&
        A.ST.inSystemHeader(D->getLocation()))
      return true;
    auto *FD = dyn_cast<FunctionDecl>(D);
    bool Push = FD && FD->doesThisDeclarationHaveABody();
    if (Push)
      Stack.push_back(FD);
    bool R = RecursiveASTVisitor::TraverseDecl(D);
    if (Push)
      Stack.pop_back();
    return R;
  }

  // A generic lambda runs as the instantiations of its call operator, each
  // walked as a function of its own; its dependent pattern is not.
  bool TraverseLambdaExpr(LambdaExpr *LE) {
    if (std::optional<bool> Walked = traverseInstantiationsOf(*this, LE))
      return *Walked;
    return RecursiveASTVisitor::TraverseLambdaExpr(LE);
  }

  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (isKernel(FD) && !descriptorParamIndexes(FD).empty())
      A.Kernels.push_back(FD);
    if (const Stmt *L = pollingLoop(FD)) {
      if (!A.StreamHold) {
        A.StreamHold = L;
        A.StreamHoldWhat = "'" + FD->getNameAsString() +
                           "' waits in a loop on memory that code running later may write";
      }
      if (FD->hasAttr<CUDAGlobalAttr>())
        A.PollingKernelUses.try_emplace(FD->getCanonicalDecl());
      else
        A.PollsInDeviceFunction = true;
    }
    return true;
  }
  bool VisitCallExpr(CallExpr *CE) {
    if (!Stack.empty())
      if (std::optional<KernelLaunch> L = asLaunch(CE))
        A.Launches.push_back({*L, Stack.back()});
    if (const auto *KC = dyn_cast<CUDAKernelCallExpr>(CE); KC && !Stack.empty())
      if (const VarDecl *V = functionPointerCallee(KC)) {
        auto &Entry = A.PointerLaunches[V];
        Entry.first = Stack.back();
        Entry.second.push_back(KC);
      }
    const CudaApi *Api = cudaApiOf(CE);
    if (Api && Api->Role == ApiRole::GraphCapture && !A.GraphCall)
      A.GraphCall = CE;
    if (Api && mayHoldStream(*Api)) {
      if (!A.StreamHold) {
        A.StreamHold = CE;
        A.StreamHoldWhat = "'" + Api->Name.str() + "' " +
                           (Api->Role == ApiRole::HostCallback
                                ? "runs host code on a stream, which may wait for the program"
                                : "makes a stream wait for a value in memory");
      }
      A.HoldCalls.push_back({CE, Stack.empty() ? nullptr : Stack.back()});
    }
    // A `<<<>>>` launch of a polling kernel holds its stream.
    if (const auto *KC = dyn_cast<CUDAKernelCallExpr>(CE))
      if (const FunctionDecl *K = KC->getDirectCallee(); K && polls(K)) {
        ++PollingLaunches[K->getCanonicalDecl()];
        A.HoldCalls.push_back({CE, Stack.empty() ? nullptr : Stack.back()});
      }
    if (Api && Api->Role == ApiRole::EventWait && !A.EventWait)
      A.EventWait = CE;
    if (Api && Api->Role == ApiRole::GraphCapture)
      A.CaptureCalls.push_back({CE, Stack.empty() ? nullptr : Stack.back()});
    if (!Stack.empty() && enqueuesOnOtherStream(CE, Stack.back())) {
      if (!A.OtherStreamCall)
        A.OtherStreamCall = CE;
      A.OtherStreamCalls.try_emplace(Stack.back(), CE);
    }
    if (const FunctionDecl *Callee = CE->getDirectCallee(); Callee && !Stack.empty())
      if (const FunctionDecl *Def = Callee->getDefinition();
          Def && !A.ST.inSystemHeader(Def->getLocation()))
        A.Callees[Stack.back()].insert(Def);
    if (!Stack.empty() && Api && Api->Role == ApiRole::LaunchArray)
      A.ArrayLaunchCalls.push_back({CE, Stack.back()});
    if (Api && Api->Role == ApiRole::NameLookup && CE->getNumArgs() > unsigned(Api->NameArg)) {
      const auto *Lit = dyn_cast<StringLiteral>(CE->getArg(Api->NameArg)->IgnoreParenImpCasts());
      A.NameLookups.push_back({Lit ? Lit->getString().str() : std::string(), CE});
    }
    return true;
  }
  bool VisitVarDecl(VarDecl *V) {
    if (isConstantDescriptor(V))
      A.ConstantRefs[V->getCanonicalDecl()]; // known even when unused
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *R) {
    if (const auto *V = dyn_cast<VarDecl>(R->getDecl()); isConstantDescriptor(V))
      A.ConstantRefs[V->getCanonicalDecl()].push_back({R, Stack.empty() ? nullptr : Stack.back()});
    if (const auto *V = dyn_cast<VarDecl>(R->getDecl());
        V && V->hasGlobalStorage() && !V->isStaticLocal() &&
        V->getDeclContext()->getRedeclContext()->isFileContext() &&
        isDescriptorPointer(V->getType()))
      A.FileScopePointerRefs[V->getCanonicalDecl()].push_back(
          {R, Stack.empty() ? nullptr : Stack.back()});
    auto *FD = dyn_cast<FunctionDecl>(R->getDecl());
    if (FD && FD->hasAttr<CUDAGlobalAttr>() && polls(FD))
      ++PollingRefs[FD->getCanonicalDecl()];
    if (isKernel(FD))
      A.KernelRefs.push_back({R, Stack.empty() ? nullptr : Stack.back()});
    if (FD && !isKernel(FD) && isDescriptorPointer(FD->getReturnType()))
      A.UploadRefs[FD->getCanonicalDecl()].push_back({R, Stack.empty() ? nullptr : Stack.back()});
    else if (FD && !isKernel(FD) && !descriptorParamIndexes(FD).empty())
      A.LauncherRefs[FD->getCanonicalDecl()].push_back({R, Stack.empty() ? nullptr : Stack.back()});
    return true;
  }

  /// References and `<<<>>>` launches of each polling kernel.
  std::map<const FunctionDecl *, unsigned> PollingRefs, PollingLaunches;

private:
  /// Does kernel \p K's definition hold a polling loop? Asked at every
  /// reference and launch: each body is walked once.
  bool polls(const FunctionDecl *K) {
    const FunctionDecl *Def = K->getDefinition();
    Def = Def ? Def : K;
    auto [It, New] = Polls.try_emplace(Def, false);
    if (New)
      It->second = pollingLoop(Def) != nullptr;
    return It->second;
  }
  std::map<const FunctionDecl *, bool> Polls;
  PassContext &A;
  std::vector<const FunctionDecl *> Stack;
};

} // namespace

void collect(PassContext &P) {
  Collector C(P);
  C.TraverseDecl(P.Ctx.getTranslationUnitDecl());
  for (auto &[K, Refs] : C.PollingRefs)
    P.PollingKernelUses[K] = {Refs, C.PollingLaunches[K]};
  P.finishStreamHolds();
}

} // namespace tma::analysis
