// Launch forms: a kernel launch with its arguments in parameter order,
// whatever its spelling (`<<<>>>`, the `cudaLaunchKernelEx` template).
#pragma once

#include "clang/AST/Decl.h"
#include "clang/AST/ExprCXX.h"

#include <optional>
#include <vector>

namespace tma::analysis {

/// A launch of a kernel with its arguments in parameter order, whatever the
/// form: `k<<<...>>>(args)` or `cudaLaunchKernelEx(&config, k, args...)`.
struct KernelLaunch {
  const clang::Expr *E = nullptr;
  const clang::FunctionDecl *Kernel = nullptr;
  const clang::Expr *KernelRef = nullptr; // the kernel as written in a launch API call
  std::vector<const clang::Expr *> Args;
  llvm::StringRef Form;
  /// The index of the call's argument that is the kernel's first one.
  unsigned FirstArg = 0;
  /// Where the arguments are written, when not in the launch itself: the
  /// declaration of a `void* args[] = {&a, &b}` array (H4). Args then holds
  /// the variables whose addresses fill the slots (null for other slots).
  const clang::Stmt *ArgsDecl = nullptr;
  /// A call of a launcher whose body another translation unit holds (H7
  /// across TUs): Kernel is null, and the launcher's parameter stands for
  /// the kernel's until the planner joins them.
  const clang::FunctionDecl *ForeignLauncher = nullptr;
};

/// The variable a `<<<>>>` launch calls through (`k<<<...>>>` or
/// `(*k)<<<...>>>`), when its callee is a function-pointer variable.
const clang::VarDecl *functionPointerCallee(const clang::CUDAKernelCallExpr *KC);

/// \p S as a launch of a kernel with its arguments one to one, or nothing.
std::optional<KernelLaunch> asLaunch(const clang::Stmt *S);

} // namespace tma::analysis
