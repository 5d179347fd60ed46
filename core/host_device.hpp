#pragma once
// TRIDSIM_HOST_DEVICE marks a function that the CPU loops and the CUDA kernels share: one
// formula, one place (a stencil, the rows of an implicit line, a face mean). Macros only, no
// namespace.
#if defined(__CUDACC__)
#define TRIDSIM_HOST_DEVICE __host__ __device__
#else
#define TRIDSIM_HOST_DEVICE
#endif
