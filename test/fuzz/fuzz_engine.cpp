// libFuzzer target for the engine: one mutated CUDA source per input.
//
// The input is written to fuzz.cu in a private temporary directory (the only
// directory the run may edit: --in-root), and processRun analyses it on both
// CUDA sides, plans and verifies the edits, exactly as the command line does
// (default flags, tolerant mode, verification on), but writes nothing. Then:
//
//  1. no crash, no sanitizer report (the build has AddressSanitizer);
//  2. every edit is in fuzz.cu, within its bounds, and the engine's copy of
//     the original is the input; the edits do not overlap and apply;
//  3. the rewritten text has no compiler error that the original did not
//     have (compared as the engine compares them: by file, position shifted
//     through the edits, and message; both sides);
//  4. a second run on the rewritten text makes no edit (idempotence).
//
// Any violation prints what went wrong and aborts, so that libFuzzer keeps
// the input as a crash. Build and run with test/fuzz/run.sh.
#include "tma/CompileArgs.h"
#include "tma/Engine.h"
#include "tma/Output.h"
#include "tma/SourceText.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <string>
#include <utility>
#include <vector>

using namespace tma;

namespace {

std::string Dir;  // private temporary directory (--in-root)
std::string File; // Dir/fuzz.cu, normalised
EngineOptions Opts;

[[noreturn]] void fail(const std::string &What, const std::string &Input,
                       const std::string &Rewritten = std::string()) {
  llvm::errs() << "fuzz_engine: FAILED: " << What << "\n";
  if (Input.size() < 4000)
    llvm::errs() << "---- input ----\n" << Input << "\n";
  if (!Rewritten.empty() && Rewritten.size() < 4000)
    llvm::errs() << "---- rewritten ----\n" << Rewritten << "\n";
  llvm::errs() << "--------\n";
  std::abort();
}

void writeFile(const std::string &Path, const std::string &Text) {
  std::ofstream OS(Path, std::ios::binary | std::ios::trunc);
  OS.write(Text.data(), static_cast<std::streamsize>(Text.size()));
  if (!OS) {
    llvm::errs() << "fuzz_engine: cannot write " << Path << "\n";
    std::abort();
  }
}

RunResult runOn(const std::string &Text) {
  writeFile(File, Text);
  TUInput In;
  In.File = File;
  In.Compile = Opts.Compile;
  return processRun({In}, Opts, /*Jobs=*/1);
}

std::string describe(const CompilerError &E) {
  return (E.Where.File.empty() ? std::string("<no position>")
                               : E.Where.File + ":" + std::to_string(E.Where.Line) + ":" +
                                     std::to_string(E.Where.Column) + " (offset " +
                                     std::to_string(E.Where.Offset) + ")") +
         ": " + E.Message;
}

/// Errors of \p Text (both sides), by running the passes directly: used when
/// the second run did not analyse the file (pre-filtered).
std::vector<CompilerError> errorsOf(const std::string &Text) {
  std::map<std::string, std::string> Overlay{{File, Text}};
  std::vector<CompilerError> All;
  for (CudaSide Side : {CudaSide::Device, CudaSide::Host}) {
    PassRun P = runPass(Side, File, Overlay, Opts.Compile, Opts, /*Analyze=*/false);
    All.insert(All.end(), P.Errors.begin(), P.Errors.end());
  }
  return All;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  llvm::SmallString<128> D;
  const char *Tmp = std::getenv("TMPDIR");
  llvm::sys::path::append(D, Tmp && *Tmp ? Tmp : "/tmp", "tma-fuzz-XXXXXX");
  if (!::mkdtemp(D.data())) {
    llvm::errs() << "fuzz_engine: cannot create a temporary directory\n";
    std::abort();
  }
  Dir = normalizePath(D.str());
  File = normalizePath(Dir + "/fuzz.cu");
  CudaInstallation Cuda = findCuda("");
  if (Cuda.Path.empty()) {
    llvm::errs() << "fuzz_engine: " << Cuda.Error << "\n";
    std::abort();
  }
  Opts.Compile.CudaPath = Cuda.Path;
  Opts.Compile.CudaVersion = Cuda.Version;
  if (Cuda.Version && Cuda.Version < 12010)
    Opts.Analysis.ParamSpaceLimit = 4096;
  Opts.InRoot = Dir;
  Opts.Verify = true;
  Opts.Strict = false;
  std::atexit([] {
    llvm::sys::fs::remove(File);
    llvm::sys::fs::remove(Dir);
  });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  const std::string Src(reinterpret_cast<const char *>(Data), Size);
  RunResult R = runOn(Src);
  if (R.TUs.size() != 1)
    fail("processRun returned " + std::to_string(R.TUs.size()) + " translation units", Src);
  if (R.Edits.empty())
    return 0;

  // 2. Edits: in fuzz.cu, in bounds, not overlapping, applicable.
  if (R.TUs.front().Failed)
    fail("edits for a translation unit that failed", Src);
  std::string New;
  for (auto &[F, List] : R.Edits) {
    if (F != File)
      fail("edit of '" + F + "', outside the input file (--in-root " + Dir + ")", Src);
    auto O = R.Original.find(F);
    if (O == R.Original.end())
      fail("no original contents for the edited file", Src);
    if (O->second != Src)
      fail("the engine's original contents differ from the input", Src);
    std::vector<TextEdit> Sorted = List;
    llvm::sort(Sorted);
    for (size_t I = 0; I < Sorted.size(); ++I) {
      const TextEdit &E = Sorted[I];
      if (E.File != F)
        fail("edit listed under '" + F + "' names '" + E.File + "'", Src);
      if (E.Offset > Src.size() || E.Length > Src.size() - E.Offset)
        fail("edit at offset " + std::to_string(E.Offset) + " length " +
                 std::to_string(E.Length) + " is outside the file (" +
                 std::to_string(Src.size()) + " bytes)",
             Src);
      if (I && Sorted[I - 1].Offset + Sorted[I - 1].Length > E.Offset)
        fail("edits overlap at offset " + std::to_string(E.Offset), Src);
    }
    llvm::Expected<std::string> Applied = applyEdits(Src, F, List);
    if (!Applied)
      fail("edits do not apply: " + llvm::toString(Applied.takeError()), Src);
    New = std::move(*Applied);
  }
  if (New == Src)
    fail("edits that change nothing", Src);

  // 4. Idempotence, and the rewritten text's errors for 3.
  RunResult R2 = runOn(New);
  if (!R2.Edits.empty()) {
    std::string Where;
    for (const auto &[F, List] : R2.Edits)
      for (const TextEdit &E : List)
        Where += " " + std::to_string(E.Offset) + "+" + std::to_string(E.Length) + "->'" +
                 E.Text + "'";
    fail("a second run on the rewritten text still edits:" + Where, Src, New);
  }
  const TUStatus &TU2 = R2.TUs.front();
  if (TU2.Failed)
    fail("the rewritten text cannot be processed: " + TU2.FailMessage, Src, New);

  // 3. No new compiler error.
  std::vector<CompilerError> NewErrors = TU2.Skipped ? errorsOf(New) : TU2.Errors;
  auto Expected = errorSet(shiftErrors(R.TUs.front().Errors, R.Edits));
  for (const CompilerError &E : NewErrors) {
    SourcePoint W = E.Where;
    W.Line = W.Column = 0;
    if (!Expected.count({W, E.Message}))
      fail("the rewritten text has a new error: " + describe(E), Src, New);
  }
  return 0;
}
