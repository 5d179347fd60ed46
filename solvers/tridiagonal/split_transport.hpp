#pragma once
// How the reduced systems of split lines cross the ranks of their axis, for the CPU
// (distributed.hpp) and GPU (cuda/distributed_cuda.cuh) split solves alike (namespace
// tridsim::tridiag): the transport, its automatic choice, and the all-to-all's chunks of a batch.
#include <cstddef>
#include <vector>

#include "core/types.hpp"

namespace tridsim::tridiag {

// How the reduced systems of split lines cross the ranks of the axis (P of them), per batch.
enum class SplitTransport {
  gather,    // all-gather: every rank receives (P-1) * 2 rows per line and solves every line
  alltoall,  // all-to-all: every rank receives about (P-1)/P * 2 rows per line, solves 1/P of the
             // lines and sends back 2 unknowns per line to each other rank (a second exchange)
};

// The automatic choice. The all-to-all saves received volume and reduced-solve work that grow with
// P, but pays a second exchange's latency per batch: at P = 2 it saves at most half of a small
// volume (bench_distributed measures a tie there and the all-to-all ahead from P = 4 on:
// docs/performance.md), and with few lines both exchanges are latency-bound, so gather there.
inline constexpr int kSplitAlltoallMinRanks = 3;
inline constexpr index_t kSplitAlltoallMinLines = 4096;
inline SplitTransport choose_split_transport(index_t lines, int ranks) {
  return ranks >= kSplitAlltoallMinRanks && lines >= kSplitAlltoallMinLines ? SplitTransport::alltoall
                                                                             : SplitTransport::gather;
}

// The all-to-all of a batch of lines [q0, q1): P contiguous chunks, sizes differing by at most one;
// rank r solves chunk r, lines [first(r), first(r + 1)). The exchanges' byte counts per rank, then
// offsets (2P entries), for `per_line` bytes per line.
struct SplitChunks {
  index_t q0, q1, P;
  index_t first(index_t r) const { return q0 + (q1 - q0) * r / P; }
  index_t size(index_t r) const { return first(r + 1) - first(r); }
  // Each line of chunk r to (or from) rank r, in line order.
  std::vector<std::size_t> by_chunk(std::size_t per_line) const {
    std::vector<std::size_t> v(2 * P);
    for (index_t r = 0; r < P; ++r) v[r] = per_line * size(r), v[P + r] = per_line * (first(r) - q0);
    return v;
  }
  // Each line of rank me's chunk from (or to) every rank, in rank order.
  std::vector<std::size_t> own_chunk(index_t me, std::size_t per_line) const {
    std::vector<std::size_t> v(2 * P);
    for (index_t r = 0; r < P; ++r) v[r] = per_line * size(me), v[P + r] = per_line * r * size(me);
    return v;
  }
};

}  // namespace tridsim::tridiag
