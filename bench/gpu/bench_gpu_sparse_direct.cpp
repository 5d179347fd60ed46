// The sparse direct solver on the GPU (solvers/sparse_direct/, options.backend = cuda) against
// cuSOLVER's sparse Cholesky, on the operators of bench_sparse_direct (GitHub issue 13):
//
//   bench_gpu_sparse_direct                                    # everything
//   bench_gpu_sparse_direct --benchmark_filter='5pt/511/'      # one size
//   bench_gpu_sparse_direct --benchmark_counters_tabular=true  # phases side by side
//
// The operator: -div(kappa grad u) on the unit square / cube, kappa = 1 + 0.9 sin(3x) cos(2y)
// (times cos(z) in 3D), harmonic face means, homogeneous Dirichlet on every face
// (sparse::diffusion_matrix, (N + 2)^d nodes, h = 1 / (N + 1): N^d interior unknowns plus the
// boundary nodes' identity rows; every solver gets that whole matrix). Sizes N: 5-point 255^2,
// 511^2, 1023^2; 7-point 63^3, 127^3.
//
// Cases:
//   gpu_sparse_direct/<5pt|7pt>/<N>/ours           Multifrontal<double> with backend cuda: analysis
//                                                  (constructor), factor, refactor (second factor),
//                                                  solve of one host right-hand side (solve_s)
//                                                  and of one already on the device
//                                                  (solve_device_s, Multifrontal::solve_device)
//   gpu_sparse_direct/<5pt|7pt>/<N>/cusolver       cuSOLVER's low-level device Cholesky
//                                                  (cusolverSpXcsrcholAnalysis, DcsrcholFactor,
//                                                  DcsrcholSolve): separate phases
//   gpu_sparse_direct/<5pt|7pt>/<N>/cusolver_lsvchol  cusolverSpDcsrlsvchol, device CSR: analysis,
//                                                  factorization and solve in one call (factor_s)
// cuSOLVER's sparse Cholesky does no fill-reducing ordering on the device (the low-level API never
// reorders; csrlsvchol's `reorder` is for the host path), so both cuSOLVER cases get the matrix
// already permuted to our nested-dissection order (Analysis::unknown_at; the permutation is not
// timed): the same ordering, the same flops. Both are capped at 511^2 and 63^3 (kCusolverCap):
// beyond that they take minutes or run out of memory, and are not registered.
//
// Every phase is timed on the host around the call followed by cudaDeviceSynchronize (the calls
// are synchronous or end with one; data on the device before the clock starts for cuSOLVER, the
// host right-hand side for ours, as its API takes). The iteration's (manual) time is the first
// factorization; counters (minimum over the iterations, seconds): analysis_s, factor_s,
// refactor_s, solve_s (cuSOLVER: device b and x), solve_device_s (ours only; 0 elsewhere);
// GFLOP/s = Analysis::flops() / factor_s (the same ordering for all, so the same count); factor_MB (ours: the panels; cuSOLVER: internalDataInBytes); peak_MB (ours:
// working bytes; cuSOLVER: internal data + workspace); residual ||b - A x|| / ||b|| in double.
// The device copy baseline copy/d2d/134MB runs first (gpu_bench_support.hpp).
#define DISABLE_CUSOLVER_DEPRECATED  // the sparse Cholesky is deprecated in favour of cuDSS (not installed)
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>
#include <cusolverSp.h>
#include <cusolverSp_LOWLEVEL_PREVIEW.h>
#include <cusparse.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/gpu/gpu_bench_support.hpp"
#include "bench/sparse_direct_cases.hpp"
#include "core/backend.hpp"
#include "core/types.hpp"
#include "solvers/sparse_direct/diffusion_matrix.hpp"
#include "solvers/sparse_direct/multifrontal.hpp"

