#pragma once
// Checkpoint files (namespace tridsim): one HDF5 file with a module's state (Module::state) and
// what is needed to continue the run from it: the step, the time, the grid, the module and
// precision, the resolved deck, the run's name and deck file, tridsim's version and revision.
// Written under a temporary name and renamed when complete.
//
// Layout: attributes dim, step (int64), time (double), n (int64[3]), lo, hi (double[3]); datasets
// format, module, precision, version, revision, deck, name, deck_file (text as bytes; name and
// deck_file absent from older checkpoints); /state/NAME, one per array.
#include <filesystem>
#include <span>
#include <string>

#include "core/grid.hpp"
#include "core/module.hpp"

namespace tridsim {

class Domain;

struct CheckpointInfo {
  std::string module, precision, version, revision, deck;
  long step = 0;
  double time = 0;
  Grid grid;
  std::string name, deck_file;  // the run's output base name; the deck's absolute path (empty: unknown)
};

// With a `domain` whose ranks write HDF5 files together (outputs/hdf5_xdmf_writer.hpp
// hdf5_collective), every rank calls it with the same path and its local arrays (domain.local()
// nodes), and the file is the one a single process writes; otherwise `state` is the whole grid's.
void write_checkpoint(const std::filesystem::path& path, const CheckpointInfo& info, std::span<const StateArray> state,
                      const Domain* domain = nullptr);
CheckpointInfo read_checkpoint_info(const std::filesystem::path& path);
// Fills `state` from the file: every array must be there with the same count and precision.
void read_checkpoint_state(const std::filesystem::path& path, std::span<const StateArray> state);

}  // namespace tridsim
