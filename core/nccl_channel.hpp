#pragma once
// GPU-to-GPU exchanges between ranks through NCCL (namespace tridsim::cuda), used by the device
// transports (device_transport.cuh, device_halos.cuh) when choose_gpu_transport picked NCCL. A
// channel is one NCCL communicator over a LineComm's or the world's ranks with a stream of its
// own: its exchanges run there, ordered with the default stream's work by events, so that the host
// never waits for them and the GPU computes while they move. NCCL is opened on first use.
#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <vector>

#include "core/domain.hpp"

namespace tridsim::cuda {

// NCCL's version ("2.28.9") where its library loads, else "" (and why in *why).
std::string nccl_library_version(std::string* why = nullptr);

class NcclChannel : public DeviceChannel {
 public:
  // A new communicator's id, made by one rank and sent to the others.
  static std::string make_id();
  // Collective over the `size` ranks that call it with the same id; each on its own GPU.
  NcclChannel(const std::string& id, int size, int rank);
  ~NcclChannel() override;
  NcclChannel(const NcclChannel&) = delete;
  NcclChannel& operator=(const NcclChannel&) = delete;

  int size() const { return size_; }
  cudaStream_t stream() const { return stream_; }
  // The channel's later work waits for event e (recorded on another stream), or for the work
  // queued so far on the default stream.
  void after(cudaEvent_t e);
  void after_default_stream();
  // The default stream's later work waits for the channel's work queued so far.
  void before_default_stream();

  // Queued on the channel's stream (device buffers):
  // every rank's `bytes` of send into recv (size() * bytes) in rank order;
  void allgather(const void* send, void* recv, std::size_t bytes);
  // send_bytes[k] bytes at send + send_offsets[k] to rank k, rank k's part into recv + recv_offsets[k];
  void alltoallv(const void* send, const std::size_t* send_bytes, const std::size_t* send_offsets, void* recv,
                 const std::size_t* recv_bytes, const std::size_t* recv_offsets);
  // to each peer its part, from each peer into its buffer (one group: every pair moves at once).
  struct Transfer {
    int peer;
    const void* send;
    void* recv;
    std::size_t bytes;
  };
  void exchange(const std::vector<Transfer>& transfers);

 private:
  void* comm_ = nullptr;  // ncclComm_t (nccl.h stays out of this header)
  cudaStream_t stream_ = nullptr;
  cudaEvent_t event_ = nullptr;
  int size_ = 1, rank_ = 0;
};

// The channel over comm's ranks, or over the world's (domain's), made on first use: the first use
// is collective over those ranks.
NcclChannel& nccl_channel(LineComm& comm);
NcclChannel& nccl_channel(const Domain& domain);

}  // namespace tridsim::cuda
