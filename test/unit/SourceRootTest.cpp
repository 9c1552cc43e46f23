// The default source root (the project a compile database describes) and the
// upward search for an interrupted run's journal.
#include "tma/Commit.h"
#include "tma/SourceRoot.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace tma;

namespace {

/// proj/{app,lib,build,app/deep} under a fresh temporary directory.
struct Project {
  llvm::SmallString<128> Top;
  Project() {
    llvm::SmallString<128> Dir;
    llvm::sys::fs::createUniqueDirectory("tma-root", Dir);
    llvm::sys::fs::real_path(Dir, Top);
    for (const char *Sub : {"proj/app/deep", "proj/lib", "proj/build", "elsewhere"})
      llvm::sys::fs::create_directories(path(Sub));
  }
  ~Project() { llvm::sys::fs::remove_directories(Top); }
  std::string path(llvm::StringRef Name) const {
    llvm::SmallString<128> P(Top);
    llvm::sys::path::append(P, Name);
    return P.str().str();
  }
};

TEST(DefaultSourceRoot, WithoutDatabaseIsTheCurrentDirectory) {
  Project P;
  EXPECT_EQ(defaultSourceRoot(P.path("proj/app"), "", {P.path("proj/lib/a.cu")}),
            P.path("proj/app"));
}

TEST(DefaultSourceRoot, DatabaseAtTheTopOfTheProject) {
  Project P;
  EXPECT_EQ(defaultSourceRoot(P.path("proj/app/deep"), P.path("proj/compile_commands.json"),
                              {P.path("proj/app/main.cu")}),
            P.path("proj"));
}

TEST(DefaultSourceRoot, DatabaseInABuildFolderReachesItsSources) {
  Project P;
  EXPECT_EQ(defaultSourceRoot(P.path("proj/build"), P.path("proj/build/compile_commands.json"),
                              {P.path("proj/app/main.cu"), P.path("proj/lib/b.cu")}),
            P.path("proj"));
  // Run from inside one folder of the project, the root still holds the
  // others its database lists.
  EXPECT_EQ(defaultSourceRoot(P.path("proj/app"), P.path("proj/build/compile_commands.json"),
                              {P.path("proj/app/main.cu"), P.path("proj/lib/b.cu")}),
            P.path("proj"));
}

TEST(DefaultSourceRoot, NeverNarrowerThanTheCurrentDirectory) {
  Project P;
  EXPECT_EQ(defaultSourceRoot(P.Top, P.path("proj/build/compile_commands.json"),
                              {P.path("proj/app/main.cu")}),
            P.Top.str().str());
}

TEST(DefaultSourceRoot, NotAFilesystemRoot) {
  Project P;
  // Only "/" holds both: the root falls back to the current directory.
  EXPECT_EQ(defaultSourceRoot(P.path("proj/app"), P.path("proj/compile_commands.json"),
                              {"/usr/share/x.cu"}),
            P.path("proj/app"));
}

TEST(RootWithJournal, FindsTheJournalAbove) {
  Project P;
  EXPECT_EQ(rootWithJournal(P.path("proj/app/deep")), P.path("proj/app/deep"));
  {
    std::error_code EC;
    llvm::raw_fd_ostream(journalPath(P.path("proj")), EC) << "{}";
    ASSERT_FALSE(EC);
  }
  EXPECT_EQ(rootWithJournal(P.path("proj/app/deep")), P.path("proj"));
  EXPECT_EQ(rootWithJournal(P.path("elsewhere")), P.path("elsewhere"));
}

} // namespace
