// Glioma module on the phantom of inputs/glioma3d.yaml (its deck, read as it is, with the grid
// set to n^3):
//  glioma_step/<backend>/<precision>/n     one Strang step (exact half reactions, Douglas ADI);
//  glioma_year/<backend>/<precision>/n     the solve of one simulated year, dt = 0.5 day (730 steps);
//  glioma_explicit_step/<backend>/double/n one forward Euler step (the reference scheme);
//  glioma_accuracy/<backend>/n             implicit vs explicit at equal accuracy after one year:
//    the explicit scheme runs at its stability limit; its max-norm error against a reference
//    (strang-adi at a quarter of that step) is the target; strang-adi runs with dt doubling from
//    the explicit limit while its error stays within the target; counters give both errors,
//    the largest such dt and speedup = explicit wall time / implicit wall time.
// Bytes counted (minimal traffic of a step): CPU strang 12 passes (half reaction 2; x-sweep read
// c, D, write w; y read w, D, write w; z read w, D, read and write c), GPU strang 10 (both half
// reactions fused), explicit 3 (read c, D, write c').
#include <benchmark/benchmark.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cmath>
#include <memory>
#include <string>

#include "core/deck.hpp"
#include "core/device.hpp"
#include "core/fp_env.hpp"
#include "physics/glioma/glioma.hpp"

