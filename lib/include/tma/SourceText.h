// Source positions and edits from AST nodes, through clang's Lexer so that
// macro expansions are mapped (or refused) exactly.
#pragma once

#include "tma/Facts.h"

#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

#include <optional>

namespace clang {
class Stmt;
}

namespace tma {

class SourceText {
public:
  SourceText(const clang::SourceManager &SM, const clang::LangOptions &LO)
      : SM(SM), LO(LO) {}

  /// Absolute normalised path of the file holding \p Loc (its expansion).
  std::string fileOf(clang::SourceLocation Loc) const;
  SourcePoint point(clang::SourceLocation Loc) const;

  /// The file characters a node's token range covers; std::nullopt when the
  /// range crosses a macro boundary (text that cannot be edited alone).
  std::optional<clang::CharSourceRange>
  fileRange(clang::SourceRange Tokens) const;
  std::optional<clang::CharSourceRange> fileRange(clang::SourceLocation Tok) const {
    return fileRange(clang::SourceRange(Tok, Tok));
  }

  std::string text(clang::CharSourceRange R) const;
  TextEdit replace(clang::CharSourceRange R, std::string Text) const;
  TextEdit insertBefore(clang::SourceLocation FileLoc, std::string Text) const;

  /// Deletes a statement, its trailing ';', and the whole line when the
  /// statement is alone on it. Null when the statement is not editable.
  std::optional<TextEdit> removeStatement(clang::SourceRange StmtTokens) const;

  /// The file range of \p Top, a statement-level macro whose only argument
  /// is \p Call (`CHECK(cudaFree(d))`, without the `;`), or null when Top is
  /// not written so.
  std::optional<clang::CharSourceRange> soleMacroArgument(const clang::Stmt *Top,
                                                          const clang::Stmt *Call) const;

  bool inSystemHeader(clang::SourceLocation Loc) const;

  /// The blanks that start the line \p Loc (its expansion) is on, up to the
  /// first other character: the indentation a statement put before it takes.
  std::string indentOf(clang::SourceLocation Loc) const;

  const clang::SourceManager &SM;
  const clang::LangOptions &LO;
};

/// Normalises a path: absolute, no "." or "..", symlinks resolved when the
/// file exists.
std::string normalizePath(llvm::StringRef Path);

/// The identifiers of \p Text, in order, without repeats.
std::vector<std::string> identifiersOf(llvm::StringRef Text);

/// The last name of a qualified, templated spelling: "ns::k<1>" gives "k",
/// "maps.device" gives "device".
std::string simpleName(llvm::StringRef Spelling);

/// Whether normalised \p Path is \p Dir or lies below it (by whole path
/// components: `/a/bc` is not under `/a/b`).
bool isUnder(llvm::StringRef Path, llvm::StringRef Dir);

} // namespace tma
