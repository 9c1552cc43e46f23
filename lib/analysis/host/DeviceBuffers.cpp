// Device buffers: a host variable holding a device copy, with its
// allocation, copies, frees and launches, each with the edit that removes it.
#include "HostBuffers.h"
#include "Launchers.h"
#include "ObjectReach.h"

#include "../core/CudaApi.h"
#include "clang/AST/ExprCXX.h"

#include <set>

using namespace clang;

namespace tma::analysis {

std::vector<TextEdit> HostBuffers::removeHostCall(const CallExpr *CE,
                                                   const FunctionDecl *Fn) {
  auto [Cur, P] = climb(Fn, CE, statementWrappers);
  if (P && isa<CompoundStmt>(P)) {
    if (std::optional<TextEdit> E = ST.removeStatement(Cur->getSourceRange()))
      return {*E};
    return {};
  }
  // An error-checking macro around exactly this call: CHECK(cudaFree(d));
  const Stmt *Top = topStatement(CE, Fn);
  if (!ST.soleMacroArgument(Top, CE))
    return {};
  if (std::optional<TextEdit> E = ST.removeStatement(Top->getSourceRange()))
    return {*E};
  return {};
}

/// The declaration of buffer \p V, removable when it initialises nothing
/// (with its siblings in one statement: the planner checks they all go).
HostUse HostBuffers::declarationUse(const VarDecl *V, const FunctionDecl *Fn,
                                    const DeviceBuffer &B) {
  HostUse U;
  U.Kind = HostUseKind::Declaration;
  U.Where = B.Where;
  U.What = "declaration of '" + B.Name + "'";
  const DeclStmt *DS = declStmtOf(V, Fn);
  const Expr *Init = V->getInit();
  bool TrivialInit = !Init || Init->IgnoreParenImpCasts()->isNullPointerConstant(
                                  Ctx, Expr::NPC_ValueDependentIsNotNull) != Expr::NPCK_NotNull;
  if (!DS || !TrivialInit || !isa_and_nonnull<CompoundStmt>(parent(Fn, DS)))
    return U;
  // `CUtensorMap *d_a = nullptr, *d_b = nullptr;`: the statement goes
  // when every variable it declares goes (the planner checks that).
  for (const Decl *D : DS->decls())
    if (D != V) {
      const auto *Other = dyn_cast<VarDecl>(D);
      if (!Other) {
        U.SharedWith.clear();
        return U;
      }
      SourcePoint OP = ST.point(Other->getLocation());
      U.SharedWith.push_back(OP.File + ":" + std::to_string(OP.Offset));
    }
  if (std::optional<TextEdit> E = ST.removeStatement(DS->getSourceRange()))
    U.Removal.push_back(*E);
  if (U.Removal.empty())
    U.SharedWith.clear();
  return U;
}

namespace {
/// Where a reference to a buffer sits: the expression it is, with its
/// address taken and casts climbed (Cur), and what holds that (P).
struct UseSite {
  const Stmt *Cur;
  const Stmt *P;
  bool AddrTaken;
};
} // namespace

/// A launch use of \p U: launch of kernel \p K's descriptor parameter \p I.
static void setLaunch(HostUse &U, const FunctionDecl *K, unsigned I, llvm::StringRef What) {
  U.Kind = HostUseKind::Launch;
  U.What = What.str();
  U.ParamKey = paramKey(K, I);
}

static std::string launchOf(const FunctionDecl *K) {
  return "launch of '" + patternOf(K)->getQualifiedNameAsString() + "'";
}

HostUse HostBuffers::classifyBufferUse(BufferStorage V, const Expr *R,
                                       const FunctionDecl *Fn, DeviceBuffer &B) {
  HostUse U;
  U.Where = ST.point(R->getBeginLoc());
  U.Kind = HostUseKind::Other;
  U.What = "use of '" + B.Name + "'";
  UseSite S{R, parent(Fn, R), false};
  if (const auto *UO = dyn_cast_or_null<UnaryOperator>(S.P); UO && UO->getOpcode() == UO_AddrOf) {
    S.AddrTaken = true;
    S.Cur = UO;
    S.P = parent(Fn, UO);
  }
  Climbed Up = climb(Fn, S.Cur, parensCastsAndTemporaries);
  S.Cur = Up.Child;
  S.P = Up.Parent;
  if (const auto *BO = dyn_cast_or_null<BinaryOperator>(S.P); BO && BO->isAdditiveOp())
    if (const auto *Dst = dyn_cast_or_null<CallExpr>(
            climb(Fn, BO, parensCastsAndTemporaries).Parent);
        Dst && cudaApiOf(Dst) && cudaApiOf(Dst)->Role == ApiRole::Copy &&
        unsigned(cudaApiOf(Dst)->Dest) < Dst->getNumArgs() &&
        Dst->getArg(cudaApiOf(Dst)->Dest)->IgnoreParenImpCasts() == BO)
      Pass.PartialCopies[R] = Dst; // `cudaMemcpy(d + k, ...)`: part of an array
  const auto *Call = dyn_cast_or_null<CallExpr>(S.P);
  std::optional<std::pair<const FunctionDecl *, unsigned>> Forwarded;
  if (Call && !S.AddrTaken && Call->getDirectCallee())
    for (unsigned J = 0; J < Call->getNumArgs(); ++J)
      if (Call->getArg(J) == S.Cur && !isKernel(Call->getDirectCallee()) &&
          llvm::is_contained(descriptorParamIndexes(Call->getDirectCallee()), J))
        Forwarded = LauncherFlow.launcherTarget(Call->getDirectCallee(), J);
  std::string ForeignKey;
  if (Call && !S.AddrTaken && !Forwarded)
    for (unsigned J = 0; J < Call->getNumArgs(); ++J)
      if (Call->getArg(J) == S.Cur)
        ForeignKey = LauncherFlow.foreignLauncherKey(Call->getDirectCallee(), J);
  if (Forwarded) {
    setLaunch(U, Forwarded->first, Forwarded->second,
              "call of launcher '" + calleeName(Call) + "'");
  } else if (!ForeignKey.empty()) {
    // A launcher defined elsewhere, or some other function: the planner
    // decides which; the analysis of this TU counts it as another use.
    U.Kind = HostUseKind::Launch;
    U.What = "call of launcher '" + calleeName(Call) + "'";
    U.LauncherKey = ForeignKey;
    Pass.ForeignLauncherArgs[R] = ForeignKey;
  } else if (auto Slot = Pass.ArraySlots.find(dyn_cast<DeclRefExpr>(R));
             isa<DeclRefExpr>(R) && Slot != Pass.ArraySlots.end()) {
    setLaunch(U, Slot->second.first, Slot->second.second, launchOf(Slot->second.first));
  } else if (auto PL = Pass.PointerTargets.find(dyn_cast_or_null<CUDAKernelCallExpr>(S.P));
             S.P && PL != Pass.PointerTargets.end()) {
    // One launch of each kernel the pointer may hold (K4).
    for (unsigned I = 0; I < PL->first->getNumArgs(); ++I)
      if (PL->first->getArg(I) == S.Cur && !S.AddrTaken)
        for (const FunctionDecl *K : PL->second)
          if (I < K->getNumParams() && isDescriptorPointer(K->getParamDecl(I)->getType())) {
            if (U.Kind == HostUseKind::Launch)
              B.Uses.push_back(U);
            setLaunch(U, K, I, launchOf(K));
          }
  } else if (std::optional<KernelLaunch> KL = asLaunch(S.P)) {
    const FunctionDecl *K = KL->Kernel;
    for (unsigned I = 0; I < KL->Args.size(); ++I)
      if (KL->Args[I] == S.Cur && !S.AddrTaken && I < K->getNumParams() &&
          isDescriptorPointer(K->getParamDecl(I)->getType()))
        setLaunch(U, K, I, launchOf(K));
  } else if (const CudaApi *Api = cudaApiOf(Call);
             Api && Api->Dest >= 0 && unsigned(Api->Dest) < Call->getNumArgs() &&
             Call->getArg(Api->Dest) == S.Cur) {
    if (S.AddrTaken && Api->Role == ApiRole::Alloc)
      U.Kind = HostUseKind::Alloc;
    else if (!S.AddrTaken && Api->Role == ApiRole::Free)
      U.Kind = HostUseKind::Free;
    else if (!S.AddrTaken && isWholeDescriptorCopy(Call, *Api, Ctx)) {
      U.Kind = HostUseKind::Copy;
      Pass.BufferCopies[V].push_back({Call, topStatement(Call, Fn)});
    } else if (std::optional<ArrayCopy> AC =
                   S.AddrTaken ? std::nullopt : arrayCopyOf(Call, *Api, Fn, B.Name)) {
      // Issue 21: N host descriptors at once; the launch decides.
      U.Kind = HostUseKind::Copy;
      Pass.BufferCopies[V].push_back({Call, topStatement(Call, Fn), std::move(AC)});
    }
    if (U.Kind != HostUseKind::Other) {
      U.What = driverBaseName(calleeName(Call)).str();
      U.Removal = removeHostCall(Call, Fn);
    }
  } else if (Call && !S.AddrTaken && !cudaApiOf(Call) && llvm::is_contained(Call->arguments(), S.Cur)) {
    if (std::optional<std::string> Callee = unseenCallee(Call))
      Pass.BufferUnseenCalls[V].push_back({Call, *Callee, spelled(R)});
  }
  return U;
}

void HostBuffers::unseenCallsThroughReference(BufferStorage S, const Expr *R, const FunctionDecl *Fn) {
  // `CUtensorMap *&q = d;`: q is the variable itself, under another name.
  Climbed Up = climb(Fn, R, parensCastsAndTemporaries);
  const auto *DS = dyn_cast_or_null<DeclStmt>(Up.Parent);
  if (!DS)
    return;
  for (const Decl *D : DS->decls()) {
    const auto *Q = dyn_cast<VarDecl>(D);
    if (!Q || !Q->getType()->isReferenceType() || Q->getInit() != Up.Child)
      continue;
    auto It = index(Fn).Refs.find(Q);
    if (It == index(Fn).Refs.end())
      continue;
    for (const DeclRefExpr *QR : It->second)
      unseenCallArgument(S, QR, Fn);
  }
}

void HostBuffers::unseenCallArgument(BufferStorage S, const Expr *R, const FunctionDecl *Fn) {
  Climbed Arg = climb(Fn, R, parensCastsAndTemporaries);
  const auto *Call = dyn_cast_or_null<CallExpr>(Arg.Parent);
  if (!Call || cudaApiOf(Call) || !llvm::is_contained(Call->arguments(), Arg.Child))
    return;
  if (std::optional<std::string> Callee = unseenCallee(Call))
    Pass.BufferUnseenCalls[S].push_back({Call, *Callee, spelled(R)});
}

void HostBuffers::unseenCallsOfOtherNames(BufferStorage S, const Expr *Init,
                                          const FunctionDecl *Fn) {
  // `CUtensorMap *e = d;`: e's copies write d's memory, so what d was
  // handed to may write it at any time after, e's launches included.
  llvm::SmallVector<const Stmt *, 8> Work{Init};
  while (!Work.empty()) {
    const Stmt *E = Work.pop_back_val();
    if (!E)
      continue;
    llvm::append_range(Work, E->children());
    const auto *Ref = dyn_cast<DeclRefExpr>(E);
    const auto *Other = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    if (!Other || Other == S.Var || !Other->getType()->isPointerType())
      continue;
    auto It = index(Fn).Refs.find(Other);
    if (It == index(Fn).Refs.end())
      continue;
    for (const DeclRefExpr *OR : It->second) {
      unseenCallArgument(S, OR, Fn);
      unseenCallsThroughReference(S, OR, Fn);
    }
  }
}

std::optional<std::string> HostBuffers::unseenCallee(const CallExpr *Call) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee)
    return "an indirect call";
  if (ST.inSystemHeader(Callee->getLocation()) || !Callee->hasBody())
    return "'" + Callee->getQualifiedNameAsString() + "' (its body is not seen)";
  return std::nullopt;
}

