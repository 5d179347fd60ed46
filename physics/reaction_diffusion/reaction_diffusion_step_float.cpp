#include "physics/reaction_diffusion/reaction_diffusion_step.hpp"

template void tridsim::ReactionDiffusionModule<float>::step_cpu(double t, double dt);
