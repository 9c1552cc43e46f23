// tma-modernize: the command line. It parses options, calls the engine and
// prints; every decision is made in lib/.
#include "tma/Commit.h"
#include "tma/CompileDatabase.h"
#include "tma/ProgramScope.h"
#include "tma/Engine.h"
#include "tma/FactsCache.h"
#include "tma/Format.h"
#include "tma/Prefilter.h"
#include "tma/Report.h"
#include "tma/SideParse.h"

#include "clang/Tooling/CompilationDatabase.h"
#include "tma/Output.h"
#include "tma/SourceRoot.h"
#include "tma/SourceText.h"

#include "clang/Basic/Version.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

using namespace tma;

static const char Usage[] = R"(USAGE: tma-modernize [options] <source>... [-- <compiler args>]

Rewrites CUDA kernels that read a TMA descriptor (CUtensorMap) through a
global-memory pointer so that they take it by value as a
'const __grid_constant__ CUtensorMap' parameter, and their launches pass the
host descriptor instead of a device copy.

OPTIONS:
  -p <dir>                directory of compile_commands.json (default: searched
                          upward from the first source); nvcc commands are
                          translated for clang, never run
  --no-database           do not look for a compile database
  -j <n>                  translation units analysed in parallel (default 1)
  --dry-run               print a unified diff on stdout; write nothing
  --check                 exit 1 if anything would change; write nothing
  --export-fixes=<file>   write the edits as clang-apply-replacements YAML;
                          sources are not modified
  --report=<file>         a report of every descriptor: SARIF 2.1.0 when the
                          name ends in .sarif, JSON otherwise
  --cuda-path=<dir>       CUDA toolkit (default: $CUDA_PATH, nvcc on PATH,
                          /usr/local/cuda)
  --cuda-gpu-arch=<sm_xx> GPU architecture of the device pass (default sm_90a)
  --in-root=<dir>         only files under <dir> are edited (default: the
                          project: the directory holding the current one, the
                          compile database and every file it lists; without
                          a database, the current directory)
  --no-verify             do not re-parse the edited translation unit
  --export-facts=<dir>    analyse only: write each translation unit's facts to
                          <dir> (one JSON file per unit); plan and write
                          nothing. Give every shard the same sources, flags
                          and options, then run --plan-from
  --shard=<k>/<n>         with --export-facts: only every n-th source,
                          starting with the k-th (k from 1)
  --plan-from=<dir>       join the facts that --export-facts wrote to <dir>
                          for the sources given (the whole program, same
                          flags and options) and act as one run would: in
                          place, --dry-run, --check, --export-fixes, --report
  --facts-cache=<dir>     keep each translation unit's facts in <dir> and
                          reuse them while its file, headers and flags are
                          unchanged; prints how many were reused
  --no-prefilter          analyse every translation unit, even those in which
                          no file spells a descriptor type
  --no-header-reuse       parse every header again for the verification of
                          an edited translation unit (default: the first
                          parse precompiles the leading includes, and the
                          verification reads them back when unedited)
  --strict                refuse a whole translation unit on any clang error
                          (default: refuse only descriptors whose code holds one)
  --format-style=<style>  clang-format the code around the edits: none
                          (default), file (the .clang-format above each file),
                          llvm, google, chromium, mozilla, webkit, gnu,
                          microsoft, or '{key: value, ...}' (as clang-tidy)
  --quiet                 no progress lines and no per-descriptor warnings
                          (errors and the summary stay)
  --recover               only finish (or undo) the writes of a run that was
                          interrupted, from the journal in --in-root (without
                          it: the current directory or the nearest one above
                          that holds a journal); no source is needed
  --help                  this text
  --version               the version

Default action: rewrite the files in place: all files or none, each one
atomically, with a journal in --in-root that the next run uses to finish a
run killed during its writes. Runs on one --in-root write one at a time.
Exit status: 0 done (refusals are warnings), 1 --check found work,
2 error (usage, unreadable input, a translation unit that does not parse, or
a descriptor refused because of a clang error in its code).
)";

static int usageError(llvm::StringRef Why) {
  if (!Why.empty())
    llvm::errs() << "tma-modernize: error: " << Why << "\n";
  llvm::errs() << Usage;
  return 2;
}

