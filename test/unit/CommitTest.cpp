// The write phase as a library: one transaction over a run's files, and the
// recovery of one that was interrupted.
#include "tma/Commit.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace tma;

namespace {

struct TempTree {
  llvm::SmallString<128> Dir;
  TempTree() {
    llvm::sys::fs::createUniqueDirectory("tma-commit", Dir);
    llvm::SmallString<128> Real;
    llvm::sys::fs::real_path(Dir, Real);
    Dir = Real;
  }
  ~TempTree() { llvm::sys::fs::remove_directories(Dir); }
  std::string path(llvm::StringRef Name) const {
    llvm::SmallString<128> P(Dir);
    llvm::sys::path::append(P, Name);
    return P.str().str();
  }
  void write(llvm::StringRef Name, llvm::StringRef Text) const {
    std::error_code EC;
    llvm::raw_fd_ostream OS(path(Name), EC);
    OS << Text;
  }
  std::string read(llvm::StringRef Name) const {
    auto B = llvm::MemoryBuffer::getFile(path(Name));
    return B ? (*B)->getBuffer().str() : "<missing>";
  }
  unsigned entries() const {
    std::error_code EC;
    unsigned N = 0;
    for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC; It.increment(EC))
      ++N;
    return N;
  }
};

/// A run with one unit per file: in each, "old" becomes "new".
RunResult runOver(const TempTree &T, std::vector<std::string> Files) {
  RunResult R;
  for (const std::string &F : Files) {
    std::string Path = T.path(F);
    size_t U = R.ThePlan.Units.size();
    R.ThePlan.Units.emplace_back();
    R.ThePlan.Units[U].Edits.push_back({Path, 0, 3, "new"});
    ParamDecision D;
    D.Key = F;
    D.Rewrite = true;
    D.Unit = U;
    R.ThePlan.Params.push_back(D);
    R.Original[Path] = T.read(F);
  }
  collectAcceptedEdits(R);
  return R;
}

} // namespace

TEST(Commit, WritesEveryFileAndLeavesNoJournal) {
  TempTree T;
  T.write("a.cu", "old a");
  T.write("b.cu", "old b");
  RunResult R = runOver(T, {"a.cu", "b.cu"});
  CommitResult C = commitEdits(R, T.Dir, [] {});
  EXPECT_TRUE(C.Errors.empty());
  EXPECT_EQ(C.Written.size(), 2u);
  EXPECT_EQ(T.read("a.cu"), "new a");
  EXPECT_EQ(T.read("b.cu"), "new b");
  EXPECT_EQ(T.entries(), 2u); // no journal, no temporary file
}

TEST(Commit, AFileChangedSinceItWasReadRefusesItsUnitOnly) {
  TempTree T;
  T.write("a.cu", "old a");
  T.write("b.cu", "old b");
  RunResult R = runOver(T, {"a.cu", "b.cu"});
  T.write("b.cu", "old b, edited meanwhile");
  CommitResult C = commitEdits(R, T.Dir, [] {});
  ASSERT_EQ(C.Errors.size(), 1u);
  EXPECT_NE(C.Errors[0].find("changed on disk"), std::string::npos);
  EXPECT_EQ(T.read("a.cu"), "new a");
  EXPECT_EQ(T.read("b.cu"), "old b, edited meanwhile");
  EXPECT_TRUE(R.ThePlan.Params[0].Rewrite);
  EXPECT_FALSE(R.ThePlan.Params[1].Rewrite);
  EXPECT_EQ(R.ThePlan.Params[1].Blockers.front().ID, DiagID::WriteFailed);
  EXPECT_EQ(R.Edits.count(T.path("b.cu")), 0u); // what is reported is what was written
}

TEST(Commit, RecoveryFinishesFromTheJournal) {
  TempTree T;
  T.write("a.cu", "old a");
  T.write("b.cu", "old b");
  // Stop after the first rename, as a kill would.
  ::setenv("TMA_MODERNIZE_TEST_FAULT", "exit-after-renames:1", 1);
  RunResult R = runOver(T, {"a.cu", "b.cu"});
  EXPECT_EXIT(commitEdits(R, T.Dir, [] {}), testing::ExitedWithCode(70), "");
  ::unsetenv("TMA_MODERNIZE_TEST_FAULT");
  EXPECT_EQ(T.read("a.cu"), "new a");
  EXPECT_EQ(T.read("b.cu"), "old b");
  EXPECT_EQ(recoverInterruptedRun(T.Dir, /*Apply=*/false, [] {}).What, Recovery::Pending);
  Recovery Rec = recoverInterruptedRun(T.Dir, /*Apply=*/true, [] {});
  EXPECT_EQ(Rec.What, Recovery::Finished);
  EXPECT_EQ(Rec.Files, std::vector<std::string>{T.path("b.cu")});
  EXPECT_EQ(T.read("b.cu"), "new b");
  EXPECT_EQ(T.entries(), 2u);
  EXPECT_EQ(recoverInterruptedRun(T.Dir, /*Apply=*/true, [] {}).What, Recovery::Nothing);
}
