#pragma once
// The divide-and-conquer BVP solver (solvers/recurrence/divide_conquer.hpp) on a CUDA device
// (namespace tridsim::rec::cuda). The array stays in natural order in global memory; each thread
// owns one column of S consecutive elements (the s x r array of the paper's Figure 1/2), a block of
// threads one panel of columns, loaded and stored coalesced through shared memory. Steps:
//   kernel 1 (1A)  column sums S_j and sums of prefix sums W_j (read only);
//   carries (1B, 2B)  Carries::device: exclusive prefix scan of S and suffix scan of Y = W + s c
//                     with CUB on the GPU; Carries::host: the paper's hybrid, S and W copied to
//                     the host, scanned sequentially in double, copied back;
//   kernel 2 (1C, 2A, 2C)  per column in registers: prefix + c_j, suffix + e_j, rank-one term.
// Arithmetic as on the CPU: double (A2D), float (A2S), mixed (A2SD), compensated.
#include <memory>

#include "core/types.hpp"
#include "solvers/recurrence/recurrence.hpp"

namespace tridsim::rec::cuda {

enum class Carries { device, host };

// Number of CUDA devices (0 when none or no driver): tests skip on 0.
int device_count();

// T = double for Arithmetic::float64, float otherwise (checked).
template <class T>
class GpuSolver {
 public:
  GpuSolver(Arithmetic arithmetic, Carries carries);
  ~GpuSolver();
  GpuSolver(const GpuSolver&) = delete;
  GpuSolver& operator=(const GpuSolver&) = delete;

  // Solve in place on the device: d_device holds m elements (device memory). Returns the
  // device time of the solve in seconds (CUDA events, workspace already allocated excluded).
  // With `part`, d is this process's part of a system split over processes (recurrence.hpp): its
  // sums of d and y go to the parts' exchange on the host, and the other parts' carries are added
  // to its own (every process calls it; m may be 0).
  double solve_device(T* d_device, index_t m, Ends ends, const Part* part = nullptr);
  // Convenience: copy host d to the device, solve, copy back (returns the device solve time).
  double solve_host(T* d_host, index_t m, Ends ends, const Part* part = nullptr);
  // Elements per thread column.
  static int column_length();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tridsim::rec::cuda
