// tma-modernize: the command line. It parses options, calls the engine and
// prints; every decision is made in lib/.
#include "tma/Engine.h"
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
  --dry-run               print a unified diff on stdout; write nothing
  --check                 exit 1 if anything would change; write nothing
  --export-fixes=<file>   write the edits as clang-apply-replacements YAML;
                          sources are not modified
  --cuda-path=<dir>       CUDA toolkit (default: $CUDA_PATH, nvcc on PATH,
                          /usr/local/cuda)
  --cuda-gpu-arch=<sm_xx> GPU architecture of the device pass (default sm_90a)
  --in-root=<dir>         only files under <dir> are edited (default: .)
  --no-verify             do not re-parse the edited translation unit
  --strict                refuse a whole translation unit on any clang error
                          (default: refuse only descriptors whose code holds one)
  --help                  this text
  --version               the version

Default action: rewrite the files in place (atomically).
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

int main(int argc, char **argv) {
  std::vector<std::string> Sources;
  EngineOptions Opts;
  std::string ExportFixes, CudaPathArg, InRoot = ".";
  bool DryRun = false, Check = false;
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
    } else if (A == "--strict") {
      Opts.Strict = true;
    } else if (A == "--no-verify") {
      Opts.Verify = false;
    } else if (Value("--export-fixes=", ExportFixes) || Value("--cuda-path=", CudaPathArg) ||
               Value("--cuda-gpu-arch=", Opts.Compile.GpuArch) || Value("--in-root=", InRoot)) {
      if (A.empty())
        return usageError("option '" + std::string(argv[I]) + "' needs a value");
    } else if (A.starts_with("-")) {
      return usageError("unknown option '" + A.str() + "'");
    } else {
      Sources.push_back(A.str());
    }
  }
  if (Sources.empty())
    return usageError("no source files given");

  CudaInstallation Cuda = findCuda(CudaPathArg);
  if (Cuda.Path.empty()) {
    llvm::errs() << "tma-modernize: error: " << Cuda.Error << "\n";
    return 2;
  }
  Opts.Compile.CudaPath = Cuda.Path;
  if (Cuda.Version && Cuda.Version < 12010)
    Opts.Analysis.ParamSpaceLimit = 4096;
  Opts.InRoot = normalizePath(InRoot);

  bool Writes = !DryRun && !Check && ExportFixes.empty();
  Summary Sum;
  int Exit = 0;
  std::map<std::string, std::vector<TextEdit>> AllEdits;
  std::map<std::string, std::string> Originals;
  for (const std::string &Src : Sources) {
    TUResult R = processTranslationUnit(Src, Opts);
    Sum.add(R);
    if (R.Failed) {
      llvm::errs() << "tma-modernize: error: " << R.FailMessage << " [tma-201]\n";
      for (const CompilerError &E : R.Errors) {
        if (!E.Where.File.empty())
          llvm::errs() << E.Where.File << ":" << E.Where.Line << ":" << E.Where.Column << ": ";
        llvm::errs() << "note: compiler error: " << E.Message << "\n";
      }
      Exit = 2;
      continue;
    }
    if (!R.Errors.empty())
      llvm::errs() << R.File << ": warning: clang reports " << R.Errors.size() << " error"
                   << (R.Errors.size() == 1 ? "" : "s")
                   << " in this translation unit; descriptors whose code holds one are not "
                      "rewritten, the rest is (--strict refuses the whole file) [tma-201]\n";
    for (const Message &M : messagesFor(R, Writes))
      printMessage(llvm::errs(), M);
    if (R.RefusedForErrors)
      Exit = 2;
    // A header edited from two TUs must get the same edits from both.
    bool Clash = false;
    for (const auto &[File, List] : R.Edits)
      for (const TextEdit &E : List)
        for (const TextEdit &Prev : AllEdits[File])
          Clash |= editsConflict(E, Prev);
    if (Clash) {
      llvm::errs() << "tma-modernize: error: edits from '" << Src
                   << "' conflict with edits from an earlier file; its edits are dropped "
                      "[tma-109]\n";
      Exit = 2;
      continue;
    }
    for (auto &[File, List] : R.Edits) {
      auto &Dest = AllEdits[File];
      for (const TextEdit &E : List)
        if (std::find(Dest.begin(), Dest.end(), E) == Dest.end())
          Dest.push_back(E);
      Originals.emplace(File, R.Original[File]);
    }
  }

  for (auto &[File, List] : AllEdits) {
    llvm::sort(List);
    if (DryRun || Check)
      llvm::outs() << unifiedDiff(File, Originals[File], List);
    if (!Writes)
      continue;
    llvm::Expected<std::string> New = applyEdits(Originals[File], File, List);
    if (!New) {
      llvm::errs() << "tma-modernize: error: " << File << ": " << llvm::toString(New.takeError())
                   << "; file left untouched\n";
      Exit = 2;
      continue;
    }
    if (llvm::Error E = writeFileAtomically(File, *New)) {
      llvm::errs() << "tma-modernize: error: " << llvm::toString(std::move(E)) << "\n";
      Exit = 2;
    }
  }
  if (!ExportFixes.empty()) {
    std::error_code EC;
    llvm::raw_fd_ostream OS(ExportFixes, EC, llvm::sys::fs::OF_Text);
    if (EC) {
      llvm::errs() << "tma-modernize: error: cannot write '" << ExportFixes
                   << "': " << EC.message() << "\n";
      return 2;
    }
    OS << exportFixesYaml(normalizePath(Sources.front()), AllEdits);
  }
  printSummary(llvm::errs(), Sum,
               Writes ? "rewritten" : (Check ? "to rewrite" : "would be rewritten"));
  if (Exit == 0 && Check && !AllEdits.empty())
    Exit = 1;
  return Exit;
}
