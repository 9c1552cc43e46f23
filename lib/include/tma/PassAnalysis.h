// One analysis pass over one CUDA side of a translation unit: finds the
// descriptor parameters of kernels, classifies every use, follows launches
// back to the host descriptor, and proposes edits. It decides nothing: the
// Planner does, from the facts of every pass.
#pragma once

#include "tma/Facts.h"

#include <map>

namespace clang {
class ASTContext;
}

namespace tma {

/// How much of the program a run sees. A function with external linkage
/// that no header declares may be called from a translation unit the run
/// does not see, unless the run covers the whole program.
enum class ProgramScope {
  Partial,
  /// Every entry of the compile database is in the run.
  Whole,
  /// One source and no compile database: the whole program when that
  /// source defines `main`.
  WholeIfDefinesMain,
};

struct AnalysisOptions {
  /// Bytes of kernel parameters the target accepts (32764 from CUDA 12.1).
  unsigned ParamSpaceLimit = 32764;
  ProgramScope Scope = ProgramScope::Partial;
  /// The run has one translation unit: with a whole-program scope, nothing
  /// else can name a variable or function of it.
  bool SingleUnit = false;
  /// Partial with a compile database: its translation units not in the run.
  std::vector<std::string> UnitsNotInRun;
  /// With a compile database (UnitsKnown): each of its translation units
  /// (normalised) that may involve a descriptor at all (the prefilter), and
  /// every user file it may include (userFilesOf: a superset, read by text;
  /// `*` when that cannot be known), in the run or not. Who else can reach a
  /// header's declarations: a unit that never spells a descriptor type
  /// cannot hold, pass or read a descriptor pointer.
  bool UnitsKnown = false;
  std::map<std::string, std::vector<std::string>> UnitIncludes;
};

PassFacts analyzePass(clang::ASTContext &Ctx, llvm::StringRef Side,
                      const AnalysisOptions &Opts);

} // namespace tma