/// Says what was done about an interrupted run; nonzero: stop with it.
static int printRecovery(const Recovery &Rec, llvm::StringRef Root) {
  std::string Journal = journalPath(Root);
  auto ListFiles = [&] {
    for (const std::string &F : Rec.Files)
      llvm::errs() << "  " << F << "\n";
  };
  switch (Rec.What) {
  case Recovery::Nothing:
    return 0;
  case Recovery::Pending:
    llvm::errs() << "tma-modernize: error: a run that was interrupted while writing left "
                    "the journal '"
                 << Journal
                 << "'; some files may be rewritten and others not. Run "
                    "'tma-modernize --recover' in this directory (or any run that writes) "
                    "to finish it\n";
    return 2;
  case Recovery::Discarded:
    llvm::errs() << "tma-modernize: note: a run was interrupted before it replaced any "
                    "file; its temporary files are removed\n";
    return 0;
  case Recovery::Finished:
    llvm::errs() << "tma-modernize: note: finished the writes of an interrupted run ("
                 << Rec.Files.size() << " file" << (Rec.Files.size() == 1 ? "" : "s")
                 << " replaced); every file of that run is now rewritten\n";
    ListFiles();
    return 0;
  case Recovery::Undone:
    llvm::errs() << "tma-modernize: note: the writes of an interrupted run could not be "
                    "finished (a temporary file is missing); restored "
                 << Rec.Files.size() << " file" << (Rec.Files.size() == 1 ? "" : "s")
                 << " to their contents before that run\n";
    ListFiles();
    return 0;
  case Recovery::Stuck:
    llvm::errs() << "tma-modernize: error: a run that was interrupted while writing left "
                    "the journal '"
                 << Journal << "', and it cannot be finished or undone:\n";
    for (const std::string &P : Rec.Problems)
      llvm::errs() << "  " << P << "\n";
    llvm::errs() << "Nothing was changed. Check those files (e.g. with 'git diff'), then "
                    "remove the journal.\n";
    return 2;
  }
  return 0;
}

/// Everything the command line says.
struct CliOptions {
  std::vector<std::string> Sources;
  EngineOptions Engine;
  std::string DatabaseDir, JobsArg, ExportFixes, CudaPathArg, InRoot, ReportFile;
  std::string ExportFacts, PlanFrom, ShardArg;
  unsigned Jobs = 1, ShardIndex = 1, ShardCount = 1;
  bool NoDatabaseSearch = false, ArchGiven = false;
  bool DryRun = false, Check = false, RecoverOnly = false, Quiet = false;
  bool HeaderReuse = true; // --no-header-reuse turns it off
  bool writes() const { return !DryRun && !Check && ExportFixes.empty() && ExportFacts.empty(); }
};

/// Options that take no value; false when \p A is none of them.
static bool parseFlag(llvm::StringRef A, CliOptions &O) {
  bool *Flag = llvm::StringSwitch<bool *>(A)
                   .Case("--dry-run", &O.DryRun)
                   .Case("--check", &O.Check)
                   .Case("--no-database", &O.NoDatabaseSearch)
                   .Case("--strict", &O.Engine.Strict)
                   .Case("--recover", &O.RecoverOnly)
                   .Case("--quiet", &O.Quiet)
                   .Default(nullptr);
  if (Flag) {
    *Flag = true;
    return true;
  }
  bool *Off = llvm::StringSwitch<bool *>(A)
                  .Case("--no-prefilter", &O.Engine.Prefilter)
                  .Case("--no-verify", &O.Engine.Verify)
                  .Case("--no-header-reuse", &O.HeaderReuse)
                  .Default(nullptr);
  if (Off)
    *Off = false;
  return Off != nullptr;
}

/// `--name=value` options; false when \p A is none of them.
static bool parseValue(llvm::StringRef A, CliOptions &O) {
  const std::pair<llvm::StringRef, std::string *> Named[] = {
      {"--export-fixes=", &O.ExportFixes},
      {"--cuda-path=", &O.CudaPathArg},
      {"--cuda-gpu-arch=", &O.Engine.Compile.GpuArch},
      {"--in-root=", &O.InRoot},
      {"-p=", &O.DatabaseDir},
      {"--report=", &O.ReportFile},
      {"--format-style=", &O.Engine.FormatStyle},
      {"--export-facts=", &O.ExportFacts},
      {"--plan-from=", &O.PlanFrom},
      {"--shard=", &O.ShardArg},
      {"--facts-cache=", &O.Engine.CacheDir}};
  for (const auto &[Name, Out] : Named)
    if (A.starts_with(Name)) {
      *Out = A.drop_front(Name.size()).str();
      O.ArchGiven |= Name == "--cuda-gpu-arch=";
      return true;
    }
  return false;
}

