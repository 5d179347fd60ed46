#include "physics/builtin_modules.hpp"

#include "core/module.hpp"
#include "physics/module_keys.hpp"
#include "physics/bvp/bvp.hpp"
#include "physics/elasticity/elasticity.hpp"
#include "physics/glioma/glioma.hpp"
#include "physics/heat/heat.hpp"
#include "physics/poisson/poisson.hpp"
#include "physics/reaction_diffusion/reaction_diffusion.hpp"

namespace tridsim {

void register_builtin_modules() {
  static const bool once = [] {
    register_module("bvp", "-u'' = f on an interval (Dirichlet/Neumann ends) by divide-and-conquer linear recurrences",
                    precision_factory<BvpModule>(), bvp_keys(), bvp_template());
    register_module("heat", "du/dt = div(kappa grad u) + f by Crank-Nicolson / ADI (Peaceman-Rachford, Douglas)",
                    precision_factory<HeatModule>(), heat_keys(), heat_template());
    register_module("poisson", "-Lap u = f with Dirichlet faces by block cyclic reduction (radix 2, 4) or sine transforms",
                    precision_factory<PoissonModule>(), poisson_keys(), poisson_template());
    register_module("glioma", "tumour growth dc/dt = div(D grad c) + rho c (1 - c) by Strang splitting and Douglas ADI",
                    precision_factory<GliomaModule>(), glioma_keys(), glioma_template());
    register_module("reaction_diffusion",
                    "M species with coupled (cross) diffusion and reactions by block-tridiagonal ADI (Douglas with "
                    "Strang-split reactions, or linearly implicit)",
                    precision_factory<ReactionDiffusionModule>(), reaction_diffusion_keys(), reaction_diffusion_template());
    register_module("elasticity",
                    "plane stress / plane strain linear elasticity on Q4 elements, load cases solved together by the "
                    "multifrontal sparse direct solver",
                    precision_factory<ElasticityModule>(), elasticity_keys(), elasticity_template());
    return true;
  }();
  (void)once;
}

}  // namespace tridsim
