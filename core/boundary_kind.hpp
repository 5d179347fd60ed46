#pragma once
// Kinds of boundary condition on one face of the grid (namespace tridsim).
#include "core/names.hpp"

namespace tridsim {

enum class BoundaryKind {
  dirichlet,  // the value is given
  neumann,    // the outward normal derivative is given
  periodic    // the grid continues at the opposite face of the same axis (Grid::periodic)
};
// The kinds every module's `boundary` section reads.
inline constexpr NameEntry<BoundaryKind> kBoundaryKindNames[] = {{"dirichlet", BoundaryKind::dirichlet},
                                                                 {"neumann", BoundaryKind::neumann}};
// The same and periodic, for the modules whose lines wrap around (heat).
inline constexpr NameEntry<BoundaryKind> kBoundaryKindNamesPeriodic[] = {{"dirichlet", BoundaryKind::dirichlet},
                                                                         {"neumann", BoundaryKind::neumann},
                                                                         {"periodic", BoundaryKind::periodic}};

}  // namespace tridsim
