// Every kernel family of the GPU line-solver contract (solvers/tridiagonal/cuda/line_solve.cuh)
// matches the reference Thomas, through the public contract, with non-trivial functors: the load
// forms 2 src - r/4 + q/1000 (several reads per value), the store writes 3 x + src (a fused
// update), for every row source (factored uniform matrix, coefficient arrays, rows generated
// from a diffusivity with both face means), every axis, awkward and padded sizes. Padding is
// neither read nor written. Without a CUDA device the program prints "SKIPPED: no CUDA device".
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/cuda_support.cuh"
#include "core/diffusion.hpp"
#include "core/grid.hpp"
#include "solvers/tridiagonal/batched.hpp"
#include "solvers/tridiagonal/coefficients.hpp"
#include "solvers/tridiagonal/cuda/line_solve.cuh"
#include "solvers/tridiagonal/thomas_reference.hpp"
#include "tests/common/padded_layout.hpp"

using namespace tridsim;
using tridiag::GpuAlgorithm;

namespace {

template <class T>
struct RhsLoad {
  const T* src;
  __host__ __device__ T operator()(index_t o, index_t q, int r) const {
    return T(2) * src[o] - T(0.25) * T(r) + T(0.001) * T(q);
  }
};
template <class T>
struct FusedStore {
  const T* src;
  T* out;
  __device__ void operator()(index_t o, index_t, int, T x) const { out[o] = T(3) * x + src[o]; }
};

enum class Source { factored, arrays, arithmetic, harmonic };
const char* source_name(Source s) {
  return s == Source::factored ? "factored" : s == Source::arrays ? "arrays" : s == Source::arithmetic ? "arithmetic" : "harmonic";
}

template <class T>
struct Problem {
  testing::Layout lay;
  int axis;
  Source source;
  std::vector<T> src, kappa, a, b, c;  // host, in the layout
  tridiag::UniformMatrix<T> uniform;
  std::vector<T> ua, ub, uc;  // the uniform matrix's rows
  T w = T(0.7);
  bool dir_lo = true, dir_hi = false;

