#pragma once
// What the Python layer (python/tridsim/_lines.py) hands to the compiled line solvers, after it
// has checked shapes and dtypes and mapped the array's axes onto an x-fastest LineSet: the
// right-hand side's address and lines, and each coefficient as a scalar, one value per row
// (the same for every line) or a full array with the right-hand side's layout.
#include <cstdint>
#include <string>

#include "core/types.hpp"
#include "solvers/tridiagonal/line_set.hpp"

namespace tridsim::python {

enum class CoefficientMode { scalar = 0, per_row = 1, full = 2 };

struct CoefficientArg {
  CoefficientMode mode = CoefficientMode::scalar;
  std::uintptr_t address = 0;  // per_row: n values; full: the array (element offsets as d's)
  double value = 0;            // scalar
};

struct LinesArg {
  std::uintptr_t address = 0;  // d: right-hand sides in, solutions out
  bool is_double = true;
  tridiag::LineSet lines;
};

// The element offset of a non-finite solution value, or -1: the store's check, fused into the
// solve (a zero pivot, from singular lines or lines that need pivoting, always leaves one).
inline constexpr index_t kAllFinite = -1;

}  // namespace tridsim::python
