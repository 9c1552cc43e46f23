#include "tma/SingleSide.h"

#include "tma/SourceText.h"

#include "clang/AST/ASTContext.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/Support/MemoryBuffer.h"

namespace tma {

std::vector<SingleSideFinding> analyzeSingleSide(clang::ASTContext &Ctx,
                                                 const SingleSideOptions &Opts) {
  const clang::LangOptions &LO = Ctx.getLangOpts();
  llvm::StringRef Side = LO.CUDAIsDevice ? "device" : "host";
  RunResult R;
  PlanOptions PO;
  PO.InRoot = Opts.InRoot.empty() ? std::string() : normalizePath(Opts.InRoot);
  R.ThePlan = makePlan({analyzePass(Ctx, Side, Opts.Analysis)}, PO);
  for (const EditUnit &U : R.ThePlan.Units)
    for (const TextEdit &E : U.Edits)
      if (!R.Original.count(E.File)) {
        auto B = llvm::MemoryBuffer::getFile(E.File);
        R.Original[E.File] = B ? (*B)->getBuffer().str() : std::string();
      }
  // The other CUDA side is not parsed here: code under __CUDA_ARCH__ that
  // this side does not see could hold a blocking use, or a launch.
  std::string Unseen;
  if (LO.CUDA) {
    const clang::SourceManager &SM = Ctx.getSourceManager();
    if (llvm::StringRef(SM.getBufferData(SM.getMainFileID())).contains("__CUDA_ARCH__"))
      if (auto FE = SM.getFileEntryRefForID(SM.getMainFileID()))
        Unseen = FE->getName().str();
    for (const auto &[File, Text] : R.Original)
      if (llvm::StringRef(Text).contains("__CUDA_ARCH__"))
        Unseen = File;
  }

  std::vector<Message> Msgs = messagesFor(R, /*Applied=*/false);
  std::vector<SingleSideFinding> Out;
  for (size_t I = 0; I < Msgs.size(); ++I) {
    SingleSideFinding F;
    F.Msg = Msgs[I];
    const ParamDecision &D = R.ThePlan.Params[I];
    if (!D.Rewrite && !Unseen.empty())
      F.Msg.Text += " (code under __CUDA_ARCH__ is not visible to this CUDA side: run "
                    "tma-modernize on the file to see both)";
    if (D.Rewrite) {
      if (!Unseen.empty())
        F.NoFixReason = "'" + Unseen + "' has code under __CUDA_ARCH__ that only the other CUDA "
                        "side sees: run tma-modernize on this file for the fix";
      if (F.NoFixReason.empty()) {
        F.Fix = finalUnitEdits(R, D.Unit);
      }
    }
    Out.push_back(std::move(F));
  }
  return Out;
}

} // namespace tma
