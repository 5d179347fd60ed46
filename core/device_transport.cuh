#pragma once
// Interface data of split lines crossing the ranks from device memory (namespace tridsim::cuda):
// directly where MPI is CUDA-aware, else staged through page-locked host memory; and marks in the
// default stream's work that the host waits for while MPI moves exchanges on. Include from .cu
// files only.
#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

#include "core/cuda_support.cuh"
#include "core/domain.hpp"

namespace tridsim::cuda {

// Page-locked host memory that grows to the largest size asked for (its contents are not kept).
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
  char* data() const { return static_cast<char*>(p_); }

 private:
  void* p_ = nullptr;
  std::size_t size_ = 0;
};

// A device array that MPI sends from or receives into: the device memory itself where MPI is
// CUDA-aware, else a page-locked host mirror. to_wire copies a part to the mirror after the work
// queued so far on the default stream; from_wire copies a received part back, ahead of the work
// queued next. (Both do nothing where MPI reads and writes device memory.)
template <class T>
class WireArray {
 public:
  // Room for n elements (contents not kept); call with no exchange or copy in flight.
  void size_for(index_t n) {
    aware_ = mpi_cuda_aware();
    if (device_.n < n) device_.allocate(n);
    if (!aware_) host_.reserve(sizeof(T) * std::size_t(n));
  }
  T* device() const { return device_.p; }
  T* wire() const { return aware_ ? device_.p : reinterpret_cast<T*>(host_.data()); }
  void to_wire(index_t at, index_t n) { copy(wire() + at, device_.p + at, n, cudaMemcpyDeviceToHost); }
  void from_wire(index_t at, index_t n) { copy(device_.p + at, wire() + at, n, cudaMemcpyHostToDevice); }

 private:
  void copy(T* to, const T* from, index_t n, cudaMemcpyKind kind) {
    if (!aware_ && n > 0)
      check(cudaMemcpyAsync(to, from, sizeof(T) * std::size_t(n), kind), "cudaMemcpyAsync", __FILE__, __LINE__);
  }
  DeviceArray<T> device_;
  PinnedBytes host_;
  bool aware_ = false;
};

// Points in the default stream's work (events made once, reused by index).
class StreamMarks {
 public:
  StreamMarks() = default;
  StreamMarks(const StreamMarks&) = delete;
  StreamMarks& operator=(const StreamMarks&) = delete;
  ~StreamMarks() {
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
  }
  // Mark i: the work queued so far.
  void mark(std::size_t i) {
    while (events_.size() <= i) {
      cudaEvent_t e;
      check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate", __FILE__, __LINE__);
      events_.push_back(e);
    }
    check(cudaEventRecord(events_[i], 0), "cudaEventRecord", __FILE__, __LINE__);
  }
  // Returns when the work before mark i is done, letting comm's request `moving` (-1: none) move on
  // meanwhile (MPI progresses only inside MPI calls).
  void wait(std::size_t i, LineComm& comm, int moving) const {
    for (;;) {
      const cudaError_t status = cudaEventQuery(events_[i]);
      if (status == cudaSuccess) return;
      if (status != cudaErrorNotReady) check(status, "cudaEventQuery", __FILE__, __LINE__);
      comm.progress(moving);
    }
  }

 private:
  std::vector<cudaEvent_t> events_;
};

// Every rank's n elements of `send` into `recv` (comm.size() * n, in rank order), after the work
// queued so far; returns with the copy into recv's device memory queued on the default stream.
template <class T>
void allgather_device(LineComm& comm, WireArray<T>& send, WireArray<T>& recv, index_t n) {
  send.to_wire(0, n);
  check(cudaStreamSynchronize(0), "cudaStreamSynchronize", __FILE__, __LINE__);
  comm.wait(comm.start_allgather(send.wire(), recv.wire(), sizeof(T) * std::size_t(n)));
  recv.from_wire(0, n * comm.size());
}

}  // namespace tridsim::cuda
