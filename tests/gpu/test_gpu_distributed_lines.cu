// Lines split over ranks on the GPU (solvers/tridiagonal/cuda/distributed_cuda.cuh): every rank
// solves its segments of random diagonally dominant lines (coefficient arrays) and of lines with
// one shared matrix (ConstantDiffusionRows: the factored path) on its GPU, and the result must
// equal the single-process CPU solve of the whole lines, for every split axis, awkward sizes, both
// transports of the reduced systems and one or several batches; the bytes sent must be the reduced
// rows (and the all-to-all's returned unknowns) only. Runs under mpirun -np 1..4 (ranks share the
// host's GPUs; the transport is choose_gpu_transport's, NCCL where TRIDSIM_GPU_TRANSPORT=nccl); without
// a CUDA device, or with nccl asked for and fewer GPUs than ranks, it prints "SKIPPED: ..." and exits 77.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cuda_runtime.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/cuda_support.cuh"
#include "core/domain.hpp"
#include "core/errors.hpp"
#include "tridsim_build_info.hpp"
#include "solvers/tridiagonal/batched.hpp"
#include "solvers/tridiagonal/coefficients.hpp"
#include "solvers/tridiagonal/cuda/distributed_cuda.cuh"
#include "tests/common/split_lines_cases.hpp"

using namespace tridsim;
using namespace tridsim::tridiag;
using namespace tridsim::testing;

namespace {

// A rank's part of the whole grid g (local box, halos included) from the whole grid's values.
template <class T>
std::vector<T> local_part(const Domain& domain, const std::vector<T>& whole) {
  std::vector<T> mine(domain.local().size());
  domain.take_local(whole.data(), mine.data());
  return mine;
}

struct Case {
  SplitTransport transport;
  index_t batches;  // 0: the default
};
const Case kCases[] = {{SplitTransport::gather, 0}, {SplitTransport::alltoall, 0}, {SplitTransport::gather, 3},
                       {SplitTransport::alltoall, 3}};

// The split solve of every line along `axis` on this rank's GPU against the CPU solve of the whole
// lines (x: the right-hand side, replaced by the solution); rows: the GPU row source over the
// local box; the bytes sent checked against the reduced system's.
template <class T, class Rows>
void check_against(const Domain& domain, int axis, const Rows& rows, const std::vector<T>& x_whole,
                   const std::vector<T>& rhs_whole, double tol, const Case& c) {
  CAPTURE(c.transport == SplitTransport::gather ? "gather" : "alltoall");
  CAPTURE(c.batches);
  const Decomposition& d = domain.layout();
  const Grid l = d.local();
  const AxisSplit& s = d.axes[axis];
  const std::vector<T> rhs = local_part(domain, rhs_whole);
  cuda::DeviceArray<T> in, out;
  in.upload(rhs.data(), l.size());
  out.allocate(l.size());
  LineComm& comm = domain.line_comm(axis);
  const std::size_t before = comm.bytes_sent();
  const LineSet lines = LineSet::dense(l, axis);
  gpu::SplitScratch<T> scratch;
  gpu::solve_split_lines<T>(lines, segment_of(s), rows, gpu::ArrayLoad<T>{in.p},
                            gpu::ArrayStore<T>{out.p}, comm, scratch, c.transport, c.batches);
  std::vector<T> got(l.size());
  TRIDSIM_CUDA(cudaMemcpy(got.data(), out.p, sizeof(T) * got.size(), cudaMemcpyDeviceToHost));
  const std::vector<T> ref = local_part(domain, x_whole);
  double worst = 0, scale = 0;
  for (index_t k = 0; k < l.n[2]; ++k)
    for (index_t j = 0; j < l.n[1]; ++j)
      for (index_t i = 0; i < l.n[0]; ++i) {
        if (!d.owns(i, j, k)) continue;
        const index_t o = l.index(i, j, k);
        worst = std::max(worst, std::abs(double(got[o]) - double(ref[o])));
        scale = std::max(scale, std::abs(double(ref[o])));
      }
  CHECK(worst <= tol * scale);
  const std::size_t sent = comm.bytes_sent() - before, P = comm.size(), n = lines.count(), row = sizeof(ReducedRow<T>);
  if (c.transport == SplitTransport::gather) {
    CHECK(sent == (P - 1) * 2 * n * row);  // 2 rows of each line to each other rank of the axis
  } else {  // summed over the axis' ranks: each line's rows to its solver, its unknowns back to the others
    CHECK(domain.sum(double(sent * P)) == domain.sum(double(2 * (P - 1) * n * (row + sizeof(T)))));
  }
}

// Random diagonally dominant rows in arrays (row_at).
template <class T>
void check_arrays(const Grid& g, int axis, const Domain& domain, double tol) {
  std::vector<T> a(g.size()), b(g.size()), c(g.size()), x(g.size());
  for (index_t k = 0; k < g.n[2]; ++k)
    for (index_t j = 0; j < g.n[1]; ++j)
      for (index_t i = 0; i < g.n[0]; ++i) {
        const index_t o = g.index(i, j, k);
        row_at(g, axis, i, j, k, a[o], b[o], c[o], x[o]);
      }
  const std::vector<T> rhs = x;
  solve_lines<T>(LineSet::dense(g, axis), ArrayCoeffs<T>{a.data(), b.data(), c.data()}, x.data());
  cuda::DeviceArray<T> da, db, dc;
  da.upload(local_part(domain, a).data(), domain.local().size());
  db.upload(local_part(domain, b).data(), domain.local().size());
  dc.upload(local_part(domain, c).data(), domain.local().size());
  for (const Case& cs : kCases) check_against<T>(domain, axis, gpu::ArrayRows<T>{da.p, db.p, dc.p}, x, rhs, tol, cs);
}

// One matrix shared by every line (the GPU factors the segment once on the host).
void check_shared(const Grid& g, int axis, const Domain& domain) {
  std::vector<double> x(g.size());
  for (index_t o = 0; o < g.size(); ++o) x[o] = noise(o, 5);
  const std::vector<double> rhs = x;
  solve_lines<double>(LineSet::dense(g, axis),
                      uniform_diffusion_matrix<double>(g.n[axis], 0.7, BoundaryKind::dirichlet, BoundaryKind::neumann),
                      x.data());
  const ConstantDiffusionRows<double> rows{0.7, g.n[axis], BoundaryKind::dirichlet, BoundaryKind::neumann};
  for (const Case& cs : kCases) check_against<double>(domain, axis, rows, x, rhs, 1e-12, cs);
}

}  // namespace

