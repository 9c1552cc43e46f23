// One translation unit, end to end: parse both CUDA sides, analyse, plan,
// verify the edited text on both sides, and hand back the accepted edits.
#pragma once

#include "tma/CompileArgs.h"
#include "tma/PassAnalysis.h"
#include "tma/Planner.h"
#include "tma/SideParse.h"

#include <functional>
#include <memory>
#include <map>
#include <set>
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
  /// Build outputs, never edited (buildTreeOf in CompileDatabase.h).
  std::string BuildTree;
  /// Skip the analysis of TUs that cannot involve a descriptor (Prefilter.h).
  bool Prefilter = true;
  /// clang-format style for the code around the edits (Format.h); empty or
  /// "none": the edits as they are.
  std::string FormatStyle;
  /// Called as each TU is taken up (\p K of \p N, from 1), one call at a
  /// time whatever -j.
  std::function<void(unsigned K, unsigned N, const std::string &File)> Progress;
  /// Facts cache (--facts-cache): each TU's facts are kept there keyed by a
  /// hash of its inputs and reused while the file, its headers and its flags
  /// are unchanged (FactsCache.h). Empty: no cache.
  std::string CacheDir;
  /// Record each TU's input fingerprint (TUFacts::Inputs) even without a
  /// cache, for --export-facts.
  bool Fingerprint = false;
  /// The header parse of each analysed TU, kept for its verification
  /// parse (SideParse.h). Null: every parse reads every header.
  std::shared_ptr<PreambleStore> Preambles;
  /// Issue 33: the compile database's translation units that are not in
  /// the run and may include a user file (Analysis.UnitIncludes says which),
  /// with their flags. One that reads an edited file is verified with the
  /// edits as the run's own units are.
  std::map<std::string, CompileOptions> UnitsOutsideRun;
  /// Every translation unit of the compile database (normalised); empty
  /// without one.
  std::set<std::string> DatabaseUnits;
  /// Issue 33: sources under InRoot that neither the run nor the database
  /// builds and that include an edited file (OutsideBuilds.h) are verified
  /// with the edits, with the default flags (Compile).
  bool CheckRootBuilds = true;
};

/// One translation unit of a run: how it went.
struct TUStatus {
  std::string File;    // normalised
  CompileOptions Compile; // its own flags (from -p, or the defaults)
  std::vector<std::string> Notes; // e.g. "not in the compile database"
  /// The TU could not be processed (unreadable, no AST, or --strict with an
  /// error): nothing it contributes is used.
  bool Failed = false;
  std::string FailMessage;
  std::vector<CompilerError> Errors; // the original's errors, both sides
  /// Those of them that may hide a descriptor (markContainedErrors): the run
  /// cannot tell that it saw every descriptor of this TU.
  std::vector<CompilerError> MayHide;
  std::vector<std::string> Deps;     // files it reads (to re-verify only those)
  /// Other paths through which it reads a file (a symbolic link to a
  /// directory, `..`): the verification overlay must answer those too.
  std::map<std::string, std::set<std::string>> Aliases; // real path -> opened as
  /// Not analysed: the pre-filter found nothing that can involve a
  /// descriptor, and it names no kernel that the analysed TUs found.
  bool Skipped = false;
  std::string PrefilterReason;
  std::vector<std::string> PrefilterFiles;
};

/// A whole run: the facts of every TU are merged before one plan, so a kernel
/// is decided once from its definition, every declaration and every launch in
/// the given sources, and a header is edited once.
struct RunResult {
  std::vector<TUStatus> TUs;
  Plan ThePlan;
  std::map<std::string, std::vector<TextEdit>> Edits; // accepted, by file
  std::map<std::string, std::string> Original;        // contents of edited files
  unsigned RefusedForErrors = 0; // descriptors refused for a compiler error in their code
  unsigned VerifyParses = 0;
  /// Units of the database outside the run that read an edited file, with
  /// their original errors: verified too (EngineOptions::UnitsOutsideRun).
  std::vector<TUStatus> OutsideUnits;
  /// Sources under the root that neither the run nor the database builds
  /// and that include an edited file, parsed with the default flags
  /// (EngineOptions::CheckRootBuilds): verified too.
  std::vector<TUStatus> OutsideBuilds;
  std::string FormatStyle;               // EngineOptions::FormatStyle
  std::vector<std::string> FormatErrors; // files whose edits could not be formatted
};

