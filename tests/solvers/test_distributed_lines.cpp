// Lines split over ranks (solvers/tridiagonal/distributed.hpp, core/domain.hpp): every rank solves
// its segments of a batch of random diagonally dominant lines, and the result must equal the
// single-process batched solve of the whole lines, for every split axis, awkward sizes and
// process grids, with both transports of the reduced systems (gather, all-to-all); the bytes sent
// must be the reduced rows (and the all-to-all's returned unknowns) only. Runs on any number of ranks
// (ctest label mpi: mpirun -np 1..4); on one rank it checks the decomposition arithmetic too. The
// ranks' agreement on a stop and on one rank's error (core/domain.hpp agree) is checked here too.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <omp.h>

#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "core/domain.hpp"
#include "solvers/block_tridiagonal/batched.hpp"
#include "solvers/block_tridiagonal/distributed.hpp"
#include "solvers/tridiagonal/batched.hpp"
#include "solvers/tridiagonal/distributed.hpp"
#include "tests/common/split_lines_cases.hpp"

using namespace tridsim;
using namespace tridsim::tridiag;
using namespace tridsim::testing;

namespace {

// The rows of a rank's local lines, from global node indices.
template <class T>
struct RowsFromGlobal {
  const Decomposition& d;
  Grid local;
  int axis;
  void load_row(index_t off, index_t count, index_t, T* A, T* B, T* C) const {
    for (index_t l = 0; l < count; ++l) {
      const index_t o = off + l, i = o % local.n[0], j = (o / local.n[0]) % local.n[1], k = o / (local.n[0] * local.n[1]);
      T dd;
      row_at(d.global, axis, i + d.axes[0].local_first(), j + d.axes[1].local_first(), k + d.axes[2].local_first(),
             A[l], B[l], C[l], dd);
    }
  }
};

const SplitTransport kTransports[] = {SplitTransport::gather, SplitTransport::alltoall};

// Split solve of every line along `axis` of g over `domain`; the largest relative difference on
// the owned nodes from the whole-line solve, and the bytes sent per line.
template <class T>
void check_split(const Grid& g, int axis, const Domain& domain, double tol, SplitTransport transport) {
  CAPTURE(transport == SplitTransport::gather ? "gather" : "alltoall");
  CAPTURE(g.n[0]);
  CAPTURE(g.n[1]);
  CAPTURE(g.n[2]);
  CAPTURE(axis);
  const Decomposition& d = domain.layout();
  // Reference: the whole grid on every rank.
  std::vector<T> a(g.size()), b(g.size()), c(g.size()), x(g.size());
  for (index_t k = 0; k < g.n[2]; ++k)
    for (index_t j = 0; j < g.n[1]; ++j)
      for (index_t i = 0; i < g.n[0]; ++i) {
        const index_t o = g.index(i, j, k);
        row_at(g, axis, i, j, k, a[o], b[o], c[o], x[o]);
      }
  solve_lines<T>(LineSet::dense(g, axis), ArrayCoeffs<T>{a.data(), b.data(), c.data()}, x.data());
  // This rank's part.
  const Grid l = d.local();
  std::vector<T> rhs(l.size()), out(l.size(), T(0));
  auto global_index = [&](index_t i, index_t j, index_t k) {
    return g.index(i + d.axes[0].local_first(), j + d.axes[1].local_first(), k + d.axes[2].local_first());
  };
  for (index_t k = 0; k < l.n[2]; ++k)
    for (index_t j = 0; j < l.n[1]; ++j)
      for (index_t i = 0; i < l.n[0]; ++i) {
        T aa, bb, cc;
        const index_t o = global_index(i, j, k);
        row_at(g, axis, o % g.n[0], (o / g.n[0]) % g.n[1], o / (g.n[0] * g.n[1]), aa, bb, cc, rhs[l.index(i, j, k)]);
      }
  const AxisSplit& s = d.axes[axis];
  const Segment seg = segment_of(s);
  LineComm& comm = domain.line_comm(axis);
  const std::size_t before = comm.bytes_sent();
  const LineSet lines = LineSet::dense(l, axis);
  solve_split_lines<T>(
      lines, seg, RowsFromGlobal<T>{d, l, axis},
      [&](index_t o, index_t n, T* dst) { std::copy(rhs.data() + o, rhs.data() + o + n, dst); },
      [&](index_t o, index_t n, const T* src) { std::copy(src, src + n, out.data() + o); }, comm, nullptr, transport);
  double worst = 0, scale = 0;
  for (index_t k = 0; k < l.n[2]; ++k)
    for (index_t j = 0; j < l.n[1]; ++j)
      for (index_t i = 0; i < l.n[0]; ++i) {
        if (!d.owns(i, j, k)) continue;
        const double ref = x[global_index(i, j, k)];
        worst = std::max(worst, std::abs(double(out[l.index(i, j, k)]) - ref));
        scale = std::max(scale, std::abs(ref));
      }
  CHECK(worst <= tol * scale);
  const std::size_t sent = comm.bytes_sent() - before, P = comm.size(), n = lines.count(), row = sizeof(ReducedRow<T>);
  if (transport == SplitTransport::gather) {
    // Only the reduced system crosses: 2 rows of each line to each other rank of the axis.
    CHECK(sent == (P - 1) * 2 * n * row);
    return;
  }
  // All-to-all, a rank solving s of the n lines: its 2 rows of each of the n - s lines solved
  // elsewhere to their solver, and the 2 unknowns of each line it solves back to each other rank.
  auto alltoall_bytes = [&](std::size_t s) { return 2 * (n - s) * row + (P - 1) * 2 * s * sizeof(T); };
  // Summed over the axis' ranks (each line solved once): 2 (P - 1) n (row + value), however the
  // lines are chunked. (Every rank of an axis group weighs its sends by P and names the group's
  // total, so that the sums over all groups of the process grid compare group by group.)
  CHECK(domain.sum(double(sent * P)) == domain.sum(double(2 * (P - 1) * n * (row + sizeof(T)))));
  // Each batch (at most 4) gives a rank n_b / P lines rounded down or up.
  bool fits = false;
  for (std::size_t s = n / P >= 4 ? n / P - 4 : 0; s <= std::min(n, n / P + 5); ++s) fits = fits || sent == alltoall_bytes(s);
  CHECK(fits);
  // One line (one batch): the last rank's chunk holds it.
  if (n == 1) CHECK(sent == alltoall_bytes(comm.rank() + 1 == comm.size() ? 1 : 0));
}

}  // namespace

