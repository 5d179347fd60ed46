#pragma once
// The paper's algorithm A2 on the CPU (namespace tridsim::rec): d is viewed as the s x r array of
// Figure 1 (column j = the contiguous segment j*s .. j*s+s-1; the last column may be shorter, so
// any m works). The steps are those of the paper, regrouped so that the array is read twice and
// written once (the minimum for a two-pass method) instead of three read-writes:
//   pass 1 (1A, read only)  per column: its sum S_j (the bottom row after 1A) and the sum of its
//                           prefix sums W_j (what the top row would hold after 1C and 2A, less
//                           the carry term s*c_j);
//   carries (1B, 2B)        c_j = S_0 + ... + S_{j-1},  Y_j = W_j + s_j c_j,  e_j = Y_{j+1} + ...;
//   pass 2 (1C, 2A, 2C)     per column, in cache: prefix sums + c_j, then suffix sums + e_j.
// OpenMP shares blocks of columns; inside a block G = 8 columns are scanned side by side, row
// by row (Step 1A of the paper: "use a previously updated row to update the next row"), so the
// eight dependency chains overlap and the compiler can vectorize across them.
// A system split over processes (a Part, recurrence.hpp) is one more level of the same scheme:
// each part carries its own columns, then adds the other parts' carries (part_carries).
#include <algorithm>
#include <vector>

#include <omp.h>

#include "solvers/recurrence/recurrence.hpp"

namespace tridsim::rec {

// Compensated float sum (Knuth's TwoSum, branch free): hi + lo carries the exact running sum
// up to O(eps^2). Needs IEEE arithmetic (no -ffast-math), which the build guarantees.
struct CompSum {
  float hi = 0, lo = 0;
  void add(float x) {
    const float t = hi + x, bp = t - hi;
    lo += (hi - (t - bp)) + (x - bp);
    hi = t;
  }
  double value() const { return double(hi) + double(lo); }
};

// T: storage; C: carry type (1B, 2B); Comp: compensated column sums (T = float, C = double);
// Rev: suffix sums first (A = R L), run as the prefix-first order on the reversed array.
template <class T, class C, bool Comp, bool Rev>
class DivideConquer {
 public:
  static constexpr int G = 8;  // columns scanned side by side

  // d: the m elements of this process (all of them unless `part`).
  DivideConquer(T* d, index_t m, Ends ends, index_t s, const Part* part = nullptr)
      : d_(d), m_(m), s_(std::max<index_t>(1, s)), ends_(ends), part_(part), whole_m_(m) {
    r_ = (m_ + s_ - 1) / s_;
    full_groups_ = (m_ / s_) / G;
  }

  void run() {
    std::vector<C> S(r_), W(r_);
    const index_t units = full_groups_ + (r_ - full_groups_ * G);
#pragma omp parallel
    {
      std::vector<T> b1(std::size_t(G) * s_), b2(Comp ? std::size_t(G) * s_ : 0);
#pragma omp for schedule(static)
      for (index_t u = 0; u < units; ++u) {
        if (u < full_groups_) column_sums<G>(u * G, S.data(), W.data(), b1.data());
        else column_sums<1>(full_groups_ * G + (u - full_groups_), S.data(), W.data(), b1.data());
      }
#pragma omp master
      carries(S, W);  // the two short sequential steps; S becomes c, W becomes e
#pragma omp barrier  // (master, not single: the part exchange may call MPI, on the calling thread)
#pragma omp for schedule(static)
      for (index_t u = 0; u < units; ++u) {
        if (u < full_groups_) finish<G>(u * G, S.data(), W.data(), b1.data(), b2.data());
        else finish<1>(full_groups_ * G + (u - full_groups_), S.data(), W.data(), b1.data(), b2.data());
      }
    }
  }

 private:
  index_t len(index_t j) const { return std::min(s_, m_ - j * s_); }
  T& x(index_t i) const { return Rev ? d_[m_ - 1 - i] : d_[i]; }

  // Columns j0 .. j0+K-1 (n rows) <-> buf[i*K + g]: the paper's row-wise layout of a panel, in
  // cache, so that each row update below is one unit-stride vector operation over K columns.
  template <int K>
  void gather(index_t o, index_t n, T* buf) const {
    for (int g = 0; g < K; ++g)
      for (index_t i = 0; i < n; ++i) buf[i * K + g] = x(o + g * s_ + i);
  }
  template <int K>
  void scatter(index_t o, index_t n, const T* buf) const {
    for (int g = 0; g < K; ++g)
      for (index_t i = 0; i < n; ++i) x(o + g * s_ + i) = buf[i * K + g];
  }
  // TwoSum of (hi, lo) += v, element-wise over K lanes (kept as plain arrays so it vectorizes).
  template <int K>
  static void two_sum(float* hi, float* lo, const float* v) {
#pragma omp simd
    for (int g = 0; g < K; ++g) {
      const float t = hi[g] + v[g], bp = t - hi[g];
      lo[g] += (hi[g] - (t - bp)) + (v[g] - bp);
      hi[g] = t;
    }
  }

