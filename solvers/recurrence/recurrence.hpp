#pragma once
// Almost-Toeplitz tridiagonal systems from -u'' = f (namespace tridsim::rec), solved as two
// first-order linear recurrences with constant coefficients (Stpiczynski & Potiopa, papers/
// ...bvp-divide-and-conquer):
//
//   A = tridiag(-1, 2, -1) of size m, except that the first and/or last diagonal entry is 1
//   (a Neumann end; the paper's matrix has a_11 = 1). With L, R the unit bidiagonal Toeplitz
//   factors (5), (6):
//     first row free, last fixed  : A = L R          y = prefix sums of d, u = suffix sums of y (7)-(8)
//     first row fixed, last free  : A = R L          the same with the order reversed
//     both fixed (Dirichlet)      : A = L R + e1 e1^T  Sherman-Morrison: u = z - z_1 (m-i+1)/(m+1)
//     both free                   : singular (u defined up to a constant): rejected
// Every solver here overwrites d (length m) with u.
#include <algorithm>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

#include "core/host_device.hpp"
#include "core/names.hpp"
#include "core/types.hpp"

namespace tridsim::rec {

// How the first / last row of A reads: fixed = (2, -1) (a Dirichlet neighbour), free = (1, -1)
// (a Neumann end, the row halved).
enum class EndRow { fixed, free };

struct Ends {
  EndRow first = EndRow::free, last = EndRow::fixed;  // the paper's problem (2)
  // Prefix sums first (A = L R), or suffix sums first (A = R L).
  bool prefix_first() const { return first == EndRow::free || last == EndRow::fixed; }
  bool rank_one() const { return first == EndRow::fixed && last == EndRow::fixed; }
  bool singular() const { return first == EndRow::free && last == EndRow::free; }
};

enum class Algorithm { automatic, sequential, divide_and_conquer };
// double: everything in double (A1D, A2D); single: everything in float (A1S, A2S);
// mixed: float data and column sums, the two sequential carries in double (A2SD);
// compensated: float data, column sums with compensated (TwoSum) float accumulation, carries
// and their application in double.
enum class Arithmetic { automatic, float64, float32, mixed, compensated };

// Names (the bvp deck's `algorithm` and `arithmetic`).
inline constexpr NameEntry<Algorithm> kAlgorithmNames[] = {
    {"auto", Algorithm::automatic}, {"sequential", Algorithm::sequential},
    {"divide-and-conquer", Algorithm::divide_and_conquer}};
inline constexpr NameEntry<Arithmetic> kArithmeticNames[] = {
    {"auto", Arithmetic::automatic}, {"double", Arithmetic::float64}, {"float", Arithmetic::float32},
    {"mixed", Arithmetic::mixed},     {"compensated", Arithmetic::compensated}};
inline const char* to_string(Algorithm a) { return name_of(kAlgorithmNames, a); }
inline const char* to_string(Arithmetic a) { return name_of(kArithmeticNames, a); }
// Storage precision of an arithmetic: double only for float64.
inline bool stores_double(Arithmetic a) { return a == Arithmetic::float64; }

inline void check_ends(Ends e, index_t m) {
  if (e.singular()) throw std::invalid_argument("both ends free (Neumann): the system is singular");
  if (m < 1) throw std::invalid_argument("the system needs at least one unknown");
}

// Logical index i of the recurrence -> array index: the suffix-first order is the
// prefix-first one on the reversed array.
struct IndexMap {
  index_t m;
  bool reversed;
  index_t operator()(index_t i) const { return reversed ? m - 1 - i : i; }
};

// Sherman-Morrison correction for two fixed ends: u_i -= z_0 (m - i) / (m + 1), i = 0..m-1.
TRIDSIM_HOST_DEVICE inline double rank_one_weight(index_t i, index_t m) { return double(m - i) / double(m + 1); }

// ---- a system split over processes (each holds consecutive elements: a part) ----------------
// Each part carries its own columns from zero; the parts exchange three numbers each, and a part
// adds the carries of the parts before it (C = their sum of d) and after it (E = their sum of y,
// each raised by its length times its own C): c_j += C, e_j += E + C * (elements after column j).

// What a part tells the others (in double whatever the arithmetic).
struct PartSums {
  double first = 0;  // array index of the part's first element in the whole system
  double n = 0;      // its elements
  double sum_d = 0;  // sum of its d
  double sum_y = 0;  // sum of its y = prefix sums of d (logical order), the prefix starting at the part
};
// This process's part: elements first .. first+n-1 of the whole system's array (d's order), and
// `exchange`, which returns every part's sums (this one's included, any order) on every process.
struct Part {
  index_t first = 0;
  std::function<std::vector<PartSums>(const PartSums&)> exchange;
};
// What the other parts add to this one (the logical order: reversed for the suffix-first order).
struct PartCarries {
  double before = 0, after = 0;  // C and E
  double total = 0;              // z_0: the sum of every part's y (the rank-one term)
  index_t whole_m = 0, offset = 0;  // the whole system's length; this part's logical offset in it
  // e_j's carry for a column whose last element is `end` (logical, within the part of n elements).
  TRIDSIM_HOST_DEVICE double after_column(index_t end, index_t n) const { return after + before * double(n - end); }
};
inline PartCarries part_carries(const Part& part, index_t n, double sum_d, double sum_y, bool reversed) {
  std::vector<PartSums> parts = part.exchange({double(part.first), double(n), sum_d, sum_y});
  std::sort(parts.begin(), parts.end(), [reversed](const PartSums& a, const PartSums& b) {
    return reversed ? a.first > b.first : a.first < b.first;
  });
  PartCarries out;
  for (const PartSums& p : parts) out.whole_m += index_t(p.n);
  out.offset = reversed ? out.whole_m - part.first - n : part.first;
  std::vector<double> y(parts.size());  // each part's sum of y with the carry of the parts before it
  double before = 0;
  std::size_t mine = 0;
  for (std::size_t q = 0; q < parts.size(); ++q) {
    y[q] = parts[q].sum_y + parts[q].n * before;
    if (parts[q].first == double(part.first) && parts[q].n == double(n)) mine = q, out.before = before;
    before += parts[q].sum_d;
  }
  for (std::size_t q = parts.size(); q-- > 0;) {
    if (q == mine) out.after = out.total;
    out.total += y[q];
  }
  return out;
}

}  // namespace tridsim::rec
