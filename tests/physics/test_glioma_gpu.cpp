// The glioma module on the cuda backend agrees with the CPU backend to rounding: relative
// difference of the density below 1e-12 in double and 1e-5 in float, and the same diagnostics,
// for both schemes on 1D, 2D and 3D phantoms of awkward sizes (long lines included). Skips (and
// says so) when no CUDA device is present.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "core/device.hpp"
#include "tests/physics/glioma_test_support.hpp"

using namespace tridsim;
using namespace glioma_test;

namespace {

struct Case {
  std::string name;
  Grid grid;
  std::string section;
};

const std::string phantom2 =
    "  tissue:\n"
    "    white: \"(x/0.9)^2 + (y/0.75)^2 < 0.8^2 && ((x-0.15)/0.2)^2 + (y/0.35)^2 > 1 ? 1 : 0\"\n"
    "    grey: \"(x/0.9)^2 + (y/0.75)^2 < 1 && (x/0.9)^2 + (y/0.75)^2 >= 0.8^2 ? 1 : 0\"\n";
const std::string phantom3 =
    "  tissue:\n"
    "    white: \"(x/0.9)^2 + (y/0.75)^2 + (z/0.65)^2 < 0.8^2 && ((x-0.15)/0.2)^2 + (y/0.35)^2 + (z/0.15)^2 > 1 ? 1 : 0\"\n"
    "    grey: \"(x/0.9)^2 + (y/0.75)^2 + (z/0.65)^2 < 1 && (x/0.9)^2 + (y/0.75)^2 + (z/0.65)^2 >= 0.8^2 ? 1 : 0\"\n";
const std::string params = "  D_white: 0.5\n  D_grey: 0.05\n  rho: 3\n";

std::vector<Case> cases(const std::string& scheme) {
  const std::string s = "  scheme: " + scheme + "\n" + params;
  return {
      {"1D", make_grid(1, {301, 1, 1}, {-1, 0, 0}, {1, 1, 1}),
       s + "  tissue: {white: \"x < 0.3 ? 1 : 0\", grey: \"x < 0.3 ? 0 : (x < 0.8 ? 1 : 0)\"}\n"
           "  seed: {center: [0.1], width: 0.05, peak: 0.6}\n"},
      {"2D phantom", make_grid(2, {37, 29, 1}, {-1, -1, 0}, {1, 1, 1}),
       s + phantom2 + "  seed: {center: [0.3, 0.3], width: 0.1, peak: 0.6}\n"},
      {"3D phantom", make_grid(3, {31, 26, 23}, {-1, -1, -1}, {1, 1, 1}),
       s + phantom3 + "  seed: {center: [0.3, 0.3, 0.1], width: 0.1, peak: 0.6}\n"},
      {"3D long x lines", make_grid(3, {1000, 5, 4}, {-1, -1, -1}, {1, 1, 1}),
       s + phantom3 + "  seed: {center: [0.3, 0, 0], width: 0.1, peak: 0.6}\n"},
      {"3D long z lines", make_grid(3, {7, 6, 2000}, {-1, -1, -1}, {1, 1, 1}),
       s + phantom3 + "  seed: {center: [0, 0, 0.3], width: 0.1, peak: 0.6}\n"},
  };
}

template <class T>
void compare(const Case& c, double tolerance) {
  auto cpu = make<T>(c.section, c.grid, "cpu");
  auto gpu = make<T>(c.section, c.grid, "cuda");
  // Strang: ten steps of 4x the explicit limit; explicit: ten steps at 0.9x the limit.
  const bool explicit_scheme = cpu->scheme() == GliomaModule<T>::Scheme::explicit_euler;
  const double dt = (explicit_scheme ? 0.9 : 4.0) * cpu->explicit_limit();
  advance(*cpu, 0, 10 * dt, dt);
  advance(*gpu, 0, 10 * dt, dt);
  const auto& a = cpu->density();
  const auto& b = gpu->density();
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff = std::max(diff, std::abs(double(a[i]) - double(b[i])));
    scale = std::max(scale, std::abs(double(a[i])));
  }
  // Diagnostics: min, max and burden to rounding; a visible volume may differ by the nodes whose
  // density sits within rounding of a threshold (a few node weights at most).
  const auto da = cpu->diagnostics(10 * dt), db = gpu->diagnostics(10 * dt);
  double dsum = 0, dvol = 0;
  for (const char* name : {"c_min", "c_max", "burden"}) {
    const double x = diagnostic(da, name), y = diagnostic(db, name);
    dsum = std::max(dsum, std::abs(x - y) / std::max(1e-300, std::abs(x)));
  }
  const StatsSpec spec = StatsSpec::integral(c.grid, 0, 0);
  const double node = spec.axis_weight(0, 1) * spec.axis_weight(1, 1) * spec.axis_weight(2, 1);  // interior
  for (const char* name : {"volume_t1", "volume_flair"})
    dvol = std::max(dvol, std::abs(diagnostic(da, name) - diagnostic(db, name)) / node);
  std::printf("%-18s %-6s relative difference: density %.2e, min/max/burden %.2e; volumes differ by %.0f nodes\n",
              c.name.c_str(), sizeof(T) == 8 ? "double" : "float", diff / scale, dsum, dvol);
  CHECK(diff / scale < tolerance);
  CHECK(dsum < 10 * tolerance);
  CHECK(dvol <= 3);
}

}  // namespace

TEST_CASE("cuda backend agrees with the CPU backend") {
  if (cuda_device_count() == 0) {
    std::printf("SKIPPED: no CUDA device present\n");
    return;
  }
  for (const std::string scheme : {"strang-adi", "explicit"}) {
    std::printf("scheme %s\n", scheme.c_str());
    for (const auto& c : cases(scheme)) {
      compare<double>(c, 1e-12);
      compare<float>(c, 1e-5);
    }
  }
}
