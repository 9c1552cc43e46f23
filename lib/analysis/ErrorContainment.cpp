#include "tma/ErrorContainment.h"
#include "tma/SourceText.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/DiagnosticParse.h"
#include "clang/Basic/DiagnosticSema.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/MacroInfo.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"

using namespace clang;

namespace tma {
namespace {

/// Whether a type can hold or reach a CUtensorMap: the record itself,
/// pointers, references, arrays, function types, template arguments and
/// fields of records, followed a few levels deep.
class DescriptorTypes {
public:
  bool mentions(QualType T, unsigned Depth = 0) {
    if (T.isNull() || Depth > 6)
      return false;
    T = T.getCanonicalType();
    if (const auto *PT = T->getAs<PointerType>())
      return mentions(PT->getPointeeType(), Depth + 1);
    if (const auto *RT = T->getAs<ReferenceType>())
      return mentions(RT->getPointeeType(), Depth + 1);
    if (const ArrayType *AT = T->getAsArrayTypeUnsafe())
      return mentions(AT->getElementType(), Depth + 1);
    if (const auto *FT = T->getAs<FunctionProtoType>()) {
      for (QualType P : FT->param_types())
        if (mentions(P, Depth + 1))
          return true;
      return mentions(FT->getReturnType(), Depth + 1);
    }
    const RecordDecl *RD = T->getAsRecordDecl();
    if (!RD)
      return false;
    if (RD->getName() == "CUtensorMap_st")
      return true;
    auto Known = Records.find(RD);
    if (Known != Records.end())
      return Known->second;
    Records[RD] = false; // a record that contains itself through a pointer
    bool Found = false;
    if (const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(RD))
      for (const TemplateArgument &A : Spec->getTemplateArgs().asArray())
        if (A.getKind() == TemplateArgument::Type && mentions(A.getAsType(), Depth + 1))
          Found = true;
    if (const RecordDecl *Def = RD->getDefinition())
      for (const FieldDecl *F : Def->fields())
        if (!Found && mentions(F->getType(), Depth + 1))
          Found = true;
    Records[RD] = Found;
    return Found;
  }

private:
  llvm::DenseMap<const RecordDecl *, bool> Records;
};

/// One pass over the user's code (system headers are skipped): the names
/// that may carry a descriptor, and the function bodies errors may sit in.
class Survey : public RecursiveASTVisitor<Survey> {
public:
  Survey(ASTContext &Ctx) : SM(Ctx.getSourceManager()) {}
  bool shouldVisitTemplateInstantiations() const { return false; }

  bool TraverseDecl(Decl *D) {
    if (D && !isa<TranslationUnitDecl>(D) && D->getLocation().isValid() &&
        SM.isInSystemHeader(D->getLocation()))
      return true;
    return RecursiveASTVisitor::TraverseDecl(D);
  }
  bool VisitValueDecl(ValueDecl *VD) {
    if (VD->getDeclName().isIdentifier() && Types.mentions(VD->getType()))
      Carriers.insert(VD->getName());
    return true;
  }
  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (FD->doesThisDeclarationHaveABody())
      Bodies.push_back(FD->getBody());
    return true;
  }
  bool VisitTypedefNameDecl(TypedefNameDecl *TD) {
    if (Types.mentions(TD->getUnderlyingType()))
      TypeNames.insert(TD->getName());
    return true;
  }
  bool VisitRecordDecl(RecordDecl *RD) {
    if (RD->getIdentifier() && Types.mentions(RD->getASTContext().getCanonicalTagType(RD)))
      TypeNames.insert(RD->getName());
    return true;
  }

  llvm::StringSet<> Carriers;
  /// Names of types that can hold or reach a descriptor: CUtensorMap itself
  /// and the user's typedefs, aliases and records of such types.
  llvm::StringSet<> TypeNames = {"CUtensorMap", "CUtensorMap_st"};
  std::vector<const Stmt *> Bodies;

private:
  const SourceManager &SM;
  DescriptorTypes Types;
};

/// The identifiers of a kernel or host spelling: "ns::k<1>" gives ns, k.
void addIdentifiers(llvm::StringRef Text, llvm::StringSet<> &Out) {
  for (const std::string &Name : identifiersOf(Text))
    Out.insert(Name);
}

class Containment {
public:
  Containment(ASTContext &Ctx, Preprocessor &PP, const PassFacts &Facts)
      : Ctx(Ctx), PP(PP), SM(Ctx.getSourceManager()), S(Ctx) {
    S.TraverseDecl(Ctx.getTranslationUnitDecl());
    for (const DescriptorParam &P : Facts.Params) {
      addIdentifiers(P.KernelName, S.Carriers);
      S.Carriers.insert(P.ParamName);
    }
    for (const LaunchSite &L : Facts.Launches) {
      addIdentifiers(L.KernelName, S.Carriers);
      addIdentifiers(L.HostDescriptor, S.Carriers);
    }
    for (const DeviceBuffer &B : Facts.Buffers)
      S.Carriers.insert(B.Name);
  }