namespace {

using namespace tridsim;
using namespace tridsim::gpu_bench;
using Clock = std::chrono::steady_clock;

// Unknowns above which the cuSOLVER cases are not registered: 513^2 (511^2 interior) and 65^3.
constexpr double kCusolverCap[2] = {513.0 * 513.0, 65.0 * 65.0 * 65.0};

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

void cusolver_ok(cusolverStatus_t s, const char* what) {
  if (s != CUSOLVER_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + ": cuSOLVER status " + std::to_string(int(s)));
}
void cusparse_ok(cusparseStatus_t s, const char* what) {
  if (s != CUSPARSE_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + ": cuSPARSE status " + std::to_string(int(s)));
}

using Case = bench::SparseCase;

std::shared_ptr<Case> g_case;

// The current size's matrix and right-hand side (as in bench_sparse_direct), built once per size.
std::shared_ptr<Case> get_case(int dim, index_t interior) {
  if (g_case && g_case->dim == dim && g_case->interior == interior) return g_case;
  g_case.reset();
  auto c = std::make_shared<Case>();
  bench::build_sparse_case(*c, dim, interior);
  g_case = c;
  return c;
}

using bench::Phases;

template <class Once>
void run_phases(benchmark::State& state, const Case& c, const Once& once) {
  state.counters["solve_device_s"] = bench::run_phases(state, c.unknowns(), once).best.solve_device;
}

void bm_ours(benchmark::State& state, int dim, index_t interior) {
  auto c = get_case(dim, interior);
  sparse::SolverOptions options;
  options.backend = Backend::cuda;
  run_phases(state, *c, [&] {
    Phases ph;
    ok(cudaDeviceSynchronize(), "sync");
    auto t0 = Clock::now();
    sparse::Multifrontal<double> solver(c->problem.pattern(), options);
    ok(cudaDeviceSynchronize(), "analysis");
    ph.analysis = seconds_since(t0);
    t0 = Clock::now();
    solver.factor(*c->matrix);
    ok(cudaDeviceSynchronize(), "factor");
    ph.factor = seconds_since(t0);
    t0 = Clock::now();
    solver.factor(*c->matrix);
    ok(cudaDeviceSynchronize(), "refactor");
    ph.refactor = seconds_since(t0);
    std::vector<double> x = c->b;
    t0 = Clock::now();
    solver.solve(x.data(), 1);
    ok(cudaDeviceSynchronize(), "solve");
    ph.solve = seconds_since(t0);
    ph.residual = relative_residual(*c, x.data());
    // The solve of a right-hand side already on the device.
    const index_t n = c->unknowns();
    DeviceBuffer<double> db = device_alloc<double>(n);
    ok(cudaMemcpy(db.get(), c->b.data(), sizeof(double) * std::size_t(n), cudaMemcpyHostToDevice), "copy b");
    t0 = Clock::now();
    solver.solve_device(db.get(), 1);
    ok(cudaDeviceSynchronize(), "solve_device");
    ph.solve_device = seconds_since(t0);
    ph.flops = solver.analysis().flops();
    ph.factor_bytes = solver.factor_bytes();
    ph.peak_bytes = solver.working_bytes();
    return ph;
  });
}

// The matrix (both triangles, 32-bit indices) permuted to our nested-dissection order on the
// device, with the right-hand side in the same order and the flops of that ordering.
struct DeviceCsr {
  int n = 0, nnz = 0;
  DeviceBuffer<int> row, col;
  DeviceBuffer<double> val, b, x;
  std::vector<index_t> unknown_at;  // position -> unknown
  std::vector<double> b_host;       // permuted
  double flops = 0;
};

DeviceCsr permuted_csr(const Case& c) {
  DeviceCsr d;
  const sparse::Analysis an(c.problem.pattern());
  const auto& pos = an.position_of();
  d.unknown_at = an.unknown_at();
  d.flops = an.flops();
  std::vector<index_t> rs, col;
  std::vector<double> val;
  c.matrix->to_csr(rs, col, val);
  const index_t n = c.unknowns();
  if (rs[n] > std::numeric_limits<int>::max()) throw std::runtime_error("matrix too large for 32-bit indices");
  std::vector<int> prow(static_cast<std::size_t>(n + 1), 0), pcol;
  std::vector<double> pval;
  pcol.reserve(std::size_t(rs[n]));
  pval.reserve(std::size_t(rs[n]));
  std::vector<std::pair<int, double>> row;
  for (index_t p = 0; p < n; ++p) {
    const index_t i = d.unknown_at[p];
    row.clear();
    for (index_t q = rs[i]; q < rs[i + 1]; ++q) row.emplace_back(int(pos[col[q]]), val[q]);
    std::sort(row.begin(), row.end());
    for (const auto& [j, v] : row) {
      pcol.push_back(j);
      pval.push_back(v);
    }
    prow[p + 1] = int(pcol.size());
  }
  d.n = int(n);
  d.nnz = int(pcol.size());
  d.b_host.resize(std::size_t(n));
  for (index_t p = 0; p < n; ++p) d.b_host[p] = c.b[d.unknown_at[p]];
  d.row = device_alloc<int>(n + 1);
  d.col = device_alloc<int>(d.nnz);
  d.val = device_alloc<double>(d.nnz);
  d.b = device_alloc<double>(n);
  d.x = device_alloc<double>(n);
  ok(cudaMemcpy(d.row.get(), prow.data(), sizeof(int) * prow.size(), cudaMemcpyHostToDevice), "copy rows");
  ok(cudaMemcpy(d.col.get(), pcol.data(), sizeof(int) * pcol.size(), cudaMemcpyHostToDevice), "copy columns");
  ok(cudaMemcpy(d.val.get(), pval.data(), sizeof(double) * pval.size(), cudaMemcpyHostToDevice), "copy values");
  ok(cudaMemcpy(d.b.get(), d.b_host.data(), sizeof(double) * std::size_t(n), cudaMemcpyHostToDevice), "copy b");
  return d;
}

// The device solution (permuted) back in unknown order, and its residual.
double device_residual(const Case& c, const DeviceCsr& d) {
  std::vector<double> xp(std::size_t(d.n)), x(std::size_t(d.n));
  ok(cudaMemcpy(xp.data(), d.x.get(), sizeof(double) * xp.size(), cudaMemcpyDeviceToHost), "copy x");
  for (int p = 0; p < d.n; ++p) x[d.unknown_at[p]] = xp[p];
  return relative_residual(c, x.data());
}

struct CusolverHandles {
  cusolverSpHandle_t sp = nullptr;
  cusparseMatDescr_t descr = nullptr;
  CusolverHandles() {
    cusolver_ok(cusolverSpCreate(&sp), "cusolverSpCreate");
    cusolver_ok(cusolverSpSetStream(sp, g_stream), "cusolverSpSetStream");
    cusparse_ok(cusparseCreateMatDescr(&descr), "cusparseCreateMatDescr");
    cusparse_ok(cusparseSetMatType(descr, CUSPARSE_MATRIX_TYPE_GENERAL), "cusparseSetMatType");
    cusparse_ok(cusparseSetMatIndexBase(descr, CUSPARSE_INDEX_BASE_ZERO), "cusparseSetMatIndexBase");
  }
  ~CusolverHandles() {
    cusparseDestroyMatDescr(descr);
    cusolverSpDestroy(sp);
  }
  CusolverHandles(const CusolverHandles&) = delete;
  CusolverHandles& operator=(const CusolverHandles&) = delete;
};

void bm_cusolver(benchmark::State& state, int dim, index_t interior) {
  auto c = get_case(dim, interior);
  DeviceCsr d = permuted_csr(*c);
  CusolverHandles h;
  run_phases(state, *c, [&] {
    Phases ph;
    csrcholInfo_t info = nullptr;
    cusolver_ok(cusolverSpCreateCsrcholInfo(&info), "cusolverSpCreateCsrcholInfo");
    ok(cudaDeviceSynchronize(), "sync");
    auto t0 = Clock::now();
    cusolver_ok(cusolverSpXcsrcholAnalysis(h.sp, d.n, d.nnz, h.descr, d.row.get(), d.col.get(), info),
                "cusolverSpXcsrcholAnalysis");
    std::size_t internal = 0, workspace = 0;
    cusolver_ok(cusolverSpDcsrcholBufferInfo(h.sp, d.n, d.nnz, h.descr, d.val.get(), d.row.get(), d.col.get(), info,
                                             &internal, &workspace),
                "cusolverSpDcsrcholBufferInfo");
    DeviceBuffer<unsigned char> buffer = device_alloc<unsigned char>(index_t(std::max<std::size_t>(workspace, 1)));
    ok(cudaDeviceSynchronize(), "analysis");
    ph.analysis = seconds_since(t0);
    for (int pass = 0; pass < 2; ++pass) {
      t0 = Clock::now();
      cusolver_ok(cusolverSpDcsrcholFactor(h.sp, d.n, d.nnz, h.descr, d.val.get(), d.row.get(), d.col.get(), info,
                                           buffer.get()),
                  "cusolverSpDcsrcholFactor");
      int singular = -1;
      cusolver_ok(cusolverSpDcsrcholZeroPivot(h.sp, info, 0.0, &singular), "cusolverSpDcsrcholZeroPivot");
      ok(cudaDeviceSynchronize(), "factor");
      (pass == 0 ? ph.factor : ph.refactor) = seconds_since(t0);
      if (singular >= 0) throw std::runtime_error("cuSOLVER: zero pivot at " + std::to_string(singular));
    }
    t0 = Clock::now();
    cusolver_ok(cusolverSpDcsrcholSolve(h.sp, d.n, d.b.get(), d.x.get(), info, buffer.get()), "cusolverSpDcsrcholSolve");
    ok(cudaDeviceSynchronize(), "solve");
    ph.solve = seconds_since(t0);
    ph.residual = device_residual(*c, d);
    ph.flops = d.flops;
    ph.factor_bytes = double(internal);
    ph.peak_bytes = double(internal + workspace);
    cusolverSpDestroyCsrcholInfo(info);
    return ph;
  });
  state.SetLabel("low-level device API, our nested-dissection order");
}

void bm_cusolver_lsvchol(benchmark::State& state, int dim, index_t interior) {
  auto c = get_case(dim, interior);
  DeviceCsr d = permuted_csr(*c);
  CusolverHandles h;
  run_phases(state, *c, [&] {
    Phases ph;
    int singular = -1;
    ok(cudaDeviceSynchronize(), "sync");
    const auto t0 = Clock::now();
    cusolver_ok(cusolverSpDcsrlsvchol(h.sp, d.n, d.nnz, h.descr, d.val.get(), d.row.get(), d.col.get(), d.b.get(), 0.0,
                                      /*reorder=*/0, d.x.get(), &singular),
                "cusolverSpDcsrlsvchol");
    ok(cudaDeviceSynchronize(), "csrlsvchol");
    ph.factor = seconds_since(t0);  // analysis + factorization + solve in one call
    if (singular >= 0) throw std::runtime_error("cuSOLVER: singular at " + std::to_string(singular));
    ph.residual = device_residual(*c, d);
    ph.flops = d.flops;
    return ph;
  });
  state.SetLabel("one call (analysis + factor + solve), our nested-dissection order");
}

void register_size(int dim, index_t interior) {
  const std::string prefix =
      std::string("gpu_sparse_direct/") + (dim == 2 ? "5pt/" : "7pt/") + std::to_string(interior) + "/";
  const double unknowns = std::pow(double(interior + 2), dim);
  const int iterations = unknowns < 1.1e6 ? 3 : 2;
  auto add = [&](const char* name, void (*fn)(benchmark::State&, int, index_t)) {
    benchmark::RegisterBenchmark((prefix + name).c_str(), [=](benchmark::State& s) { fn(s, dim, interior); })
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond)
        ->Iterations(iterations);
  };
  add("ours", bench::guarded<bm_ours>);
  if (unknowns <= kCusolverCap[dim - 2]) {
    add("cusolver", bench::guarded<bm_cusolver>);
    add("cusolver_lsvchol", bench::guarded<bm_cusolver_lsvchol>);
  }
}

}  // namespace

int main(int argc, char** argv) {
  return tridsim::gpu_bench::run(argc, argv, "bench_gpu_sparse_direct", [] {
    register_size(2, 255);
    register_size(2, 511);
    register_size(2, 1023);
    register_size(3, 63);
    register_size(3, 127);
  });
}
