#pragma once
// Batched cyclic (periodic) tridiagonal lines on the CPU (namespace tridsim::tridiag): row r of a
// line of n >= 3 rows reads
//   a_r x_{r-1} + b_r x_r + c_r x_{r+1} = d_r,   x_{-1} = x_{n-1}, x_n = x_0,
// so a_0 and c_{n-1} are the wrap-around coefficients (ignored by solve_lines, used here).
// Method: with x_0 moved to the right-hand side, rows 1..n-1 are an ordinary tridiagonal system T;
// x_r = p_r + x_0 q_r for r >= 1, where T p = d_{1..n-1} and T q = u, u = (-a_1, 0, ..., 0, -c_{n-1});
// row 0 then gives x_0 = (d_0 - c_0 p_1 - a_0 p_{n-1}) / (b_0 + c_0 q_1 + a_0 q_{n-1}). For rows
// shared by every line (CyclicUniformMatrix) T is factored and q solved once; back substitution is
// linear, so p_1 = sum_r g_r d'_r (d' the forward-eliminated d, g_r fixed by T) is summed during
// the forward sweep, x_0 is known when it ends, and the backward sweep forms x directly,
// x_r = d'_r + x_0 u'_r - c'_r x_{r+1}: a line costs two sweeps over its buffer, as a Thomas solve
// does. For per-line rows p and q share T's elimination, and a third pass forms x.
// Lines, load, store and row sources (load_line / load_row, a_0 and c_{n-1} included) are those of
// batched.hpp, swept in the same blocks and tiles: each element loaded once and stored once.
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "solvers/tridiagonal/batched.hpp"

namespace tridsim::tridiag {

namespace detail {

// Where element (row r, lane l) of a buffer of lines sits: rows of y/z tiles are contiguous runs of
// `lanes` (Interleaved: the loops over lanes vectorize); x lines are copied whole (LineMajor: the
// lanes' independent recurrences interleave, as in batched.hpp's x blocks).
struct Interleaved {
  index_t lanes;
  index_t operator()(index_t r, index_t l) const { return r * lanes + l; }
};
struct LineMajor {
  index_t n;
  index_t operator()(index_t r, index_t l) const { return l * n + r; }
};

// f(l) for every lane: vectorized across the lanes of interleaved rows; in turn over line-major
// lanes (a vector of them would be a gather). A width that is a std::integral_constant unrolls.
template <class At, class Width, class F>
inline void for_lanes(const At&, Width width, const F& f) {
  if constexpr (std::is_same_v<At, Interleaved>) {
#pragma omp simd
    for (index_t l = 0; l < index_t(width); ++l) f(l);
  } else {
    for (index_t l = 0; l < index_t(width); ++l) f(l);
  }
}

// Rows 1..n-1 hold p, `q(r, l)` gives q_r: x_0 from row 0 (x0(l) of the lane), then x_r = p_r + x_0 q_r
// (over line-major lanes line by line, so that the runs vectorize).
template <class T, class At, class X0, class Q>
inline void combine(index_t n, index_t width, const At& at, T* d, const X0& x0, const Q& q) {
  for_lanes(at, width, [&](index_t l) { d[at(0, l)] = x0(l); });
  if constexpr (std::is_same_v<At, Interleaved>) {
    for (index_t r = 1; r < n; ++r)
#pragma omp simd
      for (index_t l = 0; l < width; ++l) d[at(r, l)] += d[at(0, l)] * q(r, l);
  } else {
    for (index_t l = 0; l < width; ++l) {
      const T x = d[at(0, l)];
#pragma omp simd
      for (index_t r = 1; r < n; ++r) d[at(r, l)] += x * q(r, l);
    }
  }
}

}  // namespace detail

// One cyclic matrix shared by every line: T factored, q and row 0 kept.
template <class T>
class CyclicUniformMatrix {
 public:
  CyclicUniformMatrix() = default;
  CyclicUniformMatrix(const std::vector<T>& a, const std::vector<T>& b, const std::vector<T>& c) {
    const std::size_t n = a.size();
    if (b.size() != n || c.size() != n) throw Error("cyclic tridiagonal matrix: a, b and c must have the same length");
    if (n < 3) throw Error("cyclic tridiagonal matrix: needs at least 3 rows, not " + std::to_string(n));
    interior_ = UniformMatrix<T>(std::vector<T>(a.begin() + 1, a.end()), std::vector<T>(b.begin() + 1, b.end()),
                                 std::vector<T>(c.begin() + 1, c.end()));
    q_.assign(n, T(0));  // (row 0 unused)
    q_[1] = -a[1];
    q_[n - 1] = -c[n - 1];
    // u' (u forward-eliminated) and g (p_1 = sum g_r d'_r), then q (u' substituted back).
    const T *ta = interior_.a(), *tm = interior_.m(), *tcp = interior_.cp();
    uf_.assign(n, T(0));
    g_.assign(n, T(0));
    uf_[1] = q_[1] * tm[0];
    g_[1] = 1;
    // Both decay geometrically from row 1 (u' but for its last row): below the smallest normal
    // number they are 0, and the sweeps skip the rows from g_end_ and u_end_ on.
    auto flush = [](T v) { return std::abs(v) < std::numeric_limits<T>::min() ? T(0) : v; };
    for (std::size_t r = 2; r < n; ++r) {
      uf_[r] = flush((q_[r] - ta[r - 1] * uf_[r - 1]) * tm[r - 1]);
      g_[r] = flush(-tcp[r - 2] * g_[r - 1]);
      if (g_[r] != T(0)) g_end_ = index_t(r) + 1;
      if (uf_[r] != T(0) && r + 1 < n) u_end_ = index_t(r) + 1;
    }
    q_[n - 1] = uf_[n - 1];
    for (std::size_t r = n - 2; r >= 1; --r) q_[r] = uf_[r] - tcp[r - 1] * q_[r + 1];
    a0_ = a[0];
    c0_ = c[0];
    const T pivot = b[0] + c0_ * q_[1] + a0_ * q_[n - 1];
    if (pivot == T(0)) throw SingularMatrix("cyclic tridiagonal matrix is singular (zero pivot in row 0)");
    inv0_ = T(1) / pivot;
  }
  index_t size() const { return interior_.size() + 1; }

