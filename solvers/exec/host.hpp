#pragma once
// The host executor of the backend-generic layer (points.hpp; namespace tridsim::exec): fields in
// host memory, points in OpenMP-parallel, SIMD-vectorized runs of x-adjacent nodes, lines by the
// CPU batched solvers (tridiagonal/batched.hpp) and, along axes split over ranks, the distributed
// ones (tridiagonal/distributed.hpp). Their contract reads and writes runs, load(o, count, out)
// and store(o, count, in); a point functor is called across such a run, the run cut where the x
// neighbours change (the box faces) so that every part is one vectorized loop with constant offsets.
#include <algorithm>
#include <array>
#include <type_traits>

#include "core/aligned.hpp"
#include "core/field_stats.hpp"
#include "solvers/exec/points.hpp"
#include "solvers/tridiagonal/batched.hpp"
#include "solvers/tridiagonal/distributed.hpp"

namespace tridsim::exec {

// f(std::integral_constant<int, dim>) for dim = 1, 2, 3.
template <class F>
void with_dim(int dim, const F& f) {
  if (dim == 1) f(std::integral_constant<int, 1>{});
  else if (dim == 2) f(std::integral_constant<int, 2>{});
  else f(std::integral_constant<int, 3>{});
}

template <class T>
class HostExec {
 public:
  template <class U>
  using Buffer = AlignedVector<U>;

  // grid: this process's box (its local box under MPI); domain: set when the grid is split over
  // ranks; alg: the line solver of each axis.
  HostExec(const Grid& grid, const Domain* domain, const std::array<tridiag::Algorithm, 3>& alg)
      : g_(grid), domain_(domain && domain->distributed() ? domain : nullptr), alg_(alg) {}

  const Grid& grid() const { return g_; }
  const Domain* domain() const { return domain_; }

  void allocate(Buffer<T>& b, index_t n) const { b.assign(std::size_t(n), T(0)); }
  static T* data(Buffer<T>& b) { return b.data(); }
  static const T* data(const Buffer<T>& b) { return b.data(); }
  void upload(Buffer<T>& b, const T* host) const { std::copy(host, host + b.size(), b.begin()); }
  void download(const Buffer<T>& b, T* host) const { std::copy(b.begin(), b.end(), host); }
  void exchange_halos(T* u) const {
    if (domain_) domain_->exchange_halos(u);
  }
  void wait() const {}
  FieldStats stats(const StatsSpec& s, const T* u) const { return field_stats(s, u); }

  // f(l, o + l, nb, dim) for l = 0 .. count-1 over a run of x-adjacent nodes from offset o.
  template <class F>
  void for_run(index_t o, index_t count, const F& f) const {
    const index_t nx = g_.n[0], i0 = o % nx, row = o / nx;
    const index_t ijk[3] = {0, row % g_.n[1], row / g_.n[1]};
    Neighbours nb;
    for (int a = 1; a < g_.dim; ++a) mirrored_neighbours(ijk[a], g_.n[a], g_.strides()[a], nb.minus[a], nb.plus[a]);
    with_dim(g_.dim, [&](auto dim) {
      auto part = [&](index_t lo, index_t hi, index_t i) {  // nodes lo..hi-1 of the run, x neighbours as at i
        Neighbours p = nb;
        mirrored_neighbours(i, nx, index_t(1), p.minus[0], p.plus[0]);
#pragma omp simd
        for (index_t l = lo; l < hi; ++l) f(l, o + l, p, dim);
      };
      const index_t lo = std::max<index_t>(i0, 1) - i0, hi = std::min<index_t>(i0 + count, nx - 1) - i0;
      if (i0 == 0) part(0, 1, 0);
      if (hi > lo) part(lo, hi, 1);
      if (i0 + count == nx && nx > 1) part(count - 1, count, nx - 1);
    });
  }

  // f(o, nb, dim) at every node, in parallel over x-rows.
  template <class F>
  void for_each_point(const F& f) const {
    const index_t nx = g_.n[0], rows = g_.size() / nx;
#pragma omp parallel for schedule(static)
    for (index_t q = 0; q < rows; ++q) {
      const F fl = f;  // (a local copy: its members stay in registers across the vectorized loop)
      for_run(q * nx, nx, [&](index_t, index_t o, const Neighbours& nb, auto dim) { fl(o, nb, dim); });
    }
  }

  template <class Rows, class Load, class Store>
  void solve(const tridiag::LineSet& L, const Rows& rows, const Load& load, const Store& store) const {
    tridiag::solve_lines<T>(L, rows, run_load(load), run_store(store), alg_[std::size_t(L.axis)]);
  }
  template <class Rows, class Load, class Store>
  void solve_split(const tridiag::LineSet& L, const tridiag::Segment& seg, const Rows& rows, const Load& load,
                   const Store& store, LineComm& comm) const {
    tridiag::solve_split_lines<T>(L, seg, rows, run_load(load), run_store(store), comm);
  }

 private:
  // The solvers' run functors from the layer's loads and stores. (Plain loops for the copies: the
  // runs are short (one tile row), where a memmove call costs more than the copy.)
  template <class Load>
  auto run_load(const Load& load) const {
    if constexpr (is_array_v<Load>) {
      return [p = load.p](index_t o, index_t count, T* out) {
#pragma omp simd
        for (index_t l = 0; l < count; ++l) out[l] = p[o + l];
      };
    } else {
      return [this, load](index_t o, index_t count, T* out) {
        const Load f = load;
        for_run(o, count, [&](index_t l, index_t p, const Neighbours& nb, auto dim) { out[l] = f(p, nb, dim); });
      };
    }
  }
  template <class Store>
  static auto run_store(const Store& store) {
    if constexpr (is_array_v<Store>) {
      return [p = store.p](index_t o, index_t count, const T* in) {
#pragma omp simd
        for (index_t l = 0; l < count; ++l) p[o + l] = in[l];
      };
    } else {
      return [store](index_t o, index_t count, const T* in) {
        const Store f = store;
#pragma omp simd
        for (index_t l = 0; l < count; ++l) f(o + l, in[l]);
      };
    }
  }

  Grid g_;
  const Domain* domain_;
  std::array<tridiag::Algorithm, 3> alg_;
};

}  // namespace tridsim::exec
