#pragma once
// The sparse direct benchmarks' problem (bench_sparse_direct, bench_gpu_sparse_direct): the
// issue's variable-coefficient operator -div(kappa grad u) on the unit square / cube, kappa = 1 +
// 0.9 sin(3x) cos(2y) (times cos(z) in 3D), harmonic face means, homogeneous Dirichlet on every
// face; N interior nodes per axis, (N + 2)^d nodes, the boundary nodes' identity rows included.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <exception>
#include <limits>
#include <memory>
#include <vector>

#include "core/types.hpp"
#include "solvers/sparse_direct/diffusion_matrix.hpp"

namespace tridsim::bench {

struct SparseCase {
  int dim = 2;
  index_t interior = 0;  // N per axis
  std::vector<double> kappa;
  sparse::DiffusionProblem problem;
  std::unique_ptr<sparse::StencilMatrix<double>> matrix;
  std::vector<double> b;  // a deterministic pseudo-random source, weighted like the matrix's rows
  index_t unknowns() const { return problem.pattern().unknowns(); }
};

inline void build_sparse_case(SparseCase& c, int dim, index_t interior) {
  c.dim = dim;
  c.interior = interior;
  sparse::DiffusionProblem& p = c.problem;
  p.dim = dim;
  const double h = 1.0 / double(interior + 1);
  for (int a = 0; a < 3; ++a) p.n[a] = a < dim ? interior + 2 : 1;
  for (int a = 0; a < dim; ++a) {
    p.h[a] = h;
    p.dirichlet[a] = {true, true};
  }
  c.kappa.resize(std::size_t(p.n[0] * p.n[1] * p.n[2]));
  std::vector<double> f(c.kappa.size()), zero(c.kappa.size(), 0.0);
#pragma omp parallel for collapse(2) schedule(static)
  for (index_t k = 0; k < p.n[2]; ++k)
    for (index_t j = 0; j < p.n[1]; ++j)
      for (index_t i = 0; i < p.n[0]; ++i) {
        const index_t node = i + p.n[0] * (j + p.n[1] * k);  // x-fastest
        double v = 0.9 * std::sin(3 * double(i) * h) * std::cos(2 * double(j) * h);
        if (dim == 3) v *= std::cos(double(k) * h);
        c.kappa[std::size_t(node)] = 1 + v;
        const double r = double((std::uint64_t(node) * 2654435761u) % 1000u) / 1000.0;
        f[std::size_t(node)] = p.is_dirichlet(i, j, k) ? 0.0 : p.cell_weight(i, j, k) * (0.5 + r);
      }
  p.kappa = c.kappa.data();
  c.matrix = std::make_unique<sparse::StencilMatrix<double>>(sparse::diffusion_matrix<double>(p));
  sparse::dirichlet_lift<double>(p, zero.data(), f.data());
  c.b = std::move(f);
}

// ||b - A x||_2 / ||b||_2 in double.
inline double relative_residual(const SparseCase& c, const double* x) {
  const index_t n = c.unknowns();
  std::vector<double> r(static_cast<std::size_t>(n));
  c.matrix->residual(x, c.b.data(), r.data());
  double rr = 0, bb = 0;
  for (index_t i = 0; i < n; ++i) {
    rr += r[i] * r[i];
    bb += c.b[i] * c.b[i];
  }
  return std::sqrt(rr / bb);
}

// What one iteration of a solver case measured (solve_device and nnz_l where a solver has them).
struct Phases {
  double analysis = 0, factor = 0, refactor = 0, solve = 0, solve_device = 0;
  double flops = 0, factor_bytes = 0, peak_bytes = 0, nnz_l = 0, residual = 0;
};
struct BestAndLast {
  Phases best, last;  // best: each time's minimum over the iterations
};

// Runs `once` per iteration (it returns the Phases of a full sequence), sets the factorization as
// the iteration's time and the counters both benchmarks report.
template <class Once>
BestAndLast run_phases(benchmark::State& state, index_t unknowns, const Once& once) {
  BestAndLast r;
  Phases& best = r.best;
  best.analysis = best.factor = best.refactor = best.solve = best.solve_device =
      std::numeric_limits<double>::infinity();
  for (auto _ : state) {
    r.last = once();
    state.SetIterationTime(r.last.factor);
    best.analysis = std::min(best.analysis, r.last.analysis);
    best.factor = std::min(best.factor, r.last.factor);
    best.refactor = std::min(best.refactor, r.last.refactor);
    best.solve = std::min(best.solve, r.last.solve);
    best.solve_device = std::min(best.solve_device, r.last.solve_device);
  }
  const double n = double(unknowns);
  state.counters["analysis_s"] = best.analysis;
  state.counters["factor_s"] = best.factor;
  state.counters["refactor_s"] = best.refactor;
  state.counters["solve_s"] = best.solve;
  state.counters["flops"] = r.last.flops;
  state.counters["GFLOP/s"] = r.last.flops / best.factor * 1e-9;
  state.counters["factor_MB"] = r.last.factor_bytes * 1e-6;
  state.counters["peak_MB"] = r.last.peak_bytes * 1e-6;
  state.counters["residual"] = r.last.residual;
  state.counters["points/s"] = n / best.factor;
  state.counters["unknowns"] = n;
  return r;
}

// Runs a case so that an exception (a memory check, a solver's or a baseline's error) skips it
// with the message instead of ending the run.
template <void (*Fn)(benchmark::State&, int, index_t)>
void guarded(benchmark::State& state, int dim, index_t interior) {
  try {
    Fn(state, dim, interior);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

}  // namespace tridsim::bench
