#include "core/boundary_kind.hpp"
#include "physics/module_keys.hpp"
#include "solvers/recurrence/recurrence.hpp"

namespace tridsim {

KeyTable bvp_keys() {
  return {
      {"bvp", kSection, "", "", true, "-u'' = f on an interval (a 1D grid), steady"},
      {"bvp.algorithm", kChoice, "auto", "", false,
       list_names(names_of(rec::kAlgorithmNames)) + " (auto: sequential below 8192 nodes on one process)"},
      {"bvp.arithmetic", kChoice, "auto", "", false,
       list_names(names_of(rec::kArithmeticNames)) + " (auto: double in double precision, compensated in float)"},
      {"bvp.column_length", kInteger, "0", "", false, "elements per column of the divide-and-conquer (0: chosen)"},
      {"bvp.carries", kChoice, "device", "", false, "device or host: where backend cuda computes the carries"},
      {"bvp.source", kExpression, "", "unit of u/length^2", true, "f: an expression of x"},
      {"bvp.exact", kExpression, "", "unit of u", false, "the exact solution (x): error norms in the summary"},
      {"bvp.boundary", kSection, "", "", true, "the ends x- and x+ (all: the ends not named)"},
      {"bvp.boundary.<face>", kSection, "", "", false, "an end's condition"},
      {"bvp.boundary.<face>.type", kChoice, "", "", true, list_names(names_of(kBoundaryKindNames))},
      {"bvp.boundary.<face>.value", kExpression, "", "unit of u (neumann: per length)", true,
       "dirichlet: u; neumann: the outward derivative (a constant)"},
  };
}

std::string bvp_template() {
  return R"deck(name: bvp
module: bvp
grid: {n: [1025], lo: [0], hi: [1]}            # one axis: a two-point problem
bvp:
  source: "pi^2/4*cos(pi*x/2)"                 # f in -u'' = f
  exact: "cos(pi*x/2)"                         # optional: error norms in the summary
  boundary:
    x-: {type: neumann, value: 0}              # outward derivative -u'(0) = 0
    x+: {type: dirichlet, value: 0}
)deck";
}

}  // namespace tridsim
