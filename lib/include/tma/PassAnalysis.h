// One analysis pass over one CUDA side of a translation unit: finds the
// descriptor parameters of kernels, classifies every use, follows launches
// back to the host descriptor, and proposes edits. It decides nothing: the
// Planner does, from the facts of every pass.
#pragma once

#include "tma/Facts.h"

namespace clang {
class ASTContext;
}

namespace tma {

struct AnalysisOptions {
  /// Bytes of kernel parameters the target accepts (32764 from CUDA 12.1).
  unsigned ParamSpaceLimit = 32764;
};

PassFacts analyzePass(clang::ASTContext &Ctx, llvm::StringRef Side,
                      const AnalysisOptions &Opts);

} // namespace tma
