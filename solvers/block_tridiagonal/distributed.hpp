#pragma once
// Block-tridiagonal lines split over the ranks of one axis (namespace tridsim::blocktri): the
// substructuring of solvers/tridiagonal/distributed.hpp for M-vectors per node, with the segment
// formulas of segment_reduction.hpp (shared with the GPU):
//   1. Reduce: each rank reduces its segment of every line to two block rows;
//   2. Exchange: every rank of the axis gathers the reduced rows of all lines (2 block rows per
//      rank per line, nothing else) and solves each line's reduced system (2P block rows);
//   3. Recover: each rank recovers its interiors from the two ends the reduced system gave.
// Blocks and right-hand sides are formed again in step 3 (no stored coefficients): `load` is
// called twice per line, before that line's store. The contract is the single-rank solver's
// (block_rows.hpp): load/store of component-major runs, and a block generator whose entry(o, r,
// i, j, A, B, C) takes the local node offset o and the row r of the WHOLE line (so that its ends
// are the whole line's), e.g. rd::CoupledRows with the whole line's n.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/domain.hpp"
#include "core/coupled_diffusion.hpp"
#include "core/errors.hpp"
#include "solvers/block_tridiagonal/segment_reduction.hpp"
#include "solvers/tridiagonal/distributed.hpp"

namespace tridsim::blocktri {

using tridiag::Segment;

// Solves every line of L (this rank's local lines along L.axis, block size m) whose rows are split
// over the ranks of `comm`; this rank holds rows `seg` of each. Throws SingularMatrix on every rank
// of the axis when a pivot block of some line is singular.
template <class T, class Blocks, class Load, class Store>
void solve_split_lines(int m, const LineSet& L, const Segment& seg, const Blocks& blocks, const Load& load,
                       const Store& store, LineComm& comm, Pivoting pivoting = Pivoting::partial) {
  if (L.count() == 0) return;
  if (seg.rows < 2) throw Error("distributed block line solve: every rank needs at least 2 rows of each line");
  const index_t rows = seg.rows, interior = rows - 2, lines = L.count();
  const int P = comm.size(), me = comm.rank(), K = 1 + 2 * m;
  const index_t rsz = reduced_row_size(m);
  const tridiag::detail::SplitTiles tiles(L, L.axis == 0 ? 1 : 16);
  const index_t stride = L.stride[L.axis];
  std::vector<T> send(2 * rsz * lines), recv(2 * rsz * lines * P), ends(2 * std::size_t(m) * lines);
  std::atomic<bool> singular{false};

  // The tile's right-hand sides, d[(k*m + s)*W + l] for segment row k, component s, lane l.
  auto load_tile = [&](index_t t, T* d, T* line) {
    const index_t w = tiles.lanes(t), W = tiles.width;
    if (L.axis == 0) {
      load(tiles.line_base(t) + seg.first_row, rows, line);
      for (index_t k = 0; k < rows; ++k)
        for (int s = 0; s < m; ++s) d[k * m + s] = line[s * rows + k];
      return;
    }
    for (index_t k = 0; k < rows; ++k) {
      load(tiles.base(t) + (seg.first_row + k) * stride, w, line);
      for (int s = 0; s < m; ++s)
        for (index_t l = 0; l < w; ++l) d[(k * m + s) * W + l] = line[s * w + l];
    }
  };
  auto store_tile = [&](index_t t, const T* d, T* line) {
    const index_t w = tiles.lanes(t), W = tiles.width;
    if (L.axis == 0) {
      for (index_t k = 0; k < rows; ++k)
        for (int s = 0; s < m; ++s) line[s * rows + k] = d[k * m + s];
      store(tiles.line_base(t) + seg.first_row, rows, line);
      return;
    }
    for (index_t k = 0; k < rows; ++k) {
      for (int s = 0; s < m; ++s)
        for (index_t l = 0; l < w; ++l) line[s * w + l] = d[(k * m + s) * W + l];
      store(tiles.base(t) + (seg.first_row + k) * stride, w, line);
    }
  };
  auto segment_of = [&](index_t t, index_t l) {
    const index_t base = (L.axis == 0 ? tiles.line_base(t) : tiles.base(t) + l) + seg.first_row * stride;
    return SegmentRows<T, Blocks>{blocks, m, base, stride, seg.global_row};
  };
  // Per-thread work space of the segment solves (interior rows, K columns at most).
  struct Work {
    std::vector<T> X, cs;
    SegmentWork<T, T*> w;
    Work(index_t n, int m, int K) : X(std::size_t(n) * m * K), cs(std::size_t(n) * m * m) { w.X = X.data(), w.cs = cs.data(); }
  };

  // 1. Reduce every segment to its two rows.
#pragma omp parallel
  {
    const index_t W = tiles.width;
    std::vector<T> d(std::size_t(rows) * m * W), line(std::size_t(rows) * m * W);
    Work work(interior, m, K);
#pragma omp for schedule(static)
    for (index_t t = 0; t < tiles.count; ++t) {
      load_tile(t, d.data(), line.data());
      for (index_t l = 0; l < tiles.lanes(t); ++l) {
        T* first = send.data() + 2 * rsz * tiles.line(t, l);
        auto dk = [&](index_t k, int s) { return d[(k * m + s) * W + l]; };
        if (!reduce_block_segment(m, rows, segment_of(t, l), dk, work.w, first, first + rsz, pivoting)) singular = true;
      }
    }
  }
  if (singular) std::fill(send.begin(), send.end(), std::numeric_limits<T>::quiet_NaN());

  // 2. Every rank gathers the reduced rows of all lines and solves the reduced systems.
  comm.wait(comm.start_allgather(send.data(), recv.data(), sizeof(T) * send.size()));
#pragma omp parallel
  {
    Work work(2 * P, m, 1);
#pragma omp for schedule(static)
    for (index_t q = 0; q < lines; ++q) {
      // row r: rank r / 2's first (even) or last row of line q
      auto row = [&](index_t r) { return recv.data() + ((r / 2 * lines + q) * 2 + r % 2) * rsz; };
      if (!solve_block_reduced(m, 2 * index_t(P), row, work.w, pivoting)) singular = true;
      std::copy(work.X.data() + 2 * me * m, work.X.data() + 2 * (me + 1) * m, ends.data() + 2 * q * m);
    }
  }
  // (the same on every rank of the axis: all solve the same systems, NaN rows where one failed)
  if (singular) throw singular_pivot_block("distributed block-tridiagonal solver", -1, pivoting);

  // 3. Recover the interiors from x_0 and x_{m-1} and store the segments.
#pragma omp parallel
  {
    const index_t W = tiles.width;
    std::vector<T> d(std::size_t(rows) * m * W), line(std::size_t(rows) * m * W);
    Work work(interior, m, 1);
#pragma omp for schedule(static)
    for (index_t t = 0; t < tiles.count; ++t) {
      load_tile(t, d.data(), line.data());
      for (index_t l = 0; l < tiles.lanes(t); ++l) {
        const T* x0 = ends.data() + 2 * m * tiles.line(t, l);
        auto dk = [&](index_t k, int s) -> T& { return d[(k * m + s) * W + l]; };
        auto put = [&](index_t k, int s, T x) { dk(k, s) = x; };
        // (recovery reads row k's right-hand side before it writes row k)
        if (!recover_block_segment(m, rows, segment_of(t, l), dk, x0, x0 + m, work.w, put, pivoting)) singular = true;
      }
      store_tile(t, d.data(), line.data());
    }
  }
  if (singular) throw singular_pivot_block("distributed block-tridiagonal solver", -1, pivoting);
}

}  // namespace tridsim::blocktri