TEST_CASE("GPU split lines with coefficient arrays match the whole-line solve") {
  for_each_split_axis([](const Grid& g, int axis, const Domain& domain) {
    check_arrays<double>(g, axis, domain, 1e-13);
    check_arrays<float>(g, axis, domain, 2e-5);
  });
}

TEST_CASE("GPU split lines with one shared matrix match the whole-line solve") {
  for_each_split_axis([](const Grid& g, int axis, const Domain& domain) { check_shared(g, axis, domain); });
}

int main(int argc, char** argv) {
  init_processes(&argc, &argv);
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    if (world_rank() == 0) std::printf("test_gpu_distributed_lines: SKIPPED: no CUDA device\n");
    finish_processes();
    return 77;
  }
  // TRIDSIM_GPU_TRANSPORT=nccl (the _nccl tests): NCCL needs a GPU per rank.
  const char* want = std::getenv("TRIDSIM_GPU_TRANSPORT");
  if (want && std::string(want) == "nccl" && (!TRIDSIM_HAVE_NCCL || world_size() > count)) {
    if (world_rank() == 0) std::printf("test_gpu_distributed_lines: SKIPPED: NCCL needs a GPU per rank, and NCCL\n");
    finish_processes();
    return 77;
  }
  TRIDSIM_CUDA(cudaSetDevice(host_rank() % count));
  try {
    choose_gpu_transport();
  } catch (const Error& e) {
    std::fprintf(stderr, "rank %d: %s\n", world_rank(), e.what());
    finish_processes();
    return 1;
  }
  if (world_rank() == 0) std::printf("GPU transport: %s\n", gpu_transport().c_str());
  doctest::Context context(argc, argv);
  const int rc = context.run();
  finish_processes();
  return rc;
}
