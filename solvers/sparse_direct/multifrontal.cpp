#include "solvers/sparse_direct/multifrontal.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "core/errors.hpp"
#include "solvers/sparse_direct/dense_kernels.hpp"
#include "tridsim_build_info.hpp"
#if TRIDSIM_HAVE_CUDA
#include "solvers/sparse_direct/cuda/multifrontal_cuda.hpp"
#endif

namespace tridsim::sparse {

namespace {

double available_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  double kib = 0;
  while (in >> key >> kib) {
    if (key == "MemAvailable:") return kib * 1024;
    in.ignore(256, '\n');
  }
  return 0;  // unknown: no limit
}

std::string gib(double bytes) {
  std::ostringstream s;
  s.precision(3);
  s << bytes / (1024.0 * 1024 * 1024) << " GiB";
  return s.str();
}

}  // namespace

#if !TRIDSIM_HAVE_CUDA
template <class T>
class MultifrontalCuda {};  // never made without CUDA; complete so that unique_ptr can delete it
#endif

void check_memory(double bytes, double limit, const char* what) {
  const double have = limit > 0 ? limit : available_bytes();
  if (have > 0 && bytes > have)
    throw Error(std::string("sparse direct solver: ") + what + " needs " + gib(bytes) + " of memory, " +
                (limit > 0 ? "the limit is " : "the system has ") + gib(have) +
                (limit > 0 ? "" : " available") + "; use a coarser grid or a machine with more memory");
}

template <class T>
Multifrontal<T>::Multifrontal(const GridPattern& pattern, const SolverOptions& options)
    : analysis_(std::make_shared<Analysis>(pattern, options)), options_(options) {
  const auto offsets = stencil_offsets(pattern);
  for (const auto& o : offsets)
    for (int q = 0; q < int(offsets.size()); ++q)
      if (offsets[q][0] == -o[0] && offsets[q][1] == -o[1] && offsets[q][2] == -o[2]) opposite_.push_back(q);
  if (options.backend == Backend::cuda) {
#if TRIDSIM_HAVE_CUDA
    gpu_ = std::make_unique<MultifrontalCuda<T>>(analysis_, options.memory_limit);
#else
    throw Error("backend cuda: this build has no CUDA support (configure with -DTRIDSIM_CUDA=ON)");
#endif
  }
}

template <class T>
double Multifrontal<T>::working_bytes() const {
#if TRIDSIM_HAVE_CUDA
  if (gpu_) return gpu_->device_bytes();
#endif
  return double(analysis_->working_entries()) * sizeof(T);
}

template <class T>
Multifrontal<T>::~Multifrontal() = default;

