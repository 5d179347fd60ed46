#pragma once
// The reaction-diffusion module's state and steps on a CUDA device (namespace tridsim).
// ReactionDiffusionModule keeps the deck and the output; u (interleaved per node) stays in device
// memory and crosses to the host only for output (on several ranks, halos and the reduced rows of
// split lines cross between ranks: core/device_halos.cuh, cuda/distributed_block_cuda.cuh). Same discretization and order of operations as
// the CPU path (reaction_diffusion.cpp): the stencils and block rows of rd_stencil.hpp, the
// block-tridiagonal GPU solvers (solvers/block_tridiagonal/cuda), and the reactions as device code
// that NVRTC compiles from the deck's expressions (Reactions::device_source).
#include <array>
#include <memory>
#include <string>

#include "core/field_stats.hpp"
#include "core/grid.hpp"
#include "physics/reaction_diffusion/rd_stencil.hpp"
#include "solvers/block_tridiagonal/block_gpu_algorithm.hpp"
#include "solvers/block_tridiagonal/block_rows.hpp"

namespace tridsim {

class Domain;

template <class T>
class ReactionDiffusionGpu {
 public:
  struct Setup {
    Grid grid;
    int m = 1;
    rd::Lattice<T> lattice;
    rd::DiffusionMatrix<T> D;               // constant D (D.node is ignored: see D_node)
    const T* D_node = nullptr;              // host D per node (interleaved), or null
    const T* boundary_source = nullptr;     // host Neumann source per node and species, or null
    const unsigned char* fixed = nullptr;   // host mask of Dirichlet nodes, or null
    bool linearly_implicit = false;
    int substeps = 1;
    std::string reaction_source;            // NVRTC source of rd_react / rd_linearize; empty: no reactions
    std::array<blocktri::BlockGpuAlgorithm, 3> solver{};
    blocktri::Pivoting pivoting = blocktri::Pivoting::partial;
    const Domain* domain = nullptr;         // several ranks: grid is this rank's local box
    bool deck_dirichlet[3][2] = {};         // the deck's Dirichlet faces (ends of split lines)
  };
  explicit ReactionDiffusionGpu(const Setup& s);
  ~ReactionDiffusionGpu();
  ReactionDiffusionGpu(const ReactionDiffusionGpu&) = delete;
  ReactionDiffusionGpu& operator=(const ReactionDiffusionGpu&) = delete;

  void upload_u(const T* u);
  void download_u(T* u) const;
  // The steps are queued on the default stream; synchronize() waits (and reports their errors).
  void step_douglas(double t, double dt);
  void step_linearly_implicit(double t, double dt);
  void synchronize();
  // Statistics of species k, reduced on the device.
  FieldStats stats(const StatsSpec& s, int k) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tridsim
