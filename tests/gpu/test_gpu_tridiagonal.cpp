// Tests of the CUDA batched tridiagonal solvers (solvers/tridiagonal/cuda/batched_cuda.hpp)
// against the CPU batched solver solve_lines (batched.hpp), which tests/solvers checks against
// the plain Thomas reference.
//
// Every axis of padded 1-, 2- and 3-D arrays (3 extra elements after each x row, 5 after each
// xy plane, NaN in the padding), line lengths 1, 2, 3, 31, 33, 255, 257, 1000, batches that are
// not multiples of 32 (1, 17, 37, 45, 105, 99, 231 lines), float and double, uniform and array
// coefficients, every GpuAlgorithm (cuSPARSE only where its layouts allow: see below).
// Inputs are random and diagonally dominant (|b| >= |a| + |c| + 0.5; a_0 and c_{n-1} are NaN,
// so a solver that uses them fails), so both solvers are stable without pivoting and the
// condition numbers are small (<= ~15).
// Checks, per line: max|x_gpu - x_cpu| / max|x_cpu| below 1e-12 (double) and 1e-5 (float):
// both sides err by O(cond * eps) (~1e-14 / ~1e-6) and the GPU contracts multiply-adds while the
// CPU may not; a wrong index or elimination step gives O(1). Padding must come back bit for bit.
// The cuSPARSE baseline (CR/PCR inside) is another algorithm: 1e-10 / 1e-4.
//
// Without a CUDA device the program prints "SKIPPED: no CUDA device" and exits 0 (ctest shows
// the test as skipped through SKIP_REGULAR_EXPRESSION).
// The test cases "gpu sanitizer subset" (memcheck and racecheck) and "gpu sanitizer cusparse"
// (memcheck) are small cross-sections for compute-sanitizer (tools/gpu_check.sh).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "core/errors.hpp"
#include "solvers/tridiagonal/batched.hpp"
#include "solvers/tridiagonal/coefficients.hpp"
#include "solvers/tridiagonal/cuda/batched_cuda.hpp"
#include "solvers/tridiagonal/line_set.hpp"
#include "tests/common/padded_layout.hpp"

namespace {

using namespace tridsim;
using namespace tridsim::tridiag;
using tridsim::testing::Layout;
using tridsim::testing::Shape;

void cuda_ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw Error(std::string("test: ") + what + ": " + cudaGetErrorString(e));
}

template <class T>
constexpr double tol() {
  return std::is_same_v<T, float> ? 1e-5 : 1e-12;
}
template <class T>
constexpr double tol_cusparse() {
  return std::is_same_v<T, float> ? 1e-4 : 1e-10;
}

template <class T>
T nan_v() {
  return std::numeric_limits<T>::quiet_NaN();
}

template <class T>
bool same_bits(T x, T y) {
  return std::memcmp(&x, &y, sizeof(T)) == 0;
}