struct TUInput {
  std::string File;
  CompileOptions Compile;
  std::vector<std::string> Notes;
};

/// What a TU's facts were computed from: a key over its path, flags and
/// analysis options, and the content hash of every file it read ("" for a
/// file that was absent). The facts hold while all of them are unchanged.
struct InputFingerprint {
  std::string Key;
  std::map<std::string, std::string> Files; // normalised path -> content hash
};

/// Everything one TU contributes to the plan: its status and the facts of
/// its passes (none when it failed or was skipped). What --export-facts
/// writes per TU and --plan-from joins.
struct TUFacts {
  TUStatus Status;
  std::vector<PassFacts> Passes;
  /// Analysed only because it names a kernel that another TU found (the
  /// pre-filter's second round): its kernels do not start that round.
  bool SecondRound = false;
  InputFingerprint Inputs; // set when EngineOptions::Fingerprint or CacheDir
};

/// How the facts of a run were obtained.
struct AnalysisCounts {
  unsigned Analysed = 0; // parsed in this run
  unsigned Reused = 0;   // taken from the facts cache
  unsigned Skipped = 0;  // ruled out by the pre-filter (text only)
};

/// Step 1 of a run: the facts of every TU of \p Inputs (\p Jobs at a time),
/// in input order. The pre-filter's second round covers the kernels these
/// TUs found; planUnits completes it for kernels found elsewhere.
std::vector<TUFacts> analyzeUnits(const std::vector<TUInput> &Inputs, const EngineOptions &Opts,
                                  unsigned Jobs = 1, AnalysisCounts *Counts = nullptr);

/// Steps 2 and 3 of a run from the facts of every TU of the program (from
/// one process, or exported by shards): analyses the skipped TUs that name a
/// kernel any TU found, plans once, verifies and returns the accepted edits,
/// exactly as processRun does.
RunResult planUnits(std::vector<TUFacts> Units, const EngineOptions &Opts, unsigned Jobs = 1,
                    AnalysisCounts *Counts = nullptr);

/// Runs every TU (\p Jobs at a time), plans once, verifies, and returns the
/// accepted edits. Output order is the input order, whatever \p Jobs.
RunResult processRun(const std::vector<TUInput> &Inputs, const EngineOptions &Opts,
                     unsigned Jobs = 1);

/// R.Edits and R.Original from the units of R.ThePlan still accepted (again
/// after a unit is refused late, e.g. because a file cannot be written).
void collectAcceptedEdits(RunResult &R);

/// Compiler errors of one side of \p MainFile, with \p Overlay replacing the
/// contents of files (the main file included), and optionally its facts.
struct PassRun {
  bool Ran = false; // false: the compiler could not even start
  bool ReadPreamble = false; // the headers came from a kept preamble
  std::vector<CompilerError> Errors;
  std::vector<CompilerError> MayHide; // see TUStatus::MayHide
  PassFacts Facts;
  std::vector<std::string> Deps;
  std::map<std::string, std::set<std::string>> Aliases; // real path -> opened as
};
/// \p Use: whether to build a preamble (kept when the facts show something to
/// edit) or read a kept one (SideParse.h); only with EngineOptions::Preambles.
PassRun runPass(CudaSide Side, const std::string &MainFile,
                const std::map<std::string, std::string> &Overlay,
                const CompileOptions &Compile, const EngineOptions &Opts, bool Analyze,
                PreambleUse Use = PreambleUse::None);

/// Errors as compared before and after an edit: position (file and offset)
/// and message.
std::set<std::pair<SourcePoint, std::string>>
errorSet(const std::vector<CompilerError> &Errors);

/// Edits made to errors' positions: where an error of the original would be
/// reported in the edited text.
std::vector<CompilerError>
shiftErrors(const std::vector<CompilerError> &Errors,
            const std::map<std::string, std::vector<TextEdit>> &Edits);

} // namespace tma
