#pragma once
// Floating-point environment of the compute threads (namespace tridsim).
#include <omp.h>
#if defined(__SSE__) || defined(__x86_64__)
#include <xmmintrin.h>
#endif

namespace tridsim {

// Flush subnormal numbers to zero on every OpenMP thread. A diffusion front decays into values
// below 1e-38 in float, and x86 arithmetic on subnormals is many times slower: the threads that
// hold them fall behind the others. Values that small are zero to every physics module here.
inline void flush_subnormals_to_zero() {
#if defined(__SSE__) || defined(__x86_64__)
#pragma omp parallel
  _mm_setcsr(_mm_getcsr() | 0x8040);  // FTZ | DAZ
#endif
}

// Subnormals flushed to zero (as above) while it lives, for a run and its check alike (a deck value
// of 1e-310 is zero to both); the calling thread gets its own setting back at the end (a Python
// process goes on).
class SubnormalsFlushed {
 public:
#if defined(__SSE__) || defined(__x86_64__)
  SubnormalsFlushed() : saved_(_mm_getcsr()) { flush_subnormals_to_zero(); }
  ~SubnormalsFlushed() { _mm_setcsr(saved_); }
#endif
  SubnormalsFlushed(const SubnormalsFlushed&) = delete;
  SubnormalsFlushed& operator=(const SubnormalsFlushed&) = delete;

 private:
  unsigned saved_ = 0;
};

}  // namespace tridsim