  Problem(const testing::Layout& l, int ax, Source s, std::mt19937& rng) : lay(l), axis(ax), source(s) {
    std::uniform_real_distribution<double> u(-1, 1), pos(0.5, 1.5);
    const index_t size = lay.size(), n = lay.n[axis];
    src.assign(size, T(0));
    kappa.assign(size, T(0));
    a.assign(size, T(0));
    b.assign(size, T(1));
    c.assign(size, T(0));
    for (index_t o = 0; o < size; ++o) {
      src[o] = T(u(rng));
      kappa[o] = source == Source::harmonic && u(rng) > 0.8 ? T(0) : T(pos(rng));  // some decoupled nodes
      a[o] = T(u(rng));
      c[o] = T(u(rng));
      b[o] = T(3 + u(rng));
    }
    ua.resize(n); ub.resize(n); uc.resize(n);
    for (index_t r = 0; r < n; ++r) {
      ua[r] = r > 0 ? T(u(rng)) : T(0);
      uc[r] = r + 1 < n ? T(u(rng)) : T(0);
      ub[r] = T(3 + u(rng));
    }
    uniform = tridiag::UniformMatrix<T>(ua, ub, uc);
  }
  index_t stride() const { return lay.stride[axis]; }
  template <FaceMean Mean>
  DiffusionRows<T, Mean> rows(const T* k) const {
    return {k, stride(), lay.n[axis], w, dir_lo, dir_hi};
  }
  // Row r of the line through `o` (host), from the same source as the device.
  void row(index_t o, index_t r, T& A, T& B, T& C) const {
    switch (source) {
      case Source::factored: A = ua[r]; B = ub[r]; C = uc[r]; return;
      case Source::arrays: A = a[o]; B = b[o]; C = c[o]; return;
      case Source::arithmetic: {
        const auto g = rows<FaceMean::arithmetic>(kappa.data());
        g.row(r, r > 0 ? g.stage(o - stride(), r - 1) : T(0), g.stage(o, r), A, B, C);
        return;
      }
      case Source::harmonic: {
        const auto g = rows<FaceMean::harmonic>(kappa.data());
        g.row(r, r > 0 ? g.stage(o - stride(), r - 1) : T(0), g.stage(o, r), A, B, C);
        return;
      }
    }
  }
  std::vector<T> expected(T sentinel) const {
    std::vector<T> out(lay.size(), sentinel);
    const index_t n = lay.n[axis];
    const auto bases = lay.line_bases(axis);
    std::vector<T> A(n), B(n), C(n), D(n), X(n);
    const RhsLoad<T> load{src.data()};
    for (std::size_t q = 0; q < bases.size(); ++q) {
      for (index_t r = 0; r < n; ++r) {
        const index_t o = bases[q] + r * stride();
        row(o, r, A[r], B[r], C[r]);
        D[r] = load(o, index_t(q), int(r));
      }
      tridiag::thomas_reference<T>(n, A.data(), B.data(), C.data(), D.data(), X.data());
      for (index_t r = 0; r < n; ++r) {
        const index_t o = bases[q] + r * stride();
        out[o] = T(3) * X[r] + src[o];
      }
    }
    return out;
  }
};

template <class T>
cuda::DeviceArray<T> upload(const std::vector<T>& v) {
  cuda::DeviceArray<T> d;
  d.upload(v.data(), index_t(v.size()));
  return d;
}

// Which path solves: the routing of solve_lines for `alg`, or one long-line path itself, whatever
// solve_lines would pick (cluster: factored rows only, rows: y/z lines of per-line rows only; the
// comparison fails if it declines).
enum class Path { routed, segmented, cluster, rows };

template <class T>
double solve_and_compare(const Problem<T>& P, GpuAlgorithm alg, Path path = Path::routed) {
  const T sentinel = T(-12345);
  auto src = upload(P.src), kappa = upload(P.kappa), a = upload(P.a), b = upload(P.b), c = upload(P.c);
  auto out = upload(std::vector<T>(P.lay.size(), sentinel));
  const auto L = P.lay.lines(P.axis);
  const RhsLoad<T> load{src.p};
  const FusedStore<T> store{src.p, out.p};
  tridiag::UniformMatrixDevice<T> M(P.uniform);
  bool declined = false;
  auto solve = [&](const auto& rows) {
    const auto g = tridiag::detail::geometry(L);
    if (path == Path::segmented) tridiag::gpu::launch_segmented<T>(L, g, rows, load, store, 0);
    else if constexpr (tridiag::gpu::is_factored_v<std::decay_t<decltype(rows)>>) {
      if (path == Path::cluster) declined = !tridiag::gpu::launch_cluster_lines<T>(L, g, rows, load, store, 0);
    } else if (path == Path::rows) {
      declined = !tridiag::gpu::launch_rows_lines<T>(L, g, rows, load, store, 0);
    }
    if (path == Path::routed) tridiag::gpu::solve_lines<T>(L, rows, load, store, alg);
  };
  switch (P.source) {
    case Source::factored: solve(tridiag::gpu::factored_rows(M)); break;
    case Source::arrays: solve(tridiag::gpu::ArrayRows<T>{a.p, b.p, c.p}); break;
    case Source::arithmetic: solve(P.template rows<FaceMean::arithmetic>(kappa.p)); break;
    case Source::harmonic: solve(P.template rows<FaceMean::harmonic>(kappa.p)); break;
  }
  TRIDSIM_CUDA(cudaDeviceSynchronize());
  if (declined) return INFINITY;
  std::vector<T> got(P.lay.size());
  TRIDSIM_CUDA(cudaMemcpy(got.data(), out.p, sizeof(T) * got.size(), cudaMemcpyDeviceToHost));
  const auto want = P.expected(sentinel);
  double err = 0, scale = 1;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (P.lay.is_padding(index_t(i))) {
      if (got[i] != sentinel) return INFINITY;  // padding written
      continue;
    }
    err = std::max(err, std::abs(double(got[i]) - double(want[i])));
    scale = std::max(scale, std::abs(double(want[i])));
  }
  return err / scale;
}

