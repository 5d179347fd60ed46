#include "physics/elasticity/elasticity.hpp"
#include "physics/module_keys.hpp"

namespace tridsim {

KeyTable elasticity_keys() {
  const std::string types = list_names(names_of(elastic::kFaceTypeNames));
  return {
      {"elasticity", kSection, "", "", true, "plane linear elasticity on Q4 elements (a 2D grid), steady"},
      {"elasticity.model", kChoice, "plane-stress", "", false, list_names(names_of(elastic::kModelNames))},
      {"elasticity.E", kExpression, "", "stress", true, "Young's modulus: a number or an expression of x, y"},
      {"elasticity.nu", kExpression, "", "1", true, "Poisson's ratio: a number or an expression of x, y"},
      {"elasticity.thickness", kNumber, "1", "length", false, "plane stress: the plate's thickness"},
      {"elasticity.faces", kSection, "", "", false, "supports per face x-, x+, y-, y+ (all: the faces not named)"},
      {"elasticity.faces.<face>", kChoice | kSection, "free", "", false, types + ", or {type, value}"},
      {"elasticity.faces.<face>.type", kChoice, "", "", true, types},
      {"elasticity.faces.<face>.value", kExpression | kTexts, "0", "length (traction: stress)", false,
       "clamped: [ux, uy]; roller: the normal displacement; traction: [tx, ty]"},
      {"elasticity.body_force", kTexts, "[0, 0]", "force/length^3", false, "[bx, by]: numbers or expressions of x, y"},
      {"elasticity.loads", kSection, "", "", false, "load cases solved together: NAME: {traction, body_force}"},
      {"elasticity.loads.<case>", kSection, "", "", false, "one load case (its name prefixes its fields)"},
      {"elasticity.loads.<case>.traction", kSection, "", "", false, "per traction face, [tx, ty]"},
      {"elasticity.loads.<case>.traction.<face>", kTexts, "", "stress", false, "[tx, ty] on this face"},
      {"elasticity.loads.<case>.body_force", kTexts, "(elasticity.body_force)", "force/length^3", false,
       "[bx, by] of this case"},
      {"elasticity.tip", kNumbers, "", "length", false, "the point whose displacement is reported (default: x+ centre)"},
  };
}

std::string elasticity_template() {
  return R"deck(name: elasticity
module: elasticity
grid: {n: [21, 11], lo: [0, 0], hi: [2, 1]}   # nodes; a steady problem: no time section
elasticity:
  model: plane-stress
  E: 200e9                                     # Young's modulus (a number or an expression of x, y)
  nu: 0.3
  thickness: 0.01
  faces:                                       # x-, x+, y-, y+ (or all): clamped, roller, traction, free
    x-: clamped
    x+: {type: traction, value: [0, -1e6]}
)deck";
}

}  // namespace tridsim