namespace {

using namespace tridsim;

const std::string deck_file = std::string(TRIDSIM_SOURCE_DIR) + "/inputs/glioma3d.yaml";

template <class T>
std::unique_ptr<GliomaModule<T>> phantom(long n, const std::string& backend, const std::string& scheme, Grid& g) {
  Deck deck = Deck::load(deck_file);
  deck.set("glioma.scheme=" + scheme);
  const DeckNode root = deck.root();
  Constants constants;
  for (const auto& key : root.child("constants").keys()) constants[key] = root.child("constants").get<double>(key);
  const auto lo = root.child("grid").get<std::vector<double>>("lo"), hi = root.child("grid").get<std::vector<double>>("hi");
  g.dim = 3;
  for (int a = 0; a < 3; ++a) {
    g.n[a] = n;
    g.lo[a] = lo[std::size_t(a)];
    g.hi[a] = hi[std::size_t(a)];
  }
  auto m = std::make_unique<GliomaModule<T>>();
  SetupContext ctx;
  ctx.precision = precision_of<T>();
  ctx.backend = backend_from_name(backend);
  ctx.constants = constants;
  m->setup(g, root.child("glioma"), ctx, 0.0);
  return m;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void rates(benchmark::State& state, const Grid& g, double passes, std::size_t bytes_per_value, double steps = 1) {
  const double points = double(g.size()) * steps;
  state.counters["points/s"] = benchmark::Counter(points, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["bytes/s"] =
      benchmark::Counter(passes * double(bytes_per_value) * points, benchmark::Counter::kIsIterationInvariantRate);
}

template <class T>
void step(benchmark::State& state, const char* backend, const char* scheme) {
  Grid g;
  auto m = phantom<T>(state.range(0), backend, scheme, g);
  const bool expl = std::string(scheme) == "explicit";
  const double dt = expl ? m->explicit_limit() : 0.5;
  double t = 0;
  for (auto _ : state) {
    m->step(t, dt);
    m->wait();
    t += dt;
  }
  const bool gpu = std::string(backend) == "cuda";
  rates(state, g, expl ? 3 : gpu ? 10 : 12, sizeof(T));
}

template <class T>
void year(benchmark::State& state, const char* backend) {
  Grid g;
  for (auto _ : state) {
    state.PauseTiming();
    auto m = phantom<T>(state.range(0), backend, "strang-adi", g);
    state.ResumeTiming();
    for (int s = 0; s < 730; ++s) m->step(0.5 * s, 0.5);
    m->wait();
    state.PauseTiming();
    state.counters["volume_flair_mm3"] = m->diagnostics(365)[4].value;
    m.reset();
    state.ResumeTiming();
  }
  rates(state, g, std::string(backend) == "cuda" ? 10 : 12, sizeof(T), 730);
}

// Runs `scheme` over one year with `steps` steps; returns the wall time of the steps, leaves the density in `c`.
double run_year(long n, const char* backend, const char* scheme, long steps, AlignedVector<double>& c) {
  Grid g;
  auto m = phantom<double>(n, backend, scheme, g);
  const double dt = 365.0 / double(steps);
  const auto t0 = std::chrono::steady_clock::now();
  for (long s = 0; s < steps; ++s) m->step(dt * double(s), dt);
  m->wait();
  const double wall = seconds_since(t0);
  c = m->density();
  return wall;
}

double max_difference(const AlignedVector<double>& a, const AlignedVector<double>& b) {
  double d = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(a[i] - b[i]));
  return d;
}

void accuracy(benchmark::State& state, const char* backend) {
  const long n = state.range(0);
  for (auto _ : state) {
    Grid g;
    const double limit = phantom<double>(n, backend, "explicit", g)->explicit_limit();
    const long explicit_steps = long(std::ceil(365.0 / limit));  // at (just under) the limit
    AlignedVector<double> ref, ce, ci;
    run_year(n, backend, "strang-adi", 4 * explicit_steps, ref);
    const double wall_e = run_year(n, backend, "explicit", explicit_steps, ce);
    const double err_e = max_difference(ce, ref);
    // Strang with dt = limit, 2 limit, 4 limit, ... while its error stays within err_e.
    double wall_i = 0, err_i = 0, dt_i = 0;
    for (long steps = explicit_steps; steps >= 1; steps /= 2) {
      const double w = run_year(n, backend, "strang-adi", steps, ci), e = max_difference(ci, ref);
      if (e > err_e) break;
      wall_i = w, err_i = e, dt_i = 365.0 / double(steps);
      if (steps == 1) break;
    }
    state.counters["dt_explicit"] = limit;
    state.counters["error_explicit"] = err_e;
    state.counters["wall_explicit_s"] = wall_e;
    state.counters["dt_implicit"] = dt_i;
    state.counters["error_implicit"] = err_i;
    state.counters["wall_implicit_s"] = wall_i;
    state.counters["speedup"] = wall_i > 0 ? wall_e / wall_i : 0.0;
  }
}

}  // namespace

int main(int argc, char** argv) {
  flush_subnormals_to_zero();  // as the tridsim driver does
  spdlog::set_level(spdlog::level::warn);
  const bool gpu = cuda_device_count() > 0;
  for (const char* backend : {"cpu", "cuda"}) {
    const bool cuda = std::string(backend) == "cuda";
    if (cuda && !gpu) continue;
    const long n = cuda ? 256 : 128;
    const std::string b = backend;
    for (auto* bm : {benchmark::RegisterBenchmark(("glioma_step/" + b + "/double").c_str(), step<double>, backend,
                                                  "strang-adi"),
                     benchmark::RegisterBenchmark(("glioma_step/" + b + "/float").c_str(), step<float>, backend,
                                                  "strang-adi")}) {
      bm->Arg(n)->Unit(benchmark::kMillisecond)->UseRealTime();
      if (cuda) bm->Arg(512);  // lines of 512: the size of the GPU glioma targets
    }
    benchmark::RegisterBenchmark(("glioma_explicit_step/" + b + "/double").c_str(), step<double>, backend, "explicit")
        ->Arg(n)->Unit(benchmark::kMillisecond)->UseRealTime();
    benchmark::RegisterBenchmark(("glioma_year/" + b + "/double").c_str(), year<double>, backend)
        ->Arg(n)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();
    benchmark::RegisterBenchmark(("glioma_year/" + b + "/float").c_str(), year<float>, backend)
        ->Arg(n)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();
    benchmark::RegisterBenchmark(("glioma_accuracy/" + b).c_str(), accuracy, backend)
        ->Arg(n)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
}
