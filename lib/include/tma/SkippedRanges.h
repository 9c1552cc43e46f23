// Inactive preprocessor branches (issue 33): code an `#if` of this
// configuration skips is never parsed, so the analysis cannot see what it
// does with a kernel, a device copy or a launcher; an edit of those names
// would leave it unchanged and break the configurations that compile it.
#pragma once

#include "tma/Facts.h"

#include "clang/Lex/PPCallbacks.h"

#include <map>
#include <string>
#include <vector>

namespace clang {
class LangOptions;
class Preprocessor;
class SourceManager;
} // namespace clang

namespace tma {

/// The ranges \p PP skipped in the user's files (not system headers), each
/// with the names in it that \p Facts says a rewrite may change (kernels,
/// descriptor parameters, device copies, launchers), none for a range that
/// names none (the other pass's facts may name some). Needs the
/// preprocessor's detailed record (SideParse turns it on).
std::vector<SkippedRange> skippedRanges(const clang::Preprocessor &PP, const PassFacts &Facts);
/// The same from ranges a SkippedRecorder kept (the clang-tidy check, whose
/// preprocessor has no detailed record).
std::vector<SkippedRange> skippedRanges(const clang::SourceManager &SM,
                                        const clang::LangOptions &LO,
                                        llvm::ArrayRef<clang::SourceRange> Ranges,
                                        const PassFacts &Facts);

/// Keeps the ranges a preprocessor skips, for a parse the tool does not
/// set up itself (clang-tidy's).
class SkippedRecorder : public clang::PPCallbacks {
public:
  explicit SkippedRecorder(std::vector<clang::SourceRange> &Ranges) : Ranges(Ranges) {}
  void SourceRangeSkipped(clang::SourceRange Range, clang::SourceLocation EndifLoc) override;

private:
  std::vector<clang::SourceRange> &Ranges;
};

struct RunResult;
/// Refuses every edit unit of \p R whose rewrite changes a name spelled in
/// one of \p Inactive (ranges every pass of a translation unit skipped):
/// its kernels, launchers and device copies declared outside the functions
/// the unit rests on, anywhere; its descriptor parameters and local device
/// copies inside those functions (tma-111).
void refuseInactiveBranches(RunResult &R, const std::vector<PassFacts> &Facts,
                            const std::vector<SkippedRange> &Inactive);

/// The ranges both passes of one translation unit skipped, with the names
/// either found, those that name something: a branch only the host pass
/// skips (`#ifdef __CUDA_ARCH__`) is seen by the device pass.
std::vector<SkippedRange> skippedByBoth(const std::vector<SkippedRange> &A,
                                        const std::vector<SkippedRange> &B);


} // namespace tma
