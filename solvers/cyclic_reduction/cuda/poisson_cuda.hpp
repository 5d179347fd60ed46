#pragma once
// Fast Poisson solvers on a CUDA device (namespace tridsim::cr): (-Lap_h + sigma) u = f on a box of
// interior nodes (poisson_box.hpp), in place on a device array, x-fastest.
//   fft  - DST-I along every axis through cuFFT (real-to-complex transforms of the odd
//          extension), division by the eigenvalues, the same transforms back: the baseline.
//   bcr / bcr4 - block cyclic reduction (radix 2 / 4) over y with the formulation of the CPU
//          solver (bcr.hpp): each level is one kernel in which a thread block solves shifted
//          Toeplitz tridiagonal sub-problems along x of one interval (scan form, bcr_kernel.cuh;
//          right-hand sides formed from the input rows on the fly), sums their weighted
//          solutions in shared memory and adds them to the output rows with coalesced atomics.
//          At most 8192 nodes along x. In 3D: DST-I along z (cuFFT), then the BCR of every z
//          mode's plane at once (its own shift), and the inverse DST (the issue's "transforms in
//          one direction and BCR in the others").
//   refinement - one step (u += A^{-1}(f - A u), residual on the device) with Refine::on only:
//          unrefined, the residual is ~2e-13 at 8191^2 already.
//   auto - bcr4 from 1023^2 (2D) and 127^3 (3D) nodes on, where it is faster than cuFFT (bcr
//          for x lines over 4096 nodes), fft below (docs/performance.md).
// Host API: pointers are device pointers; the work is queued on `stream`. Every CUDA and cuFFT
// call is checked (tridsim::Error with file:line).
#include <memory>

#include <cuda_runtime_api.h>

#include "solvers/cyclic_reduction/poisson_box.hpp"

namespace tridsim::cr {

template <class T>
class PoissonCuda {
 public:
  // Plans, tables and work arrays are made here, on the current device.
  PoissonCuda(const PoissonBox& box, PoissonMethod method, Refine refine = Refine::automatic);
  ~PoissonCuda();
  PoissonCuda(const PoissonCuda&) = delete;
  PoissonCuda& operator=(const PoissonCuda&) = delete;
  PoissonMethod method() const;
  bool refines() const;
  // f (device, box.size() values) in, u out.
  void solve(T* d_f, cudaStream_t stream = 0);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tridsim::cr
