#pragma once
// The sine-transform baseline (namespace tridsim::cr): (-Lap_h + sigma) u = f on a box of
// m[0] x m[1] x m[2] interior nodes (zero Dirichlet values outside, x-fastest) by DST-I (FFTW
// RODFT00) along every axis, a division by the eigenvalues of the 3-/5-/7-point operator and the
// inverse transform.
// The plan is made once per shape (FFTW_ESTIMATE unless `measure`: FFTW_MEASURE, at most 10 s
// of planning) and run with FFTW's OpenMP
// threads. FFTW stays behind this interface: its headers are not needed to use it.
#include <array>
#include <memory>

#include "core/types.hpp"

namespace tridsim::cr {

template <class T>
class FftPoisson {
 public:
  FftPoisson(int dim, std::array<index_t, 3> m, std::array<double, 3> h, double sigma = 0, bool measure = false);
  ~FftPoisson();
  FftPoisson(FftPoisson&&) noexcept;
  FftPoisson& operator=(FftPoisson&&) noexcept;
  // f in, u out (m[0]*m[1]*m[2] values). Best on 64-byte aligned arrays (else one copy).
  void solve(T* f) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tridsim::cr