  // Pass 1 over columns j0 .. j0+K-1 (K > 1 only for full columns).
  template <int K>
  void column_sums(index_t j0, C* S, C* W, T* b) const {
    const index_t n = len(j0 + K - 1), o = j0 * s_;
    if constexpr (Comp) {
      gather<K>(o, n, b);
      float ph[K] = {}, pl[K] = {}, wh[K] = {}, wl[K] = {};
      for (index_t i = 0; i < n; ++i) {
        two_sum<K>(ph, pl, b + i * K);
        two_sum<K>(wh, wl, ph);
#pragma omp simd
        for (int g = 0; g < K; ++g) wl[g] += pl[g];
      }
      for (int g = 0; g < K; ++g) S[j0 + g] = double(ph[g]) + pl[g], W[j0 + g] = double(wh[g]) + wl[g];
    } else if constexpr (!std::is_same_v<T, double>) {  // float, mixed: the paper's float Step 1A, row by row
      gather<K>(o, n, b);
      T p[K] = {}, w[K] = {};
      for (index_t i = 0; i < n; ++i)
#pragma omp simd
        for (int g = 0; g < K; ++g) {
          p[g] += b[i * K + g];
          w[g] += p[g];
        }
      for (int g = 0; g < K; ++g) S[j0 + g] = C(p[g]), W[j0 + g] = C(w[g]);
    } else {  // double: S = sum d_i, W = sum of prefix sums = sum (n - i) d_i, as vectorized reductions
      for (int g = 0; g < K; ++g) {
        const T* col = Rev ? nullptr : d_ + o + g * s_;
        T p = 0, w = 0;
        if (col) {
#pragma omp simd reduction(+ : p, w)
          for (index_t i = 0; i < n; ++i) p += col[i], w += T(n - i) * col[i];
        } else {
          const T* end = d_ + (m_ - 1 - o - g * s_);  // logical i at end[-i]
#pragma omp simd reduction(+ : p, w)
          for (index_t i = 0; i < n; ++i) p += end[-i], w += T(n - i) * end[-i];
        }
        S[j0 + g] = C(p), W[j0 + g] = C(w);
      }
    }
  }

  // Steps 1B and 2B: sequential over the r columns, in C.
  void carries(std::vector<C>& S, std::vector<C>& W) {
    C c = 0;
    for (index_t j = 0; j < r_; ++j) {  // c_j, and Y_j = W_j + len_j c_j (the column's sum of y)
      const C sj = S[j];
      S[j] = c;
      W[j] += C(len(j)) * c;
      c += sj;
    }
    C e = 0;
    for (index_t j = r_ - 1; j >= 0; --j) {  // e_j = Y_{j+1} + ... + Y_{r-1}
      const C yj = W[j];
      W[j] = e;
      e += yj;
    }
    total_ = double(e);  // z_0 = sum of all y, for the rank-one correction
    if (part_) add_part_carries(double(c), double(e), S, W);
  }

  // The carries of the other parts added to this part's columns (part_carries, recurrence.hpp).
  void add_part_carries(double sum_d, double sum_y, std::vector<C>& c, std::vector<C>& e) {
    const PartCarries p = rec::part_carries(*part_, m_, sum_d, sum_y, Rev);
    for (index_t j = 0; j < r_; ++j) {
      c[j] += C(p.before);
      e[j] += C(p.after_column(j * s_ + len(j), m_));
    }
    whole_m_ = p.whole_m;
    offset_ = p.offset;
    total_ = p.total;
  }

