#include "core/boundary_kind.hpp"
#include "physics/module_keys.hpp"
#include "physics/poisson/poisson.hpp"
#include "solvers/cyclic_reduction/poisson_box.hpp"

namespace tridsim {

KeyTable poisson_keys() {
  return {
      {"poisson", kSection, "", "", true, "-div(kappa grad u) = f, steady"},
      {"poisson.method", kChoice, "auto", "", false, list_names(names_of(kPoissonModuleMethodNames))},
      {"poisson.refine", kChoice, "auto", "", false,
       list_names(names_of(cr::kRefineNames)) + ": iterative refinement of the fast methods' solution"},
      {"poisson.compatibility", kChoice, "require", "", false,
       list_names(names_of(kPoissonCompatibilityNames)) +
           ": with no dirichlet face (fft-tridiagonal), refuse f that the Neumann fluxes do not balance, or "
           "subtract the imbalance; u then has mean 0"},
      {"poisson.source", kExpression | kSection, "", "unit of u/length^2", true,
       "f: an expression of x, y, z, or {file, dataset} (HDF5, one value per node)"},
      {"poisson.source.file", kText, "", "", true, "an HDF5 file (beside the deck, else the current directory)"},
      {"poisson.source.dataset", kText, "", "", true, "the dataset in it (the grid's shape)"},
      {"poisson.conductivity", kExpression | kSection, "1", "", false,
       "kappa > 0: an expression of x, y, z, or {file, dataset} (HDF5)"},
      {"poisson.conductivity.file", kText, "", "", true, "an HDF5 file"},
      {"poisson.conductivity.dataset", kText, "", "", true, "the dataset in it"},
      {"poisson.exact", kExpression, "", "unit of u", false, "the exact solution (x, y, z): error norms in the summary"},
      {"poisson.boundary", kSection, "", "", true, "one condition per face (x-, x+, y-, y+, z-, z+); all: the faces not named"},
      {"poisson.boundary.<face>", kSection, "", "", false, "a face's condition"},
      {"poisson.boundary.<face>.type", kChoice, "", "", true,
       list_names(names_of(kBoundaryKindNamesPeriodic)) +
           " (periodic: both faces of the axis, n distinct nodes spaced (hi - lo)/n; fft-tridiagonal)"},
      {"poisson.boundary.<face>.value", kExpression, "", "unit of u (neumann: per length)", false,
       "dirichlet: u; neumann: the outward normal derivative (x, y, z); none for periodic"},
  };
}

std::string poisson_template() {
  return R"deck(name: poisson
module: poisson
grid: {n: [65, 65], lo: [0, 0], hi: [1, 1]}    # a steady problem: no time section
poisson:
  method: auto                                 # bcr, bcr4, fft, fft-tridiagonal or multifrontal
  source: "2*pi^2*sin(pi*x)*sin(pi*y)"         # f in -div(kappa grad u) = f
  exact: "sin(pi*x)*sin(pi*y)"                 # optional: error norms in the summary
  boundary:
    all: {type: dirichlet, value: 0}
)deck";
}

}  // namespace tridsim
