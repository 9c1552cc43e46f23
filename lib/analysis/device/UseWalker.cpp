// Device side: every use of a descriptor pointer in a kernel (or a device
// helper it is passed to) must be a read; the walk records edits and blockers.
#include "UseWalker.h"

#include "tma/AsmClassifier.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;

namespace tma::analysis {

std::optional<CharSourceRange> UseWalker::editRange(SourceRange Tokens) {
  if (std::optional<CharSourceRange> R = ST.fileRange(Tokens))
    return R;
  const SourceManager &SM = ST.SM;
  SourceLocation B = Tokens.getBegin(), E = Tokens.getEnd();
  if (KernelBody.isInvalid() || !B.isMacroID() || !E.isMacroID() ||
      !SM.isMacroBodyExpansion(B) || !SM.isMacroBodyExpansion(E))
    return std::nullopt;
  SourceLocation SB = SM.getSpellingLoc(B), SE = SM.getSpellingLoc(E);
  SourceLocation KB = KernelBody.getBegin(), KE = KernelBody.getEnd();
  if (!SB.isFileID() || !SE.isFileID() || !KB.isFileID() || !KE.isFileID() ||
      SM.getFileID(SB) != SM.getFileID(KB) || SM.getFileID(SE) != SM.getFileID(KB) ||
      SM.getFileOffset(SB) <= SM.getFileOffset(KB) || SM.getFileOffset(SE) >= SM.getFileOffset(KE) ||
      SM.getFileOffset(SE) < SM.getFileOffset(SB))
    return std::nullopt;
  if (!macroLocalTo(Lexer::getImmediateMacroName(B, SM, Ctx.getLangOpts()), KernelBody))
    return std::nullopt;
  return CharSourceRange::getCharRange(SB, Lexer::getLocForEndOfToken(SE, 0, SM, Ctx.getLangOpts()));
}

bool UseWalker::macroLocalTo(llvm::StringRef Name, SourceRange Body) {
  const SourceManager &SM = ST.SM;
  if (Name.empty())
    return false;
  FileID FID = SM.getFileID(Body.getEnd());
  llvm::StringRef Buf = SM.getBufferData(FID);
  unsigned From = SM.getFileOffset(Body.getEnd());
  Lexer Lex(SM.getLocForStartOfFile(FID), Ctx.getLangOpts(), Buf.begin(), Buf.begin() + From,
            Buf.end());
  bool AfterUndef = false;
  for (Token T; !Lex.LexFromRawLexer(T);) {
    if (T.is(tok::raw_identifier) && T.getRawIdentifier() == Name && !AfterUndef)
      return false;
    AfterUndef = T.is(tok::raw_identifier) && T.getRawIdentifier() == "undef";
  }
  return true;
}

void UseWalker::addressOf(const DeclRefExpr *Direct, UseSink &Sink) {
  if (!Direct)
    return;
  if (std::optional<CharSourceRange> R = editRange(Direct->getSourceRange()))
    // An array's pointer value is the address of its first descriptor.
    Sink.Edits.push_back(ArrayMode ? ST.replace(*R, "&" + ST.text(*R) + "[0]")
                                   : ST.insertBefore(R->getBegin(), "&"));
  else
    block(Sink, ReasonID::DeviceUseInMacro, {}, Direct->getBeginLoc());
}

void UseWalker::walkVarRefs(const VarDecl *V, const FunctionDecl *Fn,
                               unsigned Depth, bool IsKernelParam, bool Editable,
                               ValueMode M, UseSink &Sink) {
  auto It = index(Fn).Refs.find(V);
  if (It == index(Fn).Refs.end())
    return;
  if (IsKernelParam && Depth == 0 && Fn->getBody())
    KernelBody = SourceRange(ST.SM.getExpansionLoc(Fn->getBody()->getBeginLoc()),
                             ST.SM.getExpansionLoc(Fn->getBody()->getEndLoc()));
  for (const DeclRefExpr *R : It->second)
    walkRef(R, Fn, Depth, IsKernelParam, Editable, M, Sink);
}

void UseWalker::walkRef(const DeclRefExpr *R, const FunctionDecl *Fn,
                           unsigned Depth, bool IsKernelParam, bool Editable,
                           ValueMode M, UseSink &Sink) {
  std::string Name = R->getDecl()->getNameAsString();
  Climbed Up = climb(Fn, R, parens);
  const Expr *Cur = cast<Expr>(Up.Child);
  const Stmt *P = Up.Parent;
  if (const auto *IC = dyn_cast_or_null<ImplicitCastExpr>(P)) {
    if (IC->getCastKind() == CK_LValueToRValue) {
      walkValue(IC, Fn, Depth, Editable ? R : nullptr, M, Sink);
      return;
    }
  }
  if (const auto *UO = dyn_cast_or_null<UnaryOperator>(P)) {
    if (UO->getOpcode() == UO_AddrOf) {
      block(Sink, ReasonID::DeviceAddressTaken, {Name}, UO->getBeginLoc());
      return;
    }
    if (UO->isIncrementDecrementOp()) {
      block(Sink, ReasonID::DeviceIncremented, {Name}, UO->getBeginLoc());
      return;
    }
  }
  // A call that clang could not finish because of another argument (one that
  // names a declaration clang rejected, such as nvcc's `__shared__
  // cuda::barrier`), or that depends on a template parameter (in a template
  // pattern), keeps its arguments unconverted. When the callee is one known
  // function (not an overload set, so every instantiation calls it) and this
  // argument is sound, it is the call nvcc makes: follow it as such.
  if (const auto *CE = dyn_cast_or_null<CallExpr>(P)) {
    const auto *Callee = dyn_cast<DeclRefExpr>(CE->getCallee()->IgnoreParenImpCasts());
    const auto *FD = Callee ? dyn_cast<FunctionDecl>(Callee->getDecl()) : nullptr;
    bool Unfinished = CE->containsErrors() || CE->isTypeDependent() || CE->isValueDependent();
    if (Unfinished && !R->containsErrors() && FD && !isa<CUDAKernelCallExpr>(CE) &&
        llvm::is_contained(CE->arguments(), Cur) && CE->getNumArgs() <= FD->getNumParams()) {
      handleCallArg(CE, Cur, Fn, Depth, Editable ? R : nullptr, M, Sink);
      return;
    }
  }
  if (const auto *BO = dyn_cast_or_null<BinaryOperator>(P)) {
    if (BO->isAssignmentOp() && BO->getLHS()->IgnoreParens() == R) {
      if (IsKernelParam)
        block(Sink,
              BO->isCompoundAssignmentOp() ? ReasonID::DeviceParamCompoundAssigned
                                           : ReasonID::DeviceParamAssigned,
              {Name}, BO->getBeginLoc());
      // An alias that is reassigned simply stops being an alias.
      return;
    }
  }
  block(Sink, ReasonID::DeviceUnfollowedRef,
        {Name, P ? std::string(P->getStmtClassName()) : std::string("?")}, R->getBeginLoc());
}

// Follows the value of a descriptor pointer (or of the integer made from
// it) up through its parents until a use decides it.
void UseWalker::walkValue(const Expr *E, const FunctionDecl *Fn, unsigned Depth,
                             const DeclRefExpr *Direct, ValueMode M, UseSink &Sink) {
  std::string Name = Direct ? Direct->getDecl()->getNameAsString() : "descriptor pointer";
  while (true) {
    const Stmt *P = parent(Fn, E);
    if (!P) {
      block(Sink, ReasonID::DeviceValueDiscarded, {Name}, E->getBeginLoc());
      return;
    }
    if (isa<ParenExpr>(P)) {
      E = cast<Expr>(P);
      continue;
    }
    if (const auto *IC = dyn_cast<ImplicitCastExpr>(P)) {
      std::optional<ValueMode> Next =
          followImplicitCast(IC, Name, M, isCallArgument(Fn, IC), Sink);
      if (!Next)
        return;
      M = *Next;
      E = IC;
      continue;
    }
    if (const auto *EC = dyn_cast<ExplicitCastExpr>(P)) {
      std::optional<ValueMode> Next = followExplicitCast(EC, Name, M, Sink);
      if (!Next)
        return;
      M = *Next;
      E = EC;
      continue;
    }
    if (M == ValueMode::Pointer && walkDereference(P, E, Fn, Depth, Direct, Name, Sink))
      return;
    walkValueUse(P, E, Fn, Depth, Direct, M, Name, Sink);
    return;
  }
}

// A call argument's conversion to a pointer to non-const is judged with the
// callee (handleCallArg): a helper that only reads may take it.
bool UseWalker::isCallArgument(const FunctionDecl *Fn, const Expr *E) {
  Climbed Up = climb(Fn, E, parens);
  E = cast<Expr>(Up.Child);
  const auto *CE = dyn_cast_or_null<CallExpr>(Up.Parent);
  return CE && !isa<CUDAKernelCallExpr, CXXOperatorCallExpr>(CE) &&
         llvm::is_contained(CE->arguments(), E);
}

std::optional<ValueMode> UseWalker::followImplicitCast(const ImplicitCastExpr *IC,
                                                       const std::string &Name, ValueMode M,
                                                       bool IntoCallArg, UseSink &Sink) {
  CastKind K = IC->getCastKind();
  if (M == ValueMode::Pointer) {
    if (K == CK_NoOp || K == CK_BitCast || K == CK_LValueToRValue) {
      // A conversion inside an explicit cast is judged with that cast.
      if (isPointerToNonConst(IC->getType()) && !isDescriptorPointer(IC->getType()) &&
          !IntoCallArg && !IC->isPartOfExplicitCast()) {
        block(Sink, ReasonID::DeviceConvertedToNonConst, {Name, IC->getType().getAsString()},
              IC->getBeginLoc());
        return std::nullopt;
      }
      return ValueMode::Pointer;
    }
    if (K == CK_PointerToIntegral)
      return ValueMode::Integer;
    block(Sink, ReasonID::DevicePointerConverted, {Name, IC->getCastKindName()},
          IC->getBeginLoc());
    return std::nullopt;
  }
  if (K == CK_IntegralCast || K == CK_NoOp || K == CK_LValueToRValue)
    return ValueMode::Integer;
  block(Sink, ReasonID::DeviceIntegerConverted, {Name, IC->getCastKindName()},
        IC->getBeginLoc());
  return std::nullopt;
}

std::optional<ValueMode> UseWalker::followExplicitCast(const ExplicitCastExpr *EC,
                                                       const std::string &Name, ValueMode M,
                                                       UseSink &Sink) {
  QualType T = EC->getType();
  if (T->isIntegerType())
    return ValueMode::Integer;
  if (T->isPointerType() && M == ValueMode::Pointer) {
    // A C-style cast may drop const, so it still compiles on `&p`.
    if (isPointerToNonConst(T) && !isa<CStyleCastExpr>(EC)) {
      block(Sink, ReasonID::DeviceCastToNonConst, {Name, T.getAsString()}, EC->getBeginLoc());
      return std::nullopt;
    }
    return ValueMode::Pointer;
  }
  block(Sink, ReasonID::DeviceCastToOtherType, {Name, T.getAsString()}, EC->getBeginLoc());
  return std::nullopt;
}

bool UseWalker::walkDereference(const Stmt *P, const Expr *E, const FunctionDecl *Fn,
                                unsigned Depth, const DeclRefExpr *Direct,
                                const std::string &Name, UseSink &Sink) {
  if (const auto *UO = dyn_cast<UnaryOperator>(P)) {
    if (UO->getOpcode() != UO_Deref)
      return false;
    if (Direct && ArrayMode) {
      // `*p` becomes `p[0]`, `*(p)` `(p)[0]`.
      std::optional<CharSourceRange> All = editRange(UO->getSourceRange());
      std::optional<CharSourceRange> Sub = editRange(UO->getSubExpr()->getSourceRange());
      if (All && Sub)
        Sink.Edits.push_back(ST.replace(*All, ST.text(*Sub) + "[0]"));
      else
        block(Sink, ReasonID::DeviceDereferenceInMacro, {Name}, UO->getBeginLoc());
    } else if (Direct)
      dropToken(UO->getOperatorLoc(), "", ReasonID::DeviceDereferenceInMacro, Name,
                UO->getBeginLoc(), Sink);
    walkLValue(UO, Fn, Depth, Sink);
    return true;
  }
  if (const auto *AS = dyn_cast<ArraySubscriptExpr>(P)) {
    if (AS->getBase()->IgnoreParenImpCasts() != E->IgnoreParenImpCasts() &&
        AS->getBase() != E)
      return false;
    walkSubscript(AS, Fn, Depth, Direct, Name, Sink);
    return true;
  }
  if (const auto *ME = dyn_cast<MemberExpr>(P)) {
    if (!ME->isArrow())
      return false;
    if (Direct)
      dropToken(ME->getOperatorLoc(), ArrayMode ? "[0]." : ".", ReasonID::DeviceArrowInMacro,
                Name, ME->getBeginLoc(), Sink);
    walkLValue(ME, Fn, Depth, Sink);
    return true;
  }
  return false;
}

void UseWalker::dropToken(SourceLocation Tok, llvm::StringRef Replacement, ReasonID InMacro,
                          const std::string &Name, SourceLocation Where, UseSink &Sink) {
  if (std::optional<CharSourceRange> R = editRange(SourceRange(Tok, Tok)))
    Sink.Edits.push_back(ST.replace(*R, Replacement.str()));
  else
    block(Sink, InMacro, {Name}, Where);
}

void UseWalker::walkSubscript(const ArraySubscriptExpr *AS, const FunctionDecl *Fn,
                              unsigned Depth, const DeclRefExpr *Direct,
                              const std::string &Name, UseSink &Sink) {
  // An array's `p[i]` is its operator[]: the text stays.
  if (ArrayMode)
    return walkLValue(AS, Fn, Depth, Sink);
  Expr::EvalResult Idx;
  if (!AS->getIdx()->EvaluateAsInt(Idx, Ctx) || Idx.Val.getInt() != 0) {
    block(Sink, ReasonID::DeviceRuntimeIndex, {Name, spelled(AS->getIdx())}, AS->getBeginLoc());
    return;
  }
  if (Direct) {
    // `p[0]` becomes `p`: the text from the end of the base to the end.
    std::optional<CharSourceRange> Base = ST.fileRange(AS->getBase()->getSourceRange());
    std::optional<CharSourceRange> All = ST.fileRange(AS->getSourceRange());
    if (Base && All)
      Sink.Edits.push_back(
          ST.replace(CharSourceRange::getCharRange(Base->getEnd(), All->getEnd()), ""));
    else
      block(Sink, ReasonID::DeviceSubscriptInMacro, {Name}, AS->getBeginLoc());
  }
  walkLValue(AS, Fn, Depth, Sink);
}

// The uses that end the walk of a value: operators, calls, inline assembly,
// declarations, returns.
void UseWalker::walkValueUse(const Stmt *P, const Expr *E, const FunctionDecl *Fn,
                             unsigned Depth, const DeclRefExpr *Direct, ValueMode M,
                             const std::string &Name, UseSink &Sink) {
  if (const auto *BO = dyn_cast<BinaryOperator>(P)) {
    if (ArrayMode && walkArrayArithmetic(BO, E, Fn, Depth, Direct, Name, Sink))
      return;
    if (BO->isAdditiveOp() || BO->getOpcode() == BO_AddAssign ||
        BO->getOpcode() == BO_SubAssign)
      block(Sink, ReasonID::DevicePointerArithmetic, {Name, spelled(BO)}, BO->getBeginLoc());
    else if (BO->isAssignmentOp() && BO->getRHS() == E)
      block(Sink, ReasonID::DeviceStored, {Name, spelled(BO)}, BO->getBeginLoc());
    else
      block(Sink, ReasonID::DeviceUsedInOperator, {Name, spelled(BO)}, BO->getBeginLoc());
    return;
  }
  if (const auto *KC = dyn_cast<CUDAKernelCallExpr>(P)) {
    block(Sink, ReasonID::DevicePassedToLaunch, {Name}, KC->getBeginLoc());
    return;
  }
  if (const auto *CE = dyn_cast<CallExpr>(P))
    return handleCallArg(CE, E, Fn, Depth, Direct, M, Sink);
  if (const auto *AS = dyn_cast<GCCAsmStmt>(P))
    return handleAsm(AS, E, Fn, Depth, Direct, Sink);
  if (const auto *DS = dyn_cast<DeclStmt>(P))
    return handleAlias(DS, E, Fn, Depth, Direct, M, Sink);
  if (isa<ReturnStmt>(P)) {
    block(Sink, ReasonID::DeviceReturned, {Name}, P->getBeginLoc());
    return;
  }
  block(Sink, ReasonID::DeviceUnfollowedValueUse, {Name, P->getStmtClassName()},
        P->getBeginLoc());
}

/// The local `const T &` that \p DS declares bound to \p E, or null.
const VarDecl *UseWalker::constReferenceTo(const DeclStmt *DS, const Expr *E) {
  for (const Decl *D : DS->decls())
    if (const auto *V = dyn_cast<VarDecl>(D))
      if (V->getInit() == E && V->hasLocalStorage() && V->getType()->isLValueReferenceType() &&
          V->getType()->getPointeeType().isConstQualified())
        return V;
  return nullptr;
}

bool UseWalker::walkArrayArithmetic(const BinaryOperator *BO, const Expr *E,
                                    const FunctionDecl *Fn, unsigned Depth,
                                    const DeclRefExpr *Direct, const std::string &Name,
                                    UseSink &Sink) {
  // `p + i` or `i + p`: a pointer to descriptor i of the array.
  if (BO->getOpcode() != BO_Add || !BO->getType()->isPointerType())
    return false;
  const Expr *Index = BO->getLHS() == E ? BO->getRHS() : BO->getLHS();
  UseSink Sum;
  walkValue(BO, Fn, Depth, nullptr, ValueMode::Pointer, Sum);
  // A fence on the sum goes, and the edit with it.
  bool IntoRemovedFence = Sum.Fences.size() > 0;
  Sink.Fences.insert(Sink.Fences.end(), Sum.Fences.begin(), Sum.Fences.end());
  Sink.Edits.insert(Sink.Edits.end(), Sum.Edits.begin(), Sum.Edits.end());
  Sink.Blockers.insert(Sink.Blockers.end(), Sum.Blockers.begin(), Sum.Blockers.end());
  Sink.ReliesOn.insert(Sink.ReliesOn.end(), Sum.ReliesOn.begin(), Sum.ReliesOn.end());
  if (Direct && !IntoRemovedFence) {
    std::optional<CharSourceRange> All = editRange(BO->getSourceRange());
    std::optional<CharSourceRange> Base = editRange(Direct->getSourceRange());
    std::optional<CharSourceRange> Idx = editRange(Index->getSourceRange());
    if (!All || !Base || !Idx) {
      block(Sink, ReasonID::DeviceSubscriptInMacro, {Name}, BO->getBeginLoc());
      return true;
    }
    Sink.Edits.push_back(ST.replace(*All, "&" + ST.text(*Base) + "[" + ST.text(*Idx) + "]"));
  }
  return true;
}

void UseWalker::walkLValue(const Expr *E, const FunctionDecl *Fn, unsigned Depth,
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
      block(Sink, ReasonID::DeviceDescriptorConverted, {IC->getCastKindName()},
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
        block(Sink, ReasonID::DeviceDescriptorModified, {spelled(UO)}, UO->getBeginLoc());
        return;
      }
      return;
    }
    if (const auto *BO = dyn_cast<BinaryOperator>(P)) {
      if (BO->isAssignmentOp() && BO->getLHS() == E)
        block(Sink, ReasonID::DeviceDescriptorWritten, {spelled(BO)}, BO->getBeginLoc());
      return;
    }
    if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(P)) {
      if (OC->isAssignmentOp() && OC->getArg(0) == E)
        block(Sink, ReasonID::DeviceDescriptorWritten, {spelled(OC)}, OC->getBeginLoc());
      return;
    }
    if (isa<CXXConstructExpr>(P) || isa<UnaryExprOrTypeTraitExpr>(P))
      return; // a copy, or sizeof
    if (const auto *DS = dyn_cast<DeclStmt>(P))
      if (const VarDecl *Ref = constReferenceTo(DS, E)) {
        // `const CUtensorMap &m = p[i];`: every use of `m` is one of the
        // descriptor's.
        for (const DeclRefExpr *R : index(Fn).Refs[Ref])
          walkLValue(R, Fn, Depth, Sink);
        return;
      }
    if (const auto *CE = dyn_cast<CallExpr>(P)) {
      const FunctionDecl *FD = CE->getDirectCallee();
      for (unsigned I = 0; FD && I < CE->getNumArgs() && I < FD->getNumParams(); ++I)
        if (CE->getArg(I) == E) {
          QualType T = FD->getParamDecl(I)->getType();
          if (T->isReferenceType() && !T->getPointeeType().isConstQualified())
            block(Sink, ReasonID::DeviceBoundToNonConstRef, {FD->getNameAsString()},
                  CE->getBeginLoc());
          return;
        }
      block(Sink, ReasonID::DeviceDescriptorUnfollowedCall, {}, CE->getBeginLoc());
      return;
    }
    block(Sink, ReasonID::DeviceDescriptorUnfollowedUse, {P->getStmtClassName()},
          P->getBeginLoc());
    return;
  }
}