  // Widest buffer solve() takes: a y/z tile.
  static constexpr index_t max_width = tile<T>;

  // Solves `width` (<= max_width; a std::integral_constant for x blocks, so that the lanes' chains
  // unroll into registers) lines of a buffer (element (r, l) at at(r, l)) in place.
  template <class Width, class At>
  void solve(Width width, const At& at, T* d) const {
    const index_t n = size();
    const T *a = interior_.a(), *m = interior_.m(), *cp = interior_.cp(), *g = g_.data(), *uf = uf_.data();
    constexpr index_t cap = [] {  // a constant width: arrays of that size, which stay in registers
      if constexpr (std::is_integral_v<Width>) return max_width;
      else return index_t(Width::value);
    }();
    T prev[cap], sum[cap], x0[cap];
    detail::for_lanes(at, width, [&](index_t l) { sum[l] = prev[l] = d[at(1, l)] *= m[0]; });
    for (index_t r = 2; r < n; ++r) {  // forward: d', and p_1's sum
      const T ar = a[r - 1], mr = m[r - 1], gr = g[r];
      if (r < g_end_)
        detail::for_lanes(at, width, [&](index_t l) {
          prev[l] = d[at(r, l)] = (d[at(r, l)] - ar * prev[l]) * mr;
          sum[l] += gr * prev[l];
        });
      else
        detail::for_lanes(at, width, [&](index_t l) { prev[l] = d[at(r, l)] = (d[at(r, l)] - ar * prev[l]) * mr; });
    }
    const T ul = uf[n - 1];
    detail::for_lanes(at, width, [&](index_t l) {  // prev: p_{n-1}
      x0[l] = d[at(0, l)] = (d[at(0, l)] - c0_ * sum[l] - a0_ * prev[l]) * inv0_;
      prev[l] = d[at(n - 1, l)] += x0[l] * ul;
    });
    for (index_t r = n - 2; r >= 1; --r) {  // backward: x itself
      const T cr = cp[r - 1], ur = uf[r];
      if (r < u_end_) detail::for_lanes(at, width, [&](index_t l) { prev[l] = d[at(r, l)] += x0[l] * ur - cr * prev[l]; });
      else detail::for_lanes(at, width, [&](index_t l) { prev[l] = d[at(r, l)] -= cr * prev[l]; });
    }
  }

