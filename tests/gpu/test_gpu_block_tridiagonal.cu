// Every CUDA block-tridiagonal kernel (solvers/block_tridiagonal/cuda/) matches the reference block
// Thomas (reference_solve_lines on the host), through the public contract: stored blocks (host
// API, interleaved and planar vectors, in place; padding neither read nor written), blocks
// generated per node, uniform matrices (UniformBlocksDevice and constant coupled diffusion), a
// fused load/store, and blocks that need partial pivoting. M = 1..8, lengths 1, 2, 3, 31, 257
// (and a long line that makes the hybrid recurse), odd line counts, padded strides, every axis,
// float and double. Without a CUDA device the program prints "SKIPPED: no CUDA device".
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "core/coupled_diffusion.hpp"
#include "core/cuda_support.cuh"
#include "solvers/block_tridiagonal/cuda/block_batched_cuda.hpp"
#include "solvers/block_tridiagonal/cuda/block_solve.cuh"
#include "solvers/block_tridiagonal/reference.hpp"
#include "solvers/block_tridiagonal/uniform_blocks.hpp"
#include "tests/common/padded_layout.hpp"

using namespace tridsim;
using namespace tridsim::blocktri;
using tridsim::cuda::DeviceArray;

namespace {

// Every algorithm of the table (block_gpu_algorithm.hpp), then auto.
std::vector<BlockGpuAlgorithm> all_algorithms() {
  std::vector<BlockGpuAlgorithm> out = block_gpu_algorithms();
  out.push_back(BlockGpuAlgorithm::automatic);
  return out;
}
const std::vector<BlockGpuAlgorithm> kAlgorithms = all_algorithms();

template <class T>
constexpr double tolerance() {
  return sizeof(T) == 8 ? 1e-10 : 2e-4;
}

// A block generator that varies per node (hash of o, i, j), block-diagonally dominant.
template <class T>
struct HashBlocks {
  int m;
  TRIDSIM_HOST_DEVICE static T unit(index_t o, int i, int j, int which) {
    const std::uint64_t h = (std::uint64_t(o) * 2654435761u + std::uint64_t(i * 97 + j * 13 + which * 7919)) % 1009u;
    return T(double(h) / 1009.0 - 0.5);
  }
  TRIDSIM_HOST_DEVICE void entry(index_t o, index_t, int i, int j, T& A, T& B, T& C) const {
    A = unit(o, i, j, 0) / T(m);
    C = unit(o, i, j, 1) / T(m);
    B = unit(o, i, j, 2) / T(m) + (i == j ? T(3) : T(0));
  }
};

// Random blocks, block-diagonally dominant; `permuted`: the rows of B cyclically shifted, so
// that its diagonal is small and the pivot blocks need row exchanges.
template <class T>
void random_blocks(int m, index_t nodes, bool permuted, std::mt19937& rng, std::vector<T>& a, std::vector<T>& b,
                   std::vector<T>& c) {
  std::uniform_real_distribution<double> u(-1, 1);
  const std::size_t mm = std::size_t(m) * m;
  a.assign(nodes * mm, T(0));
  b.assign(nodes * mm, T(0));
  c.assign(nodes * mm, T(0));
  const double off = permuted ? 0.1 : 1.0;
  for (index_t o = 0; o < nodes; ++o)
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < m; ++j) {
        const std::size_t k = o * mm + i * m + j;
        a[k] = T(off * u(rng) / m);
        c[k] = T(off * u(rng) / m);
        const double v = u(rng) / m + (i == j ? 3.0 + u(rng) : 0.0);
        const int row = permuted && m > 1 ? (i + 1) % m : i;
        b[o * mm + row * m + j] = T(v);
      }
}

template <class T>
void check_close(const std::vector<T>& got, const std::vector<T>& want, const std::string& what) {
  REQUIRE(got.size() == want.size());
  double worst = 0, scale = 1;
  for (std::size_t i = 0; i < want.size(); ++i) scale = std::max(scale, std::abs(double(want[i])));
  std::size_t at = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const double e = std::abs(double(got[i]) - double(want[i]));
    if (!(e <= worst)) {
      worst = e;
      at = i;
    }
  }
  INFO(what << ": worst error " << worst << " at " << at << " (got " << double(got[at]) << ", want "
            << double(want[at]) << ", scale " << scale << ")");
  CHECK(worst <= tolerance<T>() * scale);
}

template <class T>
std::vector<T> download(const DeviceArray<T>& d) {
  std::vector<T> h(d.n);
  TRIDSIM_CUDA(cudaMemcpy(h.data(), d.p, sizeof(T) * d.n, cudaMemcpyDeviceToHost));
  return h;
}

