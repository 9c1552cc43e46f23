// References to a kernel other than its launches (host/KernelRefs.cpp).
#pragma once

#include "../core/PassContext.h"

namespace tma::analysis {


/// References to a kernel other than its launches, and lookups by name:
/// each either accounted for or a blocker (host/KernelRefs.cpp).
class KernelRefs : public PassComponent {
public:
  explicit KernelRefs(PassContext &P) : PassComponent(P) {}

  void analyzeKernelRef(const clang::DeclRefExpr *R, const clang::FunctionDecl *Fn);
  /// Is \p E (a kernel, or a pointer holding one) the kernel argument of a
  /// call that takes a kernel without launching it (the KernelQuery rows:
  /// attributes, occupancy), through parentheses, casts and, when
  /// \p ThroughAddressOf, a `&`? Such a call neither launches the kernel
  /// nor keeps it.
  bool isQueryArgument(const clang::Expr *E, const clang::FunctionDecl *Fn,
                       bool ThroughAddressOf);
  /// A kernel fetched by name is launched through an argument array this
  /// tool cannot see: blocks every kernel whose name may match.
  void blockNameLookups();
};

} // namespace tma::analysis
