#include "tma/PassAnalysis.h"

#include "tma/AsmClassifier.h"
#include "tma/SourceText.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Mangle.h"
#include "clang/AST/GlobalDecl.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Index/USRGeneration.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSet.h"

#include <map>
#include <memory>
#include <set>

using namespace clang;

namespace tma {
namespace {

// ---------------------------------------------------------------------------
// Types

bool isTensorMapRecord(QualType T) {
  const RecordDecl *RD = T.getCanonicalType()->getAsRecordDecl();
  return RD && RD->getName() == "CUtensorMap_st";
}

bool isDescriptorPointer(QualType T) {
  const auto *PT = T->getAs<PointerType>();
  return PT && isTensorMapRecord(PT->getPointeeType());
}

bool isPointerToNonConst(QualType T) {
  const auto *PT = T.getCanonicalType()->getAs<PointerType>();
  return PT && !PT->getPointeeType().isConstQualified();
}

std::vector<unsigned> descriptorParamIndexes(const FunctionDecl *FD) {
  std::vector<unsigned> Out;
  for (unsigned I = 0; I < FD->getNumParams(); ++I)
    if (isDescriptorPointer(FD->getParamDecl(I)->getType()))
      Out.push_back(I);
  return Out;
}

bool isKernel(const FunctionDecl *FD) {
  return FD && FD->hasAttr<CUDAGlobalAttr>();
}

/// `__constant__ CUtensorMap c_map;` (not an array).
bool isConstantDescriptor(const VarDecl *V) {
  return V && V->hasAttr<CUDAConstantAttr>() && isTensorMapRecord(V->getType());
}

const FunctionDecl *patternOf(const FunctionDecl *FD) {
  if (const FunctionDecl *P = FD->getTemplateInstantiationPattern())
    return P;
  return FD;
}

std::string usrOf(const FunctionDecl *FD) {
  llvm::SmallString<128> Buf;
  if (index::generateUSRForDecl(patternOf(FD), Buf))
    return FD->getQualifiedNameAsString();
  return std::string(Buf);
}

std::string paramKey(const FunctionDecl *FD, unsigned Index) {
  return usrOf(FD) + "#" + std::to_string(Index);
}

std::string calleeName(const CallExpr *CE) {
  if (const FunctionDecl *FD = CE->getDirectCallee())
    if (FD->getDeclName().isIdentifier())
      return FD->getName().str();
  return std::string();
}

bool isFenceWrapper(const FunctionDecl *FD) {
  return FD && FD->getDeclName().isIdentifier() &&
         FD->getName() == "fence_proxy_tensormap_generic";
}

bool isLoop(const Stmt *S) {
  return isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(S);
}

/// A launch of a kernel with its arguments in parameter order, whatever the
/// form: `k<<<...>>>(args)` or `cudaLaunchKernelEx(&config, k, args...)`.
struct KernelLaunch {
  const Expr *E = nullptr;
  const FunctionDecl *Kernel = nullptr;
  const Expr *KernelRef = nullptr; // the kernel as written in a launch API call
  std::vector<const Expr *> Args;
  llvm::StringRef Form;
  /// Where the arguments are written, when not in the launch itself: the
  /// declaration of a `void* args[] = {&a, &b}` array (H4). Args then holds
  /// the variables whose addresses fill the slots (null for other slots).
  const Stmt *ArgsDecl = nullptr;
};

/// The launch APIs that take the kernel's arguments as an array of addresses:
/// where the kernel (or a CUfunction handle), the array and `extra` are.
struct ArrayLaunchApi {
  llvm::StringRef Name;
  unsigned KernelArg, ArgsArg;
  int ExtraArg; // -1: none
  bool Handle;  // the kernel is a CUfunction, not the symbol
};
const ArrayLaunchApi *arrayLaunchApi(llvm::StringRef Name) {
  static const ArrayLaunchApi Apis[] = {
      {"cudaLaunchKernel", 0, 3, -1, false},
      {"cudaLaunchCooperativeKernel", 0, 3, -1, false},
      {"cudaLaunchKernelExC", 1, 2, -1, false},
      {"cuLaunchKernel", 0, 9, 10, true},
      {"cuLaunchCooperativeKernel", 0, 9, -1, true},
      {"cuLaunchKernelEx", 1, 2, 3, true},
  };
  for (const ArrayLaunchApi &A : Apis)
    if (A.Name == Name)
      return &A;
  return nullptr;
}

/// cuda.h maps driver API names to versioned and per-thread-stream symbols
/// (cuMemAlloc -> cuMemAlloc_v2, cuLaunchKernel -> cuLaunchKernel_ptsz):
/// the name as written in the documentation.
llvm::StringRef driverBaseName(llvm::StringRef Name) {
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (llvm::StringRef Suffix : {"_ptsz", "_ptds", "_v2", "_v3"})
      if (Name.consume_back(Suffix))
        Changed = true;
  }
  return Name;
}

const Expr *stripCasts(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  while (const auto *C = dyn_cast<ExplicitCastExpr>(E))
    E = C->getSubExpr()->IgnoreParenImpCasts();
  return E;
}

/// The variable a `<<<>>>` launch calls through (`k<<<...>>>` or
/// `(*k)<<<...>>>`), when its callee is a function-pointer variable.
const VarDecl *functionPointerCallee(const CUDAKernelCallExpr *KC) {
  if (KC->getDirectCallee())
    return nullptr;
  const Expr *C = KC->getCallee()->IgnoreParenImpCasts();
  if (const auto *UO = dyn_cast<UnaryOperator>(C); UO && UO->getOpcode() == UO_Deref)
    C = UO->getSubExpr()->IgnoreParenImpCasts();
  const auto *R = dyn_cast<DeclRefExpr>(C);
  const auto *V = R ? dyn_cast<VarDecl>(R->getDecl()) : nullptr;
  return V && V->getType()->isFunctionPointerType() ? V : nullptr;
}

std::optional<KernelLaunch> asLaunch(const Stmt *S) {
  KernelLaunch L;
  if (const auto *KC = dyn_cast_or_null<CUDAKernelCallExpr>(S)) {
    L.E = KC;
    L.Kernel = KC->getDirectCallee();
    L.Args.assign(KC->arg_begin(), KC->arg_end());
    L.Form = "<<<>>>";
  } else if (const auto *CE = dyn_cast_or_null<CallExpr>(S)) {
    // The C++ template cudaLaunchKernelEx(config, kernel, args...) maps its
    // arguments one to one onto the kernel's parameters.
    if (calleeName(CE) != "cudaLaunchKernelEx" || CE->getNumArgs() < 2)
      return std::nullopt;
    const Expr *KRef = CE->getArg(1)->IgnoreParenImpCasts();
    if (const auto *UO = dyn_cast<UnaryOperator>(KRef); UO && UO->getOpcode() == UO_AddrOf)
      KRef = UO->getSubExpr()->IgnoreParenImpCasts();
    const auto *DR = dyn_cast<DeclRefExpr>(KRef);
    if (!DR)
      return std::nullopt;
    L.E = CE;
    L.Kernel = dyn_cast<FunctionDecl>(DR->getDecl());
    L.KernelRef = DR;
    L.Args.assign(CE->arg_begin() + 2, CE->arg_end());
    L.Form = "cudaLaunchKernelEx";
    if (L.Kernel && L.Args.size() != L.Kernel->getNumParams())
      return std::nullopt;
  } else {
    return std::nullopt;
  }
  if (!isKernel(L.Kernel))
    return std::nullopt;
  return L;
}

/// The per-function index: parents of every statement and the references to
/// every declaration, built once per body.
struct BodyIndex {
  std::unique_ptr<ParentMap> PM;
  llvm::DenseMap<const Decl *, llvm::SmallVector<const DeclRefExpr *, 4>> Refs;
};

/// Where a use walk records what it finds: the kernel's own facts, or a
/// scratch sink for a helper function (whose text is never edited).
struct UseSink {
  std::vector<TextEdit> Edits;
  std::vector<SourcePoint> Fences;
  std::vector<Blocker> Blockers;
  std::vector<SourceSpan> ReliesOn;
};

enum class ValueMode { Pointer, Integer };

class PassAnalyzer {
public:
  PassAnalyzer(ASTContext &Ctx, llvm::StringRef Side, const AnalysisOptions &Opts)
      : Ctx(Ctx), ST(Ctx.getSourceManager(), Ctx.getLangOpts()), Opts(Opts) {
    Out.Side = Side.str();
  }

  PassFacts run();

  // Filled by the collector.
  std::vector<const FunctionDecl *> Kernels;
  std::vector<std::pair<KernelLaunch, const FunctionDecl *>> Launches;
  std::vector<std::pair<const DeclRefExpr *, const FunctionDecl *>> KernelRefs;
  /// Launches through a function-pointer variable (`k<<<g, b>>>(...)` with
  /// `auto *k = flag ? a<true> : a<false>`), by variable (K4).
  std::map<const VarDecl *,
           std::pair<const FunctionDecl *, std::vector<const CUDAKernelCallExpr *>>>
      PointerLaunches;
  /// Every `__constant__ CUtensorMap` and the references to it, with the
  /// function holding each (null at namespace scope).
  std::map<const VarDecl *, std::vector<std::pair<const DeclRefExpr *, const FunctionDecl *>>>
      ConstantRefs;
  /// Keys of the parameters a kernel gains from `__constant__` descriptors
  /// it reads, by kernel pattern: blocked like its own descriptor
  /// parameters when the kernel is used other than in a launch.
  std::map<const FunctionDecl *, std::vector<std::string>> ConstantParamKeys;
  /// The kernels each accepted function-pointer launch may run.
  std::map<const CUDAKernelCallExpr *, std::vector<const FunctionDecl *>> PointerTargets;
  /// Kernels looked up by name (cuModuleGetFunction, cuLibraryGetKernel):
  /// the name, or empty when it is not a string literal.
  std::vector<std::pair<std::string, const CallExpr *>> NameLookups;
  /// References to host functions that return a descriptor pointer (H6).
  std::map<const FunctionDecl *, std::vector<std::pair<const DeclRefExpr *, const FunctionDecl *>>>
      UploadRefs;
  /// References to host functions that take a descriptor pointer (H7).
  std::map<const FunctionDecl *, std::vector<std::pair<const DeclRefExpr *, const FunctionDecl *>>>
      LauncherRefs;
  /// Calls of the argument-array launch APIs (H4), resolved in run().
  std::vector<std::pair<const CallExpr *, const FunctionDecl *>> ArrayLaunchCalls;

  ASTContext &Ctx;
  SourceText ST;

private:
  const AnalysisOptions &Opts;
  PassFacts Out;
  std::map<std::string, size_t> ParamSlot;
  std::map<const Stmt *, std::unique_ptr<BodyIndex>> Bodies;
  std::map<const VarDecl *, size_t> BufferSlot;
  std::map<std::pair<const FunctionDecl *, unsigned>, UseSink> HelperMemo;
  std::set<std::pair<const FunctionDecl *, unsigned>> HelpersInProgress;

  BodyIndex &index(const FunctionDecl *FD);
  const Stmt *parent(const FunctionDecl *Fn, const Stmt *S) {
    return index(Fn).PM->getParent(S);
  }

  DescriptorParam &paramFacts(const FunctionDecl *FD, unsigned Index);
  void analyzeKernel(const FunctionDecl *FD);
  void addSignatureEdits(const FunctionDecl *FD, unsigned Index, DescriptorParam &DP);
  void checkParamSpace(const FunctionDecl *FD, const std::vector<unsigned> &Idx);
  /// tma-106 when the parameters, descriptor pointers \p Idx taken by value
  /// and \p Bytes more in front, exceed the parameter space.
  std::optional<Blocker> paramSpaceBlocker(const FunctionDecl *FD,
                                           const std::vector<unsigned> &Idx, uint64_t Bytes);

  // Device-side use classification.
  void walkVarRefs(const VarDecl *V, const FunctionDecl *Fn, unsigned Depth,
                   bool IsKernelParam, bool Editable, ValueMode M, UseSink &Sink);
  void walkRef(const DeclRefExpr *R, const FunctionDecl *Fn, unsigned Depth,
               bool IsKernelParam, bool Editable, ValueMode M, UseSink &Sink);
  void walkValue(const Expr *E, const FunctionDecl *Fn, unsigned Depth,
                 const DeclRefExpr *Direct, ValueMode M, UseSink &Sink);
  void walkLValue(const Expr *E, const FunctionDecl *Fn, unsigned Depth, UseSink &Sink);
  void handleCallArg(const CallExpr *CE, const Expr *Arg, const FunctionDecl *Fn,
                     unsigned Depth, const DeclRefExpr *Direct, ValueMode M,
                     UseSink &Sink);
  void handleAsm(const GCCAsmStmt *AS, const Expr *Operand, const FunctionDecl *Fn,
                 unsigned Depth, const DeclRefExpr *Direct, UseSink &Sink);
  void handleAlias(const DeclStmt *DS, const Expr *Init, const FunctionDecl *Fn,
                   unsigned Depth, const DeclRefExpr *Direct, ValueMode M,
                   UseSink &Sink);
  bool isAcquireFenceWrapper(const FunctionDecl *Def, unsigned ParamIndex) {
    const auto *Body = dyn_cast_or_null<CompoundStmt>(Def->getBody());
    if (!Body || Body->size() != 1)
      return false;
    const ParmVarDecl *PVD = Def->getParamDecl(ParamIndex);
    auto IsParam = [&](const Expr *E) {
      E = E->IgnoreParenImpCasts();
      while (const auto *C = dyn_cast<ExplicitCastExpr>(E))
        E = C->getSubExpr()->IgnoreParenImpCasts();
      const auto *R = dyn_cast<DeclRefExpr>(E);
      return R && R->getDecl() == PVD;
    };
    const Stmt *Only = Body->body_front();
    if (const auto *AS = dyn_cast<GCCAsmStmt>(Only)) {
      for (unsigned J = 0; J < AS->getNumInputs(); ++J)
        if (IsParam(AS->getInputExpr(J)))
          return classifyAsmOperand(AS->getAsmString(), AS->getNumOutputs() + J,
                                    AS->getInputName(J))
              .SoleAcquireFence;
      return false;
    }
    const auto *OnlyE = dyn_cast<Expr>(Only);
    if (const auto *CE = OnlyE ? dyn_cast<CallExpr>(OnlyE->IgnoreImplicit()) : nullptr)
      if (isFenceWrapper(CE->getDirectCallee()) && CE->getNumArgs() >= 3 &&
          CE->getArg(0)->getType().getAsString().find("sem_acquire") != std::string::npos)
        return llvm::any_of(CE->arguments(), IsParam);
    return false;
  }
  void removeFence(const Stmt *S, const FunctionDecl *Fn, unsigned Depth,
                   llvm::StringRef What, UseSink &Sink);
  void addressOf(const DeclRefExpr *Direct, UseSink &Sink) {
    if (!Direct)
      return;
    if (std::optional<CharSourceRange> R = ST.fileRange(Direct->getSourceRange()))
      Sink.Edits.push_back(ST.insertBefore(R->getBegin(), "&"));
    else
      block(Sink, DiagID::InMacro, "descriptor use is spelled inside a macro body",
            Direct->getBeginLoc());
  }
  SourceSpan spanOf(const Decl *D) {
    SourceSpan S;
    const SourceManager &SM = Ctx.getSourceManager();
    SourceLocation B = SM.getExpansionLoc(D->getBeginLoc());
    SourceLocation E = SM.getExpansionRange(D->getEndLoc()).getEnd();
    S.Begin = ST.point(B);
    S.End = SM.getFileOffset(E) + Lexer::MeasureTokenLength(E, SM, Ctx.getLangOpts());
    return S;
  }
  void block(UseSink &Sink, DiagID ID, std::string Msg, SourceLocation Loc) {
    Sink.Blockers.push_back({ID, std::move(Msg), ST.point(Loc), {}});
  }

