#pragma once
// Block-tridiagonal lines split over the ranks of one axis (namespace tridsim::blocktri): the
// substructuring of solvers/tridiagonal/distributed.hpp for M-vectors per node. A rank's segment
// of a line has rows k = 0..m-1 (m >= 2); x_{-1} and x_m are the neighbours' unknowns.
//   1. Reduce: the interior rows 1..m-2 are solved by block Thomas for 1 + 2M right-hand-side
//      columns at once, x_k = y_k - V_k x_0 - W_k x_{m-1} (y from d, V from A_1 moved to row 1's
//      right-hand side, W from C_{m-2} moved to row m-2's); rows 0 and m-1 with x_1 and x_{m-2}
//      substituted are the segment's two reduced rows
//        A_0 x_{-1} + (B_0 - C_0 V_1) x_0 - C_0 W_1 x_{m-1} = d_0 - C_0 y_1
//        -A_{m-1} V_{m-2} x_0 + (B_{m-1} - A_{m-1} W_{m-2}) x_{m-1} + C_{m-1} x_m = d_{m-1} - A_{m-1} y_{m-2}
//      (m = 2: rows 0 and 1 as they are).
//   2. Exchange: every rank of the axis gathers the reduced rows of all lines (2 block rows per
//      rank per line, nothing else) and solves each line's reduced system (2P block rows).
//   3. Recover: with x_0 and x_{m-1} known the interior is one block Thomas solve, its first and
//      last right-hand sides less A_1 x_0 and C_{m-2} x_{m-1}.
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
#include "solvers/block_tridiagonal/reference.hpp"
#include "solvers/tridiagonal/distributed.hpp"

namespace tridsim::blocktri {

using tridiag::Segment;

namespace detail {

// One reduced block row: A, B, C (m x m each, row-major) and d (m), in that order.
inline std::size_t reduced_row_size(int m) { return std::size_t(3 * m + 1) * m; }

// A segment of one line seen by the split solver: its blocks by segment row and its node offsets.
template <class T, class Blocks>
struct SegmentRows {
  const Blocks& blocks;
  int m;
  index_t base, stride, first_row, global_row;  // row k at node base + (first_row + k) * stride
  index_t node(index_t k) const { return base + (first_row + k) * stride; }
  void operator()(index_t k, T* A, T* B, T* C) const {
    const index_t o = node(k);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < m; ++j) blocks.entry(o, global_row + k, i, j, A[i * m + j], B[i * m + j], C[i * m + j]);
  }
};

// One of a segment's two rows (A, B, C, d at row[0], row[m*m], row[2*m*m], row[3*m*m]) with the
// neighbouring interior unknown x = y - V x_kept - W x_other substituted: X is that interior row's
// m x K block [y | V | W]; `kept` and `other` are the first columns of the blocks multiplying this
// row's own unknown and the segment's other end, `coupling` the offset of the block G multiplying
// x: B -= G X_kept, d -= G y, and G's slot takes the other end's block -G X_other.
template <class T>
void substitute(int m, int K, const T* X, T* row, int kept, int other, std::size_t coupling) {
  const std::size_t mm = std::size_t(m) * m;
  T* G = row + coupling;  // becomes the block of the segment's other end, G's neighbour in the reduced system
  T* B = row + mm;
  T GV[kMaxSpecies * kMaxSpecies], GW[kMaxSpecies * kMaxSpecies], Gy[kMaxSpecies];
  for (int i = 0; i < m; ++i) {
    T y = 0;
    for (int c = 0; c < m; ++c) y += G[i * m + c] * X[c * K];
    Gy[i] = y;
    for (int j = 0; j < m; ++j) {
      T v = 0, w = 0;
      for (int c = 0; c < m; ++c) v += G[i * m + c] * X[c * K + kept + j], w += G[i * m + c] * X[c * K + other + j];
      GV[i * m + j] = v, GW[i * m + j] = w;
    }
  }
  for (std::size_t e = 0; e < mm; ++e) B[e] -= GV[e], G[e] = -GW[e];
  for (int i = 0; i < m; ++i) row[3 * mm + i] -= Gy[i];
}

}  // namespace detail

