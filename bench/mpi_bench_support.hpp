#pragma once
// Shared by the benchmarks run under mpirun (bench_distributed, bench_gpu_distributed): timed
// iterations that every rank runs together, and a run in which rank 0 alone reports.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

#include "core/domain.hpp"

namespace tridsim::bench {

// Times `body` on every rank after a barrier; the iteration's time is the slowest rank's.
template <class Body>
void timed_iterations(benchmark::State& state, const Domain& d, Body&& body) {
  using clock_type = std::chrono::steady_clock;
  for (auto _ : state) {
    d.sum(0.0);  // barrier
    const auto t0 = clock_type::now();
    body();
    state.SetIterationTime(d.max(std::chrono::duration<double>(clock_type::now() - t0).count()));
  }
}

// Runs the registered benchmarks on every rank (their iterations meet in collectives: register
// them with fixed iteration counts); rank 0 alone reports and writes --benchmark_out.
inline void run_benchmarks_on_ranks(int argc, char** argv) {
  struct Silent : benchmark::BenchmarkReporter {
    bool ReportContext(const Context&) override { return true; }
    void ReportRuns(const std::vector<Run>&) override {}
  };
  std::vector<char*> args(argv, argv + argc);
  if (world_rank() > 0)
    args.erase(std::remove_if(args.begin(), args.end(),
                              [](const char* a) { return std::strncmp(a, "--benchmark_out", 15) == 0; }),
               args.end());
  int n_args = int(args.size());
  benchmark::Initialize(&n_args, args.data());
  if (world_rank() == 0) {
    benchmark::RunSpecifiedBenchmarks();
  } else {
    Silent silent;
    benchmark::RunSpecifiedBenchmarks(&silent);
  }
  benchmark::Shutdown();
}

}  // namespace tridsim::bench
