// The engine for an editor or clang-tidy: one TU, already parsed on one CUDA
// side by the host tool. The other side is parsed here, from the flags this
// side was given, so that code under __CUDA_ARCH__ is seen too. Decisions
// are the same planner's; a fix is offered only when everything the decision
// rests on was seen.
#pragma once

#include "tma/Output.h"
#include "tma/PassAnalysis.h"

#include "clang/Basic/SourceLocation.h"

namespace clang {
class ASTContext;
class Preprocessor;
} // namespace clang

namespace tma {

struct SingleSideFinding {
  Message Msg;                 // tma-001 for a rewrite, the refusal otherwise
  std::vector<TextEdit> Fix;   // empty: no fix offered
  std::string NoFixReason;     // why not, when Msg is tma-001 and Fix is empty
};

struct SingleSideOptions {
  AnalysisOptions Analysis;
  std::string InRoot; // empty: anywhere outside system headers
  /// Parse the other CUDA side as well. Off: a file with code under
  /// __CUDA_ARCH__ gets warnings but no fix.
  bool ParseOtherSide = true;
  /// The GPU architecture of the device side when the host tool parsed the
  /// host side (clang-tidy's own pass is the device one unless told
  /// --cuda-host-only).
  std::string OtherSideGpuArch = "sm_90a";
  /// Off: a kernel whose rewrite removes acquire fences gets no fix (its
  /// fences are left for a person to remove with the parameter change).
  bool RemoveAcquireFences = true;
  /// The ranges this side's preprocessor skipped (a SkippedRecorder's);
  /// null: not known, and inactive branches are not checked (issue 33).
  const std::vector<clang::SourceRange> *Skipped = nullptr;
};

/// \p PP is the preprocessor of the parsed side (for its include paths and
/// macros); without it the other side is not parsed.
std::vector<SingleSideFinding> analyzeSingleSide(clang::ASTContext &Ctx,
                                                 const clang::Preprocessor *PP,
                                                 const SingleSideOptions &Opts);

/// The options of the other CUDA side's pass, rebuilt from this side's
/// preprocessor: language standard, user include paths, -D/-U, -include.
CompileOptions otherSideCompileOptions(const clang::Preprocessor &PP,
                                       const SingleSideOptions &Opts);

} // namespace tma
