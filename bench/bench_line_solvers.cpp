// Benchmarks of the CPU batched tridiagonal solvers (solvers/tridiagonal/batched.hpp), read
// against the machine's copy bandwidth.
//
//   bench_line_solvers                                  # everything
//   bench_line_solvers --benchmark_filter='solve/double'  # one precision
//   bench_line_solvers --benchmark_filter=copy            # the baseline only
//
// Cases (x-fastest arrays, dense strides):
//  - every axis of a 256^3 array, double and float;
//  - 65536 systems of length 256: a 256 x 65536 array solved along x, a 65536 x 256 array
//    solved along y;
// each with three coefficient sources, solved by thomas; the 65536 lines of 256 points also by every
// other CPU algorithm of the table (solvers/tridiagonal/line_solvers.hpp), named .../<algorithm>.
// The coefficient sources:
//  - uniform:   UniformMatrix (the constant-kappa diffusion matrix, factored once);
//  - arrays:    ArrayCoeffs (a, b, c stored in full);
//  - diffusion: DiffusionCoeffs (rows generated from a kappa array, arithmetic face means).
// The right-hand side is read from d and the solution written to a separate x through
// load/store functors, so every iteration solves the same problem.
// cyclic/<T>/<source>/<shape>: the same lines as periodic ones (cyclic.hpp; uniform and diffusion:
// the periodic diffusion rows), to read against solve/... (issue 37: at least 90 % of its speed).
//
// Counters: points/s, and bytes/s = the minimal traffic divided by the time:
//   uniform   2 * sizeof(T) per point (d read, x written)
//   arrays    5 * sizeof(T) per point (a, b, c, d read, x written)
//   diffusion 3 * sizeof(T) per point (kappa, d read, x written)
// The copy baselines move a 134 MB (2^27 byte, one 256^3 double array) and a 1074 MB array;
// bytes = read + write = 2 * size. (A 134 MB copy may run partly from a large L3.) Write
// allocation (reading a destination line before writing it) costs the same in both, so the
// ratio of a solver's bytes/s to the copy's is the fraction of copy bandwidth reached.
#include <benchmark/benchmark.h>
#include <omp.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include "bench/copy_baseline.hpp"
#include "core/boundary_kind.hpp"
#include "core/types.hpp"
#include "solvers/tridiagonal/batched.hpp"
#include "solvers/tridiagonal/coefficients.hpp"
#include "solvers/tridiagonal/cyclic.hpp"
#include "solvers/tridiagonal/line_set.hpp"
#include "solvers/tridiagonal/line_solvers.hpp"

namespace {

using namespace tridsim;
using namespace tridsim::tridiag;
using namespace tridsim::bench;


// A deterministic value in [0, 1) for element i.
inline double hash01(index_t i) { return double((std::uint64_t(i) * 2654435761u) % 1000u) / 1000.0; }

enum class Source { uniform, arrays, diffusion };

const char* name_of(Source s) {
  return s == Source::uniform ? "uniform" : s == Source::arrays ? "arrays" : "diffusion";
}
int words_per_point(Source s) { return s == Source::uniform ? 2 : s == Source::arrays ? 5 : 3; }

constexpr double kW = 0.3;  // theta * dt * kappa / h^2 of the generated matrices

// The arrays of one problem; the last one built is kept (rebuilt when the shape changes).
template <class T>
struct Problem {
  std::array<index_t, 3> n{};
  index_t size = 0;
  Buffer<T> d, x, a, b, c, kappa;

