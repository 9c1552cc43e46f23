// Machine-readable reports of a run: JSON (every descriptor, its decision,
// diagnostic ID and edits) and SARIF 2.1.0 (for code scanning), both built
// from the one diagnostic table.
#pragma once

#include "tma/Output.h"

#include <string>

namespace tma {

std::string jsonReport(const RunResult &R, const Summary &S, bool Applied);
std::string sarifReport(const RunResult &R, bool Applied);

} // namespace tma