std::string HostBuffers::storageName(BufferStorage S) {
  std::string Name = S.Var->getNameAsString();
  return S.Field ? Name + "." + S.Field->getNameAsString() : Name;
}

std::vector<const Expr *> HostBuffers::storageRefs(BufferStorage S, const FunctionDecl *Fn,
                                                   std::vector<const Stmt *> &Whole) {
  std::vector<const Expr *> Refs;
  auto It = index(Fn).Refs.find(S.Var);
  if (It == index(Fn).Refs.end())
    return Refs;
  for (const DeclRefExpr *R : It->second) {
    if (inUnevaluatedOperand(R, Fn))
      continue; // sizeof(*d) reads nothing
    if (!S.Field) {
      Refs.push_back(R);
      continue;
    }
    const auto *ME = dyn_cast_or_null<MemberExpr>(climb(Fn, R, parens).Parent);
    const auto *F = ME ? dyn_cast<FieldDecl>(ME->getMemberDecl()) : nullptr;
    if (F == S.Field && !ME->isArrow())
      Refs.push_back(ME);
    else if (!F || ME->isArrow())
      Whole.push_back(R); // `plan` itself: `&plan`, `f(plan)`, `plan = q`
    // `plan.other`: another field (the struct is not a union) cannot hold it
  }
  return Refs;
}

