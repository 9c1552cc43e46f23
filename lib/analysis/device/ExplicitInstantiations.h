// Explicit instantiations of a kernel template (`template __global__ void
// k<128, 4>(const CUtensorMap *, float *, int);`, `extern template ...`):
// clang keeps no source for their parameter lists, so they are found by
// lexing the files (device/ExplicitInstantiations.cpp).
#pragma once

#include "tma/Facts.h"
#include "tma/SourceText.h"

#include <map>
#include <string>
#include <vector>

namespace tma::analysis {

/// One explicit instantiation (declaration or definition) of a function
/// template named Name: the tokens of each parameter.
struct ExplicitInstantiation {
  std::string Name;
  std::vector<std::vector<clang::Token>> Params;
};

class ExplicitInstantiations {
public:
  explicit ExplicitInstantiations(const SourceText &ST) : ST(ST) {}
  /// The explicit instantiations written in file \p FID (lexed once).
  const std::vector<ExplicitInstantiation> &in(clang::FileID FID);
  /// The edit that makes descriptor parameter \p P of \p EI a value (drops
  /// its `*` and the qualifiers after it), or none.
  /// \p AsArray: the array form of issue 21 (`TmaDescriptorArray<N>`).
  std::optional<TextEdit> byValue(const ExplicitInstantiation &EI, unsigned P,
                                  bool AsArray = false) const;

private:
  const SourceText &ST;
  std::map<clang::FileID, std::vector<ExplicitInstantiation>> Files;
};

} // namespace tma::analysis
