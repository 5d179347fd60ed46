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

#include <cstdlib>
#include <memory>
#include <utility>
#include <string>
#include <vector>

#include "core/deck.hpp"
#include "core/device.hpp"
#include "physics/reaction_diffusion/reaction_diffusion.hpp"

namespace {

using namespace tridsim;

template <class T>
void rd_step(benchmark::State& state, const std::string& deck_name, const std::string& backend,
             const std::vector<std::string>& sets, bool interpreted) {
  spdlog::set_level(spdlog::level::warn);
  Deck deck = Deck::load(std::string(TRIDSIM_SOURCE_DIR) + "/inputs/" + deck_name + ".yaml");
  for (const auto& s : sets) deck.set(s);
  const DeckNode root = deck.root();
  Constants constants;
  if (auto c = root.maybe_child("constants"))
    for (const auto& key : c->keys()) constants[key] = c->get<double>(key);
  const DeckNode gn = root.child("grid");
  const auto n = gn.get<std::vector<long>>("n");
  const auto lo = gn.get<std::vector<double>>("lo"), hi = gn.get<std::vector<double>>("hi");
  Grid g;
  g.dim = int(n.size());
  for (int a = 0; a < g.dim; ++a) {
    g.n[std::size_t(a)] = n[std::size_t(a)];
    g.lo[std::size_t(a)] = lo[std::size_t(a)];
    g.hi[std::size_t(a)] = hi[std::size_t(a)];
  }
  const double dt = root.child("time").get<double>("dt");
  ReactionDiffusionModule<T> m;
  SetupContext ctx;
  ctx.precision = precision_of<T>();
  ctx.backend = backend_from_name(backend);
  ctx.constants = constants;
  const char* cxx = std::getenv("TRIDSIM_CXX");
  const std::string kept = cxx ? cxx : "";
  if (interpreted) ::setenv("TRIDSIM_CXX", "none", 1);
  m.setup(g, root.child("reaction_diffusion"), ctx, 0.0);
  if (interpreted && cxx) ::setenv("TRIDSIM_CXX", kept.c_str(), 1);
  else if (interpreted) ::unsetenv("TRIDSIM_CXX");
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
