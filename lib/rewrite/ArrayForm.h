// The planner's decision on the array form of a descriptor parameter
// (issue 21): which count N its launches give, what refuses it, its edits.
#pragma once

#include "tma/Facts.h"

#include "llvm/ADT/ArrayRef.h"

#include <vector>

namespace tma {

/// Merges what another pass found about the array form of one parameter.
void mergeArrayForm(DescriptorArrayForm &Into, const DescriptorArrayForm &From);

/// The form a parameter is decided in: Count 0 is one descriptor, N an
/// array of N; Blockers are the use walk's of that form and what the
/// launches and the parameter budget add.
struct ArrayChoice {
  unsigned Count = 0;
  std::vector<Blocker> Blockers;
};
ArrayChoice chooseArrayForm(const DescriptorParam &DP, llvm::ArrayRef<const LaunchSite *> Launches);

/// The array form's edits with N put in.
std::vector<TextEdit> arrayEdits(const DescriptorArrayForm &A, unsigned N);

/// Bytes of the kernel's parameters with the array of N by value.
uint64_t arrayParamBytes(const DescriptorArrayForm &A, unsigned N);

} // namespace tma
