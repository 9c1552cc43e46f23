// tma-modernize: the command line. It parses options, calls the engine and
// prints; every decision is made in lib/.
#include "tma/Commit.h"
#include "tma/CompileDatabase.h"
#include "tma/ProgramScope.h"
#include "tma/Engine.h"
#include "tma/Report.h"

#include "clang/Tooling/CompilationDatabase.h"
#include "tma/Output.h"
#include "tma/SourceText.h"

#include "clang/Basic/Version.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
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
  --in-root=<dir>         only files under <dir> are edited (default: .)
  --no-verify             do not re-parse the edited translation unit
  --no-prefilter          analyse every translation unit, even those in which
                          no file spells a descriptor type
  --strict                refuse a whole translation unit on any clang error
                          (default: refuse only descriptors whose code holds one)
  --recover               only finish (or undo) the writes of a run that was
                          interrupted, from the journal in --in-root; no
                          source is needed
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

int main(int argc, char **argv) {
  std::vector<std::string> Sources;
  EngineOptions Opts;
  std::string DatabaseDir, JobsArg;
  unsigned Jobs = 1;
  bool NoDatabaseSearch = false, ArchGiven = false;
  std::string ExportFixes, CudaPathArg, InRoot = ".", ReportFile;
  bool DryRun = false, Check = false, RecoverOnly = false;
  bool SawDashDash = false;
  for (int I = 1; I < argc; ++I) {
    llvm::StringRef A(argv[I]);
    if (SawDashDash) {
      Opts.Compile.ExtraArgs.push_back(A.str());
      continue;
    }
    auto Value = [&](llvm::StringRef Name, std::string &Out) {
      if (A.consume_front(Name)) {
        Out = A.str();
        return true;
      }
      return false;
    };
    if (A == "--") {
      SawDashDash = true;
    } else if (A == "--help" || A == "-h") {
      llvm::outs() << Usage;
      return 0;
    } else if (A == "--version") {
      llvm::outs() << "tma-modernize 0.1 (built with Clang " << CLANG_VERSION_MAJOR_STRING
                   << ")\n";
      return 0;
    } else if (A == "--dry-run") {
      DryRun = true;
    } else if (A == "--check") {
      Check = true;
    } else if (A == "-p" || A == "-j") {
      if (I + 1 >= argc)
        return usageError("option '" + A.str() + "' needs a value");
      (A == "-p" ? DatabaseDir : JobsArg) = argv[++I];
    } else if (A.starts_with("-j") && A.size() > 2) {
      JobsArg = A.drop_front(2).str();
    } else if (A == "--no-database") {
      NoDatabaseSearch = true;
    } else if (A == "--strict") {
      Opts.Strict = true;
    } else if (A == "--recover") {
      RecoverOnly = true;
    } else if (A == "--no-prefilter") {
      Opts.Prefilter = false;
    } else if (A == "--no-verify") {
      Opts.Verify = false;
    } else if (Value("--export-fixes=", ExportFixes) || Value("--cuda-path=", CudaPathArg) ||
               Value("--cuda-gpu-arch=", Opts.Compile.GpuArch) || Value("--in-root=", InRoot) ||
               Value("-p=", DatabaseDir) || Value("--report=", ReportFile)) {
      ArchGiven |= llvm::StringRef(argv[I]).starts_with("--cuda-gpu-arch=");
      if (A.empty())
        return usageError("option '" + std::string(argv[I]) + "' needs a value");
    } else if (A.starts_with("-")) {
      return usageError("unknown option '" + A.str() + "'");
    } else {
      Sources.push_back(A.str());
    }
  }
  if (Sources.empty() && !RecoverOnly)
    return usageError("no source files given");
  if (!JobsArg.empty() && (llvm::StringRef(JobsArg).getAsInteger(10, Jobs) || Jobs == 0))
    return usageError("-j needs a positive number, not '" + JobsArg + "'");

  Opts.InRoot = normalizePath(InRoot);
  bool Writes = !DryRun && !Check && ExportFixes.empty();

  auto Waiting = [&] {
    llvm::errs() << "tma-modernize: note: waiting for another tma-modernize run in '"
                 << Opts.InRoot << "' to finish writing\n";
  };
  Recovery Rec = recoverInterruptedRun(Opts.InRoot, /*Apply=*/Writes || RecoverOnly, Waiting);
  if (int Status = printRecovery(Rec, Opts.InRoot))
    return Status;
  if (RecoverOnly)
    return 0;

  CudaInstallation Cuda = findCuda(CudaPathArg);
  if (Cuda.Path.empty()) {
    llvm::errs() << "tma-modernize: error: " << Cuda.Error << "\n";
    return 2;
  }
  Opts.Compile.CudaPath = Cuda.Path;
  Opts.Compile.CudaVersion = Cuda.Version;
  if (Cuda.Version && Cuda.Version < 12010)
    Opts.Analysis.ParamSpaceLimit = 4096;

  // Each source with its own flags: from the compile database when there is
  // one (its commands are parsed, never run), else the defaults.
  std::vector<TUInput> Inputs;
  CompileDatabase DB;
  if (!DatabaseDir.empty() || !NoDatabaseSearch) {
    DB = loadCompileDatabase(DatabaseDir, Sources.front());
    if (!DB.Error.empty() && !DatabaseDir.empty()) {
      llvm::errs() << "tma-modernize: error: " << DB.Error << "\n";
      return 2;
    }
    // Found by the search, a broken database is not used, but said: the
    // sources are then analysed with other flags than the build's.
    if (!DB.Error.empty())
      llvm::errs() << "tma-modernize: warning: " << DB.Error << "; using the default flags\n";
    Opts.BuildTree = buildTreeOf(DB, Opts.InRoot);
  }
  Opts.Analysis.Scope = programScopeOf(DB, Sources, Opts.Analysis.UnitsNotInRun);
  for (const std::string &Src : Sources) {
    TUInput In;
    In.File = Src;
    In.Compile = Opts.Compile;
    std::vector<clang::tooling::CompileCommand> Cmds;
    if (DB.Commands)
      Cmds = DB.Commands->getCompileCommands(normalizePath(Src));
    if (DB.Commands) {
      std::string Note = missingEntryNote(DB, Cmds);
      if (!Note.empty())
        In.Notes.push_back(Note);
    }
    if (!Cmds.empty()) {
      TranslatedCommand T =
          translateCommand(Cmds.front().CommandLine, Src, Cmds.front().Directory);
      // Before the run, so before this source's messages.
      if (!T.ResponseFileProblem.empty())
        llvm::errs() << normalizePath(Src) << ": warning: compile database: "
                     << T.ResponseFileProblem << "\n";
      // Flags after '--' come last and win.
      In.Compile.ExtraArgs = T.Args;
      llvm::append_range(In.Compile.ExtraArgs, Opts.Compile.ExtraArgs);
      if (!T.GpuArch.empty() && !ArchGiven)
        In.Compile.GpuArch = T.GpuArch;
      In.Compile.NvccMacros = T.FromNvcc;
    }
    Inputs.push_back(std::move(In));
  }

  int Exit = 0;
  RunResult R = processRun(Inputs, Opts, Jobs);
  // Written before anything is printed, so that messages and the summary
  // tell what is on disk: a unit that could not be written is refused.
  if (Writes) {
    CommitResult C = commitEdits(R, Opts.InRoot, Waiting);
    for (const std::string &E : C.Errors)
      llvm::errs() << "tma-modernize: error: " << E << "\n";
    for (const std::string &W : C.Warnings)
      llvm::errs() << "tma-modernize: warning: " << W << "\n";
    if (!C.Errors.empty())
      Exit = 2;
  }
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
      Exit = 2;
    } else if (!TU.Errors.empty()) {
      llvm::errs() << TU.File << ": warning: clang reports " << TU.Errors.size() << " error"
                   << (TU.Errors.size() == 1 ? "" : "s")
                   << " in this translation unit; descriptors whose code holds one are not "
                      "rewritten, the rest is (--strict refuses the whole file) [tma-201]\n";
    }
  }
  for (const Message &M : messagesFor(R, Writes)) {
    printMessage(llvm::errs(), M);
    if (info(M.ID).Level == Severity::Error) // tma-201, tma-202
      Exit = 2;
  }
  if (R.RefusedForErrors)
    Exit = 2;
  Summary Sum;
  Sum.add(R);
  std::map<std::string, std::vector<TextEdit>> &AllEdits = R.Edits;
  std::map<std::string, std::string> &Originals = R.Original;

  if (DryRun || Check)
    for (auto &[File, List] : AllEdits) {
      llvm::sort(List);
      llvm::outs() << unifiedDiff(File, Originals[File], List);
    }
  // Fix and report files: a failure to write one is an error, not a stop.
  auto WriteSideFile = [&](const std::string &Path, const std::string &Text) {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Path, EC, llvm::sys::fs::OF_Text);
    if (EC) {
      llvm::errs() << "tma-modernize: error: cannot write '" << Path << "': " << EC.message()
                   << "\n";
      Exit = 2;
      return;
    }
    OS << Text;
  };
  if (!ExportFixes.empty())
    WriteSideFile(ExportFixes, exportFixesYaml(normalizePath(Sources.front()), AllEdits));
  if (!ReportFile.empty())
    WriteSideFile(ReportFile, llvm::StringRef(ReportFile).ends_with(".sarif")
                                  ? sarifReport(R, Writes)
                                  : jsonReport(R, Sum, Writes));
  printSummary(llvm::errs(), Sum,
               Writes ? "rewritten" : (Check ? "to rewrite" : "would be rewritten"));
  if (Sum.TUs > 1)
    printSummaryTable(llvm::errs(), Sum);
  if (Exit == 0 && Check && !AllEdits.empty())
    Exit = 1;
  return Exit;
}
