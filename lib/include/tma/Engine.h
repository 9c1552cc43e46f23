// One translation unit, end to end: parse both CUDA sides, analyse, plan,
// verify the edited text on both sides, and hand back the accepted edits.
#pragma once

#include "tma/CompileArgs.h"
#include "tma/PassAnalysis.h"
#include "tma/Planner.h"

#include <map>
#include <string>
#include <vector>

namespace tma {

struct EngineOptions {
  CompileOptions Compile;
  AnalysisOptions Analysis;
  bool Verify = true;
  /// Any compiler error refuses the whole TU (the pre-tolerance behaviour).
  /// Otherwise only descriptors whose code holds an error are refused.
  bool Strict = false;
  std::string InRoot; // normalised; empty: no bound
};

struct TUResult {
  std::string File;
  /// The TU could not be processed (unreadable, or it does not parse):
  /// nothing in it is changed.
  bool Failed = false;
  std::string FailMessage;
  std::vector<CompilerError> Errors; // the original's compiler errors, both sides
  /// Descriptors refused because a compiler error lies in code they rely on.
  unsigned RefusedForErrors = 0;
  Plan ThePlan;
  std::map<std::string, std::vector<TextEdit>> Edits; // accepted, by file
  std::map<std::string, std::string> Original;        // contents of edited files
  unsigned VerifyParses = 0;
};

/// Compiler errors of one side of \p MainFile, with \p Overlay replacing the
/// contents of files (the main file included), and optionally its facts.
struct PassRun {
  bool Ran = false; // false: the compiler could not even start
  std::vector<CompilerError> Errors;
  PassFacts Facts;
};
PassRun runPass(CudaSide Side, const std::string &MainFile,
                const std::map<std::string, std::string> &Overlay,
                const EngineOptions &Opts, bool Analyze);

TUResult processTranslationUnit(const std::string &File, const EngineOptions &Opts);

/// Edits made to errors' positions: where an error of the original would be
/// reported in the edited text.
std::vector<CompilerError>
shiftErrors(const std::vector<CompilerError> &Errors,
            const std::map<std::string, std::vector<TextEdit>> &Edits);

} // namespace tma
