#include "tma/Engine.h"

#include "tma/Output.h"
#include "tma/SourceText.h"

#include "clang/Basic/Diagnostic.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Core/Replacement.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/MemoryBuffer.h"

#include <set>
#include <thread>

using namespace clang;

namespace tma {
namespace {

/// Collects errors with their positions; prints nothing.
class ErrorCollector : public DiagnosticConsumer {
public:
  std::vector<CompilerError> Errors;
  void HandleDiagnostic(DiagnosticsEngine::Level Level, const Diagnostic &Info) override {
    DiagnosticConsumer::HandleDiagnostic(Level, Info);
    if (Level < DiagnosticsEngine::Error)
      return;
    CompilerError E;
    llvm::SmallString<256> Msg;
    Info.FormatDiagnostic(Msg);
    E.Message = std::string(Msg);
    if (Info.hasSourceManager() && Info.getLocation().isValid()) {
      const SourceManager &SM = Info.getSourceManager();
      SourceLocation L = SM.getFileLoc(Info.getLocation());
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

} // namespace

PassRun runPass(CudaSide Side, const std::string &MainFile,
                const std::map<std::string, std::string> &Overlay,
                const EngineOptions &Opts, bool Analyze) {
  PassRun R;
  auto Main = Overlay.find(MainFile);
  if (Main == Overlay.end())
    return R;
  tooling::FileContentMappings Mapped;
  for (const auto &[Path, Text] : Overlay)
    if (Path != MainFile)
      Mapped.push_back({Path, Text});
  ErrorCollector Collector;
  std::unique_ptr<ASTUnit> AST = tooling::buildASTFromCodeWithArgs(
      Main->second, passArguments(Side, Opts.Compile), MainFile, "tma-modernize",
      std::make_shared<PCHContainerOperations>(),
      tooling::getClangStripDependencyFileAdjuster(), Mapped, &Collector);
  R.Errors = std::move(Collector.Errors);
  if (!AST)
    return R;
  R.Ran = true;
  if (Analyze)
    R.Facts = analyzePass(AST->getASTContext(), sideName(Side), Opts.Analysis);
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

static std::set<std::pair<SourcePoint, std::string>>
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
                                                const EngineOptions &Opts, bool Analyze) {
  PassRun Device, Host;
  std::thread T([&] { Device = runPass(CudaSide::Device, File, Overlay, Opts, Analyze); });
  Host = runPass(CudaSide::Host, File, Overlay, Opts, Analyze);
  T.join();
  return {std::move(Device), std::move(Host)};
}

/// The first error the edited text has that the original did not; empty when
/// the edits introduce none.
static std::string newError(const TUResult &R,
                            const std::map<std::string, std::vector<TextEdit>> &Edits,
                            const EngineOptions &Opts, unsigned &Parses) {
  std::map<std::string, std::string> Overlay;
  auto Contents = [&](const std::string &F) -> std::string {
    auto It = R.Original.find(F);
    if (It != R.Original.end())
      return It->second;
    auto Buf = llvm::MemoryBuffer::getFile(F);
    return Buf ? (*Buf)->getBuffer().str() : std::string();
  };
  Overlay[R.File] = Contents(R.File);
  for (const auto &[File, List] : Edits) {
    llvm::Expected<std::string> New = applyEdits(Contents(File), File, List);
    if (!New) {
      std::string Msg = llvm::toString(New.takeError());
      return "edits do not apply: " + Msg;
    }
    Overlay[File] = *New;
  }
  auto [Device, Host] = runBothSides(R.File, Overlay, Opts, /*Analyze=*/false);
  Parses += 2;
  if (!Device.Ran || !Host.Ran)
    return "the edited translation unit could not be parsed";
  auto Expected = errorSet(shiftErrors(R.Errors, Edits));
  for (const PassRun *P : {&Device, &Host})
    for (const CompilerError &E : P->Errors) {
      SourcePoint W = E.Where;
      W.Line = W.Column = 0;
      if (!Expected.count({W, E.Message}))
        return (E.Where.File.empty() ? std::string("<command line>")
                                     : E.Where.File + ":" + std::to_string(E.Where.Line) +
                                           ":" + std::to_string(E.Where.Column)) +
               ": error: " + E.Message + " (" + sideName(P == &Device ? CudaSide::Device
                                                                     : CudaSide::Host)
                                                   .str() +
               " side)";
    }
  return std::string();
}

TUResult processTranslationUnit(const std::string &FileIn, const EngineOptions &Opts) {
  TUResult R;
  R.File = normalizePath(FileIn);
  auto Buf = llvm::MemoryBuffer::getFile(R.File);
  if (!Buf) {
    R.Failed = true;
    R.FailMessage = "cannot read '" + FileIn + "': " + Buf.getError().message();
    return R;
  }
  R.Original[R.File] = (*Buf)->getBuffer().str();

  auto [Device, Host] = runBothSides(R.File, R.Original, Opts, /*Analyze=*/true);
  llvm::append_range(R.Errors, Device.Errors);
  llvm::append_range(R.Errors, Host.Errors);
  // The two sides mostly report the same errors: keep each once.
  llvm::sort(R.Errors);
  R.Errors.erase(std::unique(R.Errors.begin(), R.Errors.end(),
                             [](const CompilerError &A, const CompilerError &B) {
                               return A.Where == B.Where && A.Message == B.Message;
                             }),
                 R.Errors.end());
  if (!Device.Ran || !Host.Ran || (Opts.Strict && !R.Errors.empty())) {
    R.Failed = true;
    R.FailMessage = "'" + FileIn + "' does not parse (" + std::to_string(R.Errors.size()) +
                    " compiler error" + (R.Errors.size() == 1 ? "" : "s") +
                    "); nothing in it is changed";
    return R;
  }

  PlanOptions PO;
  PO.InRoot = Opts.InRoot;
  R.ThePlan = makePlan({Device.Facts, Host.Facts}, PO);

  // Error tolerance: nvcc accepts code clang rejects, so an error elsewhere
  // must not block a rewrite that can be proven. A descriptor whose kernel,
  // followed helpers or launching functions hold an error is refused: the
  // error may hide a use. Verification below then demands exactly the
  // original errors, at their shifted positions, and no new one.
  if (!R.Errors.empty())
    for (size_t I = 0; I < R.ThePlan.Params.size(); ++I) {
      ParamDecision &D = R.ThePlan.Params[I];
      std::vector<Note> Blocking;
      for (const CompilerError &E : R.Errors)
        if (llvm::any_of(D.ReliesOn, [&](const SourceSpan &S) { return S.contains(E.Where); }))
          Blocking.push_back({"compiler error: " + E.Message, E.Where});
      if (Blocking.empty())
        continue;
      ++R.RefusedForErrors;
      Blocker Why{DiagID::ParseError,
                  "clang reports " + std::to_string(Blocking.size()) + " error" +
                      (Blocking.size() == 1 ? "" : "s") +
                      " in code this descriptor relies on",
                  Blocking.front().Where, Blocking};
      if (D.Rewrite)
        R.ThePlan.refuseUnit(D.Unit, Why);
      else
        D.Blockers.insert(D.Blockers.begin(), Why);
    }

  // The original contents of every file a unit edits.
  for (const auto &[File, List] : R.ThePlan.editsByFile())
    if (!R.Original.count(File)) {
      auto B = llvm::MemoryBuffer::getFile(File);
      R.Original[File] = B ? (*B)->getBuffer().str() : std::string();
    }

  if (Opts.Verify) {
    // All units together first; when that fails, each on its own, then the
    // survivors together again.
    for (int Round = 0; Round < 3; ++Round) {
      auto All = R.ThePlan.editsByFile();
      if (All.empty())
        break;
      std::string Err = newError(R, All, Opts, R.VerifyParses);
      if (Err.empty())
        break;
      std::vector<size_t> Live;
      for (size_t U = 0; U < R.ThePlan.Units.size(); ++U)
        if (!R.ThePlan.Units[U].Refused)
          Live.push_back(U);
      Blocker Why{DiagID::VerifyFailed,
                  "the rewritten code does not compile: " + Err, {}, {}};
      if (Live.size() == 1 || Round == 2) {
        for (size_t U : Live)
          R.ThePlan.refuseUnit(U, Why);
        break;
      }
      for (size_t U : Live) {
        std::string UErr = newError(R, R.ThePlan.editsByFile(U), Opts, R.VerifyParses);
        if (!UErr.empty())
          R.ThePlan.refuseUnit(U, {DiagID::VerifyFailed,
                                   "the rewritten code does not compile: " + UErr, {}, {}});
      }
    }
  }
  R.Edits = R.ThePlan.editsByFile();
  for (auto &[File, List] : R.Edits)
    List = tidyDeletions(R.Original[File], std::move(List));
  for (auto It = R.Original.begin(); It != R.Original.end();)
    It = R.Edits.count(It->first) ? std::next(It) : R.Original.erase(It);
  return R;
}

} // namespace tma
