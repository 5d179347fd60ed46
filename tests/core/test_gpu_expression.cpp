// GPU tests (label gpu) of deck expressions compiled with NVRTC (core/device_expression.hpp):
//  1. every shared case (tests/core/expression_cases.hpp) filled on an odd-sized 3-D grid and on
//     each of its six faces matches muparser (Expression::fill, Face::evaluate): in double within
//     1e-14 relative to the largest value (muparser folds some constants and its pow and the
//     device's math functions may differ in the last bit), NaN where muparser gives NaN;
//  2. the float fill is the device's double value cast to float, bit for bit;
//  3. an expression the GPU cannot take gives a clear Error; a second instance reuses the kernel;
//  4. field statistics reduced on the device equal the host's (min, max exactly; sums to rounding).
// Without a CUDA device the program prints "SKIPPED: no CUDA device" and exits 0.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "core/device_expression.hpp"
#include "expression_cases.hpp"
#include "core/boundary.hpp"
#include "core/field_stats.hpp"

using namespace tridsim;

namespace {

Grid test_grid() {
  Grid g;
  g.dim = 3;
  g.n = {9, 7, 5};
  g.lo = {-0.7, 0.2, -1.3};
  g.hi = {1.1, 1.5, 0.4};
  return g;
}

template <class T>
std::vector<T> download(const T* d, std::size_t n) {
  std::vector<T> h(n);
  REQUIRE(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost) == cudaSuccess);
  return h;
}

// Double: normwise relative difference <= 1e-14, same NaNs. Float: the cast of the device double.
void compare(const std::vector<double>& cpu, const std::vector<double>& gpu, const std::vector<float>& gpu_f,
             const std::string& what) {
  double scale = 0, err = 0;
  for (double v : cpu)
    if (std::isfinite(v)) scale = std::max(scale, std::abs(v));
  std::size_t nan_mismatch = 0, float_mismatch = 0;
  for (std::size_t i = 0; i < cpu.size(); ++i) {
    if (std::isnan(cpu[i]) || std::isnan(gpu[i])) {
      nan_mismatch += std::isnan(cpu[i]) != std::isnan(gpu[i]);
    } else if (std::isinf(cpu[i]) || std::isinf(gpu[i])) {
      nan_mismatch += cpu[i] != gpu[i];
    } else {
      err = std::max(err, std::abs(cpu[i] - gpu[i]));
    }
    const float f = float(gpu[i]);
    if (!(f == gpu_f[i] || (std::isnan(f) && std::isnan(gpu_f[i])))) ++float_mismatch;
  }
  CHECK_MESSAGE(err <= 1e-14 * std::max(scale, 1e-300), what << ": relative difference " << err / scale);
  CHECK_MESSAGE(nan_mismatch == 0, what << ": " << nan_mismatch << " NaN/Inf mismatches");
  CHECK_MESSAGE(float_mismatch == 0, what << ": " << float_mismatch << " float values not the cast of the double");
}

}  // namespace

TEST_CASE("GPU expressions match muparser on the grid and its faces") {
  const Grid g = test_grid();
  const double t = 0.37;
  double* d = nullptr;
  float* f = nullptr;
  REQUIRE(cudaMalloc(&d, g.size() * sizeof(double)) == cudaSuccess);
  REQUIRE(cudaMalloc(&f, g.size() * sizeof(float)) == cudaSuccess);
  cudaStream_t stream;
  REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
  for (const auto& text : test::expression_cases) {
    CAPTURE(text);
    const Expression e(text, test::expression_constants);
    const DeviceExpression<double> dev(e);
    const DeviceExpression<float> dev_f(e);
    CAPTURE(dev.code());

    std::vector<double> cpu(g.size());
    e.fill(g, t, cpu.data());
    dev.fill(g, t, d, stream);
    dev_f.fill(g, t, f, stream);
    REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
    compare(cpu, download(d, g.size()), download(f, g.size()), "grid");

    for (int axis = 0; axis < 3; ++axis)
      for (int side = 0; side < 2; ++side) {
        Face face;  // as Boundary::read sets it up
        face.axis = axis;
        face.side = side;
        face.value = e;
        face.p = axis == 0 ? 1 : 0;
        face.q = axis == 2 ? 1 : 2;
        face.np = g.n[face.p];
        face.nq = g.n[face.q];
        face.fixed = side ? g.n[axis] - 1 : 0;
        std::vector<double> cpu_face(face.size());
        face.evaluate(g, t, cpu_face.data());
        dev.fill_face(g, axis, side, t, d);  // default stream
        dev_f.fill_face(g, axis, side, t, f);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        compare(cpu_face, download(d, face.size()), download(f, face.size()),
                "face " + std::to_string(axis) + (side ? "+" : "-"));
      }
  }
  cudaStreamDestroy(stream);
  cudaFree(d);
  cudaFree(f);
}

