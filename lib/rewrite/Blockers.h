// Blocker lists of the planner: each reason once per site.
#pragma once

#include "tma/Facts.h"

#include <vector>

namespace tma {

/// Adds \p B to \p To unless the same blocker (ID, site, message) is there.
inline void addUnique(std::vector<Blocker> &To, const Blocker &B) {
  for (const Blocker &X : To)
    if (X.ID == B.ID && X.Where == B.Where && X.Message == B.Message)
      return;
  To.push_back(B);
}

} // namespace tma
