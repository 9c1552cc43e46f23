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
void markContainedErrors(clang::ASTContext &Ctx, clang::Preprocessor &PP,
                         const PassFacts &Facts, std::vector<CompilerError> &Errors);

} // namespace tma
