// One translation unit's facts as a versioned JSON document (llvm::json):
// what --export-facts writes per TU, --plan-from reads and the facts cache
// keeps. Every field of TUFacts is written, so a document read back plans
// exactly as the facts it was written from.
#pragma once

#include "tma/Engine.h"

#include "llvm/Support/Error.h"

#include <string>

namespace tma {

/// The format's name and version; a document of another version is not read
/// (a change of Facts.h that the planner reads bumps it).
inline constexpr const char *FactsFormatName = "tma-modernize-facts";
inline constexpr unsigned FactsFormatVersion = 4;

/// \p Unit as a JSON document (pretty-printed, stable key order).
std::string factsToJson(const TUFacts &Unit);

/// The facts in \p Text; an error when it is not a document of this format
/// and version, or a field is missing or of the wrong type.
llvm::Expected<TUFacts> factsFromJson(llvm::StringRef Text);

} // namespace tma
