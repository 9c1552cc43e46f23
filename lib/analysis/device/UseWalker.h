// How every use of a descriptor parameter in device code is classified (device/UseWalker.cpp, device/AsmUses.cpp).
#pragma once

#include "../core/PassContext.h"

#include <set>

namespace tma::analysis {


/// The descriptor type a pointer parameter names, as spelled
/// ("CUtensorMap", "Desc", "cute::TmaDescriptor"); "CUtensorMap" when a
/// macro spells it (device/KernelSignature.cpp).
std::string spelledPointee(const SourceText &ST, const clang::ParmVarDecl *P);

/// Classifies every use of a descriptor pointer in device code: each must
/// be a read; records the edits (`p->` to `.`, `*p` to `p`, `p` to `&p`),
/// the acquire fences that go, and blockers (device/UseWalker.cpp,
/// device/AsmUses.cpp).
class UseWalker : public PassComponent {
public:
  explicit UseWalker(PassContext &P) : PassComponent(P) {}

  void walkVarRefs(const clang::VarDecl *V, const clang::FunctionDecl *Fn, unsigned Depth,
                   bool IsKernelParam, bool Editable, ValueMode M, UseSink &Sink);
  /// Is \p Def a wrapper whose whole body is an acquire fence on parameter
  /// \p ParamIndex?
  bool isAcquireFenceWrapper(const clang::FunctionDecl *Def, unsigned ParamIndex);

  void walkValue(const clang::Expr *E, const clang::FunctionDecl *Fn, unsigned Depth,
                 const clang::DeclRefExpr *Direct, ValueMode M, UseSink &Sink);

  /// Walk the parameter as an array of descriptors (issue 21): it becomes a
  /// `TmaDescriptorArray<N>` whose `operator[]` keeps `p[i]` and `&p[i]` as
  /// they are; `p + i` becomes `&p[i]`, `*p` `p[0]`, a pointer `p` `&p[0]`.
  /// Run-time indexes and pointer arithmetic inside the array are reads.
  void setArrayMode(bool On) { ArrayMode = On; }

private:
  bool ArrayMode = false;
  /// The file text of a use, or, when a macro defined inside the kernel's
  /// own body (and expanded nowhere after it) spells it, the text in that
  /// macro's definition; none otherwise.
  std::optional<clang::CharSourceRange> editRange(clang::SourceRange Tokens);
  /// Is macro \p Name, defined inside the body \p Body, named nowhere in its
  /// file after the body but in an `#undef`?
  bool macroLocalTo(llvm::StringRef Name, clang::SourceRange Body);
  /// The kernel body being walked (for kernel-local macros).
  clang::SourceRange KernelBody;
  void walkRef(const clang::DeclRefExpr *R, const clang::FunctionDecl *Fn, unsigned Depth,
               bool IsKernelParam, bool Editable, ValueMode M, UseSink &Sink);
  std::optional<ValueMode> followImplicitCast(const clang::ImplicitCastExpr *IC,
                                             const std::string &Name, ValueMode M,
                                             bool IntoCallArg, UseSink &Sink);
  bool isCallArgument(const clang::FunctionDecl *Fn, const clang::Expr *E);
  std::optional<ValueMode> followExplicitCast(const clang::ExplicitCastExpr *EC,
                                             const std::string &Name, ValueMode M,
                                             UseSink &Sink);
  /// `*p`, `p[0]`, `p->`: the edit, then the descriptor's lvalue is walked.
  /// False when \p P is none of them.
  bool walkDereference(const clang::Stmt *P, const clang::Expr *E,
                       const clang::FunctionDecl *Fn, unsigned Depth,
                       const clang::DeclRefExpr *Direct, const std::string &Name,
                       UseSink &Sink);
  void walkSubscript(const clang::ArraySubscriptExpr *AS, const clang::FunctionDecl *Fn,
                     unsigned Depth, const clang::DeclRefExpr *Direct, const std::string &Name,
                     UseSink &Sink);
  /// Replaces the token at \p Tok, or blocks with \p InMacro (naming \p Name)
  /// when a macro spells it.
  void dropToken(clang::SourceLocation Tok, llvm::StringRef Replacement, ReasonID InMacro,
                 const std::string &Name, clang::SourceLocation Where, UseSink &Sink);
  void walkValueUse(const clang::Stmt *P, const clang::Expr *E, const clang::FunctionDecl *Fn,
                    unsigned Depth, const clang::DeclRefExpr *Direct, ValueMode M,
                    const std::string &Name, UseSink &Sink);
  void passToNonConstParam(const clang::CallExpr *CE, const clang::Expr *Arg,
                           const clang::FunctionDecl *Def, unsigned I, unsigned Depth,
                           const clang::DeclRefExpr *Direct,
                           llvm::function_ref<void(std::vector<Blocker>)> BlockNonConst,
                           UseSink &Sink);
  void walkHelper(const clang::CallExpr *CE, const clang::FunctionDecl *Def, unsigned I,
                  ValueMode M, unsigned Depth, UseSink &Sink);
  void walkLValue(const clang::Expr *E, const clang::FunctionDecl *Fn, unsigned Depth,
                  UseSink &Sink);
  void handleCallArg(const clang::CallExpr *CE, const clang::Expr *Arg,
                     const clang::FunctionDecl *Fn, unsigned Depth,
                     const clang::DeclRefExpr *Direct, ValueMode M, UseSink &Sink);
  void handleAsm(const clang::GCCAsmStmt *AS, const clang::Expr *Operand,
                 const clang::FunctionDecl *Fn, unsigned Depth,
                 const clang::DeclRefExpr *Direct, UseSink &Sink);
  void handleAlias(const clang::DeclStmt *DS, const clang::Expr *Init,
                   const clang::FunctionDecl *Fn, unsigned Depth,
                   const clang::DeclRefExpr *Direct, ValueMode M, UseSink &Sink);
  void removeFence(const clang::Stmt *S, const clang::FunctionDecl *Fn, unsigned Depth,
                   llvm::StringRef What, UseSink &Sink);
  void addressOf(const clang::DeclRefExpr *Direct, UseSink &Sink);

  /// Device helpers already walked for a parameter, and those being walked
  /// (recursion).
  /// Keyed by helper, parameter and array mode.
  std::map<std::tuple<const clang::FunctionDecl *, unsigned, bool>, UseSink> HelperMemo;
  std::set<std::tuple<const clang::FunctionDecl *, unsigned, bool>> HelpersInProgress;
  const clang::VarDecl *constReferenceTo(const clang::DeclStmt *DS, const clang::Expr *E);
  /// `p + i` in array mode: `&p[i]`; the sum is walked as a pointer.
  bool walkArrayArithmetic(const clang::BinaryOperator *BO, const clang::Expr *E,
                           const clang::FunctionDecl *Fn, unsigned Depth,
                           const clang::DeclRefExpr *Direct, const std::string &Name,
                           UseSink &Sink);
};

} // namespace tma::analysis