  bool contained(const CompilerError &E) {
    if (E.InMacro)
      return false;
    std::optional<ErrorSite> Site = locate(E);
    // Outside a body (a declaration, a signature): the old rule applies.
    if (!Site || !Site->InBody || !Site->Statement)
      return false;
    return !namesAny(Site->FID, *Site->Statement, S.Carriers);
  }

  /// An error in the user's code outside every function body, or in a
  /// statement that names a descriptor type, may have made clang drop a
  /// kernel, a descriptor parameter or a declaration that holds one.
  bool mayHideDescriptors(const CompilerError &E) {
    std::optional<ErrorSite> Site = locate(E);
    if (!Site || SM.isInSystemHeader(SM.getLocForStartOfFile(Site->FID)))
      return false;
    if (!Site->InBody)
      return true;
    return Site->Declaration && namesAny(Site->FID, *Site->Declaration, S.TypeNames);
  }

private:
  using Range = std::pair<unsigned, unsigned>;
  struct ErrorSite {
    FileID FID;
    bool InBody = false;
    /// The statement around the error, or the text between two statements
    /// where clang dropped one; none when it cannot be told.
    std::optional<Range> Statement;
    /// The same, widened to the declaration statement an initialiser is in.
    std::optional<Range> Declaration;
  };

  /// Where an error lies: its file, whether inside a function body, and the
  /// statement around it.
  std::optional<ErrorSite> locate(const CompilerError &E) {
    if (!E.Where.valid())
      return std::nullopt;
    auto FE = SM.getFileManager().getOptionalFileRef(E.Where.File);
    if (!FE)
      return std::nullopt;
    ErrorSite Site;
    Site.FID = SM.translateFile(*FE);
    if (Site.FID.isInvalid())
      return std::nullopt;
    // The innermost body holding the error, then the statement path to it.
    const Stmt *Body = nullptr;
    unsigned BodyLength = ~0u;
    for (const Stmt *B : S.Bodies) {
      auto R = offsets(B, Site.FID);
      if (R && R->first <= E.Where.Offset && E.Where.Offset < R->second &&
          R->second - R->first < BodyLength) {
        Body = B;
        BodyLength = R->second - R->first;
      }
    }
    Site.InBody = Body != nullptr;
    if (Body) {
      Site.Statement = statementAround(Body, Site.FID, E.Where.Offset, false);
      Site.Declaration = statementAround(Body, Site.FID, E.Where.Offset, true);
    }
    return Site;
  }

  std::optional<Range> statementAround(const Stmt *Body, FileID FID, unsigned Offset,
                                       bool WithDeclaration) {
    std::vector<const Stmt *> Path;
    deepest(Body, FID, Offset, Path);
    if (Path.empty())
      return std::nullopt;
    if (const auto *CS = dyn_cast<CompoundStmt>(Path.back())) {
      // Between two statements: clang dropped the one the error is in.
      auto Whole = offsets(CS, FID);
      unsigned From = Whole->first, To = Whole->second;
      for (const Stmt *Child : CS->body()) {
        auto R = offsets(Child, FID);
        if (!R)
          return std::nullopt;
        if (R->second <= Offset)
          From = std::max(From, R->second);
        else if (R->first > Offset)
          To = std::min(To, R->first);
      }
      return Range{From, To};
    }
    // The full expression or statement around the error; with
    // \p WithDeclaration, the declaration statement whose initialiser it is
    // (its type is spelled there, outside the expression).
    size_t I = Path.size() - 1;
    while (I > 0 && isa<Expr>(Path[I - 1]))
      --I;
    if (WithDeclaration && I > 0 && isa<DeclStmt>(Path[I - 1]))
      --I;
    return offsets(Path[I], FID);
  }

  /// The file offsets [begin, end) of a statement written in \p FID.
  std::optional<std::pair<unsigned, unsigned>> offsets(const Stmt *St, FileID FID) {
    CharSourceRange R = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(St->getSourceRange()), SM, Ctx.getLangOpts());
    if (R.isInvalid() || SM.getFileID(R.getBegin()) != FID ||
        SM.getFileID(R.getEnd()) != FID)
      return std::nullopt;
    return std::make_pair(SM.getFileOffset(R.getBegin()), SM.getFileOffset(R.getEnd()));
  }

