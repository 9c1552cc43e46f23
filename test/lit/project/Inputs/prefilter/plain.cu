#include <cuda_runtime.h>
__global__ void axpy(float a, const float *x, float *y) { y[threadIdx.x] += a * x[threadIdx.x]; }
void run_axpy(const float *x, float *y) { axpy<<<1, 32>>>(2.0f, x, y); }
