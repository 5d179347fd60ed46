#include "core/domain.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <thread>
#include <tuple>

#include "core/errors.hpp"
#include "tridsim_build_info.hpp"

#if TRIDSIM_HAVE_NCCL
#include "core/device.hpp"
#include "core/nccl_channel.hpp"
#endif
#if TRIDSIM_HAVE_MPI
#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif
#endif

namespace tridsim {

namespace {
using clock_type = std::chrono::steady_clock;
double since(clock_type::time_point t0) { return std::chrono::duration<double>(clock_type::now() - t0).count(); }

std::array<int, 3> coords_of(const std::array<int, 3>& ranks, int r) {
  return {r % ranks[0], (r / ranks[0]) % ranks[1], r / (ranks[0] * ranks[1])};
}

// The owned nodes of a local array into a dense owned box (x-fastest, `components` per node), and
// an owned box into its place in an array over the whole grid.
template <class T>
void pack_owned(const Decomposition& d, int components, const T* local, T* box) {
  const Grid l = d.local();
  const auto& s = d.axes;
  const index_t run = components * s[0].owned;
  for (index_t k = 0; k < s[2].owned; ++k)
    for (index_t j = 0; j < s[1].owned; ++j)
      std::memcpy(box + run * (j + s[1].owned * k),
                  local + components * l.index(s[0].halo_lo, j + s[1].halo_lo, k + s[2].halo_lo), sizeof(T) * run);
}
template <class T>
void unpack_box(const Decomposition& d, int components, const T* box, T* global) {
  const auto& s = d.axes;
  const index_t run = components * s[0].owned;
  for (index_t k = 0; k < s[2].owned; ++k)
    for (index_t j = 0; j < s[1].owned; ++j)
      std::memcpy(global + components * d.global.index(s[0].first, j + s[1].first, k + s[2].first),
                  box + run * (j + s[1].owned * k), sizeof(T) * run);
}
index_t owned_nodes(const Decomposition& d) { return d.axes[0].owned * d.axes[1].owned * d.axes[2].owned; }
Agreement alone(int stop, const std::string* failure) { return {stop, failure ? 0 : -1, failure ? *failure : ""}; }
bool g_agreed_failure = false;
}  // namespace

bool ranks_agreed_failure() { return g_agreed_failure; }

#if TRIDSIM_HAVE_MPI

namespace {
bool g_we_initialized = false;
MPI_Comm g_errors = MPI_COMM_NULL;  // the world's ranks: every_rank_failed
MPI_Comm g_agree = MPI_COMM_NULL;   // the world's ranks: agree (apart, so that it never meets another collective)
bool started_by_mpirun() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "MPI_LOCALNRANKS"})
    if (std::getenv(v)) return true;
  return false;
}

bool mpi_running() {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  return init && !fin;
}
// Rank 0's text on every rank of comm (`rank`: this one's).
std::string broadcast_text(MPI_Comm comm, int rank, const std::string& text) {
  unsigned long long n = text.size();
  MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, comm);
  if (n > (unsigned long long)INT_MAX) throw Error("broadcasting a text of more than 2 GB");
  std::string out = rank == 0 ? text : std::string(n, '\0');
  MPI_Bcast(out.data(), int(n), MPI_CHAR, 0, comm);
  return out;
}
template <class T>
MPI_Datatype mpi_type() {
  return sizeof(T) == 4 ? MPI_FLOAT : MPI_DOUBLE;
}
}  // namespace

void init_processes(int* argc, char*** argv) {
  if (mpi_running() || !started_by_mpirun()) return;  // a plain start is one process: no MPI needed
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  g_we_initialized = true;
  MPI_Comm_dup(MPI_COMM_WORLD, &g_errors);
  MPI_Comm_dup(MPI_COMM_WORLD, &g_agree);
}
void finish_processes() {
  if (!g_we_initialized || !mpi_running()) return;
  if (g_errors != MPI_COMM_NULL) MPI_Comm_free(&g_errors);
  if (g_agree != MPI_COMM_NULL) MPI_Comm_free(&g_agree);
  MPI_Finalize();
}
namespace {
// Whether `request` completes within wait_s seconds (forever where wait_s < 0); one left pending
// stays so (the caller then aborts).
bool completes(MPI_Request& request, double wait_s) {
  const auto t0 = clock_type::now();
  for (int done = 0;;) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done) return true;
    if (wait_s >= 0 && since(t0) > wait_s) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}
}  // namespace

