#include "tma/Prefilter.h"

#include "tma/SourceText.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <deque>

namespace tma {

namespace {

struct UserDirs {
  std::vector<std::string> Quote, Angled, Forced;
};

UserDirs userDirs(const CompileOptions &C) {
  UserDirs D;
  const std::vector<std::string> &A = C.ExtraArgs;
  for (size_t I = 0; I < A.size(); ++I) {
    llvm::StringRef Arg = A[I];
    auto Value = [&](llvm::StringRef Flag, std::vector<std::string> &Into) {
      if (!Arg.starts_with(Flag))
        return false;
      if (Arg.size() > Flag.size())
        Into.push_back(Arg.drop_front(Flag.size()).str());
      else if (I + 1 < A.size())
        Into.push_back(A[++I]);
      return true;
    };
    if (Value("-iquote", D.Quote) || Value("-include", D.Forced))
      continue;
    if (Arg != "-isystem" && !Arg.starts_with("-isysroot"))
      Value("-I", D.Angled);
  }
  return D;
}

bool isIdentChar(char C) { return llvm::isAlnum(C) || C == '_'; }

bool mentionsWord(llvm::StringRef Text, llvm::StringRef Word) {
  for (size_t Pos = Text.find(Word); Pos != llvm::StringRef::npos;
       Pos = Text.find(Word, Pos + 1)) {
    bool Before = Pos > 0 && isIdentChar(Text[Pos - 1]);
    bool After = Pos + Word.size() < Text.size() && isIdentChar(Text[Pos + Word.size()]);
    if (!Before && !After)
      return true;
  }
  return false;
}

std::string existing(llvm::StringRef Dir, llvm::StringRef Name) {
  llvm::SmallString<256> P(Dir);
  llvm::sys::path::append(P, Name);
  if (llvm::sys::fs::is_regular_file(P))
    return normalizePath(P);
  return std::string();
}

} // namespace

PrefilterResult prefilter(const std::string &File, const CompileOptions &Compile) {
  static const char *const Spellings[] = {"CUtensorMap", "TmaDescriptor"};
  PrefilterResult R;
  UserDirs Dirs = userDirs(Compile);
  llvm::StringSet<> Seen;
  std::deque<std::string> Work{normalizePath(File)};
  for (const std::string &F : Dirs.Forced)
    Work.push_back(normalizePath(F));
  while (!Work.empty()) {
    std::string Cur = std::move(Work.front());
    Work.pop_front();
    if (!Seen.insert(Cur).second)
      continue;
    R.Files.push_back(Cur);
    auto Buf = llvm::MemoryBuffer::getFile(Cur);
    if (!Buf) {
      R.Reason = "'" + Cur + "' cannot be read here";
      return R;
    }
    llvm::StringRef Text = (*Buf)->getBuffer();
    for (const char *S : Spellings)
      if (Text.contains(S)) {
        R.Reason = "'" + Cur + "' spells " + S;
        return R;
      }
    llvm::StringRef CurDir = llvm::sys::path::parent_path(Cur);
    for (llvm::StringRef Rest = Text; !Rest.empty();) {
      llvm::StringRef Line;
      std::tie(Line, Rest) = Rest.split('\n');
      llvm::StringRef L = Line.ltrim();
      if (!L.consume_front("#"))
        continue;
      L = L.ltrim();
      if (!(L.consume_front("include_next") || L.consume_front("include") ||
            L.consume_front("import")))
        continue;
      L = L.ltrim();
      if (L.empty())
        continue;
      char Open = L.front();
      if (Open != '"' && Open != '<') {
        R.Reason = "'" + Cur + "' has an include computed by a macro";
        return R;
      }
      size_t Close = L.find(Open == '"' ? '"' : '>', 1);
      if (Close == llvm::StringRef::npos)
        continue;
      llvm::StringRef Name = L.slice(1, Close);
      std::string Found;
      if (Open == '"') {
        Found = existing(CurDir, Name);
        for (const std::string &D : Dirs.Quote)
          if (Found.empty())
            Found = existing(D, Name);
      }
      for (const std::string &D : Dirs.Angled)
        if (Found.empty())
          Found = existing(D, Name);
      // Not in a user directory: a system or toolkit header, not read.
      if (!Found.empty())
        Work.push_back(Found);
    }
  }
  R.MayMatter = false;
  R.Reason = "no descriptor type is spelled in it or in the " +
             std::to_string(R.Files.size() - 1) + " user header" +
             (R.Files.size() == 2 ? "" : "s") + " it may include";
  return R;
}

bool filesMention(const std::vector<std::string> &Files, const std::vector<std::string> &Words) {
  for (const std::string &F : Files) {
    auto Buf = llvm::MemoryBuffer::getFile(F);
    if (!Buf)
      return true;
    for (const std::string &W : Words)
      if (mentionsWord((*Buf)->getBuffer(), W))
        return true;
  }
  return false;
}

} // namespace tma
