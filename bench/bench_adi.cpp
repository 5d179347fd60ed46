// One Douglas ADI step of the 3D heat benchmark of Laszlo, Giles & Appleyard (2014): unit
// cube, n^3 nodes, dt/h^2 = 1, u = 1 on the boundary, 0 inside (inputs/adi-benchmark.yaml).
// Bytes counted: the minimal traffic of the fused scheme, 7 passes over the field (read u,
// write du; read and write du; read du, read and write u), to read against the copy baselines
// of the same run (bench/copy_baseline.hpp). Runs on the CPU and, when a CUDA device is
// present, on the GPU (each step waits for the device).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <string>

#include "bench/copy_baseline.hpp"
#include "core/deck.hpp"
#include "core/device.hpp"
#include "core/fp_env.hpp"
#include "physics/heat/heat.hpp"

namespace {

// n x n x n nodes, or the shape given.
template <class T>
void douglas_step(benchmark::State& state, const char* backend, const char* solver, std::array<long, 3> shape) {
  if (shape[0] == 0) shape = {state.range(0), state.range(0), state.range(0)};
  const std::string text = "heat:\n  scheme: douglas\n  diffusivity: 1\n  initial: \"0\"\n"
                           "  boundary: {all: {type: dirichlet, value: \"1\"}}\n  solver: " + std::string(solver) + "\n";
  tridsim::Deck deck = tridsim::Deck::parse(text, "bench");
  tridsim::Grid g;
  g.dim = 3;
  g.n = {shape[0], shape[1], shape[2]};
  tridsim::HeatModule<T> heat;
  tridsim::SetupContext ctx;
  ctx.precision = tridsim::precision_of<T>();
  ctx.backend = tridsim::backend_from_name(backend);
  heat.setup(g, deck.root().child("heat"), ctx, 0.0);
  const double h = 1.0 / double(std::max({shape[0], shape[1], shape[2]}) - 1), dt = h * h;
  double t = 0;
  for (auto _ : state) {
    heat.step(t, dt);
    heat.wait();
    t += dt;
  }
  const double points = double(g.size());
  state.counters["points/s"] = benchmark::Counter(points, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["bytes/s"] = benchmark::Counter(7.0 * sizeof(T) * points, benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace

int main(int argc, char** argv) {
  tridsim::flush_subnormals_to_zero();  // as the tridsim driver does
  const bool gpu = tridsim::cuda_device_count() > 0;
  // adi_douglas_step/<backend>[/<solver>]/<precision>: on the GPU thomas on every axis,
  // thomas-pcr on x only, thomas-pcr on every axis, and auto.
  struct Solver {
    const char *label, *yaml;
  };
  const Solver solvers[] = {{"auto", "auto"},
                            {"thomas", "{x: thomas, y: thomas, z: thomas}"},
                            {"thomas-pcr-x", "{x: thomas-pcr, y: thomas, z: thomas}"},
                            {"thomas-pcr", "thomas-pcr"}};
  constexpr std::array<long, 3> kCube{0, 0, 0};  // (n^3, n from the case's argument)
  tridsim::bench::register_copy_baselines();
  for (const char* backend : {"cpu", "cuda"}) {
    const bool cuda = std::string(backend) == "cuda";
    if (cuda && !gpu) continue;
    for (const Solver& sv : solvers) {
      if (!cuda && std::string(sv.label) != "auto") continue;
      const std::string prefix = std::string("adi_douglas_step/") + backend + (cuda ? "/" + std::string(sv.label) : "");
      benchmark::RegisterBenchmark((prefix + "/double").c_str(), douglas_step<double>, backend, sv.yaml, kCube)
          ->Arg(256)->Unit(benchmark::kMillisecond)->UseRealTime();
      benchmark::RegisterBenchmark((prefix + "/float").c_str(), douglas_step<float>, backend, sv.yaml, kCube)
          ->Arg(256)->Unit(benchmark::kMillisecond)->UseRealTime();
    }
  }
  // adi_douglas_long/cuda/<precision>/<nx>x<ny>x<nz>: auto on grids with lines of 512 to 8192
  // points along each axis in turn, to read per point against 256^3 (issue 32's "any line length").
  if (gpu) {
    const std::array<long, 3> shapes[] = {{256, 256, 256},  {512, 512, 512},   {1024, 1024, 1024},
                                          {2048, 2048, 64}, {4096, 256, 256},  {256, 4096, 256},
                                          {256, 256, 4096}, {8192, 128, 128}, {128, 128, 8192}};
    for (const auto& s : shapes) {
      const std::string shape = std::to_string(s[0]) + "x" + std::to_string(s[1]) + "x" + std::to_string(s[2]);
      benchmark::RegisterBenchmark(("adi_douglas_long/cuda/double/" + shape).c_str(), douglas_step<double>, "cuda",
                                   "auto", s)
          ->Unit(benchmark::kMillisecond)->UseRealTime();
      benchmark::RegisterBenchmark(("adi_douglas_long/cuda/float/" + shape).c_str(), douglas_step<float>, "cuda",
                                   "auto", s)
          ->Unit(benchmark::kMillisecond)->UseRealTime();
    }
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
}
