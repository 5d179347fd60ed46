#pragma once
// The block-tridiagonal line-solver contract (namespace tridsim::blocktri), shared by the CPU and
// CUDA solvers of solvers/block_tridiagonal/. A line is a line of nodes of an x-fastest grid
// (tridiag::LineSet: axis, extents, strides in nodes); every node holds an M-vector (M = 1..8 by
// template, any M by the general path). Block row r of a line (node offset o) reads
//   A_r x_{r-1} + B_r x_r + C_r x_{r+1} = d_r        (A_0 and C_{n-1} are ignored, never used),
// with x_r, d_r in R^M and A_r, B_r, C_r M x M blocks.
//
// Block sources (the matrix of a line):
//  - BlockArrays<T>: stored blocks, "interleaved per node": the block of node o at p + o*M*M,
//    row-major (entry (i, j) at p[o*M*M + i*M + j]); a, b, c one array each.
//  - a generator: any type with a host-device member
//        void entry(index_t o, index_t r, int i, int j, T& a, T& b, T& c) const
//    giving entry (i, j) of A_r, B_r, C_r of the row at node o (row r of its line). Blocks made
//    on the fly from a stencil (e.g. coupled diffusion, physics/reaction_diffusion) read no
//    coefficient arrays at all, or only the node values they need.
//  - UniformBlockMatrix<T> (uniform_blocks.hpp): one block matrix shared by every line, factored
//    once on the host; a solve then streams only the right-hand side and the solution.
//
// Right-hand side and solution: functors, as the scalar contract (solvers/tridiagonal), so that
// a module forms the right-hand side inside the load and fuses its update into the store, and
// the species layout in memory is the caller's:
//  CPU  load(o, count, T* out)        component s of the `count` nodes o, o+1, ... (x-adjacent)
//                                     into out[s*count + l]  (component-major runs)
//       store(o, count, const T* in)  the solution, same layout
//  GPU  load(o, q, r, s) -> T         component s of row r of line q (node offset o)
//       store(o, q, r, s, x)
// InterleavedAccess (u[o*M + s], one array of M-vectors) and PlanarAccess (u[s*plane + o], one
// field per species) implement both for arrays.
//
// Pivoting: Pivoting::none assumes every pivot block B_r - A_r C*_{r-1} can be factored without
// row exchanges (true for block-diagonally dominant matrices); Pivoting::partial exchanges rows
// inside each pivot block (partial pivoting within the block, never across block rows).
#include <cstring>

#include "core/host_device.hpp"
#include "core/names.hpp"
#include "core/types.hpp"
#include "solvers/tridiagonal/line_set.hpp"

namespace tridsim::blocktri {

using tridiag::LineSet;

inline constexpr int kMaxTemplateM = 8;  // block sizes with their own compiled kernels

enum class Pivoting { none, partial };
inline constexpr NameEntry<Pivoting> kPivotingNames[] = {
    {"none", Pivoting::none, "no row exchanges (block-diagonally dominant matrices)"},
    {"partial", Pivoting::partial, "partial pivoting inside each pivot block"}};

template <class T>
struct BlockArrays {
  const T* a;
  const T* b;
  const T* c;
  int m;  // block size M
  TRIDSIM_HOST_DEVICE void entry(index_t o, index_t, int i, int j, T& A, T& B, T& C) const {
    const index_t k = (o * m + i) * m + j;
    A = a[k];
    B = b[k];
    C = c[k];
  }
};

template <class T>
struct InterleavedAccess {
  T* p;
  int m;
  void load(index_t o, index_t count, T* out) const {
    for (int s = 0; s < m; ++s)
      for (index_t l = 0; l < count; ++l) out[s * count + l] = p[(o + l) * m + s];
  }
  void store(index_t o, index_t count, const T* in) const {
    for (int s = 0; s < m; ++s)
      for (index_t l = 0; l < count; ++l) p[(o + l) * m + s] = in[s * count + l];
  }
  TRIDSIM_HOST_DEVICE T operator()(index_t o, index_t, index_t, int s) const { return p[o * m + s]; }
  TRIDSIM_HOST_DEVICE void operator()(index_t o, index_t, index_t, int s, T x) const { p[o * m + s] = x; }
};

template <class T>
struct PlanarAccess {
  T* p;
  index_t plane;  // elements between species
  int m;
  void load(index_t o, index_t count, T* out) const {
    for (int s = 0; s < m; ++s) std::memcpy(out + s * count, p + s * plane + o, sizeof(T) * count);
  }
  void store(index_t o, index_t count, const T* in) const {
    for (int s = 0; s < m; ++s) std::memcpy(p + s * plane + o, in + s * count, sizeof(T) * count);
  }
  TRIDSIM_HOST_DEVICE T operator()(index_t o, index_t, index_t, int s) const { return p[s * plane + o]; }
  TRIDSIM_HOST_DEVICE void operator()(index_t o, index_t, index_t, int s, T x) const { p[s * plane + o] = x; }
};

}  // namespace tridsim::blocktri
