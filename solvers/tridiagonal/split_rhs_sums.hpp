#pragma once
// The reduced right-hand sides of split lines, summed while another pass writes the lines' right-
// hand side (namespace tridsim::tridiag). With rows shared by every line (FactoredSegment), each
// of a segment's two reduced rows has a right-hand side that is a fixed weighted sum of the
// segment's right-hand side, so its rows may be added in any order and from any thread: a sweep
// along another axis adds each run it stores (add), and solve_split_lines, given these sums, reads
// the segments once (to recover them) instead of twice.
//
// The segment's first and last rows are not summed here: the solve loads them itself, so a caller
// may still change them between the two passes (Douglas sets the face rows of the next axis there).
#include <omp.h>

#include <memory>
#include <vector>

#include "core/aligned.hpp"
#include "core/errors.hpp"
#include "solvers/tridiagonal/line_set.hpp"
#include "solvers/tridiagonal/segment_reduction.hpp"

namespace tridsim::tridiag {

template <class T>
class SplitRhsSums {
 public:
  // Before each pass that adds to the sums: this rank's local lines along L.axis (dense), its
  // segment of each and the rows shared by every line (load_row(offset, count, global_row, a, b, c)).
  template <class Rows>
  void start(const LineSet& L, const Segment& seg, const Rows& M) {
    if (seg.rows < 2) throw Error("distributed line solve: every rank needs at least 2 rows of each line");
    L_ = L;
    seg_ = seg;
    factored_ = std::make_unique<FactoredSegment<T>>(FactoredSegment<T>::of_rows(M, seg));
    partial_.resize(omp_get_max_threads());
    used_.assign(partial_.size(), 0);
  }

  // A run of `count` nodes adjacent in x from node `offset` of the dense local array, values x.
  void add(index_t offset, index_t count, const T* x) {
    const int t = omp_get_thread_num();
    if (t >= int(partial_.size())) throw Error("SplitRhsSums::add: called from more threads than when started");
    const index_t lines = L_.count();
    if (!used_[t]) {
      partial_[t].assign(2 * lines, T(0));
      used_[t] = 1;
    }
    T* first = partial_[t].data();
    T* last = first + lines;
    const index_t n0 = L_.n[0], n1 = L_.n[1], plane = n0 * n1;
    const index_t k = offset / plane, j = (offset - k * plane) / n0, i = offset - k * plane - j * n0;
    const FactoredSegment<T>& f = *factored_;
    auto interior = [&](index_t row) { return row > 0 && row + 1 < seg_.rows; };
    if (L_.axis == 0) {  // the run lies along one line
      const index_t q = j + k * n1;
      for (index_t e = 0; e < count; ++e) {
        const index_t r = i + e - seg_.first_row;
        if (interior(r)) f.add_row(r, 1, x + e, first + q, last + q);
      }
      return;
    }
    const index_t r = (L_.axis == 1 ? j : k) - seg_.first_row;  // one row of `count` lines
    if (!interior(r)) return;
    const index_t q = L_.axis == 1 ? i + k * n0 : i + j * n0;
    f.add_row(r, count, x, first + q, last + q);
  }

  // The sums of lines q .. q + lanes - 1 over every thread that added, into first_d and last_d.
  void sums(index_t q, index_t lanes, T* first_d, T* last_d) const {
    std::fill(first_d, first_d + lanes, T(0));
    std::fill(last_d, last_d + lanes, T(0));
    const index_t lines = L_.count();
    for (std::size_t t = 0; t < partial_.size(); ++t) {
      if (!used_[t]) continue;
      const T* p = partial_[t].data() + q;
#pragma omp simd
      for (index_t l = 0; l < lanes; ++l) {
        first_d[l] += p[l];
        last_d[l] += p[lines + l];
      }
    }
  }

  const FactoredSegment<T>& factored() const { return *factored_; }
  const LineSet& lines() const { return L_; }
  const Segment& segment() const { return seg_; }

 private:
  LineSet L_;
  Segment seg_;
  std::unique_ptr<FactoredSegment<T>> factored_;
  std::vector<AlignedVector<T>> partial_;  // per thread: [first d of every line | last d]
  std::vector<char> used_;                 // partial_[t] holds this pass's sums
};

}  // namespace tridsim::tridiag
