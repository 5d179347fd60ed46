#pragma once
// Block cyclic reduction, radix 2 and 4 (namespace tridsim::cr), for the shifted Poisson problem
//   (-Lap_h + sigma) u = f,  sigma >= 0,
// on a box of mx x my (x mz) interior nodes with zero Dirichlet values outside, 5- / 7-point
// stencil, x-fastest arrays (node (i,j,k) at i + mx*(j + my*k)). Any sizes, not only 2^k - 1.
//
// Formulation (Myllykoski, Rossi & Toivanen 2013, sec. 2; Rossi & Toivanen 1999): the slowest
// axis carries n block rows  -u_{j-1} + D u_j - u_{j+1} = g_j  (g = h^2 f, D = 2I + h^2(L' + sigma),
// L' the operator of the faster axes). Level r keeps the rows that are multiples of q^r (q the
// radix). Between two kept rows a < b lies an interval of m = b - a - 1 rows whose matrix is
// K_m (x) I + I (x) (D - 2I), K_m = tridiag(-1, 2, -1); K_m's eigenvectors are sines, so
//   [T_m^{-1} v]_p = sum_j (w_j)_p (D - 2I + lambda_j I)^{-1} sum_s (w_j)_s v_s,
//   lambda_j = 2 - 2 cos(j pi/(m+1)),  (w_j)_s = sqrt(2/(m+1)) sin(j s pi/(m+1)).
// Reduction (r = 1..R): the right-hand side of level r-1 is nonzero inside an interval only at
// the q-1 rows of level r-1 it contains, so each kept row gains the partial solutions of its two
// neighbouring intervals at their end rows: one sub-problem (D - 2I + lambda_j) per nonzero j.
// Back substitution (r = R+1..1): the rows of level r-1 inside an interval follow from the same
// expansion with the (now known) end rows as extra right-hand side. Every sub-problem is a
// shifted problem one dimension lower with a positive shift: tridiagonal in 2D (solved across
// W interleaved shifts at once), a 2D problem of the same kind in 3D (recursion).
// For m = 2^k - 1 and q = 2 this produces exactly the sub-problems of the partial-fraction
// expansion of radix-2 BCR (the paper's Remark 1); the sines are bounded and every sub-problem
// is an M-matrix, so it is as stable as Buneman's variant, for every interval size.
// Arithmetic: O(N log N) (2D), O(N log^2 n) (3D), N the number of nodes.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <vector>

#include <omp.h>

#include "core/aligned.hpp"
#include "core/errors.hpp"
#include "core/types.hpp"
#include "solvers/cyclic_reduction/bcr_levels.hpp"

