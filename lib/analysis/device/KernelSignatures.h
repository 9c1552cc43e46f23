// A kernel's descriptor parameters and the edits of every redeclaration (device/KernelSignature.cpp).
#pragma once

#include "../core/PassContext.h"

#include <memory>
#include <set>

namespace tma::analysis {

/// A kernel's descriptor parameters: their facts, the edits of every
/// redeclaration's parameter text, and the parameter-space check
/// (device/KernelSignature.cpp).
class ExplicitInstantiations;
class UseWalker;

class KernelSignatures : public PassComponent {
public:
  KernelSignatures(PassContext &P, UseWalker &Walker);
  ~KernelSignatures();

  void analyzeKernel(const clang::FunctionDecl *FD);
  /// tma-106 when the parameters, descriptor pointers \p Idx taken by value
  /// and \p Bytes more in front, exceed the parameter space.
  std::optional<Blocker> paramSpaceBlocker(const clang::FunctionDecl *FD,
                                           const std::vector<unsigned> &Idx, uint64_t Bytes);

private:
  const clang::FunctionDecl *bodyToAnalyze(const clang::FunctionDecl *FD);
  void addSignatureEdits(const clang::FunctionDecl *FD, unsigned Index, DescriptorParam &DP);
  void checkParamSpace(const clang::FunctionDecl *FD, const std::vector<unsigned> &Idx);
  void addArrayTypeDefinition(const clang::FunctionDecl *Pattern, DescriptorParam &DP);
  void walkAsArray(const clang::FunctionDecl *FD, const clang::FunctionDecl *Body,
                   const std::vector<unsigned> &Idx, unsigned I, UseSink &Scalar,
                   DescriptorParam &DP);

  /// The explicit instantiations of a kernel template, in its file and the
  /// main file: their parameter \p Index becomes a value too.
  void addExplicitInstantiationEdits(const clang::FunctionDecl *Pattern, unsigned Index,
                                     DescriptorParam &DP);

  UseWalker &Walker;
  /// Template patterns analysed for an invalid instantiation.
  std::set<const clang::FunctionDecl *> PatternsAnalysed;
  std::unique_ptr<ExplicitInstantiations> Explicit;
};

} // namespace tma::analysis
