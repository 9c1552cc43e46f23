// The array type of issue 21 and the position of its definition.
#include "DescriptorArrayType.h"

#include "clang/AST/DeclTemplate.h"

#include <vector>

using namespace clang;

namespace tma::analysis {

const std::string &descriptorArrayDefinition() {
  static const std::string Text =
      "#ifndef TMA_DESCRIPTOR_ARRAY_DEFINED\n"
      "#define TMA_DESCRIPTOR_ARRAY_DEFINED\n"
      "// N tensor maps passed by value as one __grid_constant__ kernel parameter\n"
      "// (tma-modernize): maps[i] is map i, and &maps[i] its address.\n"
      "template <int N> struct TmaDescriptorArray {\n"
      "  CUtensorMap maps[N];\n"
      "  __host__ __device__ const CUtensorMap &operator[](int i) const { return maps[i]; }\n"
      "  // The N maps first[0] .. first[N - 1], copied.\n"
      "  static TmaDescriptorArray copyOf(const CUtensorMap *first) {\n"
      "    TmaDescriptorArray a;\n"
      "    for (int i = 0; i < N; ++i)\n"
      "      a.maps[i] = first[i];\n"
      "    return a;\n"
      "  }\n"
      "};\n"
      "#endif\n";
  return Text;
}

std::string descriptorArrayParam(llvm::StringRef Name) {
  std::string Text = std::string("const __grid_constant__ ") + DescriptorArrayTypeName + "<" +
                     ArrayCountPlaceholder + ">";
  if (!Name.empty())
    Text += " " + Name.str();
  return Text;
}

/// The file-scope declaration that holds \p D (a namespace, a linkage
/// block, the template around a function template), with its begin.
static SourceLocation fileScopeBegin(const Decl *D) {
  while (!isa<TranslationUnitDecl>(D->getDeclContext()))
    D = cast<Decl>(D->getDeclContext());
  if (const auto *FD = dyn_cast<FunctionDecl>(D))
    if (const FunctionTemplateDecl *T = FD->getDescribedFunctionTemplate())
      return T->getBeginLoc();
  return D->getBeginLoc();
}

namespace {
/// The `#include` lines of one file before an offset, each with the
/// conditional blocks (`#if` .. `#elif`/`#else` .. `#endif`) it is in.
struct IncludeScan {
  std::vector<unsigned> Blocks; // the open blocks at the end of the scan
  unsigned AfterInclude = 0;    // the line after the last include in Blocks
  std::vector<unsigned> IncludeBlocks;
  bool Found = false;
};

IncludeScan scanIncludes(llvm::StringRef Buf, unsigned Until, const LangOptions &LO,
                         SourceLocation FileStart) {
  IncludeScan S;
  unsigned NextBlock = 1;
  Lexer Lex(FileStart, LO, Buf.begin(), Buf.begin(), Buf.end());
  Token T;
  while (!Lex.LexFromRawLexer(T)) {
    unsigned Off = T.getLocation().getRawEncoding() - FileStart.getRawEncoding();
    if (Off >= Until)
      break;
    if (!T.is(tok::hash) || !T.isAtStartOfLine())
      continue;
    if (Lex.LexFromRawLexer(T))
      break;
    if (!T.is(tok::raw_identifier))
      continue;
    llvm::StringRef D = T.getRawIdentifier();
    if (D == "if" || D == "ifdef" || D == "ifndef") {
      S.Blocks.push_back(NextBlock++);
    } else if (D == "elif" || D == "else" || D == "elifdef" || D == "elifndef") {
      if (!S.Blocks.empty())
        S.Blocks.back() = NextBlock++;
    } else if (D == "endif") {
      if (!S.Blocks.empty())
        S.Blocks.pop_back();
    } else if (D == "include" || D == "import") {
      size_t EOL = Buf.find('\n', Off);
      S.AfterInclude = EOL == llvm::StringRef::npos ? Buf.size() : EOL + 1;
      S.IncludeBlocks = S.Blocks;
      S.Found = true;
    }
  }
  return S;
}
} // namespace

std::optional<TextEdit> descriptorArrayDefinitionFor(const FunctionDecl *Redecl,
                                                     const SourceText &ST) {
  const SourceManager &SM = ST.SM;
  // `__global__` is a macro: the declaration begins where it expands.
  SourceLocation Begin = SM.getExpansionLoc(fileScopeBegin(Redecl));
  if (Begin.isInvalid() || !Begin.isFileID())
    return std::nullopt;
  FileID FID = SM.getFileID(Begin);
  unsigned Off = SM.getFileOffset(Begin);
  llvm::StringRef Buf = SM.getBufferData(FID);
  IncludeScan S = scanIncludes(Buf, Off, ST.LO, SM.getLocForStartOfFile(FID));
  SourceLocation At;
  std::string Text;
  if (S.Found && S.IncludeBlocks == S.Blocks && S.AfterInclude <= Off) {
    At = SM.getLocForStartOfFile(FID).getLocWithOffset(S.AfterInclude);
    Text = "\n" + descriptorArrayDefinition();
  } else {
    unsigned LineStart = Off;
    while (LineStart > 0 && Buf[LineStart - 1] != '\n')
      --LineStart;
    if (!Buf.slice(LineStart, Off).trim().empty())
      return std::nullopt; // something else on the line before it
    At = SM.getLocForStartOfFile(FID).getLocWithOffset(LineStart);
    Text = descriptorArrayDefinition() + "\n";
  }
  return ST.insertBefore(At, Text);
}

} // namespace tma::analysis
