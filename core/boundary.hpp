#pragma once
// Kinds of boundary condition on one face of the grid.
namespace tridsim {

enum class BoundaryKind {
  dirichlet,  // the value is given
  neumann     // the outward normal derivative is given
};

}  // namespace tridsim
