// The engine for an editor or clang-tidy: one TU, one CUDA side, already
// parsed by the host tool. Decisions are the same planner's; a fix is offered
// only when this side can see everything the decision rests on.
#pragma once

#include "tma/Output.h"
#include "tma/PassAnalysis.h"

namespace clang {
class ASTContext;
}

namespace tma {

struct SingleSideFinding {
  Message Msg;                 // tma-001 for a rewrite, the refusal otherwise
  std::vector<TextEdit> Fix;   // empty: no fix offered
  std::string NoFixReason;     // why not, when Msg is tma-001 and Fix is empty
};

struct SingleSideOptions {
  AnalysisOptions Analysis;
  std::string InRoot; // empty: anywhere outside system headers
};

std::vector<SingleSideFinding> analyzeSingleSide(clang::ASTContext &Ctx,
                                                 const SingleSideOptions &Opts);

} // namespace tma
