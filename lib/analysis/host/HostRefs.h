// Small classifications of host references that several host flows share.
#pragma once

#include "../core/PassContext.h"

namespace tma::analysis {

/// A descriptor pointer at namespace or file scope (`static CUtensorMap *d;`).
bool isFileScopePointer(const clang::VarDecl *V);
/// Is this reference to the host descriptor a plain read?
enum class HostRefKind { Read, Write, AddressEscapes };
HostRefKind classifyHostRef(const clang::DeclRefExpr *R, clang::ParentMap &PM);
/// `&h`, `&s.map`, `&maps[1]`: an lvalue with no side effects whose value
/// the launch can name. Returns its root variable.
const clang::VarDecl *simpleLValueRoot(const clang::Expr *E, clang::ASTContext &Ctx);

} // namespace tma::analysis
