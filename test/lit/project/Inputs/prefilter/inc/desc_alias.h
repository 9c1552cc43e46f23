#pragma once
#include <cuda.h>
// The descriptor type under another name, in a user header.
using Desc = CUtensorMap;
