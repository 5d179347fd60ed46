#pragma once
// A module's `solver` key (namespace tridsim): one line-solver name for every axis, or a map {x:,
// y:, z:} (left out: the key table's default, auto). The cpu backend runs thomas, pcr or cr (the GPU variants of Thomas
// and auto mean thomas there). The cuda backend runs every family of the GPU contract
// (cuda/line_solve.cuh) with the module's load/store functors: thomas, thomas-naive, thomas-pcr
// and pcr (thomas-shuffle and cusparse solve arrays in place only); a name that cannot solve
// the module's lines (gpu_unsupported_reason: line-length limits) is refused at the deck line,
// and auto picks from the measured GPU table (tridiag::resolve_gpu_algorithm).
#include <array>
#include <string>

#include "core/backend.hpp"
#include "core/deck.hpp"
#include "core/grid.hpp"
#include "solvers/tridiagonal/line_solvers.hpp"
#include "solvers/tridiagonal/line_set.hpp"

namespace tridsim {

struct SolverChoice {
  std::array<tridiag::Algorithm, 3> cpu{};
  std::array<tridiag::GpuAlgorithm, 3> gpu{};
};

// Reads and checks the key for the given backend (cpu or cuda); `uniform` says whether the
// line matrices are constant-coefficient (auto's table distinguishes them); `keys` (the module's key
// table) gives the default of the key and of each axis. Throws DeckError.
SolverChoice read_solver_choice(const DeckNode& section, const Grid& grid, Backend backend,
                                std::size_t elem_bytes, bool uniform, const KeyTable& keys);

}  // namespace tridsim