// Random values on every element (nodes and padding; the padding must come back unchanged).
template <class T>
std::vector<T> random_vectors(const testing::Layout& lay, int m, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<T> v(lay.size() * m);
  for (T& x : v) x = T(u(rng));
  return v;
}

// TRIDSIM_BLOCK_QUICK=1 (the compute-sanitizer run): fewer block sizes and lengths.
bool quick() { return std::getenv("TRIDSIM_BLOCK_QUICK") != nullptr; }
std::vector<int> block_sizes() { return quick() ? std::vector<int>{1, 3, 4, 8} : std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8}; }
std::vector<index_t> lengths() {
  return quick() ? std::vector<index_t>{1, 2, 31, 257} : std::vector<index_t>{1, 2, 3, 31, 257};
}

// The CPU form of the contract's load/store (load(o, count, out), store(o, count, in)).
template <class Access>
auto cpu_load(const Access& a) {
  return [a](index_t o, index_t count, auto* out) { a.load(o, count, out); };
}
template <class Access>
auto cpu_store(const Access& a) {
  return [a](index_t o, index_t count, const auto* in) { a.store(o, count, in); };
}

// Expected in-place result: the reference on the nodes, the input untouched in the padding.
template <class T, class Blocks>
std::vector<T> expected(int m, const testing::Layout& lay, int axis, const Blocks& blocks, const std::vector<T>& u,
                        bool planar, Pivoting piv = Pivoting::partial) {
  std::vector<T> out = u;
  const LineSet L = lay.lines(axis);
  if (planar) {
    const PlanarAccess<T> acc{out.data(), lay.size(), m};
    reference_solve_lines<T>(m, L, blocks, cpu_load(acc), cpu_store(acc), piv);
  } else {
    const InterleavedAccess<T> acc{out.data(), m};
    reference_solve_lines<T>(m, L, blocks, cpu_load(acc), cpu_store(acc), piv);
  }
  return out;
}

std::vector<testing::Layout> layouts_for(index_t len, int axis) {
  std::array<index_t, 3> n{3, 5, 1};  // 15 lines (odd) whatever the axis
  if (axis == 0) n = {len, 5, 3};
  if (axis == 1) n = {3, len, 5};
  if (axis == 2) n = {5, 3, len};
  return {testing::Layout::dense(n), testing::Layout::padded(n)};
}

template <class T>
void stored_blocks_case(int m, index_t len, int axis, BlockGpuAlgorithm alg, bool permuted, std::mt19937& rng) {
  for (const testing::Layout& lay : layouts_for(len, axis))
    for (bool planar : {false, true}) {
      const LineSet L = lay.lines(axis);
      if (!block_gpu_unsupported_reason(alg, m, L).empty()) continue;
      std::vector<T> a, b, c;
      random_blocks<T>(m, lay.size(), permuted, rng, a, b, c);
      const std::vector<T> u = random_vectors<T>(lay, m, rng);
      const std::vector<T> want = expected<T>(m, lay, axis, BlockArrays<T>{a.data(), b.data(), c.data(), m}, u, planar);
      DeviceArray<T> da, db, dc, du;
      da.upload(a.data(), index_t(a.size()));
      db.upload(b.data(), index_t(b.size()));
      dc.upload(c.data(), index_t(c.size()));
      du.upload(u.data(), index_t(u.size()));
      const BlockArrays<T> blocks{da.p, db.p, dc.p, m};
      if (planar) solve_lines_cuda<T>(L, blocks, PlanarAccess<T>{du.p, lay.size(), m}, alg, Pivoting::partial);
      else solve_lines_cuda<T>(L, blocks, InterleavedAccess<T>{du.p, m}, alg, Pivoting::partial);
      TRIDSIM_CUDA(cudaDeviceSynchronize());
      check_close(download(du), want,
                  std::string(block_gpu_algorithm_name(alg)) + ", M = " + std::to_string(m) + ", " + lay.describe(axis) +
                      (planar ? ", planar" : ", interleaved") + (permuted ? ", needs pivoting" : ""));
    }
}

template <class T>
void stored_blocks_all(bool permuted) {
  std::mt19937 rng(permuted ? 7 : 3);
  for (BlockGpuAlgorithm alg : kAlgorithms)
    for (int m : block_sizes())
      for (index_t len : lengths())
        for (int axis = 0; axis < 3; ++axis) stored_blocks_case<T>(m, len, axis, alg, permuted, rng);
}

// Device functors of the fused case: the load forms 2 src - r/4 + q/1000, the store writes
// 3 x + src to another array.
template <class T>
struct FusedLoad {
  const T* src;
  int m;
  __device__ T operator()(index_t o, index_t q, index_t r, int s) const {
    return T(2) * src[o * m + s] - T(0.25) * T(r) + T(0.001) * T(q);
  }
};
template <class T>
struct FusedStore {
  const T* src;
  T* out;
  int m;
  __device__ void operator()(index_t o, index_t, index_t, int s, T x) const { out[o * m + s] = T(3) * x + src[o * m + s]; }
};

