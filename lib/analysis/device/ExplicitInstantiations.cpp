// Explicit instantiations of kernel templates, found by lexing (see the
// header): `[extern] template <declaration of name<args>(params)>;`.
#include "ExplicitInstantiations.h"
#include "DescriptorArrayType.h"

using namespace clang;

namespace tma::analysis {

namespace {

bool isIdent(const Token &T, llvm::StringRef S) {
  return T.is(tok::raw_identifier) && T.getRawIdentifier() == S;
}

/// Index just past the `>` that closes the `<` at \p I, or 0.
size_t closeAngle(const std::vector<Token> &T, size_t I) {
  int Depth = 0;
  for (; I < T.size(); ++I) {
    if (T[I].is(tok::less))
      ++Depth;
    else if (T[I].is(tok::greater))
      --Depth;
    else if (T[I].is(tok::greatergreater))
      Depth -= 2;
    else if (T[I].isOneOf(tok::semi, tok::l_brace))
      return 0;
    if (Depth <= 0)
      return Depth == 0 ? I + 1 : 0;
  }
  return 0;
}

/// The parameters of the list opening at \p I (a `(`), split at top-level
/// commas; false when it does not close.
bool splitParams(const std::vector<Token> &T, size_t I,
                 std::vector<std::vector<Token>> &Params) {
  int Depth = 0;
  Params.emplace_back();
  for (; I < T.size(); ++I) {
    const Token &Tok = T[I];
    if (Tok.isOneOf(tok::l_paren, tok::l_square, tok::less))
      ++Depth;
    if (Tok.isOneOf(tok::r_paren, tok::r_square, tok::greater))
      --Depth;
    if (Depth == 0 && Tok.is(tok::r_paren))
      return true;
    if (Depth == 1 && Tok.is(tok::l_paren) && Params.back().empty() && Params.size() == 1)
      continue;
    if (Depth == 1 && Tok.is(tok::comma)) {
      Params.emplace_back();
      continue;
    }
    if (Depth >= 1)
      Params.back().push_back(Tok);
  }
  return false;
}

} // namespace

const std::vector<ExplicitInstantiation> &ExplicitInstantiations::in(FileID FID) {
  auto [It, New] = Files.try_emplace(FID);
  if (!New)
    return It->second;
  bool Invalid = false;
  llvm::StringRef Buf = ST.SM.getBufferData(FID, &Invalid);
  if (Invalid)
    return It->second;
  Lexer Lex(ST.SM.getLocForStartOfFile(FID), ST.LO, Buf.begin(), Buf.begin(), Buf.end());
  std::vector<Token> Toks;
  for (Token T; !Lex.LexFromRawLexer(T);)
    Toks.push_back(T);
  for (size_t I = 0; I + 1 < Toks.size(); ++I) {
    // `template` not followed by `<`: an explicit instantiation.
    if (!isIdent(Toks[I], "template") || Toks[I + 1].is(tok::less))
      continue;
    for (size_t J = I + 1; J + 1 < Toks.size() && !Toks[J].isOneOf(tok::semi, tok::l_brace); ++J) {
      if (!Toks[J].is(tok::raw_identifier) || !Toks[J + 1].is(tok::less))
        continue;
      size_t AfterArgs = closeAngle(Toks, J + 1);
      if (!AfterArgs || AfterArgs >= Toks.size() || !Toks[AfterArgs].is(tok::l_paren))
        continue;
      ExplicitInstantiation EI;
      EI.Name = Toks[J].getRawIdentifier().str();
      if (splitParams(Toks, AfterArgs, EI.Params))
        It->second.push_back(std::move(EI));
      break;
    }
  }
  return It->second;
}

std::optional<TextEdit> ExplicitInstantiations::byValue(const ExplicitInstantiation &EI,
                                                         unsigned P, bool AsArray) const {
  if (P >= EI.Params.size())
    return std::nullopt;
  const std::vector<Token> &T = EI.Params[P];
  size_t Star = T.size();
  for (size_t I = 0; I < T.size(); ++I)
    if (T[I].is(tok::star))
      Star = I;
  if (Star == T.size() || T[Star].getLocation().isMacroID())
    return std::nullopt;
  size_t End = Star + 1;
  while (End < T.size() && T[End].is(tok::raw_identifier) &&
         llvm::is_contained({"const", "volatile", "__restrict__", "__restrict", "restrict"},
                            T[End].getRawIdentifier()))
    ++End;
  if (T.front().getLocation().isMacroID() || T.back().getLocation().isMacroID())
    return std::nullopt;
  // nvcc wants the parameter's __grid_constant__ in the directive too:
  // `const CUtensorMap *m` -> `const __grid_constant__ CUtensorMap m`.
  std::string Pointee;
  for (size_t I = 0; I < Star; ++I) {
    if (isIdent(T[I], "const"))
      continue;
    CharSourceRange R = CharSourceRange::getTokenRange(T[I].getLocation(), T[I].getLocation());
    Pointee += (Pointee.empty() ? "" : " ") + ST.text(R);
  }
  std::string Text = AsArray ? descriptorArrayParam("") : "const __grid_constant__ " + Pointee;
  for (size_t I = End; I < T.size(); ++I)
    Text += " " + ST.text(CharSourceRange::getTokenRange(T[I].getLocation(), T[I].getLocation()));
  CharSourceRange All = CharSourceRange::getCharRange(T.front().getLocation(), T.back().getEndLoc());
  return ST.replace(All, Text);
}

} // namespace tma::analysis