// Solves every line of L (this rank's local lines along L.axis, block size m) whose rows are split
// over the ranks of `comm`; this rank holds rows `seg` of each. Throws SingularMatrix on every rank
// of the axis when a pivot block of some line is singular.
template <class T, class Blocks, class Load, class Store>
void solve_split_lines(int m, const LineSet& L, const Segment& seg, const Blocks& blocks, const Load& load,
                       const Store& store, LineComm& comm, Pivoting pivoting = Pivoting::partial) {
  if (L.count() == 0) return;
  if (seg.rows < 2) throw Error("distributed block line solve: every rank needs at least 2 rows of each line");
  const index_t rows = seg.rows, interior = rows - 2, lines = L.count(), mm = index_t(m) * m;
  const int P = comm.size(), me = comm.rank(), K = 1 + 2 * m;
  const std::size_t rsz = detail::reduced_row_size(m);
  const tridiag::detail::SplitTiles tiles(L, L.axis == 0 ? 1 : 16);
  const index_t stride = L.stride[L.axis];
  std::vector<T> send(2 * rsz * lines), recv(2 * rsz * lines * P), ends(2 * std::size_t(m) * lines);
  std::atomic<bool> singular{false};
  const T nan = std::numeric_limits<T>::quiet_NaN();

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
    const index_t base = L.axis == 0 ? tiles.line_base(t) : tiles.base(t) + l;
    return detail::SegmentRows<T, Blocks>{blocks, m, base, stride, seg.first_row, seg.global_row};
  };

  // 1. Reduce every segment to its two rows.
#pragma omp parallel
  {
    const index_t W = tiles.width;
    std::vector<T> d(std::size_t(rows) * m * W), line(std::size_t(rows) * m * W), X(std::size_t(interior) * m * K);
    std::vector<T> A(mm), B(mm), C(mm);
    BlockThomasWork<T> work(m, K, interior);
#pragma omp for schedule(static)
    for (index_t t = 0; t < tiles.count; ++t) {
      load_tile(t, d.data(), line.data());
      for (index_t l = 0; l < tiles.lanes(t); ++l) {
        const auto seg_rows = segment_of(t, l);
        T* first = send.data() + 2 * rsz * tiles.line(t, l);
        T* last = first + rsz;
        auto dk = [&](index_t k, int s) { return d[(k * m + s) * W + l]; };
        seg_rows(0, first, first + mm, first + 2 * mm);
        seg_rows(rows - 1, last, last + mm, last + 2 * mm);
        for (int s = 0; s < m; ++s) first[3 * mm + s] = dk(0, s), last[3 * mm + s] = dk(rows - 1, s);
        if (interior == 0) continue;  // m = 2: the rows as they are
        try {
          std::fill(X.begin(), X.end(), T(0));
          seg_rows(1, A.data(), B.data(), C.data());  // A_1 -> V's columns of interior row 0
          for (index_t k = 1; k <= interior; ++k)
            for (int s = 0; s < m; ++s) X[((k - 1) * m + s) * K] = dk(k, s);
          for (int i = 0; i < m; ++i)
            for (int j = 0; j < m; ++j) X[i * K + 1 + j] = A[i * m + j];
          seg_rows(rows - 2, A.data(), B.data(), C.data());  // C_{m-2} -> W's columns of the last interior row
          for (int i = 0; i < m; ++i)
            for (int j = 0; j < m; ++j) X[((interior - 1) * m + i) * K + 1 + m + j] = C[i * m + j];
          block_thomas(m, interior, K, [&](index_t r, T* a, T* b, T* c) { seg_rows(r + 1, a, b, c); }, X.data(), work,
                       pivoting, "distributed block Thomas");
        } catch (const SingularMatrix&) {
          singular = true;
          std::fill(first, last + rsz, nan);
          continue;
        }
        // Substitute x_1 and x_{m-2}: y, V, W of the first and last interior rows are columns of X.
        detail::substitute(m, K, X.data(), first, /*kept=*/1, /*other=*/1 + m, /*coupling=*/2 * mm);
        detail::substitute(m, K, X.data() + (interior - 1) * m * K, last, 1 + m, 1, 0);
      }
    }
  }
  if (singular) std::fill(send.begin(), send.end(), nan);  // every rank of the axis learns of it

  // 2. Every rank gathers the reduced rows of all lines and solves the reduced systems.
  comm.wait(comm.start_allgather(send.data(), recv.data(), sizeof(T) * send.size()));
  bool bad = false;
  for (const T v : recv)
    if (std::isnan(v)) {
      bad = true;
      break;
    }
  if (bad)
    throw SingularMatrix("distributed block-tridiagonal solver: singular pivot block (zero pivot)" +
                         std::string(pivoting == Pivoting::none ? "; partial pivoting may solve it" : ""));
