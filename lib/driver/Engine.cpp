#include "tma/Engine.h"

#include "tma/ErrorContainment.h"
#include "tma/FactsCache.h"
#include "tma/Format.h"
#include "tma/OutsideBuilds.h"
#include "tma/Output.h"
#include "tma/Prefilter.h"
#include "tma/SideParse.h"
#include "tma/SkippedRanges.h"
#include "tma/SourceText.h"

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/DiagnosticLex.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Core/Replacement.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/MemoryBuffer.h"

#include <mutex>
#include <set>
#include <thread>

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/thread.h"

using namespace clang;

namespace tma {
/// Could a TU with these facts be edited? Only then is its preamble kept
/// for the verification parse.
static bool mayBeEdited(const PassFacts &F) {
  return !F.Params.empty() || !F.Launches.empty() || !F.Buffers.empty() || !F.Launchers.empty();
}

PassRun runPass(CudaSide Side, const std::string &MainFile,
                const std::map<std::string, std::string> &Overlay,
                const CompileOptions &Compile, const EngineOptions &Opts, bool Analyze,
                PreambleUse Use) {
  PassRun R;
  auto Main = Overlay.find(MainFile);
  std::string MainText;
  if (Main == Overlay.end()) {
    auto Buf = llvm::MemoryBuffer::getFile(MainFile);
    if (!Buf)
      return R;
    MainText = (*Buf)->getBuffer().str();
  } else {
    MainText = Main->second;
  }
  if (!Opts.Preambles)
    Use = PreambleUse::None;
  ParsedSide P = parseSide(Side, MainFile, MainText, Overlay, Compile, Opts.Preambles.get(), Use);
  R.Errors = std::move(P.Errors);
  if (!P.AST || P.Untrustworthy)
    return R;
  R.Ran = true;
  R.ReadPreamble = P.Preamble && !P.Built;
  if (Analyze) {
    AnalysisOptions Analysis = Opts.Analysis;
    Analysis.ParamSpaceLimit = paramSpaceLimitFor(Compile, Analysis.ParamSpaceLimit);
    R.Facts = analyzePass(P.AST->getASTContext(), sideName(Side), Analysis);
    R.Facts.Skipped = skippedRanges(P.AST->getPreprocessor(), R.Facts);
    R.MayHide =
        markContainedErrors(P.AST->getASTContext(), P.AST->getPreprocessor(), R.Facts, R.Errors);
    collectFilesRead(P, R.Deps, R.Aliases);
    if (P.Built && mayBeEdited(R.Facts))
      Opts.Preambles->keep(MainFile, Side, P.Built);
  }
  return R;
}

std::vector<CompilerError>
shiftErrors(const std::vector<CompilerError> &Errors,
            const std::map<std::string, std::vector<TextEdit>> &Edits) {
  std::map<std::string, tooling::Replacements> ByFile;
  for (const auto &[File, List] : Edits)
    for (const TextEdit &E : List)
      llvm::consumeError(ByFile[File].add(
          tooling::Replacement(File, E.Offset, E.Length, E.Text)));
  std::vector<CompilerError> Out = Errors;
  for (CompilerError &E : Out) {
    auto It = ByFile.find(E.Where.File);
    if (It != ByFile.end())
      E.Where.Offset = It->second.getShiftedCodePosition(E.Where.Offset);
    E.Where.Line = E.Where.Column = 0;
  }
  return Out;
}

std::set<std::pair<SourcePoint, std::string>>
errorSet(const std::vector<CompilerError> &Errors) {
  std::set<std::pair<SourcePoint, std::string>> S;
  for (const CompilerError &E : Errors) {
    SourcePoint P = E.Where;
    P.Line = P.Column = 0;
    S.insert({P, E.Message});
  }
  return S;
}

/// Both sides, in parallel: the two parses are independent.
static std::pair<PassRun, PassRun> runBothSides(const std::string &File,
                                                const std::map<std::string, std::string> &Overlay,
                                                const CompileOptions &Compile,
                                                const EngineOptions &Opts, bool Analyze,
                                                PreambleUse Use) {
  PassRun Device, Host;
  // Each side on a thread with a large stack: clang's parser and the
  // analysis (ParentMap) recurse once per operator of an expression, and a
  // generated 60 000-term expression overflows a default 8 MiB stack.
  const std::optional<unsigned> StackBytes = 256u << 20;
  llvm::thread D(StackBytes, [&] {
    Device = runPass(CudaSide::Device, File, Overlay, Compile, Opts, Analyze, Use);
  });
  llvm::thread H(StackBytes, [&] {
    Host = runPass(CudaSide::Host, File, Overlay, Compile, Opts, Analyze, Use);
  });
  D.join();
  H.join();
  return {std::move(Device), std::move(Host)};
}

static std::string parseForNewError(const TUStatus &TU,
                                    const std::map<std::string, std::vector<TextEdit>> &Edits,
                                    const std::map<std::string, std::string> &Overlay,
                                    const EngineOptions &Opts, unsigned &Parses);

/// The first error an edited TU has that its original did not; empty when
/// the edits introduce none.
static std::string newError(const TUStatus &TU, const RunResult &R,
                            const std::map<std::string, std::vector<TextEdit>> &Edits,
                            const EngineOptions &Opts, unsigned &Parses) {
  std::map<std::string, std::string> Overlay;
  for (const auto &[File, List] : Edits) {
    auto Orig = R.Original.find(File);
    if (Orig == R.Original.end())
      return "no original contents for '" + File + "'";
    llvm::Expected<std::string> New = applyEdits(Orig->second, File, List);
    if (!New)
      return "edits do not apply: " + llvm::toString(New.takeError());
    Overlay[File] = *New;
    if (auto A = TU.Aliases.find(File); A != TU.Aliases.end())
      for (const std::string &Path : A->second)
        Overlay[Path] = *New;
  }
  if (Opts.CacheDir.empty())
    return parseForNewError(TU, Edits, Overlay, Opts, Parses);
  // The same edits on the same inputs were verified by an earlier run.
  FileHashes Hashes;
  std::string Key = verificationKey(TU, Edits, Overlay, Hashes);
  if (std::optional<std::string> Known = loadVerification(Opts.CacheDir, Key))
    return *Known;
  std::string Outcome = parseForNewError(TU, Edits, Overlay, Opts, Parses);
  saveVerification(Opts.CacheDir, Key, Outcome);
  return Outcome;
}

/// Both sides of \p TU parsed with \p Overlay: the first error that the
/// original did not have (at its position shifted by \p Edits), or "".
static std::string parseForNewError(const TUStatus &TU,
                                    const std::map<std::string, std::vector<TextEdit>> &Edits,
                                    const std::map<std::string, std::string> &Overlay,
                                    const EngineOptions &Opts, unsigned &Parses) {
  auto [Device, Host] = runBothSides(TU.File, Overlay, TU.Compile, Opts, /*Analyze=*/false,
                                     PreambleUse::Reuse);
  Parses += 2;
  for (const PassRun *P : {&Device, &Host})
    if (P->ReadPreamble)
      Opts.Preambles->countReuse();
  if (!Device.Ran || !Host.Ran)
    return "the edited translation unit '" + TU.File + "' could not be parsed";
  auto Expected = errorSet(shiftErrors(TU.Errors, Edits));
  for (const PassRun *P : {&Device, &Host})
    for (const CompilerError &E : P->Errors) {
      SourcePoint W = E.Where;
      W.Line = W.Column = 0;
      if (!Expected.count({W, E.Message}))
        return (E.Where.File.empty() ? std::string("<command line>")
                                     : E.Where.File + ":" + std::to_string(E.Where.Line) +
                                           ":" + std::to_string(E.Where.Column)) +
               ": error: " + E.Message + " (" +
               sideName(P == &Device ? CudaSide::Device : CudaSide::Host).str() + " side)";
    }
  return std::string();
}

/// Whether \p TU reads one of the files of \p Edits.
static bool touches(const TUStatus &TU, const std::map<std::string, std::vector<TextEdit>> &Edits) {
  return llvm::any_of(Edits, [&](const auto &KV) {
    return KV.first == TU.File || llvm::is_contained(TU.Deps, KV.first);
  });
}

/// New errors in any TU that reads an edited file.
static std::string newErrorInRun(const RunResult &R,
                                 const std::map<std::string, std::vector<TextEdit>> &Edits,
                                 const EngineOptions &Opts, unsigned &Parses) {
  auto NewErrorIn = [&](const TUStatus &TU) {
    return TU.Failed || !touches(TU, Edits) ? std::string() : newError(TU, R, Edits, Opts, Parses);
  };
  for (const TUStatus &TU : R.TUs)
    if (std::string Err = NewErrorIn(TU); !Err.empty())
      return Err;
  for (const TUStatus &TU : R.OutsideUnits)
    if (std::string Err = NewErrorIn(TU); !Err.empty())
      return Err + ", in '" + TU.File + "', a unit of the compile database that is not in this run";
  for (const TUStatus &TU : R.OutsideBuilds) {
    if (!touches(TU, Edits))
      continue;
    if (std::string Err = newError(TU, R, Edits, Opts, Parses); !Err.empty())
      return Err + ", in '" + TU.File +
             "', a source under the source root that the compile database does not build "
             "(checked with the default flags)";
  }
  return std::string();
}

/// The errors of both sides of a TU. The two sides mostly report the same
/// errors: each is kept once, contained only if both sides found it so.
static std::vector<CompilerError> bothSidesErrors(const PassRun &Device, const PassRun &Host) {
  std::vector<CompilerError> All = Device.Errors;
  llvm::append_range(All, Host.Errors);
  llvm::sort(All);
  std::vector<CompilerError> Unique;
  for (CompilerError &E : All) {
    if (!Unique.empty() && Unique.back().Where == E.Where && Unique.back().Message == E.Message)
      Unique.back().Contained = Unique.back().Contained && E.Contained;
    else
      Unique.push_back(std::move(E));
  }
  return Unique;
}

/// \p MayEdit: the TU spells a descriptor type, so its header parse is kept
/// for a verification parse.
static void analyzeOne(TUStatus &TU, std::vector<PassFacts> &Facts, const EngineOptions &Opts,
                       bool MayEdit) {
  if (!llvm::sys::fs::exists(TU.File)) {
    TU.Failed = true;
    TU.FailMessage = "cannot read '" + TU.File + "': no such file";
    return;
  }
  auto Buf = llvm::MemoryBuffer::getFile(TU.File);
  if (!Buf) {
    TU.Failed = true;
    TU.FailMessage = "cannot read '" + TU.File + "': " + Buf.getError().message();
    return;
  }
  auto [Device, Host] = runBothSides(TU.File, {}, TU.Compile, Opts, /*Analyze=*/true,
                                     MayEdit ? PreambleUse::Build : PreambleUse::None);
  TU.Errors = bothSidesErrors(Device, Host);
  // An error either side says may hide a descriptor counts, once.
  for (const PassRun *P : {&Device, &Host})
    for (const CompilerError &E : P->MayHide)
      if (llvm::none_of(TU.MayHide, [&](const CompilerError &Seen) {
            return Seen.Where == E.Where && Seen.Message == E.Message;
          }))
        TU.MayHide.push_back(E);
  llvm::sort(TU.MayHide);
  for (const PassRun *P : {&Device, &Host})
    for (const auto &[Real, Opened] : P->Aliases)
      TU.Aliases[Real].insert(Opened.begin(), Opened.end());
  TU.Deps = Device.Deps;
  llvm::append_range(TU.Deps, Host.Deps);
  llvm::sort(TU.Deps);
  TU.Deps.erase(std::unique(TU.Deps.begin(), TU.Deps.end()), TU.Deps.end());
  if (!Device.Ran || !Host.Ran || (Opts.Strict && !TU.Errors.empty())) {
    TU.Failed = true;
    TU.FailMessage = "'" + TU.File + "' does not parse (" + std::to_string(TU.Errors.size()) +
                     " compiler error" + (TU.Errors.size() == 1 ? "" : "s") +
                     "); nothing in it is changed";
    return;
  }
  Facts.push_back(std::move(Device.Facts));
  Facts.push_back(std::move(Host.Facts));
}

/// Names of the kernels with a descriptor parameter that \p Units found in
/// their own right (the second round's own finds do not widen it), without
/// qualifiers or template arguments.
static std::vector<std::string> kernelNamesFound(const std::vector<TUFacts> &Units) {
  std::vector<std::string> Names;
  for (const TUFacts &U : Units)
    for (const PassFacts &P : U.Passes)
      for (const DescriptorParam &D : P.Params)
        if (!U.SecondRound)
          Names.push_back(simpleName(D.KernelName));
  llvm::sort(Names);
  Names.erase(std::unique(Names.begin(), Names.end()), Names.end());
  return Names;
}

namespace {
/// What the TUs of one call share: the options, the file hashes of the
/// cache, and the counts.
struct UnitWork {
  const EngineOptions &Opts;
  FileHashes Hashes;
  std::mutex CountLock;
  AnalysisCounts Counts;
  bool fingerprints() const { return Opts.Fingerprint || !Opts.CacheDir.empty(); }
  void count(unsigned AnalysisCounts::*Which) {
    std::lock_guard<std::mutex> Hold(CountLock);
    ++(Counts.*Which);
  }
};
} // namespace

/// The pre-filter, or the full analysis, of one TU (not from the cache).
static void computeFacts(TUFacts &U, bool PrefilterApplies, UnitWork &W) {
  TUStatus &TU = U.Status;
  if (PrefilterApplies) {
    PrefilterResult P = prefilter(TU.File, TU.Compile);
    TU.PrefilterReason = P.Reason;
    TU.PrefilterFiles = std::move(P.Files);
    if (!P.MayMatter) {
      TU.Skipped = true;
      W.count(&AnalysisCounts::Skipped);
      return;
    }
  }
  // Without the pre-filter, its text scan still tells which TUs may be
  // edited: only those precompile their headers.
  bool MayEdit = PrefilterApplies || (W.Opts.Preambles && prefilter(TU.File, TU.Compile).MayMatter);
  analyzeOne(TU, U.Passes, W.Opts, MayEdit);
  W.count(&AnalysisCounts::Analysed);
}

/// One TU's facts: the cached ones while its inputs are unchanged, computed
/// (and cached) otherwise.
static void factsOfUnit(TUFacts &U, bool PrefilterApplies, UnitWork &W) {
  TUInput In{U.Status.File, U.Status.Compile, U.Status.Notes};
  std::string Key;
  if (W.fingerprints())
    Key = factsKey(In, W.Opts, PrefilterApplies);
  if (!W.Opts.CacheDir.empty())
    if (std::optional<TUFacts> Cached =
            loadCachedFacts(W.Opts.CacheDir, U.Status.File, Key, PrefilterApplies, W.Hashes)) {
      U = std::move(*Cached);
      U.Status.Notes = In.Notes; // from the database of this run
      W.count(&AnalysisCounts::Reused);
      return;
    }
  computeFacts(U, PrefilterApplies, W);
  if (!W.fingerprints())
    return;
  U.Inputs = fingerprintOf(std::move(Key), U.Status, W.Hashes);
  if (!W.Opts.CacheDir.empty()) {
    llvm::sys::fs::create_directories(W.Opts.CacheDir);
    llvm::SmallString<256> Path(W.Opts.CacheDir);
    llvm::sys::path::append(Path, factsFileName(U.Status.File, PrefilterApplies));
    // A cache that cannot be written costs time, not correctness.
    llvm::consumeError(writeFactsFile(std::string(Path), U));
  }
}

/// The pre-filter's second round: a skipped TU that names a kernel found by
/// \p Units (a launch through a header-less declaration, say) is analysed.
static void analyzeNamedSkipped(std::vector<TUFacts> &Units, UnitWork &W,
                                llvm::DefaultThreadPool &Pool) {
  std::vector<std::string> KernelNames = kernelNamesFound(Units);
  for (size_t I = 0; I < Units.size() && !KernelNames.empty(); ++I)
    if (Units[I].Status.Skipped && filesMention(Units[I].Status.PrefilterFiles, KernelNames))
      Pool.async([&, I] {
        TUFacts &U = Units[I];
        U.Status.Skipped = false;
        U.Status.PrefilterReason = "it names a kernel with a descriptor parameter";
        U.SecondRound = true;
        factsOfUnit(U, /*PrefilterApplies=*/false, W);
        U.SecondRound = true; // also when taken from the cache
      });
  Pool.wait();
}

static void addCounts(AnalysisCounts *To, const AnalysisCounts &From) {
  if (!To)
    return;
  To->Analysed += From.Analysed;
  To->Reused += From.Reused;
  To->Skipped += From.Skipped;
}

/// Step 1: every TU, both sides; facts kept per TU so the order is the
/// input's. TUs that the pre-filter rules out wait for the second round.
std::vector<TUFacts> analyzeUnits(const std::vector<TUInput> &Inputs, const EngineOptions &Opts,
                                  unsigned Jobs, AnalysisCounts *Counts) {
  std::vector<TUFacts> Units(Inputs.size());
  for (size_t I = 0; I < Inputs.size(); ++I)
    Units[I].Status = {normalizePath(Inputs[I].File), Inputs[I].Compile, Inputs[I].Notes};
  UnitWork W{Opts};
  std::mutex ProgressLock;
  unsigned Started = 0;
  llvm::DefaultThreadPool Pool(llvm::hardware_concurrency(std::max(1u, Jobs)));
  for (size_t I = 0; I < Units.size(); ++I)
    Pool.async([&, I] {
      if (Opts.Progress) {
        std::lock_guard<std::mutex> Hold(ProgressLock);
        Opts.Progress(++Started, Units.size(), Units[I].Status.File);
      }
      factsOfUnit(Units[I], Opts.Prefilter, W);
    });
  Pool.wait();
  analyzeNamedSkipped(Units, W, Pool);
  addCounts(Counts, W.Counts);
  return Units;
}

/// Error tolerance: nvcc accepts code clang rejects, so an error elsewhere
/// must not block a rewrite that can be proven. A descriptor whose kernel,
/// followed helpers or launching functions hold an error is refused: the
/// error may hide a use. An error whose statement provably carries no
/// descriptor (Contained) blocks only a unit that edits it. Verification
/// then demands exactly the original errors, at their shifted positions, and
/// no new one. Returns the refusals, by parameter key.
static std::map<std::string, Blocker> refusalsForErrors(RunResult &R) {
  std::map<std::string, Blocker> Preblocked;
  std::vector<CompilerError> AllErrors;
  for (const TUStatus &TU : R.TUs)
    llvm::append_range(AllErrors, TU.Errors);
  for (size_t I = 0; I < R.ThePlan.Params.size() && !AllErrors.empty(); ++I) {
    const ParamDecision &D = R.ThePlan.Params[I];
    std::vector<Note> Blocking;
    for (const CompilerError &E : AllErrors) {
      bool Blocks;
      if (E.Contained)
        Blocks = D.Rewrite && llvm::any_of(R.ThePlan.Units[D.Unit].Edits, [&](const TextEdit &T) {
                   return T.File == E.Where.File && T.Offset <= E.Where.Offset &&
                          E.Where.Offset <= T.Offset + T.Length;
                 });
      else
        Blocks = llvm::any_of(D.ReliesOn, [&](const SourceSpan &S) { return S.contains(E.Where); });
      if (Blocks)
        Blocking.push_back({"compiler error: " + E.Message, E.Where});
    }
    if (Blocking.empty())
      continue;
    ++R.RefusedForErrors;
    Preblocked.insert_or_assign(
        D.Key, Blocking.size() == 1
                   ? blockerFor(ReasonID::EngineCompilerError, {}, Blocking.front().Where,
                                Blocking)
                   : blockerFor(ReasonID::EngineCompilerErrors, {std::to_string(Blocking.size())},
                                Blocking.front().Where, Blocking));
  }
  return Preblocked;
}

/// Was every part of \p TU analysed? Not when it failed, nor when one of
/// its errors may hide code (a function, a launch) from the analysis.
static bool fullyAnalysed(const TUStatus &TU) { return !TU.Failed && TU.MayHide.empty(); }

/// A TU that could not be analysed, or only in part, may declare and launch
/// any kernel with external linkage, or any kernel defined in a header it
/// includes or in its own file: only a kernel with internal linkage defined
/// in the own file of a TU analysed in full is safe.
static void refuseForFailedTUs(RunResult &R) {
  for (const TUStatus &TU : R.TUs) {
    if (fullyAnalysed(TU))
      continue;
    for (ParamDecision &D : R.ThePlan.Params) {
      bool InOwnFile = llvm::any_of(R.TUs, [&](const TUStatus &Other) {
        return fullyAnalysed(Other) && Other.File == D.Where.File;
      });
      if (!D.ExternallyVisible && InOwnFile)
        continue;
      Blocker Why = blockerFor(TU.Failed ? ReasonID::EngineUnitNotAnalysed
                                         : ReasonID::EngineUnitErrorsMayHide,
                               {TU.File, D.KernelName}, D.Where);
      if (D.Rewrite)
        R.ThePlan.refuseUnit(D.Unit, Why);
      else if (D.Blockers.empty() || D.Blockers.front().ID != DiagID::ParseError)
        D.Blockers.insert(D.Blockers.begin(), Why);
    }
  }
}

/// A file without write permission for its owner is not to be edited
/// (rename would replace it anyway): its units are refused before anything
/// is written, so no group is half applied.
static void refuseReadOnlyFiles(RunResult &R) {
  for (size_t U = 0; U < R.ThePlan.Units.size(); ++U)
    for (const TextEdit &E : R.ThePlan.Units[U].Edits) {
      llvm::sys::fs::file_status Status;
      if (!llvm::sys::fs::status(E.File, Status) &&
          !(Status.permissions() & llvm::sys::fs::owner_write)) {
        R.ThePlan.refuseUnit(
            U, blockerFor(ReasonID::EngineReadOnlyFile, {E.File}, {E.File, E.Offset, 0, 0}));
        break;
      }
    }
}

/// The inactive branches of the run: per translation unit, the ranges both
/// its passes skipped.
static std::vector<SkippedRange> inactiveBranches(const std::vector<TUFacts> &Units) {
  std::vector<SkippedRange> Out;
  for (const TUFacts &U : Units) {
    std::vector<SkippedRange> Both;
    if (U.Passes.size() == 2)
      Both = skippedByBoth(U.Passes[0].Skipped, U.Passes[1].Skipped);
    else if (U.Passes.size() == 1)
      for (const SkippedRange &S : U.Passes[0].Skipped)
        if (!S.Names.empty())
          Both.push_back(S);
    for (SkippedRange &S : Both)
      if (llvm::none_of(Out, [&](const SkippedRange &T) { return T.Span == S.Span; }))
        Out.push_back(std::move(S));
  }
  return Out;
}

/// Issue 33: the database's units outside the run that read a file some
/// unit edits, each parsed as it is, for its original errors: a run over
/// some sources must not break the build of the others. One that cannot be
/// parsed is refused by the verification (it cannot be shown to build).
static void addOutsideUnits(RunResult &R, const EngineOptions &Opts) {
  std::map<std::string, std::vector<TextEdit>> All = R.ThePlan.editsByFile();
  for (const auto &[Unit, Compile] : Opts.UnitsOutsideRun) {
    TUStatus TU;
    TU.File = Unit;
    TU.Compile = Compile;
    // What it reads: the edited files its include scan names (a parse
    // without analysis does not list its files). UnitsOutsideRun's units
    // all have a scan.
    const std::vector<std::string> &Scanned = Opts.Analysis.UnitIncludes.at(Unit);
    for (const auto &KV : All)
      if (llvm::is_contained(Scanned, KV.first) || llvm::is_contained(Scanned, "*"))
        TU.Deps.push_back(KV.first);
    if (TU.Deps.empty())
      continue;
    auto [Device, Host] = runBothSides(Unit, {}, Compile, Opts, /*Analyze=*/false,
                                       PreambleUse::None);
    R.VerifyParses += 2;
    TU.Errors = bothSidesErrors(Device, Host);
    R.OutsideUnits.push_back(std::move(TU));
  }
}

/// The first error of \p Errors that ends clang's parse where an include
/// cannot be found: what follows it is not checked.
static const CompilerError *includeNotFound(const std::vector<CompilerError> &Errors) {
  for (const CompilerError &E : Errors)
    if (E.DiagID == clang::diag::err_pp_file_not_found)
      return &E;
  return nullptr;
}

/// Refuses every live unit that edits one of \p Files with the reason
/// \p Make gives for the file.
template <typename MakeBlocker>
static void refuseUnitsEditing(RunResult &R, const std::vector<std::string> &Files,
                               MakeBlocker Make) {
  for (size_t U = 0; U < R.ThePlan.Units.size(); ++U) {
    if (R.ThePlan.Units[U].Refused)
      continue;
    for (const TextEdit &E : R.ThePlan.Units[U].Edits)
      if (llvm::is_contained(Files, E.File)) {
        R.ThePlan.refuseUnit(U, Make(E.File));
        break;
      }
  }
}

/// Issue 33: the sources under the root that neither the run nor the
/// database builds and that read an edited file (other programs, other
/// Makefiles), each parsed as it is with the default flags and verified
/// with the edits like the run's own units. One that cannot be checked with
/// those flags (an include not found ends clang's parse) refuses the edits
/// it reads (tma-112): a build the run does not see must not be broken.
static void addOutsideBuilds(RunResult &R, const EngineOptions &Opts) {
  std::map<std::string, std::vector<TextEdit>> All = R.ThePlan.editsByFile();
  if (!Opts.CheckRootBuilds || Opts.InRoot.empty() || All.empty())
    return;
  std::set<std::string> Known = Opts.DatabaseUnits;
  for (const TUStatus &TU : R.TUs)
    Known.insert(TU.File);
  std::vector<std::string> Edited;
  for (const auto &KV : All)
    Edited.push_back(KV.first);
  RootIncluders Found = sourcesIncluding(Opts.InRoot, Opts.BuildTree, Edited, Known);
  if (!Found.Complete) {
    refuseUnitsEditing(R, Edited, [&](const std::string &File) {
      return blockerFor(ReasonID::EngineRootTooLarge,
                        {File, Opts.InRoot, std::to_string(Found.FilesRead - 1)}, {});
    });
    return;
  }
  for (const std::string &Source : Found.Sources) {
    TUStatus TU;
    TU.File = Source;
    TU.Compile = Opts.Compile;
    bool Spells = false;
    std::optional<std::vector<std::string>> Reads = userFilesOf(Source, Opts.Compile, Spells);
    for (const std::string &F : Edited)
      if (!Reads || llvm::is_contained(*Reads, F))
        TU.Deps.push_back(F);
    if (TU.Deps.empty())
      continue; // it includes another file of the same name
    auto [Device, Host] = runBothSides(Source, {}, Opts.Compile, Opts, /*Analyze=*/false,
                                       PreambleUse::None);
    R.VerifyParses += 2;
    TU.Errors = bothSidesErrors(Device, Host);
    if (const CompilerError *E = includeNotFound(TU.Errors)) {
      std::string Where = E->Where.File + ":" + std::to_string(E->Where.Line) + ": " + E->Message;
      refuseUnitsEditing(R, TU.Deps, [&](const std::string &File) {
        return blockerFor(ReasonID::EngineOutsideBuildUnchecked, {File, Source, Where}, {});
      });
      continue;
    }
    R.OutsideBuilds.push_back(std::move(TU));
  }
}

/// Step 3: all units together first; when that fails, each on its own, then
/// the survivors together again.
static void verifyUnits(RunResult &R, const EngineOptions &Opts) {
  addOutsideUnits(R, Opts);
  addOutsideBuilds(R, Opts);
  for (int Round = 0; Round < 3; ++Round) {
    auto All = R.ThePlan.editsByFile();
    if (All.empty())
      break;
    std::string Err = newErrorInRun(R, All, Opts, R.VerifyParses);
    if (Err.empty())
      break;
    std::vector<size_t> Live;
    for (size_t U = 0; U < R.ThePlan.Units.size(); ++U)
      if (!R.ThePlan.Units[U].Refused)
        Live.push_back(U);
    Blocker Why = blockerFor(ReasonID::EngineVerifyFailed, {Err}, {});
    if (Live.size() == 1 || Round == 2) {
      for (size_t U : Live)
        R.ThePlan.refuseUnit(U, Why);
      break;
    }
    for (size_t U : Live) {
      std::string UErr = newErrorInRun(R, R.ThePlan.editsByFile(U), Opts, R.VerifyParses);
      if (!UErr.empty())
        R.ThePlan.refuseUnit(U, blockerFor(ReasonID::EngineVerifyFailed, {UErr}, {}));
    }
  }
}

RunResult planUnits(std::vector<TUFacts> Units, const EngineOptions &Opts, unsigned Jobs,
                    AnalysisCounts *Counts) {
  {
    // Skipped TUs that name a kernel another shard found.
    UnitWork W{Opts};
    llvm::DefaultThreadPool Pool(llvm::hardware_concurrency(std::max(1u, Jobs)));
    analyzeNamedSkipped(Units, W, Pool);
    addCounts(Counts, W.Counts);
  }
  RunResult R;
  R.FormatStyle = Opts.FormatStyle;
  std::vector<SkippedRange> Inactive = inactiveBranches(Units);
  std::vector<PassFacts> Facts;
  for (TUFacts &U : Units) {
    R.TUs.push_back(std::move(U.Status));
    for (PassFacts &P : U.Passes)
      Facts.push_back(std::move(P));
  }

  // 2. One plan from all of them; decided again with the refusals for
  // compiler errors in place: a refused descriptor must not take the units it
  // would have shared (a common declaration, a common buffer) down with it.
  PlanOptions PO;
  PO.InRoot = Opts.InRoot;
  PO.BuildTree = Opts.BuildTree;
  R.ThePlan = makePlan(Facts, PO);
  PO.Preblocked = refusalsForErrors(R);
  if (!PO.Preblocked.empty())
    R.ThePlan = makePlan(Facts, PO);
  refuseForFailedTUs(R);
  refuseInactiveBranches(R, Facts, Inactive);
  refuseReadOnlyFiles(R);

  // The original contents of every file a unit edits, read once.
  for (const EditUnit &U : R.ThePlan.Units)
    for (const TextEdit &E : U.Edits)
      if (!R.Original.count(E.File)) {
        auto B = llvm::MemoryBuffer::getFile(E.File);
        R.Original[E.File] = B ? (*B)->getBuffer().str() : std::string();
      }

  if (Opts.Verify)
    verifyUnits(R, Opts);
  collectAcceptedEdits(R);
  return R;
}

RunResult processRun(const std::vector<TUInput> &Inputs, const EngineOptions &Opts,
                     unsigned Jobs) {
  EngineOptions O = Opts;
  // The first parse keeps the header parse for the verification parse.
  if (!O.Preambles && O.Verify)
    O.Preambles = std::make_shared<PreambleStore>();
  return planUnits(analyzeUnits(Inputs, O, Jobs), O, Jobs);
}

void collectAcceptedEdits(RunResult &R) {
  R.Edits = R.ThePlan.editsByFile();
  R.FormatErrors.clear();
  for (auto &[File, List] : R.Edits) {
    List = tidyDeletions(R.Original[File], std::move(List));
    llvm::Expected<std::vector<TextEdit>> Formatted =
        formatEdits(R.Original[File], File, List, R.FormatStyle);
    if (Formatted)
      List = std::move(*Formatted);
    else // written as the tool's own edits, unformatted
      R.FormatErrors.push_back("'" + File + "' is not formatted: " +
                               llvm::toString(Formatted.takeError()));
  }
  for (auto It = R.Original.begin(); It != R.Original.end();)
    It = R.Edits.count(It->first) ? std::next(It) : R.Original.erase(It);
}

} // namespace tma