// Device array (RAII).
template <class T>
struct DeviceVector {
  T* p = nullptr;
  std::size_t n = 0;
  explicit DeviceVector(const std::vector<T>& host) : n(host.size()) {
    cuda_ok(cudaMalloc(reinterpret_cast<void**>(&p), sizeof(T) * std::max<std::size_t>(n, 1)), "cudaMalloc");
    cuda_ok(cudaMemcpy(p, host.data(), sizeof(T) * n, cudaMemcpyHostToDevice), "cudaMemcpy H2D");
  }
  ~DeviceVector() { cudaFree(p); }
  DeviceVector(const DeviceVector&) = delete;
  DeviceVector& operator=(const DeviceVector&) = delete;
  std::vector<T> download() const {
    std::vector<T> h(n);
    cuda_ok(cudaMemcpy(h.data(), p, sizeof(T) * n, cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
    return h;
  }
};

struct Rng {
  std::mt19937_64 g;
  explicit Rng(std::uint64_t seed) : g(seed) {}
  double uni(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(g); }
};

template <class T>
void dominant_row(Rng& rng, bool has_a, bool has_c, T& a, T& b, T& c) {
  const double av = has_a ? rng.uni(-1, 1) : 0.0, cv = has_c ? rng.uni(-1, 1) : 0.0;
  double bv = std::abs(av) + std::abs(cv) + rng.uni(0.5, 1.5);
  if (rng.uni(0, 1) < 0.3) bv = -bv;
  a = has_a ? T(av) : nan_v<T>();
  b = T(bv);
  c = has_c ? T(cv) : nan_v<T>();
}

// Lines of length len along every axis of 1-, 2- and 3-D arrays; line counts 1, 37, 45, 1, 105,
// 105, 99, 231, 17: none a multiple of 32, some below one warp, several spanning a few warps and
// x extents that end in partial warps (45, 35, 33, 21).
std::vector<Shape> shapes(index_t len) {
  return {
      {{len, 1, 1}, 0},                                         // 1-D
      {{len, 37, 1}, 0}, {{45, len, 1}, 1}, {{1, len, 1}, 1},   // 2-D
      {{len, 15, 7}, 0}, {{35, len, 3}, 1}, {{33, 3, len}, 2},  // 3-D
      {{21, 11, len}, 2}, {{17, len, 1}, 1},
  };
}

// Compare the GPU result `got` with the CPU result `want` line by line; padding of `got` must be
// bit-identical to `rhs` (the input).
template <class T>
void compare(const Layout& lay, int axis, const std::vector<T>& rhs, const std::vector<T>& want,
             const std::vector<T>& got, double tolerance) {
  const index_t n = lay.n[axis], s = lay.stride[axis];
  double worst = 0;
  for (index_t base : lay.line_bases(axis)) {
    long double num = 0, den = 0;
    bool bad = false;
    for (index_t r = 0; r < n; ++r) {
      const long double x = got[base + r * s], y = want[base + r * s];
      if (std::isnan(x) || std::isnan(y)) bad = true;
      num = std::max(num, std::abs(x - y));
      den = std::max(den, std::abs(y));
    }
    const double err = bad ? std::numeric_limits<double>::infinity() : double(num / std::max(den, 1e-300L));
    worst = std::max(worst, err);
  }
  CHECK_MESSAGE(worst <= tolerance, "relative error ", worst);
  index_t touched = 0;
  for (index_t o = 0; o < lay.size(); ++o)
    if (lay.is_padding(o) && !same_bits(got[o], rhs[o])) ++touched;
  CHECK_MESSAGE(touched == 0, touched, " padding elements changed");
}

template <class T>
std::vector<T> random_rhs(const Layout& lay, Rng& rng) {
  std::vector<T> rhs(lay.size(), nan_v<T>());
  for (index_t o = 0; o < lay.size(); ++o)
    if (!lay.is_padding(o)) rhs[o] = T(rng.uni(-1, 1));
  return rhs;
}

// A random diagonally dominant matrix shared by every line.
template <class T>
UniformMatrix<T> random_uniform_matrix(index_t len, Rng& rng) {
  std::vector<T> a(len), b(len), c(len);
  for (index_t r = 0; r < len; ++r) dominant_row(rng, r > 0, r + 1 < len, a[r], b[r], c[r]);
  return UniformMatrix<T>(a, b, c);
}

// Uniform matrix: CPU solve_lines vs solve_lines_cuda with each algorithm in `algs`.
template <class T>
void check_uniform(const Layout& lay, int axis, Rng& rng, const std::vector<GpuAlgorithm>& algs) {
  const LineSet L = lay.lines(axis);
  const UniformMatrix<T> M = random_uniform_matrix<T>(L.length(), rng);
  const UniformMatrixDevice<T> Md(M);
  const std::vector<T> rhs = random_rhs<T>(lay, rng);
  std::vector<T> want = rhs;
  solve_lines<T>(L, M, want.data());
  for (GpuAlgorithm alg : algs) {
    if (!gpu_algorithm_supports(alg, L)) continue;
    INFO("uniform, ", gpu_algorithm_name(alg), ", ", lay.describe(axis));
    DeviceVector<T> d(rhs);
    solve_lines_cuda<T>(L, Md, d.p, 0, alg);
    cuda_ok(cudaDeviceSynchronize(), "solve");
    compare<T>(lay, axis, rhs, want, d.download(), alg == GpuAlgorithm::cusparse ? tol_cusparse<T>() : tol<T>());
  }
}

// Array coefficients (NaN in the padding and in each line's a_0 and c_{n-1}).
template <class T>
void check_arrays(const Layout& lay, int axis, Rng& rng, const std::vector<GpuAlgorithm>& algs) {
  const LineSet L = lay.lines(axis);
  const index_t len = L.length(), s = lay.stride[axis], S = lay.size();
  std::vector<T> A(S, nan_v<T>()), B(S, nan_v<T>()), C(S, nan_v<T>());
  for (index_t base : lay.line_bases(axis))
    for (index_t r = 0; r < len; ++r) {
      const index_t o = base + r * s;
      dominant_row(rng, r > 0, r + 1 < len, A[o], B[o], C[o]);
    }
  const std::vector<T> rhs = random_rhs<T>(lay, rng);
  std::vector<T> want = rhs;
  solve_lines<T>(L, ArrayCoeffs<T>{A.data(), B.data(), C.data()}, want.data());
  const DeviceVector<T> dA(A), dB(B), dC(C);
  for (GpuAlgorithm alg : algs) {
    if (!gpu_algorithm_supports(alg, L)) continue;
    INFO("arrays, ", gpu_algorithm_name(alg), ", ", lay.describe(axis));
    DeviceVector<T> d(rhs);
    solve_lines_cuda<T>(L, dA.p, dB.p, dC.p, d.p, 0, alg);
    cuda_ok(cudaDeviceSynchronize(), "solve");
    compare<T>(lay, axis, rhs, want, d.download(), alg == GpuAlgorithm::cusparse ? tol_cusparse<T>() : tol<T>());
    // The coefficient arrays are inputs only.
    const std::vector<T> A2 = dA.download(), B2 = dB.download(), C2 = dC.download();
    bool unchanged = true;
    for (index_t o = 0; o < S; ++o)
      unchanged = unchanged && same_bits(A2[o], A[o]) && same_bits(B2[o], B[o]) && same_bits(C2[o], C[o]);
    CHECK_MESSAGE(unchanged, "a, b or c was modified");
  }
}

// Every algorithm of the table (line_solvers.hpp), then auto.
std::vector<GpuAlgorithm> all_algorithms() {
  std::vector<GpuAlgorithm> out = tridiag::gpu_line_algorithms();
  out.push_back(GpuAlgorithm::automatic);
  return out;
}
const std::vector<GpuAlgorithm> kAll = all_algorithms();
constexpr index_t kLengths[] = {1, 2, 3, 31, 33, 255, 257, 1000};

}  // namespace

TEST_CASE_TEMPLATE("gpu solve_lines_cuda with a uniform matrix matches the CPU solve_lines", T, float, double) {
  Rng rng(11);
  for (index_t len : kLengths)
    for (const Shape& sh : shapes(len)) check_uniform<T>(Layout::padded(sh.n), sh.axis, rng, kAll);
}

TEST_CASE_TEMPLATE("gpu solve_lines_cuda with coefficient arrays matches the CPU solve_lines", T, float, double) {
  Rng rng(12);
  for (index_t len : kLengths)
    for (const Shape& sh : shapes(len)) check_arrays<T>(Layout::padded(sh.n), sh.axis, rng, kAll);
}

// Dense layouts: where the cuSPARSE baseline runs on every axis (interleaved y/z), and the
// x-line path takes one strided call for the whole array.
TEST_CASE_TEMPLATE("gpu solvers on dense arrays (cuSPARSE on every axis)", T, float, double) {
  Rng rng(13);
  for (index_t len : {index_t(3), index_t(33), index_t(257)})
    for (const Shape& sh : shapes(len)) {
      const Layout lay = Layout::dense(sh.n);
      check_uniform<T>(lay, sh.axis, rng, kAll);
      check_arrays<T>(lay, sh.axis, rng, kAll);
    }
}

// Lines longer than a shared-memory tile holds well take thomas's segmented path (segmented_lines.cuh):
// lengths on both sides of a chunk and of a power of two, a prime, and 2^16; thomas and automatic.
TEST_CASE_TEMPLATE("gpu segmented thomas matches the CPU solve_lines on long lines", T, float, double) {
  Rng rng(15);
  for (index_t len : {index_t(513), index_t(1023), index_t(1025), index_t(4097), index_t(10007), index_t(65536)})
    for (const Shape& sh : {Shape{{len, 3, 1}, 0}, Shape{{17, len, 1}, 1}, Shape{{19, 2, len}, 2}}) {
      const Layout lay = len > 5000 ? Layout::dense(sh.n) : Layout::padded(sh.n);
      check_uniform<T>(lay, sh.axis, rng, {GpuAlgorithm::thomas, GpuAlgorithm::automatic});
      check_arrays<T>(lay, sh.axis, rng, {GpuAlgorithm::thomas, GpuAlgorithm::automatic});
    }
}

// Lines too long for shared memory: thomas takes the segmented path on its own.
TEST_CASE_TEMPLATE("gpu very long lines leave the shared-memory tiles", T, float, double) {
  Rng rng(14);
  const index_t len = 60000;
  for (const Shape& sh : {Shape{{len, 3, 1}, 0}, Shape{{5, len, 1}, 1}, Shape{{3, 2, len}, 2}}) {
    const Layout lay = Layout::padded(sh.n);
    const LineSet L = lay.lines(sh.axis);
    CHECK_FALSE(plan_lines_cuda<T>(L, true).shared_memory);
    CHECK_FALSE(plan_lines_cuda<T>(L, false).shared_memory);
    check_uniform<T>(lay, sh.axis, rng, {GpuAlgorithm::thomas});
    check_arrays<T>(lay, sh.axis, rng, {GpuAlgorithm::thomas});
  }
  // and lines of ordinary length do not
  CHECK(plan_lines_cuda<T>(Layout::padded({256, 256, 1}).lines(0), true).shared_memory);
  CHECK(plan_lines_cuda<T>(Layout::padded({256, 256, 1}).lines(1), false).shared_memory);
}

TEST_CASE_TEMPLATE("gpu solve on a stream, twice in a row, with the same uniform matrix", T, float, double) {
  Rng rng(15);
  const Layout lay = Layout::padded({70, 33, 9});
  cudaStream_t stream = nullptr;
  cuda_ok(cudaStreamCreate(&stream), "cudaStreamCreate");
  for (int axis = 0; axis < 3; ++axis) {
    CAPTURE(axis);
    const LineSet L = lay.lines(axis);
    const UniformMatrix<T> M = random_uniform_matrix<T>(L.length(), rng);
    const UniformMatrixDevice<T> Md(M);
    const std::vector<T> rhs = random_rhs<T>(lay, rng);
    std::vector<T> want = rhs;
    solve_lines<T>(L, M, want.data());
    solve_lines<T>(L, M, want.data());
    DeviceVector<T> d(rhs);
    solve_lines_cuda<T>(L, Md, d.p, stream);
    solve_lines_cuda<T>(L, Md, d.p, stream);
    cuda_ok(cudaStreamSynchronize(stream), "stream");
    compare<T>(lay, axis, rhs, want, d.download(), 10 * tol<T>());
  }
  cuda_ok(cudaStreamDestroy(stream), "cudaStreamDestroy");
}

TEST_CASE_TEMPLATE("gpu solvers reject a wrong matrix, a non-unit x stride, and unsupported cuSPARSE layouts", T,
                   float, double) {
  const Layout lay = Layout::padded({6, 4, 3});
  std::vector<T> host(lay.size(), T(1));
  DeviceVector<T> d(host);
  const std::vector<T> a(5, T(0.1)), b(5, T(2)), c(5, T(0.1));
  const UniformMatrixDevice<T> M5(UniformMatrix<T>(a, b, c));
  for (int axis = 0; axis < 3; ++axis) {
    CAPTURE(axis);
    for (GpuAlgorithm alg : kAll)
      CHECK_THROWS_AS(solve_lines_cuda<T>(lay.lines(axis), M5, d.p, 0, alg), tridsim::Error);
  }
  LineSet strided{{2, 2, 1}, {2, 4, 8}, 1};
  const UniformMatrixDevice<T> M2(UniformMatrix<T>({0, 1}, {4, 4}, {1, 0}));
  CHECK_THROWS_AS(solve_lines_cuda<T>(strided, M2, d.p), tridsim::Error);
  CHECK_THROWS_AS(solve_lines_cuda<T>(strided, d.p, d.p, d.p, d.p), tridsim::Error);
  // Padded y/z lines are not interleaved: the baseline refuses them; lines shorter than 3 too.
  CHECK_FALSE(CusparseTridiagonal::supports(lay.lines(1)));
  CHECK_FALSE(CusparseTridiagonal::supports(lay.lines(2)));
  CHECK(CusparseTridiagonal::supports(lay.lines(0)));
  CHECK_FALSE(CusparseTridiagonal::supports(Layout::dense({2, 5, 1}).lines(0)));
  CHECK_THROWS_AS(solve_lines_cuda<T>(lay.lines(1), d.p, d.p, d.p, d.p, 0, GpuAlgorithm::cusparse), tridsim::Error);
  // Empty line sets do nothing.
  LineSet empty{{0, 3, 1}, {1, 1, 1}, 0};
  const UniformMatrixDevice<T> M0(UniformMatrix<T>({}, {}, {}));
  CHECK_NOTHROW(solve_lines_cuda<T>(empty, M0, d.p));
  CHECK_NOTHROW(solve_lines_cuda<T>(empty, d.p, d.p, d.p, d.p));
  cuda_ok(cudaDeviceSynchronize(), "sync");
  const std::vector<T> back = d.download();
  CHECK(std::all_of(back.begin(), back.end(), [](T v) { return v == T(1); }));
}

TEST_CASE_TEMPLATE("gpu thomas-pcr and pcr refuse lines beyond their limits; names round-trip", T, float, double) {
  const Layout lay = Layout::padded({1025, 2, 1});
  std::vector<T> host(lay.size(), T(1));
  DeviceVector<T> d(host);
  const LineSet L = lay.lines(0);
  CHECK_FALSE(gpu_algorithm_supports(GpuAlgorithm::thomas_pcr, L));
  CHECK_FALSE(gpu_algorithm_supports(GpuAlgorithm::pcr, L));
  CHECK_THROWS_AS(solve_lines_cuda<T>(L, d.p, d.p, d.p, d.p, 0, GpuAlgorithm::thomas_pcr), tridsim::Error);
  CHECK_THROWS_AS(solve_lines_cuda<T>(L, d.p, d.p, d.p, d.p, 0, GpuAlgorithm::pcr), tridsim::Error);
  CHECK(gpu_algorithm_supports(GpuAlgorithm::thomas_pcr, Layout::padded({512, 2, 1}).lines(0)));
  CHECK(gpu_algorithm_supports(GpuAlgorithm::pcr, Layout::padded({1024, 2, 1}).lines(0)));
  for (GpuAlgorithm a : kAll) CHECK(parse_gpu_algorithm(gpu_algorithm_name(a)) == a);
  CHECK(parse_gpu_algorithm("thomas-transposed") == GpuAlgorithm::thomas);
  CHECK_FALSE(parse_gpu_algorithm("thomas_pcr").has_value());
  // automatic never resolves to itself, and only to an algorithm that supports the lines
  for (index_t len : kLengths)
    for (const Shape& sh : shapes(len)) {
      const LineSet Ls = Layout::padded(sh.n).lines(sh.axis);
      for (bool uniform : {true, false}) {
        const GpuAlgorithm r = resolve_gpu_algorithm(GpuAlgorithm::automatic, Ls, uniform, sizeof(T));
        CHECK(r != GpuAlgorithm::automatic);
        CHECK(gpu_algorithm_supports(r, Ls));
      }
    }
}

// Small cross-sections of the cases above for compute-sanitizer: our kernels (memcheck and
// racecheck), and the cuSPARSE path (memcheck only: the library's kernels are not ours to race-check).
TEST_CASE_TEMPLATE("gpu sanitizer subset", T, float, double) {
  Rng rng(16);
  std::vector<GpuAlgorithm> ours;  // the table's algorithms but the library's
  for (GpuAlgorithm a : tridiag::gpu_line_algorithms())
    if (!tridiag::line_solver(a)->layouts) ours.push_back(a);
  for (index_t len : {index_t(1), index_t(3), index_t(33), index_t(257)})
    for (const Shape& sh : {Shape{{len, 37, 1}, 0}, Shape{{35, len, 3}, 1}, Shape{{33, 3, len}, 2}}) {
      const Layout lay = Layout::padded(sh.n);
      check_uniform<T>(lay, sh.axis, rng, ours);
      check_arrays<T>(lay, sh.axis, rng, ours);
    }
  const Layout longer = Layout::padded({5, 60000, 1});  // the global-memory fallback
  check_uniform<T>(longer, 1, rng, {GpuAlgorithm::thomas});
  check_arrays<T>(longer, 1, rng, {GpuAlgorithm::thomas});
}

TEST_CASE_TEMPLATE("gpu sanitizer cusparse", T, float, double) {
  Rng rng(17);
  const Layout dense = Layout::dense({33, 5, 40});
  for (int axis = 0; axis < 3; ++axis) {
    check_uniform<T>(dense, axis, rng, {GpuAlgorithm::cusparse});
    check_arrays<T>(dense, axis, rng, {GpuAlgorithm::cusparse});
  }
  check_arrays<T>(Layout::padded({40, 7, 3}), 0, rng, {GpuAlgorithm::cusparse});
}

int main(int argc, char** argv) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    std::printf("test_gpu_tridiagonal: SKIPPED: no CUDA device (%s)\n",
                e != cudaSuccess ? cudaGetErrorString(e) : "cudaGetDeviceCount reports 0 devices");
    return 0;
  }
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess) std::printf("test_gpu_tridiagonal: device 0: %s\n", prop.name);
  doctest::Context context(argc, argv);
  return context.run();
}