  void deepest(const Stmt *St, FileID FID, unsigned Offset, std::vector<const Stmt *> &Path) {
    auto R = offsets(St, FID);
    if (!R || Offset < R->first || Offset >= R->second)
      return;
    Path.push_back(St);
    for (const Stmt *Child : St->children())
      if (Child) {
        size_t Before = Path.size();
        deepest(Child, FID, Offset, Path);
        if (Path.size() > Before)
          return;
      }
  }

  /// Whether the source in \p R names one of \p Names, itself or through a
  /// user macro.
  bool namesAny(FileID FID, Range R, const llvm::StringSet<> &Names) {
    auto [Begin, End] = R;
    llvm::StringRef Buf = SM.getBufferData(FID);
    if (End > Buf.size() || Begin >= End)
      return true;
    // The lexer runs to the end of the buffer (clang's lexer relies on the
    // buffer's terminating NUL) and stops at the first token past End.
    Lexer L(SM.getLocForStartOfFile(FID), Ctx.getLangOpts(), Buf.begin(), Buf.begin() + Begin,
            Buf.end());
    Token T;
    while (true) {
      bool Last = L.LexFromRawLexer(T);
      if (SM.getFileOffset(T.getLocation()) >= End || T.is(tok::eof))
        return false;
      if (T.is(tok::raw_identifier) && identifierNames(T.getRawIdentifier(), Names, 0))
        return true;
      if (Last)
        return false;
    }
  }

  /// The name itself, or a user macro whose body names one of \p Names.
  bool identifierNames(llvm::StringRef Name, const llvm::StringSet<> &Names, unsigned Depth) {
    if (Names.contains(Name))
      return true;
    if (Depth > 8)
      return true;
    IdentifierInfo *II = PP.getIdentifierInfo(Name);
    if (!II || !II->hasMacroDefinition())
      return false;
    const MacroInfo *MI = PP.getMacroInfo(II);
    if (!MI || SM.isInSystemHeader(MI->getDefinitionLoc()))
      return false;
    for (const Token &T : MI->tokens())
      if (T.is(tok::identifier) && T.getIdentifierInfo() != II &&
          identifierNames(T.getIdentifierInfo()->getName(), Names, Depth + 1))
        return true;
    return false;
  }

  ASTContext &Ctx;
  Preprocessor &PP;
  const SourceManager &SM;
  Survey S;
};

/// Errors judged by their effect: after each, clang keeps the declaration
/// with its type and every use, so the AST holds what nvcc compiles and
/// nothing the analysis reads is lost. One row per error kind, each with a
/// test (test/lit/patterns/E4-template-dialect.cu, E7-underaligned-alignas.cu).
struct RecoveredError {
  unsigned DiagID;
  const char *Why;
};
const RecoveredError RecoveredErrors[] = {
    // nvcc takes `typename T::name<...>` as a template without the
    // `template` keyword C++ asks for after a dependent `T::`; clang inserts
    // the keyword (its fix-it) and parses on as if it had been written.
    // (Where nvcc rejects the code too, a dependent `s.name<...>()` call, it
    // is not listed.)
    {diag::err_missing_dependent_template_keyword, "the missing 'template' keyword"},
    // `alignas(64) CUtensorMap a, b;`: nvcc accepts it, clang rejects an
    // alignment below the type's 128 and drops only the attribute: the
    // variables are declared with their type, initialisers and uses, at the
    // type's own (larger) alignment.
    {diag::err_alignas_underaligned, "an alignas below the type's alignment"},
};

bool recoveredAsWritten(unsigned DiagID) {
  return llvm::any_of(RecoveredErrors,
                      [&](const RecoveredError &R) { return R.DiagID == DiagID; });
}

} // namespace

std::vector<CompilerError> markContainedErrors(ASTContext &Ctx, Preprocessor &PP,
                                               const PassFacts &Facts,
                                               std::vector<CompilerError> &Errors) {
  std::vector<CompilerError> MayHide;
  if (Errors.empty())
    return MayHide;
  Containment C(Ctx, PP, Facts);
  for (CompilerError &E : Errors) {
    if (recoveredAsWritten(E.DiagID)) {
      E.Contained = true;
      continue;
    }
    // A statement that names a descriptor type is never contained, even when
    // clang dropped the declaration that would make its name a carrier.
    bool Hides = C.mayHideDescriptors(E);
    E.Contained = !Hides && C.contained(E);
    if (Hides)
      MayHide.push_back(E);
  }
  return MayHide;
}

} // namespace tma
