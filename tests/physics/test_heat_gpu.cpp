// The heat module on the cuda backend agrees with the CPU backend to rounding: relative
// difference below 1e-12 in double; in float, no further from the double solution than twice the
// CPU's float solution is, plus 1e-6 (the GPU's long lines are solved by substructuring, whose
// rounding differs from Thomas's), for every scheme, boundary type and coefficient kind, on
// awkward grid sizes. Skips (and says so) when no CUDA device is present.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "core/deck.hpp"
#include "core/device.hpp"
#include "physics/heat/heat.hpp"

using namespace tridsim;

namespace {

struct Case {
  std::string name, heat_section;
  std::array<index_t, 3> n;
  int dim;
};

template <class T>
AlignedVector<T> run(const Case& c, const std::string& backend, int steps, double dt) {
  Deck deck = Deck::parse("heat:\n" + c.heat_section, c.name);
  Grid g;
  g.dim = c.dim;
  g.n = c.n;
  HeatModule<T> m;
  SetupContext ctx;
  ctx.precision = precision_of<T>();
  ctx.backend = backend_from_name(backend);
  m.setup(g, deck.root().child("heat"), ctx, 0.0);
  for (int s = 0; s < steps; ++s) m.step(s * dt, dt);
  return m.solution();
}

// max |a - b| / max |b|
template <class A, class B>
double relative_difference(const AlignedVector<A>& a, const AlignedVector<B>& b) {
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    diff = std::max(diff, std::abs(double(a[i]) - double(b[i])));
    scale = std::max(scale, std::abs(double(b[i])));
  }
  return diff / scale;
}

const char* u2 = "t*x*y + exp(-t)*sin(x + 1)*cos(2*y)";
const char* u3 = "t*(x + y*z) + exp(-t)*sin(x + 1)*cos(y)*cos(z)";

std::string section(const std::string& scheme, const std::string& kappa, const std::string& source,
                    const std::string& initial, const std::string& boundary) {
  return "  scheme: " + scheme + "\n  diffusivity: \"" + kappa + "\"\n  source: \"" + source + "\"\n  initial: \"" +
         initial + "\"\n  boundary:\n" + boundary;
}

