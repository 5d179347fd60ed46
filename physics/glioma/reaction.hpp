#pragma once
// The glioma model's reaction dc/dt = rho c (1 - c), written once for the CPU loops and the
// CUDA kernels (namespace tridsim).
#include <cmath>

#include "core/host_device.hpp"

namespace tridsim {

// Its exact flow over tau: c -> c E / (1 + c (E - 1)), E = exp(rho tau).
template <class T>
struct Logistic {
  T e = 1, em1 = 0;
  Logistic() = default;
  Logistic(double rho, double tau) : e(T(std::exp(rho * tau))), em1(T(std::expm1(rho * tau))) {}
  TRIDSIM_HOST_DEVICE T operator()(T c) const { return c * e / (T(1) + c * em1); }
};

// Forward Euler's reaction increment over tau.
template <class T>
TRIDSIM_HOST_DEVICE inline T logistic_increment(T tau, T rho, T c) {
  return tau * rho * c * (T(1) - c);
}

}  // namespace tridsim
