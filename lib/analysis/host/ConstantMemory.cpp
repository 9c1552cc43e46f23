// H12: `__constant__ CUtensorMap` symbols filled by cudaMemcpyToSymbol become
// a by-value parameter of each kernel that reads them.
#include "ConstantMemory.h"
#include "HostBuffers.h"
#include "HostRefs.h"
#include "../device/KernelSignatures.h"
#include "../device/UseWalker.h"

#include "../core/CudaApi.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;

namespace tma::analysis {

namespace {

/// A whole-descriptor cudaMemcpyToSymbol into a symbol, and its statement.
using SymbolCopy = CopyInfo;

/// What is known of one symbol before any kernel is decided.
struct Symbol {
  const VarDecl *V;
  std::string Name, Type;
  DeviceBuffer Buf;
  std::vector<Blocker> Everyone; // blocks the parameter of every kernel
  std::map<const FunctionDecl *, std::vector<SymbolCopy>> Copies;
  std::map<const FunctionDecl *, std::vector<const DeclRefExpr *>> KernelRefsTo;
};

using SymbolRefs = std::vector<std::pair<const DeclRefExpr *, const FunctionDecl *>>;

/// The analysis of every `__constant__` descriptor of one pass: the symbols,
/// the kernels that read them (each gains one parameter per symbol), their
/// uses in those kernels, and the launches that pass the host descriptors.
class ConstantSymbols : public PassComponent {
public:
  ConstantSymbols(PassContext &P, UseWalker &Walker, KernelSignatures &Signatures,
                  HostBuffers &Buffers)
      : PassComponent(P), Walker(Walker), Signatures(Signatures), Buffers(Buffers) {}

  void run();

private:
  UseWalker &Walker;
  KernelSignatures &Signatures;
  HostBuffers &Buffers;
  std::vector<Symbol> Symbols;
  /// Kernel patterns, each with the symbols it reads (in source order).
  std::vector<std::pair<const FunctionDecl *, std::vector<size_t>>> Readers;

