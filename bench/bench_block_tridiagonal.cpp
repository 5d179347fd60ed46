// Benchmarks of the CPU batched block-tridiagonal solver (solvers/block_tridiagonal/batched.hpp,
// block Thomas vectorized across lines), read against the machine's copy bandwidth and a banded
// LAPACK solve of the same systems (the comparison of Laszlo, Giles & Appleyard 2014).
//
//   bench_block_tridiagonal                                     # everything
//   bench_block_tridiagonal --benchmark_filter='block/double/M4'  # one block size
//   bench_block_tridiagonal --benchmark_filter=copy               # the baseline only
//
// Problem: P = 16384 systems of N = 256 block rows, block size M = 2..8, float and double.
//  - y:  lines along y of a 16384 x 256 x-fastest node array, so the P systems are x-adjacent and
//        interleaved node by node (the paper's layout: block n of system p at (n*P + p)*M*M);
//  - x:  lines along x of a 256 x 16384 array (each system contiguous), for stored blocks.
// Block sources:
//  - stored:    BlockArrays (A, B, C per node, row-major blocks interleaved per node);
//  - generated: CoupledDiffusionRows (constant coupled diffusion, blocks made on the fly);
//  - uniform:   UniformBlockMatrix (the same matrix factored once);
//  - lapack_gbsv: LAPACKE_?gbsv (kl = ku = 2M-1) on the stored matrices of the first 1024 systems
//    (name "1024of16384"), one system per call, systems spread over the OpenMP threads; the time
//    is for those 1024 only and unknowns/s is per unknown actually solved. The band matrices
//    are assembled before timing and restored (untimed) after each iteration, as gbsv overwrites
//    them with their LU factors.
// The right-hand side d (interleaved M-vectors) is read and the solution written to a separate x
// through InterleavedAccess load/store, so every iteration solves the same problem.
//
// Counters: unknowns/s (N*P*M per solve), bytes/s on the MINIMAL traffic per block row:
//   stored            (3M^2 + 2M) words (A, B, C, d read, x written)
//   generated/uniform 2M words          (d read, x written)
// to be read against copy/omp/* of the same run (bench/copy_baseline.hpp).
#include <benchmark/benchmark.h>
#include <lapacke.h>
#include <omp.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bench/copy_baseline.hpp"
#include "core/coupled_diffusion.hpp"
#include "core/types.hpp"
#include "solvers/block_tridiagonal/batched.hpp"
#include "solvers/block_tridiagonal/uniform_blocks.hpp"

namespace {

using namespace tridsim;
using namespace tridsim::blocktri;
using namespace tridsim::bench;

constexpr index_t kP = 16384, kN = 256, kLapackSystems = 1024;

// A deterministic value in [0, 1) for element i.
inline double hash01(index_t i) { return double((std::uint64_t(i) * 2654435761u) % 1000u) / 1000.0; }

enum class Axis { x, y };

// The lines of each case (x-fastest arrays of kP * kN nodes).
LineSet lines(Axis axis) {
  return axis == Axis::y ? LineSet{{kP, kN, 1}, {1, kP, kP * kN}, 1} : LineSet{{kN, kP, 1}, {1, kN, kN * kP}, 0};
}

// The arrays of one (T, M), shared by both axes (same node count): d and x always, the stored
// blocks when first asked for; the last one built is kept and freed before the next is built
// (M = 8 double stored is ~7 GB). Fields of tridsim live in AlignedVector (core/aligned.hpp:
// 2 MiB aligned, marked for transparent huge pages); so do these.
template <class T>
struct Problem {
  int m;
  index_t nodes = kP * kN;
  AlignedVector<T> d, x, a, b, c;