template <class T>
void fused_case(int m, index_t len, int axis, BlockGpuAlgorithm alg, std::mt19937& rng) {
  const testing::Layout lay = layouts_for(len, axis)[1];
  const LineSet L = lay.lines(axis);
  if (!block_gpu_unsupported_reason(alg, m, L).empty()) return;
  const HashBlocks<T> gen{m};
  std::vector<T> src = random_vectors<T>(lay, m, rng);
  // Host: the right-hand sides the load forms, by node (q, r of every node from the line bases).
  std::vector<T> rhs(src.size(), T(0)), want(src.size(), T(-7));
  const auto bases = lay.line_bases(axis);
  for (std::size_t q = 0; q < bases.size(); ++q)
    for (index_t r = 0; r < len; ++r) {
      const index_t o = bases[q] + r * lay.stride[axis];
      for (int s = 0; s < m; ++s)
        rhs[o * m + s] = T(2) * src[o * m + s] - T(0.25) * T(r) + T(0.001) * T(index_t(q));
    }
  const InterleavedAccess<T> acc{rhs.data(), m};
  reference_solve_lines<T>(m, L, gen, cpu_load(acc), cpu_store(acc), Pivoting::partial);
  for (std::size_t q = 0; q < bases.size(); ++q)
    for (index_t r = 0; r < len; ++r) {
      const index_t o = bases[q] + r * lay.stride[axis];
      for (int s = 0; s < m; ++s) want[o * m + s] = T(3) * rhs[o * m + s] + src[o * m + s];
    }
  DeviceArray<T> dsrc, dout;
  dsrc.upload(src.data(), index_t(src.size()));
  std::vector<T> init(src.size(), T(-7));
  dout.upload(init.data(), index_t(init.size()));
  gpu::solve_lines<T>(m, L, gen, FusedLoad<T>{dsrc.p, m}, FusedStore<T>{dsrc.p, dout.p, m}, alg, Pivoting::none);
  TRIDSIM_CUDA(cudaDeviceSynchronize());
  check_close(download(dout), want,
              std::string("fused, generated, ") + block_gpu_algorithm_name(alg) + ", M = " + std::to_string(m) + ", " +
                  lay.describe(axis));
}

template <class T>
CoupledDiffusionRows<T> coupled_rows(int m, index_t n, std::mt19937& rng, bool dirichlet) {
  std::uniform_real_distribution<double> u(0, 1);
  CoupledDiffusionRows<T> rows;
  rows.m = m;
  rows.n = n;
  rows.dirichlet_lo = dirichlet;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < m; ++j) rows.wd[i * m + j] = T(i == j ? 0.5 + u(rng) : 0.2 * (u(rng) - 0.5) / m);
  return rows;
}

template <class T>
void uniform_case(int m, index_t len, int axis, BlockGpuAlgorithm alg, std::mt19937& rng) {
  for (const testing::Layout& lay : layouts_for(len, axis))
    for (bool planar : {false, true}) {
      const LineSet L = lay.lines(axis);
      if (!block_gpu_unsupported_reason(alg, m, L).empty()) continue;
      const CoupledDiffusionRows<T> rows = coupled_rows<T>(m, len, rng, axis == 1);
      const std::vector<T> u = random_vectors<T>(lay, m, rng);
      const std::vector<T> want = expected<T>(m, lay, axis, rows, u, planar);
      const UniformBlocksDevice<T> U(UniformBlockMatrix<T>(m, len, rows, Pivoting::partial));
      for (int via_rows = 0; via_rows < 2; ++via_rows) {
        DeviceArray<T> du;
        du.upload(u.data(), index_t(u.size()));
        if (via_rows) {  // constant coupled diffusion: factored and cached by the host API
          if (planar) solve_lines_cuda<T>(L, rows, PlanarAccess<T>{du.p, lay.size(), m}, alg, Pivoting::partial);
          else solve_lines_cuda<T>(L, rows, InterleavedAccess<T>{du.p, m}, alg, Pivoting::partial);
        } else {
          if (planar) solve_lines_cuda<T>(L, U, PlanarAccess<T>{du.p, lay.size(), m}, alg);
          else solve_lines_cuda<T>(L, U, InterleavedAccess<T>{du.p, m}, alg);
        }
        TRIDSIM_CUDA(cudaDeviceSynchronize());
        check_close(download(du), want,
                    std::string(via_rows ? "coupled diffusion, " : "uniform, ") + block_gpu_algorithm_name(alg) +
                        ", M = " + std::to_string(m) + ", " + lay.describe(axis) + (planar ? ", planar" : ""));
      }
    }
}

