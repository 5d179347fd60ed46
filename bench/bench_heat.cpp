// Heat module: one step of the example decks whose source and boundary data move with t, on the
// CPU, so that every step evaluates them at the nodes (source) and on the faces:
//   heat_step/heat2d/513x513/cpu/<precision>      peaceman-rachford, moving Dirichlet faces
//   heat_step/heat_cn2d/257x257/cpu/<precision>   unsplit crank-nicolson, moving Neumann faces
//   heat_step/heat2d-douglas/129x129x129/cpu/...  the same data in 3D (douglas)
// each with the data compiled at run time (core/native_code.hpp) and, as .../interpreted, by
// muparser's bytecode over blocks (TRIDSIM_CXX=none); heat_step/.../no-data: the source and
// boundary data set to constants, so that the differences are the time spent evaluating them.
// Counter: nodes per second.
#include <benchmark/benchmark.h>
#include <spdlog/spdlog.h>

#include <string>
#include <vector>

#include "bench/deck_case.hpp"
#include "physics/heat/heat.hpp"

namespace {

using namespace tridsim;

template <class T>
void heat_step(benchmark::State& state, const std::string& deck_name, const std::vector<std::string>& sets,
               bool interpreted) {
  spdlog::set_level(spdlog::level::warn);
  bench::DeckCase c = bench::load_deck_case(deck_name, sets);
  HeatModule<T> m;
  SetupContext ctx;
  ctx.precision = precision_of<T>();
  ctx.constants = c.constants;
  bench::set_up(interpreted, [&] { m.setup(c.grid, c.deck.root().child("heat"), ctx, 0.0); });
  double t = 0;
  m.step(t, c.dt);  // (the unsplit step factors its matrix here)
  for (auto _ : state) {
    m.step(t, c.dt);
    t += c.dt;
  }
  state.counters["nodes_per_s"] =
      benchmark::Counter(double(c.grid.size()) * double(state.iterations()), benchmark::Counter::kIsRate);
}

const bool registered = [] {
  struct Case {
    std::string name, deck;
    std::vector<std::string> sets, still;  // the grid; the data made constant (no-data)
  };
  const std::vector<Case> cases = {
      {"heat2d/513x513", "heat2d", {"grid.n=[513,513]", "time.dt=0.001953125"},
       {"heat.source=1", "heat.boundary.all.value=1"}},
      {"heat_cn2d/257x257", "heat_cn2d", {"grid.n=[257,257]", "time.dt=0.00390625"},
       {"heat.source=1", "heat.boundary.x-.value=1", "heat.boundary.x+.value=1", "heat.boundary.y-.value=1",
        "heat.boundary.y+.value=1"}},
      {"heat2d-douglas/129x129x129", "heat2d",
       {"grid.n=[129,129,129]", "grid.lo=[0,0,0]", "grid.hi=[1,1,1]", "heat.scheme=douglas", "time.dt=0.0078125"},
       {"heat.source=1", "heat.boundary.all.value=1"}}};
  for (const Case& c : cases)
    for (const char* variant : {"", "/interpreted", "/no-data"}) {
      std::vector<std::string> sets = c.sets;
      if (std::string(variant) == "/no-data") sets.insert(sets.end(), c.still.begin(), c.still.end());
      const bool interpreted = std::string(variant) == "/interpreted";
      for (const char* precision : {"double", "float"}) {
        const std::string name = "heat_step/" + c.name + "/cpu/" + precision + variant;
        auto* b = std::string(precision) == "double"
                      ? benchmark::RegisterBenchmark(name.c_str(), heat_step<double>, c.deck, sets, interpreted)
                      : benchmark::RegisterBenchmark(name.c_str(), heat_step<float>, c.deck, sets, interpreted);
        b->Unit(benchmark::kMillisecond)->UseRealTime();
      }
    }
  return true;
}();

}  // namespace

BENCHMARK_MAIN();
