#include "physics/bvp/bvp.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>

#include "core/errors.hpp"
#include "core/boundary.hpp"
#include "core/domain.hpp"
#include "core/field_stats.hpp"
#include "physics/module_keys.hpp"
#include "solvers/recurrence/divide_conquer.hpp"
#include "solvers/recurrence/sequential.hpp"
#include "tridsim_build_info.hpp"
#if TRIDSIM_HAVE_CUDA
#include "solvers/recurrence/cuda/recurrence_cuda.hpp"
#endif

namespace tridsim {

namespace {
// The `carries` key: is the carry scan on the host?
constexpr NameEntry<bool> kHostCarriesNames[] = {{"device", false, "a scan on the GPU"},
                                                 {"host", true, "the paper's hybrid"}};
}  // namespace

template <class T>
BvpModule<T>::BvpModule() = default;
template <class T>
BvpModule<T>::~BvpModule() = default;

template <class T>
void BvpModule<T>::setup(const Grid& grid, const DeckNode& s, const SetupContext& ctx, double t0) {
  g_ = grid;
  t0_ = t0;
  if (grid.dim != 1) s.fail("", "the bvp module solves a two-point problem: grid.n must have one entry, e.g. [1048577]");
  domain_ = ctx.domain && ctx.domain->distributed() ? ctx.domain : nullptr;
  local_ = domain_ ? domain_->local() : grid;
  if (domain_) held_ = {domain_->layout().axes[0].local_first(), local_.n[0]};

  // 1. Algorithm and arithmetic (u is stored in the deck's precision; the arithmetic must fit it).
  const KeyTable keys = bvp_keys();
  algorithm_ = s.get_enum_or_default("algorithm", rec::kAlgorithmNames, keys);
  arithmetic_ = s.get_enum_or_default("arithmetic", rec::kArithmeticNames, keys);
  constexpr bool is_double = std::is_same_v<T, double>;
  if (arithmetic_ == rec::Arithmetic::automatic)
    arithmetic_ = is_double ? rec::Arithmetic::float64 : rec::Arithmetic::compensated;
  if (rec::stores_double(arithmetic_) != is_double)
    s.fail("arithmetic", std::string("arithmetic ") + rec::to_string(arithmetic_) + " stores u in " +
                             (is_double ? "float" : "double") + " but the deck's precision is " +
                             (is_double ? "double" : "float") + " (double needs precision: double; float, mixed and " +
                             "compensated need precision: float)");
  if (algorithm_ == rec::Algorithm::automatic)  // below a few thousand unknowns threads cost more than they save
    algorithm_ = grid.n[0] < 8192 && !domain_ ? rec::Algorithm::sequential : rec::Algorithm::divide_and_conquer;
  if (algorithm_ == rec::Algorithm::sequential && domain_)
    s.fail("algorithm", "the sequential algorithm runs on one process: on several ranks use divide-and-conquer (or auto)");
  if (algorithm_ == rec::Algorithm::sequential &&
      (arithmetic_ == rec::Arithmetic::mixed || arithmetic_ == rec::Arithmetic::compensated))
    s.fail("arithmetic", std::string("the sequential algorithm runs in one precision (double or float), not ") +
                             rec::to_string(arithmetic_));
  column_length_ = s.get_or_default<long>("column_length", keys);
  s.require(column_length_ >= 0 && column_length_ <= grid.n[0], "column_length", column_length_,
            "0 (the default) or a positive number of elements, at most the grid's " + std::to_string(grid.n[0]));

  // 2. Backend: cuda runs the divide-and-conquer steps on the device, carries there or on the host.
  gpu_ = ctx.backend == Backend::cuda;
  gpu_host_carries_ = s.get_enum_or_default("carries", kHostCarriesNames, keys);
  if (gpu_) {
#if !TRIDSIM_HAVE_CUDA
    throw Error("backend cuda: this build has no CUDA support (configure with -DTRIDSIM_CUDA=ON)");
#endif
    if (algorithm_ == rec::Algorithm::sequential)
      s.fail("algorithm", "backend cuda runs divide-and-conquer only (the sequential A1 is the CPU's)");
  }

  // 3. Boundary conditions (x- and x+, constant values) and the right-hand side.
  Boundary bc;
  bc.read(s, grid, ctx.constants);
  bc.require_finite(s, {t0});
  bvp::EndCondition ends[2];
  for (int side = 0; side < 2; ++side) {
    const Face& f = bc.face(0, side);
    if (f.value.uses_time())
      s.fail("boundary", "the problem is steady: boundary values may not use t");
    ends[side] = {f.kind == BoundaryKind::dirichlet, f.value(grid.coord(0, f.fixed), 0, 0, t0)};
    require_solve_headroom<T>(face_spec(s.child("boundary"), f.name()), "value", grid, std::abs(ends[side].value),
                              ends[side].dirichlet ? SteadyData::dirichlet : SteadyData::neumann);
  }
  if (!ends[0].dirichlet && !ends[1].dirichlet)
    s.fail("boundary", "Neumann at both ends leaves u undetermined up to a constant: make x- or x+ dirichlet");
  const index_t N = grid.n[0];
  if (ends[0].dirichlet && ends[1].dirichlet && N < 3)
    s.fail("", "grid.n: two Dirichlet ends need at least 3 nodes (one unknown between them)");
  const Expression f = Expression::from_deck(s, "source", ctx.constants);
  if (f.uses_time()) s.fail("source", "the problem is steady: f may use x but not t");
  if (s.has("exact")) {
    exact_ = Expression::from_deck(s, "exact", ctx.constants);
    if (exact_->uses_time()) s.fail("exact", "the problem is steady: the exact solution may not use t");
    const double largest = require_finite_expression(s, "exact", *exact_, local_, {t0});
    require_solve_headroom<T>(s, "exact", grid, largest, SteadyData::exact);
  }
  u_.assign(local_.size(), T(0));
  f.fill(local_, t0, u_.data());
  for (index_t i = 0; i < local_.size(); ++i)
    if (!std::isfinite(double(u_[i]))) s.fail("source", "has a value that is not finite (NaN or Inf) at x = " +
                                                             std::to_string(local_.coord(0, i)));
  require_solve_headroom<T>(s, "source", grid, largest_magnitude(local_.size(), u_.data()), SteadyData::source);
  T* u = u_.data() - held_.first;  // (indexed by global node)
  system_ = bvp::assemble<T>(N, grid.lo[0], grid.hi[0], ends[0], ends[1], [u](index_t i) { return double(u[i]); },
                             u_.data(), held_);
}

// The unknowns this rank owns are one part of the whole line's; the parts' carries are gathered
// over the ranks of the x axis (four numbers per rank). On the CPU or this rank's GPU.
template <class T>
void BvpModule<T>::solve_part() {
  const AxisSplit& a = domain_->layout().axes[0];
  const index_t begin = std::max(system_.first, a.first), end = std::min(system_.first + system_.m, a.first + a.owned);
  LineComm& comm = domain_->line_comm(0);
  const double waited0 = comm.seconds();
  rec::Part part{begin - system_.first, [&comm](const rec::PartSums& mine) {
                   std::vector<rec::PartSums> every(std::size_t(comm.size()));
                   comm.wait(comm.start_allgather(&mine, every.data(), sizeof(mine)));
                   return every;
                 }};
  // solve_s is this rank's solve: the wait for the other ranks' sums is left out.
  const auto t0 = std::chrono::steady_clock::now();
  T* d = u_.data() + (begin - held_.first);
  const index_t n = std::max<index_t>(0, end - begin);
  if (gpu_) {
#if TRIDSIM_HAVE_CUDA
    using rec::cuda::Carries;
    rec::cuda::GpuSolver<T> solver(arithmetic_, gpu_host_carries_ ? Carries::host : Carries::device);
    solve_s_ = solver.solve_host(d, n, system_.ends, &part);
#endif
  } else {
    if (column_length_ > 0) rec::solve_divide_conquer_part(d, n, system_.ends, arithmetic_, part, column_length_);
    else rec::solve_divide_conquer_part(d, n, system_.ends, arithmetic_, part);
    solve_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  solve_s_ = std::max(0.0, solve_s_ - (comm.seconds() - waited0));
}

template <class T>
void BvpModule<T>::step(double /*t*/, double /*dt*/) {
  if (solved_) return;  // steady: one solve
  T* d = u_.data() + system_.first;
  const auto t0 = std::chrono::steady_clock::now();
  if (domain_) {
    solve_part();
  } else if (gpu_) {
#if TRIDSIM_HAVE_CUDA
    using rec::cuda::Carries;
    rec::cuda::GpuSolver<T> solver(arithmetic_, gpu_host_carries_ ? Carries::host : Carries::device);
    solve_s_ = solver.solve_host(d, system_.m, system_.ends);  // device time of the solve alone
#endif
  } else {
    if (algorithm_ == rec::Algorithm::sequential) rec::solve_sequential(d, system_.m, system_.ends);
    else if (column_length_ > 0) rec::solve_divide_conquer(d, system_.m, system_.ends, arithmetic_, column_length_);
    else rec::solve_divide_conquer(d, system_.m, system_.ends, arithmetic_);
    solve_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  bvp::finish(system_, g_.n[0], u_.data(), held_);  // the linear lift of two Dirichlet values
  solved_ = true;
}

// Error norms against the exact solution, evaluated on the fly (no array of exact values, so
// that n = 2^28 needs no more memory than u).
template <class T>
void BvpModule<T>::compute_errors() {
  if (errors_done_ || !exact_ || !solved_) return;
  const index_t N = g_.size();
  AlignedVector<double> exact(local_.size());
  exact_->fill(local_, t0_, exact.data());
  const StatsSpec owned = domain_ ? StatsSpec::plain(local_).owned(domain_->layout()) : StatsSpec::plain(local_);
  const ErrorNorms e = domain_ ? error_norms_of("u", u_.data(), exact.data(), owned, *domain_)
                               : error_norms_of("u", u_.data(), exact.data(), N);
  double ex2 = 0;
  const index_t begin = owned.first[0], end = begin + owned.count[0];
#pragma omp parallel for reduction(+ : ex2)
  for (index_t i = begin; i < end; ++i) ex2 += exact[i] * exact[i];
  if (domain_) ex2 = domain_->sum(ex2);
  err_l2_ = e.l2;  // sqrt(sum e^2 / N)
  err_max_ = e.max;
  err_rel_ = e.l2 * std::sqrt(double(N) / (ex2 > 0 ? ex2 : 1.0));  // ||e|| / ||exact||, or ||e||
  errors_done_ = true;
}

template <class T>
std::optional<double> BvpModule<T>::relative_error() {
  compute_errors();
  if (!errors_done_) return std::nullopt;
  return err_rel_;
}

template <class T>
std::vector<FieldRef> BvpModule<T>::fields() {
  std::vector<FieldRef> out{{"u", precision_of<T>(), u_.data()}};
  if (exact_ && solved_) {  // the error field only when a writer asks for fields
    if (err_.empty()) {
      err_.resize(u_.size());
      exact_->fill(local_, t0_, err_.data());
#pragma omp parallel for simd
      for (index_t i = 0; i < index_t(u_.size()); ++i) err_[i] = u_[i] - err_[i];
    }
    out.push_back({"error", precision_of<T>(), err_.data()});
  }
  return out;
}

template <class T>
std::vector<Diagnostic> BvpModule<T>::diagnostics(double /*t*/) {
  const FieldStats s =
      owned_stats(StatsSpec::plain(local_), domain_, [&](const StatsSpec& spec) { return field_stats(spec, u_.data()); });
  auto d = min_max_mean("u", s, g_.size());
  d.push_back({"solve_s", solve_s_});
  if (auto rel = relative_error()) d.push_back({"relative_error", *rel});
  return d;
}

template <class T>
std::optional<ErrorNorms> BvpModule<T>::error_norms(double /*t*/) {
  compute_errors();
  if (!errors_done_) return std::nullopt;
  return ErrorNorms{"u", err_l2_, err_max_};
}

template class BvpModule<float>;
template class BvpModule<double>;

}  // namespace tridsim
