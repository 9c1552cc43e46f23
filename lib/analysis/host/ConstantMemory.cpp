// H12: `__constant__ CUtensorMap` symbols filled by cudaMemcpyToSymbol become
// a by-value parameter of each kernel that reads them.
#include "Host.h"
#include "../device/Device.h"

#include "../core/CudaApi.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;

namespace tma::analysis {

void ConstantMemory::analyzeConstantDescriptors() {
  // What is known of each symbol before any kernel is decided.
  struct SymbolCopy {
    const CallExpr *Call;
    const Stmt *Top;
  };
  struct Symbol {
    const VarDecl *V;
    std::string Name, Type;
    DeviceBuffer Buf;
    std::vector<Blocker> Everyone; // blocks the parameter of every kernel
    std::map<const FunctionDecl *, std::vector<SymbolCopy>> Copies;
    std::map<const FunctionDecl *, std::vector<const DeclRefExpr *>> KernelRefsTo;
  };
  std::vector<Symbol> Symbols;
  // Kernel patterns, each with the symbols it reads (in declaration order).
  std::vector<std::pair<const FunctionDecl *, std::vector<size_t>>> Readers;
  auto ReaderOf = [&](const FunctionDecl *K) -> std::vector<size_t> & {
    for (auto &[R, Syms] : Readers)
      if (R == K)
        return Syms;
    Readers.push_back({K, {}});
    return Readers.back().second;
  };
  for (auto &[V, Refs] : Pass.ConstantRefs) {
    Symbols.emplace_back();
    Symbol &S = Symbols.back();
    S.V = V;
    S.Name = V->getNameAsString();
    const VarDecl *Def = V->getDefinition() ? V->getDefinition() : V;
    SourcePoint DefAt = ST.point(Def->getLocation());
    S.Buf.Key = "constant:" + DefAt.File + ":" + std::to_string(DefAt.Offset);
    S.Buf.Name = S.Name;
    S.Buf.Where = DefAt;
    // The type as its declaration spells it (an alias stays an alias).
    S.Type = "CUtensorMap";
    if (TypeSourceInfo *TSI = Def->getTypeSourceInfo())
      if (std::optional<CharSourceRange> R = ST.fileRange(TSI->getTypeLoc().getSourceRange()))
        S.Type = ST.text(*R);

    // The declaration goes when everything else does; one declaration only
    // (an `extern` one elsewhere is code this run may not see).
    HostUse DeclUse;
    DeclUse.Kind = HostUseKind::Declaration;
    DeclUse.Where = DefAt;
    DeclUse.What = "declaration of '" + S.Name + "'";
    SourceLocation Begin = Def->getSourceRange().getBegin();
    if (const auto *A = Def->getAttr<CUDAConstantAttr>()) {
      SourceLocation AL = ST.SM.getExpansionLoc(A->getLocation());
      if (AL.isValid() && ST.SM.isBeforeInTranslationUnit(AL, Begin))
        Begin = AL;
    }
    // Default-initialised only (a class type has an implicit constructor
    // call): an initialiser would be a value the copies do not explain.
    const auto *Init = dyn_cast_or_null<CXXConstructExpr>(Def->getInit());
    bool Plain = !Def->getInit() || (Init && Init->getNumArgs() == 0 &&
                                     Init->getConstructor()->isTrivial());
    if (llvm::range_size(V->redecls()) == 1 && Plain && !ST.inSystemHeader(Def->getLocation()))
      if (std::optional<TextEdit> E = ST.removeStatement(SourceRange(Begin, Def->getEndLoc()))) {
        // A declaration between two blank lines takes one of them along.
        llvm::StringRef Text = ST.SM.getBufferData(ST.SM.getFileID(ST.SM.getExpansionLoc(Begin)));
        size_t End = E->Offset + E->Length;
        if (E->Offset >= 2 && Text.substr(E->Offset - 2, 2) == "\n\n" && End < Text.size() &&
            Text[End] == '\n' && Text[End - 1] == '\n')
          ++E->Length;
        DeclUse.Removal.push_back(*E);
      }
    if (DeclUse.Removal.empty())
      DeclUse.Kind = HostUseKind::Other;
    S.Buf.Uses.push_back(std::move(DeclUse));

    for (const auto &[R, Fn] : Refs) {
      if (!Fn) {
        S.Everyone.push_back({DiagID::HostNotTraceable,
                              "'" + S.Name + "' is named outside any function here",
                              ST.point(R->getBeginLoc()), {}});
        continue;
      }
      if (isKernel(Fn)) {
        std::vector<size_t> &Syms = ReaderOf(patternOf(Fn));
        if (!llvm::is_contained(Syms, Symbols.size() - 1))
          Syms.push_back(Symbols.size() - 1);
        if (Fn->doesThisDeclarationHaveABody() && !Fn->isDependentContext())
          S.KernelRefsTo[Fn].push_back(R);
        continue;
      }
      if (inUnevaluatedOperand(R, Fn))
        continue;
      if (Fn->hasAttr<CUDADeviceAttr>()) {
        S.Everyone.push_back({DiagID::Escapes,
                              "'" + S.Name + "' is read in device function '" +
                                  Fn->getQualifiedNameAsString() +
                                  "', which would need the descriptor passed to it",
                              ST.point(R->getBeginLoc()), {}});
        continue;
      }
      // Host code: only whole-descriptor copies from the host into it.
      const Stmt *Cur = R, *P = parent(Fn, R);
      while (P && (isa<ParenExpr>(P) || isa<ImplicitCastExpr>(P) || isa<ExplicitCastExpr>(P) ||
                   (isa<UnaryOperator>(P) && cast<UnaryOperator>(P)->getOpcode() == UO_AddrOf))) {
        Cur = P;
        P = parent(Fn, P);
      }
      const auto *Call = dyn_cast_or_null<CallExpr>(P);
      std::string Callee = Call ? calleeName(Call) : "";
      bool WholeCopy = false;
      if (Call && cudaApi(Callee, ApiRole::SymbolCopy) &&
          Call->getNumArgs() >= 3 && Call->getArg(0) == Cur) {
        auto IntArg = [&](unsigned I, int64_t Default) -> std::optional<int64_t> {
          if (I >= Call->getNumArgs() || isa<CXXDefaultArgExpr>(Call->getArg(I)))
            return Default;
          Expr::EvalResult E;
          if (!Call->getArg(I)->EvaluateAsInt(E, Ctx))
            return std::nullopt;
          return E.Val.getInt().getExtValue();
        };
        std::optional<int64_t> Size = IntArg(2, -1), Offset = IntArg(3, 0), Kind = IntArg(4, 1);
        WholeCopy = Size == 128 && Offset == 0 && (Kind == 1 || Kind == 4);
      }
      HostUse U;
      U.Where = ST.point(R->getBeginLoc());
      if (!WholeCopy) {
        U.Kind = HostUseKind::Other;
        U.What = "use of '" + S.Name + "'";
        S.Buf.Uses.push_back(std::move(U));
        // Its contents could come from this use: by value a kernel would
        // not see them.
        S.Everyone.push_back({DiagID::HostNotTraceable,
                              "'" + S.Name +
                                  "' is used here other than by a cudaMemcpyToSymbol of a "
                                  "whole descriptor from the host",
                              ST.point(R->getBeginLoc()), {}});
        continue;
      }
      U.Kind = HostUseKind::Copy;
      U.What = Callee;
      U.Removal = Pass.Buffers->removeHostCall(Call, Fn);
      S.Copies[Fn].push_back({Call, topStatement(Call, Fn)});
      S.Buf.Uses.push_back(std::move(U));
    }
  }

  auto KeyOf = [&](const FunctionDecl *K, const Symbol &S) {
    return usrOf(K) + "#constant:" + S.Name;
  };
  // In source order, whatever the order of the map above.
  std::vector<size_t> Order(Symbols.size());
  for (size_t I = 0; I < Order.size(); ++I)
    Order[I] = I;
  llvm::sort(Order, [&](size_t A, size_t B) { return Symbols[A].Buf.Where < Symbols[B].Buf.Where; });
  for (auto &[K, Syms] : Readers)
    llvm::sort(Syms, [&](size_t A, size_t B) {
      return llvm::find(Order, A) < llvm::find(Order, B);
    });
  for (auto &[K, Syms] : Readers) {
    // One edit per declaration inserts every new parameter, shared by all
    // of them (they are tied: one list, all or nothing).
    std::string NewParams;
    std::vector<std::string> Keys;
    for (size_t I : Syms) {
      NewParams += "const __grid_constant__ " + Symbols[I].Type + " " + Symbols[I].Name;
      if (I != Syms.back())
        NewParams += ", ";
      Keys.push_back(KeyOf(K, Symbols[I]));
    }
    Pass.ConstantParamKeys[K] = Keys;
    if (Keys.size() > 1)
      Out.TiedParams.push_back({Keys, {"'" + K->getQualifiedNameAsString() +
                                           "' gains these parameters together",
                                       ST.point(K->getLocation())}});
    std::vector<TextEdit> Signature;
    std::vector<Blocker> SignatureBlockers;
    for (const FunctionDecl *Redecl : K->redecls()) {
      TypeSourceInfo *TSI = Redecl->getTypeSourceInfo();
      auto FTL = TSI ? TSI->getTypeLoc().getAsAdjusted<FunctionTypeLoc>() : FunctionTypeLoc();
      SourceLocation L = FTL ? FTL.getLParenLoc() : SourceLocation();
      SourceLocation RP = FTL ? FTL.getRParenLoc() : SourceLocation();
      if (!L.isFileID() || !RP.isFileID() || ST.inSystemHeader(Redecl->getLocation())) {
        SignatureBlockers.push_back({DiagID::Declaration,
                                     "the parameter list of this declaration of '" +
                                         K->getQualifiedNameAsString() + "' cannot be edited",
                                     ST.point(Redecl->getLocation()), {}});
        continue;
      }
      if (Redecl->getNumParams() > 0)
        Signature.push_back(ST.insertBefore(L.getLocWithOffset(1), NewParams + ", "));
      else // `()` or `(void)`: the list becomes the new parameters.
        Signature.push_back(
            ST.replace(CharSourceRange::getCharRange(L.getLocWithOffset(1), RP), NewParams));
    }
    for (size_t I : Syms) {
      Symbol &S = Symbols[I];
      Pass.ParamSlot[KeyOf(K, S)] = Out.Params.size();
      Out.Params.emplace_back();
      DescriptorParam &DP = Out.Params.back();
      DP.Key = KeyOf(K, S);
      DP.KernelName = K->getQualifiedNameAsString();
      DP.ParamName = S.Name;
      DP.FromConstant = true;
      DP.Where = ST.point(K->getLocation());
      DP.ExternallyVisible = K->isExternallyVisible();
      DP.Edits = Signature;
      DP.Blockers = SignatureBlockers;
      llvm::append_range(DP.Blockers, S.Everyone);
    }
  }

  // Uses in each kernel's body: the address goes to TMA instructions and
  // read-only helpers (the fences on it go), or the value is read.
  for (Symbol &S : Symbols)
    for (auto &[Fn, Refs] : S.KernelRefsTo) {
      DescriptorParam &DP = Out.Params[Pass.ParamSlot[KeyOf(patternOf(Fn), S)]];
      DP.DefinitionSeen = true;
      DP.ReliesOn.push_back(spanOf(Fn));
      UseSink Sink;
      for (const DeclRefExpr *R : Refs) {
        if (inUnevaluatedOperand(R, Fn))
          continue;
        const Stmt *P = parent(Fn, R);
        while (P && isa<ParenExpr>(P))
          P = parent(Fn, P);
        if (const auto *UO = dyn_cast_or_null<UnaryOperator>(P);
            UO && UO->getOpcode() == UO_AddrOf) {
          Pass.Walker->walkValue(UO, Fn, 0, nullptr, ValueMode::Pointer, Sink);
          continue;
        }
        if (const auto *IC = dyn_cast_or_null<ImplicitCastExpr>(P);
            IC && IC->getCastKind() == CK_LValueToRValue)
          continue;
        if (const auto *CC = dyn_cast_or_null<CXXConstructExpr>(P);
            CC && CC->getConstructor()->isCopyOrMoveConstructor())
          continue;
        block(Sink, DiagID::Escapes,
              "'" + S.Name + "' is used in a way that cannot be followed (" +
                  (P ? std::string(P->getStmtClassName()) : std::string("?")) + ")",
              R->getBeginLoc());
      }
      llvm::append_range(DP.Edits, Sink.Edits);
      llvm::append_range(DP.FencesRemoved, Sink.Fences);
      llvm::append_range(DP.Blockers, Sink.Blockers);
      llvm::append_range(DP.ReliesOn, Sink.ReliesOn);
      // 128 more bytes of parameters per symbol.
      if (std::optional<Blocker> Why = Pass.Signatures->paramSpaceBlocker(
              Fn, descriptorParamIndexes(Fn), 128 * Pass.ConstantParamKeys[patternOf(Fn)].size()))
        DP.Blockers.push_back(std::move(*Why));
    }

  // Each launch of a reader passes, for each symbol, the descriptor the copy
  // before it put there; one edit inserts them all.
  for (auto &[KL, Fn] : Pass.Launches) {
    const FunctionDecl *K = patternOf(KL.Kernel);
    auto Reader = llvm::find_if(Readers, [&](const auto &R) { return R.first == K; });
    if (Reader == Readers.end())
      continue;
    std::vector<LaunchSite> Sites;
    std::string Hosts;
    bool AllTraced = true;
    for (size_t I : Reader->second) {
      Symbol &S = Symbols[I];
      LaunchSite LS;
      LS.ParamKey = KeyOf(K, S);
      LS.KernelName = K->getQualifiedNameAsString();
      LS.Where = ST.point(KL.E->getBeginLoc());
      LS.ReliesOn.push_back(spanOf(Fn));
      LS.BufferKey = S.Buf.Key;
      HostUse LU;
      LU.Kind = HostUseKind::Launch;
      LU.Where = LS.Where;
      LU.What = "launch of '" + LS.KernelName + "'";
      LU.ParamKey = LS.ParamKey;
      S.Buf.Uses.push_back(LU);
      auto Refuse = [&](DiagID ID, std::string Msg, SourceLocation L,
                        std::vector<Note> Notes = {}) {
        LS.Blockers.push_back({ID, std::move(Msg), ST.point(L), std::move(Notes)});
      };
      const SymbolCopy *Reaching = nullptr;
      if (Fn->hasAttr<CUDAGlobalAttr>() || Fn->hasAttr<CUDADeviceAttr>()) {
        Refuse(DiagID::LaunchNotRewritable, "'" + LS.KernelName + "' is launched from device code",
               KL.E->getBeginLoc());
      } else if (KL.ArgsDecl) {
        Refuse(DiagID::LaunchNotRewritable,
               "an argument array cannot gain the descriptor of '" + S.Name + "'",
               KL.E->getBeginLoc());
      } else {
        for (const SymbolCopy &C : S.Copies[Fn]) {
          if (!runsWhenReached(C.Call, C.Top, Fn))
            continue;
          const Stmt *Block = parent(Fn, C.Top);
          if (!Block || !isAncestor(Block, KL.E, Fn) || isAncestor(C.Top, KL.E, Fn) ||
              offsetOf(C.Top->getEndLoc()) >= offsetOf(KL.E->getBeginLoc()))
            continue;
          if (!Reaching || offsetOf(C.Top->getBeginLoc()) > offsetOf(Reaching->Top->getBeginLoc()))
            Reaching = &C;
        }
        if (!Reaching)
          Refuse(DiagID::HostNotTraceable,
                 "no cudaMemcpyToSymbol of a host descriptor into '" + S.Name +
                     "' reaches this launch in '" + Fn->getQualifiedNameAsString() + "'",
                 KL.E->getBeginLoc());
      }
      if (Reaching) {
        std::vector<Note> CopyNote{{"copied here", ST.point(Reaching->Call->getBeginLoc())}};
        for (const SymbolCopy &C : S.Copies[Fn])
          if (&C != Reaching && between(Reaching->Top, KL.E, C.Call, Fn) && LS.Blockers.empty())
            Refuse(DiagID::HostNotTraceable,
                   "'" + S.Name + "' is copied again between the copy and the launch",
                   C.Call->getBeginLoc(), CopyNote);
        std::string Host;
        if (LS.Blockers.empty()) {
          if (std::optional<Blocker> Why = Pass.Buffers->hostDescriptorAt(
                  Reaching->Call, Reaching->Top, KL.E, KL.E, Fn, KL.E->getBeginLoc(), S.Name,
                  Host))
            LS.Blockers.push_back(std::move(*Why));
          else
            LS.HostDescriptor = Host;
        }
      }
      AllTraced &= LS.Blockers.empty();
      if (!Hosts.empty())
        Hosts += ", ";
      Hosts += LS.HostDescriptor;
      Sites.push_back(std::move(LS));
    }
    // The new first arguments: before the first one, or alone before ')'.
    std::optional<TextEdit> Insert;
    if (AllTraced) {
      const auto *Call = cast<CallExpr>(KL.E);
      unsigned First = KL.FirstArg;
      if (Call->getNumArgs() > First) {
        if (std::optional<CharSourceRange> R =
                ST.fileRange(Call->getArg(First)->getSourceRange()))
          Insert = ST.insertBefore(R->getBegin(), Hosts + ", ");
      } else if (Call->getRParenLoc().isFileID()) {
        Insert = ST.insertBefore(Call->getRParenLoc(), First ? ", " + Hosts : Hosts);
      }
    }
    for (LaunchSite &LS : Sites) {
      if (AllTraced && !Insert)
        LS.Blockers.push_back({DiagID::InMacro,
                               "the launch's arguments are spelled inside a macro body",
                               ST.point(KL.E->getBeginLoc()), {}});
      else if (Insert)
        LS.Edits.push_back(*Insert);
      Out.Launches.push_back(std::move(LS));
    }
  }
  for (Symbol &S : Symbols)
    Out.Buffers.push_back(std::move(S.Buf));
}

} // namespace tma::analysis
