#pragma once
// Interface data of split lines crossing the ranks from device memory (namespace tridsim::cuda), by
// the transport choose_gpu_transport picked: NCCL on a stream of its own, ordered with the default
// stream's work by events; MPI from device memory where it is CUDA-aware; else MPI from page-locked
// host copies, the host waiting for marks in the default stream's work while MPI moves exchanges
// on. Include from .cu files only.
#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

#include "core/cuda_support.cuh"
#include "core/domain.hpp"
#include "tridsim_build_info.hpp"
#if TRIDSIM_HAVE_NCCL
#include "core/nccl_channel.hpp"
#endif

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

// A device array that is sent from or received into: the device memory itself where the transport
// reads device memory (NCCL, CUDA-aware MPI), else a page-locked host mirror. to_wire copies a part
// to the mirror after the work queued so far on the default stream; from_wire copies a received
// part back, ahead of the work queued next. (Both do nothing where the transport reads and writes
// device memory.)
template <class T>
class WireArray {
 public:
  // Room for n elements (contents not kept); call with no exchange or copy in flight.
  void size_for(index_t n) {
    aware_ = gpu_transport_kind() != GpuTransport::staged;
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
  // Mark i: the work queued so far (on `stream`).
  void mark(std::size_t i, cudaStream_t stream = 0) {
    while (events_.size() <= i) {
      cudaEvent_t e;
      check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate", __FILE__, __LINE__);
      events_.push_back(e);
    }
    check(cudaEventRecord(events_[i], stream), "cudaEventRecord", __FILE__, __LINE__);
  }
  cudaEvent_t event(std::size_t i) const { return events_[i]; }
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

// The exchanges of one solve over the ranks of a LineComm, in order with the default stream's
// work: each starts once the work before a mark (StreamMarks) is done, and the work queued on the
// default stream after wait(r) sees exchange r's data. Through NCCL the exchanges are queued on the
// channel's stream and the host waits for nothing; through MPI the host waits for the mark, then
// starts the exchange, moving the newest exchange in flight on meanwhile.
class LineExchanges {
 public:
  // Starts a solve's exchanges over comm (its requests numbered from 0).
  void begin(LineComm& comm) {
    comm_ = &comm;
    moving_ = -1;
    requests_ = 0;
#if TRIDSIM_HAVE_NCCL
    nccl_ = gpu_transport_kind() == GpuTransport::nccl ? &nccl_channel(comm) : nullptr;
#endif
  }
  // Mark i: the work queued so far on the default stream.
  void mark(std::size_t i) { marks_.mark(i); }
  // Every rank's `bytes` of `send` into `recv` in rank order, after mark i.
  int allgather(std::size_t i, const void* send, void* recv, std::size_t bytes) {
#if TRIDSIM_HAVE_NCCL
    if (nccl_) {
      nccl_->after(marks_.event(i));
      nccl_->allgather(send, recv, bytes);
      comm_->count_sent(bytes * std::size_t(comm_->size() - 1));
      return queued();
    }
#endif
    marks_.wait(i, *comm_, moving_);
    return moving_ = comm_->start_allgather(send, recv, bytes);
  }
  // LineComm::start_alltoallv's exchange, after mark i.
  int alltoallv(std::size_t i, const void* send, const std::size_t* send_bytes, const std::size_t* send_offsets,
                void* recv, const std::size_t* recv_bytes, const std::size_t* recv_offsets) {
#if TRIDSIM_HAVE_NCCL
    if (nccl_) {
      nccl_->after(marks_.event(i));
      nccl_->alltoallv(send, send_bytes, send_offsets, recv, recv_bytes, recv_offsets);
      for (int k = 0; k < comm_->size(); ++k)
        if (k != comm_->rank()) comm_->count_sent(send_bytes[k]);
      return queued();
    }
#endif
    marks_.wait(i, *comm_, moving_);
    return moving_ = comm_->start_alltoallv(send, send_bytes, send_offsets, recv, recv_bytes, recv_offsets);
  }
  // The default stream's later work (and the host's later copies from the wire) see exchange r's data.
  void wait(int r) {
#if TRIDSIM_HAVE_NCCL
    if (nccl_) {
      check(cudaStreamWaitEvent(0, done_.event(std::size_t(r)), 0), "cudaStreamWaitEvent", __FILE__, __LINE__);
      return;
    }
#endif
    comm_->wait(r);
    if (r == moving_) moving_ = -1;
  }

 private:
#if TRIDSIM_HAVE_NCCL
  // The exchange just queued on the channel: its request, a mark on the channel's stream.
  int queued() {
    done_.mark(std::size_t(requests_), nccl_->stream());
    return requests_++;
  }
  NcclChannel* nccl_ = nullptr;
  StreamMarks done_;
#endif
  LineComm* comm_ = nullptr;
  StreamMarks marks_;
  int moving_ = -1, requests_ = 0;
};

// Every rank's n elements of `send` into `recv` (comm.size() * n, in rank order), after the work
// queued so far; the default stream's later work sees them.
template <class T>
void allgather_device(LineComm& comm, WireArray<T>& send, WireArray<T>& recv, index_t n) {
  const std::size_t bytes = sizeof(T) * std::size_t(n);
#if TRIDSIM_HAVE_NCCL
  if (gpu_transport_kind() == GpuTransport::nccl) {
    NcclChannel& channel = nccl_channel(comm);
    channel.after_default_stream();
    channel.allgather(send.device(), recv.device(), bytes);
    channel.before_default_stream();
    comm.count_sent(bytes * std::size_t(comm.size() - 1));
    return;
  }
#endif
  send.to_wire(0, n);
  check(cudaStreamSynchronize(0), "cudaStreamSynchronize", __FILE__, __LINE__);
  comm.wait(comm.start_allgather(send.wire(), recv.wire(), bytes));
  recv.from_wire(0, n * comm.size());
}

}  // namespace tridsim::cuda
