#include "launch_rows.cuh"
#include <cstdio>

__global__ void scan_rows(const CUtensorMap *rows, int *out) {
  asm volatile("prefetch.tensormap [%0];" :: "l"(rows) : "memory");
  out[0] = 1;
}

// The logged pointer is no launcher flow's shape: only the storage rule
// could take it, through the callers it sees (none here).
void launch_rows(const CUtensorMap *rows, int *out) {
  std::printf("rows at %p\n", (const void *)rows);
  scan_rows<<<1, 1>>>(rows, out);
}