std::vector<Case> cases() {
  const std::string dir2 = std::string("    all: {type: dirichlet, value: \"") + u2 + "\"}\n";
  const std::string mixed2 = std::string("    all: {type: dirichlet, value: \"") + u2 +
                             "\"}\n    x+: {type: neumann, value: \"t*y + exp(-t)*cos(2*y)*cos(x + 1)\"}\n"
                             "    y-: {type: neumann, value: \"-(t*x)\"}\n";
  const std::string dir3 = std::string("    all: {type: dirichlet, value: \"") + u3 + "\"}\n";
  const std::string mixed3 = std::string("    all: {type: dirichlet, value: \"") + u3 +
                             "\"}\n    y-: {type: neumann, value: \"-(t*z)\"}\n"
                             "    z+: {type: neumann, value: \"t*y - exp(-t)*sin(z)*sin(x + 1)*cos(y)\"}\n";
  const std::string f2 = "x*y + 4*exp(-t)*sin(x + 1)*cos(2*y)";
  return {
      {"1D crank-nicolson", section("crank-nicolson", "1", "x", "sin(3*x)", "    x-: {type: dirichlet, value: \"t\"}\n    x+: {type: neumann, value: \"t*t\"}\n"), {257, 1, 1}, 1},
      {"2D peaceman-rachford dirichlet", section("peaceman-rachford", "1", f2, u2, dir2), {37, 29, 1}, 2},
      {"2D peaceman-rachford variable mixed", section("peaceman-rachford", "1 + x*y/2", f2, u2, mixed2), {33, 41, 1}, 2},
      {"2D douglas variable mixed", section("douglas", "1 + x*y/2", f2, u2, mixed2), {31, 26, 1}, 2},
      {"3D douglas dirichlet", section("douglas", "1", "x + y*z", u3, dir3), {19, 23, 17}, 3},
      {"3D douglas variable mixed", section("douglas", "1 + (x + y + z)/4", "x + y*z", u3, mixed3), {21, 18, 25}, 3},
      {"3D douglas long x lines", section("douglas", "1", "0", u3, dir3), {1000, 5, 3}, 3},
      {"3D douglas long z lines (scratch path)", section("douglas", "1 + (x + y + z)/4", "x + y*z", u3, mixed3), {37, 4, 3000}, 3},
      // The other fused sweeps: Thomas-PCR along x (segments of up to 8 and of 9-16 rows),
      // the naive global-memory Thomas along y and z.
      {"1D crank-nicolson thomas-pcr", section("crank-nicolson", "1", "x", "sin(3*x)", "    x-: {type: dirichlet, value: \"t\"}\n    x+: {type: neumann, value: \"t*t\"}\n") + "  solver: thomas-pcr\n", {257, 1, 1}, 1},
      {"2D peaceman-rachford thomas-pcr/naive", section("peaceman-rachford", "1 + x*y/2", f2, u2, mixed2) + "  solver: {x: thomas-pcr, y: thomas-naive}\n", {33, 41, 1}, 2},
      {"2D douglas thomas-pcr/naive", section("douglas", "1", f2, u2, dir2) + "  solver: {x: thomas-pcr, y: thomas-naive}\n", {100, 26, 1}, 2},
      {"3D douglas variable mixed thomas-pcr/naive", section("douglas", "1 + (x + y + z)/4", "x + y*z", u3, mixed3) + "  solver: {x: thomas-pcr, y: thomas-naive, z: thomas-naive}\n", {21, 18, 25}, 3},
      {"3D douglas dirichlet thomas-pcr, long-ish x", section("douglas", "1", "x + y*z", u3, dir3) + "  solver: {x: thomas-pcr}\n", {300, 7, 5}, 3},
      {"3D douglas auto", section("douglas", "1", "x + y*z", u3, dir3) + "  solver: auto\n", {64, 64, 64}, 3},
      {"3D douglas thomas-pcr on every axis", section("douglas", "1", "x + y*z", u3, mixed3) + "  solver: thomas-pcr\n", {19, 23, 17}, 3},
      {"3D douglas thomas-pcr, 300-point z lines", section("douglas", "1", "x + y*z", u3, dir3) + "  solver: thomas-pcr\n", {40, 33, 300}, 3},
      // The unsplit step: u on the host, the multifrontal factorization and solves on the device.
      {"2D crank-nicolson unsplit variable mixed", section("crank-nicolson", "1 + x*y/2", f2, u2, mixed2), {33, 41, 1}, 2},
      {"3D crank-nicolson unsplit variable mixed", section("crank-nicolson", "1 + (x + y + z)/4", "x + y*z", u3, mixed3), {21, 18, 25}, 3},
      {"2D douglas thomas-pcr on y (update of u)", section("douglas", "1", f2, u2, mixed2) + "  solver: {x: thomas, y: thomas-pcr}\n", {45, 130, 1}, 2},
  };
}

}  // namespace

TEST_CASE("cuda backend agrees with the CPU backend") {
  if (cuda_device_count() == 0) {
    std::printf("SKIPPED: no CUDA device present\n");
    return;
  }
  for (const auto& c : cases()) {
    const auto cpu64 = run<double>(c, "cpu", 8, 0.01);
    const double d64 = relative_difference(run<double>(c, "cuda", 8, 0.01), cpu64);
    const double cpu32 = relative_difference(run<float>(c, "cpu", 8, 0.01), cpu64);
    const double gpu32 = relative_difference(run<float>(c, "cuda", 8, 0.01), cpu64);
    std::printf("%-40s relative difference: double %.2e; float from double: cpu %.2e, cuda %.2e\n", c.name.c_str(),
                d64, cpu32, gpu32);
    CHECK(d64 < 1e-12);
    CHECK(gpu32 <= 2 * cpu32 + 1e-6);
  }
}
