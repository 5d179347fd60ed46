#include "solvers/cyclic_reduction/fft_poisson.hpp"

#include <cmath>
#include <cstring>
#include <vector>

#include "core/aligned.hpp"
#include "core/errors.hpp"
#include "solvers/cyclic_reduction/fftw_plans.hpp"

namespace tridsim::cr {

template <class T>
using Fftw = fftw::Api<T>;
using fftw::planner_mutex;

template <class T>
struct FftPoisson<T>::Impl {
  typename Fftw<T>::plan plan{};
  index_t size = 0;
  std::array<index_t, 3> m{1, 1, 1};
  std::array<std::vector<T>, 3> eig;  // (2 - 2cos(k pi/(m+1)))/h^2, k = 1..m, per axis
  T sigma = 0, norm = 1;
  int plan_alignment = 0;
  mutable AlignedVector<T> buffer;  // for arrays whose alignment differs from the plan's
};

template <class T>
FftPoisson<T>::FftPoisson(int dim, std::array<index_t, 3> m, std::array<double, 3> h, double sigma, bool measure)
    : impl_(std::make_unique<Impl>()) {
  if (dim < 1 || dim > 3) throw Error("fft Poisson solver: dim must be 1, 2 or 3");
  for (int a = dim; a < 3; ++a) m[a] = 1;
  Impl& s = *impl_;
  s.m = m;
  s.size = m[0] * m[1] * m[2];
  s.sigma = T(sigma);
  double norm = 1;
  for (int a = 0; a < 3; ++a) {
    if (m[a] < 1) throw Error("fft Poisson solver: every axis needs at least one interior node");
    s.eig[a].assign(m[a], T(0));
    if (a >= dim) continue;
    for (index_t k = 1; k <= m[a]; ++k) {
      const double sn = std::sin(0.5 * M_PI * double(k) / double(m[a] + 1));
      s.eig[a][k - 1] = T(4 * sn * sn / (h[a] * h[a]));
    }
    norm *= 2.0 * double(m[a] + 1);  // RODFT00 twice multiplies by 2(m+1) per axis
  }
  s.norm = T(1 / norm);
  int n[3];
  fftw_r2r_kind kinds[3];
  for (int a = 0; a < dim; ++a) {  // FFTW is row-major: the last dimension is the fastest (x)
    n[a] = int(m[dim - 1 - a]);
    kinds[a] = FFTW_RODFT00;
  }
  AlignedVector<T> scratch(s.size);
  {
    std::lock_guard<std::mutex> lock(planner_mutex());
    fftw::prepare_planner<T>();
    s.plan = Fftw<T>::make(dim, n, scratch.data(), kinds, measure ? FFTW_MEASURE : FFTW_ESTIMATE);
  }
  if (!s.plan) throw Error("fft Poisson solver: FFTW could not make a plan");
  s.plan_alignment = Fftw<T>::alignment(scratch.data());
}

template <class T>
FftPoisson<T>::~FftPoisson() {
  if (impl_ && impl_->plan) {
    std::lock_guard<std::mutex> lock(planner_mutex());
    Fftw<T>::destroy(impl_->plan);
  }
}
template <class T>
FftPoisson<T>::FftPoisson(FftPoisson&&) noexcept = default;
template <class T>
FftPoisson<T>& FftPoisson<T>::operator=(FftPoisson&&) noexcept = default;

template <class T>
void FftPoisson<T>::solve(T* f) const {
  const Impl& s = *impl_;
  T* p = f;
  if (Fftw<T>::alignment(f) != s.plan_alignment) {  // new-array execution needs the plan's alignment
    s.buffer.resize(s.size);
    std::memcpy(s.buffer.data(), f, sizeof(T) * s.size);
    p = s.buffer.data();
  }
  Fftw<T>::run(s.plan, p);
  const index_t mx = s.m[0], my = s.m[1], mz = s.m[2];
  const T *ex = s.eig[0].data(), *ey = s.eig[1].data(), *ez = s.eig[2].data();
#pragma omp parallel for collapse(2) schedule(static)
  for (index_t k = 0; k < mz; ++k)
    for (index_t j = 0; j < my; ++j) {
      T* line = p + mx * (j + my * k);
      const T base = ey[j] + ez[k] + s.sigma;
#pragma omp simd
      for (index_t i = 0; i < mx; ++i) line[i] *= s.norm / (ex[i] + base);
    }
  Fftw<T>::run(s.plan, p);
  if (p != f) std::memcpy(f, p, sizeof(T) * s.size);
}

template class FftPoisson<float>;
template class FftPoisson<double>;

}  // namespace tridsim::cr
