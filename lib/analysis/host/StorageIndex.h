// The storage index (host/StorageIndex.cpp): every storage of a descriptor
// pointer in a translation unit, with every reference and every stored value.
#pragma once

#include "DeviceStorage.h"

#include "clang/AST/ParentMap.h"

#include <map>
#include <memory>
#include <optional>
#include <set>

namespace tma::analysis {

/// A pointer to a descriptor, or a reference to such a pointer.
bool holdsDescriptorPointer(clang::QualType T);
/// `CUdeviceptr` (the integer the driver API uses for a device address), or
/// a reference to one: a storage once a descriptor's device copy is in it.
bool holdsDeviceAddress(clang::QualType T);
/// What a storage of the rule may be: either of the two above.
bool holdsDescriptorAddress(clang::QualType T);

/// `std::unique_ptr<CUtensorMap, D>`, however spelled (an alias, a typedef,
/// cv, the library's inline namespace): its deleter type D; a null type for
/// any other type (a reference to an owner included).
clang::QualType ownedDescriptorDeleter(clang::QualType T);

/// Why the owner's deleter \p D cannot be followed to its free (the default
/// deleter, a function pointer, a lambda, a class without one seen
/// `operator()(CUtensorMap *)`), or its call operator.
struct DeleterCall {
  const clang::CXXMethodDecl *Op = nullptr;
  std::string WhyNot;
};
DeleterCall deleterCallOf(clang::QualType D, const SourceText &ST);

/// A class (not a lambda) with a user `operator()` taking a descriptor
/// pointer: it may free a device copy when called, and an owner may call it
/// from its destructor.
bool mayBeDeleter(const clang::CXXRecordDecl *RD);

/// The construction \p E makes (through cleanups, temporaries and the
/// functional cast of `T(p)`), or null.
const clang::CXXConstructExpr *constructionOf(const clang::Expr *E);

/// One slot of a holder variable (`maps[0]`, `a[1]` of a `std::array` or
/// `std::vector`, `p.first`, `std::get<1>(t)`, `*o`, `o.value()`), named
/// with a constant: the holder, the reference to it, the slot.
struct HolderSlot {
  const clang::VarDecl *Container = nullptr;
  const clang::DeclRefExpr *Ref = nullptr;
  int64_t Index = 0;
};
std::optional<HolderSlot> holderSlotOf(const clang::Expr *E, clang::ASTContext &Ctx);
/// The values \p V's initialiser stores into its slots, by slot: the
/// braces of an array or `std::array`, the arguments of a `std::pair`,
/// `std::tuple` or `std::optional` constructor from one value per slot.
std::vector<std::pair<int64_t, const clang::Expr *>> holderInitialisers(const clang::VarDecl *V);

struct StorageIndex {
  StorageIndex(clang::ASTContext &Ctx, const SourceText &ST);

  clang::ASTContext &Ctx;
  const SourceText &ST;
  std::map<std::string, StorageNode> Nodes;
  /// Functions whose address is taken: some of their calls are unseen.
  std::set<const clang::FunctionDecl *> AddressTaken;
  /// Calls that hand an object holding a descriptor-pointer field to code
  /// whose body is not seen (which may read or change the field), by the
  /// record that declares the field.
  std::map<const clang::RecordDecl *, const clang::Expr *> RecordEscapes;
  /// Every expression of a class type that may be a deleter (mayBeDeleter),
  /// outside that class's own members: a deleter object handed to code that
  /// is not seen may run its `operator()` there.
  std::map<const clang::CXXRecordDecl *, std::vector<StorageRef>> DeleterObjects;
  /// The first place a possible deleter is a template argument of a type
  /// other than a descriptor owner (`std::unique_ptr<CUtensorMap[], D>`,
  /// `std::tuple<..., D>`), whose code may call its `operator()` unseen.
  std::map<const clang::CXXRecordDecl *, clang::SourceLocation> DeleterElsewhere;
  /// The owner storage each owner initialiser constructs (`d(fresh)`).
  std::map<const clang::CXXConstructExpr *, std::string> OwnerInits;
  /// Storages of a template (keyed by the pattern's position, so shared by
  /// every instantiation) that one instantiation declares with a type the
  /// rule does not follow (`T *p` with T = float): an edit of the shared
  /// text would change that instantiation too. The key's first such type.
  std::map<std::string, std::string> OtherInstantiationType;
  /// User classes handed to library code as a template argument
  /// (`std::make_unique<Plan>`, `std::function<...>` from a lambda,
  /// `std::vector<Plan>::emplace_back`): their constructors and call
  /// operators may run there with arguments the tool does not see. The
  /// library function, for the message.
  std::map<const clang::CXXRecordDecl *, std::string> LibraryHandled;
  /// Classes that derive from each class: an `operator()` they inherit
  /// runs for their objects too.
  std::map<const clang::CXXRecordDecl *, const clang::CXXRecordDecl *> DerivedFrom;
  /// Every reference to each function (canonical declaration), with the
  /// function it is in; and those that are the callee of a direct call.
  std::map<const clang::FunctionDecl *,
           std::vector<std::pair<const clang::DeclRefExpr *, const clang::FunctionDecl *>>>
      FunctionUses;
  std::set<const clang::DeclRefExpr *> DirectCalls;
  /// Each value a holder's initialiser stores into a slot, with the slot's
  /// element key (holderInitialisers): a use of a pointer there joins it.
  std::map<const clang::Expr *, std::string> ElementInits;
  /// Every call that captures or replays a CUDA graph, with its function.
  std::vector<std::pair<const clang::CallExpr *, const clang::FunctionDecl *>> GraphCalls;

  std::string variableKey(const clang::VarDecl *V) const;
  std::string parameterKey(const clang::FunctionDecl *FD, unsigned I) const;
  std::string fieldKey(const clang::FieldDecl *F) const;
  std::string resultKey(const clang::FunctionDecl *FD) const;
  std::string elementKey(const clang::VarDecl *Container, int64_t Index) const;
  StorageNode &node(const std::string &Key, StorageNode::Kind K, const clang::Decl *D,
                    std::string Name);
  const clang::Stmt *parent(const clang::FunctionDecl *Fn, const clang::Stmt *S);

private:
  std::string keyAt(char Kind, const clang::Decl *D) const;
  std::map<const clang::FunctionDecl *, std::unique_ptr<clang::ParentMap>> Parents;
};

} // namespace tma::analysis
