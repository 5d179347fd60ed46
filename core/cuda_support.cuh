#pragma once
// CUDA helpers shared by the modules' .cu files (namespace tridsim::cuda): a checked call
// (file:line and the CUDA error string in a tridsim::Error) and a device array that frees itself.
// Include only from .cu files.
#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <utility>

#include "core/errors.hpp"
#include "core/types.hpp"

namespace tridsim::cuda {

inline void check(cudaError_t e, const char* what, const char* file, int line) {
  if (e != cudaSuccess)
    throw Error(std::string("CUDA error in ") + what + " at " + file + ":" + std::to_string(line) + ": " +
                cudaGetErrorString(e));
}

// Device memory for `n` values of T (uninitialized), released on destruction or reallocation.
template <class T>
struct DeviceArray {
  T* p = nullptr;
  index_t n = 0;
  DeviceArray() = default;
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  DeviceArray(DeviceArray&& o) noexcept : p(o.p), n(o.n) {
    o.p = nullptr;
    o.n = 0;
  }
  DeviceArray& operator=(DeviceArray&& o) noexcept {
    std::swap(p, o.p);
    std::swap(n, o.n);
    return *this;
  }
  ~DeviceArray() { release(); }
  void allocate(index_t count) {
    release();
    if (count > 0) check(cudaMalloc(&p, sizeof(T) * std::size_t(count)), "cudaMalloc", __FILE__, __LINE__);
    n = count;
  }
  void upload(const T* host, index_t count) {
    if (count != n) allocate(count);
    if (count > 0)
      check(cudaMemcpy(p, host, sizeof(T) * std::size_t(count), cudaMemcpyHostToDevice), "cudaMemcpy", __FILE__,
            __LINE__);
  }
  void release() {
    if (p) cudaFree(p);  // (errors at teardown are ignored)
    p = nullptr;
    n = 0;
  }
};

}  // namespace tridsim::cuda

#define TRIDSIM_CUDA(call) ::tridsim::cuda::check((call), #call, __FILE__, __LINE__)
#define TRIDSIM_CUDA_LAUNCH() ::tridsim::cuda::check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