template <class T>
void check_family(GpuAlgorithm alg, index_t max_len) {
  std::mt19937 rng(7);
  const double tol = sizeof(T) == 8 ? 1e-11 : 2e-4;
  const std::vector<std::array<index_t, 3>> sizes = {{1, 3, 2},  {2, 5, 3},   {3, 4, 2},    {37, 11, 7},
                                                     {67, 5, 9}, {257, 3, 33}, {300, 40, 2}, {513, 2, 2},
                                                     {2, 300, 3}, {3, 2, 257}};
  for (const auto& n : sizes)
    for (int axis = 0; axis < 3; ++axis)
      for (bool padded : {false, true})
        for (Source s : {Source::factored, Source::arrays, Source::arithmetic, Source::harmonic}) {
          if (n[axis] > max_len) continue;
          const auto lay = padded ? testing::Layout::padded(n) : testing::Layout::dense(n);
          const Problem<T> P(lay, axis, s, rng);
          const double err = solve_and_compare(P, alg);
          INFO(tridiag::gpu_algorithm_name(alg), " ", source_name(s), " ", lay.describe(axis));
          CHECK(err <= tol);
        }
}

// docs/extending.md's example of a module's GPU side (quoted from here): one y sweep of backward
// Euler with a variable kappa, zero-flux ends and a source, fused into load and store.
template <class T>
struct SourceLoad {  // u + dt f
  const T* u; const T* f; T dt;
  __device__ T operator()(index_t o, index_t, int) const { return u[o] + dt * f[o]; }
};

template <class T>
void documented_y_sweep(const Grid& grid_, double dt, double h, const T* kappa_dev, const T* f_dev, T* u_dev,
                        const GpuAlgorithm* solver_) {
  const DiffusionRows<T, FaceMean::arithmetic> rows{kappa_dev, grid_.strides()[1], grid_.n[1],
                                                    T(dt / (h * h)), false, false};  // no Dirichlet ends
  tridiag::gpu::solve_lines<T>(tridiag::LineSet::dense(grid_, 1), rows, SourceLoad<T>{u_dev, f_dev, T(dt)},
                               tridiag::gpu::ArrayStore<T>{u_dev}, solver_[1]);  // a GpuAlgorithm, or automatic
}

}  // namespace

TEST_CASE_TEMPLATE("the GPU example of docs/extending.md equals its CPU twin", T, float, double) {
  Grid g;
  g.dim = 3;
  g.n = {37, 50, 6};
  g.hi = {1, 1, 1};
  const std::size_t N = std::size_t(g.size());
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> pos(0.5, 1.5), any(-1, 1);
  std::vector<T> u(N), f(N), kappa(N);
  for (std::size_t i = 0; i < N; ++i) u[i] = T(any(rng)), f[i] = T(any(rng)), kappa[i] = T(pos(rng));
  const double dt = 1e-3, h = g.h(1);
  // The CPU sweep of the same section of docs/extending.md.
  std::vector<T> cpu = u;
  const tridiag::DiffusionCoeffs<T> A{kappa.data(), T(dt / (h * h)), g.strides()[1], g.n[1], BoundaryKind::neumann,
                                      BoundaryKind::neumann};
  tridiag::solve_lines<T>(
      tridiag::LineSet::dense(g, 1), A,
      [&](index_t o, index_t count, T* out) {
        for (index_t l = 0; l < count; ++l) out[l] = cpu[std::size_t(o + l)] + T(dt) * f[std::size_t(o + l)];
      },
      [&](index_t o, index_t count, const T* x) { std::copy(x, x + count, cpu.begin() + o); });
  for (const GpuAlgorithm alg : {GpuAlgorithm::automatic, GpuAlgorithm::thomas, GpuAlgorithm::thomas_pcr}) {
    cuda::DeviceArray<T> du, df, dk;
    du.upload(u.data(), index_t(N));
    df.upload(f.data(), index_t(N));
    dk.upload(kappa.data(), index_t(N));
    const GpuAlgorithm solver[3] = {alg, alg, alg};
    documented_y_sweep<T>(g, dt, h, dk.p, df.p, du.p, solver);
    std::vector<T> gpu(N);
    REQUIRE(cudaMemcpy(gpu.data(), du.p, N * sizeof(T), cudaMemcpyDeviceToHost) == cudaSuccess);
    double err = 0;
    for (std::size_t i = 0; i < N; ++i) err = std::max(err, std::abs(double(gpu[i]) - double(cpu[i])));
    INFO(tridiag::gpu_algorithm_name(alg));
    CHECK(err <= (sizeof(T) == 8 ? 1e-13 : 1e-5));
  }
}

