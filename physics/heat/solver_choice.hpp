#pragma once
// The heat module's `solver` key: one line-solver name for every axis, or a map {x:, y:, z:}
// (axes left out: auto). The cpu backend runs thomas, pcr or cr (the GPU variants of Thomas and
// auto mean thomas there); the cuda backend's sweeps are fused with the right-hand side and the
// update, and run thomas (local transposition on x), thomas-pcr (lines of at most 512 points;
// on y and z with a constant diffusivity only) or thomas-naive (y, z); auto picks among those by
// the measured GPU table
// (tridiag::resolve_gpu_algorithm).
#include <array>

#include "core/backend.hpp"
#include "core/deck.hpp"
#include "core/grid.hpp"
#include "solvers/tridiagonal/gpu_algorithm.hpp"
#include "solvers/tridiagonal/line_set.hpp"

namespace tridsim {

struct SolverChoice {
  std::array<tridiag::Algorithm, 3> cpu{};
  std::array<tridiag::GpuAlgorithm, 3> gpu{};
};

// Reads and checks the key for the given backend (cpu or cuda); `uniform` says whether the
// line matrices are constant-coefficient (auto's table distinguishes them). Throws DeckError.
SolverChoice read_solver_choice(const DeckNode& section, const Grid& grid, Backend backend,
                                std::size_t elem_bytes, bool uniform);

}  // namespace tridsim
