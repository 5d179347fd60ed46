#include "physics/module_keys.hpp"
#include "physics/reaction_diffusion/reaction_diffusion.hpp"
#include "solvers/block_tridiagonal/block_gpu_algorithm.hpp"

namespace tridsim {

KeyTable reaction_diffusion_keys() {
  using R = ReactionDiffusionModule<double>;
  const std::string per_species = " (one key per species)";
  return {
      {"reaction_diffusion", kSection, "", "", true, "du/dt = div(D grad u) + R(u) for M species u"},
      {"reaction_diffusion.species", kTexts, "", "", true, "the species' names (1 to 8 identifiers)"},
      {"reaction_diffusion.scheme", kChoice, "douglas", "", false, list_names(names_of(R::kSchemeNames))},
      {"reaction_diffusion.diffusion", kMatrix, "", "length^2/time", true,
       "D: M rows of M numbers or expressions of x, y, z"},
      {"reaction_diffusion.reactions", kSection, "", "", true, "R: one expression of the species, x, y, z, t per species"},
      {"reaction_diffusion.reactions.<species>", kExpression, "", "unit of u/time", true, "the species' rate" + per_species},
      {"reaction_diffusion.jacobian", kSection, "", "", false,
       "linearly-implicit: dR/du, per species a row of M expressions (default: forward differences)"},
      {"reaction_diffusion.jacobian.<species>", kTexts, "", "1/time", false, "the row of dR/du for this species"},
      {"reaction_diffusion.exact_flow", kSection, "", "", false,
       "douglas: the reactions' exact flow over tau, per species (instead of RK4)"},
      {"reaction_diffusion.exact_flow.<species>", kExpression, "", "unit of u", false,
       "the species after time tau" + per_species},
      {"reaction_diffusion.reaction_substeps", kInteger, "1", "", false, "douglas: RK4 steps per reaction half step"},
      {"reaction_diffusion.pivoting", kChoice, "auto", "", false, "auto, none or partial: the block solves' pivoting"},
      {"reaction_diffusion.solver", kChoice | kSection, "auto", "", false,
       "the block line solver: " + list_names(names_of(blocktri::kBlockLineSolvers)) +
           ", or per axis {x: ..., y: ..., z: ...}"},
      {"reaction_diffusion.solver.<axis>", kChoice, "auto", "", false, "the block line solver along this axis"},
      {"reaction_diffusion.initial", kSection, "", "", true, "the initial state: an expression of x, y, z per species"},
      {"reaction_diffusion.initial.<species>", kExpression, "", "unit of u", true, "the species at the start" + per_species},
      {"reaction_diffusion.perturbation", kSection, "", "", false, "uniform noise added to the initial state"},
      {"reaction_diffusion.perturbation.amplitude", kNumber, "", "unit of u", true, "noise in [-amplitude, amplitude]"},
      {"reaction_diffusion.perturbation.seed", kInteger, "1", "", false, "the noise's seed"},
      {"reaction_diffusion.exact", kSection, "", "", false, "the exact solution (x, y, z, t) per species: error norms"},
      {"reaction_diffusion.exact.<species>", kExpression, "", "unit of u", false, "the species' exact solution"},
      {"reaction_diffusion.boundary", kSection, "", "", true, "one condition per face; all: the faces not named"},
      {"reaction_diffusion.boundary.<face>", kSection, "", "", false, "a face's condition"},
      {"reaction_diffusion.boundary.<face>.type", kChoice, "", "", true, list_names(names_of(R::kBoundaryNames))},
      {"reaction_diffusion.boundary.<face>.value", kSection, "", "", false,
       "dirichlet, neumann: per species an expression of x, y, z"},
      {"reaction_diffusion.boundary.<face>.value.<species>", kExpression, "", "unit of u (neumann: per length)", true,
       "the species' value or outward normal derivative"},
  };
}

std::string reaction_diffusion_template() {
  return R"deck(name: reaction_diffusion
module: reaction_diffusion
constants: {a: 0.1, b: 0.9}
grid: {n: [64, 64], lo: [0, 0], hi: [50, 50]}
time: {dt: 0.25, end: 10}
output: {every: 10}
reaction_diffusion:
  species: [u, v]
  diffusion: [[1, 0], [0, 40]]                 # D: one row per species
  reactions:                                   # R: expressions of the species, x, y, z, t
    u: "a - u + u^2*v"
    v: "b - u^2*v"
  initial:
    u: "a + b"
    v: "b/(a + b)^2"
  perturbation: {amplitude: 0.01, seed: 7}     # uniform noise on each species
  boundary:
    all: {type: no-flux}
)deck";
}

}  // namespace tridsim
