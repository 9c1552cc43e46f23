// The type a run-time-indexed descriptor array becomes (issue 21), and where
// its definition goes (device/DescriptorArrayType.cpp).
#pragma once

#include "tma/SourceText.h"

#include "clang/AST/Decl.h"

#include <optional>
#include <string>

namespace tma::analysis {

/// The name of the array type: `TmaDescriptorArray<N>`.
inline constexpr const char *DescriptorArrayTypeName = "TmaDescriptorArray";

/// The definition of `TmaDescriptorArray<N>`, behind an include guard of
/// its own so that a definition in a header and one in a source (or two
/// headers) can meet in one translation unit.
const std::string &descriptorArrayDefinition();

/// The edit that defines the array type where \p Redecl (a kernel's
/// declaration) can see it, at file scope: after the last `#include` of its
/// file before it that is in the same conditional block, otherwise before
/// the file-scope declaration holding it. None when a macro spells that
/// position.
std::optional<TextEdit> descriptorArrayDefinitionFor(const clang::FunctionDecl *Redecl,
                                                     const SourceText &ST);

/// The parameter text of the array form: `const __grid_constant__
/// TmaDescriptorArray<@TMA_N@> name`.
std::string descriptorArrayParam(llvm::StringRef Name);

} // namespace tma::analysis