int every_rank_failed(int code, double wait_s) {
  if (!mpi_running() || world_size() == 1 || g_errors == MPI_COMM_NULL) return code;
  MPI_Request barrier;
  MPI_Ibarrier(g_errors, &barrier);
  if (!completes(barrier, wait_s)) return 0;
  int worst = code;
  MPI_Allreduce(&code, &worst, 1, MPI_INT, MPI_MAX, g_errors);
  return worst;
}
Agreement agree(int stop, const std::string* failure, int weight) {
  if (!mpi_running() || world_size() == 1 || g_agree == MPI_COMM_NULL)
    return alone(stop, failure);
  // The failed rank of highest weight, lowest among equals, as the largest key: weight * size + size - rank.
  const int size = world_size(), rank = world_rank();
  int v[2] = {stop, failure ? std::max(weight, 0) * size + size - rank : 0};
  MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_MAX, g_agree);
  Agreement a{v[0], v[1] > 0 ? size - 1 - (v[1] - 1) % size : -1, {}};
  if (a.failed_rank < 0) return a;
  g_agreed_failure = true;
  unsigned long long n = a.failed_rank == rank ? failure->size() : 0;
  MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, a.failed_rank, g_agree);
  a.failure = a.failed_rank == rank ? *failure : std::string(n, '\0');
  MPI_Bcast(a.failure.data(), int(std::min<unsigned long long>(n, INT_MAX)), MPI_CHAR, a.failed_rank, g_agree);
  return a;
}
void abort_processes(int code) {
  if (mpi_running() && world_size() > 1) MPI_Abort(MPI_COMM_WORLD, code);
}
int world_size() {
  int n = 1;
  if (mpi_running()) MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}
