// The grid split over ranks (run under mpirun; np = 1 runs the same code on one rank):
//   split_lines/z/NXxNYxNZ   every z line of the whole grid solved split over the ranks along z
//                            (solvers/tridiagonal/distributed.hpp), constant-coefficient rows;
//                            counters: the time split into reduce, exchange (waiting for the other
//                            ranks' reduced rows), reduced_solve and recover, and bytes sent per rank;
//                            the reduced systems gathered by every rank (SplitTransport::gather)
//   split_lines/z/alltoall/NXxNYxNZ   the same with SplitTransport::alltoall (each rank solves 1/P
//                            of the reduced systems and sends the unknowns back)
//   split_lines/z/variable/NXxNYxNZ   the gathered solve with rows that differ by line (DiffusionCoeffs
//                            from a kappa field: the variable-diffusivity heat module's rows)
//   lines/z/NXxNYxNZ         the single-process batched solve of the same lines (np = 1 only)
//   douglas_step/NXxNYxNZ    one Douglas step of the ADI benchmark deck (bench_adi.cpp) with z split,
//                            comm_s the step's time in halo exchange and line communication
// Strong scaling: 256^3 for every np; weak scaling: 256 x 256 x (128 np).
// Every rank runs the same fixed number of iterations; an iteration's time is the slowest
// rank's (a barrier before it). Bytes counted: the split solve reads the right-hand side twice and
// writes the solution once (3 passes; with a kappa field, kappa read twice too: 5; the single-
// process solve 2), the Douglas step 7 passes
// (bench_adi.cpp). Only rank 0 reports (and writes --benchmark_out).
#include <benchmark/benchmark.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bench/copy_baseline.hpp"
#include "bench/mpi_bench_support.hpp"
#include "core/deck.hpp"
#include "core/domain.hpp"
#include "core/fp_env.hpp"
#include "physics/heat/heat.hpp"
#include "solvers/tridiagonal/batched.hpp"
#include "solvers/tridiagonal/distributed.hpp"

