// A run-time-indexed descriptor parameter is an array of N descriptors by
// value when every launch passes a whole device array of the same
// compile-time count N and the parameters still fit the target's budget.
#include "ArrayForm.h"
#include "Blockers.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <set>

namespace tma {


void mergeArrayForm(DescriptorArrayForm &Into, const DescriptorArrayForm &From) {
  for (const TextEdit &E : From.Edits)
    if (!llvm::is_contained(Into.Edits, E))
      Into.Edits.push_back(E);
  for (const SourcePoint &F : From.FencesRemoved)
    if (!llvm::is_contained(Into.FencesRemoved, F))
      Into.FencesRemoved.push_back(F);
  for (const Blocker &B : From.Blockers)
    addUnique(Into.Blockers, B);
  for (const Blocker &B : From.ScalarBlockers)
    addUnique(Into.ScalarBlockers, B);
  if (From.Candidate && !Into.Candidate) {
    Into.Layout = From.Layout;
    Into.Slot = From.Slot;
  }
  Into.Candidate |= From.Candidate;
  if (From.ParamSpaceLimit &&
      (!Into.ParamSpaceLimit || From.ParamSpaceLimit < Into.ParamSpaceLimit))
    Into.ParamSpaceLimit = From.ParamSpaceLimit;
}

uint64_t arrayParamBytes(const DescriptorArrayForm &A, unsigned N) {
  std::vector<ParamBytes> Layout = A.Layout;
  if (A.Slot < Layout.size())
    Layout[A.Slot] = {N * 128, 128};
  return parameterBytes(Layout);
}

std::vector<TextEdit> arrayEdits(const DescriptorArrayForm &A, unsigned N) {
  std::set<TextEdit> Out;
  llvm::StringRef Mark = ArrayCountPlaceholder;
  for (TextEdit E : A.Edits) {
    for (size_t At = E.Text.find(Mark); At != std::string::npos; At = E.Text.find(Mark, At))
      E.Text.replace(At, Mark.size(), std::to_string(N));
    Out.insert(E);
  }
  return {Out.begin(), Out.end()};
}

/// The budget rule: 32,764 bytes with CUDA 12.1 or newer on sm_70 or newer
/// (what the pass was given), otherwise 4,096.
static std::string budgetRule(unsigned Limit) {
  return Limit > 4096 ? "CUDA 12.1 or newer, every target sm_70 or newer"
                      : "before CUDA 12.1, or a target below sm_70";
}

/// A reason that only a copy of an array of descriptors has.
static bool isArrayReason(ReasonID R) {
  return R == ReasonID::ArrayNoCompileTimeBound || R == ReasonID::ArrayCopySize ||
         R == ReasonID::ArrayPartialCopy || R == ReasonID::ArrayUsedBetween ||
         R == ReasonID::ArrayArgumentArray;
}

ArrayChoice chooseArrayForm(const DescriptorParam &DP,
                            llvm::ArrayRef<const LaunchSite *> Launches) {
  ArrayChoice C;
  const LaunchSite *First = nullptr;
  for (const LaunchSite *L : Launches)
    if (L->ArrayCount && !First)
      First = L;
  if (!DP.Array.Candidate) {
    if (First)
      C.Blockers.push_back(blockerFor(ReasonID::ArrayScalarKernel,
                                      {std::to_string(First->ArrayCount), DP.KernelName},
                                      First->Where));
    return C;
  }
  if (!First) {
    // A launch of a device array that is refused says why the array form
    // does not apply; it leads, before the run-time index.
    for (const LaunchSite *L : Launches)
      for (const Blocker &B : L->Blockers)
        if (isArrayReason(B.Reason) && C.Blockers.empty())
          C.Blockers.push_back(B);
    for (const Blocker &B : DP.Array.ScalarBlockers)
      addUnique(C.Blockers, B);
    return C;
  }
  C.Count = First->ArrayCount;
  C.Blockers = DP.Array.Blockers;
  for (const LaunchSite *L : Launches) {
    if (L->ArrayCount && L->ArrayCount != C.Count)
      addUnique(C.Blockers, blockerFor(ReasonID::ArrayCountsDiffer,
                                       {DP.ParamName, std::to_string(C.Count),
                                        std::to_string(L->ArrayCount)},
                                       L->Where, {{"launched with one here", First->Where}}));
    else if (!L->ArrayCount && L->Blockers.empty())
      addUnique(C.Blockers, blockerFor(ReasonID::ArrayLaunchedWithOne,
                                       {DP.ParamName, L->HostDescriptor}, L->Where));
  }
  uint64_t Bytes = arrayParamBytes(DP.Array, C.Count);
  unsigned Limit = DP.Array.ParamSpaceLimit ? DP.Array.ParamSpaceLimit : 32764;
  if (!DP.Array.Layout.empty() && Bytes > Limit)
    addUnique(C.Blockers,
              blockerFor(ReasonID::ArrayParamSpace,
                         {std::to_string(C.Count), DP.KernelName, std::to_string(Bytes),
                          std::to_string(Limit), budgetRule(Limit)},
                         DP.Where));
  return C;
}

} // namespace tma
