// Fast Poisson solvers on the CPU (solvers/cyclic_reduction/poisson.hpp): one solve of
// -Lap u = f with zero Dirichlet values, every method (bcr, bcr4, fft through FFTW), float and
// double, on
//   poisson2d/<method>/<precision>/n        n x n interior nodes, n = 127 ... 8191,
//   poisson3d/<method>/<precision>/n        n^3, n = 31 ... 511,
//   thesis/<method>/<precision>/N/Q         N blocks of size Q (N rows of Q nodes along x),
//                                           the geometries of Vouronikou & Zisiou (2013);
//   faces<dim>d/<ends>/<precision>/N        fft-tridiagonal (transform_poisson.hpp) for each axis's
//                                           faces dd, dn, nn or pp (Dirichlet, Neumann, periodic),
//                                           N intervals per axis: N + 1 nodes, N on a periodic axis
//                                           (the transforms' natural sizes; dd has N - 1 unknowns,
//                                           as bcr's N - 1).
// Counters: points/s (interior nodes per second) and bytes/s, the minimal traffic of a solve
// (read f, write u: 2 * sizeof(T) per node), to be read against the machine's copy bandwidth.
// The solve works in place; each iteration starts from the same f (the copy is not timed).
// Select with --benchmark_filter, e.g. 'poisson2d/.*/double/4095$'.
#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <utility>
#include <vector>

#include "bench/poisson_cases.hpp"
#include "core/aligned.hpp"
#include "core/fp_env.hpp"
#include "solvers/cyclic_reduction/poisson.hpp"
#include "solvers/cyclic_reduction/transform_poisson.hpp"

namespace {

using namespace tridsim;

// Times solve(u) with u = f at the start of each iteration (the copy is not timed), after one
// untimed warm-up solve (first touch of the work arrays, thread start-up).
template <class T, class Solve>
void time_solves(benchmark::State& state, const AlignedVector<T>& f, const Solve& solve) {
  AlignedVector<T> u(f.size());
  std::copy(f.begin(), f.end(), u.begin());
  solve(u.data());
  for (auto _ : state) {
    state.PauseTiming();
    std::copy(f.begin(), f.end(), u.begin());
    state.ResumeTiming();
    solve(u.data());
    benchmark::DoNotOptimize(u.data());
    benchmark::ClobberMemory();
  }
  const double points = double(f.size());
  state.counters["points/s"] = benchmark::Counter(points, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["bytes/s"] = benchmark::Counter(2.0 * sizeof(T) * points, benchmark::Counter::kIsIterationInvariantRate);
}

template <class T>
void solve(benchmark::State& state, cr::PoissonMethod method, int dim, std::array<index_t, 3> m) {
  cr::PoissonBox b;
  b.dim = dim;
  b.m = m;
  for (int a = 0; a < dim; ++a) b.h[a] = 1.0 / double(m[a] + 1);
  const cr::PoissonSolver<T> solver(b, method, /*fft_measure=*/true);
  AlignedVector<T> f(b.size());
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> dist(-1, 1);
  for (auto& v : f) v = T(dist(rng));
  time_solves<T>(state, f, [&](T* u) { solver.solve(u); });
}

// fft-tridiagonal with the faces `ends` (per axis: "dd", "dn", "nn" or "pp"), N intervals per axis.
template <class T>
void solve_faces(benchmark::State& state, const std::vector<std::string>& ends, index_t n) {
  cr::TransformPoissonBox b;
  b.dim = int(ends.size());
  for (int a = 0; a < b.dim; ++a) {
    for (int side = 0; side < 2; ++side) {
      const char c = ends[std::size_t(a)][std::size_t(side)];
      b.ends[a][side] = c == 'd' ? BoundaryKind::dirichlet : c == 'n' ? BoundaryKind::neumann : BoundaryKind::periodic;
    }
    b.n[a] = b.periodic(a) ? n : n + 1;
    b.h[a] = 1.0 / double(n);
  }
  const cr::TransformPoisson<T> solver(b, /*measure=*/true);
  AlignedVector<T> f(b.size());
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> dist(-1, 1);
  for (auto& v : f) v = T(dist(rng));
  if (b.singular()) solver.remove_mean(f.data());  // a compatible right-hand side
  time_solves<T>(state, f, [&](T* u) { solver.solve(u); });
}

template <class T>
void register_all(const char* precision) {
  tridsim::bench::register_poisson_cases("", precision, solve<T>, false);
  const std::vector<std::pair<std::vector<std::string>, std::vector<index_t>>> faces = {
      {{"dd", "dd"}, {1024, 4096}}, {{"pp", "dd"}, {1024, 4096}}, {{"pp", "nn"}, {1024, 4096}},
      {{"nn", "nn"}, {1024, 4096}}, {{"dn", "pp"}, {1024, 4096}},
      {{"dd", "dd", "dd"}, {64, 256}}, {{"pp", "pp", "dd"}, {64, 256}}, {{"pp", "pp", "nn"}, {64, 256}},
      {{"nn", "nn", "nn"}, {64, 256}}};
  for (const auto& [ends, sizes] : faces)
    for (const index_t n : sizes) {
      std::string name = "faces" + std::to_string(ends.size()) + "d/";
      for (std::size_t a = 0; a < ends.size(); ++a) name += (a ? "-" : "") + ends[a];
      name += std::string("/") + precision + "/" + std::to_string(n);
      benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& s) { solve_faces<T>(s, ends, n); })
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
}

}  // namespace

int main(int argc, char** argv) {
  tridsim::flush_subnormals_to_zero();  // as the tridsim driver does
  register_all<double>("double");
  register_all<float>("float");
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