/// --export-facts, --shard and --plan-from: a value when they cannot be
/// used together.
static std::optional<int> checkFactsOptions(CliOptions &O) {
  if (!O.ExportFacts.empty() && !O.PlanFrom.empty())
    return usageError("--export-facts and --plan-from are separate steps");
  if (O.ShardArg.empty())
    return std::nullopt;
  auto [Index, Count] = llvm::StringRef(O.ShardArg).split('/');
  if (Index.getAsInteger(10, O.ShardIndex) || Count.getAsInteger(10, O.ShardCount) ||
      O.ShardIndex == 0 || O.ShardIndex > O.ShardCount)
    return usageError("--shard needs <k>/<n> with 1 <= k <= n, not '" + O.ShardArg + "'");
  if (O.ExportFacts.empty())
    return usageError("--shard needs --export-facts");
  return std::nullopt;
}

/// Fills \p O from the arguments; a value when the program is to stop with
/// that exit status (help, version, a usage error).
static std::optional<int> parseArguments(int argc, char **argv, CliOptions &O) {
  for (int I = 1; I < argc; ++I) {
    llvm::StringRef A(argv[I]);
    if (A == "--") {
      for (++I; I < argc; ++I)
        O.Engine.Compile.ExtraArgs.push_back(argv[I]);
    } else if (A == "--help" || A == "-h") {
      llvm::outs() << Usage;
      return 0;
    } else if (A == "--version") {
      llvm::outs() << "tma-modernize 0.1 (built with Clang " << CLANG_VERSION_MAJOR_STRING
                   << ")\n";
      return 0;
    } else if (A == "-p" || A == "-j") {
      if (I + 1 >= argc)
        return usageError("option '" + A.str() + "' needs a value");
      (A == "-p" ? O.DatabaseDir : O.JobsArg) = argv[++I];
    } else if (A.starts_with("-j") && A.size() > 2) {
      O.JobsArg = A.drop_front(2).str();
    } else if (parseFlag(A, O)) {
    } else if (parseValue(A, O)) {
      if (A.find('=') + 1 == A.size()) // the value is empty
        return usageError("option '" + A.str() + "' needs a value");
    } else if (A.starts_with("-")) {
      return usageError("unknown option '" + A.str() + "'");
    } else {
      O.Sources.push_back(A.str());
    }
  }
  if (O.Sources.empty() && !O.RecoverOnly)
    return usageError("no source files given");
  if (!O.JobsArg.empty() &&
      (llvm::StringRef(O.JobsArg).getAsInteger(10, O.Jobs) || O.Jobs == 0))
    return usageError("-j needs a positive number, not '" + O.JobsArg + "'");
  if (std::optional<int> Stop = checkFactsOptions(O))
    return Stop;
  if (!O.Sources.empty())
    if (llvm::Error E = checkFormatStyle(O.Engine.FormatStyle, normalizePath(O.Sources.front())))
      return usageError("--format-style='" + O.Engine.FormatStyle +
                        "' cannot be used: " + llvm::toString(std::move(E)));
  if (!O.InRoot.empty())
    O.Engine.InRoot = normalizePath(O.InRoot);
  return std::nullopt;
}

/// The toolkit, its version and what follows from it; false: no toolkit.
static bool setUpCuda(CliOptions &O) {
  CudaInstallation Cuda = findCuda(O.CudaPathArg);
  if (Cuda.Path.empty()) {
    llvm::errs() << "tma-modernize: error: " << Cuda.Error << "\n";
    return false;
  }
  O.Engine.Compile.CudaPath = Cuda.Path;
  O.Engine.Compile.CudaVersion = Cuda.Version;
  if (Cuda.Version && Cuda.Version < 12010)
    O.Engine.Analysis.ParamSpaceLimit = 4096;
  return true;
}

/// 90 for "sm_90a"; 0 when \p Arch names no number.
static unsigned smOf(llvm::StringRef Arch) {
  Arch.consume_front("sm_");
  unsigned N = 0;
  Arch.take_while(llvm::isDigit).getAsInteger(10, N);
  return N;
}

