#pragma once
// Batched tridiagonal solves of lines split over the ranks of one axis (namespace tridsim::tridiag).
// Each rank holds one segment of every line (rows first_row .. first_row + rows - 1 of its local
// lines) and, per batch of lines:
//   1. reduces each segment to two rows that couple it to its neighbours (reduce_segments);
//   2. exchanges only those rows, while the next batch is reduced (SplitTransport): every rank
//      gathers the batch's reduced systems (2 rows per rank per line) and solves them all, keeping
//      its own two unknowns; or each rank is handed the reduced systems of 1/P of the lines, solves
//      them and sends every rank back its two unknowns (a second exchange);
//   3. forms its segments again from `load` and the row source and recovers the interiors from
//      the two unknowns the reduced system gave (recover_segments), writing them through `store`.
// Forming the segments twice costs one more read of the right-hand side but no stored
// coefficients (three arrays' traffic): `load` is called twice per line, before that line's store.
// With rows shared by every line, the sweep that writes the right-hand side may sum step 1's part
// as it goes (SplitRhsSums): the solve then reads only each segment's first and last rows there.
// The contract is the single-rank solver's (line_set.hpp, batched.hpp): load(offset, count, out)
// and store(offset, count, in) on memory-contiguous runs; the row source gives
// load_row(offset, count, global_row, a, b, c) (DiffusionCoeffs with the whole line's n,
// ConstantDiffusionRows). Each rank needs at least 2 rows.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <vector>

#include "core/aligned.hpp"
#include "core/domain.hpp"
#include "core/errors.hpp"
#include "solvers/tridiagonal/batched.hpp"
#include "solvers/tridiagonal/line_set.hpp"
#include "solvers/tridiagonal/segment_reduction.hpp"
#include "solvers/tridiagonal/split_rhs_sums.hpp"
#include "solvers/tridiagonal/split_transport.hpp"

