// Whether a run covers the whole program (every translation unit that could
// call a function with external linkage), from its sources and database.
#pragma once

#include "tma/CompileDatabase.h"
#include "tma/PassAnalysis.h"

#include <string>
#include <vector>

namespace tma {

/// Whole when every entry of \p DB is among \p Sources; WholeIfDefinesMain
/// for one source and no database; otherwise Partial, with the database's
/// entries not in the run in \p NotInRun (relative to the database's
/// directory, sorted).
ProgramScope programScopeOf(const CompileDatabase &DB, const std::vector<std::string> &Sources,
                            std::vector<std::string> &NotInRun);

} // namespace tma