namespace tridsim::cr {


// Sub-problem solver of the 2D method: rows along x of length mx, matrix
// tridiag(-rho, base + shift_l, -rho), W shifts at a time, interleaved (element i of lane l at
// i*W + l) so that the W recurrences vectorize. Results are accumulated per lane and output
// row (acc), and reduced across lanes once per interval.
template <class T>
struct TridiagLanes {
  static constexpr int W = 128 / int(sizeof(T));
  index_t len = 0;
  T rho = 0, base = 0;
  struct Work {
    AlignedVector<T> e, d, acc;  // e = -c' (Thomas), d = d', acc: nout x len x W
  };
  index_t block() const { return len; }
  Work make_work() const { return Work{AlignedVector<T>(len * W), AlignedVector<T>(len * W), AlignedVector<T>(3 * len * W)}; }
  void begin(Work& w, int nout) const { std::fill(w.acc.begin(), w.acc.begin() + nout * len * W, T(0)); }
  // Lanes l < nl: v_l = (tridiag(-rho, base + shift_l, -rho))^{-1} sum_k cin[k][l] in[k];
  // acc[o] += cout[o][l] v_l. The sweep runs V = W/4, W/2 or W lanes, the fewest that hold nl
  // (small intervals have few shifts); idle lanes carry zeros.
  void batch(Work& w, int nl, const double* shift, int nin, const T* const* in, const double* cin, int nout,
             const double* cout) const {
    if (nl <= W / 4) sweep<W / 4>(w, nl, shift, nin, in, cin, nout, cout);
    else if (nl <= W / 2) sweep<W / 2>(w, nl, shift, nin, in, cin, nout, cout);
    else sweep<W>(w, nl, shift, nin, in, cin, nout, cout);
  }
  template <int V>
  void sweep(Work& w, int nl, const double* shift, int nin, const T* const* in, const double* cin, int nout,
             const double* cout) const {
    alignas(64) T diag[V], ci[5][V], co[3][V], x[V];
    for (int l = 0; l < V; ++l) diag[l] = base + (l < nl ? T(shift[l]) : T(1));  // idle lanes: dominant, finite
    for (int k = 0; k < nin; ++k)
      for (int l = 0; l < V; ++l) ci[k][l] = l < nl ? T(cin[k * W + l]) : T(0);
    for (int o = 0; o < nout; ++o)
      for (int l = 0; l < V; ++l) co[o][l] = l < nl ? T(cout[o * W + l]) : T(0);
    T* e = w.e.data();
    T* d = w.d.data();
    const T r = rho;
    for (index_t i = 0; i < len; ++i) {  // forward elimination, element i of lane l at i*V + l
      T* ei = e + i * V;
      T* di = d + i * V;
      T vin[5] = {};
      for (int k = 0; k < nin; ++k) vin[k] = in[k][i];
      alignas(64) T rhs[V];
#pragma omp simd
      for (int l = 0; l < V; ++l) rhs[l] = ci[0][l] * vin[0];
      for (int k = 1; k < nin; ++k)
#pragma omp simd
        for (int l = 0; l < V; ++l) rhs[l] += ci[k][l] * vin[k];
      if (i == 0) {
#pragma omp simd
        for (int l = 0; l < V; ++l) {
          const T inv = T(1) / diag[l];
          ei[l] = r * inv;
          di[l] = rhs[l] * inv;
        }
      } else {
        const T* ep = ei - V;
        const T* dp = di - V;
#pragma omp simd
        for (int l = 0; l < V; ++l) {
          const T inv = T(1) / (diag[l] - r * ep[l]);
          ei[l] = r * inv;
          di[l] = (rhs[l] + r * dp[l]) * inv;
        }
      }
    }
    for (int l = 0; l < V; ++l) x[l] = 0;
    for (index_t i = len - 1; i >= 0; --i) {  // back substitution, summed into the accumulators
      const T* ei = e + i * V;
      const T* di = d + i * V;
#pragma omp simd
      for (int l = 0; l < V; ++l) x[l] = di[l] + ei[l] * x[l];
      for (int o = 0; o < nout; ++o) {
        T* a = w.acc.data() + (o * len + i) * W;
#pragma omp simd
        for (int l = 0; l < V; ++l) a[l] += co[o][l] * x[l];
      }
    }
  }
  // out[o][i] += sum over lanes of acc[o][i].
  void finish(Work& w, int nout, T* const* out) const {
    for (int o = 0; o < nout; ++o)
      for (index_t i = 0; i < len; ++i) {
        const T* a = w.acc.data() + (o * len + i) * W;
        T s = 0;
#pragma omp simd reduction(+ : s)
        for (int l = 0; l < W; ++l) s += a[l];
        out[o][i] += s;
      }
  }
};

// The block cyclic reduction over the slowest axis: n block rows of Lanes::block() elements,
// g (in: h^2 f, out: u) in place. Lanes solves the sub-problems (see TridiagLanes).
// parallel: spread the work over the OpenMP threads (false inside a 3D sub-problem).
template <class T, class Lanes>
void bcr_solve(index_t n, int q, const Lanes& lanes, T* g, bool parallel) {
  if (n <= 0) return;
  if (q != 2 && q != 4) throw Error("block cyclic reduction: radix must be 2 or 4");
  constexpr int W = Lanes::W;
  const index_t blk = lanes.block();
  auto row = [&](index_t r) { return g + (r - 1) * blk; };  // 1-based block rows
  const int R = detail::top_level(n, q);
  const int nthreads = parallel ? omp_get_max_threads() : 1;

  // The nonzero shifts of an interval: j with (w_j)_s != 0 for some row s inside it.
  auto active = [](const detail::Interval& iv) {
    std::vector<index_t> js;
    for (index_t j = 1; j <= iv.m; ++j)
      for (int s = 0; s < iv.nsub; ++s)
        if ((j * (iv.sub[s] - iv.a)) % (iv.m + 1) != 0) {
          js.push_back(j);
          break;
        }
    return js;
  };
  // One batch of shifts of an interval: reduction (back = false) adds the partial solutions at
  // the interval's end rows to acc; back substitution adds the solution at its inner rows.
  // `inner` holds the level-below right-hand sides of the inner rows (a copy when back).
  auto run_batch = [&](typename Lanes::Work& w, const detail::Interval& iv, const std::vector<index_t>& js,
                       index_t j0, const T* const* inner, bool back) {
    const int nl = int(std::min<index_t>(W, index_t(js.size()) - j0));
    double shift[W] = {}, cin[5 * W] = {}, cout[3 * W] = {};
    const T* in[5];
    int nin = 0, nout = 0;
    for (int s = 0; s < iv.nsub; ++s) in[nin++] = inner[s];
    const bool has_a = iv.a >= 1, has_b = iv.b <= n;
    if (back && has_a) in[nin++] = row(iv.a);
    if (back && has_b) in[nin++] = row(iv.b);
    nout = back ? iv.nsub : int(has_a) + int(has_b);
    for (int l = 0; l < nl; ++l) {
      const index_t j = js[j0 + l];
      shift[l] = detail::k_eigenvalue(iv.m, j);
      int k = 0;
      for (int s = 0; s < iv.nsub; ++s) cin[(k++) * W + l] = detail::sine_weight(iv.m, j, iv.sub[s] - iv.a);
      if (back && has_a) cin[(k++) * W + l] = detail::sine_weight(iv.m, j, 1);
      if (back && has_b) cin[(k++) * W + l] = detail::sine_weight(iv.m, j, iv.m);
      int o = 0;
      if (back) {
        for (int s = 0; s < iv.nsub; ++s) cout[(o++) * W + l] = detail::sine_weight(iv.m, j, iv.sub[s] - iv.a);
      } else {
        if (has_a) cout[(o++) * W + l] = detail::sine_weight(iv.m, j, 1);
        if (has_b) cout[(o++) * W + l] = detail::sine_weight(iv.m, j, iv.m);
      }
    }
    lanes.batch(w, nl, shift, nin, in, cin, nout, cout);
    return nout;
  };
  auto outputs = [&](const detail::Interval& iv, bool back, T** out) {
    int k = 0;
    if (back) {
      for (int s = 0; s < iv.nsub; ++s) out[k++] = row(iv.sub[s]);
    } else {
      if (iv.a >= 1) out[k++] = row(iv.a);
      if (iv.b <= n) out[k++] = row(iv.b);
    }
    return k;
  };

  auto level = [&](int r, bool back) {
    const std::vector<detail::Interval> ivs = detail::level_intervals(n, q, r);
    if (ivs.empty()) return;
    const index_t nint = index_t(ivs.size());
    if (nint >= 2 * nthreads) {
      // Many intervals: one task per interval. In the reduction neighbouring intervals share an
      // end row, so even and odd intervals go in two phases.
#pragma omp parallel if (parallel)
      {
        typename Lanes::Work w = lanes.make_work();
        AlignedVector<T> copy(back ? 3 * blk : 0);
        for (int phase = 0; phase < (back ? 1 : 2); ++phase) {
          const index_t step = back ? 1 : 2;
#pragma omp for schedule(dynamic, 1)
          for (index_t t = back ? 0 : phase; t < nint; t += step) {
            const detail::Interval& iv = ivs[t];
            const std::vector<index_t> js = active(iv);
            const T* inner[3];
            for (int s = 0; s < iv.nsub; ++s) {
              if (back) {
                std::memcpy(copy.data() + s * blk, row(iv.sub[s]), sizeof(T) * blk);
                inner[s] = copy.data() + s * blk;
              } else {
                inner[s] = row(iv.sub[s]);
              }
            }
            T* out[3];
            const int nout = outputs(iv, back, out);
            lanes.begin(w, nout);
            for (index_t j0 = 0; j0 < index_t(js.size()); j0 += W) run_batch(w, iv, js, j0, inner, back);
            if (back)
              for (int o = 0; o < nout; ++o) std::fill(out[o], out[o] + blk, T(0));
            lanes.finish(w, nout, out);
          }
        }
      }
      return;
    }
    // Few intervals (the top levels): their batches of shifts are spread over the threads, each
    // summing into its own accumulators, which are then added to the rows one thread at a time.
    // One parallel region per level: the machine may be shared, and barriers are expensive then.
    std::vector<std::vector<index_t>> js(ivs.size());
    std::vector<std::array<const T*, 3>> inner(ivs.size());
    std::vector<std::array<T*, 3>> out(ivs.size());
    std::vector<int> nout(ivs.size());
    AlignedVector<T> copy(back ? 3 * blk * nint : 0);
    for (index_t t = 0; t < nint; ++t) {
      const detail::Interval& iv = ivs[t];
      js[t] = active(iv);
      for (int s = 0; s < iv.nsub; ++s) {
        if (back) {
          T* c = copy.data() + (3 * t + s) * blk;
          std::memcpy(c, row(iv.sub[s]), sizeof(T) * blk);
          inner[t][s] = c;
        } else {
          inner[t][s] = row(iv.sub[s]);
        }
      }
      nout[t] = outputs(iv, back, out[t].data());
      if (back)
        for (int o = 0; o < nout[t]; ++o) std::fill(out[t][o], out[t][o] + blk, T(0));
    }
#pragma omp parallel if (parallel)
    {
      // A fixed share of the batches per thread, and the threads' sums added in thread order:
      // the result is the same from run to run (for a given number of threads).
      typename Lanes::Work w = lanes.make_work();
      const int me = omp_get_thread_num(), nth = omp_get_num_threads();
      for (index_t t = 0; t < nint; ++t) {
        const index_t nbatch = (index_t(js[t].size()) + W - 1) / W;
        const index_t b0 = nbatch * me / nth, b1 = nbatch * (me + 1) / nth;
        lanes.begin(w, nout[t]);
        for (index_t b = b0; b < b1; ++b) run_batch(w, ivs[t], js[t], b * W, inner[t].data(), back);
        for (int k = 0; k < nth; ++k) {
#pragma omp barrier
          if (k == me && b1 > b0) lanes.finish(w, nout[t], out[t].data());
        }
      }
    }
  };

  for (int r = 1; r <= R; ++r) level(r, false);
  for (int r = R + 1; r >= 1; --r) level(r, true);
}

// 2D: (-Lap_h + sigma) u = f on mx x my interior nodes, spacings hx, hy; f in, u out.
template <class T>
void helmholtz_2d(index_t mx, index_t my, double hx, double hy, double sigma, T* f, int radix = 2,
                  bool parallel = true) {
  if (mx <= 0 || my <= 0) return;
  const index_t size = mx * my;
  const T scale = T(hy * hy);
#pragma omp parallel for simd if (parallel)
  for (index_t i = 0; i < size; ++i) f[i] *= scale;
  TridiagLanes<T> lanes;
  lanes.len = mx;
  lanes.rho = T(hy * hy / (hx * hx));
  lanes.base = T(2 * hy * hy / (hx * hx) + hy * hy * sigma);
  bcr_solve<T>(my, radix, lanes, f, parallel);
}

// Sub-problem solver of the 3D method: a whole xy plane, one shift at a time, by the 2D method.
template <class T>
struct PlaneLanes {
  static constexpr int W = 1;
  index_t mx = 0, my = 0;
  double hx = 0, hy = 0, hz = 0, sigma = 0;
  int radix = 2;
  struct Work {
    AlignedVector<T> v, acc;
  };
  index_t block() const { return mx * my; }
  Work make_work() const { return Work{AlignedVector<T>(block()), AlignedVector<T>(3 * block())}; }
  void begin(Work& w, int nout) const { std::fill(w.acc.begin(), w.acc.begin() + nout * block(), T(0)); }
  void batch(Work& w, int /*nl*/, const double* shift, int nin, const T* const* in, const double* cin, int nout,
             const double* cout) const {
    const index_t nb = block();
    const T inv_hz2 = T(1 / (hz * hz));
    T* v = w.v.data();
    std::fill(v, v + nb, T(0));
    for (int k = 0; k < nin; ++k) {
      const T c = T(cin[k]) * inv_hz2;
#pragma omp simd
      for (index_t i = 0; i < nb; ++i) v[i] += c * in[k][i];
    }
    // (h_z^2 (-Lap_xy + sigma) + lambda) v = rhs  <=>  (-Lap_xy + sigma + lambda/h_z^2) v = rhs/h_z^2
    helmholtz_2d<T>(mx, my, hx, hy, sigma + shift[0] / (hz * hz), v, radix, false);
    for (int o = 0; o < nout; ++o) {
      const T c = T(cout[o]);
      T* a = w.acc.data() + o * nb;
#pragma omp simd
      for (index_t i = 0; i < nb; ++i) a[i] += c * v[i];
    }
  }
  void finish(Work& w, int nout, T* const* out) const {
    const index_t nb = block();
    for (int o = 0; o < nout; ++o) {
      const T* a = w.acc.data() + o * nb;
#pragma omp simd
      for (index_t i = 0; i < nb; ++i) out[o][i] += a[i];
    }
  }
};

// 3D: (-Lap_h + sigma) u = f on mx x my x mz interior nodes; BCR along z whose sub-problems
// are 2D problems solved by BCR along y (the recursive method of the paper).
template <class T>
void helmholtz_3d(index_t mx, index_t my, index_t mz, double hx, double hy, double hz, double sigma, T* f,
                  int radix = 2, bool parallel = true) {
  if (mx <= 0 || my <= 0 || mz <= 0) return;
  const index_t size = mx * my * mz;
  const T scale = T(hz * hz);
#pragma omp parallel for simd if (parallel)
  for (index_t i = 0; i < size; ++i) f[i] *= scale;
  PlaneLanes<T> lanes;
  lanes.mx = mx;
  lanes.my = my;
  lanes.hx = hx;
  lanes.hy = hy;
  lanes.hz = hz;
  lanes.sigma = sigma;
  lanes.radix = radix;
  bcr_solve<T>(mz, radix, lanes, f, parallel);
}

}  // namespace tridsim::cr