/// What the variable's initialiser gives field \p S.Field: its element of
/// an aggregate's braces, null where the braces leave it out (it starts
/// null), or the whole initialiser where it is anything else (a
/// constructor may set it to anything).
const Expr *HostBuffers::fieldInitialiser(BufferStorage S) {
  const Expr *Init = S.Var->getInit();
  if (!Init)
    return nullptr;
  const auto *IL = dyn_cast<InitListExpr>(Init->IgnoreImplicit());
  if (IL && IL->isSyntacticForm() && IL->getSemanticForm())
    IL = IL->getSemanticForm();
  const auto *RD = dyn_cast<CXXRecordDecl>(S.Field->getParent());
  if (!IL || RD != S.Var->getType()->getAsCXXRecordDecl())
    return Init;
  unsigned Slot = RD->getNumBases() + S.Field->getFieldIndex();
  if (Slot >= IL->getNumInits() || isa<ImplicitValueInitExpr>(IL->getInit(Slot)))
    return nullptr;
  return IL->getInit(Slot);
}

DeviceBuffer &HostBuffers::bufferFacts(BufferStorage S, const FunctionDecl *Fn) {
  auto It = BufferSlot.find(S);
  if (It != BufferSlot.end())
    return Out.Buffers[It->second];
  DeviceBuffer B;
  B.Where = ST.point(S.Var->getLocation());
  B.Key = B.Where.File + ":" + std::to_string(B.Where.Offset);
  if (S.Field)
    B.Key += "." + S.Field->getNameAsString();
  B.Name = storageName(S);
  Pass.BufferCopies[S]; // known, even with no copy
  std::vector<const Stmt *> &Others = Pass.BufferOtherUses[S];
  // A field is not declared by the function: only its uses go.
  if (!S.Field)
    B.Uses.push_back(declarationUse(S.Var, Fn, B));
  // Initialised with memory it did not allocate (`&params->map`, another
  // buffer): that memory has other names, through which copies and
  // kernels may change it.
  // A field's initial value comes with its variable's (`struct { CUtensorMap
  // *p; } s = {d};` makes s.p another name for d's memory).
  if (const Expr *Init = S.Field ? fieldInitialiser(S) : S.Var->getInit();
      Init && Init->IgnoreParenImpCasts()->isNullPointerConstant(
                  Ctx, Expr::NPC_ValueDependentIsNotNull) == Expr::NPCK_NotNull)
  {
    Pass.BufferLeaks[S] = {Init, "'" + spelled(Init) + "', the memory it is initialised with"};
    unseenCallsOfOtherNames(S, Init, Fn);
    // Its copies write memory those names may read later (a kernel that
    // stays by reference): the buffer keeps them, whatever its launches pass.
    HostUse U;
    U.Where = ST.point(Init->getBeginLoc());
    U.What = "'" + B.Name + "' starts as '" + spelled(Init) + "', memory that other names reach";
    B.Uses.push_back(std::move(U));
  }
  std::vector<const Stmt *> Whole;
  std::vector<const Expr *> Refs = storageRefs(S, Fn, Whole);
  // A followed alias (`CUtensorMap *alias = d;`, only read) names the same
  // copy: its uses are the buffer's uses. Any other way of reaching the copy
  // (a pointer to the variable, an alias not followed, a lambda, a call that
  // keeps it) is a leak: no launch of the buffer is rewritten.
  std::set<const VarDecl *> Followed;
  for (size_t I = 0; I < Refs.size(); ++I) {
    const Expr *R = Refs[I];
    HostUse U = classifyBufferUse(S, R, Fn, B);
    if (U.Kind == HostUseKind::Other || !U.LauncherKey.empty())
      Others.push_back(R);
    if (U.Kind == HostUseKind::Other && !Pass.BufferLeaks.count(S)) {
      std::vector<const VarDecl *> Aliases;
      if (std::optional<std::string> Leak = Reach.deviceCopyLeak(R, Fn, Aliases))
        Pass.BufferLeaks[S] = {R, *Leak};
      unseenCallsThroughReference(S, R, Fn);
      for (const VarDecl *A : Aliases) {
        if (S.Field) {
          Pass.BufferLeaks[S] = {R, "'" + A->getNameAsString() + "'"};
          continue;
        }
        if (!Followed.insert(A).second)
          continue;
        if (auto It = index(Fn).Refs.find(A); It != index(Fn).Refs.end())
          Refs.insert(Refs.end(), It->second.begin(), It->second.end());
      }
    }
    B.Uses.push_back(std::move(U));
  }
  for (const Stmt *W : Whole) {
    HostUse U;
    U.Where = ST.point(W->getBeginLoc());
    U.What = "use of '" + S.Var->getNameAsString() + "'";
    Others.push_back(W);
    if (!Pass.BufferLeaks.count(S) && !inUnevaluatedOperand(W, Fn))
      Pass.BufferLeaks[S] = {W, "'" + spelled(cast<Expr>(W)) + "', used whole here"};
    B.Uses.push_back(std::move(U));
  }
  BufferSlot[S] = Out.Buffers.size();
  Out.Buffers.push_back(std::move(B));
  return Out.Buffers.back();
}

