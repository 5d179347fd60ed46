#pragma once
// An error that one rank of a distributed run meets alone while the others go on (namespace
// tridsim): writing its outputs, its part of a step, its box's setup. The rank holds it and keeps
// taking part in every communication, so that the others reach the ranks' next agreement
// (core/domain.hpp `agree`: the time loop's one reduction per step, the end of a phase); there every
// rank throws the same error, and the run ends on every rank with one error line and exit 1.
// If no agreement comes within the patience given (another rank is stuck in a communication that
// the failed rank left, or has died), a watchdog thread prints the error with this rank's number
// and ends the job through MPI_Abort, the one way out that needs no other rank.
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace tridsim {

class HeldError {
 public:
  HeldError() = default;
  ~HeldError();  // (stops the watchdog)
  HeldError(const HeldError&) = delete;
  HeldError& operator=(const HeldError&) = delete;

  // Holds `message`, the first error only (a later one follows from it). `rank`: the rank that met
  // it, which every rank's error line then names ("rank 1 of 4: ..."), for an error of a rank's own
  // work; -1 for a message that places itself in the whole run (a deck key, a node of the whole
  // grid). `weight`: the agreement prefers the message of higher weight (one that names its node).
  // The watchdog starts: after `patience_s` seconds without an agreement it ends the job.
  void hold(const std::string& message, int rank, int weight, double patience_s);
  bool holds() const { return held_; }
  // Every rank's part of an agreement, with what this rank holds: returns the largest `stop` (a
  // signal number) of the ranks, or, where some rank holds an error, throws that error on every rank.
  int agree(int stop);

 private:
  void settle();  // stops the watchdog
  bool held_ = false;
  int rank_ = -1, weight_ = 0;
  std::string message_;
  std::thread watchdog_;
  std::mutex mutex_;
  std::condition_variable settled_signal_;
  bool settled_ = false;
};

}  // namespace tridsim
