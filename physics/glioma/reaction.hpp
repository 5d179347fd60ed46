#pragma once
// The glioma model's reaction dc/dt = rho c (1 - c), written once for the CPU loops and the
// CUDA kernels (namespace tridsim).
#include <cmath>

#include "core/host_device.hpp"

namespace tridsim {

// Its exact flow over tau (rho >= 0): c -> c / (q + c (1 - q)), q = exp(-rho tau). q and 1 - q lie
// in [0, 1], so nothing overflows for any rho tau (the form c E / (1 + c (E - 1)), E = 1/q, gives
// inf * 0 = NaN at c = 0 once E overflows); c = 0 is a fixed point, kept where q underflows to 0.
template <class T>
struct Logistic {
  T q = 1, one_minus_q = 0;
  Logistic() = default;
  Logistic(double rho, double tau) : q(T(std::exp(-rho * tau))), one_minus_q(T(-std::expm1(-rho * tau))) {}
  TRIDSIM_HOST_DEVICE T operator()(T c) const { return c == T(0) ? c : c / (q + c * one_minus_q); }
};

// Forward Euler's reaction increment over tau.
template <class T>
TRIDSIM_HOST_DEVICE inline T logistic_increment(T tau, T rho, T c) {
  return tau * rho * c * (T(1) - c);
}

}  // namespace tridsim