// One front: assemble, eliminate its own unknowns, pass the Schur complement on.
template <class T>
void Multifrontal<T>::factor_front(const StencilMatrix<T>& a, int f, T* F, T* stack, index_t& stack_top) {
  const Analysis& an = *analysis_;
  const Front& fr = an.fronts()[f];
  const index_t m = fr.rows(), s = fr.size, u = index_t(fr.update.size());
  const int d = a.pattern.dofs;
  const auto& pos = an.position_of();
  const auto& unk = an.unknown_at();
  for (index_t c = 0; c < s; ++c) std::fill(F + c * m + c, F + (c + 1) * m, T(0));
  for (index_t c = s; c < m; ++c) std::fill(F + c * m + c, F + (c + 1) * m, T(0));

  // 1. The original entries of the own unknowns' columns, lower triangle: A(w, v), pos(w) >= pos(v).
  for (index_t c = 0; c < s; ++c) {
    const index_t v = unk[fr.first + c], node = v / d;
    const int dv = int(v % d);
    for (int o = 0; o < int(a.offsets.size()); ++o) {
      const index_t wn = a.neighbour(node, o);
      if (wn < 0) continue;
      const T* blk = a.block(wn, opposite_[o]);  // couples wn's unknowns (rows) to node's
      for (int dw = 0; dw < d; ++dw) {
        const index_t q = pos[wn * d + dw];
        if (q < fr.first + c) continue;
        const index_t row = q < fr.first + s
                                ? q - fr.first
                                : s + index_t(std::lower_bound(fr.update.begin(), fr.update.end(), q) - fr.update.begin());
        F[row + c * m] += blk[dw * d + dv];
      }
    }
  }
  // 2. Extend-add the children's contribution blocks (on the stack's top, in order, or handed off).
  const int* map = fr.child_map.begin();
  index_t popped = 0;
  for (const int ch : fr.children) popped += an.fronts()[ch].handoff < 0 ? index_t(an.fronts()[ch].update.size()) *
                                                                              index_t(an.fronts()[ch].update.size())
                                                                        : 0;
  const T* next_on_stack = stack + stack_top - popped;
  for (const int ch : fr.children) {
    const Front& cf = an.fronts()[ch];
    const index_t uc = index_t(cf.update.size());
    const T* cb = cf.handoff >= 0 ? handoff_.get() + cf.handoff : next_on_stack;
    if (cf.handoff < 0) next_on_stack += uc * uc;
    for (index_t j = 0; j < uc; ++j) {
      T* col = F + index_t(map[j]) * m;
      const T* src = cb + j * uc;
      for (index_t i = j; i < uc; ++i) col[map[i]] += src[i];
    }
    map += uc;
  }
  stack_top -= popped;

  // 3. Eliminate: L11 = chol(F11), L21 = F21 L11^-T, F22 -= L21 L21^T.
  const int info = dense::potrf(int(s), F, int(m));
  if (info > 0)
    throw SingularMatrix("sparse direct solver: the matrix is not positive definite (pivot " +
                         std::to_string(info) + " of the front holding unknown " +
                         std::to_string(unk[fr.first + info - 1]) + " is not positive)");
  if (u > 0) {
    dense::trsm<T>('R', 'T', int(u), int(s), T(1), F, int(m), F + s, int(m));
    dense::syrk<T>(int(u), int(s), T(-1), F + s, int(m), T(1), F + s + s * m, int(m));
  }
  T* panel = factor_.get() + fr.factor_offset;
  for (index_t c = 0; c < s; ++c) std::copy(F + c * m + c, F + (c + 1) * m, panel + c * m + c);
  // 4. The contribution block, lower triangle.
  T* cb = fr.handoff >= 0 ? handoff_.get() + fr.handoff : stack + stack_top;
  for (index_t j = 0; j < u; ++j) std::copy(F + (s + j) * m + s + j, F + (s + j + 1) * m, cb + j * u + j);
  if (fr.handoff < 0) stack_top += u * u;
}