TEST_CASE("split lines match the whole-line solve along every split axis") {
  for_each_split_axis([](const Grid& g, int axis, const Domain& domain) {
    for (const SplitTransport t : kTransports) {
      check_split<double>(g, axis, domain, 1e-13, t);
      check_split<float>(g, axis, domain, 2e-5, t);
    }
  });
}

// Rows shared by every line (ConstantDiffusionRows: the segment factored once) against the
// single-process solve with the factored uniform matrix, on every split axis. With `summed`, the
// reduced right-hand sides are summed first by a pass over runs of x-adjacent nodes
// (SplitRhsSums::add, runs in reverse order on 3 threads, as another sweep's store would give
// them); the runs carry garbage in each segment's first and last rows and in the halos, which the
// sums must leave to the solve's own loads and ignore.
void check_shared_rows(const Grid& g, int axis, const Domain& domain, SplitTransport transport, bool summed) {
  CAPTURE(transport == SplitTransport::gather ? "gather" : "alltoall");
  CAPTURE(summed);
  const Decomposition& d = domain.layout();
  const Grid l = d.local();
  const AxisSplit& s = d.axes[axis];
  const Segment seg = segment_of(s);
  const ConstantDiffusionRows<double> rows{0.7, g.n[axis], BoundaryKind::dirichlet, BoundaryKind::neumann};
  std::vector<double> x(g.size());
  for (index_t o = 0; o < g.size(); ++o) x[o] = noise(o, 5);
  std::vector<double> mine(l.size());
  domain.take_local(x.data(), mine.data());
  solve_lines<double>(LineSet::dense(g, axis),
                      uniform_diffusion_matrix<double>(g.n[axis], 0.7, BoundaryKind::dirichlet, BoundaryKind::neumann),
                      x.data());
  auto load = [&](index_t o, index_t n, double* dst) { std::copy(mine.data() + o, mine.data() + o + n, dst); };
  auto store = [&](index_t o, index_t n, const double* src) { std::copy(src, src + n, mine.data() + o); };
  LineComm& comm = domain.line_comm(axis);
  if (summed) {
    std::vector<double> fed = mine;
    for (index_t k = 0; k < l.n[2]; ++k)
      for (index_t j = 0; j < l.n[1]; ++j)
        for (index_t i = 0; i < l.n[0]; ++i) {
          const index_t r = std::array<index_t, 3>{i, j, k}[axis] - seg.first_row;
          if (r <= 0 || r >= seg.rows - 1) fed[l.index(i, j, k)] = 1e3;
        }
    const int threads = omp_get_max_threads();
    omp_set_num_threads(3);
    SplitRhsSums<double> sums;
    sums.start(LineSet::dense(l, axis), seg, rows);
    const index_t runs = l.n[1] * l.n[2];
#pragma omp parallel for schedule(static, 1)
    for (index_t q = runs - 1; q >= 0; --q) sums.add(q * l.n[0], l.n[0], fed.data() + q * l.n[0]);
    omp_set_num_threads(threads);
    solve_split_lines<double>(sums, load, store, comm, nullptr, transport);
  } else {
    solve_split_lines<double>(LineSet::dense(l, axis), seg, rows, load, store, comm, nullptr, transport);
  }
  double worst = 0;
  for (index_t k = 0; k < l.n[2]; ++k)
    for (index_t j = 0; j < l.n[1]; ++j)
      for (index_t i = 0; i < l.n[0]; ++i)
        if (d.owns(i, j, k))
          worst = std::max(worst, std::abs(mine[l.index(i, j, k)] - x[g.index(i + d.axes[0].local_first(),
                                                                                 j + d.axes[1].local_first(),
                                                                                 k + d.axes[2].local_first())]));
  CHECK(worst <= 1e-13);
}

