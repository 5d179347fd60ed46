// GPU fast Poisson solvers (solvers/cyclic_reduction/cuda/) and the poisson module's cuda
// backend, against the CPU solvers:
//  1. every GPU method (bcr, bcr4, fft) in 1D, 2D and 3D at awkward sizes (1, 2, primes,
//     2^k - 1, 2^k, mixed) with and without a shift: residual ||f - A u|| / ||f|| (long double)
//     <= 1e-12 in double, and agreement with the CPU fft solution (relative max difference
//     <= 1e-12 in double, <= 2e-4 in float, the float rounding times cond ~ (n/pi)^2), and the
//     residual with one refinement step (refine: on) <= 1e-12 too;
//  2. bcr and bcr4 at the largest sizes (8191^2, 511^3) and a rectangle: residual <= 1e-12;
//  3. the module with backend cuda gives the CPU module's solution (relative 1e-12).
// Without a CUDA device the program prints "SKIPPED: no CUDA device" and exits 0.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cuda_runtime_api.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "core/deck.hpp"
#include "physics/poisson/poisson.hpp"
#include "solvers/cyclic_reduction/cuda/poisson_cuda.hpp"
#include "solvers/cyclic_reduction/poisson.hpp"
#include "tests/common/poisson_residual.hpp"

using namespace tridsim;
using namespace tridsim::cr;

namespace {

template <class T>
std::vector<T> gpu_solve(const PoissonBox& b, PoissonMethod m, const std::vector<T>& f,
                         Refine refine = Refine::automatic) {
  PoissonCuda<T> solver(b, m, refine);
  T* d = nullptr;
  REQUIRE(cudaMalloc(reinterpret_cast<void**>(&d), sizeof(T) * f.size()) == cudaSuccess);
  REQUIRE(cudaMemcpy(d, f.data(), sizeof(T) * f.size(), cudaMemcpyHostToDevice) == cudaSuccess);
  solver.solve(d);
  std::vector<T> u(f.size());
  REQUIRE(cudaMemcpy(u.data(), d, sizeof(T) * f.size(), cudaMemcpyDeviceToHost) == cudaSuccess);
  cudaFree(d);
  return u;
}


PoissonBox box(int dim, std::array<index_t, 3> m, double sigma) {
  PoissonBox b;
  b.dim = dim;
  for (int a = 0; a < 3; ++a) {
    b.m[a] = a < dim ? m[a] : 1;
    b.h[a] = a < dim ? (1.0 + 0.3 * a) / double(m[a] + 1) : 1.0;
  }
  b.sigma = sigma;
  return b;
}

template <class T>
void check_box(const PoissonBox& b) {
  std::mt19937_64 rng(b.m[0] * 7 + b.m[1] * 13 + b.m[2]);
  std::uniform_real_distribution<double> dist(-1, 1);
  std::vector<T> f(b.size());
  for (auto& v : f) v = T(dist(rng));
  AlignedVector<T> ref(f.begin(), f.end());
  PoissonSolver<T>(b, PoissonMethod::fft).solve(ref.data());
  double scale = 0;
  for (T v : ref) scale = std::max(scale, std::abs(double(v)));
  for (PoissonMethod m : {PoissonMethod::bcr, PoissonMethod::bcr4, PoissonMethod::fft}) {
    const std::vector<T> u = gpu_solve<T>(b, m, f);
    double diff = 0;
    for (std::size_t i = 0; i < u.size(); ++i) diff = std::max(diff, std::abs(double(u[i]) - double(ref[i])));
    INFO(std::string(to_string(m)) << " dim " << b.dim << " " << b.m[0] << "x" << b.m[1] << "x" << b.m[2] << " sigma " << b.sigma
                      << (sizeof(T) == 8 ? " double" : " float"));
    CHECK(diff / scale <= (sizeof(T) == 8 ? 1e-12 : 2e-4));
    if (sizeof(T) == 8) CHECK(tridsim::testing::relative_residual(b, u.data(), f.data()) <= 1e-12);
    if (sizeof(T) == 8) {  // with a refinement step (the device residual; boxes one node thick included)
      const std::vector<T> ur = gpu_solve<T>(b, m, f, Refine::on);
      CHECK(tridsim::testing::relative_residual(b, ur.data(), f.data()) <= 1e-12);
    }
  }
}

}  // namespace

TEST_CASE("GPU solvers against the CPU, double and float") {
  const std::vector<std::pair<int, std::array<index_t, 3>>> boxes = {
      {1, {1, 1, 1}},    {1, {7, 1, 1}},     {1, {100, 1, 1}},  {2, {1, 1, 1}},    {2, {1, 5, 1}},
      {2, {5, 1, 1}},    {2, {3, 3, 1}},     {2, {17, 9, 1}},   {2, {31, 31, 1}},  {2, {64, 65, 1}},
      {2, {100, 37, 1}}, {2, {127, 127, 1}}, {2, {33, 255, 1}}, {2, {300, 200, 1}}, {3, {1, 1, 1}},
      {3, {2, 3, 4}},    {3, {7, 5, 3}},     {3, {15, 15, 15}}, {3, {13, 17, 11}}, {3, {31, 20, 33}}};
  for (double sigma : {0.0, 2.5})
    for (const auto& [dim, m] : boxes) check_box<double>(box(dim, m, sigma));
  // Long x lines that split unevenly over the BCR kernel's threads (4, 8 and 16 rows each), on
  // strips with equal spacing on both axes.
  for (index_t mx : {129, 1000, 2049, 5000}) {
    PoissonBox b = box(2, {mx, 7, 1}, 0.0);
    b.h = {1.0 / double(mx + 1), 1.0 / double(mx + 1), 1.0};
    check_box<double>(b);
  }
  for (const auto& [dim, m] : boxes)
    if (m[0] * m[1] * m[2] <= 5000) check_box<float>(box(dim, m, 0.0));
}