namespace tridsim::tridiag {

// Where a split solve's time goes (seconds, added to by each call that is given one).
struct SplitTimes {
  double reduce = 0;         // loading the segments and reducing them
  double exchange = 0;       // waiting for the reduced rows of the other ranks
  double reduced_solve = 0;  // solving the gathered reduced systems
  double recover = 0;        // loading the segments again, recovering and storing them
};

namespace detail {
struct SummedRows {};  // the rows of a SplitRhsSums (shared, factored there)
}  // namespace detail
template <>
inline constexpr bool rows_shared_by_lines_v<detail::SummedRows> = true;

namespace detail {

// Lanes of one tile of split lines: for lines along y or z, up to tile<T> lines adjacent in x (each
// row a contiguous run); along x, up to tile<T> consecutive lines (each segment a contiguous run).
struct SplitTiles {
  const LineSet& L;
  index_t width, chunks, count;
  SplitTiles(const LineSet& lines, index_t w) : L(lines), width(w) {
    if (L.axis == 0) {
      chunks = 1;
      count = (L.count() + w - 1) / w;
    } else {
      chunks = (L.n[0] + w - 1) / w;
      count = chunks * L.n[L.axis == 1 ? 2 : 1];
    }
  }
  // Lanes of tile `t` and the offset of its first lane's row 0; lane stride for x-lines in `line`.
  index_t lanes(index_t t) const {
    if (L.axis == 0) return std::min(width, L.count() - t * width);
    return std::min(width, L.n[0] - (t % chunks) * width);
  }
  index_t base(index_t t) const {  // axis y, z: the run's first node at row 0
    return (t % chunks) * width + (t / chunks) * L.stride[L.axis == 1 ? 2 : 1];
  }
  index_t line_base(index_t q) const { return (q % L.n[1]) * L.stride[1] + (q / L.n[1]) * L.stride[2]; }  // axis x
  // The index of lane l of tile t among all lines (tiles in order cover lines in order).
  index_t line(index_t t, index_t l) const {
    if (L.axis == 0) return t * width + l;
    return (t / chunks) * L.n[0] + (t % chunks) * width + l;
  }
};

// Loads the segments of tile t into d (and their rows into a, b, c), element (row, lane) at
// row * width + lane.
template <class T, class Rows, class Load>
void load_tile(const SplitTiles& tiles, index_t t, const Segment& seg, const Rows& M, const Load& load, T* a, T* b, T* c,
               T* d, T* line) {
  constexpr bool rows = !rows_shared_by_lines_v<Rows>;
  const LineSet& L = tiles.L;
  const index_t w = tiles.lanes(t), W = tiles.width, m = seg.rows;
  if (L.axis == 0) {
    for (index_t l = 0; l < w; ++l) {
      const index_t o = tiles.line_base(t * W + l) + seg.first_row;
      load(o, m, line);
      for (index_t r = 0; r < m; ++r) {
        d[r * W + l] = line[r];
        if constexpr (rows) M.load_row(o + r, 1, seg.global_row + r, a + r * W + l, b + r * W + l, c + r * W + l);
      }
    }
  } else {
    const index_t s = L.stride[L.axis], o0 = tiles.base(t) + seg.first_row * s;
    for (index_t r = 0; r < m; ++r) {
      load(o0 + r * s, w, d + r * W);
      if constexpr (rows) M.load_row(o0 + r * s, w, seg.global_row + r, a + r * W, b + r * W, c + r * W);
    }
  }
}

template <class T, class Store>
void store_tile(const SplitTiles& tiles, index_t t, const Segment& seg, const Store& store, const T* d, T* line) {
  const LineSet& L = tiles.L;
  const index_t w = tiles.lanes(t), W = tiles.width, m = seg.rows;
  if (L.axis == 0) {
    for (index_t l = 0; l < w; ++l) {
      for (index_t r = 0; r < m; ++r) line[r] = d[r * W + l];
      store(tiles.line_base(t * W + l) + seg.first_row, m, line);
    }
  } else {
    const index_t s = L.stride[L.axis], o0 = tiles.base(t) + seg.first_row * s;
    for (index_t r = 0; r < m; ++r) store(o0 + r * s, w, d + r * W);
  }
}

// solve_split_lines, its segments' reduced right-hand sides summed already where `summed` is given
// (Rows = SummedRows).
template <class T, class Rows, class Load, class Store>
void solve_split(const LineSet& L, const Segment& seg, const Rows& M, const SplitRhsSums<T>* summed, const Load& load,
                 const Store& store, LineComm& comm, SplitTimes* times, std::optional<SplitTransport> transport) {
  if (L.count() == 0) return;
  if (seg.rows < 2) throw Error("distributed line solve: every rank needs at least 2 rows of each line");
  using Row = ReducedRow<T>;
  constexpr index_t W = tile<T>;
  const detail::SplitTiles tiles(L, W);
  const index_t m = seg.rows, P = comm.size(), me = comm.rank(), lines = L.count();
  const bool alltoall = transport.value_or(choose_split_transport(lines, int(P))) == SplitTransport::alltoall;
  // Batches of tiles: the exchange of one overlaps the reduction of the next. Rows are exchanged
  // per line (2 rows of each rank), in line order: send [line][2], recv [rank][line][2] (gather:
  // the batch's lines; all-to-all: this rank's chunk of them). The all-to-all's unknowns go back
  // from `solved` [rank][line of the chunk][2] (batch b at 2 (q0 + b P): a chunk has at most
  // nq / P + 1 lines) into `back` [line][2].
  const index_t nbatch = std::min<index_t>(tiles.count, 4), per = (tiles.count + nbatch - 1) / nbatch;
  // Work arrays are kept between calls (large fresh allocations would be page-faulted every step).
  struct Exchange {
    std::vector<Row> send, recv;
    std::vector<T> first, last, solved, back;
  };
  static thread_local Exchange calling_thread;  // (the OpenMP threads below use the caller's)
  // Named references, not a structured binding: lambdas below capture them (clang 14 refuses).
  auto& send = calling_thread.send;
  auto& recv = calling_thread.recv;
  auto& first = calling_thread.first;
  auto& last = calling_thread.last;
  auto& solved = calling_thread.solved;
  auto& back = calling_thread.back;
  send.assign(2 * lines, Row{});
  recv.resize(2 * lines * P);
  first.resize(lines);
  last.resize(lines);
  if (alltoall) {
    solved.resize(2 * (lines + nbatch * P));
    back.resize(2 * lines);
  }
  std::vector<int> request(nbatch, -1), returned(nbatch, -1);  // returned: the all-to-all's unknowns
  int moving = -1;  // the newest exchange in flight (-1: none), moved on while this rank computes
  constexpr bool shared = rows_shared_by_lines_v<Rows>;
  std::unique_ptr<FactoredSegment<T>> own;
  const FactoredSegment<T>* factored = summed ? &summed->factored() : nullptr;
  if constexpr (shared && !std::is_same_v<Rows, SummedRows>) {
    own = std::make_unique<FactoredSegment<T>>(FactoredSegment<T>::of_rows(M, seg));
    factored = own.get();
  }
  // Per-thread tile buffers: rows (row, lane) at row * W + lane.
  struct Buffers {
    AlignedVector<T> a, b, c, d, line, ends;
    std::vector<Row> rows;
    void size_for(index_t m, bool coefficients) {
      for (auto* v : {&a, &b, &c}) v->resize(coefficients ? m * W : 0);
      d.resize(m * W);
      line.resize(m);
      ends.resize(2 * W);
      rows.resize(2 * W);
    }
  };
  // Lines along y or z with shared rows: each row reduced or eliminated as it is loaded, as the
  // single-rank Thomas sweep does.
  const bool fused = shared && L.axis != 0;
  const index_t s = L.stride[L.axis];
  auto row_offset = [&](index_t t, index_t r) { return tiles.base(t) + (seg.first_row + r) * s; };
  // Row r of tile t's segments, lane l at out[l].
  auto load_row = [&](index_t t, index_t r, index_t w, T* out) {
    if (L.axis != 0) return load(row_offset(t, r), w, out);
    for (index_t l = 0; l < w; ++l) load(tiles.line_base(t * W + l) + seg.first_row + r, 1, out + l);
  };
  // Tile t's reduced rows into B.rows: [0, w) first unknowns, [w, 2w) last unknowns.
  auto reduce_one = [&](index_t t, Buffers& B) {
    const index_t w = tiles.lanes(t);
    if constexpr (shared) {
      T *first_d = B.ends.data(), *last_d = first_d + W;
      if (summed) {  // the interior's part is summed: add the first and last rows'
        summed->sums(tiles.line(t, 0), w, first_d, last_d);
        for (const index_t r : {index_t(0), m - 1}) {
          load_row(t, r, w, B.d.data());
          factored->add_row(r, w, B.d.data(), first_d, last_d);
        }
      } else if (fused) {  // one streaming pass over the rows
        std::fill(first_d, first_d + w, T(0));
        std::fill(last_d, last_d + w, T(0));
        for (index_t r = 0; r < m; ++r) {
          load(row_offset(t, r), w, B.d.data());
          factored->add_row(r, w, B.d.data(), first_d, last_d);
        }
      } else {
        detail::load_tile(tiles, t, seg, M, load, B.a.data(), B.b.data(), B.c.data(), B.d.data(), B.line.data());
        factored->reduce(W, w, B.d.data(), B.ends.data(), B.ends.data() + W);
      }
      for (index_t l = 0; l < w; ++l) {
        B.rows[l] = {factored->first.a, factored->first.c, B.ends[l]};
        B.rows[w + l] = {factored->last.a, factored->last.c, B.ends[W + l]};
      }
    } else {
      detail::load_tile(tiles, t, seg, M, load, B.a.data(), B.b.data(), B.c.data(), B.d.data(), B.line.data());
      reduce_segments(m, W, w, B.a.data(), B.b.data(), B.c.data(), B.d.data(), B.rows.data());
    }
  };
  // Tile t's segments formed again, their interiors recovered from x0 (first) and x1 (last), stored.
  auto recover_one = [&](index_t t, Buffers& B, const T* x0, const T* x1) {
    const index_t w = tiles.lanes(t);
    T* d = B.d.data();
    if constexpr (shared) {
      if (fused) {  // Thomas on the interior, its end values known (FactoredSegment::solve)
        std::copy(x0, x0 + w, d);
        for (index_t r = 1; r + 1 < m; ++r) {
          load(row_offset(t, r), w, d + r * W);
          factored->forward_row(r, w, d + r * W, d + (r - 1) * W);
        }
        std::copy(x1, x1 + w, d + (m - 1) * W);
        for (index_t r = m - 2; r >= 1; --r) factored->backward_row(r, w, d + r * W, d + (r + 1) * W);
        for (index_t r = 0; r < m; ++r) store(row_offset(t, r), w, d + r * W);  // in memory order
        return;
      }
      detail::load_tile(tiles, t, seg, M, load, B.a.data(), B.b.data(), B.c.data(), d, B.line.data());
      factored->solve(W, w, d, x0, x1);
    } else {
      detail::load_tile(tiles, t, seg, M, load, B.a.data(), B.b.data(), B.c.data(), d, B.line.data());
      reduce_segments(m, W, w, B.a.data(), B.b.data(), B.c.data(), d, B.rows.data());
      recover_segments(m, W, w, B.a.data(), B.c.data(), d, x0, x1);
    }
    detail::store_tile(tiles, t, seg, store, d, B.line.data());
  };
  struct Batch {
    index_t t0, t1, q0, q1;
  };
  auto batch = [&](index_t b) {
    const index_t t0 = std::min(tiles.count, b * per), t1 = std::min(tiles.count, (b + 1) * per);
    return Batch{t0, t1, t0 < t1 ? tiles.line(t0, 0) : lines, t0 < t1 ? tiles.line(t1 - 1, 0) + tiles.lanes(t1 - 1) : lines};
  };
  auto chunks = [&](const Batch& B) { return SplitChunks{B.q0, B.q1, P}; };
  // Solves the n reduced systems of `got` ([rank][line][2]: 2P rows each), G lines side by side (their
  // recurrences overlap); keep(i, g, x) takes the unknowns of lines i .. i + g - 1, row j of line
  // i + l at x[j * G + l].
  constexpr index_t G = 8;
  auto solve_gathered = [&](const Row* got, index_t n, const auto& keep) {
#pragma omp parallel
    {
      std::vector<T> cp(2 * P * G), x(2 * P * G);
#pragma omp for schedule(static)
      for (index_t i = 0; i < n; i += G) {
        const index_t g = std::min(G, n - i);
        solve_reduced_at<T>(
            2 * P, g, [&](index_t j, index_t l) { return got[2 * ((j / 2) * n + i + l) + j % 2]; },
            [&](index_t j, index_t l) -> T& { return cp[j * G + l]; }, [&](index_t j, index_t l) -> T& { return x[j * G + l]; });
        keep(i, g, x.data());
      }
    }
  };

  using clock = std::chrono::steady_clock;
  auto lap = [&](double SplitTimes::*part, clock::time_point& t0) {
    const auto now = clock::now();
    if (times) times->*part += std::chrono::duration<double>(now - t0).count();
    t0 = now;
  };
  // The exchange in flight moves on while this rank computes (the calling thread, every few tiles).
  auto keep_moving = [&](int req, index_t t) {
    if (t % 8 == 0 && omp_get_thread_num() == 0) comm.progress(req);
  };
  auto wait = [&](int req) {
    comm.wait(req);
    if (req == moving) moving = -1;
  };
  auto reduce = [&](index_t b) {
    const Batch B = batch(b);
    auto t0 = clock::now();
    const int in_flight = moving;
#pragma omp parallel
    {
      static thread_local Buffers buffers;
      buffers.size_for(m, !shared);
#pragma omp for schedule(static)
      for (index_t t = B.t0; t < B.t1; ++t) {
        keep_moving(in_flight, t);
        reduce_one(t, buffers);
        const index_t w = tiles.lanes(t);
        Row* out = send.data() + 2 * tiles.line(t, 0);
        for (index_t l = 0; l < w; ++l) {
          out[2 * l] = buffers.rows[l];
          out[2 * l + 1] = buffers.rows[w + l];
        }
      }
    }
    if (alltoall) {  // to rank r: this rank's rows of chunk r; from rank k: k's rows of this rank's chunk
      const auto out = chunks(B).by_chunk(2 * sizeof(Row)), in = chunks(B).own_chunk(me, 2 * sizeof(Row));
      request[b] = comm.start_alltoallv(send.data() + 2 * B.q0, out.data(), out.data() + P, recv.data() + 2 * B.q0 * P,
                                        in.data(), in.data() + P);
    } else {
      request[b] = comm.start_allgather(send.data() + 2 * B.q0, recv.data() + 2 * B.q0 * P, sizeof(Row) * 2 * (B.q1 - B.q0));
    }
    moving = request[b];
    lap(&SplitTimes::reduce, t0);
  };
  // All-to-all: this rank's chunk of batch b solved, every rank's two unknowns of it sent back.
  auto solve_chunk = [&](index_t b) {
    auto t0 = clock::now();
    wait(request[b]);
    lap(&SplitTimes::exchange, t0);
    const Batch B = batch(b);
    const index_t nc = chunks(B).size(me);
    T* out = solved.data() + 2 * (B.q0 + b * P);
    solve_gathered(recv.data() + 2 * B.q0 * P, nc, [&](index_t i, index_t g, const T* x) {
      for (index_t k = 0; k < P; ++k)
        for (index_t l = 0; l < g; ++l) {
          out[2 * (k * nc + i + l)] = x[2 * k * G + l];
          out[2 * (k * nc + i + l) + 1] = x[(2 * k + 1) * G + l];
        }
    });
    const auto to = chunks(B).own_chunk(me, 2 * sizeof(T)), from = chunks(B).by_chunk(2 * sizeof(T));
    returned[b] = comm.start_alltoallv(out, to.data(), to.data() + P, back.data() + 2 * B.q0, from.data(), from.data() + P);
    moving = returned[b];
    lap(&SplitTimes::reduced_solve, t0);
  };
  auto recover = [&](index_t b) {
    auto t0 = clock::now();
    wait(alltoall ? returned[b] : request[b]);
    lap(&SplitTimes::exchange, t0);
    const Batch B = batch(b);
    if (!alltoall) {
      const index_t nq = B.q1 - B.q0;
      solve_gathered(recv.data() + 2 * B.q0 * P, nq, [&](index_t i, index_t g, const T* x) {
        for (index_t l = 0; l < g; ++l) {
          first[B.q0 + i + l] = x[2 * me * G + l];
          last[B.q0 + i + l] = x[(2 * me + 1) * G + l];
        }
      });
      lap(&SplitTimes::reduced_solve, t0);
    }
    const int in_flight = moving;
#pragma omp parallel
    {
      static thread_local Buffers buffers;
      buffers.size_for(m, !shared);
#pragma omp for schedule(static)
      for (index_t t = B.t0; t < B.t1; ++t) {
        keep_moving(in_flight, t);
        const index_t q = tiles.line(t, 0);
        if (alltoall)
          for (index_t l = 0; l < tiles.lanes(t); ++l) {
            first[q + l] = back[2 * (q + l)];
            last[q + l] = back[2 * (q + l) + 1];
          }
        recover_one(t, buffers, first.data() + q, last.data() + q);
      }
    }
    lap(&SplitTimes::recover, t0);
  };
  // Batch b is reduced at step b, (all-to-all) solved at step b + 1 and recovered at step b + lag,
  // so each exchange overlaps the next step's work.
  const index_t lag = alltoall ? 2 : 1;
  for (index_t step = 0; step < nbatch + lag; ++step) {
    if (step < nbatch) reduce(step);
    if (alltoall && step >= 1 && step <= nbatch) solve_chunk(step - 1);
    if (step >= lag) recover(step - lag);
  }
}

}  // namespace detail

// Solves every line of L (this rank's local lines along L.axis) whose rows are split over the ranks
// of `comm`; this rank holds rows `seg` of each. `transport` forces one (none: choose_split_transport).
template <class T, class Rows, class Load, class Store>
void solve_split_lines(const LineSet& L, const Segment& seg, const Rows& M, const Load& load, const Store& store,
                       LineComm& comm, SplitTimes* times = nullptr, std::optional<SplitTransport> transport = {}) {
  detail::solve_split<T>(L, seg, M, static_cast<const SplitRhsSums<T>*>(nullptr), load, store, comm, times, transport);
}

// The same solve of the lines `summed` was started for, their right-hand sides' interior rows
// added to it (every one, once) since: `load` then gives the segments' first and last rows for the
// reduction and every row again for the recovery.
template <class T, class Load, class Store>
void solve_split_lines(const SplitRhsSums<T>& summed, const Load& load, const Store& store, LineComm& comm,
                       SplitTimes* times = nullptr, std::optional<SplitTransport> transport = {}) {
  detail::solve_split<T>(summed.lines(), summed.segment(), detail::SummedRows{}, &summed, load, store, comm, times,
                         transport);
}

}  // namespace tridsim::tridiag