int world_rank() {
  int r = 0;
  if (mpi_running()) MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int host_rank() {
  if (!mpi_running()) return 0;
  MPI_Comm host;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
  int r = 0;
  MPI_Comm_rank(host, &r);
  MPI_Comm_free(&host);
  return r;
}
bool mpi_cuda_aware() {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return mpi_running() && MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

namespace {
std::optional<GpuTransport> g_transport;  // (choose_gpu_transport)

// Why NCCL cannot carry this run's exchanges ("" when it can): the same answer on every rank,
// from every rank's host, GPU and whether NCCL loads there.
std::string why_not_nccl() {
#if TRIDSIM_HAVE_NCCL
  std::string why_here;
  const bool loads = !cuda::nccl_library_version(&why_here).empty();
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  MPI_Get_processor_name(name, &len);
  constexpr int kWidth = MPI_MAX_PROCESSOR_NAME + 40;
  std::string mine = fmt::format("{}{} GPU {}", loads ? '+' : '-', std::string(name, std::size_t(len)), cuda_device_pci_id());
  mine.resize(kWidth, '\0');
  std::vector<char> all(std::size_t(kWidth) * std::size_t(world_size()));
  MPI_Allgather(mine.data(), kWidth, MPI_CHAR, all.data(), kWidth, MPI_CHAR, MPI_COMM_WORLD);
  std::map<std::string, int> first_rank;
  for (int r = 0; r < world_size(); ++r) {
    const std::string entry(all.data() + std::size_t(r) * kWidth);
    if (entry[0] == '-') return fmt::format("its library does not load on rank {}{}", r, r == world_rank() ? ": " + why_here : "");
    if (const auto [it, fresh] = first_rank.try_emplace(entry.substr(1), r); !fresh)
      return fmt::format("ranks {} and {} share a GPU ({}); NCCL needs one per rank", it->second, r, entry.substr(1));
  }
  return "";
#else
  return "this build has no NCCL (configure with nccl.h present: the CUDA Toolkit's or libnccl-dev)";
#endif
}
}  // namespace

void choose_gpu_transport() {
  const char* env = std::getenv("TRIDSIM_GPU_TRANSPORT");
  const std::string want = env && *env ? env : "auto";
  if (want != "auto" && want != "nccl" && want != "mpi" && want != "staged")
    throw Error(fmt::format("TRIDSIM_GPU_TRANSPORT={}: not a transport (auto, nccl, mpi or staged)", want));
  if (!mpi_running() || world_size() == 1 || want == "staged") {
    g_transport = GpuTransport::staged;
    return;
  }
  const std::string no_nccl = want == "mpi" ? "" : why_not_nccl();
  if (want == "nccl" && !no_nccl.empty()) throw Error("TRIDSIM_GPU_TRANSPORT=nccl: " + no_nccl);
  if (want == "mpi" && !mpi_cuda_aware())
    throw Error("TRIDSIM_GPU_TRANSPORT=mpi: this MPI is not CUDA-aware (auto or staged would run)");
  g_transport = want != "mpi" && no_nccl.empty() ? GpuTransport::nccl
                : mpi_cuda_aware()               ? GpuTransport::cuda_aware_mpi
                                                 : GpuTransport::staged;
  if (want == "auto" && !no_nccl.empty() && world_rank() == 0) spdlog::info("GPU exchanges not through NCCL: {}", no_nccl);
}
GpuTransport gpu_transport_kind() {
  return g_transport.value_or(mpi_cuda_aware() ? GpuTransport::cuda_aware_mpi : GpuTransport::staged);
}
std::string gpu_transport() {
  std::string nccl = "no NCCL in this build";
#if TRIDSIM_HAVE_NCCL
  const std::string version = cuda::nccl_library_version();
  nccl = version.empty() ? "NCCL (its library does not load here)" : "NCCL " + version;
#endif
  if (!mpi_running())
    return fmt::format("chosen under mpirun: {} device to device where every rank has its own GPU, else CUDA-aware "
                       "MPI, else staged through pinned host memory",
                       nccl);
  if (world_size() == 1) return "none (one rank)";
  switch (gpu_transport_kind()) {
    case GpuTransport::nccl: return nccl + ", device to device";
    case GpuTransport::cuda_aware_mpi: return "CUDA-aware MPI from device memory";
    case GpuTransport::staged: break;
  }
  return "staged through pinned host memory";
}
std::string mpi_description() {
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  MPI_Get_library_version(version, &len);
  std::string v(version, std::min<int>(len, MPI_MAX_LIBRARY_VERSION_STRING));
  if (const auto cut = v.find_first_of(",\n"); cut != std::string::npos) v.resize(cut);
  return fmt::format("{} (MPI {}.{}), CUDA-aware: {}", v, MPI_VERSION, MPI_SUBVERSION,
                     mpi_running() ? (mpi_cuda_aware() ? "yes" : "no") : "known under mpirun");
}

struct LineComm::Impl {
  MPI_Comm comm = MPI_COMM_NULL;
  std::vector<MPI_Request> requests;
  // Counts and displacements of the all-to-alls, by request: MPI may read them until completion.
  std::vector<std::vector<int>> counts;
  ~Impl() {
    if (comm != MPI_COMM_NULL && mpi_running()) MPI_Comm_free(&comm);
  }
};

int LineComm::start_allgather(const void* send, void* recv, std::size_t bytes) {
  if (bytes > std::size_t(INT_MAX)) throw Error("distributed line solve: a batch of reduced rows exceeds 2 GB");
  if (size_ == 1) {
    std::memcpy(recv, send, bytes);
    return -1;
  }
  MPI_Request r;
  MPI_Iallgather(send, int(bytes), MPI_BYTE, recv, int(bytes), MPI_BYTE, impl_->comm, &r);
  bytes_sent_ += bytes * std::size_t(size_ - 1);
  impl_->requests.push_back(r);
  return int(impl_->requests.size()) - 1;
}

int LineComm::start_alltoallv(const void* send, const std::size_t* send_bytes, const std::size_t* send_offsets,
                              void* recv, const std::size_t* recv_bytes, const std::size_t* recv_offsets) {
  if (size_ == 1) {
    std::memcpy(static_cast<char*>(recv) + recv_offsets[0], static_cast<const char*>(send) + send_offsets[0], send_bytes[0]);
    return -1;
  }
  std::vector<int> c(4 * std::size_t(size_));  // send counts, send displacements, recv counts, recv displacements
  std::size_t sent = 0;
  for (int k = 0; k < size_; ++k) {
    const std::size_t v[4] = {send_bytes[k], send_offsets[k], recv_bytes[k], recv_offsets[k]};
    for (int i = 0; i < 4; ++i) {
      if (v[i] > std::size_t(INT_MAX)) throw Error("distributed line solve: a batch of reduced rows exceeds 2 GB");
      c[i * size_ + k] = int(v[i]);
    }
    if (k != rank_) sent += send_bytes[k];
  }
  MPI_Request r;
  MPI_Ialltoallv(send, c.data(), c.data() + size_, MPI_BYTE, recv, c.data() + 2 * size_, c.data() + 3 * size_, MPI_BYTE,
                 impl_->comm, &r);
  bytes_sent_ += sent;
  impl_->requests.push_back(r);
  impl_->counts.resize(impl_->requests.size());
  impl_->counts.back() = std::move(c);  // (a moved vector keeps its storage)
  return int(impl_->requests.size()) - 1;
}

void LineComm::wait(int request) {
  if (request < 0) return;
  const auto t0 = clock_type::now();
  MPI_Wait(&impl_->requests[request], MPI_STATUS_IGNORE);
  seconds_ += since(t0);
  if (request < int(impl_->counts.size())) impl_->counts[request] = {};
  if (request + 1 == int(impl_->requests.size())) {  // drop finished requests from the back
    while (!impl_->requests.empty() && impl_->requests.back() == MPI_REQUEST_NULL) impl_->requests.pop_back();
    impl_->counts.resize(std::min(impl_->counts.size(), impl_->requests.size()));
  }
}

std::string LineComm::from_first(const std::string& text) {
  return size_ == 1 ? text : broadcast_text(impl_->comm, rank_, text);
}

void LineComm::progress(int request) {
  if (request < 0 || impl_->requests[request] == MPI_REQUEST_NULL) return;
  int done = 0;
  MPI_Test(&impl_->requests[request], &done, MPI_STATUS_IGNORE);
}

struct Domain::Impl {
  // Persistent halo requests per local array (address, components, element size).
  std::map<std::tuple<const void*, int, int>, std::vector<MPI_Request>> halos;
  std::vector<MPI_Datatype> types;
  std::map<std::tuple<const void*, int, int>, std::size_t> halo_plane_bytes;  // sent per exchange
  std::array<std::array<int, 2>, 3> neighbour{};  // rank below / above along each axis (-1: none)
  double halo_seconds = 0;
  std::size_t halo_bytes = 0;
  ~Impl() {
    if (!mpi_running()) return;
    for (auto& [key, reqs] : halos)
      for (auto& r : reqs) MPI_Request_free(&r);
    for (auto& t : types) MPI_Type_free(&t);
  }
};

Domain::Domain(const Grid& g, std::array<int, 3> ranks) : impl_(std::make_unique<Impl>()) {
  size_ = world_size();
  rank_ = world_rank();
  if (ranks == std::array<int, 3>{0, 0, 0}) {
    ranks = balanced_process_grid(g, size_);
    if (ranks[0] == 0)
      throw Error(fmt::format("{} ranks cannot split this grid: each rank needs at least 2 nodes along every split "
                              "axis (fewer ranks, or a larger grid)",
                              size_));
  }
  if (ranks[0] * ranks[1] * ranks[2] != size_)
    throw Error(fmt::format("the process grid [{}, {}, {}] has {} ranks; the run has {} (mpirun -np {})", ranks[0],
                            ranks[1], ranks[2], ranks[0] * ranks[1] * ranks[2], size_, size_));
  if (const std::string why = process_grid_problem(g, ranks); !why.empty())
    throw Error(fmt::format("process grid [{}, {}, {}]: {}", ranks[0], ranks[1], ranks[2], why));
  d_ = decompose(g, ranks, coords_of(ranks, rank_));
  for (int a = 0; a < 3; ++a) {
    lines_[a] = std::make_unique<LineComm>();
    for (int side = 0; side < 2; ++side) impl_->neighbour[a][side] = d_.neighbour(a, side);
    if (!d_.split(a)) continue;
    // The ranks that share this rank's lines along a: the same coordinates on the other axes.
    auto c = d_.coords;
    c[a] = 0;
    MPI_Comm_split(MPI_COMM_WORLD, process_rank(ranks, c), d_.coords[a], &lines_[a]->impl_->comm);
    lines_[a]->size_ = ranks[a];
    lines_[a]->rank_ = d_.coords[a];
  }
}

template <class T>
void Domain::exchange_halos(T* local, int components) const {
  if (!distributed()) return;
  const auto t0 = clock_type::now();
  const auto key = std::make_tuple(static_cast<const void*>(local), components, int(sizeof(T)));
  auto it = impl_->halos.find(key);
  if (it == impl_->halos.end()) {
    // One plane per neighbour each way, as subarrays of the local array (C order: z slowest).
    const Grid l = d_.local();
    const int sizes[3] = {int(l.n[2]), int(l.n[1]), int(l.n[0] * components)};
    std::vector<MPI_Request> reqs;
    for (int a = 0; a < 3; ++a)
      for (int side = 0; side < 2; ++side) {
        const int nb = impl_->neighbour[a][side];
        if (nb < 0) continue;
        const int c = 2 - a, unit = a == 0 ? components : 1;
        int sub[3] = {sizes[0], sizes[1], sizes[2]};
        sub[c] = unit;
        const index_t send_at = side ? l.n[a] - 2 : 1, recv_at = side ? l.n[a] - 1 : 0;
        MPI_Datatype plane[2];
        for (int k = 0; k < 2; ++k) {
          int start[3] = {0, 0, 0};
          start[c] = int((k ? recv_at : send_at) * unit);
          MPI_Type_create_subarray(3, sizes, sub, start, MPI_ORDER_C, mpi_type<T>(), &plane[k]);
          MPI_Type_commit(&plane[k]);
          impl_->types.push_back(plane[k]);
        }
        MPI_Request r[2];
        MPI_Send_init(local, 1, plane[0], nb, 2 * a + side, MPI_COMM_WORLD, &r[0]);
        MPI_Recv_init(local, 1, plane[1], nb, 2 * a + 1 - side, MPI_COMM_WORLD, &r[1]);
        reqs.insert(reqs.end(), r, r + 2);
        impl_->halo_plane_bytes[key] += std::size_t(sub[0]) * sub[1] * sub[2] * sizeof(T);
      }
    it = impl_->halos.emplace(key, std::move(reqs)).first;
  }
  MPI_Startall(int(it->second.size()), it->second.data());
  MPI_Waitall(int(it->second.size()), it->second.data(), MPI_STATUSES_IGNORE);
  impl_->halo_bytes += impl_->halo_plane_bytes[key];
  impl_->halo_seconds += since(t0);
}

template <class T>
void Domain::gather(const T* local, T* global, int components) const {
  const index_t count = components * owned_nodes(d_);
  if (!distributed()) {
    std::memcpy(global, local, sizeof(T) * count);
    return;
  }
  if (count > INT_MAX) throw Error("gathering a field: one rank's part exceeds 2^31 values");
  std::vector<T> box(count);
  pack_owned(d_, components, local, box.data());
  if (rank_ != 0) {
    MPI_Send(box.data(), int(count), mpi_type<T>(), 0, 100, MPI_COMM_WORLD);
    return;
  }
  unpack_box(d_, components, box.data(), global);
  for (int r = 1; r < size_; ++r) {
    const Decomposition other = decompose(d_.global, d_.ranks, coords_of(d_.ranks, r));
    box.resize(components * owned_nodes(other));
    MPI_Recv(box.data(), int(box.size()), mpi_type<T>(), r, 100, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    unpack_box(other, components, box.data(), global);
  }
}

std::string Domain::broadcast(const std::string& text) const {
  return distributed() ? broadcast_text(MPI_COMM_WORLD, rank_, text) : text;
}
void Domain::barrier() const {
  if (distributed()) MPI_Barrier(MPI_COMM_WORLD);
}

namespace {
double all_reduce(double x, MPI_Op op) {
  double y = x;
  if (mpi_running()) MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, op, MPI_COMM_WORLD);
  return y;
}
}  // namespace
double Domain::sum(double x) const { return distributed() ? all_reduce(x, MPI_SUM) : x; }
double Domain::min(double x) const { return distributed() ? all_reduce(x, MPI_MIN) : x; }
double Domain::max(double x) const { return distributed() ? all_reduce(x, MPI_MAX) : x; }
bool Domain::any(bool flag) const { return distributed() ? all_reduce(flag ? 1 : 0, MPI_MAX) > 0 : flag; }
double Domain::comm_seconds() const {
  double s = impl_->halo_seconds;
  for (const auto& l : lines_) s += l->seconds();
  return s;
}
void Domain::count_halo_bytes(std::size_t bytes) const { impl_->halo_bytes += bytes; }
std::size_t Domain::bytes_sent() const {
  std::size_t b = impl_->halo_bytes;
  for (const auto& l : lines_) b += l->bytes_sent();
  return b;
}

#else  // without MPI: one process

void init_processes(int*, char***) {}
void finish_processes() {}
int every_rank_failed(int code, double) { return code; }
Agreement agree(int stop, const std::string* failure, int) { return alone(stop, failure); }
void abort_processes(int) {}
int world_size() { return 1; }
int world_rank() { return 0; }
int host_rank() { return 0; }
bool mpi_cuda_aware() { return false; }
std::string mpi_description() { return "none (built without MPI: configure with -DTRIDSIM_MPI=ON)"; }
void choose_gpu_transport() {}
GpuTransport gpu_transport_kind() { return GpuTransport::staged; }
std::string gpu_transport() { return "none (one process)"; }
struct LineComm::Impl {};
int LineComm::start_allgather(const void* send, void* recv, std::size_t bytes) {
  std::memcpy(recv, send, bytes);
  return -1;
}
int LineComm::start_alltoallv(const void* send, const std::size_t* send_bytes, const std::size_t* send_offsets,
                              void* recv, const std::size_t*, const std::size_t* recv_offsets) {
  std::memcpy(static_cast<char*>(recv) + recv_offsets[0], static_cast<const char*>(send) + send_offsets[0], send_bytes[0]);
  return -1;
}
void LineComm::wait(int) {}
std::string LineComm::from_first(const std::string& text) { return text; }
void LineComm::progress(int) {}
struct Domain::Impl {};
Domain::Domain(const Grid& g, std::array<int, 3> ranks) : Domain(g) {
  if (ranks[0] * ranks[1] * ranks[2] > 1)
    throw Error(fmt::format("the process grid [{}, {}, {}] needs {} ranks; this build has no MPI (configure with "
                            "-DTRIDSIM_MPI=ON and run under mpirun)",
                            ranks[0], ranks[1], ranks[2], ranks[0] * ranks[1] * ranks[2]));
}
template <class T>
void Domain::exchange_halos(T*, int) const {}
template <class T>
void Domain::gather(const T* local, T* global, int components) const {
  std::memcpy(global, local, sizeof(T) * components * owned_nodes(d_));
}
std::string Domain::broadcast(const std::string& text) const { return text; }
void Domain::barrier() const {}
double Domain::sum(double x) const { return x; }
double Domain::min(double x) const { return x; }
double Domain::max(double x) const { return x; }
bool Domain::any(bool flag) const { return flag; }
double Domain::comm_seconds() const { return 0; }
std::size_t Domain::bytes_sent() const { return 0; }
void Domain::count_halo_bytes(std::size_t) const {}

#endif

template <class T>
void Domain::take_local(const T* global, T* local, int components) const {
  const Grid l = d_.local();
  const index_t run = components * l.n[0];
  for (index_t k = 0; k < l.n[2]; ++k)
    for (index_t j = 0; j < l.n[1]; ++j)
      std::memcpy(local + components * l.index(0, j, k),
                  global + components * d_.global.index(d_.axes[0].local_first(), j + d_.axes[1].local_first(),
                                                        k + d_.axes[2].local_first()),
                  sizeof(T) * run);
}

LineComm::LineComm() : impl_(std::make_unique<Impl>()) {}
LineComm::~LineComm() = default;

Domain::Domain(const Grid& g) : impl_(std::make_unique<Impl>()), d_(decompose(g, {1, 1, 1}, {0, 0, 0})) {
  for (auto& l : lines_) l = std::make_unique<LineComm>();
}
Domain::~Domain() = default;

template void Domain::exchange_halos<float>(float*, int) const;
template void Domain::exchange_halos<double>(double*, int) const;
template void Domain::gather<float>(const float*, float*, int) const;
template void Domain::gather<double>(const double*, double*, int) const;
template void Domain::take_local<float>(const float*, float*, int) const;
template void Domain::take_local<double>(const double*, double*, int) const;

}  // namespace tridsim
