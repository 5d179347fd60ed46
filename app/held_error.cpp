#include "app/held_error.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>

#include "core/domain.hpp"
#include "core/errors.hpp"

namespace tridsim {

namespace {
std::string with_rank(int rank, const std::string& message) {
  return rank < 0 ? message : fmt::format("rank {} of {}: {}", rank, world_size(), message);
}
}  // namespace

HeldError::~HeldError() { settle(); }

void HeldError::hold(const std::string& message, int rank, int weight, double patience_s) {
  if (held_) return;
  held_ = true;
  message_ = message;
  rank_ = rank;
  weight_ = weight;
  watchdog_ = std::thread([this, patience_s] {
    std::unique_lock lock(mutex_);
    if (settled_signal_.wait_for(lock, std::chrono::duration<double>(patience_s), [this] { return settled_; })) return;
    std::fprintf(stderr, "error: %s\n", with_rank(rank_ < 0 ? world_rank() : rank_, message_).c_str());
    std::fflush(stderr);
    abort_processes(1);
  });
}

int HeldError::agree(int stop) {
  const std::string text = with_rank(rank_, message_);
  const Agreement a = tridsim::agree(stop, held_ ? &text : nullptr, weight_);
  if (a.failed_rank < 0) return a.stop;
  settle();  // (every rank ends now, together)
  throw Error(a.failure);
}

void HeldError::settle() {
  {
    std::lock_guard lock(mutex_);
    settled_ = true;
  }
  settled_signal_.notify_all();
  if (watchdog_.joinable()) watchdog_.join();
}

}  // namespace tridsim
