#pragma once
// The backend-generic layer a module's scheme is written against once (namespace tridsim::exec):
// the point-functor contract that the host loops (host.hpp) and the CUDA kernels (cuda.cuh) call
// alike, and the one sweep dispatcher (split axis or not, the line solver of each axis).
//
// An executor E (HostExec<T>: OpenMP + SIMD and the CPU batched solvers; CudaExec<T>: kernels
// and the GPU line solvers) holds the grid, the domain (ranks) and the solver of each axis; a
// scheme keeps its fields in E::Buffer<T> (host or device memory) and runs on them:
//   ex.for_each_point(f)                      f(o, nb, dim) at every node o of the (local) box
//   sweep(ex, axis, rows_of, load, store)     every line along `axis` solved once, where
//     rows_of(axis, n)   the row source of lines of n rows (n: the whole line's under a split),
//                        one the backend's solvers take (coefficients.hpp / line_solve.cuh);
//     load               Array<T>{p} (the value p[o]) or a point functor load(o, nb, dim) -> T;
//     store              Array<T>{p} (writes p[o]) or a point functor store(o, x).
// nb holds the offsets of node o's two neighbours along each axis, a missing one (box face)
// mirrored; dim is the grid's dimension: an int in a kernel, a compile-time constant in a host
// loop, so that a formula's loop over the axes unrolls and the host loop vectorizes across nodes.
// Each backend calls a functor once per node and pass, inside its own loops (host: runs of
// x-adjacent nodes, where the offsets are loop invariants; device: one thread per node or row),
// so a load or store fused into a sweep costs no pass of its own on either.
#include <cstddef>

#include "core/diffusion.hpp"
#include "core/domain.hpp"
#include "core/grid.hpp"
#include "core/host_device.hpp"
#include "solvers/tridiagonal/line_set.hpp"
#include "solvers/tridiagonal/segment_reduction.hpp"

namespace tridsim::exec {

// Offsets of a node's neighbours along each axis (axes past the grid's dimension unset).
struct Neighbours {
  index_t minus[3] = {0, 0, 0}, plus[3] = {0, 0, 0};
};

TRIDSIM_HOST_DEVICE inline Neighbours neighbours_at(const index_t (&ijk)[3], const index_t (&n)[3],
                                                    const index_t (&stride)[3], int dim) {
  Neighbours nb;
  // (A constant trip count: unrolled, the arrays stay in registers; a loop to `dim` puts them in a
  // kernel's local memory.)
  for (int a = 0; a < 3; ++a)
    if (a < dim) mirrored_neighbours(ijk[a], n[a], stride[a], nb.minus[a], nb.plus[a]);
  return nb;
}

// A field read or written as it is (no formula): the backends' plain copy paths take it.
template <class T>
struct Array {
  T* p;
};
template <class F>
inline constexpr bool is_array_v = false;
template <class T>
inline constexpr bool is_array_v<Array<T>> = true;

// Every line along `axis` solved once: across the ranks that share the axis when the domain
// splits it (rows of the whole line), else by the executor's solver of that axis.
template <class E, class RowsOf, class Load, class Store>
void sweep(E& ex, int axis, const RowsOf& rows_of, const Load& load, const Store& store) {
  const Grid& g = ex.grid();
  const tridiag::LineSet lines = tridiag::LineSet::dense(g, axis);
  const Domain* d = ex.domain();
  if (d && d->layout().split(axis)) {
    const AxisSplit& part = d->layout().axes[std::size_t(axis)];
    ex.solve_split(lines, tridiag::segment_of(part), rows_of(axis, part.global_n), load, store, d->line_comm(axis));
    return;
  }
  ex.solve(lines, rows_of(axis, g.n[axis]), load, store);
}

// The sweeps of one ADI step in delta form, (I - w A_x)(I - w A_y)(I - w A_z) du = rhs: the
// right-hand side formed in the x-sweep's load, the increment carried between sweeps in `work`,
// the update fused into the last sweep's store (one sweep in 1D).
template <class E, class RowsOf, class Rhs, class T, class Update>
void adi_sweeps(E& ex, const RowsOf& rows_of, const Rhs& rhs, Array<T> work, const Update& update) {
  const int d = ex.grid().dim;
  if (d == 1) return sweep(ex, 0, rows_of, rhs, update);
  sweep(ex, 0, rows_of, rhs, work);
  for (int a = 1; a < d - 1; ++a) sweep(ex, a, rows_of, work, work);
  sweep(ex, d - 1, rows_of, work, update);
}

}  // namespace tridsim::exec
