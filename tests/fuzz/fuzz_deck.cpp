// libFuzzer harness: the input bytes are a deck, checked as `tridsim check -q DECK` checks it
// (run_simulation in check mode: deck loading, every module's setup, unknown keys, output dir).
// A tridsim::Error is the expected answer to a bad deck; a crash, a sanitizer report, any other
// exception (libFuzzer reports it as a crash), a hang or a huge allocation is a bug.
// Build and run: tools/fuzz.sh (docs/testing.md, "Fuzzing and deck mutation").
#include <omp.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "app/simulation.hpp"
#include "core/deck.hpp"
#include "core/errors.hpp"

namespace {

namespace fs = std::filesystem;

// Check sets up the module, which allocates and fills its fields at every grid node. A legal
// deck of 10^9 points would make each input take seconds and gigabytes and hide the fuzzer's
// real findings behind -rss_limit_mb reports, so larger grids are skipped here; the limits on
// huge grids themselves are tested by tests/app/cli_test.sh. Decks whose grid cannot be read
// go on to check, which reports that error.
constexpr double kMaxFuzzPoints = 1e6;

bool grid_too_large(const std::string& text) {
  try {
    const auto n = tridsim::Deck::parse(text, "deck.yaml").root().child("grid").get<std::vector<long>>("n");
    double points = 1;
    for (const long a : n) points *= double(a);
    return points > kMaxFuzzPoints;
  } catch (const tridsim::Error&) {
    return false;
  }
}

// Each input is written to a deck file in a directory of its own, removed once checked (a crash
// leaves it behind). Check only reads: it probes output.dir without creating it.
class DeckFile {
 public:
  explicit DeckFile(const std::string& text) {
    std::string tmpl = (fs::temp_directory_path() / "tridsim-fuzz-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) std::abort();
    dir_ = tmpl;
    std::ofstream out(path(), std::ios::binary);
    out << text;
    if (!out) std::abort();
  }
  ~DeckFile() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  DeckFile(const DeckFile&) = delete;
  DeckFile& operator=(const DeckFile&) = delete;
  fs::path path() const { return dir_ / "deck.yaml"; }

 private:
  fs::path dir_;
};

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  spdlog::set_level(spdlog::level::off);  // warnings (e.g. a format not in this build) are noise here
  // A deck's reactions are compiled at setup (core/native_code.hpp): seconds per input that the
  // fuzzer would spend in the compiler. Its deck errors are the same interpreted; the compiled
  // kernels are tested against the interpreted ones by test_reaction_diffusion.
  ::setenv("TRIDSIM_CXX", "none", 0);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const int threads = omp_get_max_threads();
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (grid_too_large(text)) return -1;  // -1: libFuzzer keeps it out of the corpus
  const DeckFile deck(text);
  tridsim::RunOptions opt;
  opt.deck = deck.path();
  opt.mode = tridsim::RunOptions::Mode::check;
  opt.quiet = true;
  try {
    tridsim::run_simulation(opt);
  } catch (const tridsim::Error&) {
    // a clean refusal of a bad deck
  }
  omp_set_num_threads(threads);  // a deck's `threads` must not carry over to the next input
  return 0;
}