TEST_CASE("split lines with shared rows match the uniform-matrix solve, reduced by the solve or summed before") {
  for_each_split_axis([](const Grid& g, int axis, const Domain& domain) {
    for (const SplitTransport transport : kTransports)
      for (const bool summed : {false, true}) check_shared_rows(g, axis, domain, transport, summed);
  });
}

TEST_CASE("split lines on a balanced process grid (two split axes with 4 ranks)") {
  for (const Grid& g : kSplitGrids) {
    if (g.dim < 2) continue;
    const Domain domain(g, {0, 0, 0});
    for (int axis = 0; axis < g.dim; ++axis)
      if (domain.layout().split(axis))
        for (const SplitTransport t : kTransports) check_split<double>(g, axis, domain, 1e-13, t);
  }
}

// Random block rows (M x M, block-diagonally dominant, full off-diagonal blocks) by global node, for
// the whole grid (local == nullptr) or a rank's local box; r is the row in the whole line.
struct BlockRowsFromGlobal {
  const Grid& g;
  const Decomposition* local = nullptr;
  int axis = 0, m = 1;
  void entry(index_t o, index_t r, int i, int j, double& A, double& B, double& C) const {
    if (local) {
      const Grid l = local->local();
      const index_t li = o % l.n[0], lj = (o / l.n[0]) % l.n[1], lk = o / (l.n[0] * l.n[1]);
      o = g.index(li + local->axes[0].local_first(), lj + local->axes[1].local_first(), lk + local->axes[2].local_first());
    }
    const int e = 4 + 3 * (i * m + j);
    A = r > 0 ? 0.5 * noise(o, e) / m : 0.0;
    C = r + 1 < g.n[axis] ? 0.5 * noise(o, e + 1) / m : 0.0;
    B = i == j ? 2.5 + noise(o, e + 2) : 0.3 * noise(o, e + 2) / m;
  }
};

TEST_CASE("split block lines match the whole-line block solve along every split axis") {
  for (const int m : {1, 2, 3, 5}) {
    CAPTURE(m);
    for_each_split_axis([m](const Grid& g, int axis, const Domain& domain) {
      const Decomposition& d = domain.layout();
      const Grid l = d.local();
      std::vector<double> x(g.size() * m);
      for (index_t o = 0; o < g.size() * m; ++o) x[o] = noise(o, 1000);
      std::vector<double> mine(l.size() * m);
      domain.take_local(x.data(), mine.data(), m);
      blocktri::solve_lines<double>(m, LineSet::dense(g, axis), BlockRowsFromGlobal{g, nullptr, axis, m}, x.data());
      const AxisSplit& s = d.axes[axis];
      LineComm& comm = domain.line_comm(axis);
      const std::size_t before = comm.bytes_sent();
      const LineSet lines = LineSet::dense(l, axis);
      const blocktri::InterleavedAccess<double> access{mine.data(), m};
      blocktri::solve_split_lines<double>(
          m, lines, segment_of(s), BlockRowsFromGlobal{g, &d, axis, m},
          [&](index_t o, index_t n, double* dst) { access.load(o, n, dst); },
          [&](index_t o, index_t n, const double* src) { access.store(o, n, src); }, comm);
      double worst = 0, scale = 0;
      for (index_t k = 0; k < l.n[2]; ++k)
        for (index_t j = 0; j < l.n[1]; ++j)
          for (index_t i = 0; i < l.n[0]; ++i)
            for (int c = 0; c < m; ++c) {
              if (!d.owns(i, j, k)) continue;
              const double ref = x[g.index(i + d.axes[0].local_first(), j + d.axes[1].local_first(),
                                           k + d.axes[2].local_first()) * m + c];
              worst = std::max(worst, std::abs(mine[l.index(i, j, k) * m + c] - ref));
              scale = std::max(scale, std::abs(ref));
            }
      CHECK(worst <= 1e-13 * scale);
      // Only the reduced system crosses: 2 block rows (3 blocks and an m-vector) per line per other rank.
      CHECK(comm.bytes_sent() - before ==
            std::size_t(comm.size() - 1) * 2 * lines.count() * (3 * m + 1) * m * sizeof(double));
    });
  }
}