  // Host side.
  void resolveArrayLaunch(const CallExpr *CE, const FunctionDecl *Fn);
  /// The kernel a CUfunction handle holds: bound once by
  /// cudaGetFuncBySymbol(&f, kernel) and otherwise only launched or queried.
  const FunctionDecl *kernelOfHandle(const VarDecl *F, const FunctionDecl *Fn,
                                     const DeclRefExpr *&Bound, std::string &WhyNot);
  /// Kernel references that a resolved argument-array launch accounts for.
  llvm::DenseSet<const DeclRefExpr *> AcceptedKernelRefs;
  /// `&d` in an argument array: the variable's reference -> (kernel, slot).
  llvm::DenseMap<const DeclRefExpr *, std::pair<const FunctionDecl *, unsigned>> ArraySlots;
  void analyzeLaunch(const KernelLaunch &KL, const FunctionDecl *Fn);
  void analyzeConstantDescriptors();
  std::vector<std::string> paramKeysOf(const FunctionDecl *K) {
    std::vector<std::string> Keys;
    for (unsigned I : descriptorParamIndexes(K))
      Keys.push_back(paramKey(K, I));
    auto It = ConstantParamKeys.find(patternOf(K));
    if (It != ConstantParamKeys.end())
      llvm::append_range(Keys, It->second);
    return Keys;
  }
  std::optional<Blocker> hostDescriptorAt(const CallExpr *Copy, const Stmt *CopyTop,
                                          const Stmt *Launch, const Stmt *Named,
                                          const FunctionDecl *Fn, SourceLocation ArgLoc,
                                          llvm::StringRef CopiedInto,
                                          std::string &HostDescriptor);
  void analyzePointerLaunches(const VarDecl *V, const FunctionDecl *Fn,
                              const std::vector<const CUDAKernelCallExpr *> &Calls);
  bool pointerTargets(const Expr *E, std::vector<const DeclRefExpr *> &Targets);
  /// H6: an upload helper that encodes, allocates, copies and returns the
  /// device pointer, and the variables its callers keep it in. Decided once
  /// per helper; the group is one pseudo device buffer whose users are every
  /// launch of every caller's variable.
  struct UploadGroup {
    std::optional<Blocker> Why; // set: not rewritable
    std::string BufferKey;
  };
  std::map<const FunctionDecl *, UploadGroup> Uploads;
  const UploadGroup &uploadGroup(const FunctionDecl *U);
  /// The call whose callee \p R is (through parentheses and implicit
  /// casts), or null: \p R is used some other way.
  const CallExpr *directCallOf(const DeclRefExpr *R, const FunctionDecl *Fn) {
    if (!Fn || !Fn->getBody())
      return nullptr;
    const Stmt *Cur = R;
    const Stmt *P = parent(Fn, Cur);
    while (P && (isa<ParenExpr>(P) || isa<ImplicitCastExpr>(P))) {
      Cur = P;
      P = parent(Fn, P);
    }
    const auto *Call = dyn_cast_or_null<CallExpr>(P);
    return Call && Call->getCallee() == Cur ? Call : nullptr;
  }
  /// Why another translation unit could call \p F without being verified
  /// with its new signature: external linkage and no declaration in a header
  /// (a TU including an edited header is re-parsed with it).
  std::optional<std::string> callableUnverified(const FunctionDecl *F, llvm::StringRef Role) {
    const SourceManager &SM = Ctx.getSourceManager();
    bool InHeader = llvm::any_of(F->redecls(), [&](const FunctionDecl *D) {
      return SM.getFileID(SM.getExpansionLoc(D->getLocation())) != SM.getMainFileID();
    });
    if (!F->isExternallyVisible() || InHeader)
      return std::nullopt;
    return Role.str() + " '" + F->getQualifiedNameAsString() +
           "' has external linkage and no declaration in a header: other translation units "
           "may call it (make it static, or declare it in a header)";
  }
  /// One descriptor argument of a launch (or of a call to a launcher that
  /// forwards it, \p Depth launchers deep); \p Extra: edits that go with it
  /// (the launchers' parameter types).
  void analyzeLaunchArg(const KernelLaunch &KL, unsigned I, const FunctionDecl *Fn,
                        unsigned Depth, const std::vector<TextEdit> &Extra);
  /// H7: \p PV, a parameter of launcher \p L, is the descriptor argument of
  /// a launch. Analyses every call of L as a launch; returns why not when
  /// the launcher cannot be followed.
  std::optional<Blocker> forwardThroughLauncher(const KernelLaunch &KL, unsigned I,
                                                const ParmVarDecl *PV, const FunctionDecl *L,
                                                unsigned Depth, const LaunchSite &LS,
                                                const std::vector<TextEdit> &Extra);
  /// The launch a launcher's parameter is forwarded to: (kernel, index), when
  /// the parameter is used only as that launch's descriptor argument.
  std::optional<std::pair<const FunctionDecl *, unsigned>>
  launcherTarget(const FunctionDecl *L, unsigned ParamIndex, const Stmt **Offending = nullptr,
                 unsigned Depth = 0);

