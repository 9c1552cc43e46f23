// The default source root (the project the run's files belong to), and the
// upward search for an interrupted run's journal.
#include "tma/SourceRoot.h"

#include "tma/Commit.h"
#include "tma/SourceText.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

namespace tma {
namespace {

/// The deepest directory holding both \p A and \p B.
std::string commonDirectory(llvm::StringRef A, llvm::StringRef B) {
  std::string Dir = A.str();
  while (!isUnder(B, Dir)) {
    llvm::StringRef Parent = llvm::sys::path::parent_path(Dir);
    if (Parent.empty() || Parent == Dir)
      return std::string();
    Dir = Parent.str();
  }
  return Dir;
}

} // namespace

std::string defaultSourceRoot(llvm::StringRef Cwd, llvm::StringRef DatabaseFile,
                              llvm::ArrayRef<std::string> Listed) {
  std::string Root = normalizePath(Cwd);
  auto Widen = [&](llvm::StringRef Dir) {
    if (!Root.empty())
      Root = commonDirectory(Root, normalizePath(Dir));
  };
  if (DatabaseFile.empty())
    return Root;
  Widen(llvm::sys::path::parent_path(normalizePath(DatabaseFile)));
  for (const std::string &File : Listed)
    Widen(llvm::sys::path::parent_path(normalizePath(File)));
  if (Root.empty() || llvm::sys::path::root_path(Root) == Root)
    return normalizePath(Cwd);
  return Root;
}

std::string rootWithJournal(llvm::StringRef From) {
  std::string Start = normalizePath(From);
  for (llvm::StringRef Dir = Start; !Dir.empty(); Dir = llvm::sys::path::parent_path(Dir)) {
    if (llvm::sys::fs::exists(journalPath(Dir)))
      return Dir.str();
    if (llvm::sys::path::parent_path(Dir) == Dir)
      break;
  }
  return Start;
}

} // namespace tma
