// Type and name predicates shared by every analysis component (see
// Types.h), and the keys facts are merged by.
#include "Types.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Index/USRGeneration.h"
#include "llvm/ADT/SmallString.h"

using namespace clang;

namespace tma::analysis {

bool isTensorMapRecord(QualType T) {
  const RecordDecl *RD = T.getCanonicalType()->getAsRecordDecl();
  return RD && RD->getName() == "CUtensorMap_st";
}

bool containsTensorMap(QualType T, unsigned Depth) {
  T = T.getCanonicalType().getNonReferenceType();
  while (const ArrayType *AT = T->getAsArrayTypeUnsafe())
    T = AT->getElementType().getCanonicalType();
  if (isTensorMapRecord(T))
    return true;
  const RecordDecl *RD = T->getAsRecordDecl();
  if (!RD || Depth > 6)
    return false;
  if (!(RD = RD->getDefinition()))
    return false;
  for (const FieldDecl *F : RD->fields())
    if (containsTensorMap(F->getType(), Depth + 1))
      return true;
  if (const auto *CRD = dyn_cast<CXXRecordDecl>(RD))
    for (const CXXBaseSpecifier &B : CRD->bases())
      if (containsTensorMap(B.getType(), Depth + 1))
        return true;
  return false;
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

bool isConstantDescriptor(const VarDecl *V) {
  return V && V->hasAttr<CUDAConstantAttr>() && isTensorMapRecord(V->getType());
}

bool runsOnDevice(const FunctionDecl *FD) {
  if (FD->hasAttr<CUDAGlobalAttr>())
    return true;
  const auto *Device = FD->getAttr<CUDADeviceAttr>();
  if (!Device)
    return false;
  const auto *MD = dyn_cast<CXXMethodDecl>(FD);
  if (!Device->isImplicit() || !MD || !MD->getParent()->isLambda())
    return true;
  const auto *Definer = dyn_cast<FunctionDecl>(MD->getParent()->getDeclContext());
  return Definer && runsOnDevice(Definer);
}

std::vector<FunctionDecl *> genericLambdaInstantiations(const LambdaExpr *LE) {
  std::vector<FunctionDecl *> Out;
  if (const FunctionTemplateDecl *T = LE->getDependentCallOperator())
    for (FunctionDecl *S : T->specializations())
      if (S->doesThisDeclarationHaveABody())
        Out.push_back(S);
  return Out;
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

bool hasGoto(const Stmt *S) {
  if (!S)
    return false;
  if (isa<GotoStmt, IndirectGotoStmt>(S))
    return true;
  for (const Stmt *C : S->children())
    if (hasGoto(C))
      return true;
  return false;
}

const Expr *stripCasts(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  while (const auto *C = dyn_cast<ExplicitCastExpr>(E))
    E = C->getSubExpr()->IgnoreParenImpCasts();
  return E;
}


} // namespace tma::analysis
