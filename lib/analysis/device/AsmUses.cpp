// Inline-PTX operands that are descriptor pointers: TMA instructions read
// them, acquire fences on them go (with AsmClassifier), the rest is refused.
#include "UseWalker.h"

#include "tma/AsmClassifier.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;

namespace tma::analysis {

bool UseWalker::isAcquireFenceWrapper(const FunctionDecl *Def, unsigned ParamIndex) {
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

void UseWalker::handleAsm(const GCCAsmStmt *AS, const Expr *Operand,
                             const FunctionDecl *Fn, unsigned Depth,
                             const DeclRefExpr *Direct, UseSink &Sink) {
  std::string Name = Direct ? Direct->getDecl()->getNameAsString() : "descriptor pointer";
  for (unsigned I = 0; I < AS->getNumOutputs(); ++I)
    if (AS->getOutputExpr(I) == Operand) {
      block(Sink, ReasonID::DeviceAsmOutput, {Name}, AS->getBeginLoc());
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
    block(Sink, ReasonID::DeviceAsmUnknownRole, {Name}, AS->getBeginLoc());
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
      block(Sink, ReasonID::DeviceAsmFenceShared, {Name}, AS->getBeginLoc());
      return;
    }
    removeFence(AS, Fn, Depth, "fence.proxy.tensormap::generic.acquire", Sink);
    return;
  case AsmOperandRole::Write:
    block(Sink, ReasonID::DeviceAsmWrite, {Name, Use.Instruction}, AS->getBeginLoc());
    return;
  case AsmOperandRole::Unknown:
    block(Sink, ReasonID::DeviceAsmUnknownInstruction, {Name, Use.Instruction},
          AS->getBeginLoc());
    return;
  }
}

void UseWalker::removeFence(const Stmt *S, const FunctionDecl *Fn, unsigned Depth,
                               llvm::StringRef What, UseSink &Sink) {
  if (Depth > 0) {
    block(Sink, ReasonID::DeviceHelperFences, {Fn->getQualifiedNameAsString(), What.str()},
          S->getBeginLoc());
    return;
  }
  // Climb to the statement itself (a call may sit in an ExprWithCleanups).
  auto [Cur, P] = climb(Fn, S, statementWrappers);
  std::optional<TextEdit> Edit = ST.removeStatement(Cur->getSourceRange());
  if (!Edit) {
    block(Sink, ReasonID::DeviceFenceInMacro, {}, S->getBeginLoc());
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

} // namespace tma::analysis
