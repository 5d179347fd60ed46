#include "core/boundary_kind.hpp"
#include "physics/heat/heat.hpp"
#include "physics/module_keys.hpp"
#include "solvers/tridiagonal/line_solvers.hpp"

namespace tridsim {

KeyTable heat_keys() {
  using H = HeatModule<double>;
  const std::string solvers = list_names(names_of(H::kSolverNames)) + ", or a line solver (" +
                              list_names(tridiag::all_line_solver_names()) + ") for every axis";
  return {
      {"heat", kSection, "", "", true, "du/dt = div(kappa grad u) + f"},
      {"heat.scheme", kChoice, "auto", "", false,
       list_names(names_of(H::kSchemeNames)) + " (auto: crank-nicolson in 1D, peaceman-rachford in 2D, douglas in 3D)"},
      {"heat.solver", kChoice | kSection, "auto", "", false, solvers + "; or per axis {x: ..., y: ..., z: ...}"},
      {"heat.solver.<axis>", kChoice, "auto", "", false, "the line solver along this axis"},
      {"heat.diffusivity", kExpression, "", "length^2/time", true, "kappa: a number or an expression of x, y, z"},
      {"heat.source", kExpression, "0", "unit of u/time", false, "f: an expression of x, y, z, t"},
      {"heat.initial", kExpression, "", "unit of u", true, "u at the start time: an expression of x, y, z"},
      {"heat.exact", kExpression, "", "unit of u", false, "the exact solution (x, y, z, t): error norms in the summary"},
      {"heat.boundary", kSection, "", "", true, "one condition per face (x-, x+, y-, y+, z-, z+); all: the faces not named"},
      {"heat.boundary.<face>", kSection, "", "", false, "a face's condition"},
      {"heat.boundary.<face>.type", kChoice, "", "", true,
       list_names(names_of(kBoundaryKindNamesPeriodic)) +
           " (periodic: both faces of the axis, n distinct nodes spaced (hi - lo)/n; cpu backend, axis not split "
           "over ranks, not the unsplit crank-nicolson)"},
      {"heat.boundary.<face>.value", kExpression, "", "unit of u (neumann: per length)", false,
       "dirichlet: u; neumann: the outward normal derivative (x, y, z, t); required for both, none for periodic"},
  };
}

std::string heat_template() {
  return R"deck(name: heat
module: heat
grid: {n: [33, 33], lo: [0, 0], hi: [1, 1]}   # nodes per axis (1 to 3 axes), the box's corners
time: {dt: 0.001, end: 0.05}                   # or steps: N instead of end
output: {every: 10}                            # fields every 10 steps, into output/heat
heat:
  diffusivity: 1                               # a number or an expression of x, y, z
  source: 0                                    # an expression of x, y, z, t
  initial: "sin(pi*x)*sin(pi*y)"
  exact: "exp(-2*pi^2*t)*sin(pi*x)*sin(pi*y)"  # optional: error norms in the summary
  boundary:
    all: {type: dirichlet, value: 0}           # or per face x-, x+, y-, y+ (neumann: outward derivative)
)deck";
}

}  // namespace tridsim
