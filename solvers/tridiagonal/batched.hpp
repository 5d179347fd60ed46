#pragma once
// Batched CPU tridiagonal solver (namespace tridsim::tridiag): all lines along one axis of an
// x-fastest array, in parallel over lines with OpenMP and vectorized across lines.
//  - Lines along x (contiguous): blocks of `lanes` lines are loaded as contiguous runs into a
//    per-thread buffer and swept as interleaved independent recurrences, one per line, which
//    hides each line's dependency chain (measured faster here than a local transposition).
//  - Lines along y or z: tiles of `tile` lines adjacent in x are swept together; every row of
//    the tile is one contiguous run, so the loads are unit-stride and vectorize directly.
// The right-hand side is read through `load(offset, count, out)` and the solution written
// through `store(offset, count, in)` (both on memory-contiguous runs). Callers fuse work into
// these: e.g. ADI computes the explicit right-hand side inside load and the final update
// inside store, so each sweep reads and writes each point exactly once.
#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>

#include "core/aligned.hpp"
#include "solvers/tridiagonal/coefficients.hpp"
#include "solvers/tridiagonal/cyclic_reduction.hpp"
#include "solvers/tridiagonal/line_set.hpp"

namespace tridsim::tridiag {

template <class T>
inline constexpr index_t lanes = 64 / sizeof(T);  // lines per x-block: one cache line of lanes
template <class T>
inline constexpr index_t tile = 512 / sizeof(T);  // lines per y/z tile: rows of 512 B

template <class T>
struct ArrayAccess {
  T* p;
  void load(index_t off, index_t count, T* out) const { std::memcpy(out, p + off, sizeof(T) * count); }
  void store(index_t off, index_t count, const T* in) const { std::memcpy(p + off, in, sizeof(T) * count); }
};

template <class M>
inline constexpr bool is_uniform_v = false;
template <class T>
inline constexpr bool is_uniform_v<UniformMatrix<T>> = true;

template <class M>
inline constexpr bool is_diffusion_v = false;
template <class T, FaceMean Mean>
inline constexpr bool is_diffusion_v<DiffusionCoeffs<T, Mean>> = true;

namespace detail {

// Forward elimination and back substitution on `width` interleaved lines of length n:
// element (row r, lane l) at r*width + l. Uniform matrix: the factorization is shared.
template <class T>
void sweep_uniform(const UniformMatrix<T>& M, index_t n, index_t width, T* d) {
  const T *a = M.a(), *m = M.m(), *cp = M.cp();
#pragma omp simd
  for (index_t l = 0; l < width; ++l) d[l] *= m[0];
  for (index_t r = 1; r < n; ++r) {
    T* cur = d + r * width;
    const T* prev = cur - width;
    const T ar = a[r], mr = m[r];
#pragma omp simd
    for (index_t l = 0; l < width; ++l) cur[l] = (cur[l] - ar * prev[l]) * mr;
  }
  for (index_t r = n - 2; r >= 0; --r) {
    T* cur = d + r * width;
    const T* next = cur + width;
    const T cr = cp[r];
#pragma omp simd
    for (index_t l = 0; l < width; ++l) cur[l] -= cr * next[l];
  }
}

// Forward elimination of row r (general coefficients); c is overwritten with c'.
template <class T>
inline void eliminate_row(index_t r, index_t width, const T* a, const T* b, T* c, T* d) {
  T* cr = c + r * width;
  T* dr = d + r * width;
  if (r == 0) {
#pragma omp simd
    for (index_t l = 0; l < width; ++l) {
      const T inv = T(1) / b[l];
      cr[l] *= inv;
      dr[l] *= inv;
    }
    return;
  }
#pragma omp simd
  for (index_t l = 0; l < width; ++l) {
    const T inv = T(1) / (b[l] - a[l] * cr[l - width]);
    cr[l] *= inv;
    dr[l] = (dr[l] - a[l] * dr[l - width]) * inv;
  }
}

template <class T>
inline void substitute_row(index_t r, index_t width, const T* c, T* d) {
  T* dr = d + r * width;
  const T* cr = c + r * width;
#pragma omp simd
  for (index_t l = 0; l < width; ++l) dr[l] -= cr[l] * dr[l + width];
}

// Lines along x are swept V at a time: blocks of `lanes` lines, or a line alone (V = 1: a single
// long line needs no buffer for lanes it has no line for). A thread makes its buffers when it gets
// its first block, so threads without one hold none.
template <class T, class Sweep>
void for_x_blocks(const LineSet& L, const Sweep& sweep) {
  if (L.count() == 1) sweep(std::integral_constant<index_t, 1>{});
  else sweep(std::integral_constant<index_t, lanes<T>>{});
}

template <class T, index_t V, class Load, class Store>
void solve_x_uniform_blocks(const LineSet& L, const UniformMatrix<T>& M, const Load& load, const Store& store) {
  const index_t n = L.n[0], nlines = L.count(), nblocks = (nlines + V - 1) / V;
  const T *a = M.a(), *m = M.m(), *cp = M.cp();
#pragma omp parallel
  {
    AlignedVector<T> d;
#pragma omp for schedule(static)
    for (index_t blk = 0; blk < nblocks; ++blk) {
      if (d.empty()) d.resize(n * V);
      const index_t q0 = blk * V, nl = std::min(V, nlines - q0);
      auto base = [&](index_t q) { return (q % L.n[1]) * L.stride[1] + (q / L.n[1]) * L.stride[2]; };
      for (index_t l = 0; l < nl; ++l) load(base(q0 + l), n, d.data() + l * n);
      for (index_t l = nl; l < V; ++l) std::fill(d.data() + l * n, d.data() + (l + 1) * n, T(0));  // idle lanes: finite
      T prev[V];
      for (index_t l = 0; l < V; ++l) prev[l] = d[l * n] *= m[0];
      for (index_t i = 1; i < n; ++i) {
        const T ai = a[i], mi = m[i];
        for (index_t l = 0; l < V; ++l) prev[l] = d[l * n + i] = (d[l * n + i] - ai * prev[l]) * mi;
      }
      for (index_t i = n - 2; i >= 0; --i) {
        const T ci = cp[i];
        for (index_t l = 0; l < V; ++l) prev[l] = d[l * n + i] -= ci * prev[l];
      }
      for (index_t l = 0; l < nl; ++l) store(base(q0 + l), n, d.data() + l * n);
    }
  }
}

template <class T, index_t V, class Matrix, class Load, class Store>
void solve_x_blocks(const LineSet& L, const Matrix& M, const Load& load, const Store& store) {
  const index_t n = L.n[0], nlines = L.count(), nblocks = (nlines + V - 1) / V;
#pragma omp parallel
  {
    AlignedVector<T> d, a, b, c;
#pragma omp for schedule(static)
    for (index_t blk = 0; blk < nblocks; ++blk) {
      if (d.empty())
        for (auto* v : {&d, &a, &b, &c}) v->resize(n * V);
      const index_t q0 = blk * V, nl = std::min(V, nlines - q0);
      auto base = [&](index_t q) { return (q % L.n[1]) * L.stride[1] + (q / L.n[1]) * L.stride[2]; };
      for (index_t l = 0; l < nl; ++l) {
        load(base(q0 + l), n, d.data() + l * n);
        M.load_line(base(q0 + l), n, a.data() + l * n, b.data() + l * n, c.data() + l * n);
      }
      T dp[V], cpv[V];
      for (index_t l = 0; l < nl; ++l) {
        const T inv = T(1) / b[l * n];
        cpv[l] = c[l * n] *= inv;
        dp[l] = d[l * n] *= inv;
      }
      for (index_t i = 1; i < n; ++i)
        for (index_t l = 0; l < nl; ++l) {
          const index_t k = l * n + i;
          const T inv = T(1) / (b[k] - a[k] * cpv[l]);
          cpv[l] = c[k] *= inv;
          dp[l] = d[k] = (d[k] - a[k] * dp[l]) * inv;
        }
      for (index_t i = n - 2; i >= 0; --i)
        for (index_t l = 0; l < nl; ++l) dp[l] = d[l * n + i] -= c[l * n + i] * dp[l];
      for (index_t l = 0; l < nl; ++l) store(base(q0 + l), n, d.data() + l * n);
    }
  }
}

// Uniform matrix along x: no transposition needed. A block of V lines is loaded line by line
// (contiguous runs) and swept with V independent recurrences interleaved per row, which
// hides the latency of each line's dependent chain.
template <class T, class Load, class Store>
void solve_x_uniform(const LineSet& L, const UniformMatrix<T>& M, const Load& load, const Store& store) {
  for_x_blocks<T>(L, [&](auto lanes_per_block) { solve_x_uniform_blocks<T, decltype(lanes_per_block)::value>(L, M, load, store); });
}

// General coefficients along x: the same interleaved chains, with each line's coefficients
// loaded beside its right-hand side (c is overwritten with c').
template <class T, class Matrix, class Load, class Store>
void solve_x(const LineSet& L, const Matrix& M, const Load& load, const Store& store) {
  for_x_blocks<T>(L, [&](auto lanes_per_block) { solve_x_blocks<T, decltype(lanes_per_block)::value>(L, M, load, store); });
}

template <class T, class Matrix, class Load, class Store>
void solve_yz(const LineSet& L, const Matrix& M, const Load& load, const Store& store) {
  const int axis = L.axis, other = axis == 1 ? 2 : 1;
  const index_t n = L.n[axis], s = L.stride[axis], nx = L.n[0];
  const index_t chunks = (nx + tile<T> - 1) / tile<T>, items = chunks * L.n[other];
  const index_t width = std::min(tile<T>, nx);  // the widest chunk: buffers no wider than the grid
#pragma omp parallel
  {
    AlignedVector<T> d, c, a, b;
#pragma omp for schedule(static)
    for (index_t item = 0; item < items; ++item) {
      if (d.empty()) {
        d.resize(n * width);
        if constexpr (!is_uniform_v<Matrix>) { c.resize(n * width); a.resize(width); b.resize(width); }
      }
      const index_t i0 = (item % chunks) * tile<T>, w = std::min(tile<T>, nx - i0);
      const index_t base = i0 + (item / chunks) * L.stride[other];
      if constexpr (is_uniform_v<Matrix>) {
        for (index_t r = 0; r < n; ++r) load(base + r * s, w, d.data() + r * w);
        sweep_uniform(M, n, w, d.data());
      } else {
        for (index_t r = 0; r < n; ++r) {
          load(base + r * s, w, d.data() + r * w);
          M.load_row(base + r * s, w, r, a.data(), b.data(), c.data() + r * w);
          eliminate_row(r, w, a.data(), b.data(), c.data(), d.data());
        }
        for (index_t r = n - 2; r >= 0; --r) substitute_row(r, w, c.data(), d.data());
      }
      for (index_t r = 0; r < n; ++r) store(base + r * s, w, d.data() + r * w);
    }
  }
}

// PCR or CR, one line at a time through contiguous copies (the alternatives, not the fast path).
// Like the Thomas paths, it loads and stores x-lines as whole runs.
template <class T, class Matrix, class Load, class Store>
void solve_gathered(const LineSet& L, const Matrix& M, const Load& load, const Store& store, Algorithm alg) {
  const int axis = L.axis;
  const index_t n = L.n[axis], s = L.stride[axis], nlines = L.count();
  const int o1 = axis == 0 ? 1 : 0, o2 = axis == 2 ? 1 : 2;
#pragma omp parallel
  {
    AlignedVector<T> a(n), b(n), c(n), d(n), work(cyclic_reduction_workspace(n));
    std::vector<T> full_a, full_b, full_c;
    if constexpr (is_uniform_v<Matrix>) {  // rebuild the rows from the factorization
      full_a.assign(M.a(), M.a() + n);
      full_b.resize(n); full_c.resize(n);
      for (index_t r = 0; r < n; ++r) {
        full_b[r] = T(1) / M.m()[r] + (r > 0 ? M.a()[r] * M.cp()[r - 1] : T(0));
        full_c[r] = M.cp()[r] / M.m()[r];
      }
    }
#pragma omp for schedule(static)
    for (index_t q = 0; q < nlines; ++q) {
      const index_t base = (q % L.n[o1]) * L.stride[o1] + (q / L.n[o1]) * L.stride[o2];
      if (axis == 0) load(base, n, d.data());  // an x-line is one contiguous run
      for (index_t r = 0; r < n; ++r) {
        if (axis != 0) load(base + r * s, 1, &d[r]);
        if constexpr (is_uniform_v<Matrix>) {
          a[r] = full_a[r]; b[r] = full_b[r]; c[r] = full_c[r];
        } else if (axis == 0) {
          if (r == 0) M.load_line(base, n, a.data(), b.data(), c.data());
        } else {
          M.load_row(base + r * s, 1, r, &a[r], &b[r], &c[r]);
        }
      }
      if (alg == Algorithm::pcr) pcr_solve(n, a.data(), b.data(), c.data(), d.data(), work.data());
      else cr_solve(n, a.data(), b.data(), c.data(), d.data(), work.data());
      if (axis == 0) store(base, n, d.data());
      else
        for (index_t r = 0; r < n; ++r) store(base + r * s, 1, &d[r]);
    }
  }
}

// A matrix source that describes lines of another length (or stride) would be read out of
// bounds: refuse it.
template <class Matrix>
void check_matrix(const LineSet& L, const Matrix& M) {
  if constexpr (is_uniform_v<Matrix>) {
    if (M.size() != L.length())
      throw Error("tridiagonal solver: the uniform matrix has " + std::to_string(M.size()) +
                  " rows but the lines have length " + std::to_string(L.length()));
  } else if constexpr (is_diffusion_v<Matrix>) {
    if (M.n != L.length() || M.stride != L.axis_stride())
      throw Error("tridiagonal solver: the diffusion coefficients describe lines of length " + std::to_string(M.n) +
                  " and stride " + std::to_string(M.stride) + ", not " + std::to_string(L.length()) + " and " +
                  std::to_string(L.axis_stride()));
  }
}

}  // namespace detail

// Solve every line of L with matrix source M, reading the right-hand side through `load` and
// writing the solution through `store`.
template <class T, class Matrix, class Load, class Store>
void solve_lines(const LineSet& L, const Matrix& M, const Load& load, const Store& store,
                 Algorithm alg = Algorithm::thomas) {
  if (L.length() == 0 || L.count() == 0) return;
  if (L.stride[0] != 1) throw Error("tridiagonal solver: the x stride must be 1 (x-fastest arrays)");
  detail::check_matrix(L, M);
  if (alg != Algorithm::thomas) detail::solve_gathered<T>(L, M, load, store, alg);
  else if (L.axis == 0) {
    if constexpr (is_uniform_v<Matrix>) detail::solve_x_uniform<T>(L, M, load, store);
    else detail::solve_x<T>(L, M, load, store);
  }
  else detail::solve_yz<T>(L, M, load, store);
}

// In place: d holds the right-hand sides on entry and the solutions on return.
template <class T, class Matrix>
void solve_lines(const LineSet& L, const Matrix& M, T* d, Algorithm alg = Algorithm::thomas) {
  ArrayAccess<T> access{d};
  solve_lines<T>(L, M, [&](index_t o, index_t k, T* out) { access.load(o, k, out); },
                 [&](index_t o, index_t k, const T* in) { access.store(o, k, in); }, alg);
}

}  // namespace tridsim::tridiag