  explicit Problem(int m_) : m(m_) {
    d.resize(nodes * m);  // value-initialized serially; then rewritten in parallel below
    x.resize(nodes * m);
    T *D = d.data(), *X = x.data();
    const index_t count = nodes * m;
#pragma omp parallel for schedule(static)
    for (index_t i = 0; i < count; ++i) {
      D[i] = T(hash01(i) - 0.5);
      X[i] = T(0);
    }
  }
  // Row-dominant random blocks: |B_ii| = 1 + sum of the other |entries| of its row.
  BlockArrays<T> blocks() {
    const index_t mm = index_t(m) * m;
    if (a.empty()) {
      a.resize(nodes * mm);
      b.resize(nodes * mm);
      c.resize(nodes * mm);
      T *A = a.data(), *B = b.data(), *C = c.data();
      const int M = m;
#pragma omp parallel for schedule(static)
      for (index_t o = 0; o < nodes; ++o)
        for (int i = 0; i < M; ++i) {
          T sum = 0;
          for (int j = 0; j < M; ++j) {
            const index_t k = o * mm + i * M + j;
            A[k] = T(-0.5 * hash01(k + 1) / M);
            C[k] = T(-0.5 * hash01(k + 2) / M);
            B[k] = T(i == j ? 0.0 : 0.5 * (hash01(k + 3) - 0.5) / M);
            sum += std::abs(A[k]) + std::abs(B[k]) + std::abs(C[k]);
          }
          B[o * mm + i * M + i] = T(1) + sum;
        }
    }
    return {a.data(), b.data(), c.data(), m};
  }
};

template <class T>
Problem<T>& problem(int m) {
  static std::unique_ptr<Problem<T>> cached;
  if (!cached || cached->m != m) {
    cached.reset();  // free the old arrays first
    cached = std::make_unique<Problem<T>>(m);
  }
  return *cached;
}

// Constant coupled diffusion: w D with D row-dominant (positive diagonal), Neumann ends.
template <class T>
CoupledDiffusionRows<T> diffusion_rows(int m) {
  CoupledDiffusionRows<T> rows;
  rows.m = m;
  rows.n = kN;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < m; ++j) rows.wd[i * m + j] = T(i == j ? 0.6 : 0.1 / m);
  return rows;
}

enum class Source { stored, generated, uniform };
const char* name_of(Source s) {
  return s == Source::stored ? "stored" : s == Source::generated ? "generated" : "uniform";
}