// A zero row of blocks in the middle of every line: on whichever rank it lies (interior or end of
// a segment), every rank of the axis learns of it through the reduced rows and throws.
TEST_CASE("a singular pivot block in one rank's segment throws SingularMatrix on every rank") {
  struct ZeroRow : BlockRowsFromGlobal {
    index_t zero;
    void entry(index_t o, index_t r, int i, int j, double& A, double& B, double& C) const {
      BlockRowsFromGlobal::entry(o, r, i, j, A, B, C);
      if (r == zero) A = B = C = 0;
    }
  };
  const int m = 2;
  for_each_split_axis([](const Grid& g, int axis, const Domain& domain) {
    const Decomposition& d = domain.layout();
    const Grid l = d.local();
    std::vector<double> mine(l.size() * m, 1.0);
    const AxisSplit& s = d.axes[axis];
    const blocktri::InterleavedAccess<double> access{mine.data(), m};
    for (const index_t zero : {g.n[axis] / 2, s.first + 1}) {  // (the second: a row each rank owns)
      CAPTURE(zero);
      CHECK_THROWS_AS(blocktri::solve_split_lines<double>(
                          m, LineSet::dense(l, axis), segment_of(s),
                          ZeroRow{{g, &d, axis, m}, zero}, [&](index_t o, index_t n, double* dst) { access.load(o, n, dst); },
                          [&](index_t o, index_t n, const double* src) { access.store(o, n, src); }, domain.line_comm(axis)),
                      SingularMatrix);
    }
  });
}

TEST_CASE("halo exchange fills every halo node with the neighbour's owned value") {
  for (const Grid& g : kSplitGrids) {
    const Domain domain(g, {0, 0, 0});
    const Decomposition& d = domain.layout();
    const Grid l = d.local();
    std::vector<double> u(l.size() * 2, -1.0);
    auto value = [&](index_t i, index_t j, index_t k, int comp) {
      return double(g.index(i + d.axes[0].local_first(), j + d.axes[1].local_first(), k + d.axes[2].local_first())) + 0.5 * comp;
    };
    for (index_t k = 0; k < l.n[2]; ++k)
      for (index_t j = 0; j < l.n[1]; ++j)
        for (index_t i = 0; i < l.n[0]; ++i)
          if (d.owns(i, j, k))
            for (int c = 0; c < 2; ++c) u[2 * l.index(i, j, k) + c] = value(i, j, k, c);
    domain.exchange_halos(u.data(), 2);
    domain.exchange_halos(u.data(), 2);  // the persistent requests again
    int wrong = 0;
    for (index_t k = 0; k < l.n[2]; ++k)
      for (index_t j = 0; j < l.n[1]; ++j)
        for (index_t i = 0; i < l.n[0]; ++i) {
          // A face halo (one coordinate outside the owned range) holds the neighbour's value.
          int outside = 0;
          for (int a = 0; a < 3; ++a) {
            const index_t p = a == 0 ? i : a == 1 ? j : k;
            outside += p < d.axes[a].halo_lo || p >= d.axes[a].halo_lo + d.axes[a].owned;
          }
          if (outside <= 1)
            for (int c = 0; c < 2; ++c) wrong += u[2 * l.index(i, j, k) + c] != value(i, j, k, c);
        }
    CHECK(wrong == 0);
  }
}

