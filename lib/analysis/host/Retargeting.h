// The storage rule applied after the host flows (host/Retargeting.cpp).
#pragma once

#include "../core/PassContext.h"

namespace tma::analysis {

/// Every launch argument the host flows refused that reads a storage whose
/// group the storage rule classifies is retargeted: its sites and buffers
/// are replaced by the group's.
void retargetRefusedLaunches(PassContext &P);

} // namespace tma::analysis
