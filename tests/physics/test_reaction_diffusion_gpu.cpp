// Reaction-diffusion module, cuda backend against the CPU (label gpu): the example decks on small
// grids, both schemes, constant and variable cross diffusion, Dirichlet and Neumann faces, float
// and double. The backends share every formula, so they agree to rounding amplified by the steps.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cuda_runtime_api.h>
#include <spdlog/spdlog.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "core/deck.hpp"
#include "physics/reaction_diffusion/reaction_diffusion.hpp"

using namespace tridsim;

namespace {

template <class T>
std::unique_ptr<ReactionDiffusionModule<T>> make(const Deck& deck, const Grid& g, Backend backend) {
  auto m = std::make_unique<ReactionDiffusionModule<T>>();
  SetupContext ctx;
  ctx.precision = precision_of<T>();
  ctx.backend = backend;
  if (auto c = deck.root().maybe_child("constants"))
    for (const auto& k : c->keys()) ctx.constants[k] = c->get<double>(k);
  m->setup(g, deck.root().child("reaction_diffusion"), ctx, 0.0);
  return m;
}

// Max |u_cpu - u_gpu| / max |u_cpu| after `steps` steps of the deck's module on grid g.
template <class T>
double difference(const Deck& deck, const Grid& g, double dt, int steps) {
  auto cpu = make<T>(deck, g, Backend::cpu), gpu = make<T>(deck, g, Backend::cuda);
  for (int s = 0; s < steps; ++s) {
    cpu->step(s * dt, dt);
    gpu->step(s * dt, dt);
  }
  gpu->wait();
  const auto& a = cpu->solution();
  const auto& b = gpu->solution();
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff = std::max(diff, std::abs(double(a[i]) - double(b[i])));
    scale = std::max(scale, std::abs(double(a[i])));
  }
  const auto dc = cpu->diagnostics(0), dg = gpu->diagnostics(0);
  for (std::size_t i = 0; i < dc.size(); ++i) CHECK(std::abs(dc[i].value - dg[i].value) <= 1e-3 * (1 + std::abs(dc[i].value)));
  return diff / scale;
}

Grid grid(int dim, index_t n, double length) {
  Grid g;
  g.dim = dim;
  for (int a = 0; a < dim; ++a) {
    g.n[std::size_t(a)] = n;
    g.hi[std::size_t(a)] = length;
  }
  return g;
}

Deck deck_file(const std::string& name) { return Deck::load(std::string(TRIDSIM_SOURCE_DIR) + "/inputs/" + name); }

}  // namespace

TEST_CASE("cuda matches cpu on the example decks") {
  const double tol[2] = {2e-3, 1e-9};  // float, double (relative, after the steps)
  {
    const Deck d = deck_file("turing2d.yaml");
    CHECK(difference<double>(d, grid(2, 61, 100), 0.25, 40) < tol[1]);
    CHECK(difference<float>(d, grid(2, 61, 100), 0.25, 40) < tol[0]);
  }
  {
    const Deck d = deck_file("cross_diffusion2d.yaml");
    CHECK(difference<double>(d, grid(2, 47, 50), 0.05, 40) < tol[1]);
  }
  {
    const Deck d = deck_file("brusselator3d.yaml");
    CHECK(difference<double>(d, grid(3, 21, 1), 0.002, 10) < tol[1]);
    CHECK(difference<float>(d, grid(3, 21, 1), 0.002, 10) < tol[0]);
  }
}

TEST_CASE("cuda matches cpu: variable cross diffusion, Dirichlet and Neumann faces, both schemes") {
  for (const std::string scheme : {"douglas", "linearly-implicit"}) {
    const Deck d = Deck::parse(R"deck(reaction_diffusion:
  species: [a, b, c]
  scheme: )deck" + scheme + R"deck(
  diffusion: [["1 + 0.5*sin(3*x)", 0.3, 0], [0.1, 2, "0.2*cos(y)"], [0, 0.4, 0.7]]
  reactions: {a: "-a*b + 0.1*c", b: "a - b^2", c: "sin(x)*a - c"}
  initial: {a: "exp(-10*((x-0.3)^2 + (y-0.6)^2))", b: "x*y", c: "1 + y"}
  perturbation: {amplitude: 0.05}
  boundary:
    all: {type: no-flux}
    x-: {type: dirichlet, value: {a: 0, b: "y", c: 1}}
    y+: {type: neumann, value: {a: 0.5, b: 0, c: "-x"}}
)deck", "test deck");
    CHECK(difference<double>(d, grid(2, 33, 1), 0.01, 20) < 1e-9);
    CHECK(difference<double>(d, grid(3, 13, 1), 0.01, 10) < 1e-9);
  }
}

int main(int argc, char** argv) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("SKIPPED: no CUDA device\n");
    return 0;
  }
  spdlog::set_level(spdlog::level::warn);
  doctest::Context ctx(argc, argv);
  return ctx.run();
}
