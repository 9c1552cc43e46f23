// The storage index (host/StorageIndex.cpp): every storage of a descriptor
// pointer in a translation unit, with every reference and every stored value.
#pragma once

#include "DeviceStorage.h"

#include "clang/AST/ParentMap.h"

#include <map>
#include <memory>
#include <set>

namespace tma::analysis {

/// A pointer to a descriptor, or a reference to such a pointer.
bool holdsDescriptorPointer(clang::QualType T);
/// `CUdeviceptr` (the integer the driver API uses for a device address), or
/// a reference to one: a storage once a descriptor's device copy is in it.
bool holdsDeviceAddress(clang::QualType T);
/// What a storage of the rule may be: either of the two above.
bool holdsDescriptorAddress(clang::QualType T);

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
  /// A call that captures or replays a CUDA graph, if any.
  const clang::CallExpr *GraphAt = nullptr;

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
