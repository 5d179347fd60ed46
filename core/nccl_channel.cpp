// NCCL channels (core/nccl_channel.hpp). tridsim does not link NCCL: the functions it calls are
// forwarded to the library, opened on first use (core/lazy_library.hpp), so that a machine without
// NCCL still runs everything else (and its GPU exchanges go through MPI).
#include "core/nccl_channel.hpp"

#include <fmt/format.h>
#include <nccl.h>

#include <cstring>

#include "core/cuda_support.cuh"
#include "core/errors.hpp"
#include "core/lazy_library.hpp"

namespace tridsim::cuda {
namespace {

// By soname (LD_LIBRARY_PATH, the cache), else from the folder this build found it in
// (TRIDSIM_NCCL_* come from core/CMakeLists.txt).
const lazy::Library nccl{"NCCL", {TRIDSIM_NCCL_SONAME, TRIDSIM_NCCL_LIBRARY_DIR "/" TRIDSIM_NCCL_SONAME},
                         "GPU exchanges between ranks"};

void ok(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) throw Error(fmt::format("NCCL error in {}: {}", what, ncclGetErrorString(r)));
}
ncclComm_t comm_of(void* p) { return static_cast<ncclComm_t>(p); }

}  // namespace

std::string nccl_library_version(std::string* why) {
  try {
    lazy::handle(nccl);
    int v = 0;
    ok(ncclGetVersion(&v), "ncclGetVersion");
    return fmt::format("{}.{}.{}", v / 10000, v / 100 % 100, v % 100);
  } catch (const Error& e) {
    if (why) *why = e.what();
    return "";
  }
}

std::string NcclChannel::make_id() {
  ncclUniqueId id;
  ok(ncclGetUniqueId(&id), "ncclGetUniqueId");
  return std::string(id.internal, sizeof id.internal);
}

NcclChannel::NcclChannel(const std::string& id, int size, int rank) : size_(size), rank_(rank) {
  ncclUniqueId u;
  if (id.size() != sizeof u.internal) throw Error("NCCL: a communicator id of the wrong size");
  std::memcpy(u.internal, id.data(), sizeof u.internal);
  ncclComm_t c = nullptr;
  ok(ncclCommInitRank(&c, size, u, rank), "ncclCommInitRank");
  comm_ = c;
  // Non-blocking: the legacy default stream would otherwise wait for the exchanges and they for it.
  TRIDSIM_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  TRIDSIM_CUDA(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming));
}

NcclChannel::~NcclChannel() {
  if (comm_) ncclCommDestroy(comm_of(comm_));
  if (event_) cudaEventDestroy(event_);
  if (stream_) cudaStreamDestroy(stream_);
}

void NcclChannel::after(cudaEvent_t e) { TRIDSIM_CUDA(cudaStreamWaitEvent(stream_, e, 0)); }
void NcclChannel::after_default_stream() {
  TRIDSIM_CUDA(cudaEventRecord(event_, 0));
  after(event_);
}
void NcclChannel::before_default_stream() {
  TRIDSIM_CUDA(cudaEventRecord(event_, stream_));
  TRIDSIM_CUDA(cudaStreamWaitEvent(0, event_, 0));
}

void NcclChannel::allgather(const void* send, void* recv, std::size_t bytes) {
  ok(ncclAllGather(send, recv, bytes, ncclUint8, comm_of(comm_), stream_), "ncclAllGather");
}

void NcclChannel::alltoallv(const void* send, const std::size_t* send_bytes, const std::size_t* send_offsets,
                            void* recv, const std::size_t* recv_bytes, const std::size_t* recv_offsets) {
  ok(ncclGroupStart(), "ncclGroupStart");
  for (int k = 0; k < size_; ++k) {
    const char* from = static_cast<const char*>(send) + send_offsets[k];
    char* to = static_cast<char*>(recv) + recv_offsets[k];
    if (k == rank_) {  // (its own part: a copy)
      if (send_bytes[k] > 0)
        TRIDSIM_CUDA(cudaMemcpyAsync(to, from, send_bytes[k], cudaMemcpyDeviceToDevice, stream_));
      continue;
    }
    if (send_bytes[k] > 0) ok(ncclSend(from, send_bytes[k], ncclUint8, k, comm_of(comm_), stream_), "ncclSend");
    if (recv_bytes[k] > 0) ok(ncclRecv(to, recv_bytes[k], ncclUint8, k, comm_of(comm_), stream_), "ncclRecv");
  }
  ok(ncclGroupEnd(), "ncclGroupEnd");
}

void NcclChannel::exchange(const std::vector<Transfer>& transfers) {
  ok(ncclGroupStart(), "ncclGroupStart");
  for (const Transfer& t : transfers) {
    ok(ncclSend(t.send, t.bytes, ncclUint8, t.peer, comm_of(comm_), stream_), "ncclSend");
    ok(ncclRecv(t.recv, t.bytes, ncclUint8, t.peer, comm_of(comm_), stream_), "ncclRecv");
  }
  ok(ncclGroupEnd(), "ncclGroupEnd");
}

NcclChannel& nccl_channel(LineComm& comm) {
  auto& slot = comm.device_channel();
  if (!slot) {
    const std::string id = comm.from_first(comm.rank() == 0 ? NcclChannel::make_id() : std::string());
    slot = std::make_unique<NcclChannel>(id, comm.size(), comm.rank());
  }
  return static_cast<NcclChannel&>(*slot);
}

NcclChannel& nccl_channel(const Domain& domain) {
  auto& slot = domain.device_channel();
  if (!slot) {
    const std::string id = domain.broadcast(domain.rank() == 0 ? NcclChannel::make_id() : std::string());
    slot = std::make_unique<NcclChannel>(id, domain.size(), domain.rank());
  }
  return static_cast<NcclChannel&>(*slot);
}

}  // namespace tridsim::cuda

// The NCCL functions called above, forwarded to the library.
using tridsim::cuda::nccl;
TRIDSIM_FORWARD(nccl, ncclResult_t, ncclGetVersion, (int* version), (version))
TRIDSIM_FORWARD(nccl, ncclResult_t, ncclGetUniqueId, (ncclUniqueId * uniqueId), (uniqueId))
TRIDSIM_FORWARD(nccl, ncclResult_t, ncclCommInitRank, (ncclComm_t * comm, int nranks, ncclUniqueId commId, int rank),
                (comm, nranks, commId, rank))
TRIDSIM_FORWARD(nccl, ncclResult_t, ncclCommDestroy, (ncclComm_t comm), (comm))
TRIDSIM_FORWARD(nccl, const char*, ncclGetErrorString, (ncclResult_t result), (result))
TRIDSIM_FORWARD(nccl, ncclResult_t, ncclAllGather,
                (const void* sendbuff, void* recvbuff, size_t sendcount, ncclDataType_t datatype, ncclComm_t comm,
                 cudaStream_t stream),
                (sendbuff, recvbuff, sendcount, datatype, comm, stream))
TRIDSIM_FORWARD(nccl, ncclResult_t, ncclSend,
                (const void* sendbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,
                 cudaStream_t stream),
                (sendbuff, count, datatype, peer, comm, stream))
TRIDSIM_FORWARD(nccl, ncclResult_t, ncclRecv,
                (void* recvbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm, cudaStream_t stream),
                (recvbuff, count, datatype, peer, comm, stream))
TRIDSIM_FORWARD(nccl, ncclResult_t, ncclGroupStart, (), ())
TRIDSIM_FORWARD(nccl, ncclResult_t, ncclGroupEnd, (), ())
