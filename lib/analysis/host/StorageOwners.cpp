// The storage rule's owners (DeviceStorage.h): a std::unique_ptr<CUtensorMap,
// D> is a storage whose get() reads the pointer; its deleter D's operator()
// joins the group, and is refused where other code may reach it.
#include "DeviceStorage.h"

#include "StorageIndex.h"

#include "../core/Climb.h"
#include "../core/CudaApi.h"
#include "../core/Launch.h"
#include "../core/Types.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;

namespace tma::analysis {

/// The owner storage \p E names (`d`, `plan.map`), if any.
std::optional<std::string> DeviceStorage::ownerOf(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  std::string Key;
  if (const auto *R = dyn_cast<DeclRefExpr>(E)) {
    if (const auto *V = dyn_cast<VarDecl>(R->getDecl()))
      Key = Idx->variableKey(V);
  } else if (const auto *ME = dyn_cast<MemberExpr>(E)) {
    if (const auto *F = dyn_cast<FieldDecl>(ME->getMemberDecl()))
      Key = Idx->fieldKey(F);
  }
  auto It = Key.empty() ? Idx->Nodes.end() : Idx->Nodes.find(Key);
  if (It == Idx->Nodes.end() || It->second.K != StorageNode::Owner)
    return std::nullopt;
  return Key;
}

/// `d.get()`: the pointer the owner `d` holds.
std::string DeviceStorage::ownerRead(const Expr *E) {
  const auto *Call = dyn_cast<CXXMemberCallExpr>(E);
  const CXXMethodDecl *M = Call ? Call->getMethodDecl() : nullptr;
  if (!M || !M->getIdentifier() || M->getName() != "get" || Call->getNumArgs() != 0)
    return "";
  return ownerOf(Call->getImplicitObjectArgument()).value_or("");
}

/// A deleter whose edit no other code can reach: no class derives from it
/// (an `operator()` it inherits would free that class's owners' copies
/// too), and it is declared in this file (another translation unit may own
/// device copies with it).
bool DeviceStorage::deleterClosed(Group &G, const CXXMethodDecl *Op, SourceLocation At) {
  const CXXRecordDecl *D = Op->getParent()->getCanonicalDecl();
  std::string Name = "'" + D->getNameAsString() + "'";
  if (auto It = Idx->DerivedFrom.find(D); It != Idx->DerivedFrom.end())
    return refuse(G, It->second->getLocation(),
                  "'" + It->second->getNameAsString() + "' derives from the deleter " + Name +
                      ", whose 'operator()' it inherits for owners the rule does not follow");
  const SourceManager &SM = ST.SM;
  if (!SM.isInMainFile(SM.getExpansionLoc(D->getLocation())))
    return refuse(G, At, "the deleter " + Name + " is declared in a header: another translation "
                         "unit may own device copies with it");
  return true;
}

/// The deleter object \p E is harmless where it is called
/// (`DeviceFree{}(p)`, a call the index follows) or where it is the deleter
/// argument of an owner's construction (`d(p, DeviceFree{})`).
static bool deleterObjectStaysHere(const Expr *E,
                                   const std::function<const Stmt *(const Stmt *)> &Parent) {
  // Climb what still is the same deleter object: parentheses, casts,
  // temporaries, copies of it.
  const CXXRecordDecl *D = E->getType().getNonReferenceType()->getAsCXXRecordDecl();
  auto SameObject = [&](const Stmt *P) {
    const auto *PE = dyn_cast_or_null<Expr>(P);
    return isa_and_nonnull<ExprWithCleanups>(P) ||
           (PE && PE->getType().getNonReferenceType()->getAsCXXRecordDecl() == D);
  };
  const Stmt *Cur = E;
  const Stmt *P = Parent(Cur);
  while (SameObject(P)) {
    Cur = P;
    P = Parent(Cur);
  }
  if (const auto *OC = dyn_cast_or_null<CXXOperatorCallExpr>(P))
    return OC->getOperator() == OO_Call && OC->getNumArgs() > 0 && OC->getArg(0) == Cur;
  if (const auto *CE = dyn_cast_or_null<CXXConstructExpr>(P))
    return !ownedDescriptorDeleter(CE->getType()).isNull() && CE->getNumArgs() > 1 &&
           CE->getArg(0) != Cur;
  return false;
}

bool DeviceStorage::deleterStaysInOwners(Group &G, const CXXMethodDecl *Op, SourceLocation At) {
  const CXXRecordDecl *D = Op->getParent()->getCanonicalDecl();
  std::string Name = "'" + Op->getParent()->getQualifiedNameAsString() + "'";
  if (auto It = Idx->DeleterElsewhere.find(D); It != Idx->DeleterElsewhere.end())
    return refuse(G, It->second, "the deleter " + Name + " also frees an owner or serves a "
                                 "template here that the storage rule does not follow");
  auto Objects = Idx->DeleterObjects.find(D);
  if (Objects == Idx->DeleterObjects.end())
    return true;
  for (const StorageRef &R : Objects->second) {
    auto Parent = [&](const Stmt *S) { return parent(R.Fn, S); };
    if (!R.Fn || !deleterObjectStaysHere(R.E, Parent))
      return refuse(G, R.E, "a deleter " + Name + " is handed on here, where its "
                            "'operator()' may free memory the storage rule does not follow");
  }
  return true;
}

/// What a use of an owner does, named for a refusal: `d.reset()`, `*d`, a
/// call it is passed to.
static std::string ownerUseText(const StorageNode &N, const Stmt *P) {
  if (const auto *ME = dyn_cast_or_null<MemberExpr>(P))
    return "'" + N.Name + "." + ME->getMemberNameInfo().getAsString() + "'";
  if (const auto *OC = dyn_cast_or_null<CXXOperatorCallExpr>(P))
    return "'operator" + std::string(getOperatorSpelling(OC->getOperator())) + "' of '" + N.Name + "'";
  if (const auto *Call = dyn_cast_or_null<CallExpr>(P)) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    return "'" + N.Name + "' passed to '" + (Callee ? Callee->getQualifiedNameAsString() : "an indirect call") + "'";
  }
  return "'" + N.Name + "'";
}

