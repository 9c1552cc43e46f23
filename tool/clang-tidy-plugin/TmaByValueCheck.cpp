// clang-tidy plugin: the check `cuda-tma-by-value`. It maps the engine's
// findings to diag() and FixIts; every decision is made in lib/.
#include "tma/SingleSide.h"

#include "clang-tidy/ClangTidyCheck.h"
#include "clang-tidy/ClangTidyModule.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Basic/FileManager.h"
#include "clang/Lex/Preprocessor.h"
#include "tma/SkippedRanges.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace tma {
namespace {

class TmaByValueCheck : public tidy::ClangTidyCheck {
public:
  TmaByValueCheck(StringRef Name, tidy::ClangTidyContext *Context)
      : ClangTidyCheck(Name, Context),
        ParamSpaceLimit(Options.get("ParamSpaceLimit", 32764U)),
        InRoot(Options.get("InRoot", "")),
        ParseOtherSide(flag(Options.get("ParseOtherSide", "true"))),
        OtherSideGpuArch(Options.get("OtherSideGpuArch", "sm_90a")),
        RemoveAcquireFences(flag(Options.get("RemoveAcquireFences", "true"))) {}

  bool isLanguageVersionSupported(const LangOptions &LO) const override {
    return LO.CPlusPlus;
  }
  void storeOptions(tidy::ClangTidyOptions::OptionMap &Opts) override {
    Options.store(Opts, "ParamSpaceLimit", ParamSpaceLimit);
    Options.store(Opts, "InRoot", InRoot);
    Options.store(Opts, "ParseOtherSide", ParseOtherSide ? "true" : "false");
    Options.store(Opts, "OtherSideGpuArch", OtherSideGpuArch);
    Options.store(Opts, "RemoveAcquireFences", RemoveAcquireFences ? "true" : "false");
  }
  void registerPPCallbacks(const SourceManager &, Preprocessor *PP, Preprocessor *) override {
    ThisSide = PP;
    Skipped.clear();
    PP->addPPCallbacks(std::make_unique<SkippedRecorder>(Skipped));
  }
  void registerMatchers(MatchFinder *Finder) override {
    Finder->addMatcher(translationUnitDecl().bind("tu"), this);
  }

  void check(const MatchFinder::MatchResult &Result) override {
    SingleSideOptions O;
    O.Analysis.ParamSpaceLimit = ParamSpaceLimit;
    O.InRoot = InRoot;
    O.ParseOtherSide = ParseOtherSide;
    O.OtherSideGpuArch = OtherSideGpuArch;
    O.RemoveAcquireFences = RemoveAcquireFences;
    O.Skipped = &Skipped;
    const SourceManager &SM = *Result.SourceManager;
    for (const SingleSideFinding &F : analyzeSingleSide(*Result.Context, ThisSide, O)) {
      SourceLocation Loc = locationOf(SM, F.Msg.Where);
      if (Loc.isInvalid())
        continue;
      const DiagInfo &I = info(F.Msg.ID);
      std::string Text = F.Msg.Text + " [" + I.Code.str() + "]";
      if (!F.NoFixReason.empty())
        Text += "; no fix here: " + F.NoFixReason;
      {
        auto D = diag(Loc, "%0") << Text;
        for (const TextEdit &E : F.Fix) {
          SourceLocation B = locationOf(SM, {E.File, E.Offset, 0, 0});
          if (B.isInvalid())
            continue;
          CharSourceRange R = CharSourceRange::getCharRange(B, B.getLocWithOffset(E.Length));
          D << FixItHint::CreateReplacement(R, E.Text);
        }
      }
      for (const Note &N : F.Msg.Notes) {
        SourceLocation NL = locationOf(SM, N.Where);
        diag(NL.isValid() ? NL : Loc, "%0", DiagnosticIDs::Note) << N.Message;
      }
    }
  }

private:
  // Boolean options are read as text: clang-tidy's get<bool> specialisation
  // is not exported from the clang-tidy binary a plugin is loaded into.
  static bool flag(StringRef V) {
    return !(V.equals_insensitive("false") || V == "0" || V.equals_insensitive("off"));
  }

  static SourceLocation locationOf(const SourceManager &SM, const SourcePoint &P) {
    if (!P.valid())
      return SourceLocation();
    auto FE = SM.getFileManager().getOptionalFileRef(P.File);
    if (!FE)
      return SourceLocation();
    FileID FID = SM.translateFile(*FE);
    if (FID.isInvalid())
      return SourceLocation();
    return SM.getLocForStartOfFile(FID).getLocWithOffset(P.Offset);
  }

  const unsigned ParamSpaceLimit;
  const std::string InRoot;
  const bool ParseOtherSide;
  const std::string OtherSideGpuArch;
  const bool RemoveAcquireFences;
  const Preprocessor *ThisSide = nullptr;
  std::vector<SourceRange> Skipped; // this side's inactive #if ranges (issue 33)
};

class TmaModule : public tidy::ClangTidyModule {
public:
  void addCheckFactories(tidy::ClangTidyCheckFactories &Factories) override {
    Factories.registerCheck<TmaByValueCheck>("cuda-tma-by-value");
  }
};

} // namespace
} // namespace tma

static clang::tidy::ClangTidyModuleRegistry::Add<tma::TmaModule>
    X("tma-module", "tma-modernize: TMA descriptors passed by value");
