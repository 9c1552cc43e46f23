// What the analysis knows of types and names: descriptor types, kernels,
// the keys (USR + index) that facts are merged by, and small AST helpers.
#pragma once

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"

#include <string>
#include <vector>

namespace tma::analysis {

/// `struct CUtensorMap_st` (behind every spelling: CUtensorMap, aliases).
bool isTensorMapRecord(clang::QualType T);
/// A descriptor, or an array, struct or class that holds one.
bool containsTensorMap(clang::QualType T, unsigned Depth = 0);
/// A pointer to a descriptor (`const CUtensorMap *`, `CUtensorMap *`).
bool isDescriptorPointer(clang::QualType T);
bool isPointerToNonConst(clang::QualType T);
/// The indexes of \p FD's descriptor-pointer parameters.
std::vector<unsigned> descriptorParamIndexes(const clang::FunctionDecl *FD);
/// A `__global__` function.
bool isKernel(const clang::FunctionDecl *FD);
/// The instantiations of a generic lambda's call operator: the code that
/// runs (its pattern is dependent: a template kernel launched there has no
/// callee yet). Empty for a plain lambda and for one never called.
std::vector<clang::FunctionDecl *> genericLambdaInstantiations(const clang::LambdaExpr *LE);
/// Code that runs on the device: a kernel or a `__device__` function. A
/// lambda's call operator, implicitly `__host__ __device__` in clang, runs
/// where the function that defines it runs (nvcc passes a lambda to device
/// code only when it is written `__device__`).
bool runsOnDevice(const clang::FunctionDecl *FD);
/// `__constant__ CUtensorMap c_map;` (not an array).
bool isConstantDescriptor(const clang::VarDecl *V);
/// The template pattern of an instantiation, else \p FD itself.
const clang::FunctionDecl *patternOf(const clang::FunctionDecl *FD);
/// The USR of \p FD's pattern: the same in every translation unit.
std::string usrOf(const clang::FunctionDecl *FD);
/// The key of one descriptor parameter: `USR#index`.
std::string paramKey(const clang::FunctionDecl *FD, unsigned Index);
/// The plain name of a call's direct callee, or "".
std::string calleeName(const clang::CallExpr *CE);
/// CCCL's `fence_proxy_tensormap_generic` wrapper.
bool isFenceWrapper(const clang::FunctionDecl *FD);
bool isLoop(const clang::Stmt *S);
/// Does \p S hold a `goto` (or an indirect one) anywhere: a jump that may
/// go back makes a loop the statements do not spell.
bool hasGoto(const clang::Stmt *S);
/// \p E without parentheses, implicit and explicit casts.
const clang::Expr *stripCasts(const clang::Expr *E);

} // namespace tma::analysis
