// The substructured (split-line) tridiagonal solve of solvers/tridiagonal/segment_reduction.hpp:
// a line cut into segments as ranks would hold it, each segment reduced on its own, the reduced
// system solved, the interiors recovered; against the reference Thomas solve of the whole line.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "solvers/tridiagonal/segment_reduction.hpp"
#include "solvers/tridiagonal/thomas_reference.hpp"

using namespace tridsim;
using namespace tridsim::tridiag;

namespace {

template <class T>
struct Line {
  std::vector<T> a, b, c, d;
};

// Diagonally dominant rows with random off-diagonals of either sign (a_0 = c_{n-1} = 0).
template <class T>
Line<T> random_line(index_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  Line<T> l{std::vector<T>(n), std::vector<T>(n), std::vector<T>(n), std::vector<T>(n)};
  for (index_t i = 0; i < n; ++i) {
    l.a[i] = i > 0 ? T(u(gen)) : T(0);
    l.c[i] = i + 1 < n ? T(u(gen)) : T(0);
    l.b[i] = T(std::abs(double(l.a[i])) + std::abs(double(l.c[i])) + 0.5 + std::abs(u(gen)));
    l.d[i] = T(u(gen));
  }
  return l;
}

// Each segment reduced on its own copy (as a rank would), the reduced rows gathered in line
// order and solved, every segment recovered from its two kept unknowns. Rows at i * stride.
template <class T>
std::vector<T> solve_split(Line<T> l, const std::vector<index_t>& lengths, index_t stride = 1) {
  std::vector<ReducedRow<T>> rows;
  std::vector<index_t> begin;
  index_t at = 0;
  for (const index_t m : lengths) {
    ReducedRow<T> r[2];
    const index_t s = at * stride;
    const int k = reduce_segment(m, stride, l.a.data() + s, l.b.data() + s, l.c.data() + s, l.d.data() + s, r);
    rows.insert(rows.end(), r, r + k);
    begin.push_back(at);
    at += m;
  }
  const index_t count = index_t(rows.size());
  std::vector<T> cp(count), x(count);
  solve_reduced(count, rows.data(), cp.data(), x.data());
  index_t j = 0;
  for (std::size_t p = 0; p < lengths.size(); ++p) {
    const index_t m = lengths[p], s = begin[p] * stride;
    const T first = x[j], last = m > 1 ? x[j + 1] : x[j];
    recover_segment(m, stride, l.a.data() + s, l.c.data() + s, l.d.data() + s, first, last);
    j += m > 1 ? 2 : 1;
  }
  return l.d;
}

template <class T>
double max_difference(const std::vector<T>& x, const std::vector<T>& y) {
  double e = 0;
  for (std::size_t i = 0; i < x.size(); ++i) e = std::max(e, std::abs(double(x[i]) - double(y[i])));
  return e;
}

template <class T>
std::vector<T> reference(const Line<T>& l) {
  std::vector<T> x(l.d.size());
  thomas_reference(index_t(l.d.size()), l.a.data(), l.b.data(), l.c.data(), l.d.data(), x.data());
  return x;
}

// The balanced split of n points over p ranks (the first n % p get one more).
std::vector<index_t> balanced(index_t n, index_t p) {
  std::vector<index_t> m(p, n / p);
  for (index_t r = 0; r < n % p; ++r) ++m[r];
  return m;
}

}  // namespace

TEST_CASE("split line matches reference: balanced splits of awkward sizes") {
  for (const index_t n : {1, 2, 3, 5, 7, 17, 100, 257})
    for (const index_t p : {1, 2, 3, 4, 7, 16}) {
      if (p > n) continue;
      CAPTURE(n);
      CAPTURE(p);
      const Line<double> l = random_line<double>(n, unsigned(n * 31 + p));
      CHECK(max_difference(solve_split(l, balanced(n, p)), reference(l)) < 1e-13);
    }
}

TEST_CASE("split line matches reference: segments of one and two points, and random cuts") {
  const std::vector<std::vector<index_t>> splits = {
      {1, 2, 1, 3, 1}, {2, 2, 2}, {1, 1, 1, 1}, {3, 1}, {1, 5}, {2, 1}, {1, 1}, {50, 1, 1, 49}};
  for (const auto& s : splits) {
    const index_t n = std::accumulate(s.begin(), s.end(), index_t(0));
    const Line<double> l = random_line<double>(n, unsigned(n));
    CHECK(max_difference(solve_split(l, s), reference(l)) < 1e-13);
  }
  std::mt19937 gen(7);
  for (int trial = 0; trial < 50; ++trial) {
    const index_t n = 1 + index_t(gen() % 300);
    std::vector<index_t> s;
    for (index_t left = n; left > 0;) {
      const index_t m = std::min<index_t>(left, 1 + index_t(gen() % 40));
      s.push_back(m);
      left -= m;
    }
    const Line<double> l = random_line<double>(n, unsigned(100 + trial));
    CAPTURE(n);
    CHECK(max_difference(solve_split(l, s), reference(l)) < 1e-12);
  }
}