const CopyInfo *HostBuffers::reachingCopy(BufferStorage V, const Stmt *Launch,
                                          const FunctionDecl *Fn) {
  return reachingOf(Pass.BufferCopies[V], Launch, Fn);
}

std::optional<Blocker>
HostBuffers::changedBetween(BufferStorage V, const CopyInfo &Reaching, const Stmt *Launch,
                            const FunctionDecl *Fn,
                            std::vector<std::pair<std::string, Blocker>> *Unless) {
  std::vector<Note> CopyNote{{"copied here", ST.point(Reaching.Call->getBeginLoc())}};
  std::string Name = storageName(V);
  for (const CopyInfo &C : Pass.BufferCopies[V])
    if (&C != &Reaching && between(Reaching.Top, Launch, C.Call, Fn))
      return blockerFor(ReasonID::BufferCopiedAgain, {Name}, ST.point(C.Call->getBeginLoc()),
                        CopyNote);
  for (const Stmt *O : Pass.BufferOtherUses[V]) {
    if (!between(Reaching.Top, Launch, O, Fn))
      continue;
    Blocker Why =
        Pass.PartialCopies.count(O)
            ? blockerFor(ReasonID::ArrayPartialCopy, {Name, spelled(Pass.PartialCopies[O])},
                         ST.point(O->getBeginLoc()), CopyNote)
            : blockerFor(ReasonID::BufferUsedBetween, {Name}, ST.point(O->getBeginLoc()),
                         CopyNote);
    auto Foreign = Pass.ForeignLauncherArgs.find(O);
    if (!Unless || Foreign == Pass.ForeignLauncherArgs.end())
      return Why;
    Unless->push_back({Foreign->second, std::move(Why)});
  }
  // Handed to code the tool does not follow, before the launch (before the
  // copy too): that code may write the device copy at any time after it,
  // with work it leaves on a stream, say, so the launch may not read what
  // the copy wrote.
  for (const PassContext::UnseenCall &U : Pass.BufferUnseenCalls[V])
    if (Reach.beforeEnd(U.Call, Launch, Fn))
      return blockerFor(ReasonID::BufferHandedToUnseen, {U.Passed, U.Callee},
                        ST.point(U.Call->getBeginLoc()), CopyNote);
  // Reached through a name that is not followed, before the launch: a
  // kernel or code of the user's in between may change the copy through it.
  if (auto Leak = Pass.BufferLeaks.find(V);
      Leak != Pass.BufferLeaks.end() && Reach.beforeEnd(Leak->second.first, Launch, Fn))
    if (const Stmt *Run = Reach.userCodeBetween(Reaching.Top, Launch, Fn,
                                                      {Reaching.Call, Launch}, true)) {
      std::vector<Note> Notes{{"it runs here, between the copy and the launch",
                               ST.point(Run->getBeginLoc())}};
      llvm::append_range(Notes, CopyNote);
      return blockerFor(ReasonID::DeviceCopyAliased, {Name, Leak->second.second},
                        ST.point(Leak->second.first->getBeginLoc()), Notes);
    }
  return std::nullopt;
}

} // namespace tma::analysis
