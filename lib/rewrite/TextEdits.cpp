#include "tma/SourceText.h"

#include "clang/AST/Stmt.h"
#include "clang/Basic/CharInfo.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"

using namespace clang;

namespace tma {

std::vector<std::string> identifiersOf(llvm::StringRef Text) {
  std::vector<std::string> Out;
  llvm::StringSet<> Seen;
  size_t I = 0;
  while (I < Text.size()) {
    if (!clang::isAsciiIdentifierStart(Text[I])) {
      // Skip a number whole: `0x1f` names nothing.
      size_t J = I + 1;
      if (clang::isDigit(Text[I]))
        while (J < Text.size() && clang::isAsciiIdentifierContinue(Text[J]))
          ++J;
      I = J;
      continue;
    }
    size_t J = I;
    while (J < Text.size() && clang::isAsciiIdentifierContinue(Text[J]))
      ++J;
    if (Seen.insert(Text.slice(I, J)).second)
      Out.push_back(Text.slice(I, J).str());
    I = J;
  }
  return Out;
}

std::string simpleName(llvm::StringRef Spelling) {
  std::vector<std::string> Ids = identifiersOf(Spelling.split('<').first);
  return Ids.empty() ? std::string() : Ids.back();
}

std::string normalizePath(llvm::StringRef Path) {
  llvm::SmallString<256> Abs(Path);
  llvm::sys::fs::make_absolute(Abs);
  llvm::sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
  llvm::SmallString<256> Real;
  if (!llvm::sys::fs::real_path(Abs, Real))
    return std::string(Real);
  return std::string(Abs);
}

bool isUnder(llvm::StringRef Path, llvm::StringRef Dir) {
  if (!Path.starts_with(Dir))
    return false;
  return Path.size() == Dir.size() || Dir.ends_with("/") || Path[Dir.size()] == '/';
}

std::string SourceText::fileOf(SourceLocation Loc) const {
  FileID FID = SM.getFileID(SM.getExpansionLoc(Loc));
  OptionalFileEntryRef FE = SM.getFileEntryRefForID(FID);
  if (!FE)
    return std::string();
  return normalizePath(FE->getName());
}

SourcePoint SourceText::point(SourceLocation Loc) const {
  SourcePoint P;
  if (Loc.isInvalid())
    return P;
  SourceLocation E = SM.getFileLoc(Loc);
  P.File = fileOf(E);
  P.Offset = SM.getFileOffset(E);
  P.Line = SM.getSpellingLineNumber(E);
  P.Column = SM.getSpellingColumnNumber(E);
  return P;
}

std::optional<CharSourceRange> SourceText::fileRange(SourceRange Tokens) const {
  CharSourceRange R = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(Tokens), SM, LO);
  if (R.isInvalid())
    return std::nullopt;
  return R;
}

std::string SourceText::text(CharSourceRange R) const {
  bool Invalid = false;
  StringRef T = Lexer::getSourceText(R, SM, LO, &Invalid);
  return Invalid ? std::string() : T.str();
}

TextEdit SourceText::replace(CharSourceRange R, std::string Text) const {
  TextEdit E;
  E.File = fileOf(R.getBegin());
  E.Offset = SM.getFileOffset(R.getBegin());
  E.Length = SM.getFileOffset(R.getEnd()) - E.Offset;
  E.Text = std::move(Text);
  return E;
}

TextEdit SourceText::insertBefore(SourceLocation FileLoc, std::string Text) const {
  TextEdit E;
  E.File = fileOf(FileLoc);
  E.Offset = SM.getFileOffset(FileLoc);
  E.Length = 0;
  E.Text = std::move(Text);
  return E;
}