bool DeviceStorage::classifyOwnerUse(Group &G, const StorageNode &N, const StorageRef &R) {
  auto [Cur, P] = climb(R.E, [&](const Stmt *S) { return parent(R.Fn, S); }, parensAndImplicitCasts);
  const auto *ME = dyn_cast_or_null<MemberExpr>(P);
  const auto *Call = ME ? dyn_cast_or_null<CXXMemberCallExpr>(parent(R.Fn, ME)) : nullptr;
  if (Call && Call->getCallee()->IgnoreParens() == ME && !ownerRead(Call).empty()) {
    // `d.get()` is a read of the pointer, classified as one.
    G.R.Touched.insert(ST.point(Call->getBeginLoc()));
    return classifyPointerUse(G, N, StorageRef{Call, R.Fn});
  }
  if (const auto *Conv = Call ? dyn_cast<CXXConversionDecl>(Call->getMethodDecl()) : nullptr;
      Conv && Conv->getConversionType()->isBooleanType())
    return true; // `if (d)`: a null test
  if (const auto *LE = dyn_cast_or_null<LambdaExpr>(P)) {
    // A capture by reference: the lambda's uses are the owner's own.
    auto Init = LE->capture_init_begin();
    for (const LambdaCapture &C : LE->captures()) {
      if (*Init++ == Cur && C.capturesVariable() && C.getCaptureKind() == LCK_ByRef &&
          !cast<VarDecl>(C.getCapturedVar())->isInitCapture())
        return true;
    }
  }
  if (isa_and_nonnull<UnaryExprOrTypeTraitExpr>(P))
    return true; // sizeof: not evaluated
  if (const auto *Move = dyn_cast_or_null<CallExpr>(P);
      Move && Move->getNumArgs() == 1 && Move->getArg(0) == Cur && Move->getDirectCallee() &&
      Move->getDirectCallee()->isInStdNamespace() && Move->getDirectCallee()->getIdentifier() &&
      Move->getDirectCallee()->getName() == "move")
    return classifyOwnerMove(G, N, R, Move);
  return refuse(G, P ? P->getBeginLoc() : R.E->getBeginLoc(),
                "the owner '" + N.Name + "' is used here other than by get(): " +
                    ownerUseText(N, P) +
                    " (the storage rule follows get(), a null test, and a move into another "
                    "owner it follows)");
}

/// `std::move(d)` into the construction of another owner storage, which
/// joins the group; a move anywhere else refuses.
bool DeviceStorage::classifyOwnerMove(Group &G, const StorageNode &N, const StorageRef &R,
                                      const CallExpr *Move) {
  auto Up = [&](const Stmt *S) { return parent(R.Fn, S); };
  auto [Cur, P] = climb(Move, Up, parensAndCleanups);
  const auto *CE = dyn_cast_or_null<CXXConstructExpr>(P);
  if (auto It = CE ? Idx->OwnerInits.find(CE) : Idx->OwnerInits.end(); It != Idx->OwnerInits.end())
    return join(G, It->second, Move);
  return refuse(G, Move, "the owner '" + N.Name + "' is moved here into something the storage "
                         "rule does not follow");
}

/// An owner's initialiser: `d(p)`, `d{p}`, `d(p, D{})`, `d()` or `d(nullptr)`, or a move
/// from another owner `d(std::move(e))`.
bool DeviceStorage::classifyOwnerDef(Group &G, const StorageNode &N, const Expr *Init,
                                     const FunctionDecl *Fn) {
  const CXXConstructExpr *CE = constructionOf(Init);
  if (!CE)
    return refuse(G, Init, "'" + N.Name + "' is initialised here in a way the storage rule does "
                           "not follow");
  if (CE->getNumArgs() == 0 || isa<CXXDefaultArgExpr>(CE->getArg(0)))
    return true; // empty
  const Expr *First = CE->getArg(0);
  if (ownedDescriptorDeleter(First->getType()).isNull())
    return classifyValue(G, N, First, Fn); // a pointer: null or a storage, which joins
  const Expr *From = First->IgnoreParenImpCasts();
  if (const auto *MT = dyn_cast<MaterializeTemporaryExpr>(From))
    From = MT->getSubExpr()->IgnoreParenImpCasts();
  if (const auto *Move = dyn_cast<CallExpr>(From); Move && Move->getNumArgs() == 1)
    From = Move->getArg(0);
  if (std::optional<std::string> Key = ownerOf(From))
    return join(G, *Key, CE);
  return refuse(G, First, "'" + N.Name + "' takes its device copy here from an owner the "
                          "storage rule does not follow");
}

} // namespace tma::analysis
