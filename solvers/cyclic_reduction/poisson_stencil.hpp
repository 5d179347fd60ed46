#pragma once
// The operator of the fast Poisson solvers at one node (namespace tridsim::cr), shared by the CPU
// residual (poisson.hpp) and the CUDA refinement (cuda/poisson_cuda.cu): (-Lap_h + sigma) u at
// (i, j, k) of an mx x my x mz box with zero values outside, x-fastest; inv_h2[a] = 1 / h_a^2, 0 on
// unused axes.
#include "core/host_device.hpp"
#include "core/types.hpp"

namespace tridsim::cr {

template <class T>
TRIDSIM_HOST_DEVICE inline double apply_poisson(const T* u, index_t i, index_t j, index_t k, index_t mx, index_t my,
                                                index_t mz, double ix, double iy, double iz, double sigma) {
  const index_t o = i + mx * (j + my * k);  // x-fastest
  const double c = double(u[o]);
  auto at = [&](bool inside, index_t offset) { return inside ? double(u[o + offset]) : 0.0; };
  double a = sigma * c + ix * (2 * c - at(i > 0, -1) - at(i + 1 < mx, 1));
  if (iy != 0) a += iy * (2 * c - at(j > 0, -mx) - at(j + 1 < my, mx));
  if (iz != 0) a += iz * (2 * c - at(k > 0, -mx * my) - at(k + 1 < mz, mx * my));
  return a;
}

}  // namespace tridsim::cr
