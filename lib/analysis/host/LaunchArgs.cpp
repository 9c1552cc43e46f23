// Every descriptor argument of every launch, traced back to its host
// descriptor through the host flows (launcher, cache, upload helper, buffer).
#include "Host.h"

#include "clang/AST/ExprCXX.h"

using namespace clang;

namespace tma::analysis {

void LaunchArgs::analyzeLaunch(const KernelLaunch &KL, const FunctionDecl *Fn) {
  for (unsigned I : descriptorParamIndexes(KL.Kernel))
    if (I < KL.Args.size() && KL.Args[I])
      analyzeLaunchArg(KL, I, Fn, 0, {});
}

void LaunchArgs::analyzeLaunchArg(const KernelLaunch &KL, unsigned Index,
                                    const FunctionDecl *Fn, unsigned Depth,
                                    const std::vector<TextEdit> &Extra) {
  const FunctionDecl *K = KL.Kernel;
  const Expr *CE = KL.E;
  for (unsigned I : {Index}) { // one iteration: `continue` ends the argument
    if (I >= KL.Args.size())
      continue;
    LaunchSite LS;
    LS.ParamKey = paramKey(K, I);
    LS.KernelName = patternOf(K)->getQualifiedNameAsString();
    const Expr *Arg = KL.Args[I];
    LS.Where = ST.point(Arg->getBeginLoc());
    LS.ReliesOn.push_back(spanOf(Fn));
    LS.HostDescriptor = spelled(Arg);
    auto Refuse = [&](DiagID ID, std::string Msg, SourceLocation L,
                      std::vector<Note> Notes = {}) {
      LS.Blockers.push_back({ID, std::move(Msg), ST.point(L), std::move(Notes)});
      Out.Launches.push_back(LS);
    };
    if (Fn->hasAttr<CUDAGlobalAttr>() || Fn->hasAttr<CUDADeviceAttr>()) {
      Refuse(DiagID::LaunchNotRewritable,
             "'" + LS.KernelName + "' is launched from device code", CE->getBeginLoc());
      continue;
    }
    const auto *DR = dyn_cast<DeclRefExpr>(Arg->IgnoreParenImpCasts());
    const auto *V = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
    if (!V) {
      Refuse(DiagID::HostNotTraceable,
             "the descriptor argument '" + LS.HostDescriptor +
                 "' is not a variable holding a device copy",
             Arg->getBeginLoc());
      continue;
    }
    if (const auto *PV = dyn_cast<ParmVarDecl>(V)) {
      // H7: a launcher function forwards its parameter; its callers pass
      // the device copy.
      if (std::optional<Blocker> Why = Pass.LauncherFlow->forwardThroughLauncher(KL, I, PV, Fn, Depth, LS, Extra)) {
        LS.Blockers.push_back(std::move(*Why));
        Out.Launches.push_back(LS);
      }
      continue;
    }
    // H8: a static cache `static CUtensorMap *d = nullptr; if (!d) d =
    // upload(...);`: the helper returns the descriptor, the cache keeps it
    // on the host (`d = new CUtensorMap(upload(...))`), launches pass `*d`.
    if (V->isStaticLocal() && isDescriptorPointer(V->getType())) {
      const FunctionDecl *Helper = nullptr;
      for (const DeclRefExpr *R : index(Fn).Refs[V]) {
        const auto *BO = dyn_cast_or_null<BinaryOperator>(parent(Fn, R));
        if (!BO || BO->getOpcode() != BO_Assign || BO->getLHS()->IgnoreParens() != R)
          continue;
        const auto *Call = dyn_cast<CallExpr>(BO->getRHS()->IgnoreImplicit());
        const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
        if (Callee && !isKernel(Callee) && isDescriptorPointer(Callee->getReturnType()))
          Helper = Callee;
      }
      std::optional<CharSourceRange> ArgRange = ST.fileRange(DR->getSourceRange());
      if (Helper && ArgRange) {
        const UploadGroup &G = Pass.UploadFlow->uploadGroup(Helper);
        if (G.Why) {
          LS.Blockers.push_back(*G.Why);
          Out.Launches.push_back(LS);
          continue;
        }
        LS.BufferKey = G.BufferKey;
        LS.HostDescriptor = "*" + V->getNameAsString();
        LS.Edits.push_back(ST.insertBefore(ArgRange->getBegin(), "*"));
        llvm::append_range(LS.Edits, Extra);
        Out.Launches.push_back(std::move(LS));
        continue;
      }
    }
    if (!V->hasLocalStorage() || V->isStaticLocal()) {
      Refuse(DiagID::HostNotTraceable,
             "'" + V->getNameAsString() + "' is not a local variable of '" +
                 Fn->getQualifiedNameAsString() + "'",
             Arg->getBeginLoc());
      continue;
    }
    std::optional<CharSourceRange> ArgRange = ST.fileRange(DR->getSourceRange());
    if (!ArgRange) {
      Refuse(DiagID::InMacro,
             "the argument '" + V->getNameAsString() + "' is spelled inside a macro body",
             Arg->getBeginLoc());
      continue;
    }
    // H6: the variable holds what an upload helper returned.
    if (const auto *Init = dyn_cast_or_null<CallExpr>(V->getInit() ? V->getInit()->IgnoreImplicit()
                                                                   : nullptr);
        Init && Init->getDirectCallee() && !isKernel(Init->getDirectCallee()) &&
        isDescriptorPointer(Init->getDirectCallee()->getReturnType())) {
      const UploadGroup &G = Pass.UploadFlow->uploadGroup(Init->getDirectCallee());
      if (G.Why) {
        LS.Blockers.push_back(*G.Why);
        Out.Launches.push_back(LS);
        continue;
      }
      LS.BufferKey = G.BufferKey;
      LS.HostDescriptor = V->getNameAsString();
      llvm::append_range(LS.Edits, Extra);
      Out.Launches.push_back(std::move(LS));
      continue;
    }
    DeviceBuffer &Buf = Pass.Buffers->bufferFacts(V, Fn);
    LS.BufferKey = Buf.Key;
    // The copy that reaches this launch: in a block around the launch, before it.
    const Stmt *Launch = CE;
    const CopyInfo *Reaching = nullptr;
    for (const CopyInfo &C : Pass.BufferCopies[V]) {
      if (!runsWhenReached(C.Call, C.Top, Fn))
        continue; // under a condition or in a loop body: it may not run
      const Stmt *Block = parent(Fn, C.Top);
      if (!Block || !isAncestor(Block, Launch, Fn) || isAncestor(C.Top, Launch, Fn))
        continue;
      if (offsetOf(C.Top->getEndLoc()) >= offsetOf(CE->getBeginLoc()))
        continue;
      if (!Reaching || offsetOf(C.Top->getBeginLoc()) > offsetOf(Reaching->Top->getBeginLoc()))
        Reaching = &C;
    }
    if (!Reaching) {
      Refuse(DiagID::HostNotTraceable,
             "no cudaMemcpy of a host descriptor into '" + V->getNameAsString() +
                 "' reaches this launch",
             Arg->getBeginLoc(), {{"'" + V->getNameAsString() + "' is declared here", Buf.Where}});
      continue;
    }
    std::vector<Note> CopyNote{{"copied here", ST.point(Reaching->Call->getBeginLoc())}};
    // Anything else that may change the device copy in between.
    bool Blocked = false;
    for (const CopyInfo &C : Pass.BufferCopies[V])
      if (&C != Reaching && between(Reaching->Top, Launch, C.Call, Fn)) {
        Refuse(DiagID::HostNotTraceable,
               "'" + V->getNameAsString() + "' is copied again between the copy and the launch",
               C.Call->getBeginLoc(), CopyNote);
        Blocked = true;
        break;
      }
    for (const Stmt *O : Pass.BufferOtherUses[V])
      if (!Blocked && between(Reaching->Top, Launch, O, Fn)) {
        Refuse(DiagID::HostNotTraceable,
               "'" + V->getNameAsString() +
                   "' is used between the copy and the launch; it may no longer hold the copied value",
               O->getBeginLoc(), CopyNote);
        Blocked = true;
      }
    if (Blocked)
      continue;
    std::string HostDescriptor;
    if (std::optional<Blocker> Why =
            Pass.Buffers->hostDescriptorAt(Reaching->Call, Reaching->Top, Launch,
                             KL.ArgsDecl ? KL.ArgsDecl : Launch, Fn, Arg->getBeginLoc(),
                             V->getNameAsString(), HostDescriptor)) {
      LS.Blockers.push_back(std::move(*Why));
      Out.Launches.push_back(LS);
      continue;
    }
    LS.HostDescriptor = HostDescriptor;
    LS.Edits.push_back(ST.replace(*ArgRange, LS.HostDescriptor));
    llvm::append_range(LS.Edits, Extra);
    Out.Launches.push_back(std::move(LS));
  }
}

} // namespace tma::analysis
