#include "tma/Output.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

using namespace tma;

static TextEdit edit(unsigned Off, unsigned Len, std::string Text) {
  return {"f.cu", Off, Len, std::move(Text)};
}

TEST(Output, ApplyEditsAndOverlapIsAnError) {
  auto R = applyEdits("abcdef", "f.cu", {edit(1, 2, "X"), edit(5, 0, "!")});
  ASSERT_TRUE(bool(R));
  EXPECT_EQ(*R, "aXde!f");
  auto Bad = applyEdits("abcdef", "f.cu", {edit(1, 3, "X"), edit(2, 2, "Y")});
  EXPECT_FALSE(bool(Bad));
  llvm::consumeError(Bad.takeError());
}

TEST(Output, TidyDeletionsRemovesLinesLeftBlank) {
  std::string Code = "a;\n  f(d); g(d);\nb;\n";
  // Two statements on one line, removed separately.
  std::vector<TextEdit> E = tidyDeletions(Code, {edit(5, 5, ""), edit(11, 5, "")});
  auto R = applyEdits(Code, "f.cu", E);
  ASSERT_TRUE(bool(R));
  EXPECT_EQ(*R, "a;\nb;\n");
}

TEST(Output, TidyDeletionsKeepsOtherCodeOnTheLine) {
  std::string Code = "x; f(d); y;\n";
  auto R = applyEdits(Code, "f.cu", tidyDeletions(Code, {edit(2, 6, "")}));
  ASSERT_TRUE(bool(R));
  EXPECT_EQ(*R, "x; y;\n");
}

/// \p Code with the statements spelled \p Removed deleted (tidied).
static std::string removing(const std::string &Code, std::vector<std::string> Removed) {
  std::vector<TextEdit> Edits;
  for (const std::string &R : Removed)
    Edits.push_back(edit(Code.find(R), R.size(), ""));
  auto Out = applyEdits(Code, "f.cu", tidyDeletions(Code, Edits));
  return Out ? *Out : "<" + llvm::toString(Out.takeError()) + ">";
}

TEST(Output, TidyDeletionsTakesTheCommentOfRemovedStatements) {
  EXPECT_EQ(removing("a;\n  // copy it\n  f(d);\n  g(d);\n\nb;\n", {"f(d);", "g(d);"}),
            "a;\n\nb;\n");
  // Up to a closing brace, and a /* */ block over several lines.
  EXPECT_EQ(removing("{\n  /* the\n     fence */\n  // two\n  f(d);\n}\n", {"f(d);"}), "{\n}\n");
  // The comment's group holds a statement that stays.
  EXPECT_EQ(removing("  // copy it\n  f(d);\n  k(h);\n", {"f(d);"}), "  // copy it\n  k(h);\n");
  // A blank line between the comment and the statements.
  EXPECT_EQ(removing("  // copy it\n\n  f(d);\n", {"f(d);"}), "  // copy it\n\n");
  // Code before the comment on its line: not a comment line.
  EXPECT_EQ(removing("x; // note\n  f(d);\n", {"f(d);"}), "x; // note\n");
  // A comment above a removed comment goes too (taken bottom-up).
  EXPECT_EQ(removing("a;\n// one\nf(d);\n// two\ng(d);\n}\n", {"f(d);", "g(d);"}), "a;\n}\n");
}

TEST(Output, UnifiedDiffHunks) {
  std::string Old = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n";
  std::string D = unifiedDiff("f.cu", Old, {edit(2, 2, "two\n"), edit(21, 3, "")});
  EXPECT_EQ(D, "--- f.cu\n+++ f.cu\n"
               "@@ -1,5 +1,5 @@\n 1\n-2\n+two\n 3\n 4\n 5\n"
               "@@ -8,5 +8,4 @@\n 8\n 9\n 10\n-11\n 12\n");
}

TEST(Output, UnifiedDiffMarksMissingNewline) {
  std::string D = unifiedDiff("f.cu", "a\nb", {edit(2, 1, "c")});
  EXPECT_NE(D.find("-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n"),
            std::string::npos)
      << D;
}

TEST(Output, AtomicWriteKeepsModeAndLeavesNoTemporary) {
  llvm::SmallString<128> Dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("tma-unit", Dir));
  llvm::SmallString<128> File(Dir);
  llvm::sys::path::append(File, "x.cu");
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(File, EC);
    OS << "old";
  }
  ::chmod(File.c_str(), 0640);
  ASSERT_FALSE(bool(writeFileAtomically(File, "new contents")));
  auto Buf = llvm::MemoryBuffer::getFile(File);
  ASSERT_TRUE(bool(Buf));
  EXPECT_EQ((*Buf)->getBuffer(), "new contents");
  struct stat St;
  ASSERT_EQ(::stat(File.c_str(), &St), 0);
  EXPECT_EQ(St.st_mode & 0777, 0640u);
  std::error_code EC;
  unsigned Entries = 0;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC; It.increment(EC))
    ++Entries;
  EXPECT_EQ(Entries, 1u);
  llvm::sys::fs::remove_directories(Dir);
}

TEST(Output, ExportFixesYaml) {
  std::string Y = exportFixesYaml("/s/a.cu", {{"/s/a.cu", {{"/s/a.cu", 3, 1, "h"}}}});
  EXPECT_NE(Y.find("MainSourceFile:  '/s/a.cu'"), std::string::npos) << Y;
  EXPECT_NE(Y.find("Offset:          3"), std::string::npos) << Y;
  EXPECT_NE(Y.find("ReplacementText: h"), std::string::npos) << Y;
}
