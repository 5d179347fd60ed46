#pragma once
// The time-stepping driver: deck -> module -> steps -> writers -> summary.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace tridsim {

struct RunOptions {
  std::filesystem::path deck;
  std::vector<std::string> sets;               // --set KEY=VALUE overrides, in order
  std::optional<std::filesystem::path> output;  // -o DIR
  std::optional<std::string> backend, precision;
  std::optional<int> threads;
  enum class Mode { run, check, bench } mode = Mode::run;
  int bench_steps = 0;  // bench: steps to time (0 = the deck's)
  bool no_progress = false;  // --no-progress
  bool quiet = false;        // -q: errors only
  std::optional<std::filesystem::path> restart;  // --restart CHECKPOINT
};

// Runs (or only validates) a deck; throws tridsim::Error on anything the user can fix. Returns
// the exit status: 0, or 128 + the signal that stopped the run (SIGINT, SIGTERM, SIGHUP: the
// step in progress is finished, a checkpoint and the outputs so far are written).
int run_simulation(const RunOptions& options);

}  // namespace tridsim