#pragma omp parallel
  {
    std::vector<T> X(2 * std::size_t(P) * m);
    BlockThomasWork<T> work(m, 1, 2 * P);
#pragma omp for schedule(static)
    for (index_t q = 0; q < lines; ++q) {
      auto reduced = [&](index_t r, T* A, T* B, T* C) {  // row r: rank r / 2, its first (even) or last row
        const T* row = recv.data() + ((index_t(r / 2) * lines + q) * 2 + r % 2) * rsz;
        std::copy(row, row + mm, A);
        std::copy(row + mm, row + 2 * mm, B);
        std::copy(row + 2 * mm, row + 3 * mm, C);
      };
      for (index_t r = 0; r < 2 * P; ++r) {
        const T* row = recv.data() + ((r / 2 * lines + q) * 2 + r % 2) * rsz;
        std::copy(row + 3 * mm, row + 3 * mm + m, X.data() + r * m);
      }
      try {
        block_thomas(m, 2 * P, 1, reduced, X.data(), work, pivoting, "distributed block Thomas (reduced system)");
      } catch (const SingularMatrix&) {
        singular = true;  // the same on every rank of the axis: all ranks solve the same systems
      }
      std::copy(X.data() + 2 * me * m, X.data() + 2 * (me + 1) * m, ends.data() + 2 * q * m);
    }
  }
  if (singular)
    throw SingularMatrix("distributed block-tridiagonal solver: singular reduced system (zero pivot)" +
                         std::string(pivoting == Pivoting::none ? "; partial pivoting may solve it" : ""));

  // 3. Recover the interiors from x_0 and x_{m-1} and store the segments.
#pragma omp parallel
  {
    const index_t W = tiles.width;
    std::vector<T> d(std::size_t(rows) * m * W), line(std::size_t(rows) * m * W), X(std::size_t(interior) * m);
    std::vector<T> A(mm), B(mm), C(mm);
    BlockThomasWork<T> work(m, 1, interior);
#pragma omp for schedule(static)
    for (index_t t = 0; t < tiles.count; ++t) {
      load_tile(t, d.data(), line.data());
      for (index_t l = 0; l < tiles.lanes(t); ++l) {
        const auto seg_rows = segment_of(t, l);
        const T* x0 = ends.data() + 2 * m * tiles.line(t, l);
        const T* xl = x0 + m;
        auto dk = [&](index_t k, int s) -> T& { return d[(k * m + s) * W + l]; };
        if (interior > 0) {
          for (index_t k = 1; k <= interior; ++k)
            for (int s = 0; s < m; ++s) X[(k - 1) * m + s] = dk(k, s);
          seg_rows(1, A.data(), B.data(), C.data());
          dense_minus_product(m, 1, A.data(), x0, X.data());
          seg_rows(rows - 2, A.data(), B.data(), C.data());
          dense_minus_product(m, 1, C.data(), xl, X.data() + (interior - 1) * m);
          block_thomas(m, interior, 1, [&](index_t r, T* a, T* b, T* c) { seg_rows(r + 1, a, b, c); }, X.data(), work,
                       pivoting, "distributed block Thomas");
          for (index_t k = 1; k <= interior; ++k)
            for (int s = 0; s < m; ++s) dk(k, s) = X[(k - 1) * m + s];
        }
        for (int s = 0; s < m; ++s) dk(0, s) = x0[s], dk(rows - 1, s) = xl[s];
      }
      store_tile(t, d.data(), line.data());
    }
  }
}

}  // namespace tridsim::blocktri
