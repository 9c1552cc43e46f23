#include "tma/OutsideBuilds.h"
#include "tma/SourceText.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace tma;

namespace {

/// A scratch source tree, removed at the end of the test.
struct Tree {
  std::string Root;
  Tree() {
    llvm::SmallString<128> Dir;
    EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("outside-builds", Dir));
    Root = normalizePath(Dir);
  }
  ~Tree() { llvm::sys::fs::remove_directories(Root); }
  std::string path(llvm::StringRef Rel) const { return Root + "/" + Rel.str(); }
  void write(llvm::StringRef Rel, llvm::StringRef Text) const {
    std::string P = path(Rel);
    llvm::sys::fs::create_directories(llvm::sys::path::parent_path(P));
    std::error_code EC;
    llvm::raw_fd_ostream(P, EC) << Text;
  }
};

} // namespace

// A source reaches the edited header directly or through another header of
// the root; hidden folders, the build tree and known sources are left out,
// and so are sources that include nothing of the edited header's name; an
// include a macro computes may be the header.
TEST(OutsideBuilds, FindsSourcesThatIncludeAnEditedFileThroughAnyHeader) {
  Tree T;
  T.write("lib/maps.cuh", "#pragma once\n");
  T.write("lib/all.h", "#  include \"maps.cuh\"\n");
  T.write("tools/direct.cu", "#include \"../lib/maps.cuh\"\n");
  T.write("tools/through.cpp", "#include <lib/all.h>\n");
  T.write("tools/other.cu", "#include \"other.cuh\"\n");
  T.write("tools/computed.cu", "#include MAPS_HEADER\n");
  T.write("tools/known.cu", "#include \"maps.cuh\"\n");
  T.write(".git/hidden.cu", "#include \"maps.cuh\"\n");
  T.write("build/generated.cu", "#include \"maps.cuh\"\n");
  RootIncluders R = sourcesIncluding(T.Root, T.path("build"), {T.path("lib/maps.cuh")},
                                     {T.path("tools/known.cu")});
  EXPECT_TRUE(R.Complete);
  EXPECT_EQ(R.Sources,
            (std::vector<std::string>{T.path("tools/computed.cu"), T.path("tools/direct.cu"),
                                      T.path("tools/through.cpp")}));
}

// More code files than the limit: the search says it is not complete.
TEST(OutsideBuilds, SaysWhenTheRootHoldsMoreFilesThanItReads) {
  Tree T;
  T.write("a.cuh", "\n");
  T.write("b.cu", "#include \"a.cuh\"\n");
  T.write("c.cu", "\n");
  EXPECT_FALSE(sourcesIncluding(T.Root, "", {T.path("a.cuh")}, {}, 2).Complete);
  EXPECT_TRUE(sourcesIncluding(T.Root, "", {T.path("a.cuh")}, {}, 3).Complete);
}
