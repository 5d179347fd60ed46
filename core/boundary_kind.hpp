#pragma once
// Kinds of boundary condition on one face of the grid (namespace tridsim).
#include "core/names.hpp"

namespace tridsim {

enum class BoundaryKind {
  dirichlet,  // the value is given
  neumann     // the outward normal derivative is given
};
inline constexpr NameEntry<BoundaryKind> kBoundaryKindNames[] = {{"dirichlet", BoundaryKind::dirichlet},
                                                                 {"neumann", BoundaryKind::neumann}};

}  // namespace tridsim
