#pragma once
// The run's processes (namespace tridsim): a Domain is the grid's decomposition over the ranks of
// MPI_COMM_WORLD (core/decomposition.hpp) with the communication a module needs: halo exchange
// of local arrays (persistent non-blocking requests), the ranks along each split axis for the
// distributed line solves (LineComm), reductions and the gathering of owned boxes for output.
// Without MPI (or on one rank) a Domain is the whole grid and every operation is local. mpi.h is
// not part of this header: solvers and modules see only these types.
#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "core/decomposition.hpp"
#include "core/types.hpp"

namespace tridsim {

// MPI for the process: init_processes() at the start of main (a no-op without MPI), and the
// world's size and rank (1 and 0 without MPI).
void init_processes(int* argc, char*** argv);
void finish_processes();
// After an error on this rank, with exit code `code`: whether every rank of the world meets an error
// within wait_s seconds (each calls this once), as a deck error that every rank reads alike. If so,
// returns the largest of their codes (every rank then ends normally, through finish_processes);
// else 0, and the caller ends the run with abort_processes. Without MPI or on one rank: `code`.
int every_rank_failed(int code, double wait_s);
// An agreement of the world's ranks, some of which may hold an error they met alone (every rank
// calls it at the same point of the run: a module's setup over its box, a step of the time loop,
// the end of the outputs). Gives every rank the largest `stop` (a signal number; 0: none) and, where
// some rank holds an error (`failure`: its message; nullptr: none), the message of the one with the
// highest `weight`, the lowest rank among equals (a message that names its node outranks one that
// cannot). One reduction of two integers, on a communicator of its own; the message crosses only
// when some rank failed. It waits for every rank: a rank holding an error guards itself against one
// that never comes (app/held_error.hpp). Without MPI or on one rank: this rank's own.
struct Agreement {
  int stop = 0;
  int failed_rank = -1;  // (-1: no rank failed)
  std::string failure;
};
Agreement agree(int stop, const std::string* failure, int weight = 0);
// Whether an agreement has given this rank a failure: every rank then ends the run, together (each
// got the same failure at the same agreement), so a collective clean-up on the way out (closing a
// file the ranks write together) meets every rank.
bool ranks_agreed_failure();
// Ends every rank at once (after an error on some of them); returns only without MPI.
void abort_processes(int code);
int world_size();
int world_rank();
// This rank's index among the world's ranks on its host (0 without MPI): which GPU it drives.
int host_rank();
// "Open MPI v4.1.4, CUDA-aware: no" (or why there is no MPI) for `tridsim info`.
std::string mpi_description();
bool mpi_cuda_aware();

// How GPU interface data (halos, reduced rows) cross the ranks.
enum class GpuTransport {
  staged,          // MPI from page-locked host copies of the device data
  cuda_aware_mpi,  // MPI from device memory
  nccl,            // NCCL, device to device, queued on the GPU with the computation
};
// Decides the transport; collective over the world's ranks, each with its device already chosen.
// NCCL where this build has it, its library loads and no two ranks share a GPU; else CUDA-aware MPI
// where the MPI is; else staging. TRIDSIM_GPU_TRANSPORT=nccl|mpi|staged asks for one (an Error
// says why it cannot be had); auto (or unset) decides as above. Without this call: MPI (CUDA-aware
// or staged).
void choose_gpu_transport();
GpuTransport gpu_transport_kind();
// The transport in words, for `tridsim info` and summary.json.
std::string gpu_transport();

// What a GPU transport keeps for a set of ranks (an NCCL communicator), made on first use and
// destroyed with the LineComm or Domain that holds it.
class DeviceChannel {
 public:
  virtual ~DeviceChannel() = default;
};

// The ranks along one split axis that share a set of lines: each holds one segment of every line.
class LineComm {
 public:
  LineComm();
  ~LineComm();
  LineComm(const LineComm&) = delete;
  LineComm& operator=(const LineComm&) = delete;
  int size() const { return size_; }
  int rank() const { return rank_; }
  // Non-blocking: every rank's `bytes` from `send` land in `recv` (size() * bytes) in rank order.
  int start_allgather(const void* send, void* recv, std::size_t bytes);
  // Non-blocking: send_bytes[k] bytes at send + send_offsets[k] go to rank k, and rank k's part lands
  // at recv + recv_offsets[k] (recv_bytes[k] bytes); one entry per rank (copied: only the buffers
  // must live until wait).
  int start_alltoallv(const void* send, const std::size_t* send_bytes, const std::size_t* send_offsets, void* recv,
                      const std::size_t* recv_bytes, const std::size_t* recv_offsets);
  void wait(int request);
  // Rank 0's `text` on every rank of the axis (set-up data: not counted in bytes_sent).
  std::string from_first(const std::string& text);
  // Lets a started exchange move on while this rank computes (MPI progresses only inside MPI calls).
  void progress(int request);
  // Bytes this rank has sent to other ranks, and seconds spent waiting for communication.
  std::size_t bytes_sent() const { return bytes_sent_; }
  double seconds() const { return seconds_; }
  // Bytes sent by a device transport (which the host does not wait for).
  void count_sent(std::size_t bytes) { bytes_sent_ += bytes; }
  std::unique_ptr<DeviceChannel>& device_channel() { return device_; }