TEST_CASE("GPU expressions: a 1-D grid, a time-only expression, several grids per instance") {
  Grid g1;
  g1.n = {33, 1, 1};
  g1.lo = {0, 0, 0};
  g1.hi = {2, 0, 0};
  Grid g2 = test_grid();
  const Expression e("sin(_pi*x)*exp(-t) + y - z", {});
  const DeviceExpression<double> dev(e);
  double* d = nullptr;
  REQUIRE(cudaMalloc(&d, g2.size() * sizeof(double)) == cudaSuccess);
  for (const Grid& g : {g1, g2, g1}) {
    std::vector<double> cpu(g.size());
    e.fill(g, 1.5, cpu.data());
    dev.fill(g, 1.5, d);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const auto gpu = download(d, g.size());
    for (std::size_t i = 0; i < cpu.size(); ++i) CHECK(std::abs(cpu[i] - gpu[i]) <= 1e-14 * 3);
  }
  cudaFree(d);
}

TEST_CASE("GPU expressions: untranslatable text is a clear Error") {
  try {
    DeviceExpression<double>("x + erf(x)", {});
    FAIL("no error");
  } catch (const Error& e) {
    const std::string m = e.what();
    CHECK(m.find("unknown function 'erf'") != std::string::npos);
    CHECK(m.find("sin, cos") != std::string::npos);
  }
  CHECK_THROWS_AS(DeviceExpression<float>("x + q", {}), Error);
}

TEST_CASE("field statistics on the device equal the host's (core/field_stats.hpp)") {
  const Grid g = test_grid();
  std::vector<float> u(g.size());
  Expression("sin(3*x)*cos(2*y) + z", {}).fill(g, 0, u.data());
  float* d = nullptr;
  REQUIRE(cudaMalloc(&d, u.size() * sizeof(float)) == cudaSuccess);
  for (const StatsSpec& s : {StatsSpec::plain(g), StatsSpec::integral(g, 0.25, -0.5)}) {
    REQUIRE(cudaMemcpy(d, u.data(), u.size() * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
    const FieldStats host = field_stats(s, u.data()), dev = field_stats_cuda(s, d);
    CHECK(dev.lo == host.lo);
    CHECK(dev.hi == host.hi);
    CHECK(dev.sum == doctest::Approx(host.sum).epsilon(1e-13));  // sums in double, another order
    for (int q = 0; q < 2; ++q) CHECK(dev.level[q] == doctest::Approx(host.level[q]).epsilon(1e-13));
  }
  u[5] = std::numeric_limits<float>::quiet_NaN();
  REQUIRE(cudaMemcpy(d, u.data(), u.size() * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
  const FieldStats bad = field_stats_cuda(StatsSpec::plain(g), d);
  CHECK((std::isnan(bad.lo) && std::isnan(bad.hi) && std::isnan(bad.sum)));
  cudaFree(d);
}

// Rows longer than the kernel's chunk of a row (several chunks, a short last one), and a box of a
// rank's nodes (an offset, fewer rows than the array, the trapezoidal ends outside it).
TEST_CASE("field statistics on the device: long rows and a sub-box") {
  Grid g;
  g.dim = 3;
  g.n = {5003, 3, 4};
  g.lo = {0, 0, 0};
  g.hi = {2, 1, 1};
  std::vector<double> u(g.size());
  Expression("sin(7*x)*cos(2*y) + z", {}).fill(g, 0, u.data());
  double* d = nullptr;
  REQUIRE(cudaMalloc(&d, u.size() * sizeof(double)) == cudaSuccess);
  REQUIRE(cudaMemcpy(d, u.data(), u.size() * sizeof(double), cudaMemcpyHostToDevice) == cudaSuccess);
  StatsSpec box = StatsSpec::integral(g, 0.1, -0.3);
  box.first[0] = 3, box.count[0] = 4990, box.first[1] = 1, box.count[1] = 2, box.first[2] = 1, box.count[2] = 2;
  for (const StatsSpec& s : {StatsSpec::plain(g), StatsSpec::integral(g, 0.1, -0.3), box}) {
    const FieldStats host = field_stats(s, u.data()), dev = field_stats_cuda(s, d);
    CHECK(dev.lo == host.lo);
    CHECK(dev.hi == host.hi);
    CHECK(dev.sum == doctest::Approx(host.sum).epsilon(1e-13));
    for (int q = 0; q < 2; ++q) CHECK(dev.level[q] == doctest::Approx(host.level[q]).epsilon(1e-13));
  }
  cudaFree(d);
}

int main(int argc, char** argv) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("test_gpu_expression: SKIPPED: no CUDA device\n");
    return 0;
  }
  doctest::Context context(argc, argv);
  return context.run();
}