  std::vector<size_t> &readerOf(const FunctionDecl *K);
  void collectSymbol(const VarDecl *V, const SymbolRefs &Refs);
  HostUse declarationUse(const VarDecl *V, const VarDecl *Def, const Symbol &S);
  void classifyRef(size_t SymbolIndex, const DeclRefExpr *R, const FunctionDecl *Fn);
  void classifyHostRef(Symbol &S, const DeclRefExpr *R, const FunctionDecl *Fn);
  bool copiesWholeDescriptor(const CallExpr *Call, const CudaApi &Api);
  void sortBySource();
  std::string keyOf(const FunctionDecl *K, const Symbol &S);
  void addKernelParams(const FunctionDecl *K, const std::vector<size_t> &Syms);
  std::vector<TextEdit> signatureEdits(const FunctionDecl *K, const std::string &NewParams,
                                       std::vector<Blocker> &Blockers);
  void analyzeKernelUses(Symbol &S, const FunctionDecl *Fn,
                         const std::vector<const DeclRefExpr *> &Refs);
  void analyzeLaunch(const KernelLaunch &KL, const FunctionDecl *Fn,
                     const std::vector<size_t> &Syms);
  LaunchSite launchSite(Symbol &S, const KernelLaunch &KL, const FunctionDecl *Fn);
  void traceHostDescriptor(Symbol &S, const SymbolCopy &Reaching, const KernelLaunch &KL,
                           const FunctionDecl *Fn, LaunchSite &LS);
  std::optional<TextEdit> newArgumentsEdit(const KernelLaunch &KL, const std::string &Hosts);
};

} // namespace

void ConstantMemory::analyzeConstantDescriptors() { ConstantSymbols(Pass, Walker, Signatures, Buffers).run(); }

void ConstantSymbols::run() {
  for (auto &[V, Refs] : Pass.ConstantRefs)
    collectSymbol(V, Refs);
  sortBySource();
  for (auto &[K, Syms] : Readers)
    addKernelParams(K, Syms);
  // Uses in each kernel's body.
  for (Symbol &S : Symbols)
    for (auto &[Fn, Refs] : S.KernelRefsTo)
      analyzeKernelUses(S, Fn, Refs);
  for (auto &[KL, Fn] : Pass.Launches) {
    const FunctionDecl *K = patternOf(KL.Kernel);
    auto Reader = llvm::find_if(Readers, [&](const auto &R) { return R.first == K; });
    if (Reader != Readers.end())
      analyzeLaunch(KL, Fn, Reader->second);
  }
  for (Symbol &S : Symbols)
    Out.Buffers.push_back(std::move(S.Buf));
}

std::vector<size_t> &ConstantSymbols::readerOf(const FunctionDecl *K) {
  for (auto &[R, Syms] : Readers)
    if (R == K)
      return Syms;
  Readers.push_back({K, {}});
  return Readers.back().second;
}

// --- The symbols and their uses outside kernels ------------------------------

void ConstantSymbols::collectSymbol(const VarDecl *V, const SymbolRefs &Refs) {
  Symbols.emplace_back();
  Symbol &S = Symbols.back();
  S.V = V;
  S.Name = V->getNameAsString();
  const VarDecl *Def = V->getDefinition() ? V->getDefinition() : V;
  SourcePoint DefAt = ST.point(Def->getLocation());
  S.Buf.Key = "constant:" + DefAt.File + ":" + std::to_string(DefAt.Offset);
  S.Buf.Name = S.Name;
  S.Buf.Where = DefAt;
  S.Buf.Kind = BufferKind::ConstantSymbol;
  // The type as its declaration spells it (an alias stays an alias).
  S.Type = "CUtensorMap";
  if (TypeSourceInfo *TSI = Def->getTypeSourceInfo())
    if (std::optional<CharSourceRange> R = ST.fileRange(TSI->getTypeLoc().getSourceRange()))
      S.Type = ST.text(*R);
  S.Buf.Uses.push_back(declarationUse(V, Def, S));
  for (const auto &[R, Fn] : Refs)
    classifyRef(Symbols.size() - 1, R, Fn);
}

/// The declaration goes when everything else does; one declaration only (an
/// `extern` one elsewhere is code this run may not see).
HostUse ConstantSymbols::declarationUse(const VarDecl *V, const VarDecl *Def, const Symbol &S) {
  HostUse DeclUse;
  DeclUse.Kind = HostUseKind::Declaration;
  DeclUse.Where = S.Buf.Where;
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
  bool Plain = !Def->getInit() ||
               (Init && Init->getNumArgs() == 0 && Init->getConstructor()->isTrivial());
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
  return DeclUse;
}

/// One reference to symbol \p SymbolIndex: read by a kernel, or a host use.
void ConstantSymbols::classifyRef(size_t SymbolIndex, const DeclRefExpr *R,
                                  const FunctionDecl *Fn) {
  Symbol &S = Symbols[SymbolIndex];
  if (!Fn) {
    S.Everyone.push_back(
        blockerFor(ReasonID::ConstantNamedOutsideFunction, {S.Name}, ST.point(R->getBeginLoc())));
    return;
  }
  if (isKernel(Fn)) {
    std::vector<size_t> &Syms = readerOf(patternOf(Fn));
    if (!llvm::is_contained(Syms, SymbolIndex))
      Syms.push_back(SymbolIndex);
    if (Fn->doesThisDeclarationHaveABody() && !Fn->isDependentContext())
      S.KernelRefsTo[Fn].push_back(R);
    return;
  }
  if (inUnevaluatedOperand(R, Fn))
    return;
  if (Fn->hasAttr<CUDADeviceAttr>()) {
    S.Everyone.push_back(blockerFor(ReasonID::ConstantReadInDeviceFunction,
                                    {S.Name, Fn->getQualifiedNameAsString()},
                                    ST.point(R->getBeginLoc())));
    return;
  }
  classifyHostRef(S, R, Fn);
}

/// Is \p Call a cudaMemcpyToSymbol of 128 bytes at offset 0, from the host?
bool ConstantSymbols::copiesWholeDescriptor(const CallExpr *Call, const CudaApi &Api) {
  auto IntArg = [&](int I, int64_t Default) -> std::optional<int64_t> {
    if (I < 0 || unsigned(I) >= Call->getNumArgs() || isa<CXXDefaultArgExpr>(Call->getArg(I)))
      return Default;
    Expr::EvalResult E;
    if (!Call->getArg(I)->EvaluateAsInt(E, Ctx))
      return std::nullopt;
    return E.Val.getInt().getExtValue();
  };
  std::optional<int64_t> Size = IntArg(Api.SizeArg, -1), Offset = IntArg(Api.OffsetArg, 0),
                         Kind = IntArg(Api.KindArg, 1);
  return Size == 128 && Offset == 0 && (Kind == 1 || Kind == 4);
}

/// Host code: only whole-descriptor copies from the host into the symbol.
void ConstantSymbols::classifyHostRef(Symbol &S, const DeclRefExpr *R, const FunctionDecl *Fn) {
  auto [Cur, P] = climb(Fn, R, parensCastsAndAddressOf);
  const auto *Call = dyn_cast_or_null<CallExpr>(P);
  std::string Callee = Call ? calleeName(Call) : "";
  const CudaApi *Api = Call ? cudaApi(Callee, ApiRole::SymbolCopy) : nullptr;
  bool WholeCopy = Api && unsigned(Api->SizeArg) < Call->getNumArgs() &&
                   Call->getArg(Api->Dest) == Cur && copiesWholeDescriptor(Call, *Api);
  HostUse U;
  U.Where = ST.point(R->getBeginLoc());
  if (!WholeCopy) {
    U.Kind = HostUseKind::Other;
    U.What = "use of '" + S.Name + "'";
    S.Buf.Uses.push_back(std::move(U));
    // Its contents could come from this use: by value a kernel would not
    // see them.
    S.Everyone.push_back(
        blockerFor(ReasonID::ConstantOtherHostUse, {S.Name}, ST.point(R->getBeginLoc())));
    return;
  }
  U.Kind = HostUseKind::Copy;
  U.What = Callee;
  U.Removal = Buffers.removeHostCall(Call, Fn);
  S.Copies[Fn].push_back({Call, topStatement(Call, Fn)});
  S.Buf.Uses.push_back(std::move(U));
}

/// Each reader's symbols in source order, whatever the order of the map of
/// references.
void ConstantSymbols::sortBySource() {
  std::vector<size_t> Order(Symbols.size());
  for (size_t I = 0; I < Order.size(); ++I)
    Order[I] = I;
  llvm::sort(Order, [&](size_t A, size_t B) { return Symbols[A].Buf.Where < Symbols[B].Buf.Where; });
  for (auto &[K, Syms] : Readers)
    llvm::sort(Syms, [&](size_t A, size_t B) {
      return llvm::find(Order, A) < llvm::find(Order, B);
    });
}

// --- The kernels that read them ---------------------------------------------

std::string ConstantSymbols::keyOf(const FunctionDecl *K, const Symbol &S) {
  return usrOf(K) + "#constant:" + S.Name;
}

/// One descriptor parameter of \p K per symbol it reads. One edit per
/// declaration inserts every new parameter, shared by all of them (they are
/// tied: one list, all or nothing).
void ConstantSymbols::addKernelParams(const FunctionDecl *K, const std::vector<size_t> &Syms) {
  std::string NewParams;
  std::vector<std::string> Keys;
  for (size_t I : Syms) {
    NewParams += "const __grid_constant__ " + Symbols[I].Type + " " + Symbols[I].Name;
    if (I != Syms.back())
      NewParams += ", ";
    Keys.push_back(keyOf(K, Symbols[I]));
  }
  Pass.ConstantParamKeys[K] = Keys;
  if (Keys.size() > 1)
    Out.TiedParams.push_back({Keys, {"'" + K->getQualifiedNameAsString() +
                                         "' gains these parameters together",
                                     ST.point(K->getLocation())}});
  std::vector<Blocker> SignatureBlockers;
  std::vector<TextEdit> Signature = signatureEdits(K, NewParams, SignatureBlockers);
  for (size_t I : Syms) {
    Symbol &S = Symbols[I];
    Pass.ParamSlot[keyOf(K, S)] = Out.Params.size();
    Out.Params.emplace_back();
    DescriptorParam &DP = Out.Params.back();
    DP.Key = keyOf(K, S);
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

/// The edits that put \p NewParams first in every declaration of \p K;
/// declarations whose list cannot be edited add to \p Blockers.
std::vector<TextEdit> ConstantSymbols::signatureEdits(const FunctionDecl *K,
                                                      const std::string &NewParams,
                                                      std::vector<Blocker> &Blockers) {
  std::vector<TextEdit> Signature;
  for (const FunctionDecl *Redecl : K->redecls()) {
    TypeSourceInfo *TSI = Redecl->getTypeSourceInfo();
    auto FTL = TSI ? TSI->getTypeLoc().getAsAdjusted<FunctionTypeLoc>() : FunctionTypeLoc();
    SourceLocation L = FTL ? FTL.getLParenLoc() : SourceLocation();
    SourceLocation RP = FTL ? FTL.getRParenLoc() : SourceLocation();
    if (!L.isFileID() || !RP.isFileID() || ST.inSystemHeader(Redecl->getLocation())) {
      Blockers.push_back(blockerFor(ReasonID::ConstantSignatureNotEditable,
                                    {K->getQualifiedNameAsString()},
                                    ST.point(Redecl->getLocation())));
      continue;
    }
    if (Redecl->getNumParams() > 0)
      Signature.push_back(ST.insertBefore(L.getLocWithOffset(1), NewParams + ", "));
    else // `()` or `(void)`: the list becomes the new parameters.
      Signature.push_back(
          ST.replace(CharSourceRange::getCharRange(L.getLocWithOffset(1), RP), NewParams));
  }
  return Signature;
}

/// Uses of \p S in kernel \p Fn's body: the address goes to TMA instructions
/// and read-only helpers (the fences on it go), or the value is read.
void ConstantSymbols::analyzeKernelUses(Symbol &S, const FunctionDecl *Fn,
                                        const std::vector<const DeclRefExpr *> &Refs) {
  DescriptorParam &DP = Out.Params[Pass.ParamSlot[keyOf(patternOf(Fn), S)]];
  DP.DefinitionSeen = true;
  DP.ReliesOn.push_back(spanOf(Fn));
  UseSink Sink;
  for (const DeclRefExpr *R : Refs) {
    if (inUnevaluatedOperand(R, Fn))
      continue;
    const Stmt *P = climb(Fn, R, parens).Parent;
    if (const auto *UO = dyn_cast_or_null<UnaryOperator>(P); UO && UO->getOpcode() == UO_AddrOf) {
      Walker.walkValue(UO, Fn, 0, nullptr, ValueMode::Pointer, Sink);
      continue;
    }
    if (const auto *IC = dyn_cast_or_null<ImplicitCastExpr>(P);
        IC && IC->getCastKind() == CK_LValueToRValue)
      continue;
    if (const auto *CC = dyn_cast_or_null<CXXConstructExpr>(P);
        CC && CC->getConstructor()->isCopyOrMoveConstructor())
      continue;
    Sink.Blockers.push_back(blockerFor(ReasonID::ConstantUnfollowedKernelUse,
                                       {S.Name, P ? P->getStmtClassName() : "?"},
                                       ST.point(R->getBeginLoc())));
  }
  llvm::append_range(DP.Edits, Sink.Edits);
  llvm::append_range(DP.FencesRemoved, Sink.Fences);
  llvm::append_range(DP.Blockers, Sink.Blockers);
  llvm::append_range(DP.ReliesOn, Sink.ReliesOn);
  // 128 more bytes of parameters per symbol.
  if (std::optional<Blocker> Why = Signatures.paramSpaceBlocker(
          Fn, descriptorParamIndexes(Fn), 128 * Pass.ConstantParamKeys[patternOf(Fn)].size()))
    DP.Blockers.push_back(std::move(*Why));
}

// --- Their launches ---------------------------------------------------------

/// Each launch of a reader passes, for each symbol, the descriptor the copy
/// before it put there; one edit inserts them all.
void ConstantSymbols::analyzeLaunch(const KernelLaunch &KL, const FunctionDecl *Fn,
                                    const std::vector<size_t> &Syms) {
  std::vector<LaunchSite> Sites;
  std::string Hosts;
  bool AllTraced = true;
  for (size_t I : Syms) {
    LaunchSite LS = launchSite(Symbols[I], KL, Fn);
    AllTraced &= LS.Blockers.empty();
    if (!Hosts.empty())
      Hosts += ", ";
    Hosts += LS.HostDescriptor;
    Sites.push_back(std::move(LS));
  }
  std::optional<TextEdit> Insert;
  if (AllTraced)
    Insert = newArgumentsEdit(KL, Hosts);
  for (LaunchSite &LS : Sites) {
    if (AllTraced && !Insert)
      LS.Blockers.push_back(
          blockerFor(ReasonID::ConstantLaunchArgsInMacro, {}, ST.point(KL.E->getBeginLoc())));
    else if (Insert)
      LS.Edits.push_back(*Insert);
    Out.Launches.push_back(std::move(LS));
  }
}

/// The launch's argument for symbol \p S (its blockers, or the host
/// descriptor it passes), and the launch as a use of the symbol.
LaunchSite ConstantSymbols::launchSite(Symbol &S, const KernelLaunch &KL, const FunctionDecl *Fn) {
  const FunctionDecl *K = patternOf(KL.Kernel);
  LaunchSite LS;
  LS.ParamKey = keyOf(K, S);
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
  auto Refuse = [&](ReasonID Why, llvm::ArrayRef<std::string> Args) {
    LS.Blockers.push_back(blockerFor(Why, Args, ST.point(KL.E->getBeginLoc())));
  };
  if (runsOnDevice(Fn))
    Refuse(ReasonID::ConstantLaunchedFromDevice, {LS.KernelName});
  else if (KL.ArgsDecl)
    Refuse(ReasonID::ConstantArgumentArray, {S.Name});
  else if (const SymbolCopy *Reaching = reachingOf(S.Copies[Fn], KL.E, Fn))
    traceHostDescriptor(S, *Reaching, KL, Fn, LS);
  else
    Refuse(ReasonID::ConstantNoReachingCopy, {S.Name, Fn->getQualifiedNameAsString()});
  return LS;
}

/// The host descriptor that \p Reaching copied, when no other copy into \p S
/// runs before the launch and it does not change in between.
void ConstantSymbols::traceHostDescriptor(Symbol &S, const SymbolCopy &Reaching,
                                          const KernelLaunch &KL, const FunctionDecl *Fn,
                                          LaunchSite &LS) {
  std::vector<Note> CopyNote{{"copied here", ST.point(Reaching.Call->getBeginLoc())}};
  for (const SymbolCopy &C : S.Copies[Fn])
    if (&C != &Reaching && between(Reaching.Top, KL.E, C.Call, Fn) && LS.Blockers.empty())
      LS.Blockers.push_back(blockerFor(ReasonID::ConstantCopiedAgain, {S.Name},
                                       ST.point(C.Call->getBeginLoc()), CopyNote));
  if (!LS.Blockers.empty())
    return;
  std::string Host;
  size_t Copies = 0; // into the symbol, anywhere in the translation unit
  // The symbol's copies and this launch on one stream run in written order
  // (a kernel cannot write constant memory).
  std::optional<const ValueDecl *> LaunchStream = streamOf(cast<CallExpr>(KL.E), Fn);
  bool OneStream = bool(LaunchStream);
  std::vector<std::pair<const CallExpr *, const FunctionDecl *>> Ops{{cast<CallExpr>(KL.E), Fn}};
  for (const auto &[CopyFn, FnCopies] : S.Copies) {
    Copies += FnCopies.size();
    for (const SymbolCopy &C : FnCopies) {
      OneStream = OneStream && streamOf(C.Call, CopyFn) == LaunchStream;
      Ops.push_back({C.Call, CopyFn});
    }
  }
  if (std::optional<Blocker> Why = Buffers.hostDescriptorAt(
          Reaching.Call, Reaching.Top, KL.E, KL.E, Fn, KL.E->getBeginLoc(), S.Name, Host))
    LS.Blockers.push_back(std::move(*Why));
  else if (std::optional<Blocker> Why =
               Buffers.deferredReadBlocker(Reaching.Call, Reaching.Top, Copies, S.Name, Fn,
                                           nullptr, Pass.firstHeld(Ops), OneStream))
    LS.Blockers.push_back(std::move(*Why));
  else
    LS.HostDescriptor = Host;
}

/// The new first arguments: before the first one, or alone before ')'.
std::optional<TextEdit> ConstantSymbols::newArgumentsEdit(const KernelLaunch &KL,
                                                          const std::string &Hosts) {
  const auto *Call = cast<CallExpr>(KL.E);
  unsigned First = KL.FirstArg;
  if (Call->getNumArgs() > First) {
    if (std::optional<CharSourceRange> R = ST.fileRange(Call->getArg(First)->getSourceRange()))
      return ST.insertBefore(R->getBegin(), Hosts + ", ");
  } else if (Call->getRParenLoc().isFileID()) {
    return ST.insertBefore(Call->getRParenLoc(), First ? ", " + Hosts : Hosts);
  }
  return std::nullopt;
}

} // namespace tma::analysis