 private:
  friend class Domain;
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::unique_ptr<DeviceChannel> device_;  // (destroyed before impl_'s MPI communicator)
  int size_ = 1, rank_ = 0;
  std::size_t bytes_sent_ = 0;
  double seconds_ = 0;
};

class Domain {
 public:
  // The whole grid on this process alone.
  explicit Domain(const Grid& g);
  // The grid split over the world's ranks with process grid `ranks` (all 0: balanced_process_grid).
  // Throws Error when `ranks` does not fit the grid or the world's size.
  Domain(const Grid& g, std::array<int, 3> ranks);
  ~Domain();
  Domain(const Domain&) = delete;
  Domain& operator=(const Domain&) = delete;

  const Decomposition& layout() const { return d_; }
  const Grid& global() const { return d_.global; }
  Grid local() const { return d_.local(); }
  bool distributed() const { return d_.distributed(); }
  int rank() const { return rank_; }
  int size() const { return size_; }
  LineComm& line_comm(int axis) const { return *lines_[axis]; }

  // Fills the halos of a local array (local().size() values, `components` per node) from the
  // neighbours' owned nodes. Requests are made once per array and reused.
  template <class T>
  void exchange_halos(T* local, int components = 1) const;
  // The owned nodes of every rank's local array, into `global` (global().size() nodes) on rank 0.
  template <class T>
  void gather(const T* local, T* global, int components = 1) const;

  // This rank's local box (owned nodes and halos) out of an array over the whole grid (a restart:
  // every rank reads the whole checkpoint).
  template <class T>
  void take_local(const T* global, T* local, int components = 1) const;

  // Rank 0's `text` on every rank (where rank 0 puts the files that every rank writes together).
  std::string broadcast(const std::string& text) const;
  // Returns once every rank has called it.
  void barrier() const;

  double sum(double x) const;
  double min(double x) const;
  double max(double x) const;
  // True on every rank when `flag` is true on some rank.
  bool any(bool flag) const;
  // Seconds spent communicating and bytes sent (halos and line solves) so far.
  double comm_seconds() const;
  std::size_t bytes_sent() const;
  // Halo bytes sent by a device transport, and its channel over the world's ranks.
  void count_halo_bytes(std::size_t bytes) const;
  std::unique_ptr<DeviceChannel>& device_channel() const { return device_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  mutable std::unique_ptr<DeviceChannel> device_;
  Decomposition d_;
  int rank_ = 0, size_ = 1;
  std::array<std::unique_ptr<LineComm>, 3> lines_;
};

}  // namespace tridsim
