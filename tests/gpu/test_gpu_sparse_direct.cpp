// The sparse direct solver on the GPU (solvers/sparse_direct/cuda/, label gpu): factorization and
// solves against the CPU solver of the same matrices at awkward sizes, float and double, many
// right-hand sides, device-resident solves, refactorization and the refusal of a matrix that is
// not positive definite. Without a CUDA device the program prints "SKIPPED: no CUDA device" and
// exits 0.
#define DOCTEST_CONFIG_IMPLEMENT
#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "core/errors.hpp"
#include "solvers/sparse_direct/diffusion_matrix.hpp"
#include "solvers/sparse_direct/multifrontal.hpp"
#include "tests/common/sparse_test_matrices.hpp"

using namespace tridsim;
using namespace tridsim::sparse;
using namespace tridsim::sparse::testing;

namespace {

SolverOptions on(Backend b) {
  SolverOptions o;
  o.backend = b;
  return o;
}

template <class T>
double max_relative_difference(const std::vector<T>& a, const std::vector<T>& b) {
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff = std::max(diff, std::abs(double(a[i]) - double(b[i])));
    scale = std::max(scale, std::abs(double(b[i])));
  }
  return diff / scale;
}

}  // namespace

TEST_CASE("GPU multifrontal matches the CPU solver") {
  for (const auto& p : {grid(1, 1, 1, 1, 1, Stencil::star), grid(2, 3, 5, 1, 1, Stencil::star),
                        grid(2, 127, 61, 1, 1, Stencil::star), grid(2, 1, 97, 1, 1, Stencil::star),
                        grid(3, 19, 23, 11, 1, Stencil::star), grid(2, 41, 29, 1, 2, Stencil::box),
                        grid(3, 9, 8, 7, 3, Stencil::box), grid(2, 255, 255, 1, 1, Stencil::star),
                        grid(3, 31, 31, 31, 1, Stencil::star),
                        grid(2, 511, 511, 1, 1, Stencil::star)}) {  // megabytes uploaded right before use
    CAPTURE(p.n[0]);
    CAPTURE(p.n[1]);
    CAPTURE(p.n[2]);
    CAPTURE(p.dofs);
    const index_t nrhs = 3, n = p.unknowns();
    const StencilMatrix<double> a = random_spd<double>(p, 11);
    const std::vector<double> b = random_vector<double>(n * nrhs, 12);
    Multifrontal<double> cpu(p), gpu(p, on(Backend::cuda));
    cpu.factor(a);
    gpu.factor(a);
    std::vector<double> want = b, got = b;
    cpu.solve(want.data(), nrhs);
    gpu.solve(got.data(), nrhs);
    for (index_t r = 0; r < nrhs; ++r) {  // each against the matrix, then against each other
      const std::vector<double> br(b.begin() + r * n, b.begin() + (r + 1) * n);
      CHECK(relative_residual(a, std::vector<double>(want.begin() + r * n, want.begin() + (r + 1) * n), br) < 1e-13);
      CHECK(relative_residual(a, std::vector<double>(got.begin() + r * n, got.begin() + (r + 1) * n), br) < 1e-13);
    }
    CHECK(max_relative_difference(got, want) < 1e-11);
    const std::vector<double> b1(b.begin(), b.begin() + n);
    std::vector<double> x = b1;
    gpu.solve(x.data());
    CHECK(relative_residual(a, x, b1) < 1e-13);
  }
}

TEST_CASE("GPU multifrontal in float, refined to double-precision residuals") {
  const GridPattern p = grid(2, 200, 150, 1, 1, Stencil::star);
  const StencilMatrix<float> a = random_spd<float>(p, 3);
  Multifrontal<float> gpu(p, on(Backend::cuda));
  gpu.factor(a);
  std::vector<float> b = random_vector<float>(p.unknowns(), 4), x = b;
  const Refinement r = gpu.solve_refined(a, x.data(), 1, 1e-7);
  CHECK(r.residual < 1e-6);
}

TEST_CASE("GPU solves on device arrays, and refactorization with new values") {
  DiffusionProblem d;
  d.dim = 2;
  d.n = {301, 257, 1};
  d.h = {1.0 / 300, 1.0 / 256, 1};
  d.dirichlet = {{{true, true}, {true, false}, {false, false}}};
  d.shift = 3;
  const GridPattern p = d.pattern();
  Multifrontal<double> cpu(p), gpu(p, on(Backend::cuda));
  const index_t n = p.unknowns();
  for (const double shift : {3.0, 50.0}) {
    d.shift = shift;
    const StencilMatrix<double> a = diffusion_matrix<double>(d);
    cpu.factor(a);
    gpu.factor(a);
    std::vector<double> b = random_vector<double>(n, 5), want = b, got(static_cast<std::size_t>(n));
    cpu.solve(want.data());
    double* x = nullptr;
    REQUIRE(cudaMalloc(&x, sizeof(double) * n) == cudaSuccess);
    REQUIRE(cudaMemcpy(x, b.data(), sizeof(double) * n, cudaMemcpyHostToDevice) == cudaSuccess);
    gpu.solve_device(x);
    REQUIRE(cudaMemcpy(got.data(), x, sizeof(double) * n, cudaMemcpyDeviceToHost) == cudaSuccess);
    cudaFree(x);
    CHECK(max_relative_difference(got, want) < 1e-11);
  }
}

TEST_CASE("GPU multifrontal refuses a matrix that is not positive definite") {
  const GridPattern p = grid(2, 40, 40, 1, 1, Stencil::star);
  StencilMatrix<double> a = random_spd<double>(p, 1);
  a.block(777, 0)[0] = -5;
  Multifrontal<double> gpu(p, on(Backend::cuda));
  CHECK_THROWS_AS(gpu.factor(a), SingularMatrix);
}

int main(int argc, char** argv) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    std::printf("test_gpu_sparse_direct: SKIPPED: no CUDA device (%s)\n",
                e != cudaSuccess ? cudaGetErrorString(e) : "cudaGetDeviceCount reports 0 devices");
    return 0;
  }
  doctest::Context ctx(argc, argv);
  return ctx.run();
}
