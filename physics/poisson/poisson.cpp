#include "physics/poisson/poisson.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <string>

#include "core/errors.hpp"
#include "core/hdf5_support.hpp"
#include "tridsim_build_info.hpp"
#if TRIDSIM_HAVE_CUDA
#include "physics/poisson/poisson_gpu.hpp"
#endif

namespace tridsim {

#if !TRIDSIM_HAVE_CUDA
template <class T>
class PoissonGpu {};  // never made without CUDA; complete so that unique_ptr can delete it
#endif

namespace {

// Reads a dataset over the grid's nodes: shape (nz, ny, nx), (ny, nx) or (nx), x fastest.
template <class T>
void read_hdf5_source(const DeckNode& spec, const Grid& g, T* out) {
  const std::filesystem::path path = spec.get_file("file");
  const std::string dataset = spec.get<std::string>("dataset");
  QuietHdf5 quiet;  // errors are reported below, once
  const Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (file.get() < 0) spec.fail("file", "cannot open HDF5 file '" + path.string() + "'");
  if (H5Lexists(file.get(), dataset.c_str(), H5P_DEFAULT) <= 0)
    spec.fail("dataset", "HDF5 file '" + path.string() + "' has no dataset '" + dataset + "'");
  const Handle set(H5Dopen2(file.get(), dataset.c_str(), H5P_DEFAULT), H5Dclose);
  if (set.get() < 0) spec.fail("dataset", "'" + dataset + "' in '" + path.string() + "' is not a dataset");
  const Handle space(H5Dget_space(set.get()), H5Sclose);
  const int rank = H5Sget_simple_extent_ndims(space.get());
  hsize_t dims[8] = {};
  if (rank < 1 || rank > 3) spec.fail("dataset", "'" + dataset + "' has rank " + std::to_string(rank) + ", expected " +
                                                     std::to_string(g.dim) + " (the grid's)");
  H5Sget_simple_extent_dims(space.get(), dims, nullptr);
  std::string shape, want;
  bool ok = rank == g.dim;
  for (int a = 0; a < rank; ++a) shape += (a ? "x" : "") + std::to_string(dims[a]);
  for (int a = g.dim - 1; a >= 0; --a) {
    want += std::to_string(g.n[a]) + (a ? "x" : "");
    if (ok && dims[g.dim - 1 - a] != hsize_t(g.n[a])) ok = false;
  }
  if (!ok)
    spec.fail("dataset", "'" + dataset + "' has shape " + shape + "; the grid's nodes need " + want +
                             " (slowest axis first, x last)");
  const hid_t type = std::is_same_v<T, float> ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
  if (H5Dread(set.get(), type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) < 0)
    spec.fail("dataset", "cannot read '" + dataset + "' from '" + path.string() + "' as numbers");
}

}  // namespace

template <class T>
PoissonModule<T>::PoissonModule() = default;
template <class T>
PoissonModule<T>::~PoissonModule() = default;

template <class T>
cr::PoissonBox PoissonModule<T>::interior_box() const {
  cr::PoissonBox b;
  b.dim = g_.dim;
  for (int a = 0; a < 3; ++a) {
    b.m[a] = a < g_.dim ? g_.n[a] - 2 : 1;
    b.h[a] = a < g_.dim ? g_.h(a) : 1.0;
  }
  return b;
}

template <class T>
void PoissonModule<T>::setup(const Grid& grid, const DeckNode& s, const SetupContext& ctx, double t0) {
  g_ = grid;
  t0_ = t0;
  // 1. Method.
  method_ = s.get_enum("method", cr::kPoissonMethodNames, cr::PoissonMethod::automatic);
  refine_ = s.get_enum("refine", cr::kRefineNames, cr::Refine::automatic);
  for (int a = 0; a < grid.dim; ++a)
    if (grid.n[a] < 3)
      s.fail("", "grid.n: every axis needs at least 3 nodes (one interior node between two Dirichlet faces), axis " +
                     std::to_string(a) + " has " + std::to_string(grid.n[a]));

  // 2. Right-hand side f: an expression of x, y, z or a dataset of an HDF5 file.
  f_.assign(grid.size(), T(0));
  if (s.is_map("source")) {
    read_hdf5_source<T>(s.child("source"), grid, f_.data());
  } else {
    const Expression f = Expression::from_deck(s, "source", ctx.constants);
    if (f.uses_time()) s.fail("source", "the problem is steady: f may use x, y, z but not t");
    f.fill(grid, t0, f_.data());
  }
  for (const T v : f_)
    if (!std::isfinite(double(v))) s.fail("source", "has a value that is not finite (NaN or Inf) at some node");

  // 3. Dirichlet values on every face, and the optional exact solution.
  bc_.read(s, grid, ctx.constants);
  for (const auto& f : bc_.faces()) {
    if (f.kind != BoundaryKind::dirichlet)
      s.fail("boundary", "the poisson module solves Dirichlet problems: every face needs type: dirichlet");
    if (f.value.uses_time()) s.fail("boundary", "the problem is steady: boundary values may not use t");
  }
  if (s.has("exact")) {
    exact_ = Expression::from_deck(s, "exact", ctx.constants);
    if (exact_->uses_time()) s.fail("exact", "the problem is steady: the exact solution may not use t");
    AlignedVector<double> e(grid.size());
    exact_->fill(grid, t0, e.data());
    require_finite_values(s, "exact", grid, t0, e.data());
  }
  u_.assign(grid.size(), T(0));
  bc_.impose_dirichlet(t0, u_.data());

  // 4. The solver (plans and tables are made here, once).
  const cr::PoissonBox box = interior_box();
  if (ctx.backend == Backend::cuda) {
#if TRIDSIM_HAVE_CUDA
    gpu_ = std::make_unique<PoissonGpu<T>>(box, method_, refine_);
    method_ = gpu_->method();
#else
    throw Error("backend cuda: this build has no CUDA support (configure with -DTRIDSIM_CUDA=ON)");
#endif
  } else {
    cpu_ = std::make_unique<cr::PoissonSolver<T>>(box, method_, false, refine_);
    method_ = cpu_->method();
  }
}

template <class T>
void PoissonModule<T>::form_rhs(T* rhs) const {
  const cr::PoissonBox b = interior_box();
  const index_t mx = b.m[0], my = b.m[1], mz = b.m[2];
  const int dim = g_.dim;
  const T ix = T(1 / (b.h[0] * b.h[0])), iy = dim > 1 ? T(1 / (b.h[1] * b.h[1])) : T(0),
          iz = dim > 2 ? T(1 / (b.h[2] * b.h[2])) : T(0);
  const T* u = u_.data();  // holds the Dirichlet values on the faces
  const index_t sy = g_.n[0], sz = g_.n[0] * g_.n[1];
#pragma omp parallel for collapse(2) schedule(static)
  for (index_t k = 0; k < mz; ++k)
    for (index_t j = 0; j < my; ++j)
      for (index_t i = 0; i < mx; ++i) {
        // interior node (i, j, k) is grid node (i+1, j+1, k+1) (k+1 -> 0 in 2D), x-fastest
        const index_t o = (i + 1) + (dim > 1 ? (j + 1) * sy : 0) + (dim > 2 ? (k + 1) * sz : 0);
        T v = f_[o];
        if (i == 0) v += ix * u[o - 1];
        if (i == mx - 1) v += ix * u[o + 1];
        if (dim > 1 && j == 0) v += iy * u[o - sy];
        if (dim > 1 && j == my - 1) v += iy * u[o + sy];
        if (dim > 2 && k == 0) v += iz * u[o - sz];
        if (dim > 2 && k == mz - 1) v += iz * u[o + sz];
        rhs[i + mx * (j + my * k)] = v;
      }
}

template <class T>
void PoissonModule<T>::step(double /*t*/, double /*dt*/) {
  const cr::PoissonBox b = interior_box();
  const index_t mx = b.m[0], my = b.m[1], mz = b.m[2];
  AlignedVector<T> rhs(b.size()), w(b.size());
  form_rhs(rhs.data());
  w = rhs;
  if (gpu_) {
#if TRIDSIM_HAVE_CUDA
    gpu_->solve(w.data());
#endif
  } else {
    cpu_->solve(w.data());
  }
  // Scatter the interior solution into u (the faces already hold their values).
  const int dim = g_.dim;
  const index_t sy = g_.n[0], sz = g_.n[0] * g_.n[1];
#pragma omp parallel for collapse(2) schedule(static)
  for (index_t k = 0; k < mz; ++k)
    for (index_t j = 0; j < my; ++j) {
      const index_t o = 1 + (dim > 1 ? (j + 1) * sy : 0) + (dim > 2 ? (k + 1) * sz : 0);
      std::copy(w.data() + mx * (j + my * k), w.data() + mx * (j + my * k + 1), u_.data() + o);
    }
  // The discrete residual, a check that the solve did what it says.
  AlignedVector<T> r(b.size());
  cr::poisson_residual<T>(b, w.data(), rhs.data(), r.data());
  double rr = 0, ff = 0;
#pragma omp parallel for reduction(+ : rr, ff)
  for (index_t i = 0; i < b.size(); ++i) {
    rr += double(r[i]) * double(r[i]);
    ff += double(rhs[i]) * double(rhs[i]);
  }
  residual_ = ff > 0 ? std::sqrt(rr / ff) : std::sqrt(rr);
  solved_ = true;
  if (exact_) {
    err_.resize(g_.size());
    exact_->fill(g_, t0_, err_.data());
#pragma omp parallel for simd
    for (index_t i = 0; i < g_.size(); ++i) err_[i] = u_[i] - err_[i];
  }
}

template <class T>
std::vector<FieldRef> PoissonModule<T>::fields() {
  std::vector<FieldRef> out{{"u", precision_of<T>(), u_.data()}};
  if (exact_ && solved_) out.push_back({"error", precision_of<T>(), err_.data()});
  return out;
}

template <class T>
std::vector<Diagnostic> PoissonModule<T>::diagnostics(double /*t*/) {
  const FieldStats s = field_stats(StatsSpec::plain(g_), u_.data());
  auto d = min_max_mean("u", s, g_.size());
  d.push_back({"residual", residual_});
  return d;
}

template <class T>
std::optional<ErrorNorms> PoissonModule<T>::error_norms(double /*t*/) {
  if (!exact_ || !solved_) return std::nullopt;
  return error_norms_of("u", err_.data(), nullptr, index_t(err_.size()));
}

template class PoissonModule<float>;
template class PoissonModule<double>;

}  // namespace tridsim
