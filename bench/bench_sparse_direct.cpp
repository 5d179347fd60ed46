// The sparse direct solver (solvers/sparse_direct/, multifrontal Cholesky with geometric nested
// dissection) against CHOLMOD (supernodal, its default ordering) and sequential MUMPS (SYM=1, its
// default ordering), on the same matrices in one run (GitHub issue 13).
//
//   bench_sparse_direct                                       # every solver at every size
//   bench_sparse_direct --benchmark_filter='5pt/1023/'        # one size
//   bench_sparse_direct --benchmark_counters_tabular=true     # phases side by side
//   bench_sparse_direct --large                               # adds the 7-point 127^3 cases (long)
//
// The operator: -div(kappa grad u) on the unit square / cube, kappa = 1 + 0.9 sin(3x) cos(2y)
// (times cos(z) in 3D), harmonic face means, homogeneous Dirichlet on every face, built by
// sparse::diffusion_matrix on a vertex-centred grid of (N + 2)^d nodes (h = 1 / (N + 1)): N^d
// interior unknowns plus the boundary nodes' identity rows. Every solver gets that whole matrix
// (the identity rows included, (N + 2)^d unknowns): ours as the StencilMatrix, CHOLMOD and MUMPS
// as its lower triangle from StencilMatrix::to_csr (the conversion is not timed). Sizes N:
// 5-point 511^2, 1023^2, 2047^2; 7-point 63^3 (127^3 with --large).
//
// Cases, per size, in this order (the matrix is built once per size and shared):
//   sparse_direct/<5pt|7pt>/<N>/assembly   diffusion_matrix (our assembly), for reference;
//                                           counter csr_s: the to_csr conversion
//   sparse_direct/<5pt|7pt>/<N>/ours       tridsim::sparse::Multifrontal<double>
//   sparse_direct/<5pt|7pt>/<N>/cholmod    cholmod_l_analyze / _factorize / _solve (supernodal,
//                                           the upper triangle, stype 1)
//   sparse_direct/<5pt|7pt>/<N>/cholmod_blas1  the same with single-threaded BLAS
//   sparse_direct/<5pt|7pt>/<N>/mumps      dmumps_c JOB = 1 / 2 / 3
// Each iteration of a solver case runs the whole sequence from nothing: analysis, factorization,
// refactorization (a second factorization with the same pattern and values), solve of one
// right-hand side; the iteration's (manual) time is the first factorization. Counters, each the
// minimum over the iterations (seconds unless said):
//   analysis_s, factor_s, refactor_s, solve_s
//   GFLOP/s      the solver's own flop count of its factorization / factor_s (ours:
//                Analysis::flops(); CHOLMOD: Common.fl; MUMPS: RINFOG(3)); orderings differ, so
//                the counts differ: read flops beside it
//   flops        that count
//   factor_MB    the factor's storage (ours: the panels; CHOLMOD: the supernodal values, xsize;
//                MUMPS: INFOG(29) entries), 1e6 bytes
//   peak_MB      working memory of the factorization (ours: panels + fronts + stacks, known at
//                analysis; CHOLMOD: Common.memory_usage, the peak of everything it allocated;
//                MUMPS: INFOG(22))
//   nnz_L        entries of the factor (ours: the panels; CHOLMOD: Common.lnz; MUMPS: INFOG(29))
//   residual     ||b - A x||_2 / ||b||_2 of the solve (residual in double)
//   points/s     unknowns / factor_s
//   load1        the 1-minute load average after the case (includes this process's threads)
//   others_cores the CPU time other processes took during the case / its wall time, in cores
//                (from /proc/stat and /proc/self/stat): 0 on a quiet machine
// CHOLMOD and MUMPS parts are compiled only when CMake found them (TRIDSIM_BENCH_CHOLMOD,
// TRIDSIM_BENCH_MUMPS). All three run their dense kernels in the same OpenMP OpenBLAS.
#include <benchmark/benchmark.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <stdexcept>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "bench/copy_baseline.hpp"
#include "bench/sparse_direct_cases.hpp"
#include "core/types.hpp"
#include "solvers/sparse_direct/diffusion_matrix.hpp"
#include "solvers/sparse_direct/multifrontal.hpp"

