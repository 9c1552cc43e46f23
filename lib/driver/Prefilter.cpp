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

/// The spellings of a descriptor type.
const char *const Spellings[] = {"CUtensorMap", "TmaDescriptor"};

/// The first descriptor type \p Text spells, or null.
const char *spelledDescriptor(llvm::StringRef Text) {
  for (const char *S : Spellings)
    if (Text.contains(S))
      return S;
  return nullptr;
}

/// What the walk over a TU's user files does with each file's text: go on,
/// or stop with a reason.
using FileVisit = llvm::function_ref<std::optional<std::string>(const std::string &File,
                                                                llvm::StringRef Text)>;

/// Walks the TU's file and every `#include` that resolves to a user
/// directory (see prefilter()), in breadth-first order, into \p R.Files;
/// stops with R.Reason set when \p Visit says so, a file cannot be read, or
/// an include is computed by a macro. Returns whether it saw every file.
bool walkUserFiles(const std::string &File, const CompileOptions &Compile, PrefilterResult &R,
                   FileVisit Visit) {
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
      return false;
    }
    llvm::StringRef Text = (*Buf)->getBuffer();
    if (std::optional<std::string> Stop = Visit(Cur, Text)) {
      R.Reason = std::move(*Stop);
      return false;
    }
    llvm::StringRef CurDir = llvm::sys::path::parent_path(Cur);
    for (const IncludeLine &Include : includeLines(Text)) {
      if (Include.Computed) {
        R.Reason = "'" + Cur + "' has an include computed by a macro";
        return false;
      }
      llvm::StringRef Name = Include.Name;
      std::string Found;
      if (!Include.Angled) {
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
  return true;
}
} // namespace

std::vector<IncludeLine> includeLines(llvm::StringRef Text) {
  std::vector<IncludeLine> Out;
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
    IncludeLine Include;
    char Open = L.front();
    if (Open != '"' && Open != '<') {
      Include.Computed = true;
      Out.push_back(Include);
      continue;
    }
    size_t Close = L.find(Open == '"' ? '"' : '>', 1);
    if (Close == llvm::StringRef::npos)
      continue;
    Include.Name = L.slice(1, Close);
    Include.Angled = Open == '<';
    Out.push_back(Include);
  }
  return Out;
}

PrefilterResult prefilter(const std::string &File, const CompileOptions &Compile) {
  PrefilterResult R;
  auto Spelled = [](const std::string &Cur, llvm::StringRef Text) -> std::optional<std::string> {
    if (const char *S = spelledDescriptor(Text))
      return "'" + Cur + "' spells " + S;
    return std::nullopt;
  };
  if (!walkUserFiles(File, Compile, R, Spelled))
    return R;
  R.MayMatter = false;
  R.Reason = "no descriptor type is spelled in it or in the " +
             std::to_string(R.Files.size() - 1) + " user header" +
             (R.Files.size() == 2 ? "" : "s") + " it may include";
  return R;
}

std::optional<std::vector<std::string>> userFilesOf(const std::string &File,
                                                   const CompileOptions &Compile,
                                                   bool &SpellsDescriptor) {
  PrefilterResult R;
  SpellsDescriptor = false;
  if (!walkUserFiles(File, Compile, R, [&](const std::string &, llvm::StringRef Text) {
        SpellsDescriptor |= spelledDescriptor(Text) != nullptr;
        return std::optional<std::string>();
      })) {
    SpellsDescriptor = true; // not every file was seen: it may
    return std::nullopt;
  }
  return R.Files;
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