/// One source with its flags: the database's command (parsed, never run)
/// when it has one, the defaults otherwise; flags after '--' come last.
static TUInput inputFor(const std::string &Src, const CliOptions &O, const CompileDatabase &DB) {
  TUInput In;
  In.File = Src;
  In.Compile = O.Engine.Compile;
  if (!DB.Commands)
    return In;
  std::vector<clang::tooling::CompileCommand> Cmds =
      DB.Commands->getCompileCommands(normalizePath(Src));
  std::string Note = missingEntryNote(DB, Cmds);
  if (!Note.empty())
    In.Notes.push_back(Note);
  if (Cmds.empty())
    return In;
  TranslatedCommand T = translateCommand(Cmds.front().CommandLine, Src, Cmds.front().Directory);
  // Before the run, so before this source's messages.
  if (!T.ResponseFileProblem.empty())
    llvm::errs() << normalizePath(Src) << ": warning: compile database: "
                 << T.ResponseFileProblem << "\n";
  In.Compile.ExtraArgs = T.Args;
  llvm::append_range(In.Compile.ExtraArgs, O.Engine.Compile.ExtraArgs);
  if (!T.GpuArch.empty() && !O.ArchGiven)
    In.Compile.GpuArch = T.GpuArch;
  In.Compile.LowestSm = O.ArchGiven ? smOf(In.Compile.GpuArch) : T.LowestSm;
  if (!T.CudaRoot.empty())
    In.Compile.CommandCudaVersion = cudaVersionAt(T.CudaRoot);
  In.Compile.NvccMacros = T.FromNvcc;
  return In;
}

/// The compile database (given, or found by the upward search), and the
/// source root that follows from it when --in-root is not given; false: the
/// database given cannot be used.
static bool loadDatabase(CliOptions &O, CompileDatabase &DB) {
  if (!O.DatabaseDir.empty() || !O.NoDatabaseSearch) {
    DB = loadCompileDatabase(O.DatabaseDir, O.Sources.front());
    if (!DB.Error.empty() && !O.DatabaseDir.empty()) {
      llvm::errs() << "tma-modernize: error: " << DB.Error << "\n";
      return false;
    }
    // Found by the search, a broken database is not used, but said: the
    // sources are then analysed with other flags than the build's.
    if (!DB.Error.empty())
      llvm::errs() << "tma-modernize: warning: " << DB.Error << "; using the default flags\n";
  }
  if (O.InRoot.empty())
    O.Engine.InRoot = DB.Commands ? defaultSourceRoot(".", DB.File, DB.Commands->getAllFiles())
                                  : normalizePath(".");
  O.Engine.BuildTree = buildTreeOf(DB, O.Engine.InRoot);
  return true;
}

/// Every source with its own flags, from \p DB.
static void collectInputs(CliOptions &O, const CompileDatabase &DB, std::vector<TUInput> &Inputs) {
  O.Engine.Analysis.Scope = programScopeOf(DB, O.Sources, O.Engine.Analysis.UnitsNotInRun);
  O.Engine.Analysis.SingleUnit = O.Sources.size() == 1;
  for (const std::string &Src : O.Sources)
    Inputs.push_back(inputFor(Src, O, DB));
  if (!DB.Commands)
    return;
  // Which units may include which headers: a storage declared in a header
  // that no other unit includes is used by this unit only.
  std::map<std::string, CompileOptions> InRun;
  for (const TUInput &In : Inputs)
    InRun[normalizePath(In.File)] = In.Compile;
  O.Engine.Analysis.UnitsKnown = true;
  for (const std::string &F : DB.Commands->getAllFiles()) {
    std::string Unit = normalizePath(F);
    O.Engine.DatabaseUnits.insert(Unit);
    auto It = InRun.find(Unit);
    CompileOptions C = It != InRun.end() ? It->second : inputFor(F, O, DB).Compile;
    bool Spells = false;
    std::optional<std::vector<std::string>> Files = userFilesOf(Unit, C, Spells);
    if (!Spells)
      continue;
    O.Engine.Analysis.UnitIncludes[Unit] = Files.value_or(std::vector<std::string>{"*"});
    // Verified too when it reads an edited file (issue 33); an entry whose
    // file does not exist builds nothing.
    if (It == InRun.end() && llvm::sys::fs::exists(Unit))
      O.Engine.UnitsOutsideRun[Unit] = C;
  }
}