template <class T>
void generated_case(int m, index_t len, int axis, BlockGpuAlgorithm alg, std::mt19937& rng) {
  const testing::Layout lay = layouts_for(len, axis)[1];
  const LineSet L = lay.lines(axis);
  if (!block_gpu_unsupported_reason(alg, m, L).empty()) return;
  const CoupledDiffusionRows<T> rows = coupled_rows<T>(m, len, rng, false);
  const HashBlocks<T> hash{m};
  const std::vector<T> u = random_vectors<T>(lay, m, rng);
  for (int which = 0; which < 2; ++which) {
    const std::vector<T> want =
        which ? expected<T>(m, lay, axis, hash, u, true) : expected<T>(m, lay, axis, rows, u, true);
    DeviceArray<T> du;
    du.upload(u.data(), index_t(u.size()));
    const PlanarAccess<T> acc{du.p, lay.size(), m};
    if (which) gpu::solve_lines<T>(m, L, hash, acc, acc, alg, Pivoting::partial);
    else gpu::solve_lines<T>(m, L, rows, acc, acc, alg, Pivoting::partial);
    TRIDSIM_CUDA(cudaDeviceSynchronize());
    check_close(download(du), want,
                std::string(which ? "per-node generator, " : "coupled diffusion on the fly, ") +
                    block_gpu_algorithm_name(alg) + ", M = " + std::to_string(m) + ", " + lay.describe(axis));
  }
}

}  // namespace

TEST_CASE_TEMPLATE("stored blocks: every kernel matches reference", T, double, float) { stored_blocks_all<T>(false); }

TEST_CASE_TEMPLATE("stored blocks needing partial pivoting: every kernel matches reference", T, double, float) {
  stored_blocks_all<T>(true);
}

TEST_CASE_TEMPLATE("generated blocks: every kernel matches reference", T, double, float) {
  std::mt19937 rng(11);
  for (BlockGpuAlgorithm alg : kAlgorithms)
    for (int m : block_sizes())
      for (index_t len : lengths())
        for (int axis = 0; axis < 3; ++axis) generated_case<T>(m, len, axis, alg, rng);
}

TEST_CASE_TEMPLATE("uniform matrices: every kernel matches reference", T, double, float) {
  std::mt19937 rng(13);
  for (BlockGpuAlgorithm alg : kAlgorithms)
    for (int m : block_sizes())
      for (index_t len : lengths())
        for (int axis = 0; axis < 3; ++axis) uniform_case<T>(m, len, axis, alg, rng);
}

TEST_CASE_TEMPLATE("fused load and store: every kernel matches reference", T, double, float) {
  std::mt19937 rng(17);
  for (BlockGpuAlgorithm alg : kAlgorithms)
    for (int m : {1, 2, 3, 5, 8})
      for (index_t len : {index_t(2), index_t(31), index_t(257)})
        for (int axis = 0; axis < 3; ++axis) fused_case<T>(m, len, axis, alg, rng);
}

TEST_CASE_TEMPLATE("block-pcr matches reference on long lines (recursive reduced system)", T, double, float) {
  std::mt19937 rng(19);
  for (int m : {2, 3, 8})
    for (index_t len : {index_t(4100), index_t(9000)}) stored_blocks_case<T>(m, len, 1, BlockGpuAlgorithm::block_pcr, false, rng);
}

TEST_CASE("unsupported block sizes are reported and refused") {
  const LineSet L = testing::Layout::dense({4, 4, 1}).lines(0);
  CHECK(!block_gpu_unsupported_reason(BlockGpuAlgorithm::work_sharing, 9, L).empty());
  CHECK(!block_gpu_unsupported_reason(BlockGpuAlgorithm::thread_per_system, 5, L).empty());
  CHECK(block_gpu_unsupported_reason(BlockGpuAlgorithm::work_sharing, 8, L).empty());
  CHECK(std::string(block_gpu_algorithm_name(BlockGpuAlgorithm::block_pcr)) == "block-pcr");
  DeviceArray<double> d;
  d.allocate(16 * 9 * 9);
  const BlockArrays<double> blocks{d.p, d.p, d.p, 9};
  CHECK_THROWS_AS(solve_lines_cuda<double>(L, blocks, InterleavedAccess<double>{d.p, 9}), Error);
  const BlockArrays<double> five{d.p, d.p, d.p, 5};
  CHECK_THROWS_AS(solve_lines_cuda<double>(L, five, InterleavedAccess<double>{d.p, 5},
                                           BlockGpuAlgorithm::thread_per_system),
                  Error);
}

int main(int argc, char** argv) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("SKIPPED: no CUDA device\n");
    return 0;
  }
  doctest::Context ctx;
  ctx.applyCommandLine(argc, argv);
  return ctx.run();
}
