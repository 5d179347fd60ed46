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
#include <optional>
#include <stdexcept>
#include <string>

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
inline double rank_one_weight(index_t i, index_t m) { return double(m - i) / double(m + 1); }

}  // namespace tridsim::rec