namespace {

using namespace tridsim;

Grid box(index_t nx, index_t ny, index_t nz) {
  Grid g;
  g.dim = 3;
  g.n = {nx, ny, nz};
  return g;
}

// variable: rows from a kappa field (they differ by line); else constant-coefficient rows shared by every line.
void split_lines(benchmark::State& state, index_t nx, index_t ny, index_t nz, tridiag::SplitTransport transport,
                 bool variable) {
  const Grid g = box(nx, ny, nz);
  const Domain d(g, {1, 1, world_size()});
  const Grid l = d.local();
  const AxisSplit& s = d.layout().axes[2];
  std::vector<double> u(l.size(), 1.0), kappa(variable ? l.size() : 0);
  for (std::size_t o = 0; o < kappa.size(); ++o) kappa[o] = 1.0 + 0.5 * double(o % 7);
  const tridiag::LineSet lines = tridiag::LineSet::dense(l, 2);
  const tridiag::Segment seg = tridiag::segment_of(s);
  tridiag::SplitTimes times;
  LineComm& comm = d.line_comm(2);
  const std::size_t sent0 = comm.bytes_sent();
  auto load = [&](index_t o, index_t k, double* out) { std::memcpy(out, u.data() + o, sizeof(double) * k); };
  auto store = [&](index_t o, index_t k, const double* in) { std::memcpy(u.data() + o, in, sizeof(double) * k); };
  auto solve = [&](const auto& rows) {
    tridiag::solve_split_lines<double>(lines, seg, rows, load, store, comm, &times, transport);
  };
  const tridiag::DiffusionCoeffs<double> varying{kappa.data(), 0.5, l.strides()[2], nz, BoundaryKind::dirichlet,
                                                 BoundaryKind::dirichlet};
  const tridiag::ConstantDiffusionRows<double> shared{0.5, nz, BoundaryKind::dirichlet, BoundaryKind::dirichlet};
  bench::timed_iterations(state, d, [&] { variable ? solve(varying) : solve(shared); });
  const double it = double(state.iterations()), points = double(g.size()), passes = variable ? 5.0 : 3.0;
  state.counters["points/s"] = benchmark::Counter(points, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["bytes/s"] =
      benchmark::Counter(passes * sizeof(double) * points, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["ranks"] = d.size();
  state.counters["reduce_s"] = d.max(times.reduce) / it;
  state.counters["exchange_s"] = d.max(times.exchange) / it;
  state.counters["reduced_solve_s"] = d.max(times.reduced_solve) / it;
  state.counters["recover_s"] = d.max(times.recover) / it;
  state.counters["sent_bytes_per_rank"] = double(comm.bytes_sent() - sent0) / it;
}

void plain_lines(benchmark::State& state, index_t nx, index_t ny, index_t nz) {
  const Grid g = box(nx, ny, nz);
  std::vector<double> u(g.size(), 1.0);
  const auto m = tridiag::uniform_diffusion_matrix<double>(nz, 0.5, BoundaryKind::dirichlet, BoundaryKind::dirichlet);
  const Domain d(g);
  bench::timed_iterations(state, d, [&] { tridiag::solve_lines<double>(tridiag::LineSet::dense(g, 2), m, u.data()); });
  const double points = double(g.size());
  state.counters["points/s"] = benchmark::Counter(points, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["bytes/s"] = benchmark::Counter(2.0 * sizeof(double) * points, benchmark::Counter::kIsIterationInvariantRate);
}

void douglas_step(benchmark::State& state, index_t nx, index_t ny, index_t nz) {
  const Grid g = box(nx, ny, nz);
  const Domain d(g, {1, 1, world_size()});
  Deck deck = Deck::parse("heat:\n  scheme: douglas\n  diffusivity: 1\n  initial: \"0\"\n"
                          "  boundary: {all: {type: dirichlet, value: \"1\"}}\n",
                          "bench");
  HeatModule<double> heat;
  SetupContext ctx;
  ctx.domain = &d;
  heat.setup(g, deck.root().child("heat"), ctx, 0.0);
  const double h = 1.0 / double(nx - 1), dt = h * h;
  double t = 0;
  heat.step(t, dt);  // untimed: first touch
  const double comm0 = d.comm_seconds();
  bench::timed_iterations(state, d, [&] {
    heat.step(t, dt);
    t += dt;
  });
  const double points = double(g.size());
  state.counters["points/s"] = benchmark::Counter(points, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["bytes/s"] = benchmark::Counter(7.0 * sizeof(double) * points, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["ranks"] = d.size();
  state.counters["comm_s"] = d.max(d.comm_seconds() - comm0) / double(state.iterations());
}

}  // namespace

int main(int argc, char** argv) {
  init_processes(&argc, &argv);
  flush_subnormals_to_zero();
  const int P = world_size();
  if (P == 1) bench::register_copy_baselines();
  constexpr int kIterations = 10;  // the same on every rank: iterations meet in collectives
  auto add = [&](const std::string& name, auto fn, index_t nx, index_t ny, index_t nz) {
    benchmark::RegisterBenchmark((name + "/" + std::to_string(nx) + "x" + std::to_string(ny) + "x" + std::to_string(nz)).c_str(),
                                 fn, nx, ny, nz)
        ->Iterations(kIterations)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
  };
  std::vector<index_t> depths{256};                 // strong scaling: 256^3 on every np
  if (128 * P != 256) depths.push_back(128 * index_t(P));  // weak scaling: 256 x 256 x 128 per rank
  for (const index_t nz : depths) {
    for (const auto transport : {tridiag::SplitTransport::gather, tridiag::SplitTransport::alltoall})
      add(transport == tridiag::SplitTransport::gather ? "split_lines/z" : "split_lines/z/alltoall",
          [transport](benchmark::State& state, index_t nx, index_t ny, index_t nz) {
            split_lines(state, nx, ny, nz, transport, false);
          },
          256, 256, nz);
    add("split_lines/z/variable",
        [](benchmark::State& state, index_t nx, index_t ny, index_t nz) {
          split_lines(state, nx, ny, nz, tridiag::SplitTransport::gather, true);
        },
        256, 256, nz);
    if (P == 1) add("lines/z", plain_lines, 256, 256, nz);
    add("douglas_step", douglas_step, 256, 256, nz);
  }
  bench::run_benchmarks_on_ranks(argc, argv);
  finish_processes();
}