template <class T>
void Multifrontal<T>::factor(const StencilMatrix<T>& a) {
  const Analysis& an = *analysis_;
  if (a.pattern.n != an.pattern().n || a.pattern.dofs != an.pattern().dofs ||
      a.pattern.stencil != an.pattern().stencil)
    throw Error("sparse direct solver: the matrix's grid is not the one the solver was analysed for");
  const auto start = std::chrono::steady_clock::now();
#if TRIDSIM_HAVE_CUDA
  if (gpu_) {
    factored_ = false;
    gpu_->factor(a);
    factored_ = true;
    factor_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return;
  }
#endif
  const int threads = an.threads();
  if (!factor_) {  // uninitialized (new T[]): the factorization writes every entry it reads
    check_memory(working_bytes(), options_.memory_limit, "the factorization");
    auto storage = [](index_t n) { return std::unique_ptr<T[]>(new T[std::size_t(std::max<index_t>(n, 1))]); };
    factor_ = storage(an.factor_entries());
    handoff_ = storage(an.handoff_entries());
    fronts_.clear();
    stacks_.clear();
    for (int t = 0; t <= threads; ++t) {
      fronts_.push_back(storage(an.front_entries(t)));
      stacks_.push_back(storage(an.stack_entries(t)));
    }
  }
  factored_ = false;
  // The layer's subtrees, one thread each (the dense kernels run single-threaded inside).
  std::exception_ptr failure;
  std::atomic<bool> failed{false};
#pragma omp parallel num_threads(threads)
  // (a team smaller than asked for still covers every thread's subtrees)
  for (int t = omp_get_thread_num(); t < threads; t += omp_get_num_threads()) {
    const auto [begin, end] = an.thread_fronts(t);
    index_t top = 0;
    for (int f = begin; f < end && !failed; ++f) {
      try {
        factor_front(a, f, fronts_[t].get(), stacks_[t].get(), top);
      } catch (...) {
#pragma omp critical(tridsim_multifrontal_failure)
        if (!failed.exchange(true)) failure = std::current_exception();
      }
    }
  }
  if (failure) std::rethrow_exception(failure);
  // The top, one front at a time with threaded kernels.
  index_t top = 0;
  for (int f = an.first_top_front(); f < int(an.fronts().size()); ++f)
    factor_front(a, f, fronts_[threads].get(), stacks_[threads].get(), top);
  factored_ = true;
  factor_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

template <class T>
void Multifrontal<T>::forward_front(int f, T* x, index_t nrhs, T* top_part, T* tmp) const {
  const Analysis& an = *analysis_;
  const Front& fr = an.fronts()[f];
  const index_t m = fr.rows(), s = fr.size, u = index_t(fr.update.size()), n = an.unknowns();
  const T* l = factor_.get() + fr.factor_offset;
  T* y = x + fr.first;
  dense::trsm<T>('L', 'N', int(s), int(nrhs), T(1), l, int(m), y, int(n));
  if (u == 0) return;
  dense::gemm<T>('N', 'N', int(u), int(nrhs), int(s), T(1), l + s, int(m), y, int(n), T(0), tmp, int(u));
  const index_t top = an.first_top_position(), top_n = n - top;
  for (index_t r = 0; r < nrhs; ++r)
    for (index_t k = 0; k < u; ++k) {
      const index_t q = fr.update[k];
      if (top_part && q >= top) top_part[q - top + r * top_n] -= tmp[k + r * u];
      else x[q + r * n] -= tmp[k + r * u];
    }
}

template <class T>
void Multifrontal<T>::backward_front(int f, T* x, index_t nrhs, T* tmp) const {
  const Analysis& an = *analysis_;
  const Front& fr = an.fronts()[f];
  const index_t m = fr.rows(), s = fr.size, u = index_t(fr.update.size()), n = an.unknowns();
  const T* l = factor_.get() + fr.factor_offset;
  T* y = x + fr.first;
  if (u > 0) {
    for (index_t r = 0; r < nrhs; ++r)
      for (index_t k = 0; k < u; ++k) tmp[k + r * u] = x[fr.update[k] + r * n];
    dense::gemm<T>('T', 'N', int(s), int(nrhs), int(u), T(-1), l + s, int(m), tmp, int(u), T(1), y, int(n));
  }
  dense::trsm<T>('L', 'T', int(s), int(nrhs), T(1), l, int(m), y, int(n));
}

template <class T>
void Multifrontal<T>::solve(T* b, index_t nrhs) const {
  if (!factored_) throw Error("sparse direct solver: solve called before factor");
#if TRIDSIM_HAVE_CUDA
  if (gpu_) return gpu_->solve_host(b, nrhs);
#endif
  const Analysis& an = *analysis_;
  const index_t n = an.unknowns(), top = an.first_top_position(), top_n = n - top;
  const int threads = an.threads();
  const auto& pos = an.position_of();
  x_.resize(std::size_t(n * nrhs));
  T* x = x_.data();
  const index_t tmp_n = an.max_front_rows() * nrhs;
  std::vector<T> top_parts(std::size_t(top_n * nrhs * threads), T(0));
#pragma omp parallel num_threads(threads)
  {
#pragma omp for schedule(static)
    for (index_t i = 0; i < n; ++i)
      for (index_t r = 0; r < nrhs; ++r) x[pos[i] + r * n] = b[i + r * n];
    std::vector<T> tmp(static_cast<std::size_t>(tmp_n));
    for (int t = omp_get_thread_num(); t < threads; t += omp_get_num_threads()) {
      const auto [begin, end] = an.thread_fronts(t);
      for (int f = begin; f < end; ++f) forward_front(f, x, nrhs, top_parts.data() + t * top_n * nrhs, tmp.data());
    }
#pragma omp barrier
#pragma omp for schedule(static)
    for (index_t i = 0; i < top_n * nrhs; ++i) {
      T sum = 0;
      for (int q = 0; q < threads; ++q) sum += top_parts[i + q * top_n * nrhs];
      x[top + i % top_n + (i / top_n) * n] += sum;
    }
  }
  std::vector<T> tmp(static_cast<std::size_t>(tmp_n));
  const int nf = int(an.fronts().size());
  for (int f = an.first_top_front(); f < nf; ++f) forward_front(f, x, nrhs, nullptr, tmp.data());
  for (int f = nf - 1; f >= an.first_top_front(); --f) backward_front(f, x, nrhs, tmp.data());
#pragma omp parallel num_threads(threads)
  {
    std::vector<T> tmp_t(static_cast<std::size_t>(tmp_n));
    for (int t = omp_get_thread_num(); t < threads; t += omp_get_num_threads()) {
      const auto [begin, end] = an.thread_fronts(t);
      for (int f = end - 1; f >= begin; --f) backward_front(f, x, nrhs, tmp_t.data());
    }
#pragma omp barrier
#pragma omp for schedule(static)
    for (index_t i = 0; i < n; ++i)
      for (index_t r = 0; r < nrhs; ++r) b[i + r * n] = x[pos[i] + r * n];
  }
}

template <class T>
void Multifrontal<T>::solve_device(T* x, index_t nrhs) const {
  if (!factored_) throw Error("sparse direct solver: solve called before factor");
#if TRIDSIM_HAVE_CUDA
  if (gpu_) return gpu_->solve_device(x, nrhs);
#endif
  (void)x;
  (void)nrhs;
  throw Error("sparse direct solver: solve_device needs the cuda backend");
}

template <class T>
Refinement Multifrontal<T>::solve_refined(const StencilMatrix<T>& a, T* b, index_t nrhs, double tolerance,
                                          int max_steps) const {
  const index_t n = analysis_->unknowns();
  std::vector<T> x(b, b + n * nrhs), d(std::size_t(n * nrhs));
  std::vector<double> r(static_cast<std::size_t>(n));
  solve(x.data(), nrhs);
  // The largest relative residual over the right-hand sides; d holds the residuals in T.
  auto residual = [&]() {
    double worst = 0;
    for (index_t q = 0; q < nrhs; ++q) {
      a.residual(x.data() + q * n, b + q * n, r.data());
      double rr = 0, bb = 0;
      for (index_t i = 0; i < n; ++i) {
        rr += r[i] * r[i];
        bb += double(b[q * n + i]) * double(b[q * n + i]);
        d[q * n + i] = T(r[i]);
      }
      worst = std::max(worst, bb > 0 ? std::sqrt(rr / bb) : std::sqrt(rr));
    }
    return worst;
  };
  Refinement out{residual(), 0};
  while (out.residual > tolerance && out.steps < max_steps) {
    const double before = out.residual;
    std::vector<T> previous = x;
    solve(d.data(), nrhs);
    for (index_t i = 0; i < n * nrhs; ++i) x[i] += d[i];
    const double now = residual();
    if (!(now < before)) {  // no longer improving: keep the better iterate
      x.swap(previous);
      break;
    }
    out.residual = now;
    ++out.steps;
    if (now > 0.9 * before) break;  // stalled at the precision's floor
  }
  std::copy(x.begin(), x.end(), b);
  return out;
}

template class Multifrontal<float>;
template class Multifrontal<double>;

}  // namespace tridsim::sparse
