#include "tma/FactsCache.h"

#include "tma/FactsJson.h"
#include "tma/SourceText.h"

#include "clang/Basic/Version.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

namespace tma {

static std::string hexHash(llvm::StringRef Bytes) {
  llvm::XXH128_hash_t H = llvm::xxh3_128bits(llvm::arrayRefFromStringRef(Bytes));
  return llvm::utohexstr(H.high64, /*LowerCase=*/true, /*Width=*/16) +
         llvm::utohexstr(H.low64, /*LowerCase=*/true, /*Width=*/16);
}

std::string FileHashes::of(const std::string &Path) {
  {
    std::lock_guard<std::mutex> Hold(Lock);
    if (auto It = Known.find(Path); It != Known.end())
      return It->second;
  }
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  std::string Hash = Buf ? hexHash((*Buf)->getBuffer()) : std::string();
  std::lock_guard<std::mutex> Hold(Lock);
  return Known.emplace(Path, Hash).first->second;
}

/// The running tool itself: facts computed by another build of the analysis
/// are not reused.
static const std::string &toolIdentity() {
  static const std::string Identity = [] {
    std::string Exe = llvm::sys::fs::getMainExecutable(nullptr, nullptr);
    FileHashes Once;
    return Exe + "@" + Once.of(Exe);
  }();
  return Identity;
}

std::string factsKey(const TUInput &In, const EngineOptions &Opts, bool PrefilterApplies) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  auto Field = [&](llvm::StringRef Name, const auto &Value) { OS << Name << '=' << Value << '\n'; };
  Field("format", FactsFormatVersion);
  Field("clang", CLANG_VERSION_STRING);
  Field("tool", toolIdentity());
  Field("file", normalizePath(In.File));
  Field("cudaPath", In.Compile.CudaPath);
  Field("cudaVersion", In.Compile.CudaVersion);
  Field("nvccMacros", In.Compile.NvccMacros);
  Field("gpuArch", In.Compile.GpuArch);
  Field("lowestSm", In.Compile.LowestSm);
  Field("commandCudaVersion", In.Compile.CommandCudaVersion);
  for (const std::string &A : In.Compile.ExtraArgs)
    Field("arg", A);
  Field("paramSpaceLimit", Opts.Analysis.ParamSpaceLimit);
  Field("scope", static_cast<int>(Opts.Analysis.Scope));
  Field("singleUnit", Opts.Analysis.SingleUnit);
  for (const std::string &U : Opts.Analysis.UnitsNotInRun)
    Field("notInRun", U);
  Field("unitsKnown", Opts.Analysis.UnitsKnown);
  for (const auto &[Unit, Files] : Opts.Analysis.UnitIncludes) {
    Field("unit", Unit);
    for (const std::string &F : Files)
      Field("includes", F);
  }
  Field("strict", Opts.Strict);
  Field("prefilter", PrefilterApplies);
  return hexHash(Text);
}

InputFingerprint fingerprintOf(std::string Key, const TUStatus &TU, FileHashes &Hashes) {
  InputFingerprint F;
  F.Key = std::move(Key);
  F.Files[TU.File] = Hashes.of(TU.File);
  for (const std::vector<std::string> *List : {&TU.Deps, &TU.PrefilterFiles})
    for (const std::string &File : *List)
      F.Files[File] = Hashes.of(File);
  return F;
}

bool fingerprintHolds(const InputFingerprint &F, FileHashes &Hashes) {
  return llvm::all_of(F.Files, [&](const auto &KV) { return Hashes.of(KV.first) == KV.second; });
}

std::string factsFileName(llvm::StringRef File, bool PrefilterApplies) {
  return (llvm::sys::path::filename(File) + "-" + hexHash(File).substr(0, 16) +
          (PrefilterApplies ? "" : ".full") + ".json")
      .str();
}