  void analyzeKernelRef(const DeclRefExpr *R, const FunctionDecl *Fn);
  DeviceBuffer &bufferFacts(const VarDecl *V, const FunctionDecl *Fn);
  std::vector<TextEdit> removeHostCall(const CallExpr *CE, const FunctionDecl *Fn);
  const Stmt *topStatement(const Stmt *S, const FunctionDecl *Fn);
  bool inUnevaluatedOperand(const Stmt *S, const FunctionDecl *Fn) {
    for (const Stmt *P = parent(Fn, S); P; P = parent(Fn, P))
      if (isa<UnaryExprOrTypeTraitExpr>(P) || isa<CXXTypeidExpr>(P) ||
          isa<CXXNoexceptExpr>(P))
        return true;
    return false;
  }
  const DeclStmt *declStmtOf(const VarDecl *V, const FunctionDecl *Fn);
  bool isAncestor(const Stmt *A, const Stmt *S, const FunctionDecl *Fn);
  /// Does \p S run whenever its top statement \p Top does? (No if, loop,
  /// switch, ?: or short-circuit operator in between; a macro's
  /// do { } while (0) runs once.)
  bool runsWhenReached(const Stmt *S, const Stmt *Top, const FunctionDecl *Fn) {
    for (const Stmt *Cur = S; Cur && Cur != Top;) {
      const Stmt *P = parent(Fn, Cur);
      if (!P)
        return false;
      if (const auto *If = dyn_cast<IfStmt>(P))
        if (If->getCond() == Cur || If->getInit() == Cur) {
          Cur = P;
          continue;
        }
      if (const auto *Sw = dyn_cast<SwitchStmt>(P))
        if (Sw->getCond() == Cur || Sw->getInit() == Cur) {
          Cur = P;
          continue;
        }
      if (isa<IfStmt, SwitchStmt, ForStmt, WhileStmt, CXXForRangeStmt,
              AbstractConditionalOperator>(P))
        return false;
      if (const auto *BO = dyn_cast<BinaryOperator>(P))
        if (BO->isLogicalOp() && BO->getRHS() == Cur)
          return false;
      Cur = P;
    }
    return true;
  }
  bool between(const Stmt *From, const Stmt *To, const Stmt *X, const FunctionDecl *Fn);
  unsigned offsetOf(SourceLocation L) {
    return Ctx.getSourceManager().getFileOffset(
        Ctx.getSourceManager().getExpansionLoc(L));
  }
  std::string spelled(const Expr *E) {
    if (std::optional<CharSourceRange> R = ST.fileRange(E->getSourceRange()))
      return ST.text(*R);
    return "<expr>";
  }
  struct CopyInfo {
    const CallExpr *Call;
    const Stmt *Top;
  };
  std::map<const VarDecl *, std::vector<CopyInfo>> BufferCopies;
  std::map<const VarDecl *, std::vector<const Stmt *>> BufferOtherUses;
};

// ---------------------------------------------------------------------------
// Collection

class Collector : public RecursiveASTVisitor<Collector> {
public:
  explicit Collector(PassAnalyzer &A) : A(A) {}
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

  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (isKernel(FD) && !descriptorParamIndexes(FD).empty())
      A.Kernels.push_back(FD);
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
    std::string Name = calleeName(CE);
    if (!Stack.empty() && arrayLaunchApi(driverBaseName(Name)))
      A.ArrayLaunchCalls.push_back({CE, Stack.back()});
    if ((Name == "cuModuleGetFunction" || Name == "cuLibraryGetKernel") && CE->getNumArgs() >= 3) {
      const auto *Lit = dyn_cast<StringLiteral>(CE->getArg(2)->IgnoreParenImpCasts());
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
    auto *FD = dyn_cast<FunctionDecl>(R->getDecl());
    if (isKernel(FD))
      A.KernelRefs.push_back({R, Stack.empty() ? nullptr : Stack.back()});
    if (FD && !isKernel(FD) && isDescriptorPointer(FD->getReturnType()))
      A.UploadRefs[FD->getCanonicalDecl()].push_back({R, Stack.empty() ? nullptr : Stack.back()});
    else if (FD && !isKernel(FD) && !descriptorParamIndexes(FD).empty())
      A.LauncherRefs[FD->getCanonicalDecl()].push_back({R, Stack.empty() ? nullptr : Stack.back()});
    return true;
  }

private:
  PassAnalyzer &A;
  std::vector<const FunctionDecl *> Stack;
};

// ---------------------------------------------------------------------------

BodyIndex &PassAnalyzer::index(const FunctionDecl *FD) {
  Stmt *Body = FD->getBody();
  std::unique_ptr<BodyIndex> &Slot = Bodies[Body];
  if (!Slot) {
    Slot = std::make_unique<BodyIndex>();
    Slot->PM = std::make_unique<ParentMap>(Body);
    llvm::SmallVector<const Stmt *, 64> Work{Body};
    while (!Work.empty()) {
      const Stmt *S = Work.pop_back_val();
      if (!S)
        continue;
      if (const auto *R = dyn_cast<DeclRefExpr>(S))
        Slot->Refs[R->getDecl()].push_back(R);
      for (const Stmt *C : S->children())
        Work.push_back(C);
    }
    for (auto &KV : Slot->Refs)
      llvm::sort(KV.second, [](const DeclRefExpr *A, const DeclRefExpr *B) {
        return A->getBeginLoc() < B->getBeginLoc();
      });
  }
  return *Slot;
}

DescriptorParam &PassAnalyzer::paramFacts(const FunctionDecl *FD, unsigned Index) {
  std::string Key = paramKey(FD, Index);
  auto It = ParamSlot.find(Key);
  if (It != ParamSlot.end())
    return Out.Params[It->second];
  ParamSlot[Key] = Out.Params.size();
  DescriptorParam DP;
  DP.Key = Key;
  DP.KernelName = patternOf(FD)->getQualifiedNameAsString();
  DP.Index = Index;
  const ParmVarDecl *P = FD->getParamDecl(Index);
  DP.ParamName = P->getName().str();
  DP.Where = ST.point(P->getLocation());
  DP.ExternallyVisible = patternOf(FD)->isExternallyVisible();
  Out.Params.push_back(std::move(DP));
  return Out.Params.back();
}

void PassAnalyzer::addSignatureEdits(const FunctionDecl *FD, unsigned Index,
                                     DescriptorParam &DP) {
  const FunctionDecl *Pattern = patternOf(FD);
  for (const FunctionDecl *Redecl : Pattern->redecls()) {
    if (Index >= Redecl->getNumParams())
      continue;
    const ParmVarDecl *P = Redecl->getParamDecl(Index);
    if (ST.inSystemHeader(P->getLocation())) {
      DP.Blockers.push_back({DiagID::Declaration,
                             "a declaration of '" + DP.KernelName +
                                 "' is in a system header",
                             ST.point(P->getLocation()), {}});
      continue;
    }
    if (P->getOriginalType()->isArrayType()) {
      DP.Blockers.push_back({DiagID::RuntimeIndex,
                             "parameter '" + DP.ParamName +
                                 "' is declared as an array of descriptors",
                             ST.point(P->getLocation()), {}});
      continue;
    }
    // The spelled pointee ("CUtensorMap", "Desc", "cute::TmaDescriptor").
    std::string Pointee = "CUtensorMap";
    if (TypeSourceInfo *TSI = P->getTypeSourceInfo()) {
      TypeLoc TL = TSI->getTypeLoc();
      while (true) {
        if (auto Q = TL.getAs<QualifiedTypeLoc>())
          TL = Q.getUnqualifiedLoc();
        else if (auto A = TL.getAs<AttributedTypeLoc>())
          TL = A.getModifiedLoc();
        else if (auto M = TL.getAs<MacroQualifiedTypeLoc>())
          TL = M.getInnerLoc();
        else if (auto Pa = TL.getAs<ParenTypeLoc>())
          TL = Pa.getInnerLoc();
        else
          break;
      }
      if (auto PTL = TL.getAs<PointerTypeLoc>()) {
        TypeLoc PL = PTL.getPointeeLoc().getUnqualifiedLoc();
        if (std::optional<CharSourceRange> R = ST.fileRange(PL.getSourceRange())) {
          std::string T = ST.text(*R);
          if (!T.empty())
            Pointee = T;
        }
      }
    }
    SourceLocation End = P->getLocation();
    if (P->getName().empty() || End.isInvalid())
      End = P->getSourceRange().getEnd();
    std::optional<CharSourceRange> R =
        ST.fileRange(SourceRange(P->getOuterLocStart(), End));
    if (!R) {
      DP.Blockers.push_back({DiagID::InMacro,
                             "the declaration of parameter '" + DP.ParamName +
                                 "' is spelled by a macro",
                             ST.point(P->getLocation()), {}});
      continue;
    }
    std::string Text = "const __grid_constant__ " + Pointee;
    if (!P->getName().empty())
      Text += " " + P->getName().str();
    DP.Edits.push_back(ST.replace(*R, Text));
  }
}

std::optional<Blocker> PassAnalyzer::paramSpaceBlocker(const FunctionDecl *FD,
                                                       const std::vector<unsigned> &Idx,
                                                       uint64_t Bytes) {
  for (unsigned I = 0; I < FD->getNumParams(); ++I) {
    QualType T = FD->getParamDecl(I)->getType();
    if (llvm::is_contained(Idx, I))
      T = T->getPointeeType().getUnqualifiedType();
    if (T->isDependentType() || T->isIncompleteType())
      return std::nullopt;
    TypeInfoChars TI = Ctx.getTypeInfoInChars(T);
    uint64_t Align = std::max<uint64_t>(1, TI.Align.getQuantity());
    Bytes = (Bytes + Align - 1) / Align * Align + TI.Width.getQuantity();
  }
  if (Bytes <= Opts.ParamSpaceLimit)
    return std::nullopt;
  return Blocker{DiagID::ParamSpace,
                 "by value, the parameters of '" + patternOf(FD)->getQualifiedNameAsString() +
                     "' would take " + std::to_string(Bytes) + " bytes, above the " +
                     std::to_string(Opts.ParamSpaceLimit) + "-byte limit",
                 ST.point(FD->getLocation()),
                 {}};
}

void PassAnalyzer::checkParamSpace(const FunctionDecl *FD,
                                   const std::vector<unsigned> &Idx) {
  if (std::optional<Blocker> Why = paramSpaceBlocker(FD, Idx, 0))
    for (unsigned I : Idx)
      paramFacts(FD, I).Blockers.push_back(*Why);
}

void PassAnalyzer::analyzeKernel(const FunctionDecl *FD) {
  std::vector<unsigned> Idx = descriptorParamIndexes(FD);
  for (unsigned I : Idx) {
    DescriptorParam &DP = paramFacts(FD, I);
    addSignatureEdits(FD, I, DP);
  }
  if (!FD->doesThisDeclarationHaveABody() || FD->isDependentContext() ||
      FD->isInvalidDecl())
    return;
  checkParamSpace(FD, Idx);
  for (unsigned I : Idx) {
    UseSink Sink;
    walkVarRefs(FD->getParamDecl(I), FD, 0, /*IsKernelParam=*/true,
                /*Editable=*/true, ValueMode::Pointer, Sink);
    DescriptorParam &DP = paramFacts(FD, I);
    DP.DefinitionSeen = true;
    DP.Where = ST.point(FD->getParamDecl(I)->getLocation());
    llvm::append_range(DP.Edits, Sink.Edits);
    llvm::append_range(DP.FencesRemoved, Sink.Fences);
    llvm::append_range(DP.Blockers, Sink.Blockers);
    DP.ReliesOn.push_back(spanOf(FD));
    llvm::append_range(DP.ReliesOn, Sink.ReliesOn);
  }
}

// ---------------------------------------------------------------------------
// Device side: every use of the descriptor pointer must be a read.

void PassAnalyzer::walkVarRefs(const VarDecl *V, const FunctionDecl *Fn,
                               unsigned Depth, bool IsKernelParam, bool Editable,
                               ValueMode M, UseSink &Sink) {
  auto It = index(Fn).Refs.find(V);
  if (It == index(Fn).Refs.end())
    return;
  for (const DeclRefExpr *R : It->second)
    walkRef(R, Fn, Depth, IsKernelParam, Editable, M, Sink);
}

void PassAnalyzer::walkRef(const DeclRefExpr *R, const FunctionDecl *Fn,
                           unsigned Depth, bool IsKernelParam, bool Editable,
                           ValueMode M, UseSink &Sink) {
  std::string Name = R->getDecl()->getNameAsString();
  const Stmt *P = parent(Fn, R);
  const Expr *Cur = R;
  while (P && isa<ParenExpr>(P)) {
    Cur = cast<Expr>(P);
    P = parent(Fn, P);
  }
  if (const auto *IC = dyn_cast_or_null<ImplicitCastExpr>(P)) {
    if (IC->getCastKind() == CK_LValueToRValue) {
      walkValue(IC, Fn, Depth, Editable ? R : nullptr, M, Sink);
      return;
    }
  }
  if (const auto *UO = dyn_cast_or_null<UnaryOperator>(P)) {
    if (UO->getOpcode() == UO_AddrOf) {
      block(Sink, DiagID::Escapes, "the address of '" + Name + "' is taken",
            UO->getBeginLoc());
      return;
    }
    if (UO->isIncrementDecrementOp()) {
      block(Sink, DiagID::RuntimeIndex, "'" + Name + "' is incremented or decremented",
            UO->getBeginLoc());
      return;
    }
  }
  // A call that clang could not finish because of another argument (one that
  // names a declaration clang rejected, such as nvcc's `__shared__
  // cuda::barrier`) keeps its arguments unconverted. When the callee is one
  // known function (not an overload set) and this argument is sound, it is
  // the call nvcc makes: follow it as such.
  if (const auto *CE = dyn_cast_or_null<CallExpr>(P)) {
    const auto *Callee = dyn_cast<DeclRefExpr>(CE->getCallee()->IgnoreParenImpCasts());
    const auto *FD = Callee ? dyn_cast<FunctionDecl>(Callee->getDecl()) : nullptr;
    if (CE->containsErrors() && !R->containsErrors() && FD && !isa<CUDAKernelCallExpr>(CE) &&
        llvm::is_contained(CE->arguments(), Cur) && CE->getNumArgs() <= FD->getNumParams()) {
      handleCallArg(CE, Cur, Fn, Depth, Editable ? R : nullptr, M, Sink);
      return;
    }
  }
  if (const auto *BO = dyn_cast_or_null<BinaryOperator>(P)) {
    if (BO->isAssignmentOp() && BO->getLHS()->IgnoreParens() == R) {
      if (IsKernelParam)
        block(Sink, BO->isCompoundAssignmentOp() ? DiagID::RuntimeIndex : DiagID::DeviceWrite,
              "parameter '" + Name + "' is assigned in the kernel", BO->getBeginLoc());
      // An alias that is reassigned simply stops being an alias.
      return;
    }
  }
  block(Sink, DiagID::Escapes,
        "'" + Name + "' is used in a way that cannot be followed (" +
            (P ? std::string(P->getStmtClassName()) : std::string("?")) + ")",
        R->getBeginLoc());
}

void PassAnalyzer::walkValue(const Expr *E, const FunctionDecl *Fn, unsigned Depth,
                             const DeclRefExpr *Direct, ValueMode M, UseSink &Sink) {
  std::string Name = Direct ? Direct->getDecl()->getNameAsString() : "descriptor pointer";
  while (true) {
    const Stmt *P = parent(Fn, E);
    if (!P) {
      block(Sink, DiagID::Escapes, "value of '" + Name + "' is discarded in an unknown context",
            E->getBeginLoc());
      return;
    }
    if (isa<ParenExpr>(P)) {
      E = cast<Expr>(P);
      continue;
    }
    if (const auto *IC = dyn_cast<ImplicitCastExpr>(P)) {
      CastKind K = IC->getCastKind();
      if (M == ValueMode::Pointer) {
        if (K == CK_NoOp || K == CK_BitCast || K == CK_LValueToRValue) {
          if (isPointerToNonConst(IC->getType()) &&
                   !isDescriptorPointer(IC->getType())) {
            block(Sink, DiagID::DeviceWrite,
                  "'" + Name + "' is converted to '" + IC->getType().getAsString() +
                      "', a pointer to non-const",
                  IC->getBeginLoc());
            return;
          }
          E = IC;
          continue;
        }
        if (K == CK_PointerToIntegral) {
          M = ValueMode::Integer;
          E = IC;
          continue;
        }
        block(Sink, DiagID::Escapes,
              "'" + Name + "' is converted (" + IC->getCastKindName() +
                  "); the result cannot be followed",
              IC->getBeginLoc());
        return;
      }
      if (K == CK_IntegralCast || K == CK_NoOp || K == CK_LValueToRValue) {
        E = IC;
        continue;
      }
      block(Sink, DiagID::Escapes,
            "the address held in '" + Name + "' is converted (" +
                IC->getCastKindName() + ")",
            IC->getBeginLoc());
      return;
    }
    if (const auto *EC = dyn_cast<ExplicitCastExpr>(P)) {
      QualType T = EC->getType();
      if (T->isIntegerType()) {
        M = ValueMode::Integer;
        E = EC;
        continue;
      }
      if (T->isPointerType() && M == ValueMode::Pointer) {
        if (isPointerToNonConst(T) && !isa<CStyleCastExpr>(EC)) {
          block(Sink, DiagID::DeviceWrite,
                "'" + Name + "' is cast to '" + T.getAsString() +
                    "', a pointer to non-const",
                EC->getBeginLoc());
          return;
        }
        E = EC;
        continue;
      }
      block(Sink, DiagID::Escapes,
            "'" + Name + "' is cast to '" + T.getAsString() + "'", EC->getBeginLoc());
      return;
    }
    if (M == ValueMode::Pointer) {
      if (const auto *UO = dyn_cast<UnaryOperator>(P)) {
        if (UO->getOpcode() == UO_Deref) {
          if (Direct) {
            if (std::optional<CharSourceRange> R = ST.fileRange(UO->getOperatorLoc()))
              Sink.Edits.push_back(ST.replace(*R, ""));
            else
              block(Sink, DiagID::InMacro, "'*" + Name + "' is spelled inside a macro",
                    UO->getBeginLoc());
          }
          walkLValue(UO, Fn, Depth, Sink);
          return;
        }
      }
      if (const auto *AS = dyn_cast<ArraySubscriptExpr>(P)) {
        if (AS->getBase()->IgnoreParenImpCasts() == E->IgnoreParenImpCasts() ||
            AS->getBase() == E) {
          Expr::EvalResult Idx;
          if (AS->getIdx()->EvaluateAsInt(Idx, Ctx) && Idx.Val.getInt() == 0) {
            if (Direct) {
              std::optional<CharSourceRange> Base = ST.fileRange(AS->getBase()->getSourceRange());
              std::optional<CharSourceRange> All = ST.fileRange(AS->getSourceRange());
              if (Base && All)
                Sink.Edits.push_back(ST.replace(
                    CharSourceRange::getCharRange(Base->getEnd(), All->getEnd()), ""));
              else
                block(Sink, DiagID::InMacro, "'" + Name + "[0]' is spelled inside a macro",
                      AS->getBeginLoc());
            }
            walkLValue(AS, Fn, Depth, Sink);
            return;
          }
          block(Sink, DiagID::RuntimeIndex,
                "'" + Name + "' is indexed with '" + spelled(AS->getIdx()) +
                    "', not the constant 0",
                AS->getBeginLoc());
          return;
        }
      }
      if (const auto *ME = dyn_cast<MemberExpr>(P)) {
        if (ME->isArrow()) {
          if (Direct) {
            if (std::optional<CharSourceRange> R = ST.fileRange(ME->getOperatorLoc()))
              Sink.Edits.push_back(ST.replace(*R, "."));
            else
              block(Sink, DiagID::InMacro, "'" + Name + "->' is spelled inside a macro",
                    ME->getBeginLoc());
          }
          walkLValue(ME, Fn, Depth, Sink);
          return;
        }
      }
    }
    if (const auto *BO = dyn_cast<BinaryOperator>(P)) {
      if (BO->isAdditiveOp() || BO->getOpcode() == BO_AddAssign ||
          BO->getOpcode() == BO_SubAssign) {
        block(Sink, DiagID::RuntimeIndex,
              "pointer arithmetic on '" + Name + "' ('" + spelled(BO) + "')",
              BO->getBeginLoc());
        return;
      }
      if (BO->isAssignmentOp() && BO->getRHS() == E) {
        block(Sink, DiagID::Escapes,
              "'" + Name + "' is stored ('" + spelled(BO) + "')", BO->getBeginLoc());
        return;
      }
      block(Sink, DiagID::Escapes,
            "'" + Name + "' is used in '" + spelled(BO) + "'", BO->getBeginLoc());
      return;
    }
    if (const auto *KC = dyn_cast<CUDAKernelCallExpr>(P)) {
      block(Sink, DiagID::Escapes,
            "'" + Name + "' is passed to a launch of another kernel", KC->getBeginLoc());
      return;
    }
    if (const auto *CE = dyn_cast<CallExpr>(P)) {
      handleCallArg(CE, E, Fn, Depth, Direct, M, Sink);
      return;
    }
    if (const auto *AS = dyn_cast<GCCAsmStmt>(P)) {
      handleAsm(AS, E, Fn, Depth, Direct, Sink);
      return;
    }
    if (const auto *DS = dyn_cast<DeclStmt>(P)) {
      handleAlias(DS, E, Fn, Depth, Direct, M, Sink);
      return;
    }
    if (isa<ReturnStmt>(P)) {
      block(Sink, DiagID::Escapes, "'" + Name + "' is returned", P->getBeginLoc());
      return;
    }
    block(Sink, DiagID::Escapes,
          "'" + Name + "' is used in a " + P->getStmtClassName() +
              " that cannot be followed",
          P->getBeginLoc());
    return;
  }
}

void PassAnalyzer::walkLValue(const Expr *E, const FunctionDecl *Fn, unsigned Depth,
                              UseSink &Sink) {
  while (true) {
    const Stmt *P = parent(Fn, E);
    if (!P)
      return;
    if (isa<ParenExpr>(P) || isa<MemberExpr>(P)) {
      E = cast<Expr>(P);
      continue;
    }
    if (const auto *IC = dyn_cast<ImplicitCastExpr>(P)) {
      if (IC->getCastKind() == CK_LValueToRValue)
        return; // a read
      if (IC->getCastKind() == CK_ArrayToPointerDecay || IC->getCastKind() == CK_NoOp) {
        E = IC;
        continue;
      }
      block(Sink, DiagID::Escapes, "the descriptor is converted (" +
                                       std::string(IC->getCastKindName()) + ")",
            IC->getBeginLoc());
      return;
    }
    if (const auto *AS = dyn_cast<ArraySubscriptExpr>(P)) {
      if (AS->getBase() == E) {
        E = AS;
        continue;
      }
      return; // used as an index: a read
    }
    if (const auto *UO = dyn_cast<UnaryOperator>(P)) {
      if (UO->getOpcode() == UO_AddrOf) {
        // '&*p': a pointer again, followed like the parameter itself.
        walkValue(UO, Fn, Depth, nullptr, ValueMode::Pointer, Sink);
        return;
      }
      if (UO->isIncrementDecrementOp()) {
        block(Sink, DiagID::DeviceWrite, "the descriptor is modified ('" + spelled(UO) + "')",
              UO->getBeginLoc());
        return;
      }
      return;
    }
    if (const auto *BO = dyn_cast<BinaryOperator>(P)) {
      if (BO->isAssignmentOp() && BO->getLHS() == E)
        block(Sink, DiagID::DeviceWrite, "the descriptor is written ('" + spelled(BO) + "')",
              BO->getBeginLoc());
      return;
    }
    if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(P)) {
      if (OC->isAssignmentOp() && OC->getArg(0) == E)
        block(Sink, DiagID::DeviceWrite, "the descriptor is written ('" + spelled(OC) + "')",
              OC->getBeginLoc());
      return;
    }
    if (isa<CXXConstructExpr>(P) || isa<UnaryExprOrTypeTraitExpr>(P))
      return; // a copy, or sizeof
    if (const auto *CE = dyn_cast<CallExpr>(P)) {
      const FunctionDecl *FD = CE->getDirectCallee();
      for (unsigned I = 0; FD && I < CE->getNumArgs() && I < FD->getNumParams(); ++I)
        if (CE->getArg(I) == E) {
          QualType T = FD->getParamDecl(I)->getType();
          if (T->isReferenceType() && !T->getPointeeType().isConstQualified())
            block(Sink, DiagID::DeviceWrite,
                  "the descriptor is bound to a non-const reference of '" +
                      FD->getNameAsString() + "'",
                  CE->getBeginLoc());
          return;
        }
      block(Sink, DiagID::Escapes, "the descriptor is passed to a call that cannot be followed",
            CE->getBeginLoc());
      return;
    }
    block(Sink, DiagID::Escapes,
          std::string("the descriptor is used in a ") + P->getStmtClassName() +
              " that cannot be followed",
          P->getBeginLoc());
    return;
  }
}