  explicit Problem(std::array<index_t, 3> shape) : n(shape), size(shape[0] * shape[1] * shape[2]) {
    d = make_buffer<T>(size); x = make_buffer<T>(size);
    a = make_buffer<T>(size); b = make_buffer<T>(size); c = make_buffer<T>(size);
    kappa = make_buffer<T>(size);
    T *D = d.get(), *X = x.get(), *A = a.get(), *B = b.get(), *C = c.get(), *K = kappa.get();
    const index_t N = size;
#pragma omp parallel for schedule(static)
    for (index_t i = 0; i < N; ++i) {
      D[i] = T(hash01(i) - 0.5);
      X[i] = T(0);
      A[i] = T(-kW * (0.5 + hash01(i + 1)));  // diagonally dominant rows (b = 1 + |a| + |c|)
      C[i] = T(-kW * (0.5 + hash01(i + 2)));
      B[i] = T(1) - A[i] - C[i];
      K[i] = T(0.5 + hash01(i + 3));
    }
  }
};

template <class T>
Problem<T>& problem(std::array<index_t, 3> n) {
  static std::unique_ptr<Problem<T>> cached;
  if (!cached || cached->n != n) {
    cached.reset();  // free the old arrays first
    cached = std::make_unique<Problem<T>>(n);
  }
  return *cached;
}

template <class T>
void rates(benchmark::State& state, const Problem<T>& P, Source src) {
  const double points = double(P.size);
  state.counters["points/s"] = benchmark::Counter(points, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["bytes/s"] = benchmark::Counter(points * words_per_point(src) * double(sizeof(T)),
                                                 benchmark::Counter::kIsIterationInvariantRate);
}

template <class T>
void bm_solve(benchmark::State& state, std::array<index_t, 3> n, int axis, Source src, bool cyclic, Algorithm alg) {
  Problem<T>& P = problem<T>(n);
  const LineSet L{n, {1, n[0], n[0] * n[1]}, axis};
  const T* d = P.d.get();
  T* x = P.x.get();
  auto load = [d](index_t o, index_t k, T* out) { std::memcpy(out, d + o, sizeof(T) * std::size_t(k)); };
  auto store = [x](index_t o, index_t k, const T* in) { std::memcpy(x + o, in, sizeof(T) * std::size_t(k)); };
  auto run = [&](const auto& M) {
    using Matrix = std::decay_t<decltype(M)>;
    for (auto _ : state) {
      if constexpr (is_cyclic_uniform_v<Matrix>) solve_cyclic_lines<T>(L, M, load, store);
      else if constexpr (!is_uniform_v<Matrix>)
        cyclic ? solve_cyclic_lines<T>(L, M, load, store) : solve_lines<T>(L, M, load, store, alg);
      else solve_lines<T>(L, M, load, store, alg);
      benchmark::ClobberMemory();
    }
  };
  const auto ends = cyclic ? BoundaryKind::periodic : BoundaryKind::neumann;
  switch (src) {
    case Source::uniform:
      if (cyclic) run(cyclic_diffusion_matrix<T>(n[axis], T(kW)));
      else run(uniform_diffusion_matrix<T>(n[axis], T(kW), ends, ends));
      break;
    case Source::arrays: run(ArrayCoeffs<T>{P.a.get(), P.b.get(), P.c.get()}); break;
    case Source::diffusion:
      run(DiffusionCoeffs<T>{P.kappa.get(), T(kW), L.axis_stride(), n[axis], ends, ends});
      break;
  }
  rates<T>(state, P, src);
}

template <class T>
void register_solves(const char* tname) {
  struct Case {
    const char* shape;
    std::array<index_t, 3> n;
    int axis;
  };
  const Case cases[] = {
      {"256^3/x", {256, 256, 256}, 0},   {"256^3/y", {256, 256, 256}, 1}, {"256^3/z", {256, 256, 256}, 2},
      {"256x65536/x", {256, 65536, 1}, 0}, {"65536x256/y", {65536, 256, 1}, 1},
  };
  for (const LineSolver* solver : cpu_line_solvers())
    for (bool cyclic : {false, true})
      for (Source src : {Source::uniform, Source::arrays, Source::diffusion})
        for (const Case& c : cases) {
          const Algorithm alg = solver->cpu;
          if (alg != Algorithm::thomas && (cyclic || c.n[2] != 1)) continue;  // the others: the 65536 lines of 256
          const std::string name = std::string(cyclic ? "cyclic/" : "solve/") + tname + "/" + name_of(src) + "/" +
                                   c.shape + (alg == Algorithm::thomas ? "" : std::string("/") + solver->name);
          benchmark::RegisterBenchmark(name.c_str(), [c, src, cyclic, alg](benchmark::State& st) {
            bm_solve<T>(st, c.n, c.axis, src, cyclic, alg);
          })
              ->Unit(benchmark::kMillisecond)
              ->UseRealTime();
        }
}

}  // namespace

int main(int argc, char** argv) {
  register_copy_baselines();
  register_solves<double>("double");
  register_solves<float>("float");
  benchmark::AddCustomContext("omp_max_threads", std::to_string(omp_get_max_threads()));
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
