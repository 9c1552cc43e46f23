// A kernel's descriptor parameters: their facts, the new text of every
// redeclaration's parameter, and the parameter-space limit (tma-106).
#include "KernelSignatures.h"
#include "UseWalker.h"
#include "ExplicitInstantiations.h"
#include "DescriptorArrayType.h"

#include "clang/AST/TypeLoc.h"

using namespace clang;

namespace tma::analysis {

std::string spelledPointee(const SourceText &ST, const ParmVarDecl *P) {
  std::string Pointee = "CUtensorMap";
  TypeSourceInfo *TSI = P->getTypeSourceInfo();
  if (!TSI)
    return Pointee;
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
  return Pointee;
}

KernelSignatures::KernelSignatures(PassContext &P, UseWalker &Walker)
    : PassComponent(P), Walker(Walker), Explicit(std::make_unique<ExplicitInstantiations>(P.ST)) {}
KernelSignatures::~KernelSignatures() = default;

void KernelSignatures::addExplicitInstantiationEdits(const FunctionDecl *Pattern, unsigned Index,
                                                     DescriptorParam &DP) {
  if (!Pattern->getDescribedFunctionTemplate())
    return;
  const SourceManager &SM = Ctx.getSourceManager();
  std::set<FileID> Files = {SM.getMainFileID(),
                            SM.getFileID(SM.getExpansionLoc(Pattern->getLocation()))};
  for (FileID FID : Files) {
    if (FID.isInvalid() || ST.inSystemHeader(SM.getLocForStartOfFile(FID)))
      continue;
    for (const ExplicitInstantiation &EI : Explicit->in(FID))
      if (EI.Name == Pattern->getName() && EI.Params.size() == Pattern->getNumParams())
        if (std::optional<TextEdit> E = Explicit->byValue(EI, Index)) {
          DP.Edits.push_back(*E);
          if (std::optional<TextEdit> A = Explicit->byValue(EI, Index, /*AsArray=*/true))
            DP.Array.Edits.push_back(*A);
        }
  }
}

void KernelSignatures::addSignatureEdits(const FunctionDecl *FD, unsigned Index,
                                         DescriptorParam &DP) {
  const FunctionDecl *Pattern = patternOf(FD);
  addExplicitInstantiationEdits(Pattern, Index, DP);
  for (const FunctionDecl *Redecl : Pattern->redecls()) {
    if (Index >= Redecl->getNumParams())
      continue;
    const ParmVarDecl *P = Redecl->getParamDecl(Index);
    if (ST.inSystemHeader(P->getLocation())) {
      DP.Blockers.push_back(blockerFor(ReasonID::SignatureInSystemHeader, {DP.KernelName},
                                       ST.point(P->getLocation())));
      continue;
    }
    if (P->getOriginalType()->isArrayType()) {
      DP.Blockers.push_back(blockerFor(ReasonID::SignatureArrayParameter, {DP.ParamName},
                                       ST.point(P->getLocation())));
      continue;
    }
    std::string Pointee = spelledPointee(ST, P);
    SourceLocation End = P->getLocation();
    if (P->getName().empty() || End.isInvalid())
      End = P->getSourceRange().getEnd();
    std::optional<CharSourceRange> R =
        ST.fileRange(SourceRange(P->getOuterLocStart(), End));
    if (!R) {
      DP.Blockers.push_back(blockerFor(ReasonID::SignatureSpelledByMacro, {DP.ParamName},
                                       ST.point(P->getLocation())));
      continue;
    }
    std::string Text = "const __grid_constant__ " + Pointee;
    if (!P->getName().empty())
      Text += " " + P->getName().str();
    DP.Edits.push_back(ST.replace(*R, Text));
    DP.Array.Edits.push_back(ST.replace(*R, descriptorArrayParam(P->getName())));
  }
  addArrayTypeDefinition(Pattern, DP);
}

// The array form's type is defined before the first declaration of the
// kernel in the translation unit, which every later one sees.
void KernelSignatures::addArrayTypeDefinition(const FunctionDecl *Pattern, DescriptorParam &DP) {
  const FunctionDecl *First = Pattern->getFirstDecl();
  if (!ST.inSystemHeader(First->getLocation()))
    if (std::optional<TextEdit> E = descriptorArrayDefinitionFor(First, ST))
      DP.Array.Edits.push_back(*E);
}

/// Bytes of parameters of \p FD, descriptor pointers \p Idx taken by value,
/// parameter \p Slot (if any) left out (0 bytes); none when a type is
/// dependent or incomplete.
static std::vector<ParamBytes> paramLayout(const FunctionDecl *FD,
                                           const std::vector<unsigned> &Idx, unsigned Slot,
                                           ASTContext &Ctx) {
  std::vector<ParamBytes> Layout;
  for (unsigned I = 0; I < FD->getNumParams(); ++I) {
    QualType T = FD->getParamDecl(I)->getType();
    if (llvm::is_contained(Idx, I))
      T = T->getPointeeType().getUnqualifiedType();
    if (T->isDependentType() || T->isIncompleteType())
      return {};
    TypeInfoChars TI = Ctx.getTypeInfoInChars(T);
    Layout.push_back({I == Slot ? 0u : unsigned(TI.Width.getQuantity()),
                      unsigned(std::max<int64_t>(1, TI.Align.getQuantity()))});
  }
  return Layout;
}

/// The walk of descriptor \p I as an array (issue 21), when its walk as
/// one descriptor met a run-time index or pointer arithmetic.
void KernelSignatures::walkAsArray(const FunctionDecl *FD, const FunctionDecl *Body,
                                   const std::vector<unsigned> &Idx, unsigned I,
                                   UseSink &Scalar, DescriptorParam &DP) {
  bool Indexed = llvm::any_of(Scalar.Blockers, [](const Blocker &B) {
    return B.Reason == ReasonID::DeviceRuntimeIndex ||
           B.Reason == ReasonID::DevicePointerArithmetic;
  });
  if (!Indexed)
    return;
  UseSink Array;
  Walker.setArrayMode(true);
  Walker.walkVarRefs(Body->getParamDecl(I), Body, 0, /*IsKernelParam=*/true,
                     /*Editable=*/true, ValueMode::Pointer, Array);
  Walker.setArrayMode(false);
  DP.Array.Candidate = true;
  DP.Array.ScalarBlockers = std::move(Scalar.Blockers);
  Scalar.Blockers.clear();
  llvm::append_range(DP.Array.Edits, Array.Edits);
  llvm::append_range(DP.Array.FencesRemoved, Array.Fences);
  llvm::append_range(DP.Array.Blockers, Array.Blockers);
  llvm::append_range(DP.ReliesOn, Array.ReliesOn);
  DP.Array.Layout = paramLayout(FD, Idx, I, Ctx);
  DP.Array.Slot = I;
  DP.Array.ParamSpaceLimit = Opts.ParamSpaceLimit;
  if (DP.Array.Layout.empty())
    DP.Array.Blockers.push_back(blockerFor(ReasonID::ArrayLayoutUnknown,
                                           {patternOf(FD)->getQualifiedNameAsString()},
                                           ST.point(FD->getLocation())));
}

std::optional<Blocker> KernelSignatures::paramSpaceBlocker(const FunctionDecl *FD,
                                                       const std::vector<unsigned> &Idx,
                                                       uint64_t Bytes) {
  std::vector<ParamBytes> Layout = paramLayout(FD, Idx, ~0u, Ctx);
  if (Layout.empty() && FD->getNumParams())
    return std::nullopt;
  Bytes = parameterBytes(Layout, Bytes);
  if (Bytes <= Opts.ParamSpaceLimit)
    return std::nullopt;
  return blockerFor(ReasonID::SignatureParamSpace,
                    {patternOf(FD)->getQualifiedNameAsString(), std::to_string(Bytes),
                     std::to_string(Opts.ParamSpaceLimit)},
                    ST.point(FD->getLocation()));
}

void KernelSignatures::checkParamSpace(const FunctionDecl *FD,
                                   const std::vector<unsigned> &Idx) {
  if (std::optional<Blocker> Why = paramSpaceBlocker(FD, Idx, 0))
    for (unsigned I : Idx)
      paramFacts(FD, I).Blockers.push_back(*Why);
}

// The function whose body holds the kernel's uses: its own. An instantiation
// that clang found invalid (an error nvcc accepts, such as `__shared__
// cuda::barrier`, fails it; ErrorContainment decides whether that error
// blocks) is analysed from its template pattern, the text every edit is on,
// once per pattern. None for a declaration, a pattern (analysed through its
// instantiations) or another invalid kernel.
const FunctionDecl *KernelSignatures::bodyToAnalyze(const FunctionDecl *FD) {
  if (!FD->isInvalidDecl())
    return FD->doesThisDeclarationHaveABody() && !FD->isDependentContext() ? FD : nullptr;
  const FunctionDecl *Pattern = FD->getTemplateInstantiationPattern();
  if (!Pattern || Pattern == FD || Pattern->isInvalidDecl() ||
      !Pattern->doesThisDeclarationHaveABody() || !PatternsAnalysed.insert(Pattern).second)
    return nullptr;
  return Pattern;
}

void KernelSignatures::analyzeKernel(const FunctionDecl *FD) {
  std::vector<unsigned> Idx = descriptorParamIndexes(FD);
  for (unsigned I : Idx) {
    DescriptorParam &DP = paramFacts(FD, I);
    addSignatureEdits(FD, I, DP);
  }
  const FunctionDecl *Body = bodyToAnalyze(FD);
  if (!Body)
    return;
  checkParamSpace(FD, Idx);
  for (unsigned I : Idx) {
    UseSink Sink;
    Walker.walkVarRefs(Body->getParamDecl(I), Body, 0, /*IsKernelParam=*/true,
                /*Editable=*/true, ValueMode::Pointer, Sink);
    DescriptorParam &DP = paramFacts(FD, I);
    walkAsArray(FD, Body, Idx, I, Sink, DP);
    DP.DefinitionSeen = true;
    DP.Where = ST.point(Body->getParamDecl(I)->getLocation());
    llvm::append_range(DP.Edits, Sink.Edits);
    llvm::append_range(DP.FencesRemoved, Sink.Fences);
    llvm::append_range(DP.Blockers, Sink.Blockers);
    DP.ReliesOn.push_back(spanOf(Body));
    llvm::append_range(DP.ReliesOn, Sink.ReliesOn);
  }
}

} // namespace tma::analysis