void PassAnalyzer::handleCallArg(const CallExpr *CE, const Expr *Arg,
                                 const FunctionDecl *Fn, unsigned Depth,
                                 const DeclRefExpr *Direct, ValueMode M, UseSink &Sink) {
  std::string Name = Direct ? Direct->getDecl()->getNameAsString() : "descriptor pointer";
  const FunctionDecl *FD = CE->getDirectCallee();
  if (!FD || CE->getCallee() == Arg) {
    block(Sink, DiagID::Escapes, "'" + Name + "' is passed through an indirect call",
          CE->getBeginLoc());
    return;
  }
  std::string Callee = FD->getQualifiedNameAsString();
  if (isFenceWrapper(FD)) {
    std::string Sem = CE->getNumArgs() ? CE->getArg(0)->getType().getAsString() : "";
    if (Sem.find("sem_release") != std::string::npos) {
      block(Sink, DiagID::DeviceWrite,
            "'" + Name + "' is released with '" + Callee + "'", CE->getBeginLoc());
      return;
    }
    if (Sem.find("sem_acquire") != std::string::npos) {
      removeFence(CE, Fn, Depth, Callee, Sink);
      return;
    }
  }
  unsigned I = 0;
  while (I < CE->getNumArgs() && CE->getArg(I) != Arg)
    ++I;
  if (I >= FD->getNumParams()) {
    block(Sink, DiagID::Escapes,
          "'" + Name + "' is passed to '" + Callee + "' as a variadic argument",
          CE->getBeginLoc());
    return;
  }
  const ParmVarDecl *PVD = FD->getParamDecl(I);
  QualType PT = PVD->getType();
  if (M == ValueMode::Pointer && isPointerToNonConst(PT)) {
    block(Sink, DiagID::DeviceWrite,
          "'" + Name + "' is passed to '" + Callee + "' as '" + PT.getAsString() +
              "', a pointer to non-const",
          CE->getBeginLoc());
    return;
  }
  if (!(PT->isPointerType() || PT->isIntegerType())) {
    block(Sink, DiagID::Escapes,
          "'" + Name + "' is passed to '" + Callee + "' as '" + PT.getAsString() + "'",
          CE->getBeginLoc());
    return;
  }
  const FunctionDecl *Def = nullptr;
  if (!FD->hasBody(Def) || !Def || Def->isDependentContext()) {
    block(Sink, DiagID::Escapes,
          "'" + Name + "' is passed to '" + Callee +
              "', whose body is not visible in this translation unit",
          CE->getBeginLoc());
    return;
  }
  // A wrapper whose whole body is the acquire fence on this parameter (cute's
  // tma_descriptor_fence_acquire and the like): the call goes, the wrapper
  // stays for its other callers.
  if (isAcquireFenceWrapper(Def, I)) {
    removeFence(CE, Fn, Depth, Callee, Sink);
    return;
  }
  auto Key = std::make_pair(Def, I);
  if (!HelpersInProgress.count(Key)) {
    auto Memo = HelperMemo.find(Key);
    if (Memo == HelperMemo.end()) {
      UseSink Helper;
      Helper.ReliesOn.push_back(spanOf(Def));
      if (Depth >= 12) {
        Helper.Blockers.push_back({DiagID::Escapes, "calls nest too deeply to follow",
                                   ST.point(CE->getBeginLoc()), {}});
      } else {
        HelpersInProgress.insert(Key);
        walkVarRefs(Def->getParamDecl(I), Def, Depth + 1, /*IsKernelParam=*/false,
                    /*Editable=*/false,
                    PT->isIntegerType() ? ValueMode::Integer : ValueMode::Pointer, Helper);
        HelpersInProgress.erase(Key);
      }
      Helper.Edits.clear();
      Memo = HelperMemo.emplace(Key, std::move(Helper)).first;
    }
    llvm::append_range(Sink.ReliesOn, Memo->second.ReliesOn);
    for (Blocker B : Memo->second.Blockers) {
      B.Notes.push_back({"through the call to '" + Callee + "' here",
                         ST.point(CE->getBeginLoc())});
      Sink.Blockers.push_back(std::move(B));
    }
  }
  addressOf(Direct, Sink);
}

void PassAnalyzer::handleAsm(const GCCAsmStmt *AS, const Expr *Operand,
                             const FunctionDecl *Fn, unsigned Depth,
                             const DeclRefExpr *Direct, UseSink &Sink) {
  std::string Name = Direct ? Direct->getDecl()->getNameAsString() : "descriptor pointer";
  for (unsigned I = 0; I < AS->getNumOutputs(); ++I)
    if (AS->getOutputExpr(I) == Operand) {
      block(Sink, DiagID::DeviceWrite, "'" + Name + "' is an output of inline assembly",
            AS->getBeginLoc());
      return;
    }
  unsigned Index = 0;
  std::string OpName;
  bool Found = false;
  for (unsigned I = 0; I < AS->getNumInputs(); ++I)
    if (AS->getInputExpr(I) == Operand) {
      Index = AS->getNumOutputs() + I;
      OpName = AS->getInputName(I).str();
      Found = true;
    }
  if (!Found) {
    block(Sink, DiagID::Escapes, "'" + Name + "' is used in inline assembly in an unknown role",
          AS->getBeginLoc());
    return;
  }
  AsmOperandUse Use = classifyAsmOperand(AS->getAsmString(), Index, OpName);
  switch (Use.Role) {
  case AsmOperandRole::NotReferenced:
  case AsmOperandRole::TensorRead:
    addressOf(Direct, Sink);
    return;
  case AsmOperandRole::AcquireFence:
    if (!Use.SoleAcquireFence) {
      block(Sink, DiagID::InMacro,
            "the acquire fence on '" + Name +
                "' shares its asm statement with other instructions",
            AS->getBeginLoc());
      return;
    }
    removeFence(AS, Fn, Depth, "fence.proxy.tensormap::generic.acquire", Sink);
    return;
  case AsmOperandRole::Write:
    block(Sink, DiagID::DeviceWrite,
          "'" + Name + "' is modified by '" + Use.Instruction + "'", AS->getBeginLoc());
    return;
  case AsmOperandRole::Unknown:
    block(Sink, DiagID::Escapes,
          "'" + Name + "' is used by '" + Use.Instruction +
              "', not known to accept a kernel-parameter address",
          AS->getBeginLoc());
    return;
  }
}

void PassAnalyzer::removeFence(const Stmt *S, const FunctionDecl *Fn, unsigned Depth,
                               llvm::StringRef What, UseSink &Sink) {
  if (Depth > 0) {
    block(Sink, DiagID::Escapes,
          "the helper '" + Fn->getQualifiedNameAsString() + "' fences the descriptor with '" +
              What.str() + "'; a shared helper is not edited",
          S->getBeginLoc());
    return;
  }
  // Climb to the statement itself (a call may sit in an ExprWithCleanups).
  const Stmt *Cur = S;
  const Stmt *P = parent(Fn, Cur);
  while (P && (isa<ExprWithCleanups>(P) || isa<ParenExpr>(P) ||
               (isa<CStyleCastExpr>(P) && cast<Expr>(P)->getType()->isVoidType()))) {
    Cur = P;
    P = parent(Fn, P);
  }
  std::optional<TextEdit> Edit = ST.removeStatement(Cur->getSourceRange());
  if (!Edit) {
    block(Sink, DiagID::InMacro,
          "the acquire fence is part of a macro expansion that also does other work",
          S->getBeginLoc());
    return;
  }
  if (!P || !isa<CompoundStmt>(P)) {
    // The body of an if/for: keep a statement there.
    std::optional<CharSourceRange> R = ST.fileRange(Cur->getSourceRange());
    TextEdit Braces = ST.replace(*R, "{}");
    if (Edit->Offset <= Braces.Offset &&
        Braces.Offset + Braces.Length <= Edit->Offset + Edit->Length) {
      // Include the ';' the removal took, if any.
      unsigned SemiEnd = Braces.Offset + Braces.Length;
      const SourceManager &SM = Ctx.getSourceManager();
      StringRef Buf = SM.getBufferData(SM.getFileID(R->getBegin()));
      unsigned Q = SemiEnd;
      while (Q < Buf.size() && (Buf[Q] == ' ' || Buf[Q] == '\t'))
        ++Q;
      if (Q < Buf.size() && Buf[Q] == ';')
        Braces.Length = Q + 1 - Braces.Offset;
    }
    Edit = Braces;
  }
  Sink.Edits.push_back(*Edit);
  Sink.Fences.push_back(ST.point(S->getBeginLoc()));
}

void PassAnalyzer::handleAlias(const DeclStmt *DS, const Expr *Init,
                               const FunctionDecl *Fn, unsigned Depth,
                               const DeclRefExpr *Direct, ValueMode M, UseSink &Sink) {
  std::string Name = Direct ? Direct->getDecl()->getNameAsString() : "descriptor pointer";
  const VarDecl *V = nullptr;
  for (const Decl *D : DS->decls())
    if (const auto *VD = dyn_cast<VarDecl>(D))
      if (VD->getInit() == Init)
        V = VD;
  if (!V) {
    block(Sink, DiagID::Escapes, "'" + Name + "' is used in a declaration that cannot be followed",
          DS->getBeginLoc());
    return;
  }
  if (!V->hasLocalStorage() || V->getType()->isReferenceType()) {
    block(Sink, DiagID::Escapes,
          "'" + Name + "' is stored in '" + V->getNameAsString() + "'", V->getLocation());
    return;
  }
  bool IsAuto = V->getType()->getContainedAutoType() != nullptr;
  if (M == ValueMode::Pointer && !IsAuto && isPointerToNonConst(V->getType())) {
    block(Sink, DiagID::DeviceWrite,
          "'" + Name + "' initialises '" + V->getNameAsString() + "' of type '" +
              V->getType().getAsString() + "', a pointer to non-const",
          V->getLocation());
    return;
  }
  addressOf(Direct, Sink);
  ValueMode VM = V->getType()->isIntegerType() ? ValueMode::Integer : ValueMode::Pointer;
  walkVarRefs(V, Fn, Depth, /*IsKernelParam=*/false, /*Editable=*/false, VM, Sink);
}

// ---------------------------------------------------------------------------
// Host side: launches, device buffers, host descriptors.

const Stmt *PassAnalyzer::topStatement(const Stmt *S, const FunctionDecl *Fn) {
  // The statement as the user wrote it: a block that a macro expansion
  // opens (do { ... } while (0)) does not count.
  const Stmt *Cur = S;
  while (const Stmt *P = parent(Fn, Cur)) {
    if (isa<CompoundStmt>(P) && P->getBeginLoc().isFileID())
      return Cur;
    Cur = P;
  }
  return Cur;
}

const DeclStmt *PassAnalyzer::declStmtOf(const VarDecl *V, const FunctionDecl *Fn) {
  llvm::SmallVector<const Stmt *, 64> Work{Fn->getBody()};
  while (!Work.empty()) {
    const Stmt *S = Work.pop_back_val();
    if (!S)
      continue;
    if (const auto *DS = dyn_cast<DeclStmt>(S))
      for (const Decl *D : DS->decls())
        if (D == V)
          return DS;
    for (const Stmt *C : S->children())
      Work.push_back(C);
  }
  return nullptr;
}

bool PassAnalyzer::isAncestor(const Stmt *A, const Stmt *S, const FunctionDecl *Fn) {
  for (const Stmt *Cur = S; Cur; Cur = parent(Fn, Cur))
    if (Cur == A)
      return true;
  return false;
}

bool PassAnalyzer::between(const Stmt *From, const Stmt *To, const Stmt *X,
                           const FunctionDecl *Fn) {
  unsigned XOff = offsetOf(X->getBeginLoc());
  if (XOff > offsetOf(From->getEndLoc()) && XOff < offsetOf(To->getBeginLoc()))
    return true;
  // A loop around the launch but not around the copy runs X again before
  // the next launch.
  for (const Stmt *L = parent(Fn, To); L; L = parent(Fn, L))
    if (isLoop(L) && isAncestor(L, X, Fn) && !isAncestor(L, From, Fn))
      return true;
  return false;
}