llvm::Error writeFactsFile(const std::string &Path, const TUFacts &Unit) {
  llvm::SmallString<256> Temp;
  int FD;
  if (std::error_code EC = llvm::sys::fs::createUniqueFile(Path + ".tmp-%%%%%%", FD, Temp))
    return llvm::createStringError(EC, "cannot write '%s': %s", Path.c_str(),
                                   EC.message().c_str());
  {
    llvm::raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << factsToJson(Unit);
    if (OS.has_error()) {
      std::error_code EC = OS.error();
      OS.clear_error();
      llvm::sys::fs::remove(Temp);
      return llvm::createStringError(EC, "cannot write '%s': %s", Path.c_str(),
                                     EC.message().c_str());
    }
  }
  if (std::error_code EC = llvm::sys::fs::rename(Temp, Path)) {
    llvm::sys::fs::remove(Temp);
    return llvm::createStringError(EC, "cannot write '%s': %s", Path.c_str(),
                                   EC.message().c_str());
  }
  return llvm::Error::success();
}

llvm::Expected<TUFacts> readFactsFile(const std::string &Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  if (!Buf)
    return llvm::createStringError(Buf.getError(), "cannot read '%s': %s", Path.c_str(),
                                   Buf.getError().message().c_str());
  llvm::Expected<TUFacts> Unit = factsFromJson((*Buf)->getBuffer());
  if (!Unit)
    return llvm::createStringError("'%s': %s", Path.c_str(),
                                   llvm::toString(Unit.takeError()).c_str());
  return Unit;
}

std::optional<TUFacts> loadCachedFacts(const std::string &Dir, const std::string &File,
                                       const std::string &Key, bool PrefilterApplies,
                                       FileHashes &Hashes) {
  llvm::SmallString<256> Path(Dir);
  llvm::sys::path::append(Path, factsFileName(File, PrefilterApplies));
  if (!llvm::sys::fs::exists(Path))
    return std::nullopt;
  llvm::Expected<TUFacts> Unit = readFactsFile(std::string(Path));
  if (!Unit) {
    llvm::consumeError(Unit.takeError()); // another version, or damaged: recomputed
    return std::nullopt;
  }
  if (Unit->Inputs.Key != Key || Unit->Status.File != File ||
      !fingerprintHolds(Unit->Inputs, Hashes))
    return std::nullopt;
  return std::move(*Unit);
}

} // namespace tma

namespace tma {

static std::string documentPath(const std::string &Dir, const std::string &File) {
  llvm::SmallString<256> Path(Dir);
  llvm::sys::path::append(Path, factsFileName(File));
  return std::string(Path);
}

llvm::Error exportFacts(const std::string &Dir, const std::vector<TUFacts> &Units) {
  if (std::error_code EC = llvm::sys::fs::create_directories(Dir))
    return llvm::createStringError(EC, "cannot create '%s': %s", Dir.c_str(),
                                   EC.message().c_str());
  for (const TUFacts &U : Units)
    if (llvm::Error E = writeFactsFile(documentPath(Dir, U.Status.File), U))
      return E;
  return llvm::Error::success();
}

/// Whether \p Unit was computed from the inputs \p In has now.
static bool exportedFrom(const TUFacts &Unit, const TUInput &In, const EngineOptions &Opts,
                         FileHashes &Hashes) {
  bool PrefilterApplied = Opts.Prefilter && !Unit.SecondRound;
  return Unit.Status.File == normalizePath(In.File) &&
         Unit.Inputs.Key == factsKey(In, Opts, PrefilterApplied) &&
         fingerprintHolds(Unit.Inputs, Hashes);
}

llvm::Expected<std::vector<TUFacts>> loadExportedFacts(const std::string &Dir,
                                                       const std::vector<TUInput> &Inputs,
                                                       const EngineOptions &Opts) {
  std::vector<TUFacts> Units;
  FileHashes Hashes;
  for (const TUInput &In : Inputs) {
    std::string File = normalizePath(In.File), Path = documentPath(Dir, File);
    if (!llvm::sys::fs::exists(Path))
      return llvm::createStringError("no facts of '%s' in '%s' (every shard must run "
                                     "--export-facts=%s on the same sources and flags)",
                                     File.c_str(), Dir.c_str(), Dir.c_str());
    llvm::Expected<TUFacts> Unit = readFactsFile(Path);
    if (!Unit)
      return Unit.takeError();
    if (!exportedFrom(*Unit, In, Opts, Hashes))
      return llvm::createStringError(
          "the facts of '%s' in '%s' were computed from other inputs (the file or a header "
          "changed since, or other flags or options); export them again",
          File.c_str(), Dir.c_str());
    Unit->Status.Notes = In.Notes;
    Units.push_back(std::move(*Unit));
  }
  return Units;
}

std::vector<TUInput> shardOf(const std::vector<TUInput> &Inputs, unsigned Index, unsigned Count) {
  std::vector<TUInput> Shard;
  for (size_t I = Index - 1; I < Inputs.size(); I += Count)
    Shard.push_back(Inputs[I]);
  return Shard;
}

} // namespace tma

