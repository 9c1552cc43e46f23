// The safe twin of launcher-called-elsewhere: the other source hands over
// the host descriptor, and the device copy and the logging launcher stay
// inside rows.cu, where the storage rule sees every use.
#pragma once
#include <cuda.h>
#include <cuda_runtime.h>

void run_rows(const CUtensorMap &h, unsigned long long *out);
