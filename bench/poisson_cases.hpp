#pragma once
// The Poisson benchmark cases, shared by bench_poisson (CPU) and bench_gpu_poisson (GPU):
// <prefix>poisson2d/<method>/<precision>/<n> for n x n, n = 127 ... 8191; <prefix>poisson3d/...
// for n^3, n = 31 ... 511; <prefix>thesis/<method>/<precision>/<N>/<Q> for N blocks of size Q
// (N = 3 ... 127, Q = 127 ... 4095: the geometries of Vouronikou & Zisiou's tables).
#include <benchmark/benchmark.h>

#include <array>
#include <string>

#include "core/types.hpp"
#include "solvers/cyclic_reduction/poisson.hpp"

namespace tridsim::bench {

// solve(state, method, dim, shape) times one case; manual_time: it sets the iteration times.
template <class Solve>
void register_poisson_cases(const std::string& prefix, const std::string& precision, Solve solve, bool manual_time) {
  auto add = [&](const std::string& name, cr::PoissonMethod method, int dim, std::array<index_t, 3> shape) {
    auto* b = benchmark::RegisterBenchmark((prefix + name).c_str(),
                                           [=](benchmark::State& s) { solve(s, method, dim, shape); });
    b->Unit(benchmark::kMillisecond);
    if (manual_time) b->UseManualTime();
    else b->UseRealTime();
  };
  for (cr::PoissonMethod method : {cr::PoissonMethod::bcr, cr::PoissonMethod::bcr4, cr::PoissonMethod::fft}) {
    const std::string tag = std::string(cr::to_string(method)) + "/" + precision + "/";
    for (index_t n = 127; n <= 8191; n = 2 * n + 1) add("poisson2d/" + tag + std::to_string(n), method, 2, {n, n, 1});
    for (index_t n = 31; n <= 511; n = 2 * n + 1) add("poisson3d/" + tag + std::to_string(n), method, 3, {n, n, n});
    for (index_t N = 3; N <= 127; N = 2 * N + 1)
      for (index_t Q = 127; Q <= 4095; Q = 2 * Q + 1)
        add("thesis/" + tag + std::to_string(N) + "/" + std::to_string(Q), method, 2, {Q, N, 1});
  }
}

}  // namespace tridsim::bench
