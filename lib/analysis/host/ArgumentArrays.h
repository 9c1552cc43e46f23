// H4: launches through argument arrays (host/ArgumentArrays.cpp).
#pragma once

#include "../core/PassContext.h"

namespace tma::analysis {

struct CudaApi;


/// H4: launches through argument arrays (`cudaLaunchKernel`,
/// `cuLaunchKernel`, ...) and CUfunction handles (host/ArgumentArrays.cpp).
class ArgumentArrays : public PassComponent {
public:
  explicit ArgumentArrays(PassContext &P) : PassComponent(P) {}

  void resolveArrayLaunch(const clang::CallExpr *CE, const clang::FunctionDecl *Fn);

private:
  /// The kernel a CUfunction handle holds: bound once by
  /// cudaGetFuncBySymbol(&f, kernel), or initialised from one local handle
  /// so bound, and otherwise only launched or queried (\p CopiedTo: the
  /// handle whose initialiser copies this one, a use that is allowed).
  const clang::FunctionDecl *kernelOfHandle(const clang::VarDecl *F,
                                            const clang::FunctionDecl *Fn,
                                            const clang::DeclRefExpr *&Bound,
                                            std::string &WhyNot,
                                            const clang::VarDecl *CopiedTo = nullptr);
  /// The kernel \p CE launches (named, or held by a CUfunction handle), and
  /// in \p Sym the reference that names it; null when it is not seen.
  const clang::FunctionDecl *launchedKernel(const clang::CallExpr *CE, const CudaApi &Api,
                                            const clang::FunctionDecl *Fn,
                                            const clang::DeclRefExpr *&Sym);
  /// Records launch \p CE of \p K as not rewritable, for each descriptor,
  /// with the reason \p Why filled with \p Args.
  void refuseArrayLaunch(const clang::CallExpr *CE, const clang::FunctionDecl *K,
                         const clang::FunctionDecl *Fn, ReasonID Why,
                         llvm::ArrayRef<std::string> Args, clang::SourceLocation L);
  /// The local array of \p CE's arguments, one slot per parameter of \p K
  /// and read only by launches; null (refused) otherwise.
  const clang::VarDecl *argumentArray(const clang::CallExpr *CE, const CudaApi &Api,
                                      const clang::FunctionDecl *K,
                                      const clang::FunctionDecl *Fn);
  /// Is \p R (an argument array) the arguments of a launch?
  bool isLaunchArguments(const clang::DeclRefExpr *R, const clang::FunctionDecl *Fn);
  /// Each descriptor slot of \p Array is `&variable`: into KL.Args; false
  /// (refused) otherwise.
  bool readDescriptorSlots(KernelLaunch &KL, const clang::VarDecl *Array,
                           const clang::FunctionDecl *Fn);
};

} // namespace tma::analysis
