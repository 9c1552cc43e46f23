#include "tma/SkippedRanges.h"

#include "tma/Engine.h"
#include "tma/Reasons.h"
#include "tma/SourceText.h"

#include "clang/Lex/PreprocessingRecord.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/StringSet.h"

namespace tma {

using namespace clang;

/// The names a rewrite of these facts may change.
static llvm::StringSet<> changeableNames(const PassFacts &F) {
  llvm::StringSet<> Names;
  auto Add = [&](llvm::StringRef Spelling) {
    std::string N = simpleName(Spelling);
    if (!N.empty())
      Names.insert(N);
  };
  for (const DescriptorParam &P : F.Params) {
    Add(P.KernelName);
    Add(P.ParamName);
  }
  for (const DeviceBuffer &B : F.Buffers)
    Add(B.Name);
  for (const LauncherForward &L : F.Launchers)
    Add(L.LauncherName);
  for (const LaunchSite &L : F.Launches)
    Add(L.KernelName);
  return Names;
}

std::vector<SkippedRange> skippedRanges(const Preprocessor &PP, const PassFacts &Facts) {
  PreprocessingRecord *Record = PP.getPreprocessingRecord();
  if (!Record)
    return {};
  return skippedRanges(PP.getSourceManager(), PP.getLangOpts(), Record->getSkippedRanges(), Facts);
}

std::vector<SkippedRange> skippedRanges(const SourceManager &SM, const LangOptions &LO,
                                        llvm::ArrayRef<SourceRange> Ranges,
                                        const PassFacts &Facts) {
  std::vector<SkippedRange> Out;
  llvm::StringSet<> Changeable = changeableNames(Facts);
  SourceText ST(SM, LO);
  for (const SourceRange &R : Ranges) {
    if (R.isInvalid() || SM.isInSystemHeader(R.getBegin()) || !R.getBegin().isFileID())
      continue;
    bool Invalid = false;
    FileIDAndOffset Begin = SM.getDecomposedLoc(R.getBegin());
    FileIDAndOffset End = SM.getDecomposedLoc(R.getEnd());
    llvm::StringRef Buffer = SM.getBufferData(Begin.first, &Invalid);
    if (Invalid || End.first != Begin.first || End.second < Begin.second ||
        End.second > Buffer.size())
      continue;
    SkippedRange S;
    for (std::string &Name : identifiersOf(Buffer.slice(Begin.second, End.second)))
      if (Changeable.contains(Name))
        S.Names.push_back(std::move(Name));
    S.Span.Begin = ST.point(R.getBegin());
    S.Span.End = End.second;
    Out.push_back(std::move(S));
  }
  return Out;
}

std::vector<SkippedRange> skippedByBoth(const std::vector<SkippedRange> &A,
                                        const std::vector<SkippedRange> &B) {
  std::vector<SkippedRange> Out;
  for (const SkippedRange &S : A)
    if (llvm::any_of(B, [&](const SkippedRange &T) { return T.Span == S.Span; })) {
      SkippedRange Both = S;
      // Each pass kept the names its own facts make changeable.
      for (const SkippedRange &T : B)
        if (T.Span == S.Span)
          for (const std::string &N : T.Names)
            if (!llvm::is_contained(Both.Names, N))
              Both.Names.push_back(N);
      if (!Both.Names.empty())
        Out.push_back(std::move(Both));
    }
  return Out;
}

/// The names a unit's rewrite changes, as code outside the analysis may
/// spell them: anywhere (its kernels, launchers, and device copies declared
/// outside the functions it rests on), or only inside those functions (the
/// descriptor parameters, local device copies).
struct ChangedNames {
  std::set<std::string> Anywhere, Inside;
  std::vector<SourceSpan> Functions;
};

static ChangedNames changedNames(const RunResult &R, size_t Unit,
                                 const std::vector<PassFacts> &Facts) {
  ChangedNames C;
  const std::vector<std::string> &Keys = R.ThePlan.Units[Unit].ParamKeys;
  for (const ParamDecision &D : R.ThePlan.Params)
    if (D.Unit == Unit) {
      C.Anywhere.insert(simpleName(D.KernelName));
      C.Inside.insert(D.ParamName);
      llvm::append_range(C.Functions, D.ReliesOn);
    }
  auto InFunctions = [&](const SourcePoint &P) {
    return llvm::any_of(C.Functions, [&](const SourceSpan &S) { return S.contains(P); });
  };
  for (const PassFacts &F : Facts) {
    for (const LauncherForward &L : F.Launchers)
      if (llvm::is_contained(Keys, L.ParamKey))
        C.Anywhere.insert(simpleName(L.LauncherName));
    for (const DeviceBuffer &B : F.Buffers)
      if (llvm::any_of(B.Uses,
                       [&](const HostUse &U) { return llvm::is_contained(Keys, U.ParamKey); }))
        (InFunctions(B.Where) ? C.Inside : C.Anywhere).insert(simpleName(B.Name));
  }
  return C;
}

/// Issue 33: code in an `#if` branch that every pass of a translation unit
/// skipped was never analysed; a unit whose rewrite changes a name spelled
/// there (a kernel, a device copy, a launcher anywhere; a descriptor
/// parameter or a local copy inside the functions the unit rests on) would
/// leave that code behind, and the configuration that compiles it would no
/// longer build. Such a unit is refused.
void refuseInactiveBranches(RunResult &R, const std::vector<PassFacts> &Facts,
                            const std::vector<SkippedRange> &Inactive) {
  if (Inactive.empty())
    return;
  for (size_t U = 0; U < R.ThePlan.Units.size(); ++U) {
    if (R.ThePlan.Units[U].Refused)
      continue;
    ChangedNames C = changedNames(R, U, Facts);
    for (const SkippedRange &S : Inactive) {
      bool Inside = llvm::any_of(C.Functions,
                                 [&](const SourceSpan &F) { return F.contains(S.Span.Begin); });
      auto Named = llvm::find_if(S.Names, [&](const std::string &N) {
        return C.Anywhere.count(N) || (Inside && C.Inside.count(N));
      });
      if (Named == S.Names.end())
        continue;
      R.ThePlan.refuseUnit(
          U, blockerFor(ReasonID::EngineInactiveBranch,
                        {*Named, S.Span.Begin.File + ":" + std::to_string(S.Span.Begin.Line)},
                        S.Span.Begin));
      break;
    }
  }
}

void SkippedRecorder::SourceRangeSkipped(SourceRange Range, SourceLocation EndifLoc) {
  // As clang's PreprocessingRecord keeps it (the `#endif` that ends the
  // branch), so that the two passes' ranges compare equal.
  Ranges.push_back(SourceRange(Range.getBegin(), EndifLoc));
}

} // namespace tma
