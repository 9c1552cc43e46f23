#include "tma/SingleSide.h"
#include "tma/SkippedRanges.h"

#include "tma/SourceText.h"

#include "clang/AST/ASTContext.h"
#include "clang/Basic/LangStandard.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Basic/TargetInfo.h"
#include "clang/Lex/HeaderSearch.h"
#include "clang/Lex/HeaderSearchOptions.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Lex/PreprocessorOptions.h"
#include "llvm/Support/MemoryBuffer.h"

#include <map>
#include <set>

namespace tma {

/// Include directories the driver adds by itself (clang's resource headers,
/// the toolkit, the C++ library) are found again by the second pass's own
/// driver; only the user's are carried over.
static bool isDriverDirectory(llvm::StringRef Dir, llvm::StringRef CudaPath) {
  for (llvm::StringRef Prefix : {clangResourceDir(), llvm::StringRef("/usr/include"),
                                 llvm::StringRef("/usr/lib/gcc"),
                                 llvm::StringRef("/usr/local/include")})
    if (Dir.starts_with(Prefix))
      return true;
  return !CudaPath.empty() && Dir.starts_with(CudaPath);
}

CompileOptions otherSideCompileOptions(const clang::Preprocessor &PP,
                                       const SingleSideOptions &Opts) {
  CompileOptions C;
  CudaInstallation Cuda = findCuda("");
  C.CudaPath = Cuda.Path;
  C.CudaVersion = Cuda.Version;
  const clang::LangOptions &LO = PP.getLangOpts();
  // nvcc's macros are on in this pass only if the tool (or the user) put
  // them there; the other pass gets the same from the -D list below.
  C.NvccMacros = false;
  C.GpuArch = LO.CUDAIsDevice ? PP.getTargetInfo().getTargetOpts().CPU : Opts.OtherSideGpuArch;
  if (C.GpuArch.empty())
    C.GpuArch = Opts.OtherSideGpuArch;
  const clang::LangStandard &Std = clang::LangStandard::getLangStandardForKind(LO.LangStd);
  if (Std.isCPlusPlus())
    C.ExtraArgs.push_back(std::string("-std=") + Std.getName());
  if (LO.GPURelocatableDeviceCode)
    C.ExtraArgs.push_back("-fgpu-rdc");
  const clang::HeaderSearchOptions &HS = PP.getHeaderSearchInfo().getHeaderSearchOpts();
  for (const clang::HeaderSearchOptions::Entry &E : HS.UserEntries) {
    if (E.IsFramework)
      continue;
    switch (E.Group) {
    case clang::frontend::Angled:
      C.ExtraArgs.push_back("-I" + E.Path);
      break;
    case clang::frontend::Quoted:
      C.ExtraArgs.push_back("-iquote" + E.Path);
      break;
    case clang::frontend::System:
      if (!isDriverDirectory(E.Path, C.CudaPath)) {
        C.ExtraArgs.push_back("-isystem");
        C.ExtraArgs.push_back(E.Path);
      }
      break;
    default:
      break;
    }
  }
  const clang::PreprocessorOptions &PPO = PP.getPreprocessorOpts();
  for (const auto &[Macro, IsUndef] : PPO.Macros)
    C.ExtraArgs.push_back((IsUndef ? "-U" : "-D") + Macro);
  for (const std::string &Inc : PPO.Includes) {
    C.ExtraArgs.push_back("-include");
    C.ExtraArgs.push_back(Inc);
  }
  return C;
}

/// The other side's facts, or why they could not be had.
static std::optional<PassFacts> parseOtherSide(clang::ASTContext &Ctx,
                                               const clang::Preprocessor &PP,
                                               const SingleSideOptions &Opts,
                                               std::string &WhyNot) {
  const clang::SourceManager &SM = Ctx.getSourceManager();
  auto FE = SM.getFileEntryRefForID(SM.getMainFileID());
  if (!FE) {
    WhyNot = "the main file has no name";
    return std::nullopt;
  }
  std::string Main = normalizePath(FE->getName());
  CudaSide Other = Ctx.getLangOpts().CUDAIsDevice ? CudaSide::Host : CudaSide::Device;
  CompileOptions C = otherSideCompileOptions(PP, Opts);
  EngineOptions EO;
  EO.Analysis = Opts.Analysis;
  // The editor's buffer, not the file on disk: they may differ.
  std::map<std::string, std::string> Overlay = {
      {Main, SM.getBufferData(SM.getMainFileID()).str()}};
  PassRun R = runPass(Other, Main, Overlay, C, EO, /*Analyze=*/true);
  std::string Side = sideName(Other).str();
  if (!R.Ran) {
    WhyNot = "the " + Side + " side could not be parsed" +
             (R.Errors.empty() ? std::string() : ": " + R.Errors.front().Message);
    return std::nullopt;
  }
  if (!R.Errors.empty()) {
    WhyNot = "the " + Side + " side has compiler errors (first: " + R.Errors.front().Message + ")";
    return std::nullopt;
  }
  return std::move(R.Facts);
}

/// Each edit unit's fix goes on the warning of its first descriptor only:
/// the same edits on two warnings overlap, and clang-tidy then applies
/// neither. The unit's other descriptors get a note pointing there, and the
/// first warning a note naming each of them.
/// An edit two units share (the definition of `TmaDescriptorArray`, H14,
/// inserted once for two array kernels of a file) goes on the first
/// warning that has it: clang-tidy would apply an insertion twice.
static void attachUnitFixes(const RunResult &R, std::vector<SingleSideFinding> &Findings) {
  std::map<size_t, size_t> FirstOfUnit; // unit -> finding that carries its fix
  std::set<TextEdit> Given;
  for (size_t I = 0; I < Findings.size(); ++I) {
    const ParamDecision &D = R.ThePlan.Params[I];
    SingleSideFinding &F = Findings[I];
    if (!D.Rewrite || !F.NoFixReason.empty())
      continue;
    auto [First, New] = FirstOfUnit.emplace(D.Unit, I);
    if (New) {
      for (TextEdit &E : finalUnitEdits(R, D.Unit))
        if (Given.insert(E).second)
          F.Fix.push_back(std::move(E));
      continue;
    }
    const ParamDecision &Carrier = R.ThePlan.Params[First->second];
    F.Msg.Notes.push_back({"the fix of descriptor '" + Carrier.ParamName +
                               "' rewrites this one too: their edits are applied together",
                           Carrier.Where});
    Findings[First->second].Msg.Notes.push_back(
        {"this fix also rewrites descriptor '" + D.ParamName + "'", D.Where});
  }
}

std::vector<SingleSideFinding> analyzeSingleSide(clang::ASTContext &Ctx,
                                                 const clang::Preprocessor *PP,
                                                 const SingleSideOptions &Opts) {
  const clang::LangOptions &LO = Ctx.getLangOpts();
  llvm::StringRef Side = LO.CUDAIsDevice ? "device" : "host";
  std::vector<PassFacts> Facts = {analyzePass(Ctx, Side, Opts.Analysis)};
  std::string OtherSideMissing;
  if (LO.CUDA) {
    if (!Opts.ParseOtherSide || !PP)
      OtherSideMissing = "ParseOtherSide is off";
    else if (std::optional<PassFacts> Other = parseOtherSide(Ctx, *PP, Opts, OtherSideMissing))
      Facts.push_back(std::move(*Other));
  }
  // Issue 33: the ranges both sides skipped, when both are known.
  std::vector<SkippedRange> Inactive;
  if (Facts.size() == 2 && Opts.Skipped) {
    Facts[0].Skipped = skippedRanges(Ctx.getSourceManager(), LO, *Opts.Skipped, Facts[0]);
    Inactive = skippedByBoth(Facts[0].Skipped, Facts[1].Skipped);
  }
  RunResult R;
  PlanOptions PO;
  PO.InRoot = Opts.InRoot.empty() ? std::string() : normalizePath(Opts.InRoot);
  R.ThePlan = makePlan(Facts, PO);
  refuseInactiveBranches(R, Facts, Inactive);
  for (const EditUnit &U : R.ThePlan.Units)
    for (const TextEdit &E : U.Edits)
      if (!R.Original.count(E.File)) {
        auto B = llvm::MemoryBuffer::getFile(E.File);
        R.Original[E.File] = B ? (*B)->getBuffer().str() : std::string();
      }
  // Without the other side, code under __CUDA_ARCH__ that this side does not
  // see could hold a blocking use, or a launch.
  std::string Unseen;
  if (!OtherSideMissing.empty()) {
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
      F.Msg.Text += " (code under __CUDA_ARCH__ is not visible to this CUDA side, and the other "
                    "side was not parsed: " + OtherSideMissing + ")";
    if (D.Rewrite) {
      const EditUnit &U = R.ThePlan.Units[D.Unit];
      if (!Unseen.empty())
        F.NoFixReason = "'" + Unseen + "' has code under __CUDA_ARCH__ that only the other CUDA "
                        "side sees, and that side was not parsed (" + OtherSideMissing +
                        "): run tma-modernize on this file for the fix";
      else if (!Opts.RemoveAcquireFences && U.FencesRemoved)
        F.NoFixReason = "the rewrite removes acquire fences (" + std::to_string(U.FencesRemoved) +
                        " here) and RemoveAcquireFences is off";
    }
    Out.push_back(std::move(F));
  }
  attachUnitFixes(R, Out);
  return Out;
}

} // namespace tma