/// The write phase's errors and warnings; false when a file could not be
/// written.
static bool printCommit(const CommitResult &C) {
  for (const std::string &E : C.Errors)
    llvm::errs() << "tma-modernize: error: " << E << "\n";
  for (const std::string &W : C.Warnings)
    llvm::errs() << "tma-modernize: warning: " << W << "\n";
  return C.Errors.empty();
}

/// Per-TU notes, failures and error counts; false when a TU failed.
static bool printTUs(const RunResult &R) {
  bool AllRan = true;
  for (const TUStatus &TU : R.TUs) {
    for (const std::string &N : TU.Notes)
      llvm::errs() << TU.File << ": note: " << N << "\n";
    if (TU.Failed) {
      llvm::errs() << "tma-modernize: error: " << TU.FailMessage << " [tma-201]\n";
      for (const CompilerError &E : TU.Errors) {
        if (!E.Where.File.empty())
          llvm::errs() << E.Where.File << ":" << E.Where.Line << ":" << E.Where.Column << ": ";
        llvm::errs() << "note: compiler error: " << E.Message << "\n";
      }
      AllRan = false;
    } else if (!TU.Errors.empty()) {
      llvm::errs() << TU.File << ": warning: clang reports " << TU.Errors.size() << " error"
                   << (TU.Errors.size() == 1 ? "" : "s")
                   << " in this translation unit; descriptors whose code holds one are not "
                      "rewritten, the rest is (--strict refuses the whole file) [tma-201]\n";
    }
  }
  return AllRan;
}

/// One message per descriptor (warnings left out with --quiet); false when
/// any is an error.
static bool printMessages(const RunResult &R, bool Applied, bool Quiet) {
  bool NoError = true;
  // Errors that may hide descriptors first: they qualify everything after.
  for (const Message &M : hiddenDescriptorMessages(R)) {
    printMessage(llvm::errs(), M);
    NoError = false;
  }
  for (const Message &M : messagesFor(R, Applied)) {
    bool IsError = info(M.ID).Level == Severity::Error; // tma-201, tma-202
    if (IsError || !Quiet)
      printMessage(llvm::errs(), M);
    NoError &= !IsError;
  }
  for (const std::string &F : R.FormatErrors)
    llvm::errs() << "tma-modernize: warning: " << F << "\n";
  return NoError;
}

/// A fix or report file; false when it cannot be written (an error, not a stop).
static bool writeSideFile(const std::string &Path, const std::string &Text) {
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path, EC, llvm::sys::fs::OF_Text);
  if (EC) {
    llvm::errs() << "tma-modernize: error: cannot write '" << Path << "': " << EC.message()
                 << "\n";
    return false;
  }
  OS << Text;
  return true;
}

/// Diffs, the fix file and the report; false when a file cannot be written.
static bool printOutputs(RunResult &R, const CliOptions &O, const Summary &Sum) {
  if (O.DryRun || O.Check)
    for (auto &[File, List] : R.Edits) {
      llvm::sort(List);
      llvm::outs() << unifiedDiff(File, R.Original[File], List);
    }
  bool Written = true;
  if (!O.ExportFixes.empty())
    Written &= writeSideFile(O.ExportFixes,
                             exportFixesYaml(normalizePath(O.Sources.front()), R.Edits));
  if (!O.ReportFile.empty())
    Written &= writeSideFile(O.ReportFile, llvm::StringRef(O.ReportFile).ends_with(".sarif")
                                               ? sarifReport(R, O.writes())
                                               : jsonReport(R, Sum, O.writes()));
  return Written;
}

/// `[k/N] file` as each source is taken up, over several sources.
static void showProgress(CliOptions &O) {
  if (O.Quiet || O.Sources.size() < 2)
    return;
  O.Engine.Progress = [](unsigned K, unsigned N, const std::string &File) {
    llvm::errs() << "[" << K << "/" << N << "] " << File << "\n";
  };
}

static std::string countsText(const AnalysisCounts &C) {
  return std::to_string(C.Reused) + " reused, " + std::to_string(C.Analysed) + " analysed, " +
         std::to_string(C.Skipped) + " skipped by the pre-filter";
}

/// With --facts-cache: how the facts of the run were obtained, and how many
/// verification parses it still made (an outcome the cache holds needs none).
static void printCacheCounts(const CliOptions &O, const AnalysisCounts &C, const RunResult &R) {
  if (!O.Engine.CacheDir.empty())
    llvm::errs() << "tma-modernize: facts cache: " << countsText(C) << "; "
                 << R.VerifyParses << " verification parse" << (R.VerifyParses == 1 ? "" : "s")
                 << "\n";
}

