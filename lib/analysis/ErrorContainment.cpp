#include "tma/ErrorContainment.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/RecursiveASTVisitor.h"
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

  llvm::StringSet<> Carriers;
  std::vector<const Stmt *> Bodies;

private:
  const SourceManager &SM;
  DescriptorTypes Types;
};

/// The identifiers of a kernel or host spelling: "ns::k<1>" gives ns, k.
void addIdentifiers(llvm::StringRef Text, llvm::StringSet<> &Out) {
  size_t I = 0;
  while (I < Text.size()) {
    if (isAsciiIdentifierStart(Text[I])) {
      size_t J = I;
      while (J < Text.size() && isAsciiIdentifierContinue(Text[J]))
        ++J;
      Out.insert(Text.slice(I, J));
      I = J;
    } else {
      ++I;
    }
  }
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
    if (E.InMacro || !E.Where.valid())
      return false;
    auto FE = SM.getFileManager().getOptionalFileRef(E.Where.File);
    if (!FE)
      return false;
    FileID FID = SM.translateFile(*FE);
    if (FID.isInvalid())
      return false;
    // The innermost body holding the error, then the statement path to it.
    const Stmt *Body = nullptr;
    unsigned BodyLength = ~0u;
    for (const Stmt *B : S.Bodies) {
      auto R = offsets(B, FID);
      if (R && R->first <= E.Where.Offset && E.Where.Offset < R->second &&
          R->second - R->first < BodyLength) {
        Body = B;
        BodyLength = R->second - R->first;
      }
    }
    if (!Body)
      return false; // a declaration, a signature: the old rule applies
    std::vector<const Stmt *> Path;
    deepest(Body, FID, E.Where.Offset, Path);
    if (Path.empty())
      return false;
    std::optional<std::pair<unsigned, unsigned>> Text;
    if (const auto *CS = dyn_cast<CompoundStmt>(Path.back())) {
      // Between two statements: clang dropped the one the error is in.
      auto Whole = offsets(CS, FID);
      unsigned From = Whole->first, To = Whole->second;
      for (const Stmt *Child : CS->body()) {
        auto R = offsets(Child, FID);
        if (!R)
          return false;
        if (R->second <= E.Where.Offset)
          From = std::max(From, R->second);
        else if (R->first > E.Where.Offset)
          To = std::min(To, R->first);
      }
      Text = {{From, To}};
    } else {
      // The full expression or statement around the error.
      size_t I = Path.size() - 1;
      while (I > 0 && isa<Expr>(Path[I - 1]))
        --I;
      Text = offsets(Path[I], FID);
    }
    if (!Text)
      return false;
    return !namesCarrier(FID, Text->first, Text->second);
  }

private:
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

  bool namesCarrier(FileID FID, unsigned Begin, unsigned End) {
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
      if (T.is(tok::raw_identifier) && identifierCarries(T.getRawIdentifier(), 0))
        return true;
      if (Last)
        return false;
    }
  }

  /// The name itself, or a user macro whose body names a carrier.
  bool identifierCarries(llvm::StringRef Name, unsigned Depth) {
    if (S.Carriers.contains(Name))
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
          identifierCarries(T.getIdentifierInfo()->getName(), Depth + 1))
        return true;
    return false;
  }

  ASTContext &Ctx;
  Preprocessor &PP;
  const SourceManager &SM;
  Survey S;
};

} // namespace

void markContainedErrors(ASTContext &Ctx, Preprocessor &PP, const PassFacts &Facts,
                         std::vector<CompilerError> &Errors) {
  if (Errors.empty())
    return;
  Containment C(Ctx, PP, Facts);
  for (CompilerError &E : Errors)
    E.Contained = C.contained(E);
}

} // namespace tma
