#pragma once
// A module's `solver` key for block-tridiagonal lines (namespace tridsim): one GPU block-solver
// name for every axis, or a map {x:, y:, z:} (left out: the default of the module's key table
// `keys`). The cpu backend has one block solver (block Thomas, vectorized across lines) and accepts
// the names without effect; with cuda a name that cannot solve the lines
// (block_gpu_unsupported_reason) is refused at the deck line.
#include <array>

#include "core/backend.hpp"
#include "core/deck.hpp"
#include "core/grid.hpp"
#include "solvers/block_tridiagonal/block_gpu_algorithm.hpp"

namespace tridsim {

std::array<blocktri::BlockGpuAlgorithm, 3> read_block_solver(const DeckNode& section, const Grid& grid, int m,
                                                             Backend backend, const KeyTable& keys);

}  // namespace tridsim
