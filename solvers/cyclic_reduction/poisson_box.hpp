#pragma once
// The problem a fast Poisson solver takes (namespace tridsim::cr), (-Lap_h + sigma) u = f on a box
// of interior nodes (zero Dirichlet values outside, x-fastest), and the names of the methods (CPU
// and CUDA).
#include <array>
#include <optional>
#include <string>

#include "core/names.hpp"
#include "core/types.hpp"

namespace tridsim::cr {

enum class PoissonMethod { automatic, bcr, bcr4, fft };

inline constexpr NameEntry<PoissonMethod> kPoissonMethodNames[] = {
    {"auto", PoissonMethod::automatic},
    {"bcr", PoissonMethod::bcr, "radix-2 block cyclic reduction"},
    {"bcr4", PoissonMethod::bcr4, "radix-4 block cyclic reduction"},
    {"fft", PoissonMethod::fft, "sine transforms"}};
inline const char* to_string(PoissonMethod m) { return name_of(kPoissonMethodNames, m); }

// One step of iterative refinement after the solve: automatic (where the method needs it), or
// always / never.
enum class Refine { automatic, on, off };
inline constexpr NameEntry<Refine> kRefineNames[] = {{"auto", Refine::automatic}, {"on", Refine::on}, {"off", Refine::off}};

struct PoissonBox {
  int dim = 2;
  std::array<index_t, 3> m{1, 1, 1};    // interior nodes per axis (1 on unused axes)
  std::array<double, 3> h{1, 1, 1};     // spacing per axis
  double sigma = 0;                     // the shift, >= 0
  index_t size() const { return m[0] * m[1] * m[2]; }
};

}  // namespace tridsim::cr
