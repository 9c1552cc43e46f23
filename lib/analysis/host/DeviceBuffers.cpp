// Device buffers: a host variable holding a device copy, with its
// allocation, copies, frees and launches, each with the edit that removes it.
#include "Host.h"

#include "../core/CudaApi.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;

namespace tma::analysis {

std::vector<TextEdit> HostBuffers::removeHostCall(const CallExpr *CE,
                                                   const FunctionDecl *Fn) {
  const Stmt *Cur = CE;
  const Stmt *P = parent(Fn, Cur);
  while (P && (isa<ExprWithCleanups>(P) || isa<ParenExpr>(P) ||
               (isa<CStyleCastExpr>(P) && cast<Expr>(P)->getType()->isVoidType()))) {
    Cur = P;
    P = parent(Fn, P);
  }
  if (P && isa<CompoundStmt>(P)) {
    if (std::optional<TextEdit> E = ST.removeStatement(Cur->getSourceRange()))
      return {*E};
    return {};
  }
  // An error-checking macro around exactly this call: CHECK(cudaFree(d));
  const Stmt *Top = topStatement(CE, Fn);
  std::optional<CharSourceRange> TopR = ST.fileRange(Top->getSourceRange());
  std::optional<CharSourceRange> CallR = ST.fileRange(CE->getSourceRange());
  if (!TopR || !CallR || !Top->getBeginLoc().isMacroID())
    return {};
  const SourceManager &SM = Ctx.getSourceManager();
  unsigned TB = SM.getFileOffset(TopR->getBegin()), TE = SM.getFileOffset(TopR->getEnd());
  unsigned CB = SM.getFileOffset(CallR->getBegin()), CEnd = SM.getFileOffset(CallR->getEnd());
  if (SM.getFileID(TopR->getBegin()) != SM.getFileID(CallR->getBegin()) || CB < TB ||
      CEnd > TE)
    return {};
  StringRef Buf = SM.getBufferData(SM.getFileID(TopR->getBegin()));
  StringRef Before = Buf.slice(TB, CB).trim();
  StringRef After = Buf.slice(CEnd, TE).trim();
  if (!Before.ends_with("(") || After != ")")
    return {};
  StringRef Macro = Before.drop_back().trim();
  if (Macro.empty() || !llvm::all_of(Macro, [](char C) { return isAsciiIdentifierContinue(C); }))
    return {};
  if (std::optional<TextEdit> E = ST.removeStatement(Top->getSourceRange()))
    return {*E};
  return {};
}

/// A host-to-device copy of one whole descriptor: 128 bytes and, where the
/// API takes a kind, cudaMemcpyHostToDevice or cudaMemcpyDefault.
static bool isWholeDescriptorCopy(const CallExpr *Call, const CudaApi &Api, ASTContext &Ctx) {
  if (Api.Role != ApiRole::Copy || Call->getNumArgs() <= unsigned(std::max(Api.SizeArg, Api.KindArg)))
    return false;
  Expr::EvalResult Size, Kind;
  if (!Call->getArg(Api.SizeArg)->EvaluateAsInt(Size, Ctx) || Size.Val.getInt() != 128)
    return false;
  return Api.KindArg < 0 ||
         (Call->getArg(Api.KindArg)->EvaluateAsInt(Kind, Ctx) &&
          (Kind.Val.getInt() == 1 /*HostToDevice*/ || Kind.Val.getInt() == 4 /*Default*/));
}

DeviceBuffer &HostBuffers::bufferFacts(const VarDecl *V, const FunctionDecl *Fn) {
  auto It = BufferSlot.find(V);
  if (It != BufferSlot.end())
    return Out.Buffers[It->second];
  DeviceBuffer B;
  B.Where = ST.point(V->getLocation());
  B.Key = B.Where.File + ":" + std::to_string(B.Where.Offset);
  B.Name = V->getNameAsString();
  std::vector<CopyInfo> &Copies = Pass.BufferCopies[V];
  std::vector<const Stmt *> &Others = Pass.BufferOtherUses[V];

  // The declaration.
  {
    HostUse U;
    U.Kind = HostUseKind::Declaration;
    U.Where = B.Where;
    U.What = "declaration of '" + B.Name + "'";
    const DeclStmt *DS = declStmtOf(V, Fn);
    const Expr *Init = V->getInit();
    bool TrivialInit = !Init || Init->IgnoreParenImpCasts()->isNullPointerConstant(
                                    Ctx, Expr::NPC_ValueDependentIsNotNull) != Expr::NPCK_NotNull;
    if (DS && TrivialInit && isa_and_nonnull<CompoundStmt>(parent(Fn, DS))) {
      // `CUtensorMap *d_a = nullptr, *d_b = nullptr;`: the statement goes
      // when every variable it declares goes (the planner checks that).
      bool SiblingsPlain = true;
      for (const Decl *D : DS->decls())
        if (D != V) {
          const auto *Other = dyn_cast<VarDecl>(D);
          if (!Other) {
            SiblingsPlain = false;
            break;
          }
          SourcePoint OP = ST.point(Other->getLocation());
          U.SharedWith.push_back(OP.File + ":" + std::to_string(OP.Offset));
        }
      if (SiblingsPlain)
        if (std::optional<TextEdit> E = ST.removeStatement(DS->getSourceRange()))
          U.Removal.push_back(*E);
      if (U.Removal.empty())
        U.SharedWith.clear();
    }
    B.Uses.push_back(std::move(U));
  }

  auto RefsIt = index(Fn).Refs.find(V);
  if (RefsIt != index(Fn).Refs.end())
    for (const DeclRefExpr *R : RefsIt->second) {
      if (inUnevaluatedOperand(R, Fn))
        continue; // sizeof(*d) reads nothing
      HostUse U;
      U.Where = ST.point(R->getBeginLoc());
      U.Kind = HostUseKind::Other;
      U.What = "use of '" + B.Name + "'";
      const Stmt *Cur = R;
      const Stmt *P = parent(Fn, Cur);
      auto Climb = [&] {
        while (P && (isa<ParenExpr>(P) || isa<ImplicitCastExpr>(P) || isa<ExplicitCastExpr>(P))) {
          Cur = P;
          P = parent(Fn, P);
        }
      };
      const CallExpr *Call = nullptr;
      bool AddrTaken = false;
      if (const auto *UO = dyn_cast_or_null<UnaryOperator>(P);
          UO && UO->getOpcode() == UO_AddrOf) {
        AddrTaken = true;
        Cur = UO;
        P = parent(Fn, UO);
      }
      Climb();
      Call = dyn_cast_or_null<CallExpr>(P);
      std::string Name = Call ? driverBaseName(calleeName(Call)).str() : "";
      bool FirstArg = Call && Call->getNumArgs() > 0 && Call->getArg(0) == Cur;
      std::optional<std::pair<const FunctionDecl *, unsigned>> Forwarded;
      if (const auto *LC = dyn_cast_or_null<CallExpr>(P); LC && !AddrTaken && LC->getDirectCallee())
        for (unsigned J = 0; J < LC->getNumArgs(); ++J)
          if (LC->getArg(J) == Cur && !isKernel(LC->getDirectCallee()) &&
              llvm::is_contained(descriptorParamIndexes(LC->getDirectCallee()), J))
            Forwarded = Pass.LauncherFlow->launcherTarget(LC->getDirectCallee(), J);
      if (Forwarded) {
        U.Kind = HostUseKind::Launch;
        U.What = "call of launcher '" + calleeName(cast<CallExpr>(P)) + "'";
        U.ParamKey = paramKey(Forwarded->first, Forwarded->second);
      } else if (auto Slot = Pass.ArraySlots.find(R); Slot != Pass.ArraySlots.end()) {
        U.Kind = HostUseKind::Launch;
        U.What = "launch of '" + patternOf(Slot->second.first)->getQualifiedNameAsString() + "'";
        U.ParamKey = paramKey(Slot->second.first, Slot->second.second);
      } else if (auto PL = Pass.PointerTargets.find(dyn_cast_or_null<CUDAKernelCallExpr>(P));
                 P && PL != Pass.PointerTargets.end()) {
        // One launch of each kernel the pointer may hold (K4).
        for (unsigned I = 0; I < PL->first->getNumArgs(); ++I)
          if (PL->first->getArg(I) == Cur && !AddrTaken)
            for (const FunctionDecl *K : PL->second)
              if (I < K->getNumParams() && isDescriptorPointer(K->getParamDecl(I)->getType())) {
                if (U.Kind == HostUseKind::Launch)
                  B.Uses.push_back(U);
                U.Kind = HostUseKind::Launch;
                U.What = "launch of '" + patternOf(K)->getQualifiedNameAsString() + "'";
                U.ParamKey = paramKey(K, I);
              }
      } else if (std::optional<KernelLaunch> KL = asLaunch(P)) {
        const FunctionDecl *K = KL->Kernel;
        for (unsigned I = 0; I < KL->Args.size(); ++I)
          if (KL->Args[I] == Cur && !AddrTaken && I < K->getNumParams() &&
              isDescriptorPointer(K->getParamDecl(I)->getType())) {
            U.Kind = HostUseKind::Launch;
            U.What = "launch of '" + patternOf(K)->getQualifiedNameAsString() + "'";
            U.ParamKey = paramKey(K, I);
          }
      } else if (const CudaApi *Api = cudaApiOf(Call); Api && FirstArg) {
        if (AddrTaken && Api->Role == ApiRole::Alloc)
          U.Kind = HostUseKind::Alloc;
        else if (!AddrTaken && Api->Role == ApiRole::Free)
          U.Kind = HostUseKind::Free;
        else if (!AddrTaken && isWholeDescriptorCopy(Call, *Api, Ctx)) {
          U.Kind = HostUseKind::Copy;
          Copies.push_back({Call, topStatement(Call, Fn)});
        }
      }
      if (U.Kind == HostUseKind::Alloc || U.Kind == HostUseKind::Copy ||
          U.Kind == HostUseKind::Free) {
        U.What = Name;
        U.Removal = removeHostCall(Call, Fn);
      }
      if (U.Kind == HostUseKind::Other)
        Others.push_back(R);
      B.Uses.push_back(std::move(U));
    }
  BufferSlot[V] = Out.Buffers.size();
  Out.Buffers.push_back(std::move(B));
  return Out.Buffers.back();
}

} // namespace tma::analysis