/// --export-facts: this shard's facts, one file per TU; nothing planned.
static int exportFactsStep(CliOptions &O, const std::vector<TUInput> &Inputs) {
  O.Engine.Fingerprint = true;
  AnalysisCounts Counts;
  std::vector<TUFacts> Units =
      analyzeUnits(shardOf(Inputs, O.ShardIndex, O.ShardCount), O.Engine, O.Jobs, &Counts);
  if (llvm::Error E = exportFacts(O.ExportFacts, Units)) {
    llvm::errs() << "tma-modernize: error: " << llvm::toString(std::move(E)) << "\n";
    return 2;
  }
  llvm::errs() << "tma-modernize: facts of " << Units.size() << " translation unit"
               << (Units.size() == 1 ? "" : "s") << " written to '" << O.ExportFacts << "' ("
               << countsText(Counts) << ")\n";
  return 0;
}

/// The facts of every source: read from --plan-from, or computed (with the
/// cache, if any); false when --plan-from cannot supply them.
static bool gatherFacts(CliOptions &O, const std::vector<TUInput> &Inputs,
                        std::vector<TUFacts> &Units, AnalysisCounts &Counts) {
  if (O.PlanFrom.empty()) {
    // The first parse keeps the header parse for the verification parse.
    if (O.HeaderReuse && O.Engine.Verify)
      O.Engine.Preambles = std::make_shared<PreambleStore>();
    Units = analyzeUnits(Inputs, O.Engine, O.Jobs, &Counts);
    return true;
  }
  llvm::Expected<std::vector<TUFacts>> Loaded = loadExportedFacts(O.PlanFrom, Inputs, O.Engine);
  if (!Loaded) {
    llvm::errs() << "tma-modernize: error: " << llvm::toString(Loaded.takeError()) << "\n";
    return false;
  }
  Units = std::move(*Loaded);
  return true;
}

int main(int argc, char **argv) {
  CliOptions O;
  if (std::optional<int> Stop = parseArguments(argc, argv, O))
    return *Stop;
  CompileDatabase DB;
  if (O.RecoverOnly && O.InRoot.empty())
    O.Engine.InRoot = rootWithJournal(".");
  else if (!O.RecoverOnly && !loadDatabase(O, DB))
    return 2;
  auto Waiting = [&] {
    llvm::errs() << "tma-modernize: note: waiting for another tma-modernize run in '"
                 << O.Engine.InRoot << "' to finish writing\n";
  };
  Recovery Rec =
      recoverInterruptedRun(O.Engine.InRoot, /*Apply=*/O.writes() || O.RecoverOnly, Waiting);
  if (int Status = printRecovery(Rec, O.Engine.InRoot))
    return Status;
  if (O.RecoverOnly)
    return 0;
  if (!setUpCuda(O))
    return 2;
  std::vector<TUInput> Inputs;
  collectInputs(O, DB, Inputs);
  showProgress(O);

  if (!O.ExportFacts.empty())
    return exportFactsStep(O, Inputs);
  AnalysisCounts Counts;
  std::vector<TUFacts> Units;
  if (!gatherFacts(O, Inputs, Units, Counts))
    return 2;
  RunResult R = planUnits(std::move(Units), O.Engine, O.Jobs, &Counts);
  printCacheCounts(O, Counts, R);
  bool Ok = true;
  // Written before anything is printed, so that messages and the summary
  // tell what is on disk: a unit that could not be written is refused.
  if (O.writes())
    Ok &= printCommit(commitEdits(R, O.Engine.InRoot, Waiting));
  Ok &= printTUs(R);
  Ok &= printMessages(R, O.writes(), O.Quiet);
  Ok &= !R.RefusedForErrors;
  Summary Sum;
  Sum.add(R);
  Ok &= printOutputs(R, O, Sum);
  printSummary(llvm::errs(), Sum,
               O.writes() ? "rewritten" : (O.Check ? "to rewrite" : "would be rewritten"));
  if (Sum.TUs > 1)
    printSummaryTable(llvm::errs(), Sum);
  if (!Ok)
    return 2;
  return O.Check && !R.Edits.empty() ? 1 : 0;
}