TEST_CASE("split line matches reference: interleaved lines (stride) and float") {
  const index_t n = 61, lines = 3;
  Line<double> all{std::vector<double>(n * lines), std::vector<double>(n * lines), std::vector<double>(n * lines),
                   std::vector<double>(n * lines)};
  std::vector<Line<double>> each;
  for (index_t q = 0; q < lines; ++q) {
    each.push_back(random_line<double>(n, unsigned(40 + q)));
    for (index_t i = 0; i < n; ++i) {
      all.a[i * lines + q] = each[q].a[i];
      all.b[i * lines + q] = each[q].b[i];
      all.c[i * lines + q] = each[q].c[i];
      all.d[i * lines + q] = each[q].d[i];
    }
  }
  const std::vector<index_t> split = balanced(n, 4);
  for (index_t q = 0; q < lines; ++q) {
    Line<double> shifted = all;  // line q starts at element q; rows every `lines` elements
    for (auto* v : {&shifted.a, &shifted.b, &shifted.c, &shifted.d}) v->erase(v->begin(), v->begin() + q);
    const std::vector<double> x = solve_split(shifted, split, lines);
    const std::vector<double> want = reference(each[q]);
    double e = 0;
    for (index_t i = 0; i < n; ++i) e = std::max(e, std::abs(x[i * lines] - want[i]));
    CHECK(e < 1e-13);
  }
  const Line<float> f = random_line<float>(200, 9);
  CHECK(max_difference(solve_split(f, balanced(200, 5)), reference(f)) < 2e-6);
}

// FactoredSegment (rows shared by every lane): each segment's reduced rows from the weighted sums
// of its right-hand side, added row by row in reverse order, and its interior recovered by Thomas
// from its two kept unknowns; against the reference Thomas solve of the whole line, per lane.
TEST_CASE("factored segments: reduced rows by weighted sums and recovery by interior Thomas") {
  const std::vector<std::vector<index_t>> splits = {{2, 2}, {3, 2, 3}, {2, 40, 7}, {300, 5}, {64, 64, 64, 64}};
  const index_t lanes = 3;
  for (const auto& split : splits) {
    const index_t n = std::accumulate(split.begin(), split.end(), index_t(0));
    CAPTURE(n);
    const Line<double> rows = random_line<double>(n, unsigned(n + 11));  // d unused: a right-hand side per lane
    std::vector<std::vector<double>> d(lanes);
    for (index_t l = 0; l < lanes; ++l) d[l] = random_line<double>(n, unsigned(500 + l)).d;
    std::vector<FactoredSegment<double>> segments;
    std::vector<ReducedRow<double>> reduced(2 * split.size() * lanes);  // [lane][row]
    index_t at = 0;
    for (std::size_t p = 0; p < split.size(); ++p) {
      const index_t m = split[p];
      segments.emplace_back(m, rows.a.data() + at, rows.b.data() + at, rows.c.data() + at);
      const FactoredSegment<double>& f = segments.back();
      for (index_t l = 0; l < lanes; ++l) {
        double first = 0, last = 0;
        for (index_t i = m - 1; i >= 0; --i) f.add_row(i, 1, &d[l][at + i], &first, &last);
        reduced[l * 2 * split.size() + 2 * p] = {f.first.a, f.first.c, first};
        reduced[l * 2 * split.size() + 2 * p + 1] = {f.last.a, f.last.c, last};
      }
      at += m;
    }
    for (index_t l = 0; l < lanes; ++l) {
      const index_t count = 2 * index_t(split.size());
      std::vector<double> cp(count), x(count), out(n);
      solve_reduced(count, reduced.data() + l * count, cp.data(), x.data());
      at = 0;
      for (std::size_t p = 0; p < split.size(); ++p) {
        std::copy(d[l].begin() + at, d[l].begin() + at + split[p], out.begin() + at);
        segments[p].solve(1, 1, out.data() + at, &x[2 * p], &x[2 * p + 1]);
        at += split[p];
      }
      Line<double> line = rows;
      line.d = d[l];
      CHECK(max_difference(out, reference(line)) < 1e-13);
    }
  }
}
