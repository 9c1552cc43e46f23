#include "tma/OutsideBuilds.h"

#include "tma/Prefilter.h"
#include "tma/SourceText.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <map>

namespace tma {

namespace {

bool isSourceFile(llvm::StringRef Path) {
  llvm::StringRef Ext = llvm::sys::path::extension(Path);
  return llvm::is_contained({".cu", ".cpp", ".cc", ".cxx", ".c", ".C"}, Ext);
}

bool isCodeFile(llvm::StringRef Path) {
  llvm::StringRef Ext = llvm::sys::path::extension(Path);
  return isSourceFile(Path) ||
         llvm::is_contained({".h", ".hh", ".hpp", ".hxx", ".cuh", ".inl", ".inc", ".ipp", ".tcc"},
                            Ext);
}

/// The last path component of every file \p Text includes; "*" for an
/// include a macro computes (it may name any file).
std::set<std::string> includedNames(llvm::StringRef Text) {
  std::set<std::string> Names;
  for (const IncludeLine &Include : includeLines(Text))
    Names.insert(Include.Computed ? "*" : llvm::sys::path::filename(Include.Name).str());
  return Names;
}

/// The code files under \p Root with the names each includes; false when
/// more than \p Limit files were met.
bool readRoot(const std::string &Root, const std::string &BuildTree, size_t Limit,
              std::map<std::string, std::set<std::string>> &Includes, size_t &Read) {
  std::error_code EC;
  for (llvm::sys::fs::recursive_directory_iterator It(Root, EC), End; It != End && !EC;
       It.increment(EC)) {
    llvm::StringRef Path = It->path();
    llvm::StringRef Name = llvm::sys::path::filename(Path);
    if (It->type() == llvm::sys::fs::file_type::directory_file) {
      if (Name.starts_with(".") || (!BuildTree.empty() && normalizePath(Path) == BuildTree))
        It.no_push();
      continue;
    }
    if (!isCodeFile(Path))
      continue;
    if (++Read > Limit)
      return false;
    auto Buf = llvm::MemoryBuffer::getFile(Path);
    if (!Buf)
      continue; // gone, or unreadable: it builds nothing the run can break
    std::set<std::string> Names = includedNames((*Buf)->getBuffer());
    if (!Names.empty())
      Includes[normalizePath(Path)] = std::move(Names);
  }
  // A directory that vanished while read (another process's scratch files)
  // ends the walk; what was read stands.
  return true;
}

} // namespace

RootIncluders sourcesIncluding(const std::string &Root, const std::string &BuildTree,
                               const std::vector<std::string> &Edited,
                               const std::set<std::string> &Known, size_t Limit) {
  RootIncluders Out;
  std::map<std::string, std::set<std::string>> Includes;
  Out.Complete = readRoot(Root, BuildTree, Limit, Includes, Out.FilesRead);
  std::set<std::string> Names;
  for (const std::string &F : Edited)
    Names.insert(llvm::sys::path::filename(F).str());
  // Files that include a name of the set add their own, until none does.
  std::set<std::string> Reaching;
  for (bool Grew = true; Grew;) {
    Grew = false;
    for (const auto &[File, Included] : Includes) {
      if (Reaching.count(File) ||
          llvm::none_of(Included, [&](const std::string &N) { return N == "*" || Names.count(N); }))
        continue;
      Reaching.insert(File);
      Grew |= Names.insert(llvm::sys::path::filename(File).str()).second;
    }
  }
  for (const std::string &File : Reaching)
    if (isSourceFile(File) && !Known.count(File) && !llvm::is_contained(Edited, File))
      Out.Sources.push_back(File);
  return Out;
}

} // namespace tma
