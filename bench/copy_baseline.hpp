#pragma once
// The CPU copy-bandwidth baselines every CPU benchmark reports beside its own bytes/s, so that a
// solver's speed reads as a fraction of what this machine copies in the same run:
//   copy/omp/134MB              all threads, each memcpy-ing its static share of 2^27 bytes
//                               (one 256^3 double array; may run partly from a large L3)
//   copy/omp/1074MB             the same with 2^30 bytes, beyond any last-level cache
//   copy/memcpy_1thread/134MB   one std::memcpy
// bytes = read + write = 2 * size.
#include <benchmark/benchmark.h>
#include <omp.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

#include "core/types.hpp"

namespace tridsim::bench {

// 64-byte aligned storage, first touched in parallel (so pages land near the threads that use
// them with the static schedules below).
struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
template <class T>
using Buffer = std::unique_ptr<T[], FreeDeleter>;

template <class T>
inline Buffer<T> make_buffer(tridsim::index_t count) {
  const std::size_t bytes = ((sizeof(T) * std::size_t(count) + 63) / 64) * 64;
  T* p = static_cast<T*>(std::aligned_alloc(64, bytes));
  if (!p) throw std::bad_alloc();
  return Buffer<T>(p);
}

inline void bm_copy(benchmark::State& state, std::size_t bytes, bool parallel) {
  using W = double;
  const tridsim::index_t count = tridsim::index_t(bytes / sizeof(W));
  Buffer<W> src = make_buffer<W>(count), dst = make_buffer<W>(count);
  W *S = src.get(), *D = dst.get();
#pragma omp parallel for schedule(static)
  for (tridsim::index_t i = 0; i < count; ++i) {
    S[i] = W(i);
    D[i] = 0;
  }
  for (auto _ : state) {
    if (parallel) {
#pragma omp parallel
      {
        const tridsim::index_t nt = omp_get_num_threads(), t = omp_get_thread_num();
        const tridsim::index_t lo = count * t / nt, hi = count * (t + 1) / nt;
        std::memcpy(D + lo, S + lo, sizeof(W) * std::size_t(hi - lo));
      }
    } else {
      std::memcpy(D, S, bytes);
    }
    benchmark::ClobberMemory();
  }
  state.counters["bytes/s"] =
      benchmark::Counter(2.0 * double(bytes), benchmark::Counter::kIsIterationInvariantRate);
}

inline void register_copy_baselines() {
  constexpr std::size_t small = std::size_t(1) << 27, large = std::size_t(1) << 30;
  benchmark::RegisterBenchmark("copy/omp/134MB", [](benchmark::State& st) { bm_copy(st, small, true); })
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
  benchmark::RegisterBenchmark("copy/omp/1074MB", [](benchmark::State& st) { bm_copy(st, large, true); })
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
  benchmark::RegisterBenchmark("copy/memcpy_1thread/134MB", [](benchmark::State& st) { bm_copy(st, small, false); })
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
}

}  // namespace tridsim::bench
