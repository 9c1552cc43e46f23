// nvcc accepts code that clang rejects. Such an error must not block a
// descriptor unless it could hide part of what the descriptor's rewrite rests
// on. This decides, for each compiler error of one pass, whether the code
// around it provably carries no descriptor.
#pragma once

#include "tma/Facts.h"

#include <vector>

namespace clang {
class ASTContext;
class Preprocessor;
} // namespace clang

namespace tma {

/// Sets CompilerError::Contained for each error of this pass. An error is
/// contained when it lies inside a function body, not in a macro expansion,
/// and the source of the statement around it (the full expression, or the
/// text between two statements where clang dropped one) names nothing that
/// can carry a descriptor: no variable, parameter, field or function whose
/// type mentions CUtensorMap, no kernel, buffer or host descriptor named in
/// \p Facts, and no user macro whose body names one. Such an error cannot
/// hide a use, a launch or a copy of a descriptor.
///
/// Returns the errors that may hide a descriptor altogether: in the user's
/// files (not in a system header), outside every function body (a kernel
/// whose parameter list does not parse is dropped from the AST), or in a
/// statement that names a descriptor type (CUtensorMap, or a user typedef,
/// alias or record of one); these are never contained. No decision can be
/// trusted to have seen every descriptor of such a file.
///
/// One kind of error is neither: a missing `template` keyword in a dependent
/// name such as `typename T::tile<2, 2>`, which nvcc infers. clang reports it
/// with a fix-it that inserts the keyword and parses on as if it were written,
/// so the AST is the one nvcc compiles: it hides nothing and is contained.
std::vector<CompilerError> markContainedErrors(clang::ASTContext &Ctx, clang::Preprocessor &PP,
                                               const PassFacts &Facts,
                                               std::vector<CompilerError> &Errors);

} // namespace tma
