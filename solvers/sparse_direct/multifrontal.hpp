#pragma once
// Multifrontal sparse direct solver on the CPU (namespace tridsim::sparse).
//
//   Multifrontal<double> solver(pattern);   // analysis: nested dissection, exact sizes
//   solver.factor(matrix);                  // numeric Cholesky; again after the values change
//   solver.solve(b, nrhs);                  // b (unknowns x nrhs, column-major) becomes x
//
// Every front of the assembly tree (analysis.hpp) is a dense matrix: the original entries of its
// own unknowns' columns and its children's contribution blocks are added into it, its own
// unknowns are eliminated with LAPACK/BLAS (potrf, trsm, syrk) and the Schur complement on its
// update unknowns goes to its parent. The threads factor the subtrees of the analysis's layer
// side by side with single-threaded kernels; the fronts above it use the threaded kernels.
// With SolverOptions::backend = cuda the factorization and the solves run on the GPU
// (cuda/multifrontal_cuda.hpp). Symmetric positive definite matrices only (Cholesky); a pivot
// that is not positive raises SingularMatrix.
#include <memory>
#include <vector>

#include "solvers/sparse_direct/analysis.hpp"

namespace tridsim::sparse {

// What solve_refined achieved: the relative residual ||b - A x||_2 / ||b||_2 (largest over the
// right-hand sides) and the refinement steps taken.
struct Refinement {
  double residual = 0;
  int steps = 0;
};

// Throws a clear Error when `bytes` of working memory for `what` exceed the limit (or, with no
// limit, the memory the system reports available).
void check_memory(double bytes, double limit, const char* what);

template <class T>
class MultifrontalCuda;

template <class T>
class Multifrontal {
 public:
  explicit Multifrontal(const GridPattern& pattern, const SolverOptions& options = {});
  ~Multifrontal();

  const Analysis& analysis() const { return *analysis_; }
  std::shared_ptr<const Analysis> shared_analysis() const { return analysis_; }

  void factor(const StencilMatrix<T>& a);
  bool factored() const { return factored_; }
  // b (unknowns x nrhs, column-major, leading dimension unknowns) is overwritten by A^-1 b.
  void solve(T* b, index_t nrhs = 1) const;
  // The same on a device array (backend cuda only).
  void solve_device(T* x, index_t nrhs = 1) const;
  // solve, then refine against `a` (residuals in double) until the relative residual is at most
  // `tolerance` or stops falling.
  Refinement solve_refined(const StencilMatrix<T>& a, T* b, index_t nrhs = 1, double tolerance = 1e-13,
                           int max_steps = 8) const;

  double factor_seconds() const { return factor_seconds_; }
  double working_bytes() const;
  double factor_bytes() const { return double(analysis_->factor_entries()) * sizeof(T); }

 private:
  void factor_front(const StencilMatrix<T>& a, int f, T* front, T* stack, index_t& stack_top);
  void forward_front(int f, T* x, index_t nrhs, T* top_part, T* tmp) const;
  void backward_front(int f, T* x, index_t nrhs, T* tmp) const;

  std::shared_ptr<const Analysis> analysis_;
  std::unique_ptr<MultifrontalCuda<T>> gpu_;
  SolverOptions options_;
  std::unique_ptr<T[]> factor_, handoff_;
  std::vector<std::unique_ptr<T[]>> fronts_, stacks_;  // per thread, and the top's last
  std::vector<int> opposite_;                          // the stencil offset that points back
  mutable std::vector<T> x_;                           // solve's permuted right-hand sides
  bool factored_ = false;
  double factor_seconds_ = 0;
};

}  // namespace tridsim::sparse
