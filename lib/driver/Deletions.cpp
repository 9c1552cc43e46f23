// tidyDeletions: removed statements leave no blank gaps, no empty lines and
// no comments that described them.
#include "tma/Output.h"

namespace tma {
namespace {

/// Line ends and blanks of one file. A line ends at '\n' (LF, CRLF) or at a
/// '\r' that no '\n' follows (the classic Mac CR-only files): that '\r' is a
/// line end, never a blank, or a deletion would run into the next line's
/// indentation and leave its own line behind, empty. The '\r' of a CRLF is
/// trailing blank.
struct LineText {
  llvm::StringRef Code;

  bool lineEndAt(unsigned I) const {
    return Code[I] == '\n' || (Code[I] == '\r' && (I + 1 == Code.size() || Code[I + 1] != '\n'));
  }
  bool blankAt(unsigned I) const {
    return Code[I] == ' ' || Code[I] == '\t' || (Code[I] == '\r' && !lineEndAt(I));
  }
  bool allBlank(unsigned Begin, unsigned End) const {
    for (unsigned I = Begin; I < End; ++I)
      if (!blankAt(I))
        return false;
    return true;
  }

  struct Line {
    unsigned Begin, End; // End: after the line end (or the end of the file)
  };
  std::vector<Line> lines() const {
    std::vector<Line> Out;
    unsigned Begin = 0;
    for (unsigned I = 0; I < Code.size(); ++I)
      if (lineEndAt(I)) {
        Out.push_back({Begin, I + 1});
        Begin = I + 1;
      }
    if (Begin < Code.size())
      Out.push_back({Begin, unsigned(Code.size())});
    return Out;
  }
  /// The line's text without its line end and surrounding blanks.
  llvm::StringRef trimmed(const Line &L) const {
    return Code.slice(L.Begin, L.End).trim(" \t\r\n");
  }
};

bool isDeletion(const TextEdit &E) { return E.Text.empty() && E.Length; }

/// Joins deletions separated only by blanks.
std::vector<TextEdit> joinDeletions(const LineText &T, const std::vector<TextEdit> &Sorted) {
  std::vector<TextEdit> Out;
  for (const TextEdit &E : Sorted) {
    if (!Out.empty() && isDeletion(E) && isDeletion(Out.back())) {
      unsigned GapBegin = Out.back().Offset + Out.back().Length;
      if (GapBegin <= E.Offset && T.allBlank(GapBegin, E.Offset)) {
        Out.back().Length = E.Offset + E.Length - Out.back().Offset;
        continue;
      }
    }
    Out.push_back(E);
  }
  return Out;
}

/// A deletion that leaves its line blank takes the whole line.
void widenToWholeLines(const LineText &T, std::vector<TextEdit> &Edits) {
  for (TextEdit &E : Edits) {
    if (!isDeletion(E))
      continue;
    unsigned B = E.Offset, End = E.Offset + E.Length;
    while (B > 0 && T.blankAt(B - 1))
      --B;
    unsigned F = End;
    while (F < T.Code.size() && T.blankAt(F))
      ++F;
    bool LineStart = B == 0 || T.lineEndAt(B - 1);
    bool LineEnd = F == T.Code.size() || T.lineEndAt(F);
    if (LineStart && LineEnd && !(E.Offset == B && End > 0 && T.lineEndAt(End - 1))) {
      E.Offset = B;
      E.Length = (F < T.Code.size() ? F + 1 : F) - B;
    }
  }
}

/// The first line of the comment block that ends on line \p Last (`//`
/// lines, and `/* ... */` comments that start a line), or \p Last + 1 when
/// that line is no comment.
size_t commentBlockStart(const LineText &T, const std::vector<LineText::Line> &Lines,
                         size_t Last) {
  size_t Start = Last + 1;
  for (size_t I = Last + 1; I-- > 0;) {
    llvm::StringRef Text = T.trimmed(Lines[I]);
    if (Text.starts_with("//")) {
      Start = I;
      continue;
    }
    if (!Text.ends_with("*/"))
      break;
    size_t Open = I;
    while (Open > 0 && !T.trimmed(Lines[Open]).contains("/*"))
      --Open;
    if (!T.trimmed(Lines[Open]).starts_with("/*"))
      break;
    Start = I = Open;
  }
  return Start;
}

/// A comment block directly above removed lines, when nothing but removed
/// lines follows it up to the next blank line or closing brace, described
/// what was removed: it goes too. Blocks are taken bottom-up, so that a
/// comment above a removed comment goes as well.
void dropOrphanedComments(const LineText &T, std::vector<TextEdit> &Edits) {
  std::vector<LineText::Line> Lines = T.lines();
  std::vector<bool> Removed(Lines.size()), Edited(Lines.size());
  for (const TextEdit &E : Edits)
    for (size_t I = 0; I < Lines.size(); ++I) {
      const LineText::Line &L = Lines[I];
      unsigned End = E.Offset + E.Length;
      bool Touches = E.Length ? E.Offset < L.End && L.Begin < End
                              : L.Begin <= E.Offset && E.Offset < L.End;
      if (isDeletion(E) && E.Offset <= L.Begin && L.End <= End)
        Removed[I] = true;
      else if (Touches)
        Edited[I] = true;
    }
  auto EndsTheGroup = [&](size_t I) {
    llvm::StringRef Text = T.trimmed(Lines[I]);
    return Text.empty() || Text.starts_with("}");
  };
  for (size_t I = Lines.size(); I-- > 1;) {
    if (!Removed[I] || Removed[I - 1])
      continue;
    size_t Start = commentBlockStart(T, Lines, I - 1);
    if (Start == I)
      continue;
    bool OnlyRemoved = true;
    for (size_t J = I; J < Lines.size() && !EndsTheGroup(J) && OnlyRemoved; ++J)
      OnlyRemoved = Removed[J];
    bool Untouched = std::none_of(Edited.begin() + Start, Edited.begin() + I,
                                  [](bool B) { return B; });
    if (!OnlyRemoved || !Untouched)
      continue;
    std::fill(Removed.begin() + Start, Removed.begin() + I, true);
    Edits.push_back({"", Lines[Start].Begin, Lines[I - 1].End - Lines[Start].Begin, ""});
  }
}

} // namespace

std::vector<TextEdit> tidyDeletions(llvm::StringRef Code, std::vector<TextEdit> Edits) {
  LineText T{Code};
  if (Edits.empty())
    return Edits;
  std::string File = Edits.front().File;
  llvm::sort(Edits);
  std::vector<TextEdit> Out = joinDeletions(T, Edits);
  widenToWholeLines(T, Out);
  size_t Before = Out.size();
  dropOrphanedComments(T, Out);
  if (Out.size() != Before) {
    for (TextEdit &E : Out)
      E.File = File;
    llvm::sort(Out);
    Out = joinDeletions(T, Out);
  }
  // Whole lines go with the line end before them rather than after: the same
  // text, but the next line's indentation is not at the edge of an edit
  // (clang-tidy's cleanup re-indents text next to a replacement).
  for (TextEdit &E : Out)
    if (isDeletion(E) && E.Offset > 0 && T.lineEndAt(E.Offset - 1) &&
        T.lineEndAt(E.Offset + E.Length - 1))
      --E.Offset;
  llvm::sort(Out);
  return Out;
}

} // namespace tma
