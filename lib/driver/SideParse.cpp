#include "tma/SideParse.h"

#include "tma/SourceText.h"

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/FileManager.h"
#include "clang/Driver/CreateInvocationFromArgs.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/PrecompiledPreamble.h"
#include "clang/Lex/PreprocessorOptions.h"
#include "clang/Tooling/ArgumentsAdjusters.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/VirtualFileSystem.h"

using namespace clang;

namespace tma {

struct SidePreamble {
  PrecompiledPreamble Preamble;
  std::vector<std::string> FilesRead; // as opened
};

namespace {

/// Collects errors with their positions; prints nothing.
class ErrorCollector : public DiagnosticConsumer {
public:
  std::vector<CompilerError> Errors;
  /// A fatal error stops clang's diagnostics (later errors go unreported), and
  /// an error without a position (a bad flag) may affect any code: after
  /// either, no part of the TU can be trusted.
  bool Untrustworthy = false;
  void HandleDiagnostic(DiagnosticsEngine::Level Level, const Diagnostic &Info) override {
    DiagnosticConsumer::HandleDiagnostic(Level, Info);
    if (Level < DiagnosticsEngine::Error)
      return;
    if (Level == DiagnosticsEngine::Fatal || !Info.getLocation().isValid())
      Untrustworthy = true;
    CompilerError E;
    llvm::SmallString<256> Msg;
    Info.FormatDiagnostic(Msg);
    E.Message = std::string(Msg);
    E.DiagID = Info.getID();
    if (Info.hasSourceManager() && Info.getLocation().isValid()) {
      const SourceManager &SM = Info.getSourceManager();
      SourceLocation L = SM.getFileLoc(Info.getLocation());
      // A system macro (`__shared__`) spelled at the user's position is the
      // user's statement; a user macro's expansion is not followed.
      E.InMacro = Info.getLocation().isMacroID() &&
                  !SM.isInSystemHeader(SM.getSpellingLoc(Info.getLocation()));
      if (OptionalFileEntryRef FE = SM.getFileEntryRefForID(SM.getFileID(L))) {
        E.Where.File = normalizePath(FE->getName());
        E.Where.Offset = SM.getFileOffset(L);
        E.Where.Line = SM.getSpellingLineNumber(L);
        E.Where.Column = SM.getSpellingColumnNumber(L);
      }
    }
    Errors.push_back(std::move(E));
  }
};

/// Records the files the preamble's parse read.
class FilesReadCallbacks : public PreambleCallbacks {
public:
  std::vector<std::string> Files;
  void AfterExecute(CompilerInstance &CI) override {
    const SourceManager &SM = CI.getSourceManager();
    for (auto It = SM.fileinfo_begin(); It != SM.fileinfo_end(); ++It)
      Files.push_back(std::string(It->first.getName()));
  }
};

/// The files of one parse: \p Mapped (and the main file) in memory over the
/// real file system, as clang's tooling maps them.
llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem>
fileSystemFor(const std::string &MainFile, const std::string &MainText,
              const std::map<std::string, std::string> &Mapped) {
  auto Memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  auto Overlay =
      llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(llvm::vfs::getRealFileSystem());
  Overlay->pushOverlay(Memory);
  Memory->addFile(MainFile, 0, llvm::MemoryBuffer::getMemBufferCopy(MainText, MainFile));
  for (const auto &[Path, Text] : Mapped)
    if (Path != MainFile)
      Memory->addFile(Path, 0, llvm::MemoryBuffer::getMemBufferCopy(Text, Path));
  Memory->addFile(nvccCompatHeaderPath(), 0,
                  llvm::MemoryBuffer::getMemBuffer(nvccCompatHeader(), nvccCompatHeaderPath()));
  return Overlay;
}

/// The cc1 invocation of \p Side, as clang's tooling builds it for a
/// syntax-only run (driver errors go to \p Diags).
std::shared_ptr<CompilerInvocation>
invocationFor(CudaSide Side, const std::string &MainFile, const CompileOptions &Compile,
              llvm::IntrusiveRefCntPtr<DiagnosticsEngine> Diags,
              llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> VFS) {
  std::vector<std::string> Args = {"tma-modernize", "-fsyntax-only"};
  llvm::append_range(Args, tooling::getClangStripDependencyFileAdjuster()(
                               passArguments(Side, Compile), MainFile));
  Args.push_back(MainFile);
  std::vector<const char *> Argv;
  for (const std::string &A : Args)
    Argv.push_back(A.c_str());
  CreateInvocationOptions CIOpts;
  CIOpts.Diags = std::move(Diags);
  CIOpts.VFS = std::move(VFS);
  std::unique_ptr<CompilerInvocation> CI = createInvocation(Argv, CIOpts);
  if (!CI)
    return nullptr;
  CI->getFrontendOpts().DisableFree = false;
  // The preprocessor keeps the ranges of inactive `#if` branches (issue 33:
  // code there is not analysed, SkippedRanges.h), the preamble's included.
  CI->getPreprocessorOpts().DetailedRecord = true;
  return std::shared_ptr<CompilerInvocation>(std::move(CI));
}

/// A preamble for the leading includes of \p Main, or null when there are
/// none or they hold an error: error containment reads the AST around an
/// error, which a preamble keeps only in serialised form, so such a TU is
/// parsed whole, as before.
std::shared_ptr<const SidePreamble>
buildPreamble(const CompilerInvocation &CI, const llvm::MemoryBuffer &Main,
              llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> VFS) {
  PreambleBounds Bounds = ComputePreambleBounds(CI.getLangOpts(), Main.getMemBufferRef(), 0);
  if (Bounds.Size == 0)
    return nullptr;
  ErrorCollector Errors;
  DiagnosticOptions DiagOpts = CI.getDiagnosticOpts();
  llvm::IntrusiveRefCntPtr<DiagnosticsEngine> Diags =
      CompilerInstance::createDiagnostics(*VFS, DiagOpts, &Errors, /*ShouldOwnClient=*/false);
  FilesReadCallbacks Callbacks;
  // In a temporary file (deleted with the preamble), as clangd keeps them:
  // a kept preamble (35 MB a side with CCCL's headers) then costs no memory
  // until the verification parse maps the parts it reads.
  llvm::ErrorOr<PrecompiledPreamble> Built = PrecompiledPreamble::Build(
      CI, &Main, Bounds, Diags, VFS, std::make_shared<PCHContainerOperations>(),
      /*StoreInMemory=*/false, /*StoragePath=*/"", Callbacks);
  if (!Built || Diags->hasErrorOccurred() || !Errors.Errors.empty())
    return nullptr;
  return std::make_shared<const SidePreamble>(
      SidePreamble{std::move(*Built), std::move(Callbacks.Files)});
}

} // namespace

PreambleStore::PreambleStore(unsigned Capacity) : Capacity(Capacity) {}
PreambleStore::~PreambleStore() = default;

std::shared_ptr<const SidePreamble> PreambleStore::find(const std::string &File,
                                                        CudaSide Side) const {
  std::lock_guard<std::mutex> Hold(Lock);
  auto It = Kept.find({File, int(Side)});
  return It == Kept.end() ? nullptr : It->second;
}

bool PreambleStore::keep(const std::string &File, CudaSide Side,
                         std::shared_ptr<const SidePreamble> P) {
  std::lock_guard<std::mutex> Hold(Lock);
  std::pair<std::string, int> Key{File, int(Side)};
  bool KnownTU = Kept.count({File, int(CudaSide::Device)}) || Kept.count({File, int(CudaSide::Host)});
  if (!KnownTU && Kept.size() >= 2 * size_t(Capacity))
    return false;
  Kept[Key] = std::move(P);
  return true;
}

unsigned PreambleStore::reuses() const {
  std::lock_guard<std::mutex> Hold(Lock);
  return Reuses;
}

void PreambleStore::countReuse() {
  std::lock_guard<std::mutex> Hold(Lock);
  ++Reuses;
}

ParsedSide parseSide(CudaSide Side, const std::string &MainFile, const std::string &MainText,
                     const std::map<std::string, std::string> &Mapped,
                     const CompileOptions &Compile, const PreambleStore *Store,
                     PreambleUse Use) {
  ParsedSide R;
  auto *Owned = new ErrorCollector;
  R.Consumer.reset(Owned);
  ErrorCollector &Collector = *Owned;
  llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> VFS = fileSystemFor(MainFile, MainText, Mapped);
  // The driver's own diagnostics (bad flags) count as errors of the parse.
  DiagnosticOptions DriverDiagOpts;
  std::shared_ptr<CompilerInvocation> CI = invocationFor(
      Side, MainFile, Compile,
      CompilerInstance::createDiagnostics(*VFS, DriverDiagOpts, &Collector, false), VFS);
  if (!CI) {
    R.Errors = Collector.Errors;
    R.Untrustworthy = true;
    return R;
  }
  std::unique_ptr<llvm::MemoryBuffer> Main =
      llvm::MemoryBuffer::getMemBufferCopy(MainText, MainFile);
  if (Use == PreambleUse::Reuse && Store) {
    std::shared_ptr<const SidePreamble> Kept = Store->find(MainFile, Side);
    PreambleBounds Bounds = ComputePreambleBounds(CI->getLangOpts(), Main->getMemBufferRef(), 0);
    if (Kept && Kept->Preamble.CanReuse(*CI, Main->getMemBufferRef(), Bounds, *VFS))
      R.Preamble = std::move(Kept);
  } else if (Use == PreambleUse::Build) {
    R.Built = buildPreamble(*CI, *Main, VFS);
    R.Preamble = R.Built;
  }
  // Over a preamble the main file's text is a remapped buffer, which the
  // ASTUnit owns and frees.
  if (R.Preamble)
    R.Preamble->Preamble.AddImplicitPreamble(*CI, VFS, Main.release());
  auto Files = llvm::makeIntrusiveRefCnt<FileManager>(FileSystemOptions(), VFS);
  llvm::IntrusiveRefCntPtr<DiagnosticsEngine> Diags = CompilerInstance::createDiagnostics(
      *VFS, CI->getDiagnosticOpts(), &Collector, /*ShouldOwnClient=*/false);
  R.AST = ASTUnit::LoadFromCompilerInvocation(CI, std::make_shared<PCHContainerOperations>(),
                                              nullptr, Diags, Files);
  R.Errors = Collector.Errors;
  R.Untrustworthy = Collector.Untrustworthy;
  return R;
}

void collectFilesRead(const ParsedSide &P, std::vector<std::string> &Real,
                      std::map<std::string, std::set<std::string>> &Aliases) {
  auto Add = [&](llvm::StringRef Name) {
    std::string R = normalizePath(Name);
    llvm::SmallString<256> Opened(Name);
    llvm::sys::fs::make_absolute(Opened);
    llvm::sys::path::remove_dots(Opened, /*remove_dot_dot=*/true);
    if (Opened != R)
      Aliases[R].insert(std::string(Opened));
    Real.push_back(std::move(R));
  };
  if (P.Preamble)
    for (const std::string &Name : P.Preamble->FilesRead)
      Add(Name);
  if (!P.AST)
    return;
  const SourceManager &SM = P.AST->getSourceManager();
  for (auto It = SM.fileinfo_begin(); It != SM.fileinfo_end(); ++It)
    Add(It->first.getName());
}

} // namespace tma
