// H6/H8: upload helpers that return the device copy (host/UploadHelpers.cpp).
#pragma once

#include "../core/PassContext.h"

namespace tma::analysis {

class HostBuffers;
class ObjectReach;


/// H6: an upload helper that encodes, allocates, copies and returns the
/// device pointer, and the variables its callers keep it in. Decided once
/// per helper; the group is one pseudo device buffer whose users are every
/// launch of every caller's variable.
struct UploadGroup {
  std::optional<Blocker> Why; // set: not rewritable
  std::string BufferKey;
};


/// H6/H8: upload helpers that return the device copy (host/UploadHelpers.cpp).
class UploadHelpers : public PassComponent {
public:
  UploadHelpers(PassContext &P, HostBuffers &Buffers, ObjectReach &Reach)
      : PassComponent(P), Buffers(Buffers), Reach(Reach) {}

  /// \p U, or the template of which \p U is an instantiation: one group for
  /// all its instantiations.
  const UploadGroup &uploadGroup(const clang::FunctionDecl *U);
  /// Why the file-scope cache \p Cache (a descriptor pointer assigned from
  /// an upload helper) cannot be followed: another translation unit may use
  /// it, or a use is outside the plain host functions of this one.
  /// The refusal is reported at \p Where.
  std::optional<Blocker> fileScopeCacheProblem(const clang::VarDecl *Cache, SourcePoint Where);

private:
  HostBuffers &Buffers;
  ObjectReach &Reach;
  std::map<const clang::FunctionDecl *, UploadGroup> Uploads;
};

} // namespace tma::analysis