namespace tma {

std::string verificationKey(const TUStatus &TU,
                            const std::map<std::string, std::vector<TextEdit>> &Edits,
                            const std::map<std::string, std::string> &Overlay,
                            FileHashes &Hashes) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  OS << "verify\nclang=" << CLANG_VERSION_STRING << "\ntool=" << toolIdentity() << "\nfile="
     << TU.File << "\narch=" << TU.Compile.GpuArch << "\ncuda=" << TU.Compile.CudaPath << ' '
     << TU.Compile.CudaVersion << ' ' << TU.Compile.NvccMacros << '\n';
  for (const std::string &A : TU.Compile.ExtraArgs)
    OS << "arg=" << A << '\n';
  for (const CompilerError &E : TU.Errors)
    OS << "error=" << E.Where.File << ':' << E.Where.Offset << ':' << E.Message << '\n';
  for (const std::string &Dep : TU.Deps)
    OS << "dep=" << Dep << ' ' << Hashes.of(Dep) << '\n';
  OS << "main=" << Hashes.of(TU.File) << '\n';
  // Only the files the TU reads: an edit elsewhere cannot change its parse
  // (the edits add no #include).
  auto Reads = [&](const std::string &Path) {
    return Path == TU.File || llvm::is_contained(TU.Deps, Path) ||
           llvm::any_of(TU.Aliases, [&](const auto &KV) { return KV.second.count(Path) > 0; });
  };
  for (const auto &[Path, Contents] : Overlay)
    if (Reads(Path))
      OS << "overlay=" << Path << ' ' << hexHash(Contents) << '\n';
  for (const auto &[File, List] : Edits)
    if (Reads(File))
      for (const TextEdit &E : List)
        OS << "edit=" << File << ':' << E.Offset << ':' << E.Length << ':' << hexHash(E.Text)
           << '\n';
  return hexHash(Text);
}

static std::string verificationPath(const std::string &Dir, const std::string &Key) {
  llvm::SmallString<256> Path(Dir);
  llvm::sys::path::append(Path, "verify-" + Key + ".txt");
  return std::string(Path);
}

std::optional<std::string> loadVerification(const std::string &Dir, const std::string &Key) {
  auto Buf = llvm::MemoryBuffer::getFile(verificationPath(Dir, Key));
  if (!Buf)
    return std::nullopt;
  llvm::StringRef Text = (*Buf)->getBuffer();
  if (!Text.consume_front("outcome:")) // damaged: verified again
    return std::nullopt;
  return Text.str();
}

void saveVerification(const std::string &Dir, const std::string &Key, const std::string &Outcome) {
  if (llvm::sys::fs::create_directories(Dir))
    return;
  std::string Path = verificationPath(Dir, Key);
  llvm::SmallString<256> Temp;
  int FD;
  if (llvm::sys::fs::createUniqueFile(Path + ".tmp-%%%%%%", FD, Temp))
    return;
  {
    llvm::raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << "outcome:" << Outcome;
  }
  if (llvm::sys::fs::rename(Temp, Path))
    llvm::sys::fs::remove(Temp);
}

} // namespace tma