#ifdef TRIDSIM_BENCH_CHOLMOD
#include <cholmod.h>
#endif
#ifdef TRIDSIM_BENCH_MUMPS
#include <dmumps_c.h>
#endif

namespace {

using namespace tridsim;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

double load_average() {
  std::ifstream f("/proc/loadavg");
  double l = -1;
  f >> l;
  return l;
}

// CPU time (seconds) spent by every process, and by this one, from /proc: their difference over a
// case is what other processes took from this machine's cores while it ran.
struct CpuTimes {
  double all = 0, self = 0;
  Clock::time_point wall;
};

CpuTimes cpu_times() {
  CpuTimes t;
  t.wall = Clock::now();
  const double tick = double(sysconf(_SC_CLK_TCK));
  std::ifstream stat("/proc/stat");
  std::string cpu;
  double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  stat >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal;
  t.all = (user + nice + system + irq + softirq + steal) / tick;
  std::ifstream self("/proc/self/stat");
  std::string line;
  std::getline(self, line);
  // Fields after the command name (which ends with ')'): state is field 3, utime 14, stime 15.
  std::istringstream rest(line.substr(line.rfind(')') + 2));
  std::string field;
  double utime = 0, stime = 0;
  for (int f = 3; f <= 15 && rest >> field; ++f) {
    if (f == 14) utime = std::stod(field);
    if (f == 15) stime = std::stod(field);
  }
  t.self = (utime + stime) / tick;
  return t;
}

// Cores' worth of CPU that other processes used between a and b (0: this process had the machine).
double others_cores(const CpuTimes& a, const CpuTimes& b) {
  const double wall = std::chrono::duration<double>(b.wall - a.wall).count();
  return wall > 0 ? std::max(0.0, (b.all - a.all) - (b.self - a.self)) / wall : 0;
}

// One size: the problem, our matrix, a right-hand side and the lower triangle in CSR (row i:
// columns j <= i, ascending; the same as the upper triangle's columns by symmetry).
struct Case : bench::SparseCase {
  std::vector<index_t> lower_start, lower_column;
  std::vector<double> lower_value;
};

// The current size's case, built on first use and dropped when another size is asked for (the
// benchmarks run in registration order, grouped by size), so that one size's data is in memory.
std::shared_ptr<Case> g_case;

std::shared_ptr<Case> get_case(int dim, index_t interior) {
  if (g_case && g_case->dim == dim && g_case->interior == interior) return g_case;
  g_case.reset();
  auto c = std::make_shared<Case>();
  bench::build_sparse_case(*c, dim, interior);
  std::vector<index_t> rs, col;
  std::vector<double> val;
  c->matrix->to_csr(rs, col, val);
  const index_t n = c->unknowns();
  c->lower_start.assign(std::size_t(n + 1), 0);
  for (index_t i = 0; i < n; ++i)
    for (index_t q = rs[i]; q < rs[i + 1]; ++q)
      if (col[q] <= i) ++c->lower_start[i + 1];
  for (index_t i = 0; i < n; ++i) c->lower_start[i + 1] += c->lower_start[i];
  c->lower_column.resize(std::size_t(c->lower_start[n]));
  c->lower_value.resize(std::size_t(c->lower_start[n]));
  for (index_t i = 0, o = 0; i < n; ++i)
    for (index_t q = rs[i]; q < rs[i + 1]; ++q)
      if (col[q] <= i) {
        c->lower_column[o] = col[q];
        c->lower_value[o++] = val[q];
      }
  g_case = c;
  return c;
}

using bench::Phases;

// The common counters, and how busy the other cores were and the load while it ran.
template <class Once>
void run_phases(benchmark::State& state, const Case& c, const Once& once) {
  const CpuTimes before = cpu_times();
  const bench::BestAndLast r = bench::run_phases(state, c.unknowns(), once);
  state.counters["others_cores"] = others_cores(before, cpu_times());
  state.counters["nnz_L"] = r.last.nnz_l;
  state.counters["load1"] = load_average();
}

void bm_assembly(benchmark::State& state, int dim, index_t interior) {
  auto c = get_case(dim, interior);
  double csr = std::numeric_limits<double>::infinity();
  for (auto _ : state) {
    const auto t0 = Clock::now();
    auto m = sparse::diffusion_matrix<double>(c->problem);
    state.SetIterationTime(seconds_since(t0));
    benchmark::DoNotOptimize(m.values.data());
    std::vector<index_t> rs, col;
    std::vector<double> val;
    const auto t1 = Clock::now();
    m.to_csr(rs, col, val);
    csr = std::min(csr, seconds_since(t1));
    benchmark::DoNotOptimize(val.data());
  }
  state.counters["points/s"] =
      benchmark::Counter(double(c->unknowns()), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["csr_s"] = csr;
  state.counters["unknowns"] = double(c->unknowns());
}

void bm_ours(benchmark::State& state, int dim, index_t interior) {
  auto c = get_case(dim, interior);
  run_phases(state, *c, [&] {
    Phases ph;
    auto t0 = Clock::now();
    sparse::Multifrontal<double> solver(c->problem.pattern());
    ph.analysis = seconds_since(t0);
    t0 = Clock::now();
    solver.factor(*c->matrix);
    ph.factor = seconds_since(t0);
    t0 = Clock::now();
    solver.factor(*c->matrix);
    ph.refactor = seconds_since(t0);
    std::vector<double> x = c->b;
    t0 = Clock::now();
    solver.solve(x.data(), 1);
    ph.solve = seconds_since(t0);
    ph.residual = relative_residual(*c, x.data());
    ph.flops = solver.analysis().flops();
    ph.factor_bytes = solver.factor_bytes();
    ph.peak_bytes = solver.working_bytes();
    ph.nnz_l = double(solver.analysis().factor_entries());
    return ph;
  });
}

#ifdef TRIDSIM_BENCH_CHOLMOD
// CHOLMOD with 64-bit indices (cholmod_l_*). Its analysis and factorization work fastest on the
// upper triangle when a fill-reducing ordering is used (cholmod_core.h, prefer_upper): the lower
// triangle's CSR (row i: columns j <= i) read as CSC is exactly the upper triangle (column i: rows
// j <= i), stype 1. Only the index type changes, outside the timing.
struct CholmodInput {
  std::vector<SuiteSparse_long> p, i;
};

CholmodInput cholmod_input(const Case& c) {
  CholmodInput in;
  in.p.assign(c.lower_start.begin(), c.lower_start.end());
  in.i.assign(c.lower_column.begin(), c.lower_column.end());
  return in;
}

// blas_threads: 0 keeps the OpenMP default (2 here); 1 runs CHOLMOD with single-threaded BLAS
// (omp_set_num_threads(1) around the case: the OpenMP OpenBLAS reads omp_get_max_threads() at
// every call). CHOLMOD's supernodal factorization makes many small BLAS calls, and threading each
// of them costs more than it gains on this machine (see docs/performance.md).
void bm_cholmod_threads(benchmark::State& state, int dim, index_t interior, int blas_threads) {
  auto c = get_case(dim, interior);
  const int saved_threads = omp_get_max_threads();
  if (blas_threads > 0) omp_set_num_threads(blas_threads);
  struct Restore {
    int n;
    ~Restore() { omp_set_num_threads(n); }
  } restore{saved_threads};
  CholmodInput in = cholmod_input(*c);
  const index_t n = c->unknowns();
  run_phases(state, *c, [&] {
    Phases ph;
    cholmod_common cm;
    cholmod_l_start(&cm);
    cm.supernodal = CHOLMOD_SUPERNODAL;
    cholmod_sparse a{};
    a.nrow = a.ncol = std::size_t(n);
    a.nzmax = in.i.size();
    a.p = in.p.data();
    a.i = in.i.data();
    a.x = const_cast<double*>(c->lower_value.data());
    a.stype = 1;
    a.itype = CHOLMOD_LONG;
    a.xtype = CHOLMOD_REAL;
    a.dtype = CHOLMOD_DOUBLE;
    a.sorted = 1;
    a.packed = 1;
    auto t0 = Clock::now();
    cholmod_factor* l = cholmod_l_analyze(&a, &cm);
    ph.analysis = seconds_since(t0);
    if (!l) throw std::runtime_error("cholmod_l_analyze failed");
    ph.flops = cm.fl;
    ph.nnz_l = cm.lnz;
    t0 = Clock::now();
    cholmod_l_factorize(&a, l, &cm);
    ph.factor = seconds_since(t0);
    if (cm.status != CHOLMOD_OK || l->minor < l->n) throw std::runtime_error("cholmod_l_factorize failed");
    t0 = Clock::now();
    cholmod_l_factorize(&a, l, &cm);
    ph.refactor = seconds_since(t0);
    ph.factor_bytes = double(l->is_super ? l->xsize : l->nzmax) * sizeof(double);
    cholmod_dense* bd = cholmod_l_allocate_dense(std::size_t(n), 1, std::size_t(n), CHOLMOD_REAL, &cm);
    std::copy(c->b.begin(), c->b.end(), static_cast<double*>(bd->x));
    t0 = Clock::now();
    cholmod_dense* xd = cholmod_l_solve(CHOLMOD_A, l, bd, &cm);
    ph.solve = seconds_since(t0);
    if (!xd) throw std::runtime_error("cholmod_l_solve failed");
    ph.residual = relative_residual(*c, static_cast<const double*>(xd->x));
    cholmod_l_free_dense(&xd, &cm);
    cholmod_l_free_dense(&bd, &cm);
    cholmod_l_free_factor(&l, &cm);
    ph.peak_bytes = double(cm.memory_usage);
    cholmod_l_finish(&cm);
    return ph;
  });
  state.SetLabel(blas_threads == 1 ? "supernodal, default ordering, 1 BLAS thread" : "supernodal, default ordering");
}

void bm_cholmod(benchmark::State& state, int dim, index_t interior) { bm_cholmod_threads(state, dim, interior, 0); }
void bm_cholmod_blas1(benchmark::State& state, int dim, index_t interior) {
  bm_cholmod_threads(state, dim, interior, 1);
}
#endif

#ifdef TRIDSIM_BENCH_MUMPS
constexpr MUMPS_INT kUseCommWorld = -987654;

void mumps_call(DMUMPS_STRUC_C& id, int job) {
  id.job = job;
  dmumps_c(&id);
  if (id.infog[0] < 0)
    throw std::runtime_error("MUMPS JOB=" + std::to_string(job) + ": INFOG(1) = " + std::to_string(id.infog[0]) +
                             ", INFOG(2) = " + std::to_string(id.infog[1]));
}

// MUMPS reports some sizes as negative millions when they exceed a 32-bit integer.
double mumps_count(MUMPS_INT v) { return v < 0 ? -double(v) * 1e6 : double(v); }

void bm_mumps(benchmark::State& state, int dim, index_t interior) {
  auto c = get_case(dim, interior);
  const index_t n = c->unknowns();
  const index_t nnz = c->lower_start[n];
  // Coordinate format, 1-based, lower triangle.
  std::vector<MUMPS_INT> irn(static_cast<std::size_t>(nnz)), jcn(static_cast<std::size_t>(nnz));
  for (index_t i = 0; i < n; ++i)
    for (index_t q = c->lower_start[i]; q < c->lower_start[i + 1]; ++q) {
      irn[q] = MUMPS_INT(i + 1);
      jcn[q] = MUMPS_INT(c->lower_column[q] + 1);
    }
  std::vector<double> values = c->lower_value;
  run_phases(state, *c, [&] {
    Phases ph;
    DMUMPS_STRUC_C id{};
    id.comm_fortran = kUseCommWorld;
    id.par = 1;
    id.sym = 1;  // symmetric positive definite
    mumps_call(id, -1);
    id.icntl[0] = -1;  // no error, diagnostic, global or statistics output
    id.icntl[1] = -1;
    id.icntl[2] = -1;
    id.icntl[3] = 0;
    id.n = MUMPS_INT(n);
    id.nnz = nnz;
    id.irn = irn.data();
    id.jcn = jcn.data();
    id.a = values.data();
    auto t0 = Clock::now();
    mumps_call(id, 1);
    ph.analysis = seconds_since(t0);
    t0 = Clock::now();
    mumps_call(id, 2);
    ph.factor = seconds_since(t0);
    t0 = Clock::now();
    mumps_call(id, 2);
    ph.refactor = seconds_since(t0);
    ph.flops = double(id.rinfog[2]);
    ph.nnz_l = mumps_count(id.infog[28]);
    ph.factor_bytes = ph.nnz_l * sizeof(double);
    ph.peak_bytes = double(id.infog[21]) * 1e6;
    std::vector<double> x = c->b;
    id.rhs = x.data();
    id.nrhs = 1;
    id.lrhs = MUMPS_INT(n);
    t0 = Clock::now();
    mumps_call(id, 3);
    ph.solve = seconds_since(t0);
    ph.residual = relative_residual(*c, x.data());
    mumps_call(id, -2);
    return ph;
  });
  state.SetLabel("SYM=1, default ordering");
}
#endif

void register_size(int dim, index_t interior) {
  const std::string prefix =
      std::string("sparse_direct/") + (dim == 2 ? "5pt/" : "7pt/") + std::to_string(interior) + "/";
  // Iterations per solver case: the whole sequence runs each time, so fewer at the large sizes
  // (3 at 511^2, 2 at 1023^2, 1 at 2047^2 and in 3D).
  const double unknowns = std::pow(double(interior + 2), dim);
  const int iterations = dim == 2 ? (unknowns < 5e5 ? 3 : unknowns < 2e6 ? 2 : 1) : 1;
  benchmark::RegisterBenchmark((prefix + "assembly").c_str(),
                               [=](benchmark::State& s) { bm_assembly(s, dim, interior); })
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond)
      ->Iterations(5);
  auto solver_case = [&](const char* name, void (*fn)(benchmark::State&, int, index_t)) {
    benchmark::RegisterBenchmark((prefix + name).c_str(), [=](benchmark::State& s) { fn(s, dim, interior); })
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond)
        ->Iterations(iterations);
  };
  solver_case("ours", bench::guarded<bm_ours>);
#ifdef TRIDSIM_BENCH_CHOLMOD
  solver_case("cholmod", bench::guarded<bm_cholmod>);
  solver_case("cholmod_blas1", bench::guarded<bm_cholmod_blas1>);
#endif
#ifdef TRIDSIM_BENCH_MUMPS
  solver_case("mumps", bench::guarded<bm_mumps>);
#endif
}

}  // namespace

int main(int argc, char** argv) {
  bool large = false;
  int kept = 1;
  for (int a = 1; a < argc; ++a) {
    if (std::strcmp(argv[a], "--large") == 0) large = true;
    else argv[kept++] = argv[a];
  }
  argc = kept;
  tridsim::bench::register_copy_baselines();
  register_size(2, 511);
  register_size(2, 1023);
  register_size(2, 2047);
  register_size(3, 63);
  if (large) register_size(3, 127);
  benchmark::AddCustomContext("omp_max_threads", std::to_string(omp_get_max_threads()));
  benchmark::AddCustomContext("load_average_at_start", std::to_string(load_average()));
#ifdef TRIDSIM_BENCH_CHOLMOD
  benchmark::AddCustomContext("cholmod", std::to_string(CHOLMOD_MAIN_VERSION) + "." +
                                             std::to_string(CHOLMOD_SUB_VERSION) + "." +
                                             std::to_string(CHOLMOD_SUBSUB_VERSION));
#endif
#ifdef TRIDSIM_BENCH_MUMPS
  benchmark::AddCustomContext("mumps", MUMPS_VERSION);
#endif
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