std::vector<TextEdit> PassAnalyzer::removeHostCall(const CallExpr *CE,
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

DeviceBuffer &PassAnalyzer::bufferFacts(const VarDecl *V, const FunctionDecl *Fn) {
  auto It = BufferSlot.find(V);
  if (It != BufferSlot.end())
    return Out.Buffers[It->second];
  DeviceBuffer B;
  B.Where = ST.point(V->getLocation());
  B.Key = B.Where.File + ":" + std::to_string(B.Where.Offset);
  B.Name = V->getNameAsString();
  std::vector<CopyInfo> &Copies = BufferCopies[V];
  std::vector<const Stmt *> &Others = BufferOtherUses[V];

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
            Forwarded = launcherTarget(LC->getDirectCallee(), J);
      if (Forwarded) {
        U.Kind = HostUseKind::Launch;
        U.What = "call of launcher '" + calleeName(cast<CallExpr>(P)) + "'";
        U.ParamKey = paramKey(Forwarded->first, Forwarded->second);
      } else if (auto Slot = ArraySlots.find(R); Slot != ArraySlots.end()) {
        U.Kind = HostUseKind::Launch;
        U.What = "launch of '" + patternOf(Slot->second.first)->getQualifiedNameAsString() + "'";
        U.ParamKey = paramKey(Slot->second.first, Slot->second.second);
      } else if (auto PL = PointerTargets.find(dyn_cast_or_null<CUDAKernelCallExpr>(P));
                 P && PL != PointerTargets.end()) {
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
      } else if (AddrTaken && FirstArg &&
                 (Name == "cudaMalloc" || Name == "cudaMallocAsync" ||
                  Name == "cuMemAlloc" || Name == "cuMemAllocAsync")) {
        U.Kind = HostUseKind::Alloc;
      } else if (!AddrTaken && FirstArg &&
                 (Name == "cudaFree" || Name == "cudaFreeAsync" || Name == "cuMemFree" ||
                  Name == "cuMemFreeAsync")) {
        U.Kind = HostUseKind::Free;
      } else if (!AddrTaken && FirstArg &&
                 (Name == "cuMemcpyHtoD" || Name == "cuMemcpyHtoDAsync") &&
                 Call->getNumArgs() >= 3) {
        Expr::EvalResult Size;
        if (Call->getArg(2)->EvaluateAsInt(Size, Ctx) && Size.Val.getInt() == 128) {
          U.Kind = HostUseKind::Copy;
          Copies.push_back({Call, topStatement(Call, Fn)});
        }
      } else if (!AddrTaken && FirstArg &&
                 (Name == "cudaMemcpy" || Name == "cudaMemcpyAsync") &&
                 Call->getNumArgs() >= 4) {
        Expr::EvalResult Size, Kind;
        bool SizeOk = Call->getArg(2)->EvaluateAsInt(Size, Ctx) &&
                      Size.Val.getInt() == 128;
        bool KindOk = Call->getArg(3)->EvaluateAsInt(Kind, Ctx) &&
                      (Kind.Val.getInt() == 1 /*HostToDevice*/ ||
                       Kind.Val.getInt() == 4 /*Default*/);
        if (SizeOk && KindOk) {
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

/// Is this reference to the host descriptor a plain read?
enum class HostRefKind { Read, Write, AddressEscapes };

HostRefKind classifyHostRef(const DeclRefExpr *R, ParentMap &PM) {
  const Stmt *Cur = R;
  const Stmt *P = PM.getParent(Cur);
  auto Up = [&] {
    Cur = P;
    P = PM.getParent(P);
  };
  while (P && (isa<ParenExpr>(P) || isa<MemberExpr>(P) ||
               (isa<ArraySubscriptExpr>(P) && cast<ArraySubscriptExpr>(P)->getBase() == Cur) ||
               (isa<ImplicitCastExpr>(P) &&
                cast<ImplicitCastExpr>(P)->getCastKind() == CK_ArrayToPointerDecay)))
    Up();
  if (!P)
    return HostRefKind::Write;
  if (const auto *IC = dyn_cast<ImplicitCastExpr>(P))
    if (IC->getCastKind() == CK_LValueToRValue || IC->getCastKind() == CK_NoOp)
      return HostRefKind::Read;
  if (isa<CXXConstructExpr>(P) || isa<UnaryExprOrTypeTraitExpr>(P) ||
      isa<CUDAKernelCallExpr>(P))
    return HostRefKind::Read;
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(P))
    return OC->isAssignmentOp() && OC->getArg(0) == Cur ? HostRefKind::Write
                                                        : HostRefKind::Read;
  if (const auto *UO = dyn_cast<UnaryOperator>(P)) {
    if (UO->getOpcode() != UO_AddrOf)
      return HostRefKind::Write;
    Up();
    while (P && (isa<ParenExpr>(P) || isa<ImplicitCastExpr>(P) || isa<ExplicitCastExpr>(P)))
      Up();
    const auto *CE = dyn_cast_or_null<CallExpr>(P);
    if (!CE)
      return HostRefKind::AddressEscapes;
    const FunctionDecl *FD = CE->getDirectCallee();
    for (unsigned I = 0; FD && I < CE->getNumArgs() && I < FD->getNumParams(); ++I)
      if (CE->getArg(I) == Cur) {
        QualType T = FD->getParamDecl(I)->getType();
        if (T->isPointerType() && T->getPointeeType().isConstQualified())
          return HostRefKind::Read;
        return HostRefKind::Write;
      }
    return HostRefKind::Write;
  }
  if (const auto *CE = dyn_cast<CallExpr>(P)) {
    const FunctionDecl *FD = CE->getDirectCallee();
    for (unsigned I = 0; FD && I < CE->getNumArgs() && I < FD->getNumParams(); ++I)
      if (CE->getArg(I) == Cur) {
        QualType T = FD->getParamDecl(I)->getType();
        if (T->isReferenceType() && T->getPointeeType().isConstQualified())
          return HostRefKind::Read;
      }
    return HostRefKind::Write;
  }
  return HostRefKind::Write;
}

/// `&h`, `&s.map`, `&maps[1]`: an lvalue with no side effects whose value
/// the launch can name. Returns its root variable.
const VarDecl *simpleLValueRoot(const Expr *E, ASTContext &Ctx) {
  E = E->IgnoreParens();
  if (const auto *R = dyn_cast<DeclRefExpr>(E))
    return dyn_cast<VarDecl>(R->getDecl());
  if (const auto *ME = dyn_cast<MemberExpr>(E))
    return ME->isArrow() ? nullptr : simpleLValueRoot(ME->getBase(), Ctx);
  if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E)) {
    Expr::EvalResult Idx;
    if (!AS->getIdx()->EvaluateAsInt(Idx, Ctx))
      return nullptr;
    return simpleLValueRoot(AS->getBase()->IgnoreImpCasts(), Ctx);
  }
  return nullptr;
}

const FunctionDecl *PassAnalyzer::kernelOfHandle(const VarDecl *F, const FunctionDecl *Fn,
                                                 const DeclRefExpr *&Bound,
                                                 std::string &WhyNot) {
  Bound = nullptr;
  if (isa<ParmVarDecl>(F) || !F->hasLocalStorage() || F->isStaticLocal()) {
    WhyNot = "the function handle '" + F->getNameAsString() + "' is not a local variable";
    return nullptr;
  }
  static const llvm::StringRef HandleQueries[] = {"cuFuncGetAttribute", "cuFuncSetAttribute",
                                                  "cuFuncSetCacheConfig",
                                                  "cuFuncSetSharedMemConfig", "cuOccupancy"};
  const FunctionDecl *K = nullptr;
  auto Refs = index(Fn).Refs.find(F);
  if (Refs == index(Fn).Refs.end())
    return nullptr;
  for (const DeclRefExpr *R : Refs->second) {
    const Stmt *Cur = R;
    const Stmt *P = parent(Fn, Cur);
    while (P && (isa<ParenExpr>(P) || isa<ImplicitCastExpr>(P) || isa<ExplicitCastExpr>(P))) {
      Cur = P;
      P = parent(Fn, P);
    }
    if (const auto *UO = dyn_cast_or_null<UnaryOperator>(P); UO && UO->getOpcode() == UO_AddrOf) {
      const Stmt *Q = parent(Fn, UO);
      const Stmt *QC = UO;
      while (Q && (isa<ParenExpr>(Q) || isa<ImplicitCastExpr>(Q) || isa<ExplicitCastExpr>(Q))) {
        QC = Q;
        Q = parent(Fn, Q);
      }
      const auto *Bind = dyn_cast_or_null<CallExpr>(Q);
      if (Bind && calleeName(Bind) == "cudaGetFuncBySymbol" && Bind->getNumArgs() == 2 &&
          Bind->getArg(0) == QC && !K) {
        const Expr *Sym = stripCasts(Bind->getArg(1));
        if (const auto *A = dyn_cast<UnaryOperator>(Sym); A && A->getOpcode() == UO_AddrOf)
          Sym = stripCasts(A->getSubExpr());
        const auto *SR = dyn_cast<DeclRefExpr>(Sym);
        K = SR ? dyn_cast<FunctionDecl>(SR->getDecl()) : nullptr;
        if (K) {
          Bound = SR;
          continue;
        }
      }
      WhyNot = "the function handle '" + F->getNameAsString() + "' is set here: '" +
               spelled(cast<Expr>(Bind ? static_cast<const Stmt *>(Bind) : UO)) + "'";
      return nullptr;
    }
    if (const auto *CE = dyn_cast_or_null<CallExpr>(P)) {
      std::string Name = calleeName(CE);
      const ArrayLaunchApi *Api = arrayLaunchApi(driverBaseName(Name));
      if (Api && Api->Handle && CE->getNumArgs() > Api->KernelArg &&
          CE->getArg(Api->KernelArg) == Cur)
        continue;
      if (llvm::any_of(HandleQueries, [&](llvm::StringRef Q) {
            return llvm::StringRef(Name).starts_with(Q);
          }))
        continue;
    }
    WhyNot = "the function handle '" + F->getNameAsString() +
             "' is used here other than to launch or query the kernel";
    return nullptr;
  }
  if (!K)
    WhyNot = "the function handle '" + F->getNameAsString() +
             "' is not set by cudaGetFuncBySymbol in '" + Fn->getQualifiedNameAsString() + "'";
  return K;
}

void PassAnalyzer::resolveArrayLaunch(const CallExpr *CE, const FunctionDecl *Fn) {
  const ArrayLaunchApi *Api = arrayLaunchApi(driverBaseName(calleeName(CE)));
  if (!Api || CE->getNumArgs() <= Api->ArgsArg || CE->getNumArgs() <= Api->KernelArg)
    return;
  const Expr *KE = stripCasts(CE->getArg(Api->KernelArg));
  if (const auto *A = dyn_cast<UnaryOperator>(KE); A && A->getOpcode() == UO_AddrOf)
    KE = stripCasts(A->getSubExpr());
  const auto *KR = dyn_cast<DeclRefExpr>(KE);
  if (!KR)
    return;
  const FunctionDecl *K = nullptr;
  const DeclRefExpr *Sym = nullptr;
  std::string WhyNot;
  if (Api->Handle) {
    const auto *F = dyn_cast<VarDecl>(KR->getDecl());
    if (!F || !(K = kernelOfHandle(F, Fn, Sym, WhyNot)))
      return; // the kernel's own reference (if any) is refused where it is
  } else {
    K = dyn_cast<FunctionDecl>(KR->getDecl());
    Sym = KR;
  }
  // A kernel that gains a parameter from a __constant__ descriptor cannot
  // get it through an array this tool does not extend: its reference stays
  // unaccepted, and blocks.
  if (!isKernel(K) || descriptorParamIndexes(K).empty() ||
      ConstantParamKeys.count(patternOf(K)))
    return;
  AcceptedKernelRefs.insert(Sym);
  std::string KernelName = patternOf(K)->getQualifiedNameAsString();
  auto Refuse = [&](DiagID ID, std::string Msg, SourceLocation L) {
    for (unsigned I : descriptorParamIndexes(K)) {
      LaunchSite LS;
      LS.ParamKey = paramKey(K, I);
      LS.KernelName = KernelName;
      LS.Where = ST.point(CE->getBeginLoc());
      LS.ReliesOn.push_back(spanOf(Fn));
      LS.Blockers.push_back({ID, Msg, ST.point(L), {}});
      Out.Launches.push_back(std::move(LS));
    }
  };
  if (Api->ExtraArg >= 0 && CE->getNumArgs() > unsigned(Api->ExtraArg) &&
      CE->getArg(Api->ExtraArg)->isNullPointerConstant(Ctx, Expr::NPC_ValueDependentIsNotNull) ==
          Expr::NPCK_NotNull) {
    Refuse(DiagID::LaunchNotRewritable,
           "'" + KernelName + "' is launched with 'extra' (a packed argument buffer)",
           CE->getArg(Api->ExtraArg)->getBeginLoc());
    return;
  }
  const Expr *ArgsExpr = CE->getArg(Api->ArgsArg);
  const auto *AR = dyn_cast<DeclRefExpr>(stripCasts(ArgsExpr));
  const auto *Array = AR ? dyn_cast<VarDecl>(AR->getDecl()) : nullptr;
  const auto *Init = Array ? dyn_cast_or_null<InitListExpr>(Array->getInit()) : nullptr;
  if (!Array || !Init || isa<ParmVarDecl>(Array) || !Array->hasLocalStorage() ||
      Array->isStaticLocal() || !Array->getType()->isConstantArrayType()) {
    Refuse(DiagID::HostNotTraceable,
           "the argument array '" + spelled(ArgsExpr) +
               "' is not a local array initialised where it is declared",
           ArgsExpr->getBeginLoc());
    return;
  }
  // The array is read at each launch: nothing else may change a slot.
  for (const DeclRefExpr *R : index(Fn).Refs[Array]) {
    const Stmt *Cur = R;
    const Stmt *P = parent(Fn, Cur);
    while (P && (isa<ParenExpr>(P) || isa<ImplicitCastExpr>(P) || isa<ExplicitCastExpr>(P))) {
      Cur = P;
      P = parent(Fn, P);
    }
    const auto *Use = dyn_cast_or_null<CallExpr>(P);
    const ArrayLaunchApi *UseApi =
        Use ? arrayLaunchApi(driverBaseName(calleeName(Use))) : nullptr;
    if (!UseApi || Use->getNumArgs() <= UseApi->ArgsArg || Use->getArg(UseApi->ArgsArg) != Cur) {
      Refuse(DiagID::HostNotTraceable,
             "the argument array '" + Array->getNameAsString() +
                 "' is used here other than as a launch's arguments; a slot may change",
             R->getBeginLoc());
      return;
    }
  }
  if (Init->getNumInits() != K->getNumParams()) {
    Refuse(DiagID::HostNotTraceable,
           "the argument array '" + Array->getNameAsString() + "' has " +
               std::to_string(Init->getNumInits()) + " slots; '" + KernelName + "' takes " +
               std::to_string(K->getNumParams()) + " parameters",
           Array->getLocation());
    return;
  }
  KernelLaunch KL;
  KL.E = CE;
  KL.Kernel = K;
  KL.KernelRef = Sym;
  KL.Form = Api->Name;
  KL.ArgsDecl = declStmtOf(Array, Fn);
  KL.Args.assign(K->getNumParams(), nullptr);
  for (unsigned I : descriptorParamIndexes(K)) {
    const Expr *Slot = stripCasts(Init->getInit(I));
    const auto *A = dyn_cast<UnaryOperator>(Slot);
    const auto *DR = A && A->getOpcode() == UO_AddrOf
                         ? dyn_cast<DeclRefExpr>(A->getSubExpr()->IgnoreParens())
                         : nullptr;
    if (!DR || !isa<VarDecl>(DR->getDecl())) {
      Refuse(DiagID::HostNotTraceable,
             "slot " + std::to_string(I) + " of '" + Array->getNameAsString() + "' ('" +
                 spelled(Init->getInit(I)) + "') is not the address of a variable",
             Init->getInit(I)->getBeginLoc());
      return;
    }
    ArraySlots[DR] = {K, I};
    KL.Args[I] = DR;
  }
  Launches.push_back({KL, Fn});
}

std::optional<std::pair<const FunctionDecl *, unsigned>>
PassAnalyzer::launcherTarget(const FunctionDecl *L, unsigned ParamIndex, const Stmt **Offending,
                             unsigned Depth) {
  const FunctionDecl *Def = nullptr;
  if (Depth > 4 || !L->hasBody(Def) || !Def || Def->isDependentContext() || isKernel(Def) ||
      Def->hasAttr<CUDADeviceAttr>() || ParamIndex >= Def->getNumParams())
    return std::nullopt;
  const ParmVarDecl *PV = Def->getParamDecl(ParamIndex);
  std::optional<std::pair<const FunctionDecl *, unsigned>> Target;
  auto Refs = index(Def).Refs.find(PV);
  if (Refs == index(Def).Refs.end())
    return std::nullopt;
  for (const DeclRefExpr *R : Refs->second) {
    const Stmt *Cur = R;
    const Stmt *P = parent(Def, Cur);
    while (P && (isa<ParenExpr>(P) || isa<ImplicitCastExpr>(P))) {
      Cur = P;
      P = parent(Def, P);
    }
    std::optional<KernelLaunch> KL = asLaunch(P);
    std::optional<std::pair<const FunctionDecl *, unsigned>> This;
    if (KL) {
      for (unsigned J : descriptorParamIndexes(KL->Kernel))
        if (J < KL->Args.size() && KL->Args[J] == Cur)
          This = {KL->Kernel, J};
    } else if (const auto *Call = dyn_cast_or_null<CallExpr>(P);
               Call && Call->getDirectCallee() && !isKernel(Call->getDirectCallee())) {
      // Forwarded to another launcher.
      for (unsigned J = 0; J < Call->getNumArgs(); ++J)
        if (Call->getArg(J) == Cur &&
            llvm::is_contained(descriptorParamIndexes(Call->getDirectCallee()), J))
          This = launcherTarget(Call->getDirectCallee(), J, nullptr, Depth + 1);
    }
    if (!This || (Target && *Target != *This)) {
      if (Offending)
        *Offending = R;
      return std::nullopt;
    }
    Target = This;
  }
  return Target;
}

std::optional<Blocker> PassAnalyzer::forwardThroughLauncher(const KernelLaunch &KL, unsigned I,
                                                            const ParmVarDecl *PV,
                                                            const FunctionDecl *L, unsigned Depth,
                                                            const LaunchSite &LS,
                                                            const std::vector<TextEdit> &Extra) {
  std::string Name = PV->getNameAsString(), LName = L->getQualifiedNameAsString();
  auto Why = [&](std::string Msg, SourceLocation At) {
    return Blocker{DiagID::HostNotTraceable, std::move(Msg), ST.point(At), {}};
  };
  QualType T = PV->getType();
  if (!isDescriptorPointer(T) || !T->getPointeeType().isConstQualified() ||
      L->getTemplatedKind() != FunctionDecl::TK_NonTemplate || isa<CXXMethodDecl>(L))
    return Why("'" + Name + "' is a parameter of '" + LName + "' (" + T.getAsString() +
                   "); only 'const CUtensorMap *' parameters of plain functions are followed to "
                   "their callers",
               PV->getLocation());
  if (Depth >= 4)
    return Why("launchers nest too deeply to follow", PV->getLocation());
  unsigned ParamIndex = PV->getFunctionScopeIndex();
  const Stmt *Offending = nullptr;
  if (!launcherTarget(L, ParamIndex, &Offending))
    return Why("parameter '" + Name + "' of launcher '" + LName +
                   "' is used here other than as the descriptor argument of one launch",
               Offending ? Offending->getBeginLoc() : PV->getLocation());
  if (std::optional<std::string> Unseen = callableUnverified(L, "launcher"))
    return Why(*Unseen, L->getLocation());
  // The parameter becomes a reference to the host descriptor in every
  // declaration: `const CUtensorMap *d` -> `const CUtensorMap &d`.
  std::vector<TextEdit> Edits = Extra;
  for (const FunctionDecl *D : L->redecls()) {
    const ParmVarDecl *P = D->getParamDecl(ParamIndex);
    TypeSourceInfo *TSI = P->getTypeSourceInfo();
    auto PTL = TSI ? TSI->getTypeLoc().getAs<PointerTypeLoc>() : PointerTypeLoc();
    std::optional<CharSourceRange> Star =
        PTL ? ST.fileRange(SourceRange(PTL.getStarLoc(), PTL.getStarLoc())) : std::nullopt;
    if (ST.inSystemHeader(P->getLocation()) || !Star)
      return Why("the declaration of parameter '" + Name + "' of '" + LName +
                     "' cannot be edited here",
                 P->getLocation());
    Edits.push_back(ST.replace(*Star, "&"));
  }
  unsigned Calls = 0;
  auto Refs = LauncherRefs.find(L->getCanonicalDecl());
  if (Refs != LauncherRefs.end())
    for (auto &[R, Caller] : Refs->second) {
      const CallExpr *Call = directCallOf(R, Caller);
      if (!Call || Call->getNumArgs() <= ParamIndex)
        return Why("'" + LName + "' is used here other than in a direct call",
                   R->getBeginLoc());
      KernelLaunch Through = KL;
      Through.E = Call;
      Through.ArgsDecl = nullptr;
      Through.Args.assign(KL.Args.size(), nullptr);
      Through.Args[I] = Call->getArg(ParamIndex);
      Through.Form = "call of a launcher";
      analyzeLaunchArg(Through, I, Caller, Depth + 1, Edits);
      ++Calls;
    }
  if (Calls == 0)
    return Why("launcher '" + LName + "' is not called in the given sources", L->getLocation());
  // An error in the launcher may hide a use of the parameter.
  Out.ParamSpans.push_back({LS.ParamKey, spanOf(L)});
  return std::nullopt;
}

const PassAnalyzer::UploadGroup &PassAnalyzer::uploadGroup(const FunctionDecl *U) {
  U = U->getCanonicalDecl();
  auto Known = Uploads.find(U);
  if (Known != Uploads.end())
    return Known->second;
  UploadGroup &G = Uploads[U];
  std::string UName = U->getQualifiedNameAsString();
  auto Refuse = [&](std::string Msg, SourceLocation At) -> const UploadGroup & {
    G.Why = Blocker{DiagID::HostNotTraceable, std::move(Msg), ST.point(At), {}};
    return G;
  };
  const FunctionDecl *Def = nullptr;
  if (!U->hasBody(Def) || !Def || Def->getTemplatedKind() != FunctionDecl::TK_NonTemplate ||
      isa<CXXMethodDecl>(Def) || Def->hasAttr<CUDADeviceAttr>())
    return Refuse("'" + UName + "' returns the device copy; its body is not a plain host "
                  "function visible here",
                  U->getLocation());
  if (std::optional<std::string> Unseen = callableUnverified(U, "upload helper"))
    return Refuse(*Unseen, U->getLocation());
  // The helper: `... D; alloc(&D); copy(D, &M); return D;` at its top level.
  const auto *Body = dyn_cast<CompoundStmt>(Def->getBody());
  const auto *Ret = Body && !Body->body_empty() ? dyn_cast<ReturnStmt>(Body->body_back()) : nullptr;
  const auto *RetRef =
      Ret && Ret->getRetValue() ? dyn_cast<DeclRefExpr>(Ret->getRetValue()->IgnoreParenImpCasts())
                                : nullptr;
  const auto *D = RetRef ? dyn_cast<VarDecl>(RetRef->getDecl()) : nullptr;
  if (!D || !D->hasLocalStorage() || isa<ParmVarDecl>(D))
    return Refuse("'" + UName + "' does not end by returning a local device copy",
                  Def->getLocation());
  DeviceBuffer Inner = bufferFacts(D, Def); // its uses in the helper
  const CallExpr *Copy = nullptr;
  std::vector<TextEdit> Edits;
  unsigned Allocs = 0;
  for (const HostUse &Use : Inner.Uses) {
    if (Use.Kind == HostUseKind::Other) {
      // The return itself is the one other use allowed.
      if (Use.Where == ST.point(RetRef->getBeginLoc()))
        continue;
      return Refuse("the device copy '" + D->getNameAsString() + "' in '" + UName +
                        "' has another use here",
                    RetRef->getBeginLoc());
    }
    if (Use.Kind == HostUseKind::Free || Use.Kind == HostUseKind::Launch)
      return Refuse("the device copy '" + D->getNameAsString() + "' in '" + UName +
                        "' is freed or launched inside it",
                    Def->getLocation());
    if (Use.Removal.empty())
      return Refuse("'" + Use.What + "' in '" + UName + "' cannot be removed on its own",
                    Def->getLocation());
    Allocs += Use.Kind == HostUseKind::Alloc;
    llvm::append_range(Edits, Use.Removal);
  }
  if (BufferCopies[D].size() != 1 || Allocs != 1)
    return Refuse("'" + UName + "' does not allocate and copy its device copy exactly once",
                  Def->getLocation());
  Copy = BufferCopies[D].front().Call;
  const Stmt *CopyTop = BufferCopies[D].front().Top;
  if (parent(Def, CopyTop) != Body || !runsWhenReached(Copy, CopyTop, Def))
    return Refuse("the copy in '" + UName + "' does not always run", Copy->getBeginLoc());
  const Expr *Src = stripCasts(Copy->getArg(1));
  const auto *Addr = dyn_cast<UnaryOperator>(Src);
  const auto *MRef = Addr && Addr->getOpcode() == UO_AddrOf
                         ? dyn_cast<DeclRefExpr>(Addr->getSubExpr()->IgnoreParens())
                         : nullptr;
  const auto *M = MRef ? dyn_cast<VarDecl>(MRef->getDecl()) : nullptr;
  if (!M || !M->hasLocalStorage() || isa<ParmVarDecl>(M) || !isTensorMapRecord(M->getType()))
    return Refuse("the copy in '" + UName + "' does not read a local CUtensorMap of it",
                  Copy->getBeginLoc());
  for (const DeclRefExpr *R : index(Def).Refs[M])
    if (classifyHostRef(R, *index(Def).PM) != HostRefKind::Read &&
        between(CopyTop, Ret, R, Def))
      return Refuse("'" + M->getNameAsString() + "' changes between the copy and the return",
                    R->getBeginLoc());
  // `return D;` -> `return M;`, and the return type loses its '*'.
  if (std::optional<CharSourceRange> R = ST.fileRange(RetRef->getSourceRange()))
    Edits.push_back(ST.replace(*R, M->getNameAsString()));
  else
    return Refuse("the return of '" + UName + "' is spelled in a macro", Ret->getBeginLoc());
  auto StarOf = [&](TypeLoc TL) -> std::optional<CharSourceRange> {
    while (auto Q = TL.getAs<QualifiedTypeLoc>())
      TL = Q.getUnqualifiedLoc();
    auto PTL = TL.getAs<PointerTypeLoc>();
    if (!PTL)
      return std::nullopt;
    return ST.fileRange(SourceRange(PTL.getStarLoc(), PTL.getStarLoc()));
  };
  for (const FunctionDecl *Redecl : U->redecls()) {
    TypeSourceInfo *TSI = Redecl->getTypeSourceInfo();
    auto FTL = TSI ? TSI->getTypeLoc().getAsAdjusted<FunctionTypeLoc>() : FunctionTypeLoc();
    std::optional<CharSourceRange> Star = FTL ? StarOf(FTL.getReturnLoc()) : std::nullopt;
    if (!Star || ST.inSystemHeader(Redecl->getLocation()))
      return Refuse("the return type of '" + UName + "' cannot be edited here",
                    Redecl->getLocation());
    Edits.push_back(ST.replace(*Star, ""));
  }
  // Every caller keeps the result in a local variable that is only launched
  // with and freed.
  DeviceBuffer Group;
  Group.Key = "upload:" + Inner.Key;
  Group.Name = UName;
  Group.Where = ST.point(Def->getLocation());
  HostUse Whole;
  Whole.Kind = HostUseKind::Declaration;
  Whole.Where = Group.Where;
  Whole.What = "upload helper '" + UName + "'";
  HostUse AllocUse, CopyUse;
  AllocUse.Kind = HostUseKind::Alloc;
  CopyUse.Kind = HostUseKind::Copy;
  AllocUse.Where = CopyUse.Where = Group.Where;
  std::vector<HostUse> Frees;
  // \p S is a launch that passes \p VR as descriptors: one use per slot.
  auto LaunchUses = [&](const Stmt *S, const DeclRefExpr *VR) {
    std::optional<KernelLaunch> L = asLaunch(S);
    bool Slot = false;
    for (unsigned J : L ? descriptorParamIndexes(L->Kernel) : std::vector<unsigned>())
      if (J < L->Args.size() && L->Args[J]->IgnoreParenImpCasts() == VR) {
        HostUse LU;
        LU.Kind = HostUseKind::Launch;
        LU.Where = ST.point(VR->getBeginLoc());
        LU.What = "launch of '" + patternOf(L->Kernel)->getQualifiedNameAsString() + "'";
        LU.ParamKey = paramKey(L->Kernel, J);
        Group.Uses.push_back(LU);
        Slot = true;
      }
    return Slot;
  };
  auto Calls = UploadRefs.find(U);
  if (Calls == UploadRefs.end())
    return Refuse("'" + UName + "' is not called", U->getLocation());
  for (auto &[R, Caller] : Calls->second) {
    const CallExpr *Call = directCallOf(R, Caller);
    const Stmt *Up = Call ? parent(Caller, Call) : nullptr;
    while (Up && isa<ExprWithCleanups, ImplicitCastExpr>(Up))
      Up = parent(Caller, Up);
    const auto *DS = dyn_cast_or_null<DeclStmt>(Up);
    const VarDecl *CV = nullptr;
    if (DS && DS->isSingleDecl())
      CV = dyn_cast<VarDecl>(DS->getSingleDecl());
    // H8: `cache = helper(...)` into a static local pointer that starts null.
    const VarDecl *Cache = nullptr;
    if (const auto *BO = dyn_cast_or_null<BinaryOperator>(Up);
        Call && BO && BO->getOpcode() == BO_Assign && BO->getRHS()->IgnoreImplicit() == Call)
      if (const auto *LR = dyn_cast<DeclRefExpr>(BO->getLHS()->IgnoreParens()))
        if (const auto *LV = dyn_cast<VarDecl>(LR->getDecl());
            LV && LV->isStaticLocal() && LV->getDeclContext() == Caller &&
            (!LV->getInit() ||
             LV->getInit()->isNullPointerConstant(Ctx, Expr::NPC_ValueDependentIsNotNull)))
          Cache = LV;
    if (Cache && !Caller->hasAttr<CUDADeviceAttr>() && !Caller->hasAttr<CUDAGlobalAttr>()) {
      std::optional<CharSourceRange> CallText = ST.fileRange(Call->getSourceRange());
      if (!CallText)
        return Refuse("the call of '" + UName + "' is spelled inside a macro body",
                      Call->getBeginLoc());
      std::string Pointee = Cache->getType()->getPointeeType().getUnqualifiedType().getAsString(
          Ctx.getPrintingPolicy());
      Whole.Removal.push_back(ST.insertBefore(CallText->getBegin(), "new " + Pointee + "("));
      Whole.Removal.push_back(ST.insertBefore(CallText->getEnd(), ")"));
      for (const DeclRefExpr *VR : index(Caller).Refs[Cache]) {
        const Stmt *C = VR;
        const Stmt *Q = parent(Caller, C);
        while (Q && isa<ParenExpr>(Q)) {
          C = Q;
          Q = parent(Caller, Q);
        }
        if (const auto *BO = dyn_cast_or_null<BinaryOperator>(Q);
            BO && BO->getOpcode() == BO_Assign && BO->getLHS() == C) {
          const auto *RC = dyn_cast<CallExpr>(BO->getRHS()->IgnoreImplicit());
          if (RC && RC->getDirectCallee() &&
              RC->getDirectCallee()->getCanonicalDecl() == U)
            continue; // this very assignment, or another from the helper
          return Refuse("the cache '" + Cache->getNameAsString() +
                            "' is assigned here other than from '" + UName + "'",
                        BO->getBeginLoc());
        }
        // Null tests read the pointer only: `!d`, `if (d)`, `d == nullptr`.
        const Stmt *Use = Q;
        while (Use && (isa<ParenExpr>(Use) ||
                       (isa<ImplicitCastExpr>(Use) &&
                        cast<ImplicitCastExpr>(Use)->getCastKind() != CK_PointerToBoolean)))
          Use = parent(Caller, Use);
        if (const auto *B = dyn_cast_or_null<ImplicitCastExpr>(Use);
            B && B->getCastKind() == CK_PointerToBoolean)
          continue;
        if (const auto *UO = dyn_cast_or_null<UnaryOperator>(Use); UO && UO->getOpcode() == UO_LNot)
          continue;
        if (const auto *Cmp = dyn_cast_or_null<BinaryOperator>(Use);
            Cmp && Cmp->isEqualityOp() &&
            (Cmp->getLHS()->isNullPointerConstant(Ctx, Expr::NPC_ValueDependentIsNotNull) ||
             Cmp->getRHS()->isNullPointerConstant(Ctx, Expr::NPC_ValueDependentIsNotNull)))
          continue;
        if (LaunchUses(Use, VR))
          continue;
        return Refuse("the cache '" + Cache->getNameAsString() + "', which holds the result of '" +
                          UName + "', is used here other than in a launch or a null test",
                      VR->getBeginLoc());
      }
      continue;
    }
    if (!Call || !CV || !CV->getInit() ||
        CV->getInit()->IgnoreImplicit() != Call || CV->isStaticLocal() ||
        Caller->hasAttr<CUDADeviceAttr>() || Caller->hasAttr<CUDAGlobalAttr>())
      return Refuse("'" + UName + "' is used here other than to initialise a local variable",
                    R->getBeginLoc());
    if (CV->getType()->isPointerType()) {
      TypeSourceInfo *TSI = CV->getTypeSourceInfo();
      std::optional<CharSourceRange> Star = TSI ? StarOf(TSI->getTypeLoc()) : std::nullopt;
      if (!Star)
        return Refuse("the declaration of '" + CV->getNameAsString() + "' cannot be edited",
                      CV->getLocation());
      Whole.Removal.push_back(ST.replace(*Star, ""));
    }
    for (const DeclRefExpr *VR : index(Caller).Refs[CV]) {
      const Stmt *C = VR;
      const Stmt *Q = parent(Caller, C);
      while (Q && (isa<ParenExpr>(Q) || isa<ImplicitCastExpr>(Q))) {
        C = Q;
        Q = parent(Caller, Q);
      }
      if (LaunchUses(Q, VR))
        continue;
      while (Q && isa<ExplicitCastExpr>(Q)) { // cudaFree((void *)p)
        C = Q;
        Q = parent(Caller, Q);
        while (Q && (isa<ParenExpr>(Q) || isa<ImplicitCastExpr>(Q))) {
          C = Q;
          Q = parent(Caller, Q);
        }
      }
      const auto *FreeCall = dyn_cast_or_null<CallExpr>(Q);
      std::string FreeName = FreeCall ? driverBaseName(calleeName(FreeCall)).str() : "";
      if (FreeCall && FreeCall->getNumArgs() >= 1 && FreeCall->getArg(0) == C &&
          (FreeName == "cudaFree" || FreeName == "cudaFreeAsync")) {
        HostUse FU;
        FU.Kind = HostUseKind::Free;
        FU.What = FreeName;
        FU.Where = ST.point(FreeCall->getBeginLoc());
        FU.Removal = removeHostCall(FreeCall, Caller);
        if (FU.Removal.empty())
          return Refuse("this " + FreeName + " of '" + CV->getNameAsString() +
                            "' cannot be removed on its own",
                        FreeCall->getBeginLoc());
        Frees.push_back(std::move(FU));
        continue;
      }
      return Refuse("'" + CV->getNameAsString() + "', which holds the result of '" + UName +
                        "', is used here other than in a launch or a free",
                    VR->getBeginLoc());
    }
  }
  // The helper's own removals: its allocation, its copy, the declaration.
  for (const HostUse &Use : Inner.Uses)
    if (Use.Kind == HostUseKind::Alloc)
      AllocUse.Removal = Use.Removal;
    else if (Use.Kind == HostUseKind::Copy)
      CopyUse.Removal = Use.Removal;
  for (const TextEdit &E : Edits)
    if (!llvm::is_contained(AllocUse.Removal, E) && !llvm::is_contained(CopyUse.Removal, E))
      Whole.Removal.push_back(E);
  Group.Uses.push_back(std::move(Whole));
  Group.Uses.push_back(std::move(AllocUse));
  Group.Uses.push_back(std::move(CopyUse));
  llvm::append_range(Group.Uses, Frees);
  G.BufferKey = Group.Key;
  Out.Buffers.push_back(std::move(Group));
  return G;
}

void PassAnalyzer::analyzeLaunch(const KernelLaunch &KL, const FunctionDecl *Fn) {
  for (unsigned I : descriptorParamIndexes(KL.Kernel))
    if (I < KL.Args.size() && KL.Args[I])
      analyzeLaunchArg(KL, I, Fn, 0, {});
}

void PassAnalyzer::analyzeLaunchArg(const KernelLaunch &KL, unsigned Index,
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
      if (std::optional<Blocker> Why = forwardThroughLauncher(KL, I, PV, Fn, Depth, LS, Extra)) {
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
        const UploadGroup &G = uploadGroup(Helper);
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
      const UploadGroup &G = uploadGroup(Init->getDirectCallee());
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
    DeviceBuffer &Buf = bufferFacts(V, Fn);
    LS.BufferKey = Buf.Key;
    // The copy that reaches this launch: in a block around the launch, before it.
    const Stmt *Launch = CE;
    const CopyInfo *Reaching = nullptr;
    for (const CopyInfo &C : BufferCopies[V]) {
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
    for (const CopyInfo &C : BufferCopies[V])
      if (&C != Reaching && between(Reaching->Top, Launch, C.Call, Fn)) {
        Refuse(DiagID::HostNotTraceable,
               "'" + V->getNameAsString() + "' is copied again between the copy and the launch",
               C.Call->getBeginLoc(), CopyNote);
        Blocked = true;
        break;
      }
    for (const Stmt *O : BufferOtherUses[V])
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
            hostDescriptorAt(Reaching->Call, Reaching->Top, Launch,
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

/// The host descriptor that \p Copy reads (`&h`, or a staged pointer `p`),
/// and the proof that \p Launch may pass it by value instead: it is local,
/// in scope at \p Named, and nothing changes it between the copy and the
/// launch. On success \p HostDescriptor is what the launch passes (`h`,
/// `*p`).
std::optional<Blocker> PassAnalyzer::hostDescriptorAt(
    const CallExpr *Copy, const Stmt *CopyTop, const Stmt *Launch, const Stmt *Named,
    const FunctionDecl *Fn, SourceLocation ArgLoc, llvm::StringRef CopiedInto,
    std::string &HostDescriptor) {
  std::vector<Note> CopyNote{{"copied here", ST.point(Copy->getBeginLoc())}};
  const Expr *Src = Copy->getArg(1)->IgnoreParenImpCasts();
  while (const auto *EC = dyn_cast<ExplicitCastExpr>(Src))
    Src = EC->getSubExpr()->IgnoreParenImpCasts();
  const auto *Addr = dyn_cast<UnaryOperator>(Src);
  const Expr *HostLV = Addr && Addr->getOpcode() == UO_AddrOf ? Addr->getSubExpr() : nullptr;
  const VarDecl *H = HostLV && isTensorMapRecord(HostLV->getType())
                         ? simpleLValueRoot(HostLV, Ctx)
                         : nullptr;
  // H3: the descriptor is staged behind a host pointer (a parameter, or
  // pinned/heap memory): the launch passes '*staged'.
  bool Staged = false;
  if (!H)
    if (const auto *PR = dyn_cast<DeclRefExpr>(Src))
      if (const auto *PV = dyn_cast<VarDecl>(PR->getDecl());
          PV && isDescriptorPointer(PV->getType()) &&
          (PV->hasLocalStorage() || isa<ParmVarDecl>(PV)) && !PV->isStaticLocal()) {
        H = PV;
        Staged = true;
      }
  if (!H) {
    return Blocker{DiagID::HostNotTraceable,
                   "the copy into '" + CopiedInto.str() + "' reads '" + spelled(Src) +
                       "', not the address of a host CUtensorMap variable",
                   ST.point(Copy->getBeginLoc()), {}};
  }
  if (!H->hasLocalStorage() && !isa<ParmVarDecl>(H)) {
    return Blocker{DiagID::HostNotTraceable,
                   "host descriptor '" + H->getNameAsString() + "' is not local to '" +
                       Fn->getQualifiedNameAsString() + "'; other code may change it",
                   ST.point(Copy->getBeginLoc()), {}};
  }
  // The launch must be able to name it.
  if (!isa<ParmVarDecl>(H)) {
    // An argument array names the descriptor where it is declared.
    const Stmt *Decl = declStmtOf(H, Fn);
    const Stmt *Scope = Decl ? parent(Fn, Decl) : nullptr;
    if (!Scope || !isAncestor(Scope, Named, Fn) ||
        offsetOf(Decl->getBeginLoc()) > offsetOf(Named->getBeginLoc())) {
      return Blocker{DiagID::HostNotTraceable,
                     "host descriptor '" + H->getNameAsString() + "' is not in scope at the launch",
                     ST.point(ArgLoc), CopyNote};
    }
  }
  // It must still hold the copied value at the launch.
  auto HRefs = index(Fn).Refs.find(H);
  if (HRefs != index(Fn).Refs.end())
    for (const DeclRefExpr *R : HRefs->second) {
      HostRefKind RK = classifyHostRef(R, *index(Fn).PM);
      if (RK == HostRefKind::AddressEscapes) {
        return Blocker{DiagID::HostNotTraceable,
                       "the address of host descriptor '" + H->getNameAsString() +
                           "' is kept here; changes through it cannot be followed",
                       ST.point(R->getBeginLoc()), CopyNote};
      }
      if (RK == HostRefKind::Write && between(CopyTop, Launch, R, Fn))
        return Blocker{DiagID::HostNotTraceable,
                       "host descriptor '" + H->getNameAsString() +
                           "' is modified between the copy and the launch; by value the "
                           "kernel would see the new contents",
                       ST.point(R->getBeginLoc()), CopyNote};
    }
  if (Staged) {
    // What '*staged' points to may change through any code that can reach
    // it: between the copy and the launch only the CUDA runtime may run,
    // and nothing may name the pointer.
    llvm::SmallVector<const Stmt *, 64> Work{Fn->getBody()};
    while (!Work.empty()) {
      const Stmt *S = Work.pop_back_val();
      if (!S)
        continue;
      for (const Stmt *C : S->children())
        Work.push_back(C);
      const auto *Call = dyn_cast<CallExpr>(S);
      if (!Call || Call == Copy || Call == Launch || !between(CopyTop, Launch, Call, Fn))
        continue;
      std::string Name = calleeName(Call);
      bool NamesIt = llvm::any_of(Call->arguments(), [&](const Expr *A) {
        const auto *D = dyn_cast<DeclRefExpr>(A->IgnoreParenImpCasts());
        return D && D->getDecl() == H;
      });
      if (NamesIt || !llvm::StringRef(Name).starts_with("cuda"))
        return Blocker{DiagID::HostNotTraceable,
                       "'" + (Name.empty() ? spelled(Call) : Name) +
                           "' runs between the copy and the launch and may change '*" +
                           H->getNameAsString() + "'",
                       ST.point(Call->getBeginLoc()), CopyNote};
    }
  }
  HostDescriptor = Staged ? "*" + spelled(Src) : spelled(HostLV);
  return std::nullopt;
}

// ---------------------------------------------------------------------------
// `__constant__ CUtensorMap c_map;` filled by cudaMemcpyToSymbol before each
// launch: each kernel that reads it gains a `const __grid_constant__
// CUtensorMap c_map` parameter (first), which its body then names instead,
// and each launch passes the host descriptor that was copied.

void PassAnalyzer::analyzeConstantDescriptors() {
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
  for (auto &[V, Refs] : ConstantRefs) {
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
      if (Call && (Callee == "cudaMemcpyToSymbol" || Callee == "cudaMemcpyToSymbolAsync") &&
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
      U.Removal = removeHostCall(Call, Fn);
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
    ConstantParamKeys[K] = Keys;
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
      ParamSlot[KeyOf(K, S)] = Out.Params.size();
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
      DescriptorParam &DP = Out.Params[ParamSlot[KeyOf(patternOf(Fn), S)]];
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
          walkValue(UO, Fn, 0, nullptr, ValueMode::Pointer, Sink);
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
      if (std::optional<Blocker> Why = paramSpaceBlocker(
              Fn, descriptorParamIndexes(Fn), 128 * ConstantParamKeys[patternOf(Fn)].size()))
        DP.Blockers.push_back(std::move(*Why));
    }

  // Each launch of a reader passes, for each symbol, the descriptor the copy
  // before it put there; one edit inserts them all.
  for (auto &[KL, Fn] : Launches) {
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
          if (std::optional<Blocker> Why = hostDescriptorAt(
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
      unsigned First = KL.Form == "cudaLaunchKernelEx" ? 2 : 0;
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

/// The kernels \p E may evaluate to: kernel names, `&kernel`, and
/// conditionals over them; a null pointer adds none. False for anything else.
bool PassAnalyzer::pointerTargets(const Expr *E, std::vector<const DeclRefExpr *> &Targets) {
  E = E->IgnoreParenImpCasts();
  if (const auto *UO = dyn_cast<UnaryOperator>(E); UO && UO->getOpcode() == UO_AddrOf)
    E = UO->getSubExpr()->IgnoreParenImpCasts();
  if (const auto *CO = dyn_cast<ConditionalOperator>(E))
    return pointerTargets(CO->getTrueExpr(), Targets) &&
           pointerTargets(CO->getFalseExpr(), Targets);
  if (E->isNullPointerConstant(Ctx, Expr::NPC_ValueDependentIsNotNull))
    return true;
  const auto *R = dyn_cast<DeclRefExpr>(E);
  if (!R || !isKernel(dyn_cast<FunctionDecl>(R->getDecl())))
    return false;
  Targets.push_back(R);
  return true;
}

void PassAnalyzer::analyzePointerLaunches(const VarDecl *V, const FunctionDecl *Fn,
                                          const std::vector<const CUDAKernelCallExpr *> &Calls) {
  // Every value the variable can hold must be seen: a local variable set
  // only by its initialiser and by assignments of kernels, used only to
  // launch. Then each launch is a launch of every one of those kernels.
  std::vector<const DeclRefExpr *> Targets;
  std::optional<std::pair<std::string, SourceLocation>> Why;
  std::string VName = V->getNameAsString();
  if (V->getInit() && !pointerTargets(V->getInit(), Targets))
    Why = {"it is initialised with '" + spelled(V->getInit()) + "', which is not a kernel",
           V->getInit()->getBeginLoc()};
  if (isa<ParmVarDecl>(V) || !V->hasLocalStorage() || V->isStaticLocal())
    Why = {"it is not a local variable of '" + Fn->getQualifiedNameAsString() +
               "', so not every kernel it may point to is seen",
           V->getLocation()};
  for (const DeclRefExpr *R : index(Fn).Refs[V]) {
    if (Why)
      break;
    const Stmt *Cur = R, *P = parent(Fn, R);
    while (P && (isa<ParenExpr>(P) || isa<ImplicitCastExpr>(P) ||
                 (isa<UnaryOperator>(P) && cast<UnaryOperator>(P)->getOpcode() == UO_Deref))) {
      Cur = P;
      P = parent(Fn, P);
    }
    if (const auto *KC = dyn_cast_or_null<CUDAKernelCallExpr>(P);
        KC && KC->getCallee() == Cur && llvm::is_contained(Calls, KC))
      continue;
    if (const auto *BO = dyn_cast_or_null<BinaryOperator>(P);
        BO && BO->getOpcode() == BO_Assign && BO->getLHS() == Cur) {
      if (!pointerTargets(BO->getRHS(), Targets))
        Why = {"it is assigned '" + spelled(BO->getRHS()) + "', which is not a kernel",
               BO->getRHS()->getBeginLoc()};
      continue;
    }
    Why = {"it is used here other than to launch a kernel, so not every kernel it may "
           "point to is seen",
           R->getBeginLoc()};
  }
  std::vector<const FunctionDecl *> Kernels;
  for (const DeclRefExpr *T : Targets)
    if (!llvm::is_contained(Kernels, cast<FunctionDecl>(T->getDecl())))
      Kernels.push_back(cast<FunctionDecl>(T->getDecl()));
  if (Kernels.empty())
    return; // nothing known to point at: the references say the rest

  // A written function type names the parameter's type: its '*' goes too.
  std::vector<TextEdit> TypeEdits;
  if (!Why && !V->getType()->getContainedAutoType()) {
    TypeLoc TL = V->getTypeSourceInfo()->getTypeLoc();
    for (;;) {
      if (auto Q = TL.getAs<QualifiedTypeLoc>())
        TL = Q.getUnqualifiedLoc();
      else if (auto Ptr = TL.getAs<PointerTypeLoc>())
        TL = Ptr.getPointeeLoc();
      else if (auto Par = TL.getAs<ParenTypeLoc>())
        TL = Par.getInnerLoc();
      else
        break;
    }
    auto FTL = TL.getAs<FunctionProtoTypeLoc>();
    for (unsigned I : descriptorParamIndexes(Kernels.front())) {
      const ParmVarDecl *P = FTL && I < FTL.getNumParams() ? FTL.getParam(I) : nullptr;
      TypeLoc PTL = P && P->getTypeSourceInfo() ? P->getTypeSourceInfo()->getTypeLoc()
                                                : TypeLoc();
      while (PTL && PTL.getAs<QualifiedTypeLoc>())
        PTL = PTL.getAs<QualifiedTypeLoc>().getUnqualifiedLoc();
      auto Star = PTL ? PTL.getAs<PointerTypeLoc>() : PointerTypeLoc();
      std::optional<CharSourceRange> R =
          Star ? ST.fileRange(SourceRange(Star.getStarLoc(), Star.getStarLoc())) : std::nullopt;
      if (!R || ST.inSystemHeader(V->getLocation())) {
        Why = {"its type does not spell the kernel's parameter types where they can be "
               "edited (declare it 'auto')",
               V->getLocation()};
        break;
      }
      // `const CUtensorMap *, float *` -> `const CUtensorMap, float *`, but
      // `const CUtensorMap *map` -> `const CUtensorMap map`.
      TextEdit Del = ST.replace(*R, "");
      llvm::StringRef Buf = ST.SM.getBufferData(ST.SM.getFileID(R->getBegin()));
      if (Del.Offset + Del.Length < Buf.size() &&
          !clang::isAsciiIdentifierContinue(Buf[Del.Offset + Del.Length]))
        while (Del.Offset > 0 && (Buf[Del.Offset - 1] == ' ' || Buf[Del.Offset - 1] == '\t')) {
          --Del.Offset;
          ++Del.Length;
        }
      TypeEdits.push_back(Del);
    }
  }

  std::vector<Note> LaunchedAt;
  for (const CUDAKernelCallExpr *KC : Calls)
    LaunchedAt.push_back({"launched through '" + VName + "' here", ST.point(KC->getBeginLoc())});
  for (const DeclRefExpr *T : Targets)
    AcceptedKernelRefs.insert(T);
  for (const FunctionDecl *K : Kernels)
    if (ConstantParamKeys.count(patternOf(K)) && !Why)
      Why = {"'" + patternOf(K)->getQualifiedNameAsString() +
                 "' reads a __constant__ descriptor, which a launch through a pointer cannot "
                 "pass",
             V->getLocation()};
  if (Why) {
    // Each launch is a launch of each kernel, refused: it counts as one.
    for (const FunctionDecl *K : Kernels)
      for (unsigned I : descriptorParamIndexes(K))
        for (const CUDAKernelCallExpr *KC : Calls) {
          LaunchSite LS;
          LS.ParamKey = paramKey(K, I);
          LS.KernelName = patternOf(K)->getQualifiedNameAsString();
          LS.Where = ST.point(KC->getBeginLoc());
          LS.ReliesOn.push_back(spanOf(Fn));
          LS.Blockers.push_back({DiagID::LaunchNotRewritable,
                                 "'" + LS.KernelName +
                                     "' is launched through the function pointer '" + VName +
                                     "', and " + Why->first,
                                 ST.point(Why->second), LaunchedAt});
          Out.Launches.push_back(std::move(LS));
        }
    return;
  }
  for (const CUDAKernelCallExpr *KC : Calls)
    PointerTargets[KC] = Kernels;
  // Every kernel it may point to changes, or none: they share one type.
  for (unsigned I : descriptorParamIndexes(Kernels.front())) {
    std::vector<std::string> Keys;
    for (const FunctionDecl *K : Kernels)
      if (!llvm::is_contained(Keys, paramKey(K, I)))
        Keys.push_back(paramKey(K, I));
    Out.TiedParams.push_back({Keys, {"'" + VName + "' may point to each of these kernels",
                                     ST.point(V->getLocation())}});
  }
  for (const CUDAKernelCallExpr *KC : Calls)
    for (const FunctionDecl *K : Kernels) {
      KernelLaunch KL;
      KL.E = KC;
      KL.Kernel = K;
      KL.Args.assign(KC->arg_begin(), KC->arg_end());
      KL.Form = "<<<>>>";
      for (unsigned I : descriptorParamIndexes(K))
        if (I < KL.Args.size())
          analyzeLaunchArg(KL, I, Fn, 0, TypeEdits);
    }
}

void PassAnalyzer::analyzeKernelRef(const DeclRefExpr *R, const FunctionDecl *Fn) {
  const auto *K = cast<FunctionDecl>(R->getDecl());
  if (AcceptedKernelRefs.contains(R))
    return;
  static const llvm::StringSet<> AttributeQueries = {
      "cudaFuncSetAttribute",
      "cudaFuncGetAttributes",
      "cudaFuncSetCacheConfig",
      "cudaFuncSetSharedMemConfig",
      "cudaOccupancyMaxActiveBlocksPerMultiprocessor",
      "cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
      "cudaOccupancyMaxPotentialBlockSize",
      "cudaOccupancyMaxPotentialBlockSizeVariableSMem",
      "cudaOccupancyMaxPotentialBlockSizeWithFlags",
      "cudaOccupancyAvailableDynamicSMemPerBlock",
      "cudaOccupancyMaxActiveClusters",
      "cudaOccupancyMaxPotentialClusterSize"};
  if (Fn && Fn->getBody()) {
    const Stmt *Cur = R;
    const Stmt *P = parent(Fn, Cur);
    while (P && (isa<ParenExpr>(P) || isa<ImplicitCastExpr>(P))) {
      Cur = P;
      P = parent(Fn, P);
    }
    if (const auto *KC = dyn_cast_or_null<CUDAKernelCallExpr>(P))
      if (KC->getCallee() == Cur)
        return;
    for (const Stmt *Q = P; Q && (Q == P || isa<UnaryOperator>(P)); Q = parent(Fn, Q))
      if (std::optional<KernelLaunch> L = asLaunch(Q))
        if (L->KernelRef == R)
          return;
    if (const auto *CE = dyn_cast_or_null<CallExpr>(P))
      if (CE->getCallee() != Cur && AttributeQueries.contains(calleeName(CE)))
        return;
    if (const auto *UO = dyn_cast_or_null<UnaryOperator>(P))
      if (UO->getOpcode() == UO_AddrOf) {
        const Stmt *Q = parent(Fn, UO);
        while (Q && (isa<ParenExpr>(Q) || isa<ImplicitCastExpr>(Q) || isa<ExplicitCastExpr>(Q)))
          Q = parent(Fn, Q);
        if (const auto *CE = dyn_cast_or_null<CallExpr>(Q))
          if (AttributeQueries.contains(calleeName(CE)))
            return;
      }
  }
  for (const std::string &Key : paramKeysOf(K))
    if (Fn)
      Out.ParamSpans.push_back({Key, spanOf(Fn)});
  for (const std::string &Key : paramKeysOf(K))
    Out.ParamBlockers.push_back(
        {Key,
         {DiagID::LaunchNotRewritable,
          "'" + patternOf(K)->getQualifiedNameAsString() +
              "' is used here other than in a direct <<<>>> launch (function pointer or "
              "launch API)",
          ST.point(R->getBeginLoc()),
          {}}});
}

PassFacts PassAnalyzer::run() {
  Collector C(*this);
  C.TraverseDecl(Ctx.getTranslationUnitDecl());
  for (const FunctionDecl *K : Kernels)
    analyzeKernel(K);
  analyzeConstantDescriptors();
  // Before any device buffer's uses are classified: they need the targets.
  for (auto &[V, Where] : PointerLaunches)
    analyzePointerLaunches(V, Where.first, Where.second);
  for (auto &[CE, Fn] : ArrayLaunchCalls)
    resolveArrayLaunch(CE, Fn);
  for (auto &[KL, Fn] : Launches)
    analyzeLaunch(KL, Fn);
  for (auto &[R, Fn] : KernelRefs)
    analyzeKernelRef(R, Fn);
  // A kernel fetched by name is launched through an argument array this tool
  // cannot see: never rewrite one whose name (plain or mangled) may match.
  if (!NameLookups.empty()) {
    std::unique_ptr<MangleContext> Mangler(Ctx.createMangleContext());
    std::vector<const FunctionDecl *> Named = Kernels;
    for (auto &[K, Keys] : ConstantParamKeys)
      if (!llvm::is_contained(Named, K))
        Named.push_back(K);
    for (const FunctionDecl *K : Named) {
      std::string Mangled;
      if (Mangler->shouldMangleDeclName(K)) {
        llvm::raw_string_ostream OS(Mangled);
        Mangler->mangleName(GlobalDecl(K), OS);
      }
      for (auto &[Name, CE] : NameLookups) {
        if (!Name.empty() && Name != K->getName() && Name != Mangled)
          continue;
        for (const std::string &Key : paramKeysOf(K))
          Out.ParamBlockers.push_back(
              {Key,
               {DiagID::LaunchNotRewritable,
                Name.empty() ? "a kernel is looked up by a name that is not a literal here; it "
                               "may be '" + patternOf(K)->getQualifiedNameAsString() + "'"
                             : "'" + patternOf(K)->getQualifiedNameAsString() +
                                   "' is looked up by name here and launched through an "
                                   "argument array",
                ST.point(CE->getBeginLoc()),
                {}}});
      }
    }
  }
  return std::move(Out);
}

} // namespace

PassFacts analyzePass(ASTContext &Ctx, llvm::StringRef Side, const AnalysisOptions &Opts) {
  PassAnalyzer A(Ctx, Side, Opts);
  return A.run();
}

} // namespace tma
