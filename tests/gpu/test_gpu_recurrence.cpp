// GPU tests (label gpu) of the CUDA divide-and-conquer BVP solver (solvers/recurrence/cuda/):
//  1. every arithmetic, both carry modes (device scan, host hybrid) and every end combination,
//     against the CPU divide-and-conquer of the same arithmetic, for awkward m (1, 2, 3, a
//     prime, m not a multiple of the column length or of a panel, several panels);
//  2. the paper's P1 at n = 2^22 on the device: the double error (14) below 1e-11 (the CPU's is
//     2.5e-14) and compensated float below 1e-7;
//  3. the bvp module with backend cuda (both carry modes) gives the CPU module's solution.
// Tolerance for 1: relative to max|u|, 8 m eps of the arithmetic (both sides only add; they
// group the sums differently, so each errs by at most ~2 m eps). Double: eps = 1.1e-16, the
// float variants 6e-8.
// Without a CUDA device the program prints "SKIPPED: no CUDA device" and exits 0.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <random>
#include <vector>

#include "core/deck.hpp"
#include "physics/bvp/bvp.hpp"
#include "physics/bvp/paper_problems.hpp"
#include "solvers/recurrence/cuda/recurrence_cuda.hpp"
#include "solvers/recurrence/divide_conquer.hpp"

using namespace tridsim;
using rec::Arithmetic;
using rec::EndRow;
using rec::cuda::Carries;

namespace {

template <class T>
void compare(Arithmetic a, Carries carries) {
  const rec::Ends ends[] = {{EndRow::free, EndRow::fixed}, {EndRow::fixed, EndRow::free}, {EndRow::fixed, EndRow::fixed}};
  rec::cuda::GpuSolver<T> gpu(a, carries);
  for (const auto e : ends)
    for (const index_t m : {index_t(1), index_t(2), index_t(3), index_t(31), index_t(4099), index_t(128 * 33 + 5),
                            index_t(1000003)}) {
      if (m == 1 && e.first != e.last) continue;
      if (!std::is_same_v<T, double> && m > 100000) continue;  // 8 m eps would be too loose in float
      std::mt19937 gen{unsigned(m)};
      std::uniform_real_distribution<double> dist(-1, 1);
      std::vector<T> d(m);
      for (auto& v : d) v = T(dist(gen));
      auto cpu = d, dev = d;
      rec::solve_divide_conquer(cpu.data(), m, e, a);
      gpu.solve_host(dev.data(), m, e);
      double scale = 0, err = 0;
      for (index_t i = 0; i < m; ++i) {
        scale = std::max(scale, std::abs(double(cpu[i])));
        err = std::max(err, std::abs(double(cpu[i]) - double(dev[i])));
      }
      const double eps = std::is_same_v<T, double> ? 1.1e-16 : 6e-8;
      CHECK_MESSAGE(err <= 8 * double(m + 2) * eps * scale,
                    rec::to_string(a) << (carries == Carries::host ? " host" : " device") << " m=" << m << " ends "
                                      << int(e.first) << int(e.last) << " err " << err / scale);
    }
}

}  // namespace

TEST_CASE("GPU divide-and-conquer agrees with the CPU (every arithmetic, both carry modes)") {
  for (const auto c : {Carries::device, Carries::host}) {
    compare<double>(Arithmetic::float64, c);
    for (const auto a : {Arithmetic::float32, Arithmetic::mixed, Arithmetic::compensated}) compare<float>(a, c);
  }
}

TEST_CASE("GPU: paper P1 at n = 2^22, errors (14)") {
  const index_t n = index_t(1) << 22;
  const auto prob = bvp::paper_problem(1);
  std::vector<double> ud(n + 1);
  std::vector<float> uf(n + 1);
  const auto sys = bvp::assemble_paper(prob, n, ud.data());
  bvp::assemble_paper(prob, n, uf.data());
  rec::cuda::GpuSolver<double>(Arithmetic::float64, Carries::device).solve_host(ud.data(), sys.m, sys.ends);
  rec::cuda::GpuSolver<float>(Arithmetic::compensated, Carries::device).solve_host(uf.data(), sys.m, sys.ends);
  const double ed = bvp::relative_error(prob, n, ud.data()), ec = bvp::relative_error(prob, n, uf.data());
  MESSAGE("P1 n=2^22 GPU double " << ed << " compensated " << ec);
  CHECK(ed < 1e-11);
  CHECK(ec < 1e-7);
}

TEST_CASE("bvp module: backend cuda agrees with cpu (P1 with two Dirichlet ends, 2^20 + 1 nodes)") {
  auto run = [](const std::string& backend, const std::string& carries) {
    Deck deck = Deck::parse("bvp:\n  carries: " + carries +
                                "\n  source: \"pi^2/4*cos(pi*x/2)\"\n  exact: \"cos(pi*x/2)\"\n"
                                "  boundary:\n    x-: {type: dirichlet, value: 1}\n    x+: {type: dirichlet, value: 0}\n",
                            "test_gpu_bvp");
    Grid g;
    g.dim = 1;
    g.n[0] = (index_t(1) << 20) + 1;
    auto m = std::make_unique<BvpModule<double>>();
    SetupContext ctx;
    ctx.backend = backend_from_name(backend);
    m->setup(g, deck.root().child("bvp"), ctx, 0.0);
    m->step(0, 0);
    return m;
  };
  const auto cpu = run("cpu", "device");
  for (const std::string carries : {"device", "host"}) {
    const auto gpu = run("cuda", carries);
    double err = 0;
    for (std::size_t i = 0; i < cpu->solution().size(); ++i)
      err = std::max(err, std::abs(cpu->solution()[i] - gpu->solution()[i]));
    CHECK_MESSAGE(err < 1e-12, carries << " " << err);  // |u| <= 1; both err by ~1e-14
    CHECK(*gpu->relative_error() < 1e-11);
  }
}

int main(int argc, char** argv) {
  if (rec::cuda::device_count() == 0) {
    std::printf("test_gpu_recurrence: SKIPPED: no CUDA device\n");
    return 0;
  }
  doctest::Context context(argc, argv);
  return context.run();
}