TEST_CASE("gather puts every rank's owned box in its place") {
  for (const Grid& g : kSplitGrids) {
    const Domain domain(g, {0, 0, 0});
    const Decomposition& d = domain.layout();
    const Grid l = d.local();
    std::vector<double> u(l.size());
    for (index_t k = 0; k < l.n[2]; ++k)
      for (index_t j = 0; j < l.n[1]; ++j)
        for (index_t i = 0; i < l.n[0]; ++i)
          u[l.index(i, j, k)] = d.owns(i, j, k) ? double(g.index(i + d.axes[0].local_first(), j + d.axes[1].local_first(),
                                                                 k + d.axes[2].local_first()))
                                                : -1.0;
    std::vector<double> all(domain.rank() == 0 ? g.size() : 0, -2.0);
    domain.gather(u.data(), all.data());
    if (domain.rank() == 0)
      for (index_t o = 0; o < g.size(); ++o) REQUIRE(all[o] == double(o));
    CHECK(domain.sum(1.0) == double(domain.size()));
  }
}

TEST_CASE("an agreement gives every rank the largest stop and the error of one failed rank") {
  const int P = world_size(), r = world_rank();
  Agreement a = agree(r + 1, nullptr);  // nothing held
  CHECK(a.stop == P);
  CHECK(a.failed_rank == -1);
  CHECK(a.failure.empty());
  // The last rank alone fails, with a message longer than any fixed buffer.
  const std::string last = "rank " + std::to_string(P - 1) + " failed: " + std::string(5000, 'x');
  a = agree(0, r == P - 1 ? &last : nullptr);
  CHECK(a.stop == 0);
  CHECK(a.failed_rank == P - 1);
  CHECK(a.failure == last);
  // Ranks 0 and P - 1 fail alike: the lowest; with more weight, the last rank's.
  const std::string mine = "rank " + std::to_string(r);
  const bool fails = r == 0 || r == P - 1;
  a = agree(r == 0 ? 15 : 0, fails ? &mine : nullptr);
  CHECK(a.stop == 15);
  CHECK(a.failed_rank == 0);
  CHECK(a.failure == "rank 0");
  a = agree(0, fails ? &mine : nullptr, r == P - 1 ? 1 : 0);
  CHECK(a.failed_rank == P - 1);
  CHECK(a.failure == "rank " + std::to_string(P - 1));
}

TEST_CASE("balanced splits and process grids") {
  // 10 nodes over 3 parts: 4, 3, 3, contiguous, with halos between.
  const AxisSplit s0 = split_axis(10, 3, 0), s1 = split_axis(10, 3, 1), s2 = split_axis(10, 3, 2);
  CHECK(s0.owned == 4);
  CHECK(s1.first == 4);
  CHECK(s1.owned == 3);
  CHECK(s2.first == 7);
  CHECK(s0.halo_lo == 0);
  CHECK(s0.halo_hi == 1);
  CHECK(s1.local_n() == 5);
  CHECK(s2.local_first() == 6);
  Grid g;
  g.dim = 3;
  g.n = {64, 64, 64};
  CHECK(balanced_process_grid(g, 2) == std::array<int, 3>{1, 1, 2});  // z first
  CHECK(balanced_process_grid(g, 4) == std::array<int, 3>{1, 2, 2});
  g.n = {64, 64, 4};  // 3 cuts of y copy fewer nodes than one of y and one of z
  CHECK(balanced_process_grid(g, 4) == std::array<int, 3>{1, 4, 1});
  CHECK(balanced_process_grid(g, 3) == std::array<int, 3>{1, 3, 1});
  CHECK(process_grid_problem(g, {1, 1, 3}).find("fewer than 2") != std::string::npos);
  g.dim = 1;
  g.n = {5, 1, 1};
  CHECK(balanced_process_grid(g, 3) == std::array<int, 3>{0, 0, 0});
  // The local grid carries the whole grid's coordinates.
  g.dim = 2;
  g.n = {11, 21, 1};
  g.hi = {1, 2, 1};
  const Decomposition d = decompose(g, {1, 2, 1}, {0, 1, 0});
  const Grid l = d.local();
  CHECK(l.n[1] == 11);  // nodes 11..20 owned (rank 0 has 11), node 10 the halo below
  CHECK(l.lo[1] == doctest::Approx(1.0));
  CHECK(l.h(1) == doctest::Approx(g.h(1)));
}

int main(int argc, char** argv) {
  init_processes(&argc, &argv);
  doctest::Context context(argc, argv);
  int rc = context.run();
  finish_processes();
  return rc;
}