 private:
  UniformMatrix<T> interior_;  // T: rows 1..n-1, factored
  AlignedVector<T> q_;         // q_1 .. q_{n-1} at 1 .. n-1
  AlignedVector<T> uf_, g_;    // u' and the weights of p_1, at 1 .. n-1
  index_t g_end_ = 2, u_end_ = 2;  // g_r = 0 from g_end_ on; u'_r = 0 from u_end_ to n - 2
  T a0_ = 0, c0_ = 0, inv0_ = 0;
};

// The constant-coefficient rows of a periodic DiffusionCoeffs line (I - w_kappa D2) as one factored
// cyclic matrix.
template <class T>
CyclicUniformMatrix<T> cyclic_diffusion_matrix(index_t n, T w_kappa) {
  std::vector<T> a(n), b(n), c(n), ones(n, T(1));
  const DiffusionCoeffs<T> s{ones.data(), w_kappa, 1, n, BoundaryKind::periodic, BoundaryKind::periodic};
  s.load_line(0, n, a.data(), b.data(), c.data());
  return CyclicUniformMatrix<T>(a, b, c);
}

template <class M>
inline constexpr bool is_cyclic_uniform_v = false;
template <class T>
inline constexpr bool is_cyclic_uniform_v<CyclicUniformMatrix<T>> = true;

namespace detail {

// Per-line rows in a, b, c (same layout as d): eliminates rows 1..n-1 for d and for u (into q),
// substitutes back, then forms x from row 0, whose coefficients are left as they are. c is
// overwritten with T's c'.
template <class T, class At>
void sweep_cyclic(index_t n, index_t width, const At& at, const T* a, const T* b, T* c, T* d, T* q) {
  for (index_t r = 1; r < n; ++r) {
    const bool first = r == 1, last = r == n - 1;
    for_lanes(at, width, [&](index_t l) {
      const index_t k = at(r, l), kp = at(r - 1, l);
      const T ar = first ? T(0) : a[k];  // row 1's a_1 couples x_0: it is in u
      const T u = (first ? -a[k] : T(0)) + (last ? -c[k] : T(0));
      const T inv = T(1) / (b[k] - (first ? T(0) : ar * c[kp]));
      c[k] = last ? T(0) : c[k] * inv;
      d[k] = (d[k] - (first ? T(0) : ar * d[kp])) * inv;
      q[k] = (u - (first ? T(0) : ar * q[kp])) * inv;
    });
  }
  for (index_t r = n - 2; r >= 1; --r)
    for_lanes(at, width, [&](index_t l) {
      const index_t k = at(r, l), kn = at(r + 1, l);
      d[k] -= c[k] * d[kn];
      q[k] -= c[k] * q[kn];
    });
  combine<T>(
      n, width, at, d,
      [&](index_t l) {
        const index_t k0 = at(0, l), k1 = at(1, l), kl = at(n - 1, l);
        return (d[k0] - c[k0] * d[k1] - a[k0] * d[kl]) / (b[k0] + c[k0] * q[k1] + a[k0] * q[kl]);
      },
      [&](index_t r, index_t l) { return q[at(r, l)]; });
}

template <class T, class Matrix, class At>
void solve_cyclic_buffer(const Matrix& M, index_t n, index_t width, const At& at, T* d, T* a, T* b, T* c, T* q) {
  if constexpr (is_cyclic_uniform_v<Matrix>) M.solve(width, at, d);
  else sweep_cyclic(n, width, at, a, b, c, d, q);
}

// x lines `lanes` at a time, each a contiguous run of the buffer; y/z lines `tile` x-adjacent ones
// per tile, each row of the tile one run.
template <class T, class Matrix, class Load, class Store>
void solve_cyclic_tiles(const LineSet& L, const Matrix& M, const Load& load, const Store& store) {
  const int axis = L.axis, o2 = axis == 2 ? 1 : 2;
  const index_t n = L.length(), s = L.axis_stride();
  const index_t width = axis == 0 ? std::min(lanes<T>, L.count()) : std::min(tile<T>, L.n[0]);
  const index_t per_plane = (L.n[0] + width - 1) / width;  // (y/z)
  const index_t items = axis == 0 ? (L.count() + width - 1) / width : per_plane * L.n[o2];
  constexpr bool shared = is_cyclic_uniform_v<Matrix>;
#pragma omp parallel
  {
    AlignedVector<T> d, a, b, c, q;
#pragma omp for schedule(static)
    for (index_t item = 0; item < items; ++item) {
      if (d.empty()) {
        d.resize(n * width);
        if constexpr (!shared)
          for (auto* v : {&a, &b, &c, &q}) v->resize(n * width);
      }
      if (axis == 0) {
        const index_t q0 = item * width, w = std::min(width, L.count() - q0);
        auto base = [&](index_t line) { return (line % L.n[1]) * L.stride[1] + (line / L.n[1]) * L.stride[2]; };
        for (index_t l = 0; l < w; ++l) {
          load(base(q0 + l), n, d.data() + l * n);
          if constexpr (!shared) M.load_line(base(q0 + l), n, a.data() + l * n, b.data() + l * n, c.data() + l * n);
        }
        if (shared && width == lanes<T>) {  // a whole block: its chains unroll (idle lanes solve zeros)
          std::fill(d.data() + w * n, d.data() + width * n, T(0));
          if constexpr (shared) M.solve(std::integral_constant<index_t, lanes<T>>{}, LineMajor{n}, d.data());
        } else {
          solve_cyclic_buffer(M, n, w, LineMajor{n}, d.data(), a.data(), b.data(), c.data(), q.data());
        }
        for (index_t l = 0; l < w; ++l) store(base(q0 + l), n, d.data() + l * n);
      } else {
        const index_t i0 = (item % per_plane) * width, w = std::min(width, L.n[0] - i0);
        const index_t base = i0 + (item / per_plane) * L.stride[o2];
        for (index_t r = 0; r < n; ++r) {
          load(base + r * s, w, d.data() + r * w);
          if constexpr (!shared) M.load_row(base + r * s, w, r, a.data() + r * w, b.data() + r * w, c.data() + r * w);
        }
        solve_cyclic_buffer(M, n, w, Interleaved{w}, d.data(), a.data(), b.data(), c.data(), q.data());
        for (index_t r = 0; r < n; ++r) store(base + r * s, w, d.data() + r * w);
      }
    }
  }
}

}  // namespace detail

// Solve every line of L as a cyclic system: M a CyclicUniformMatrix or a row source whose a_0 and
// c_{n-1} are the wrap-around coefficients; the right-hand side through `load`, the solution
// through `store` (batched.hpp's contract).
template <class T, class Matrix, class Load, class Store>
void solve_cyclic_lines(const LineSet& L, const Matrix& M, const Load& load, const Store& store) {
  if (L.length() == 0 || L.count() == 0) return;
  if (L.stride[0] != 1) throw Error("cyclic tridiagonal solver: the x stride must be 1 (x-fastest arrays)");
  if (L.length() < 3)
    throw Error("cyclic tridiagonal solver: periodic lines need at least 3 points, not " + std::to_string(L.length()));
  if constexpr (is_cyclic_uniform_v<Matrix>)
    if (M.size() != L.length())
      throw Error("cyclic tridiagonal solver: the matrix has " + std::to_string(M.size()) +
                  " rows but the lines have length " + std::to_string(L.length()));
  detail::solve_cyclic_tiles<T>(L, M, load, store);
}

// In place: d holds the right-hand sides on entry and the solutions on return.
template <class T, class Matrix>
void solve_cyclic_lines(const LineSet& L, const Matrix& M, T* d) {
  ArrayAccess<T> access{d};
  solve_cyclic_lines<T>(L, M, [&](index_t o, index_t k, T* out) { access.load(o, k, out); },
                        [&](index_t o, index_t k, const T* in) { access.store(o, k, in); });
}

}  // namespace tridsim::tridiag