TEST_CASE("GPU BCR at the issue's largest sizes: residual <= 1e-12 in double") {
  // 2D up to 8191^2, a non-power-of-two rectangle, and 3D 511^3; as solved by default (no
  // refinement on the GPU) and with one refinement step.
  const std::vector<std::pair<int, std::array<index_t, 3>>> boxes = {
      {2, {4095, 4095, 1}}, {2, {8191, 8191, 1}}, {2, {3001, 1000, 1}}, {3, {511, 511, 511}}};
  for (const auto& [dim, m] : boxes) {
    const PoissonBox b = box(dim, m, 0.0);
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> dist(-1, 1);
    std::vector<double> f(b.size());
    for (auto& v : f) v = dist(rng);
    for (PoissonMethod method : {PoissonMethod::bcr, PoissonMethod::bcr4}) {
      INFO(std::string(to_string(method)) << " " << m[0] << "x" << m[1] << "x" << m[2]);
      const double once = tridsim::testing::relative_residual(b, gpu_solve(b, method, f).data(), f.data());
      const double refined = tridsim::testing::relative_residual(b, gpu_solve(b, method, f, Refine::on).data(), f.data());
      MESSAGE(std::string(to_string(method)) << " " << m[0] << "x" << m[1] << "x" << m[2] << ": residual " << once
                                             << ", refined " << refined);
      CHECK(once <= 1e-12);
      CHECK(refined <= 1e-12);
    }
  }
}

TEST_CASE("GPU auto: bcr4 from 1023^2 and 127^3 nodes on (bcr for x lines over 4096), fft below and past 8192") {
  CHECK(PoissonCuda<double>(box(2, {1023, 1023, 1}, 0.0), PoissonMethod::automatic).method() == PoissonMethod::bcr4);
  CHECK(PoissonCuda<double>(box(2, {5000, 300, 1}, 0.0), PoissonMethod::automatic).method() == PoissonMethod::bcr);
  CHECK(PoissonCuda<double>(box(2, {1000, 1000, 1}, 0.0), PoissonMethod::automatic).method() == PoissonMethod::fft);
  CHECK(PoissonCuda<double>(box(2, {9000, 200, 1}, 0.0), PoissonMethod::automatic).method() == PoissonMethod::fft);
  CHECK(PoissonCuda<float>(box(3, {127, 127, 127}, 0.0), PoissonMethod::automatic).method() == PoissonMethod::bcr4);
  CHECK(PoissonCuda<float>(box(3, {63, 63, 63}, 0.0), PoissonMethod::automatic).method() == PoissonMethod::fft);
  CHECK_THROWS_WITH_AS(PoissonCuda<double>(box(2, {9000, 3, 1}, 0.0), PoissonMethod::bcr),
                       doctest::Contains("use method fft"), tridsim::Error);
}

TEST_CASE("poisson module: backend cuda gives the CPU solution") {
  const std::string rest =
      "\n  source: \"5*pi^2*sin(pi*x)*cos(2*pi*y) - 2*y\"\n"
      "  boundary:\n    all: {type: dirichlet, value: \"sin(pi*x)*cos(2*pi*y) + x^2*y\"}\n";
  for (const char* method : {"bcr", "bcr4", "fft", "auto"})
    for (int dim : {2, 3}) {
      Grid g;
      g.dim = dim;
      g.n = dim == 2 ? std::array<index_t, 3>{45, 70, 1} : std::array<index_t, 3>{21, 18, 25};
      const std::string t = "poisson:\n  method: " + std::string(method) + rest;
      auto run = [&](const std::string& backend) {
        Deck deck = Deck::parse(t, "gpu");
        PoissonModule<double> m;
        SetupContext ctx;
        ctx.backend = backend_from_name(backend);
        m.setup(g, deck.root().child("poisson"), ctx, 0.0);
        m.step(0.0, 0.0);
        return m.solution();
      };
      const auto cpu = run("cpu"), gpu = run("cuda");
      double diff = 0, scale = 0;
      for (std::size_t i = 0; i < cpu.size(); ++i) {
        diff = std::max(diff, std::abs(cpu[i] - gpu[i]));
        scale = std::max(scale, std::abs(cpu[i]));
      }
      INFO(method << " " << dim << "D");
      CHECK(diff / scale <= 1e-12);
    }
}

int main(int argc, char** argv) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    std::printf("test_gpu_poisson: SKIPPED: no CUDA device (%s)\n",
                e != cudaSuccess ? cudaGetErrorString(e) : "cudaGetDeviceCount reports 0 devices");
    return 0;
  }
  doctest::Context ctx(argc, argv);
  return ctx.run();
}
