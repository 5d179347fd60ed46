// One Douglas ADI step of the 3D heat benchmark of Laszlo, Giles & Appleyard (2014): unit
// cube, n^3 nodes, dt/h^2 = 1, u = 1 on the boundary, 0 inside (inputs/adi-benchmark.yaml).
// Bytes counted: the minimal traffic of the fused scheme, 7 passes over the field (read u,
// write du; read and write du; read du, read and write u).
#include <benchmark/benchmark.h>

#include <string>

#include "core/deck.hpp"
#include "physics/heat/heat.hpp"

namespace {

template <class T>
void BM_DouglasStep(benchmark::State& state) {
  const long n = state.range(0);
  const std::string text = "heat:\n  scheme: douglas\n  diffusivity: 1\n  initial: \"0\"\n"
                           "  boundary: {all: {type: dirichlet, value: \"1\"}}\n";
  tridsim::Deck deck = tridsim::Deck::parse(text, "bench");
  tridsim::Grid g;
  g.dim = 3;
  g.n = {n, n, n};
  tridsim::HeatModule<T> heat;
  heat.setup(g, deck.root().child("heat"), tridsim::SetupContext{tridsim::precision_of<T>()}, 0.0);
  const double h = 1.0 / double(n - 1), dt = h * h;
  double t = 0;
  for (auto _ : state) {
    heat.step(t, dt);
    t += dt;
  }
  const double points = double(g.size());
  state.counters["points/s"] = benchmark::Counter(points, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["bytes/s"] = benchmark::Counter(7.0 * sizeof(T) * points, benchmark::Counter::kIsIterationInvariantRate);
}

BENCHMARK(BM_DouglasStep<double>)->Name("adi_douglas_step/double")->Arg(256)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_DouglasStep<float>)->Name("adi_douglas_step/float")->Arg(256)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
