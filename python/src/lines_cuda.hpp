#pragma once
// The GPU line solves of the Python module, as plain C++ (lines_cuda.cu holds the kernels'
// instantiations, apart from pybind11's headers). Addresses are device pointers; work is queued
// on `stream` (a cudaStream_t as an integer) on the device that holds d.
#include <cstdint>

#include "python/src/line_arguments.hpp"
#include "solvers/tridiagonal/cuda/batched_cuda.hpp"
#include "solvers/tridiagonal/line_solvers.hpp"

namespace tridsim::python {

// Makes the device that holds `address` current for its lifetime (restores the previous one);
// throws Error when the address is not device memory.
class DeviceOf {
 public:
  explicit DeviceOf(std::uintptr_t address);
  ~DeviceOf();
  DeviceOf(const DeviceOf&) = delete;
  DeviceOf& operator=(const DeviceOf&) = delete;
  int device() const { return device_; }

 private:
  int device_ = 0, previous_ = 0;
};

// a, b, c: full device arrays in d's layout. With `check`, waits for the solve and returns the
// offset of a non-finite solution value (or kAllFinite); without, returns kAllFinite at once.
index_t solve_array_lines_cuda(const LinesArg& d, std::uintptr_t a, std::uintptr_t b, std::uintptr_t c,
                               tridiag::GpuAlgorithm alg, std::uintptr_t stream, bool check);
template <class T>
index_t solve_uniform_lines_cuda(const LinesArg& d, const tridiag::UniformMatrixDevice<T>& M,
                                 tridiag::GpuAlgorithm alg, std::uintptr_t stream, bool check);

}  // namespace tridsim::python