  // Pass 2 over columns j0 .. j0+K-1: Steps 1C and 2A in cache, then 2C, then the correction.
  template <int K>
  void finish(index_t j0, const C* c, const C* e, T* b1, T* b2) const {
    const index_t n = len(j0 + K - 1), o = j0 * s_;
    if constexpr (Comp) gather<K>(o, n, b1);
    const bool r1 = ends_.rank_one();
    // Sherman-Morrison term of logical element i of column g (two fixed ends only)
    auto corr = [&](int g, index_t i) { return r1 ? total_ * rank_one_weight(offset_ + o + g * s_ + i, whole_m_) : 0.0; };
    if constexpr (Comp) {  // b1, b2: hi and lo of the local prefix sums
      float ph[K] = {}, pl[K] = {}, qh[K] = {}, ql[K] = {};
      for (index_t i = 0; i < n; ++i) {
        two_sum<K>(ph, pl, b1 + i * K);
#pragma omp simd
        for (int g = 0; g < K; ++g) b1[i * K + g] = ph[g], b2[i * K + g] = pl[g];
      }
      double cj[K], ej[K];
      for (int g = 0; g < K; ++g) cj[g] = double(c[j0 + g]), ej[g] = double(e[j0 + g]);
      for (index_t i = n - 1; i >= 0; --i) {
        two_sum<K>(qh, ql, b1 + i * K);
#pragma omp simd
        for (int g = 0; g < K; ++g) {
          ql[g] += b2[i * K + g];
          // u = e_j + sum_{k>=i} (c_j + p_k), the carry terms in double
          b1[i * K + g] = T(ej[g] + double(n - i) * cj[g] + (double(qh[g]) + double(ql[g])) - corr(g, i));
        }
      }
      scatter<K>(o, n, b1);
    } else {  // gather fused into 1C and scatter into 2C: each element is loaded and stored once here
      T p[K] = {}, q[K] = {}, cj[K], ej[K];
      for (int g = 0; g < K; ++g) cj[g] = T(c[j0 + g]), ej[g] = T(e[j0 + g]);
      for (index_t i = 0; i < n; ++i)
#pragma omp simd
        for (int g = 0; g < K; ++g) {
          p[g] += x(o + g * s_ + i);
          b1[i * K + g] = cj[g] + p[g];  // 1C: y = c_j + local prefix
        }
      for (index_t i = n - 1; i >= 0; --i)
#pragma omp simd
        for (int g = 0; g < K; ++g) {
          q[g] += b1[i * K + g];  // 2A: local suffix sums of y
          const T u = ej[g] + q[g];  // 2C: + e_j
          x(o + g * s_ + i) = r1 ? T(double(u) - corr(g, i)) : u;
        }
    }
  }

  T* d_;
  index_t m_, s_, r_ = 0, full_groups_ = 0;
  Ends ends_;
  const Part* part_;
  index_t whole_m_, offset_ = 0;  // the whole system's length, this part's logical offset in it
  double total_ = 0;
};

namespace detail {
template <class T, bool Rev>
void dispatch(T* d, index_t m, Ends ends, Arithmetic a, index_t s, const Part* part) {
  if constexpr (std::is_same_v<T, double>) {
    if (a != Arithmetic::float64) throw std::invalid_argument("divide-and-conquer: double storage needs arithmetic double");
    DivideConquer<double, double, false, Rev>(d, m, ends, s, part).run();
  } else {
    switch (a) {
      case Arithmetic::float32: DivideConquer<float, float, false, Rev>(d, m, ends, s, part).run(); break;
      case Arithmetic::mixed: DivideConquer<float, double, false, Rev>(d, m, ends, s, part).run(); break;
      case Arithmetic::compensated: DivideConquer<float, double, true, Rev>(d, m, ends, s, part).run(); break;
      default: throw std::invalid_argument("divide-and-conquer: float storage needs arithmetic float, mixed or compensated");
    }
  }
}
}  // namespace detail

// Default column length: a group of G columns (and its pass-2 buffer) stays in L1/L2.
constexpr index_t default_column_length = 512;

// Overwrites d with the solution. T = double for Arithmetic::float64, float otherwise.
template <class T>
void solve_divide_conquer(T* d, index_t m, Ends ends, Arithmetic a, index_t s = default_column_length) {
  check_ends(ends, m);
  if (ends.prefix_first()) detail::dispatch<T, false>(d, m, ends, a, s, nullptr);
  else detail::dispatch<T, true>(d, m, ends, a, s, nullptr);
}

// The same for this process's `part` of a system split over processes (every process calls it;
// d: its m elements, which may be none). `ends`: those of the whole system.
template <class T>
void solve_divide_conquer_part(T* d, index_t m, Ends ends, Arithmetic a, const Part& part,
                               index_t s = default_column_length) {
  if (ends.singular()) throw std::invalid_argument("both ends free (Neumann): the system is singular");
  if (ends.prefix_first()) detail::dispatch<T, false>(d, m, ends, a, s, &part);
  else detail::dispatch<T, true>(d, m, ends, a, s, &part);
}

}  // namespace tridsim::rec
