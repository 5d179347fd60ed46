#pragma once
// Batched CPU block-tridiagonal solver (namespace tridsim::blocktri): the block Thomas algorithm of
// reference.hpp (Laszlo, Giles & Appleyard 2014, Algorithm 12) on every line of a LineSet, parallel
// over tiles of lines with OpenMP and vectorized ACROSS lines: a "pack" of V lines (one vector
// register of the target: with AVX-512 8 double or 16 float, with AVX 4 or 8, else 2 or 4) runs the
// same block operations lane by lane.
//  - Scratch is laid out [entry][lane], lane fastest (entry e of lane l at e*V + l), so every
//    block operation is one vector operation on V lines; per-lane choices (pivot rows) are
//    selects, never branches.
//  - The block size M is a template parameter 1..8 (loops unrolled, blocks in registers) picked
//    from the runtime m; larger m runs the same code with runtime loops.
//  - Lines along x (contiguous): V lines are loaded whole into a per-thread buffer (like the
//    scalar solve_x) and transposed to [row][component][lane]; stored blocks are read row by row
//    from the V lines.
//  - Lines along y/z: tiles of x-adjacent lines; every row of a tile is one contiguous run of
//    nodes, so right-hand sides, solutions and stored blocks move as contiguous runs.
//  - UniformBlockMatrix: the factorization is shared (uniform_blocks.hpp), only the right-hand
//    side and the solution stream.
// Arrays are x-fastest (node (i,j,k) at i*stride[0] + j*stride[1] + k*stride[2]); stored blocks
// and interleaved vectors are per node (block_rows.hpp). Padding between lines is never touched.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/aligned.hpp"
#include "core/errors.hpp"
#include "solvers/block_tridiagonal/block_rows.hpp"
#include "solvers/block_tridiagonal/dense_block.hpp"
#include "solvers/block_tridiagonal/uniform_blocks.hpp"

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace tridsim::blocktri {

namespace detail {

// One register of V lanes (GCC/Clang vector extensions), as wide as the target's registers.
#if defined(__AVX512F__)
#define TRIDSIM_BLOCK_VECTOR_BYTES 64
#elif defined(__AVX__)
#define TRIDSIM_BLOCK_VECTOR_BYTES 32
#else
#define TRIDSIM_BLOCK_VECTOR_BYTES 16
#endif
template <class T>
struct Simd;
template <>
struct Simd<double> {
  typedef double vec __attribute__((vector_size(TRIDSIM_BLOCK_VECTOR_BYTES)));
  typedef long long mask __attribute__((vector_size(TRIDSIM_BLOCK_VECTOR_BYTES)));
};
template <>
struct Simd<float> {
  typedef float vec __attribute__((vector_size(TRIDSIM_BLOCK_VECTOR_BYTES)));
  typedef int mask __attribute__((vector_size(TRIDSIM_BLOCK_VECTOR_BYTES)));
};
template <class T>
using vec_t = typename Simd<T>::vec;
template <class T>
using mask_t = typename Simd<T>::mask;
template <class T>
inline constexpr int kLanes = int(TRIDSIM_BLOCK_VECTOR_BYTES / sizeof(T));

// Scratch is plain T (no aliasing questions); these move one pack of lanes in or out.
template <class T>
inline vec_t<T> ld(const T* p) {
  vec_t<T> v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class T>
inline void st(T* p, vec_t<T> v) {
  std::memcpy(p, &v, sizeof v);
}
template <class V>
inline V vabs(V x) {
  return x < 0 ? -x : x;
}
template <class Mask>
inline bool any(Mask k) {
#if defined(__AVX512F__)
  const __m512i b = (__m512i)k;
  return _mm512_test_epi64_mask(b, b) != 0;
#else
  constexpr int n = sizeof(Mask) / sizeof(k[0]);
  auto acc = k[0];
  for (int l = 1; l < n; ++l) acc |= k[l];
  return acc != 0;
#endif
}

template <class B>
inline constexpr bool is_block_arrays_v = false;
template <class T>
inline constexpr bool is_block_arrays_v<BlockArrays<T>> = true;
template <class B>
inline constexpr bool is_uniform_v = false;
template <class T>
inline constexpr bool is_uniform_v<UniformBlockMatrix<T>> = true;

// Register work space of one pack row: P (m x m) and R = [rhs | C] (m x (m+1)), row-major.
// M = 0: runtime m (heap).
template <class T, int M>
struct Work {
  vec_t<T> P[M * M], R[M * (M + 1)];
  Work(int) {}
  vec_t<T>* p() { return P; }
  vec_t<T>* r() { return R; }
};
template <class T>
struct Work<T, 0> {
  std::vector<vec_t<T>> P, R;
  explicit Work(int m) : P(std::size_t(m) * m), R(std::size_t(m) * (m + 1)) {}
  vec_t<T>* p() { return P.data(); }
  vec_t<T>* r() { return R.data(); }
};

// Forward step of block Thomas on one pack row:
//   P = B_r - A_r Cs_{r-1},  [ds_r | Cs_r] = P^{-1} [d_r - A_r ds_{r-1} | C_r]
// Blocks A, B, C and Cs are [entry][lane] (entry i*m+j), ds [component][lane]; the right-hand
// side d has component s at d + s*dstride. Gaussian elimination with one reciprocal per pivot;
// Piv: partial pivoting inside P, rows exchanged per lane by selects (skipped when no lane needs
// it). `bad` collects lanes with a zero pivot. WithC = false on the last row (C_{n-1} unused).
template <class T, int M, bool Piv, bool WithC>
inline void forward_row(int m_rt, bool first, const T* A, const T* B, const T* C, const T* d, index_t dstride,
                        const T* csp, const T* dsp, T* cs, T* ds, vec_t<T>* P, vec_t<T>* R, mask_t<T>& bad) {
  using vec = vec_t<T>;
  constexpr int V = kLanes<T>;
  const int m = M ? M : m_rt;
  const int nc = WithC ? m + 1 : 1;
#pragma GCC unroll 8
  for (int i = 0; i < m; ++i) {
#pragma GCC unroll 8
    for (int j = 0; j < m; ++j) {
      vec s = ld(B + (i * m + j) * V);
      if (!first) {
#pragma GCC unroll 8
        for (int k = 0; k < m; ++k) s -= ld(A + (i * m + k) * V) * ld(csp + (k * m + j) * V);
      }
      P[i * m + j] = s;
    }
    vec s = ld(d + i * dstride);
    if (!first) {
#pragma GCC unroll 8
      for (int k = 0; k < m; ++k) s -= ld(A + (i * m + k) * V) * ld(dsp + k * V);
    }
    R[i * nc] = s;
    if constexpr (WithC) {
#pragma GCC unroll 8
      for (int j = 0; j < m; ++j) R[i * nc + 1 + j] = ld(C + (i * m + j) * V);
    }
  }
#pragma GCC unroll 8
  for (int k = 0; k < m; ++k) {
    if constexpr (Piv) {
      const vec pk = vabs(P[k * m + k]);
      mask_t<T> need{};
#pragma GCC unroll 8
      for (int i = k + 1; i < m; ++i) need |= vabs(P[i * m + k]) > pk;
      if (any(need)) {
        // Successive compare-exchanges leave the largest |entry| of column k in row k.
        for (int i = k + 1; i < m; ++i) {
          const mask_t<T> sw = vabs(P[i * m + k]) > vabs(P[k * m + k]);
          if (!any(sw)) continue;
          for (int j = k; j < m; ++j) {
            const vec x = P[k * m + j], y = P[i * m + j];
            P[k * m + j] = sw ? y : x;
            P[i * m + j] = sw ? x : y;
          }
          for (int j = 0; j < nc; ++j) {
            const vec x = R[k * nc + j], y = R[i * nc + j];
            R[k * nc + j] = sw ? y : x;
            R[i * nc + j] = sw ? x : y;
          }
        }
      }
    }
    const vec pk = P[k * m + k];
    bad |= pk == T(0);
    const vec inv = T(1) / pk;
#pragma GCC unroll 8
    for (int j = k + 1; j < m; ++j) P[k * m + j] *= inv;
#pragma GCC unroll 9
    for (int j = 0; j < nc; ++j) R[k * nc + j] *= inv;
#pragma GCC unroll 8
    for (int i = k + 1; i < m; ++i) {
      const vec f = P[i * m + k];
#pragma GCC unroll 8
      for (int j = k + 1; j < m; ++j) P[i * m + j] -= f * P[k * m + j];
#pragma GCC unroll 9
      for (int j = 0; j < nc; ++j) R[i * nc + j] -= f * R[k * nc + j];
    }
  }
#pragma GCC unroll 8
  for (int k = m - 1; k > 0; --k) {
#pragma GCC unroll 8
    for (int i = 0; i < k; ++i) {
      const vec f = P[i * m + k];
#pragma GCC unroll 9
      for (int j = 0; j < nc; ++j) R[i * nc + j] -= f * R[k * nc + j];
    }
  }
#pragma GCC unroll 8
  for (int i = 0; i < m; ++i) {
    st(ds + i * V, R[i * nc]);
    if constexpr (WithC) {
#pragma GCC unroll 8
      for (int j = 0; j < m; ++j) st(cs + (i * m + j) * V, R[i * nc + 1 + j]);
    }
  }
}

// Backward step on one pack row: x_r = ds_r - Cs_r x_{r+1}, overwriting ds_r (x_{r+1} sits in
// the next row's ds). Cs: [entry][lane] per lane, or one shared row-major block (Shared).
template <class T, int M, bool Shared>
inline void backward_row(int m_rt, const T* cs, T* ds, const T* xn) {
  using vec = vec_t<T>;
  constexpr int V = kLanes<T>;
  const int m = M ? M : m_rt;
#pragma GCC unroll 8
  for (int i = 0; i < m; ++i) {
    vec s = ld(ds + i * V);
#pragma GCC unroll 8
    for (int j = 0; j < m; ++j) {
      if constexpr (Shared) s -= cs[i * m + j] * ld(xn + j * V);
      else s -= ld(cs + (i * m + j) * V) * ld(xn + j * V);
    }
    st(ds + i * V, s);
  }
}

// Uniform matrix, forward: ds_r = Pinv_r d_r - G_r ds_{r-1} (shared row-major blocks). ds may
// be d itself (x lines), hence the result goes through tmp (m registers).
template <class T, int M>
inline void uniform_forward_row(int m_rt, bool first, const T* pinv, const T* g, const T* d, index_t dstride,
                                const T* dsp, T* ds, vec_t<T>* tmp) {
  using vec = vec_t<T>;
  constexpr int V = kLanes<T>;
  const int m = M ? M : m_rt;
#pragma GCC unroll 8
  for (int i = 0; i < m; ++i) {
    vec s{};
#pragma GCC unroll 8
    for (int j = 0; j < m; ++j) s += pinv[i * m + j] * ld(d + j * dstride);
    if (!first) {
#pragma GCC unroll 8
      for (int j = 0; j < m; ++j) s -= g[i * m + j] * ld(dsp + j * V);
    }
    tmp[i] = s;
  }
#pragma GCC unroll 8
  for (int i = 0; i < m; ++i) st(ds + i * V, tmp[i]);
}

// In-register transpose of V x V (rows[l][k] -> rows[k][l]): log2(V) butterfly stages; stage b
// exchanges bit b of the row index with bit b of the column index.
template <class Vec, int B, int V, std::size_t... K>
inline void butterfly_stage(Vec& a, Vec& c, std::index_sequence<K...>) {
  const Vec lo = __builtin_shufflevector(a, c, (K & B ? int(V + K - B) : int(K))...);
  const Vec hi = __builtin_shufflevector(a, c, (K & B ? int(V + K) : int(K + B))...);
  a = lo;
  c = hi;
}
template <class T>
inline void transpose_lanes(vec_t<T>* rows) {
  constexpr int V = kLanes<T>;
  auto stage = [&](auto b) {
    constexpr int B = decltype(b)::value;
    for (int i = 0; i < V; ++i)
      if (!(i & B)) butterfly_stage<vec_t<T>, B, V>(rows[i], rows[i + B], std::make_index_sequence<V>{});
  };
  stage(std::integral_constant<int, 1>{});
  if constexpr (V > 2) stage(std::integral_constant<int, 2>{});
  if constexpr (V > 4) stage(std::integral_constant<int, 4>{});
  if constexpr (V > 8) stage(std::integral_constant<int, 8>{});
}

// Stored blocks of V lanes, lane l's block at src + off[l]*mm (contiguous, row-major) ->
// dst[e*V + l]: V entries at a time through an in-register transpose, the rest one by one.
template <class T>
inline void gather_blocks(const T* src, int mm, const index_t* off, T* dst) {
  constexpr int V = kLanes<T>;
  const T* p[V];
  for (int l = 0; l < V; ++l) p[l] = src + off[l] * mm;
  int e0 = 0;
  for (; e0 + V <= mm; e0 += V) {
    vec_t<T> rows[V];
    for (int l = 0; l < V; ++l) rows[l] = ld(p[l] + e0);
    transpose_lanes<T>(rows);
    for (int k = 0; k < V; ++k) st(dst + (e0 + k) * V, rows[k]);
  }
  for (int e = e0; e < mm; ++e)
    for (int l = 0; l < V; ++l) dst[e * V + l] = p[l][e];
}

// The blocks A, B, C of row r for the V lanes at node offsets off[] ([entry][lane]); A is not
// read on row 0 nor C on the last row (the contract never uses them).
template <class T, class Blocks>
inline void fill_blocks(const Blocks& blocks, int m, index_t r, index_t n, const index_t* off, T* A, T* B, T* C) {
  constexpr int V = kLanes<T>;
  const int mm = m * m;
  if constexpr (is_block_arrays_v<Blocks>) {
    if (r > 0) gather_blocks(blocks.a, mm, off, A);
    gather_blocks(blocks.b, mm, off, B);
    if (r + 1 < n) gather_blocks(blocks.c, mm, off, C);
  } else {
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < m; ++j) {
        const int e = i * m + j;
#pragma omp simd
        for (int l = 0; l < V; ++l) blocks.entry(off[l], r, i, j, A[e * V + l], B[e * V + l], C[e * V + l]);
      }
  }
}

// Blocks of a contiguous run of V nodes o, o+1, ... (a full pack of a y/z tile row).
template <class T, class Blocks>
inline void fill_blocks_run(const Blocks& blocks, int m, index_t r, index_t n, index_t o, T* A, T* B, T* C) {
  constexpr int V = kLanes<T>;
  index_t off[V];
  for (int l = 0; l < V; ++l) off[l] = o + l;
  fill_blocks<T>(blocks, m, r, n, off, A, B, C);
}

// Hint the next row's stored blocks of a y/z tile into cache (rows of a tile are far apart in
// memory, too far for the hardware prefetchers to follow).
template <class T, class Blocks>
inline void prefetch_row(const Blocks& blocks, int m, index_t o, index_t count) {
  if constexpr (is_block_arrays_v<Blocks>) {
    const index_t mm = index_t(m) * m, bytes = count * mm * index_t(sizeof(T));
    const char* p[3] = {reinterpret_cast<const char*>(blocks.a + o * mm),
                        reinterpret_cast<const char*>(blocks.b + o * mm),
                        reinterpret_cast<const char*>(blocks.c + o * mm)};
    for (const char* q : p)
      for (index_t k = 0; k < bytes; k += 64) __builtin_prefetch(q + k);
  }
}

// Small solves run on the calling thread: waking a team costs more than they take.
inline bool worth_threads(const LineSet& L, int m) {
  return double(L.length()) * double(L.count()) * double(m) * m >= double(1 << 16);
}

// Lines along y or z: tiles of W = packs*V x-adjacent lines; row r of a tile is the run of w
// nodes at base + r*s. Idle lanes of the last pack copy the pack's first lane (finite, solvable).
template <class T, int M, bool Piv, class Blocks, class Load, class Store>
void solve_yz(int m, const LineSet& L, const Blocks& blocks, const Load& load, const Store& store, bool& singular) {
  constexpr int V = kLanes<T>;
  constexpr bool uniform = is_uniform_v<Blocks>;
  const int axis = L.axis, other = axis == 1 ? 2 : 1;
  const index_t n = L.n[axis], s = L.stride[axis], nx = L.n[0], mm = index_t(m) * m;
  // Scratch per pack: Cs and ds of every row. Enough packs for rows of about 1 KB per array,
  // within about half the L2 (a row of one pack of big blocks is already large).
  const index_t per_pack = n * ((uniform ? 0 : mm) + m) * V * index_t(sizeof(T));
  const index_t row_bytes = (uniform ? m : mm) * V * index_t(sizeof(T));
  index_t packs = std::max<index_t>(1, std::min<index_t>(1024 / row_bytes, (512 << 10) / per_pack));
  packs = std::min(packs, (nx + V - 1) / V);
  const index_t W = packs * V, chunks = (nx + W - 1) / W, items = chunks * L.n[other];
  const index_t pack_cs = n * mm * V, pack_ds = n * m * V;
  std::atomic<bool> bad_any{false};
#pragma omp parallel if (worth_threads(L, m))
  {
    AlignedVector<T> cs(uniform ? 0 : packs * pack_cs), ds(packs * pack_ds), row(m * W), blk(uniform ? 0 : 3 * mm * V);
    Work<T, M> work(m);
    mask_t<T> bad{};
#pragma omp for schedule(static)
    for (index_t item = 0; item < items; ++item) {
      const index_t i0 = (item % chunks) * W, w = std::min(W, nx - i0);
      const index_t base = i0 + (item / chunks) * L.stride[other], np = (w + V - 1) / V;
      // Right-hand side rows come as load(o, w, out): component c of lane l at out[c*w + l];
      // spread to stride W and fill idle lanes.
      auto load_row = [&](index_t o) {
        load(o, w, row.data());
        if (w < W) {
          for (index_t c = m - 1; c >= 0; --c)
            for (index_t l = w - 1; l >= 0; --l) row[c * W + l] = row[c * w + l];
          for (index_t c = 0; c < m; ++c)
            for (index_t l = w; l < np * V; ++l) row[c * W + l] = row[c * W + (l / V) * V];
        }
      };
      for (index_t r = 0; r < n; ++r) {
        const index_t o = base + r * s;
        load_row(o);
        if (r + 1 < n) prefetch_row<T>(blocks, m, o + s, w);
        for (index_t p = 0; p < np; ++p) {
          T* dsr = ds.data() + p * pack_ds + r * m * V;
          const T* dsp = r > 0 ? dsr - m * V : dsr;  // unused on row 0
          if constexpr (uniform) {
            uniform_forward_row<T, M>(m, r == 0, blocks.pinv() + r * mm, blocks.g() + r * mm, row.data() + p * V, W,
                                      dsp, dsr, work.r());
          } else {
            T *A = blk.data(), *B = A + mm * V, *C = B + mm * V;
            const index_t lw = std::min<index_t>(V, w - p * V);
            if (lw == V) {
              fill_blocks_run<T>(blocks, m, r, n, o + p * V, A, B, C);
            } else {
              index_t off[V];
              for (index_t l = 0; l < V; ++l) off[l] = o + p * V + (l < lw ? l : 0);
              fill_blocks<T>(blocks, m, r, n, off, A, B, C);
            }
            T* csr = cs.data() + p * pack_cs + r * mm * V;
            const T* csp = r > 0 ? csr - mm * V : csr;
            if (r + 1 < n)
              forward_row<T, M, Piv, true>(m, r == 0, A, B, C, row.data() + p * V, W, csp, dsp, csr, dsr, work.p(),
                                            work.r(), bad);
            else
              forward_row<T, M, Piv, false>(m, r == 0, A, B, C, row.data() + p * V, W, csp, dsp, csr, dsr, work.p(),
                                             work.r(), bad);
          }
        }
      }
      for (index_t r = n - 1; r >= 0; --r) {
        for (index_t p = 0; p < np; ++p) {
          T* dsr = ds.data() + p * pack_ds + r * m * V;
          if (r + 1 < n) {
            if constexpr (uniform) backward_row<T, M, true>(m, blocks.cs() + r * mm, dsr, dsr + m * V);
            else backward_row<T, M, false>(m, cs.data() + p * pack_cs + r * mm * V, dsr, dsr + m * V);
          }
          for (index_t c = 0; c < m; ++c)  // solution row, component-major with count w
            for (index_t l = 0; l < std::min<index_t>(V, w - p * V); ++l) row[c * w + p * V + l] = dsr[c * V + l];
        }
        store(base + r * s, w, row.data());
      }
    }
    if (any(bad)) bad_any = true;
  }
  singular = bad_any;
}

// Lines along x: packs of V lines, each a contiguous run loaded whole (load(o, n, out)), kept as
// [row][component][lane] in `d` (ds and finally x overwrite it in place).
template <class T, int M, bool Piv, class Blocks, class Load, class Store>
void solve_x(int m, const LineSet& L, const Blocks& blocks, const Load& load, const Store& store, bool& singular) {
  constexpr int V = kLanes<T>;
  constexpr bool uniform = is_uniform_v<Blocks>;
  const index_t n = L.n[0], nlines = L.count(), npacks = (nlines + V - 1) / V, mm = index_t(m) * m;
  std::atomic<bool> bad_any{false};
#pragma omp parallel if (worth_threads(L, m))
  {
    AlignedVector<T> line(V * m * n), d(n * m * V), cs(uniform ? 0 : n * mm * V), blk(uniform ? 0 : 3 * mm * V);
    Work<T, M> work(m);
    mask_t<T> bad{};
#pragma omp for schedule(static)
    for (index_t pk = 0; pk < npacks; ++pk) {
      const index_t q0 = pk * V, nl = std::min<index_t>(V, nlines - q0);
      index_t base[V];
      for (index_t l = 0; l < V; ++l) {
        const index_t q = q0 + (l < nl ? l : 0);  // idle lanes repeat line q0
        base[l] = (q % L.n[1]) * L.stride[1] + (q / L.n[1]) * L.stride[2];
      }
      for (index_t l = 0; l < nl; ++l) load(base[l], n, line.data() + l * m * n);
      for (index_t r = 0; r < n; ++r)
        for (index_t c = 0; c < m; ++c)
#pragma omp simd
          for (index_t l = 0; l < V; ++l) d[(r * m + c) * V + l] = line[((l < nl ? l : 0) * m + c) * n + r];
      index_t off[V];
      for (index_t r = 0; r < n; ++r) {
        T* dr = d.data() + r * m * V;
        const T* dp = r > 0 ? dr - m * V : dr;  // unused on row 0
        if constexpr (uniform) {
          uniform_forward_row<T, M>(m, r == 0, blocks.pinv() + r * mm, blocks.g() + r * mm, dr, V, dp, dr, work.r());
        } else {
          T *A = blk.data(), *B = A + mm * V, *C = B + mm * V;
          for (index_t l = 0; l < V; ++l) off[l] = base[l] + r;
          fill_blocks<T>(blocks, m, r, n, off, A, B, C);
          T* csr = cs.data() + r * mm * V;
          const T* cp = r > 0 ? csr - mm * V : csr;
          if (r + 1 < n)
            forward_row<T, M, Piv, true>(m, r == 0, A, B, C, dr, V, cp, dp, csr, dr, work.p(), work.r(), bad);
          else
            forward_row<T, M, Piv, false>(m, r == 0, A, B, C, dr, V, cp, dp, csr, dr, work.p(), work.r(), bad);
        }
      }
      for (index_t r = n - 2; r >= 0; --r) {
        T* dr = d.data() + r * m * V;
        if constexpr (uniform) backward_row<T, M, true>(m, blocks.cs() + r * mm, dr, dr + m * V);
        else backward_row<T, M, false>(m, cs.data() + r * mm * V, dr, dr + m * V);
      }
      for (index_t l = 0; l < nl; ++l) {
        T* out = line.data() + l * m * n;
        for (index_t c = 0; c < m; ++c)
          for (index_t r = 0; r < n; ++r) out[c * n + r] = d[(r * m + c) * V + l];
        store(base[l], n, out);
      }
    }
    if (any(bad)) bad_any = true;
  }
  singular = bad_any;
}

template <class T, int M, class Blocks, class Load, class Store>
void solve_fixed(int m, const LineSet& L, const Blocks& blocks, const Load& load, const Store& store,
                 Pivoting pivoting) {
  bool singular = false;
  auto run = [&](auto piv) {
    constexpr bool P = decltype(piv)::value;
    if (L.axis == 0) solve_x<T, M, P>(m, L, blocks, load, store, singular);
    else solve_yz<T, M, P>(m, L, blocks, load, store, singular);
  };
  if (is_uniform_v<Blocks> || pivoting == Pivoting::none) run(std::false_type{});  // uniform: factored already
  else run(std::true_type{});
  if (singular)
    throw singular_pivot_block("block-tridiagonal solver", -1, pivoting);
}

}  // namespace detail

// Solve every line of L (block size m, M-vectors per node) with block source `blocks`
// (BlockArrays<T>, a generator with entry(o, r, i, j, a, b, c), or UniformBlockMatrix<T>),
// reading the right-hand side through load(o, count, out) and writing the solution through
// store(o, count, in) (component-major runs of x-adjacent nodes, block_rows.hpp).
// Throws Error on bad input and when a pivot block is singular (after the whole solve).
template <class T, class Blocks, class Load, class Store>
void solve_lines(int m, const LineSet& L, const Blocks& blocks, const Load& load, const Store& store,
                 Pivoting pivoting = Pivoting::partial) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "block-tridiagonal solver: float or double");
  if (m < 1) throw Error("block-tridiagonal solver: block size m must be at least 1, not " + std::to_string(m));
  if (L.axis < 0 || L.axis > 2) throw Error("block-tridiagonal solver: axis must be 0, 1 or 2");
  if (L.stride[0] != 1) throw Error("block-tridiagonal solver: the x stride must be 1 (x-fastest arrays)");
  if (L.length() == 0 || L.count() == 0) return;
  if constexpr (detail::is_uniform_v<Blocks>) {
    if (blocks.m() != m || blocks.size() != L.length())
      throw Error("block-tridiagonal solver: the uniform matrix has " + std::to_string(blocks.size()) +
                  " block rows of size " + std::to_string(blocks.m()) + " but the lines have length " +
                  std::to_string(L.length()) + " and block size " + std::to_string(m));
  } else if constexpr (detail::is_block_arrays_v<Blocks>) {
    if (blocks.m != m)
      throw Error("block-tridiagonal solver: the block arrays hold blocks of size " + std::to_string(blocks.m) +
                  ", not " + std::to_string(m));
  }
  auto fixed = [&](auto M) { detail::solve_fixed<T, decltype(M)::value>(m, L, blocks, load, store, pivoting); };
  if (!with_fixed_block_size(m, fixed)) fixed(std::integral_constant<int, 0>{});  // runtime m
}

// In place on one interleaved array of M-vectors: u[o*m + s] is component s of node o; u holds
// the right-hand sides on entry and the solutions on return.
template <class T, class Blocks>
void solve_lines(int m, const LineSet& L, const Blocks& blocks, T* u, Pivoting pivoting = Pivoting::partial) {
  InterleavedAccess<T> access{u, m};
  solve_lines<T>(
      m, L, blocks, [&](index_t o, index_t k, T* out) { access.load(o, k, out); },
      [&](index_t o, index_t k, const T* in) { access.store(o, k, in); }, pivoting);
}

}  // namespace tridsim::blocktri
