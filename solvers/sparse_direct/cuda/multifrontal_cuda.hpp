#pragma once
// The multifrontal factorization and solves on the GPU (namespace tridsim::sparse), behind
// Multifrontal<T> with SolverOptions::backend = cuda. Factors stay on the device.
//
// The assembly tree is walked level by level from its deepest fronts up: every front of a level
// at once. Each front's panel [L11; L21] lives in the factor storage and its contribution block
// F22 in a level arena (two arenas, by the level's parity: a level's blocks are read by the next
// level up while it writes its own), so nothing is copied out of a front workspace.
//  1. assembly: original entries (one scatter per level) and the children's contribution blocks
//     (extend-add, first children then second children, so no two writes meet);
//  2. elimination: fronts that fit in shared memory by one kernel (a block per front); the others
//     in groups of equal shape by cuSOLVER/cuBLAS batched routines (potrf, trsm, gemm), or one by
//     one (potrf, trsm, syrk) when a group is small;
//  3. solves: forward level by level from the bottom, backward from the top; each front's
//     triangle by one block (a warp on wide lower levels; cuBLAS for the few largest), its L21
//     products spread over many blocks; the sweeps replayed as one CUDA graph.
#include <memory>

#include "solvers/sparse_direct/analysis.hpp"

struct CUstream_st;  // cudaStream_t

namespace tridsim::sparse {

template <class T>
class MultifrontalCuda {
 public:
  explicit MultifrontalCuda(std::shared_ptr<const Analysis> analysis, double memory_limit);
  ~MultifrontalCuda();
  void factor(const StencilMatrix<T>& a);
  // x: device array (unknowns x nrhs, leading dimension unknowns), in the unknowns' order.
  void solve_device(T* x, index_t nrhs);
  void solve_host(T* b, index_t nrhs);
  double device_bytes() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
  void sweep(CUstream_st* stream, index_t nrhs);
};

}  // namespace tridsim::sparse