// Every row of the table (line_solvers.hpp) that takes load/store functors, up to its length limit.
TEST_CASE_TEMPLATE("every fused line solver of the table matches reference", T, float, double) {
  for (const auto& s : tridiag::kLineSolvers)
    if (s.on_gpu == tridiag::OnGpu::fused && !s.alias_of && s.gpu != GpuAlgorithm::automatic) {
      INFO(std::string(s.name));
      check_family<T>(s.gpu, s.max_length > 0 ? s.max_length : index_t(1) << 20);
    }
}
// Long lines: the segmented path itself (segmented_lines.cuh), and thomas and auto as they route
// them. One chunk and several, a one-row last chunk (1025 = 4 * 256 + 1 in float), a prime, 2^16;
// x, y and z; every row source. Tolerances as above: the rows are diagonally dominant
// (|a| + |c| < b - 1), so the reduced systems are too and the error stays a few ulps of the largest
// value, whatever the length.
TEST_CASE_TEMPLATE("segmented thomas matches reference", T, float, double) {
  std::mt19937 rng(9);
  const double tol = sizeof(T) == 8 ? 1e-11 : 2e-4;
  const std::vector<std::pair<std::array<index_t, 3>, int>> cases = {
      {{1023, 3, 2}, 0}, {{1025, 2, 3}, 0},  {{4097, 3, 1}, 0},  {{10007, 2, 1}, 0}, {{65536, 1, 2}, 0},
      {{17, 1023, 2}, 1}, {{33, 1025, 1}, 1}, {{5, 4097, 2}, 1}, {{16, 10007, 1}, 1}, {{3, 65536, 1}, 1},
      {{19, 2, 1025}, 2}, {{16, 3, 4097}, 2}, {{7, 1, 10007}, 2}, {{2, 2, 65536}, 2}, {{40, 3, 2049}, 2},
      {{589, 3, 2}, 0},   {{5, 577, 2}, 1},   {{3, 2, 1041}, 2}};  // one-row last segment or chunk (H100)
  for (const auto& [n, axis] : cases)
    for (bool padded : {false, true})
      for (Source s : {Source::factored, Source::arrays, Source::arithmetic, Source::harmonic}) {
        const auto lay = padded ? testing::Layout::padded(n) : testing::Layout::dense(n);
        const Problem<T> P(lay, axis, s, rng);
        INFO(source_name(s), " ", lay.describe(axis));
        CHECK(solve_and_compare(P, GpuAlgorithm::thomas, Path::segmented) <= tol);
        CHECK(solve_and_compare(P, GpuAlgorithm::thomas) <= tol);
        CHECK(solve_and_compare(P, GpuAlgorithm::automatic) <= tol);
      }
}

