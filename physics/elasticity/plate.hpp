#pragma once
// The elasticity module's deck section turned into numbers (namespace tridsim::elastic): the
// material of every element, the given displacement components and the consistent nodal forces
// of every load case. Everything a user can get wrong is checked here, at its deck line.
//
// The plate is the grid's box; the grid's nodes are the Q4 mesh's nodes: node (i, j) is
// i + nx*j (x fastest), element (ei, ej) (lower-left node (ei, ej)) is ei + (nx-1)*ej, and the
// unknowns are 2*node + c (c = 0: ux, 1: uy), as sparse::StencilMatrix numbers them (dofs = 2).
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/deck.hpp"
#include "core/expression.hpp"
#include "core/grid.hpp"
#include "physics/elasticity/elasticity.hpp"

namespace tridsim::elastic {

struct LoadCase {
  std::string name;
  std::vector<double> force;  // consistent nodal forces per unknown: tractions and body force
};

// The largest magnitude of a load's values (a body force, or a traction: a flux through a face), and
// its deck key: the module checks that the solve has room for it in its precision.
struct LoadSize {
  DeckNode node;
  std::string key;
  double m = 0;
  bool traction = false;
};

struct Plate {
  Model model = Model::plane_stress;
  index_t nx = 2, ny = 2;         // nodes per axis
  double hx = 1, hy = 1;          // element size
  double x0 = 0, y0 = 0;          // the lower-left corner
  double thickness = 1;           // plane stress; 1 in plane strain (per unit thickness)
  std::vector<Material> material;   // per element
  std::vector<std::uint8_t> fixed;  // per unknown: 1 where the displacement is given (supports)
  std::vector<double> given;        // the given value there, 0 elsewhere
  std::vector<LoadCase> cases;
  std::vector<LoadSize> load_sizes;  // every body force and traction read, with its key
  bool named_cases = false;       // from `loads:`: fields and diagnostics carry the case's name
  std::array<double, 2> tip{};    // the point whose displacement the diagnostics report

  index_t nodes() const { return nx * ny; }
  index_t unknowns() const { return 2 * nodes(); }
  index_t elements() const { return (nx - 1) * (ny - 1); }
};

// Reads the section (2D grids only) and evaluates every expression of it:
//   model: plane-stress | plane-strain; E, nu: numbers or expressions of x, y (at element centres);
//   thickness (plane stress); the defaults of keys left out: elasticity_keys();
//   faces: {x-|x+|y-|y+|all: clamped | roller | traction | free, or {type, value}} (default free);
//   body_force: [bx, by], and the traction faces' values: the load of every case that does not
//   give its own; loads: {NAME: {traction: {FACE: [tx, ty]}, body_force: [bx, by]}} (optional:
//   without it, one case of those defaults); tip: [x, y] (default: the centre of the x+ face).
Plate read_plate(const Grid& grid, const DeckNode& section, const Constants& constants);

}  // namespace tridsim::elastic
