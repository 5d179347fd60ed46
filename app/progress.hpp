#pragma once
// Progress reporting (namespace tridsim): a redrawn bar with ETA on a terminal, a plain line every
// 10% otherwise. On stderr, beside the log: stdout holds the results a script may read.
#include <chrono>
#include <cstdio>
#include <string>

#include <fmt/format.h>
#include <unistd.h>

namespace tridsim {

class Progress {
 public:
  Progress(long total, bool enabled)
      : total_(total), enabled_(enabled), tty_(isatty(fileno(stderr))), start_(clock::now()) {}

  void update(long done, double t) {
    if (!enabled_) return;
    const double elapsed = seconds();
    const double eta = done > 0 ? elapsed * double(total_ - done) / double(done) : 0.0;
    const int percent = total_ > 0 ? int(100 * done / total_) : 100;
    if (tty_) {
      constexpr int width = 30;
      const int filled = width * percent / 100;
      // \x1b[K erases what a longer previous line left to the right
      fmt::print(stderr, "\r[{}{}] {:3d}% step {}/{} t={:.4g} elapsed {:.1f}s ETA {:.1f}s\x1b[K", std::string(filled, '#'),
                 std::string(width - filled, ' '), percent, done, total_, t, elapsed, eta);
      std::fflush(stderr);
    } else if (percent >= next_percent_ || done == total_) {
      fmt::print(stderr, "progress: {:3d}% step {}/{} t={:.6g} elapsed {:.2f}s ETA {:.2f}s\n", percent, done, total_, t,
                 elapsed, eta);
      std::fflush(stderr);
      while (next_percent_ <= percent) next_percent_ += 10;
    }
  }
  void finish() {
    if (enabled_ && tty_) fmt::print(stderr, "\n");
  }
  double seconds() const { return std::chrono::duration<double>(clock::now() - start_).count(); }

 private:
  using clock = std::chrono::steady_clock;
  long total_;
  bool enabled_;
  bool tty_;
  clock::time_point start_;
  int next_percent_ = 10;
};

}  // namespace tridsim
