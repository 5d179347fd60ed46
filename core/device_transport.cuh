#pragma once
// Interface data of split lines crossing the ranks from device memory (namespace tridsim::cuda):
// directly where MPI is CUDA-aware, else staged through page-locked host memory. Include from
// .cu files only.
#include <cuda_runtime.h>

#include <cstddef>

#include "core/cuda_support.cuh"
#include "core/domain.hpp"

namespace tridsim::cuda {

// Page-locked host memory that grows to the largest size asked for.
class PinnedBytes {
 public:
  PinnedBytes() = default;
  PinnedBytes(const PinnedBytes&) = delete;
  PinnedBytes& operator=(const PinnedBytes&) = delete;
  ~PinnedBytes() {
    if (p_) cudaFreeHost(p_);
  }
  char* reserve(std::size_t bytes) {
    if (bytes > size_) {
      if (p_) cudaFreeHost(p_);  // (synchronizes the device: no copy from it is in flight)
      p_ = nullptr;
      size_ = 0;
      check(cudaMallocHost(&p_, bytes), "cudaMallocHost", __FILE__, __LINE__);
      size_ = bytes;
    }
    return static_cast<char*>(p_);
  }

 private:
  void* p_ = nullptr;
  std::size_t size_ = 0;
};

// Every rank's `bytes` of device memory at `send` into device memory at `recv` (comm.size() * bytes,
// in rank order), after the work queued so far. Returns with recv's copy queued on the default stream.
inline void allgather_device(LineComm& comm, const void* send, void* recv, std::size_t bytes, PinnedBytes& staging) {
  if (mpi_cuda_aware()) {
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize", __FILE__, __LINE__);
    comm.wait(comm.start_allgather(send, recv, bytes));
    return;
  }
  char* host = staging.reserve(bytes * std::size_t(comm.size() + 1));  // send, then every rank's
  check(cudaMemcpy(host, send, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy", __FILE__, __LINE__);
  comm.wait(comm.start_allgather(host, host + bytes, bytes));
  check(cudaMemcpyAsync(recv, host + bytes, bytes * std::size_t(comm.size()), cudaMemcpyHostToDevice), "cudaMemcpyAsync",
        __FILE__, __LINE__);
}

}  // namespace tridsim::cuda