template <class T>
void set_counters(benchmark::State& state, int m, index_t systems, double words_per_row) {
  const double rows = double(systems) * double(kN);
  state.counters["unknowns/s"] = benchmark::Counter(rows * m, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["bytes/s"] =
      benchmark::Counter(rows * words_per_row * double(sizeof(T)), benchmark::Counter::kIsIterationInvariantRate);
}

template <class T>
void bm_block(benchmark::State& state, int m, Axis axis, Source src) {
  Problem<T>& P = problem<T>(m);
  const LineSet L = lines(axis);
  const InterleavedAccess<T> din{P.d.data(), m}, xout{P.x.data(), m};
  auto load = [din](index_t o, index_t k, T* out) { din.load(o, k, out); };
  auto store = [xout](index_t o, index_t k, const T* in) { xout.store(o, k, in); };
  auto run = [&](const auto& blocks) {
    solve_lines<T>(m, L, blocks, load, store, Pivoting::partial);  // warm-up
    for (auto _ : state) {
      solve_lines<T>(m, L, blocks, load, store, Pivoting::partial);
      benchmark::ClobberMemory();
    }
  };
  switch (src) {
    case Source::stored: run(P.blocks()); break;
    case Source::generated: run(diffusion_rows<T>(m)); break;
    case Source::uniform: run(UniformBlockMatrix<T>(m, kN, diffusion_rows<T>(m))); break;
  }
  set_counters<T>(state, m, kP, src == Source::stored ? 3.0 * m * m + 2.0 * m : 2.0 * m);
}

inline lapack_int gbsv(lapack_int n, lapack_int kl, lapack_int ku, double* ab, lapack_int ldab, lapack_int* ipiv,
                       double* b) {
  return LAPACKE_dgbsv_work(LAPACK_COL_MAJOR, n, kl, ku, 1, ab, ldab, ipiv, b, n);
}
inline lapack_int gbsv(lapack_int n, lapack_int kl, lapack_int ku, float* ab, lapack_int ldab, lapack_int* ipiv,
                       float* b) {
  return LAPACKE_sgbsv_work(LAPACK_COL_MAJOR, n, kl, ku, 1, ab, ldab, ipiv, b, n);
}

// The first kLapackSystems systems of the y problem (stored blocks) as band matrices.
template <class T>
void bm_lapack(benchmark::State& state, int m) {
  Problem<T>& P = problem<T>(m);
  const BlockArrays<T> blocks = P.blocks();
  const index_t N = kN * m, mm = index_t(m) * m;
  const int kl = 2 * m - 1, ku = kl, ldab = 2 * kl + ku + 1;
  const index_t band = index_t(ldab) * N;
  std::vector<T> ab0(kLapackSystems * band, T(0)), ab(kLapackSystems * band), rhs0(kLapackSystems * N),
      rhs(kLapackSystems * N);
  std::vector<lapack_int> ipiv(kLapackSystems * N);
#pragma omp parallel for schedule(static)
  for (index_t p = 0; p < kLapackSystems; ++p) {
    T* A = ab0.data() + p * band;
    auto put = [&](index_t I, index_t J, T v) { A[(kl + ku + I - J) + J * ldab] = v; };
    for (index_t r = 0; r < kN; ++r) {
      const index_t o = r * kP + p;  // node (p, r), x-fastest
      for (int i = 0; i < m; ++i) {
        rhs0[p * N + r * m + i] = P.d[o * m + i];
        for (int j = 0; j < m; ++j) {
          const index_t k = o * mm + i * m + j;
          if (r > 0) put(r * m + i, (r - 1) * m + j, blocks.a[k]);
          put(r * m + i, r * m + j, blocks.b[k]);
          if (r + 1 < kN) put(r * m + i, (r + 1) * m + j, blocks.c[k]);
        }
      }
    }
  }
  bool ok = true;
  for (auto _ : state) {
    state.PauseTiming();
    std::memcpy(ab.data(), ab0.data(), sizeof(T) * ab.size());
    std::memcpy(rhs.data(), rhs0.data(), sizeof(T) * rhs.size());
    state.ResumeTiming();
#pragma omp parallel for schedule(static) reduction(&& : ok)
    for (index_t p = 0; p < kLapackSystems; ++p)
      ok = ok && gbsv(lapack_int(N), kl, ku, ab.data() + p * band, ldab, ipiv.data() + p * N, rhs.data() + p * N) == 0;
    benchmark::ClobberMemory();
  }
  if (!ok) state.SkipWithError("gbsv failed");
  set_counters<T>(state, m, kLapackSystems, 3.0 * m * m + 2.0 * m);
}

template <class T>
void register_all(const char* tname) {
  for (int m = 2; m <= 8; ++m) {
    const std::string pre = std::string("block/") + tname + "/M" + std::to_string(m) + "/";
    // Registered so that each (T, M) allocates its arrays once: y solves, LAPACK, then x.
    for (Source src : {Source::generated, Source::uniform, Source::stored})
      benchmark::RegisterBenchmark((pre + name_of(src) + "/y").c_str(),
                                   [m, src](benchmark::State& st) { bm_block<T>(st, m, Axis::y, src); })
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    benchmark::RegisterBenchmark((pre + "lapack_gbsv/y/1024of16384").c_str(),
                                 [m](benchmark::State& st) { bm_lapack<T>(st, m); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime()
        ->Iterations(1);
    benchmark::RegisterBenchmark((pre + "stored/x").c_str(),
                                 [m](benchmark::State& st) { bm_block<T>(st, m, Axis::x, Source::stored); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
}

}  // namespace

int main(int argc, char** argv) {
  register_copy_baselines();
  register_all<double>("double");
  register_all<float>("float");
  benchmark::AddCustomContext("omp_max_threads", std::to_string(omp_get_max_threads()));
  benchmark::AddCustomContext("lapack", "LAPACKE_?gbsv_work, one system per call, OpenMP over systems");
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
