#pragma once
// The relative residual of a Poisson solve, for the CPU and GPU Poisson tests.
#include <cmath>

#include "core/types.hpp"
#include "solvers/cyclic_reduction/poisson_box.hpp"

namespace tridsim::testing {

// ||f - A u||_2 / ||f||_2 with A applied in long double.
template <class T>
double relative_residual(const cr::PoissonBox& b, const T* u, const T* f) {
  const index_t mx = b.m[0], my = b.m[1], mz = b.m[2];
  const long double ix = 1.0L / ((long double)b.h[0] * b.h[0]);
  const long double iy = b.dim > 1 ? 1.0L / ((long double)b.h[1] * b.h[1]) : 0;
  const long double iz = b.dim > 2 ? 1.0L / ((long double)b.h[2] * b.h[2]) : 0;
  long double rr = 0, ff = 0;
#pragma omp parallel for collapse(2) reduction(+ : rr, ff)
  for (index_t k = 0; k < mz; ++k)
    for (index_t j = 0; j < my; ++j)
      for (index_t i = 0; i < mx; ++i) {
        auto at = [&](index_t ii, index_t jj, index_t kk) -> long double {
          if (ii < 0 || ii >= mx || jj < 0 || jj >= my || kk < 0 || kk >= mz) return 0;
          return u[ii + mx * (jj + my * kk)];
        };
        const long double c = at(i, j, k);
        long double a = (long double)b.sigma * c + ix * (2 * c - at(i - 1, j, k) - at(i + 1, j, k));
        if (b.dim > 1) a += iy * (2 * c - at(i, j - 1, k) - at(i, j + 1, k));
        if (b.dim > 2) a += iz * (2 * c - at(i, j, k - 1) - at(i, j, k + 1));
        const long double fv = f[i + mx * (j + my * k)], r = fv - a;
        rr += r * r;
        ff += fv * fv;
      }
  return double(std::sqrt(rr / ff));
}

}  // namespace tridsim::testing
