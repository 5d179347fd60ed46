// Reaction-diffusion module: one full step of each example deck, read as it is, at its own grid
// (turing2d and cross_diffusion2d 256^2, brusselator3d 128^3), on the CPU and, when a CUDA device
// is present, on it:
//   rd_step/<deck>/<backend>/<precision>
// and turing2d with its reactions set to 0 (rd_step/turing2d-no-reactions/...): the difference of
// the two is the time the step spends in the reactions; on the CPU also turing2d with its reactions
// interpreted by muparser's bytecode (rd_step/turing2d-interpreted/..., TRIDSIM_CXX=none) instead of
// the kernels compiled at run time.
// Counters: nodes per second, and species values per second (nodes x M).
#include <benchmark/benchmark.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <utility>
#include <string>
#include <vector>

#include "bench/deck_case.hpp"
#include "core/device.hpp"
#include "physics/reaction_diffusion/reaction_diffusion.hpp"

namespace {

using namespace tridsim;

template <class T>
void rd_step(benchmark::State& state, const std::string& deck_name, const std::string& backend,
             const std::vector<std::string>& sets, bool interpreted) {
  spdlog::set_level(spdlog::level::warn);
  bench::DeckCase c = bench::load_deck_case(deck_name, sets);
  const Grid& g = c.grid;
  const double dt = c.dt;
  ReactionDiffusionModule<T> m;
  SetupContext ctx;
  ctx.precision = precision_of<T>();
  ctx.backend = backend_from_name(backend);
  ctx.constants = c.constants;
  bench::set_up(interpreted, [&] { m.setup(g, c.deck.root().child("reaction_diffusion"), ctx, 0.0); });
  double t = 0;
  m.step(t, dt);  // factorizations and kernel compilation happen here
  m.wait();
  for (auto _ : state) {
    m.step(t, dt);
    t += dt;
    m.wait();
  }
  const double nodes = double(g.size()) * double(state.iterations());
  state.counters["nodes_per_s"] = benchmark::Counter(nodes, benchmark::Counter::kIsRate);
  state.counters["values_per_s"] = benchmark::Counter(nodes * m.species(), benchmark::Counter::kIsRate);
}

const bool registered = [] {
  std::vector<std::string> backends = {"cpu"};
  if (cuda_device_count() > 0) backends.emplace_back("cuda");
  const std::vector<std::string> no_reactions = {"reaction_diffusion.reactions.u=0", "reaction_diffusion.reactions.v=0"};
  const std::pair<std::string, std::string> cases[] = {
      {"turing2d", "turing2d"},           {"turing2d-no-reactions", "turing2d"}, {"turing2d-interpreted", "turing2d"},
      {"cross_diffusion2d", "cross_diffusion2d"}, {"brusselator3d", "brusselator3d"}};
  for (const auto& [name, deck] : cases) {
    const std::vector<std::string> sets = name == "turing2d-no-reactions" ? no_reactions : std::vector<std::string>{};
    const bool interpreted = name == "turing2d-interpreted";
    for (const auto& backend : backends) {
      if (interpreted && backend != "cpu") continue;
      benchmark::RegisterBenchmark(("rd_step/" + name + "/" + backend + "/double").c_str(), rd_step<double>, deck,
                                   backend, sets, interpreted)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
      benchmark::RegisterBenchmark(("rd_step/" + name + "/" + backend + "/float").c_str(), rd_step<float>, deck,
                                   backend, sets, interpreted)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
  }
  return true;
}();

}  // namespace

BENCHMARK_MAIN();
