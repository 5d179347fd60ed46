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
};

// Runs (or only validates) a deck; throws tridsim::Error on anything the user can fix.
void run_simulation(const RunOptions& options);

}  // namespace tridsim
