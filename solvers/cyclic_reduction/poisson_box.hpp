#pragma once
// The problem a fast Poisson solver takes, (-Lap_h + sigma) u = f on a box of interior nodes
// (zero Dirichlet values outside, x-fastest), and the names of the methods (CPU and CUDA).
#include <array>
#include <optional>
#include <string>

#include "core/types.hpp"

namespace tridsim::cr {

enum class PoissonMethod { automatic, bcr, bcr4, fft };

inline std::optional<PoissonMethod> parse_poisson_method(const std::string& s) {
  if (s == "auto") return PoissonMethod::automatic;
  if (s == "bcr") return PoissonMethod::bcr;
  if (s == "bcr4") return PoissonMethod::bcr4;
  if (s == "fft") return PoissonMethod::fft;
  return std::nullopt;
}
inline const char* to_string(PoissonMethod m) {
  switch (m) {
    case PoissonMethod::bcr: return "bcr";
    case PoissonMethod::bcr4: return "bcr4";
    case PoissonMethod::fft: return "fft";
    default: return "auto";
  }
}

// One step of iterative refinement after the solve: automatic (where the method needs it), or
// always / never.
enum class Refine { automatic, on, off };

struct PoissonBox {
  int dim = 2;
  std::array<index_t, 3> m{1, 1, 1};    // interior nodes per axis (1 on unused axes)
  std::array<double, 3> h{1, 1, 1};     // spacing per axis
  double sigma = 0;                     // the shift, >= 0
  index_t size() const { return m[0] * m[1] * m[2]; }
};

}  // namespace tridsim::cr