std::optional<CharSourceRange> SourceText::soleMacroArgument(const Stmt *Top,
                                                             const Stmt *Call) const {
  std::optional<CharSourceRange> TopR = fileRange(Top->getSourceRange());
  std::optional<CharSourceRange> CallR = fileRange(Call->getSourceRange());
  if (!TopR || !CallR || !Top->getBeginLoc().isMacroID())
    return std::nullopt;
  unsigned TB = SM.getFileOffset(TopR->getBegin()), TE = SM.getFileOffset(TopR->getEnd());
  unsigned CB = SM.getFileOffset(CallR->getBegin()), CEnd = SM.getFileOffset(CallR->getEnd());
  if (SM.getFileID(TopR->getBegin()) != SM.getFileID(CallR->getBegin()) || CB < TB || CEnd > TE)
    return std::nullopt;
  llvm::StringRef Buf = SM.getBufferData(SM.getFileID(TopR->getBegin()));
  llvm::StringRef Before = Buf.slice(TB, CB).trim();
  llvm::StringRef After = Buf.slice(CEnd, TE).trim();
  if (!Before.ends_with("(") || After != ")")
    return std::nullopt;
  llvm::StringRef Macro = Before.drop_back().trim();
  if (Macro.empty() || !llvm::all_of(Macro, [](char C) { return isAsciiIdentifierContinue(C); }))
    return std::nullopt;
  return TopR;
}

std::optional<TextEdit> SourceText::removeStatement(SourceRange StmtTokens) const {
  std::optional<CharSourceRange> R = fileRange(StmtTokens);
  if (!R)
    return std::nullopt;
  FileID FID = SM.getFileID(R->getBegin());
  bool Invalid = false;
  StringRef Buf = SM.getBufferData(FID, &Invalid);
  if (Invalid)
    return std::nullopt;
  unsigned Begin = SM.getFileOffset(R->getBegin());
  unsigned End = SM.getFileOffset(R->getEnd());
  // Take the ';' that ends the statement (after blanks and comments-free space).
  unsigned P = End;
  while (P < Buf.size() && (Buf[P] == ' ' || Buf[P] == '\t'))
    ++P;
  if (P < Buf.size() && Buf[P] == ';')
    End = P + 1;
  // Alone on its line(s)? Then the lines go too.
  unsigned LineStart = Begin;
  while (LineStart > 0 && (Buf[LineStart - 1] == ' ' || Buf[LineStart - 1] == '\t'))
    --LineStart;
  bool StartsLine = LineStart == 0 || Buf[LineStart - 1] == '\n';
  unsigned LineEnd = End;
  while (LineEnd < Buf.size() && (Buf[LineEnd] == ' ' || Buf[LineEnd] == '\t' ||
                                  Buf[LineEnd] == '\r'))
    ++LineEnd;
  // A trailing '//' comment on the statement's own line goes with it.
  if (StartsLine && Buf.substr(LineEnd).starts_with("//"))
    while (LineEnd < Buf.size() && Buf[LineEnd] != '\n')
      ++LineEnd;
  bool EndsLine = LineEnd == Buf.size() || Buf[LineEnd] == '\n';
  if (StartsLine && EndsLine) {
    Begin = LineStart;
    End = LineEnd < Buf.size() ? LineEnd + 1 : LineEnd;
  } else if (!StartsLine) {
    // "a; b; c;" -> "a; c;": the blanks before the statement go with it.
    Begin = LineStart;
  }
  TextEdit E;
  E.File = fileOf(R->getBegin());
  E.Offset = Begin;
  E.Length = End - Begin;
  return E;
}

std::string SourceText::indentOf(SourceLocation Loc) const {
  auto [File, Offset] = SM.getDecomposedLoc(SM.getExpansionLoc(Loc));
  StringRef Buffer = SM.getBufferData(File);
  size_t Start = Buffer.rfind('\n', Offset ? Offset - 1 : 0);
  Start = Start == StringRef::npos ? 0 : Start + 1;
  size_t End = Start;
  while (End < Buffer.size() && (Buffer[End] == ' ' || Buffer[End] == '\t'))
    ++End;
  return Buffer.slice(Start, End).str();
}

bool SourceText::inSystemHeader(SourceLocation Loc) const {
  return Loc.isValid() && SM.isInSystemHeader(SM.getExpansionLoc(Loc));
}

} // namespace tma