// Lines of a factored matrix on a thread-block cluster (cluster_lines.cuh), on sm_90: clusters of
// 2 to 16 blocks of both widths, segments and blocks cut short at awkward lengths (a one-row last
// block: 257 = 256 + 1, 4097 = 8 * 512 + 1), line counts that leave a cluster's lanes idle, x, y
// and z; and as solve_lines routes them.
TEST_CASE_TEMPLATE("cluster lines match reference", T, float, double) {
  int dev = 0, major = 0;
  REQUIRE(cudaGetDevice(&dev) == cudaSuccess);
  REQUIRE(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) == cudaSuccess);
  if (major < 9) {
    MESSAGE("no thread-block clusters before sm_90: skipped");
    return;
  }
  std::mt19937 rng(11);
  const double tol = sizeof(T) == 8 ? 1e-11 : 2e-4;
  const std::vector<std::pair<std::array<index_t, 3>, int>> cases = {
      {{300, 3, 2}, 0},  {{513, 3, 2}, 0},  {{1000, 2, 3}, 0},  {{2049, 33, 1}, 0}, {{4097, 2, 1}, 0},
      {{8192, 1, 3}, 0}, {{35, 257, 2}, 1}, {{35, 531, 2}, 1},  {{17, 1031, 2}, 1}, {{64, 4095, 1}, 1},
      {{3, 8191, 2}, 1}, {{33, 2, 777}, 2}, {{5, 7, 2048}, 2},  {{2, 3, 4097}, 2},  {{40, 1, 6000}, 2}};
  for (const auto& [n, axis] : cases)
    for (bool padded : {false, true}) {
      const auto lay = padded ? testing::Layout::padded(n) : testing::Layout::dense(n);
      const Problem<T> P(lay, axis, Source::factored, rng);
      INFO(lay.describe(axis));
      CHECK(solve_and_compare(P, GpuAlgorithm::thomas, Path::cluster) <= tol);
      CHECK(solve_and_compare(P, GpuAlgorithm::automatic) <= tol);
    }
}

// y/z lines of per-line rows, each thread a segment in registers and the reduced system by PCR
// (rows_lines.cuh): 2 to 32 segments per line, segments of unequal length (n not a multiple of the
// segment count), a last block with idle lines, and as solve_lines routes them.
TEST_CASE_TEMPLATE("rows lines match reference", T, float, double) {
  std::mt19937 rng(13);
  const double tol = sizeof(T) == 8 ? 1e-11 : 2e-4;
  const std::vector<std::pair<std::array<index_t, 3>, int>> cases = {
      {{9, 4, 2}, 1},   {{3, 33, 5}, 1},  {{17, 129, 2}, 1}, {{35, 257, 1}, 1}, {{5, 300, 3}, 1}, {{8, 511, 2}, 1},
      {{11, 512, 1}, 1}, {{7, 3, 31}, 2}, {{4, 2, 200}, 2},  {{9, 1, 385}, 2},  {{3, 5, 512}, 2}};
  for (const auto& [n, axis] : cases)
    for (bool padded : {false, true})
      for (Source s : {Source::arrays, Source::arithmetic, Source::harmonic}) {
        const auto lay = padded ? testing::Layout::padded(n) : testing::Layout::dense(n);
        const Problem<T> P(lay, axis, s, rng);
        INFO(source_name(s), " ", lay.describe(axis));
        CHECK(solve_and_compare(P, GpuAlgorithm::thomas, Path::rows) <= tol);
        CHECK(solve_and_compare(P, GpuAlgorithm::thomas) <= tol);
        CHECK(solve_and_compare(P, GpuAlgorithm::automatic) <= tol);
      }
}

TEST_CASE_TEMPLATE("auto matches reference", T, float, double) { check_family<T>(GpuAlgorithm::automatic, 512); }

TEST_CASE("functor callers are refused the in-place-only families with a reason") {
  const auto L = testing::Layout::dense({8, 4, 2}).lines(0);
  CHECK(!tridiag::gpu_unsupported_reason(GpuAlgorithm::cusparse, L, false).empty());
  CHECK(!tridiag::gpu_unsupported_reason(GpuAlgorithm::thomas_shuffle, L, false).empty());
  CHECK(tridiag::gpu_unsupported_reason(GpuAlgorithm::thomas_pcr, L, false).empty());
  const auto long_lines = testing::Layout::dense({600, 2, 2}).lines(0);
  CHECK(tridiag::gpu_unsupported_reason(GpuAlgorithm::thomas_pcr, long_lines, false).find("512") != std::string::npos);
}

int main(int argc, char** argv) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("test_gpu_line_contract: SKIPPED: no CUDA device\n");
    return 0;
  }
  doctest::Context ctx(argc, argv);
  return ctx.run();
}
