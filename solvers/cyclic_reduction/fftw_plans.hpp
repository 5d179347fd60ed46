#pragma once
// FFTW's double and float APIs behind one template (namespace tridsim::cr::fftw), and the planner's
// lock: the FFTW-based Poisson solvers' own header (their .cpp files include it; FFTW's headers
// stay out of their public ones).
#include <mutex>

#include <fftw3.h>
#include <omp.h>

namespace tridsim::cr::fftw {

template <class T>
struct Api;
template <>
struct Api<double> {
  using plan = fftw_plan;
  static void init() { fftw_init_threads(); }
  static void threads(int n) { fftw_plan_with_nthreads(n); }
  static void timelimit(double s) { fftw_set_timelimit(s); }
  static plan make(int rank, const int* n, double* p, const fftw_r2r_kind* k, unsigned flags) {
    return fftw_plan_r2r(rank, n, p, p, k, flags);
  }
  static plan make_guru(int rank, const fftw_iodim64* dims, int howmany_rank, const fftw_iodim64* howmany, double* p,
                        const fftw_r2r_kind* k, unsigned flags) {
    return fftw_plan_guru64_r2r(rank, dims, howmany_rank, howmany, p, p, k, flags);
  }
  static void run(plan pl, double* p) { fftw_execute_r2r(pl, p, p); }
  static void destroy(plan pl) { fftw_destroy_plan(pl); }
  static int alignment(const double* p) { return fftw_alignment_of(const_cast<double*>(p)); }
};
template <>
struct Api<float> {
  using plan = fftwf_plan;
  static void init() { fftwf_init_threads(); }
  static void threads(int n) { fftwf_plan_with_nthreads(n); }
  static void timelimit(double s) { fftwf_set_timelimit(s); }
  static plan make(int rank, const int* n, float* p, const fftw_r2r_kind* k, unsigned flags) {
    return fftwf_plan_r2r(rank, n, p, p, k, flags);
  }
  static plan make_guru(int rank, const fftw_iodim64* dims, int howmany_rank, const fftw_iodim64* howmany, float* p,
                        const fftw_r2r_kind* k, unsigned flags) {
    return fftwf_plan_guru64_r2r(rank, dims, howmany_rank, howmany, p, p, k, flags);
  }
  static void run(plan pl, float* p) { fftwf_execute_r2r(pl, p, p); }
  static void destroy(plan pl) { fftwf_destroy_plan(pl); }
  static int alignment(const float* p) { return fftwf_alignment_of(const_cast<float*>(p)); }
};

// FFTW's planner is not thread-safe: plans are made and destroyed under this lock.
inline std::mutex& planner_mutex() {
  static std::mutex m;
  return m;
}

// Under planner_mutex(): thread support initialised once, plans with every OpenMP thread, and
// FFTW_MEASURE trying plans for at most 10 s.
template <class T>
void prepare_planner() {
  static std::once_flag once;
  std::call_once(once, [] {
    Api<double>::init();
    Api<float>::init();
  });
  Api<T>::threads(omp_get_max_threads());
  Api<T>::timelimit(10.0);
}

}  // namespace tridsim::cr::fftw
