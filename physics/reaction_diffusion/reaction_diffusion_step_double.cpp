#include "physics/reaction_diffusion/reaction_diffusion_step.hpp"

template void tridsim::ReactionDiffusionModule<double>::step_cpu(double t, double dt);
