// Google Benchmark of the BVP recurrence solvers on the CPU (solvers/recurrence/), the paper's
// Tables III/IV on this machine: A1D (sequential double), A2D (divide and conquer, double), the
// mixed variant A2SD and compensated float, plus A1S/A2S, for the paper's problem P1 at
// n = 2^20 .. 2^26 unknowns, and the copy bandwidth of a 2^26-double array in the same run.
//   bench_bvp                                   # everything
//   bench_bvp --benchmark_filter='n:67108864'   # the 2^26 rows only
//   OMP_NUM_THREADS=1 bench_bvp ...             # one core
// Counters: points/s (unknowns per second) and bytes/s = 2 * n * sizeof(T) / time, the minimal
// traffic of any in-place solve (read d, write u); compare with copy's bytes/s. A1 moves 4
// words per point (two sweeps), A2 3 (a read-only pass, then one read-write pass).
// The input is restored (untimed) before every solve: the solvers work in place.
#include <benchmark/benchmark.h>
#include <omp.h>

#include <cstring>
#include <string>
#include <vector>

#include "core/aligned.hpp"
#include "physics/bvp/paper_problems.hpp"
#include "solvers/recurrence/divide_conquer.hpp"
#include "solvers/recurrence/sequential.hpp"

using namespace tridsim;

namespace {

enum class Variant { a1, a2 };

template <class T>
void bm_solve(benchmark::State& state, Variant v, rec::Arithmetic a) {
  const index_t n = state.range(0);
  AlignedVector<T> d0(n + 1), d(n + 1);
  const auto sys = bvp::assemble_paper(bvp::paper_problem(1), n, d0.data());
  for (auto _ : state) {
    state.PauseTiming();
    std::memcpy(d.data(), d0.data(), sizeof(T) * std::size_t(n + 1));
    state.ResumeTiming();
    if (v == Variant::a1) rec::solve_sequential(d.data() + sys.first, sys.m, sys.ends);
    else rec::solve_divide_conquer(d.data() + sys.first, sys.m, sys.ends, a);
    benchmark::ClobberMemory();
  }
  state.counters["rel_error"] = bvp::relative_error(bvp::paper_problem(1), n, d.data());
  state.counters["points/s"] = benchmark::Counter(double(n), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["bytes/s"] =
      benchmark::Counter(2.0 * double(n) * sizeof(T), benchmark::Counter::kIsIterationInvariantRate);
}

// All threads copy their static share of a 2^26-double (512 MiB) array: bytes = read + write.
void bm_copy(benchmark::State& state) {
  const index_t count = index_t(1) << 26;
  AlignedVector<double> src(count), dst(count);
#pragma omp parallel for schedule(static)
  for (index_t i = 0; i < count; ++i) src[i] = double(i), dst[i] = 0;
  for (auto _ : state) {
#pragma omp parallel
    {
      const index_t nt = omp_get_num_threads(), t = omp_get_thread_num();
      const index_t lo = count * t / nt, hi = count * (t + 1) / nt;
      std::memcpy(dst.data() + lo, src.data() + lo, sizeof(double) * std::size_t(hi - lo));
    }
    benchmark::ClobberMemory();
  }
  state.counters["bytes/s"] = benchmark::Counter(2.0 * double(count) * sizeof(double),
                                                 benchmark::Counter::kIsIterationInvariantRate);
}

void add(const std::string& name, void (*fn)(benchmark::State&, Variant, rec::Arithmetic), Variant v,
         rec::Arithmetic a) {
  benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& st) { fn(st, v, a); })
      ->RangeMultiplier(4)
      ->Range(1 << 20, 1 << 26)
      ->ArgName("n")
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::RegisterBenchmark("copy/omp/512MiB", bm_copy)->Unit(benchmark::kMillisecond)->UseRealTime();
  add("A1D/sequential/double", bm_solve<double>, Variant::a1, rec::Arithmetic::float64);
  add("A2D/divide-and-conquer/double", bm_solve<double>, Variant::a2, rec::Arithmetic::float64);
  add("A2SD/divide-and-conquer/mixed", bm_solve<float>, Variant::a2, rec::Arithmetic::mixed);
  add("A2SC/divide-and-conquer/compensated", bm_solve<float>, Variant::a2, rec::Arithmetic::compensated);
  add("A1S/sequential/float", bm_solve<float>, Variant::a1, rec::Arithmetic::float32);
  add("A2S/divide-and-conquer/float", bm_solve<float>, Variant::a2, rec::Arithmetic::float32);
  benchmark::AddCustomContext("omp_max_threads", std::to_string(omp_get_max_threads()));
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
