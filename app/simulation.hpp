#pragma once
// The time-stepping driver (namespace tridsim): deck -> module -> steps -> writers -> summary.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "outputs/writer.hpp"

namespace tridsim {

struct RunOptions {
  std::filesystem::path deck;                  // the deck file (with deck_text: the name errors give it)
  std::optional<std::string> deck_text;        // the deck itself, read from no file (Python dicts)
  std::vector<std::string> sets;               // --set KEY=VALUE overrides, in order
  std::optional<std::filesystem::path> output;  // -o DIR
  std::optional<std::string> backend, precision;
  std::optional<int> threads;
  enum class Mode { run, check, bench } mode = Mode::run;
  int bench_steps = 0;  // bench: steps to time (0 = the deck's)
  bool no_progress = false;  // --no-progress
  bool quiet = false;        // -q: errors only
  std::optional<std::filesystem::path> restart;  // --restart CHECKPOINT

  // In-process runs (the Python module). The deck's output settings still choose the output
  // times; these say where the outputs go and how the caller follows and stops the run.
  bool files = true;          // false: no output directory, no files, no checkpoints
  WriterFactory capture;      // a writer beside the deck's formats (fields in memory), if set
  // After each step (s of the run's steps, at time t, end time end); true stops the run as SIGINT does.
  std::function<bool(long step, double t, double end)> on_step;
  std::function<void(const std::string& json)> on_summary;  // summary.json's text, for a run that ends
  bool catch_signals = true;  // false: SIGINT/SIGTERM/SIGHUP stay the caller's (it stops the run by on_step)
};

// Runs (or only validates) a deck; throws tridsim::Error on anything the user can fix. Returns
// the exit status: 0, or 128 + the signal that stopped the run (SIGINT, SIGTERM, SIGHUP: the
// step in progress is finished, a checkpoint and the outputs so far are written). A stop asked
// by on_step returns 128 + SIGINT.
int run_simulation(const RunOptions& options);

}  // namespace tridsim