void UseWalker::handleCallArg(const CallExpr *CE, const Expr *Arg,
                                 const FunctionDecl *Fn, unsigned Depth,
                                 const DeclRefExpr *Direct, ValueMode M, UseSink &Sink) {
  std::string Name = Direct ? Direct->getDecl()->getNameAsString() : "descriptor pointer";
  const FunctionDecl *FD = CE->getDirectCallee();
  if (!FD || CE->getCallee() == Arg) {
    block(Sink, ReasonID::DeviceIndirectCall, {Name}, CE->getBeginLoc());
    return;
  }
  std::string Callee = FD->getQualifiedNameAsString();
  if (isFenceWrapper(FD)) {
    std::string Sem = CE->getNumArgs() ? CE->getArg(0)->getType().getAsString() : "";
    if (Sem.find("sem_release") != std::string::npos) {
      block(Sink, ReasonID::DeviceReleased, {Name, Callee}, CE->getBeginLoc());
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
    block(Sink, ReasonID::DeviceVariadicArgument, {Name, Callee}, CE->getBeginLoc());
    return;
  }
  const ParmVarDecl *PVD = FD->getParamDecl(I);
  QualType PT = PVD->getType();
  bool NonConst = M == ValueMode::Pointer && isPointerToNonConst(PT);
  auto BlockNonConst = [&](std::vector<Blocker> Why) {
    Blocker B = blockerFor(ReasonID::DevicePassedAsNonConst, {Name, Callee, PT.getAsString()},
                           ST.point(CE->getBeginLoc()));
    for (const Blocker &W : Why)
      B.Notes.push_back({"in '" + Callee + "': " + W.Message, W.Where});
    Sink.Blockers.push_back(std::move(B));
  };
  if (!(PT->isPointerType() || PT->isIntegerType())) {
    block(Sink, ReasonID::DevicePassedAsOtherType, {Name, Callee, PT.getAsString()},
          CE->getBeginLoc());
    return;
  }
  const FunctionDecl *Def = nullptr;
  if (!FD->hasBody(Def) || !Def || Def->isDependentContext()) {
    if (NonConst)
      return BlockNonConst({});
    block(Sink, ReasonID::DeviceCalleeBodyNotVisible, {Name, Callee}, CE->getBeginLoc());
    return;
  }
  // A wrapper whose whole body is the acquire fence on this parameter (cute's
  // tma_descriptor_fence_acquire and the like): the call goes, the wrapper
  // stays for its other callers.
  if (isAcquireFenceWrapper(Def, I)) {
    removeFence(CE, Fn, Depth, Callee, Sink);
    return;
  }
  if (NonConst)
    return passToNonConstParam(CE, Arg, Def, I, Depth, Direct, BlockNonConst, Sink);
  walkHelper(CE, Def, I, PT->isIntegerType() ? ValueMode::Integer : ValueMode::Pointer,
             Depth, Sink);
  addressOf(Direct, Sink);
}

// Parameter \p I of helper \p Def is a pointer to non-const (`void *map`,
// `CUtensorMap *m`). When the helper only reads through it, the call stays
// as it is: inside a helper nothing changes type; in the kernel the
// argument `p` becomes `const_cast<CUtensorMap *>(&p)`, the type it had, so
// the same overload is called and the helper is not edited.
void UseWalker::passToNonConstParam(
    const CallExpr *CE, const Expr *Arg, const FunctionDecl *Def, unsigned I, unsigned Depth,
    const DeclRefExpr *Direct,
    llvm::function_ref<void(std::vector<Blocker>)> BlockNonConst, UseSink &Sink) {
  UseSink Helper;
  walkHelper(CE, Def, I, ValueMode::Pointer, Depth, Helper);
  if (!Helper.Blockers.empty())
    return BlockNonConst(std::move(Helper.Blockers));
  llvm::append_range(Sink.ReliesOn, Helper.ReliesOn);
  if (Depth > 0)
    return;
  if (!Direct) // an alias declared `auto`: it becomes a pointer to const
    return BlockNonConst({});
  if (Arg->IgnoreParenImpCasts() != Direct)
    return addressOf(Direct, Sink); // through an explicit cast: its type stays
  std::optional<CharSourceRange> R = ST.fileRange(Direct->getSourceRange());
  const auto *PVD = dyn_cast<ParmVarDecl>(Direct->getDecl());
  if (!R || !PVD)
    return addressOf(Direct, Sink); // blocks: spelled in a macro
  Sink.Edits.push_back(
      ST.replace(*R, "const_cast<" + spelledPointee(ST, PVD) + " *>(&" + ST.text(*R) + ")"));
}

// Walks parameter \p I of helper \p Def once (memoised; recursion stops at
// a helper already on the stack) and adds its blockers, each with a note at
// the call \p CE.
void UseWalker::walkHelper(const CallExpr *CE, const FunctionDecl *Def, unsigned I,
                           ValueMode M, unsigned Depth, UseSink &Sink) {
  auto Key = std::make_tuple(Def, I, ArrayMode);
  if (HelpersInProgress.count(Key))
    return;
  auto Memo = HelperMemo.find(Key);
  if (Memo == HelperMemo.end()) {
    UseSink Helper;
    Helper.ReliesOn.push_back(spanOf(Def));
    if (Depth >= 12) {
      block(Helper, ReasonID::DeviceCallsTooDeep, {}, CE->getBeginLoc());
    } else {
      HelpersInProgress.insert(Key);
      walkVarRefs(Def->getParamDecl(I), Def, Depth + 1, /*IsKernelParam=*/false,
                  /*Editable=*/false, M, Helper);
      HelpersInProgress.erase(Key);
    }
    Helper.Edits.clear();
    Memo = HelperMemo.emplace(Key, std::move(Helper)).first;
  }
  std::string Callee = CE->getDirectCallee()->getQualifiedNameAsString();
  llvm::append_range(Sink.ReliesOn, Memo->second.ReliesOn);
  for (Blocker B : Memo->second.Blockers) {
    B.Notes.push_back({"through the call to '" + Callee + "' here", ST.point(CE->getBeginLoc())});
    Sink.Blockers.push_back(std::move(B));
  }
}

void UseWalker::handleAlias(const DeclStmt *DS, const Expr *Init,
                               const FunctionDecl *Fn, unsigned Depth,
                               const DeclRefExpr *Direct, ValueMode M, UseSink &Sink) {
  std::string Name = Direct ? Direct->getDecl()->getNameAsString() : "descriptor pointer";
  const VarDecl *V = nullptr;
  for (const Decl *D : DS->decls())
    if (const auto *VD = dyn_cast<VarDecl>(D))
      if (VD->getInit() == Init)
        V = VD;
  if (!V) {
    block(Sink, ReasonID::DeviceUnfollowedDeclaration, {Name}, DS->getBeginLoc());
    return;
  }
  if (!V->hasLocalStorage() || V->getType()->isReferenceType()) {
    block(Sink, ReasonID::DeviceStoredInNonLocal, {Name, V->getNameAsString()},
          V->getLocation());
    return;
  }
  bool IsAuto = V->getType()->getContainedAutoType() != nullptr;
  if (M == ValueMode::Pointer && !IsAuto && isPointerToNonConst(V->getType())) {
    block(Sink, ReasonID::DeviceInitialisesNonConst,
          {Name, V->getNameAsString(), V->getType().getAsString()}, V->getLocation());
    return;
  }
  addressOf(Direct, Sink);
  ValueMode VM = V->getType()->isIntegerType() ? ValueMode::Integer : ValueMode::Pointer;
  walkVarRefs(V, Fn, Depth, /*IsKernelParam=*/false, /*Editable=*/false, VM, Sink);
}

} // namespace tma::analysis
