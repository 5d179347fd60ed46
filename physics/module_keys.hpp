#pragma once
// The key table of each built-in module's deck section (namespace tridsim; core/deck_keys.hpp):
// what the deck reader checks a deck against, `tridsim info MODULE` prints and `tridsim new
// MODULE` writes from.
// Each lives beside its module (physics/NAME/NAME_keys.cpp); paths start at the section's name.
// NAME_template() is the body of `tridsim new NAME`: a small deck that runs as it is.
#include <string>

#include "core/deck_keys.hpp"

namespace tridsim {
KeyTable heat_keys();
KeyTable poisson_keys();
KeyTable bvp_keys();
KeyTable glioma_keys();
KeyTable reaction_diffusion_keys();
KeyTable elasticity_keys();
std::string heat_template();
std::string poisson_template();
std::string bvp_template();
std::string glioma_template();
std::string reaction_diffusion_template();
std::string elasticity_template();
}  // namespace tridsim
