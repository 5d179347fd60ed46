#include "physics/poisson/poisson.hpp"

#include <hdf5.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <string>

#include "core/diffusion.hpp"
#include "core/errors.hpp"
#include "core/hdf5_support.hpp"
#include "physics/module_keys.hpp"
#include "physics/poisson/poisson_sparse.hpp"
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
  for (int a = 0; a < rank; ++a) {
    if (a) shape += "x";
    shape += std::to_string(dims[a]);
  }
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

// The module's method as the fast solvers' (automatic stays automatic), and back.
cr::PoissonMethod fast_method(PoissonModuleMethod m) {
  switch (m) {
    case PoissonModuleMethod::bcr: return cr::PoissonMethod::bcr;
    case PoissonModuleMethod::bcr4: return cr::PoissonMethod::bcr4;
    case PoissonModuleMethod::fft: return cr::PoissonMethod::fft;
    default: return cr::PoissonMethod::automatic;
  }
}
PoissonModuleMethod module_method(cr::PoissonMethod m) {
  switch (m) {
    case cr::PoissonMethod::bcr: return PoissonModuleMethod::bcr;
    case cr::PoissonMethod::bcr4: return PoissonModuleMethod::bcr4;
    case cr::PoissonMethod::fft: return PoissonModuleMethod::fft;
    default: return PoissonModuleMethod::automatic;
  }
}

// "node (i, j, k) (x = .., y = .., z = ..)" for the grid node at x-fastest offset o.
std::string node_text(const Grid& g, index_t o) {
  const index_t i = o % g.n[0], j = (o / g.n[0]) % g.n[1], k = o / (g.n[0] * g.n[1]);
  std::string s = "node (" + std::to_string(i) + ", " + std::to_string(j) + ", " + std::to_string(k) + ") (x = " +
                  std::to_string(g.coord(0, i));
  if (g.dim > 1) s += ", y = " + std::to_string(g.coord(1, j));
  if (g.dim > 2) s += ", z = " + std::to_string(g.coord(2, k));
  return s + ")";
}

// ||r||_2 / ||b||_2 (||r||_2 where b is 0), summed in double.
template <class T>
double relative_norm(index_t n, const T* r, const T* b) {
  double rr = 0, bb = 0;
#pragma omp parallel for reduction(+ : rr, bb)
  for (index_t i = 0; i < n; ++i) {
    rr += double(r[i]) * double(r[i]);
    bb += double(b[i]) * double(b[i]);
  }
  return bb > 0 ? std::sqrt(rr / bb) : std::sqrt(rr);
}

// A DeckError at the key that gives `face` (its own, or `all`).
[[noreturn]] void fail_face(const DeckNode& s, const Face& face, const std::string& what) {
  const DeckNode bc = s.child("boundary");
  bc.fail(bc.has(face.name()) ? face.name() : "all", std::string("face ") + face.name() + ": " + what);
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

// kappa: a number, an expression of x, y, z or an HDF5 dataset over the nodes; finite and positive
// at every node. A kappa that takes one value everywhere is kept as kappa0_ (the fast methods can
// solve it), any other as node values.
template <class T>
void PoissonModule<T>::read_conductivity(const DeckNode& s, const Grid& grid, const SetupContext& ctx) {
  kappa_.clear();
  if (!s.has("conductivity")) {  // the key table's default: a constant
    kappa0_ = table_default<double>(poisson_keys(), "poisson.conductivity");
    return;
  }
  std::vector<double> k(static_cast<std::size_t>(grid.size()));
  if (s.is_map("conductivity")) {
    read_hdf5_source<double>(s.child("conductivity"), grid, k.data());
  } else {
    const Expression e = Expression::from_deck(s, "conductivity", ctx.constants);
    if (e.uses_time()) s.fail("conductivity", "the problem is steady: kappa may use x, y, z but not t");
    e.fill(grid, t0_, k.data());
  }
  require_finite_values(s, "conductivity", grid, t0_, k.data());
  const auto bad = std::find_if(k.begin(), k.end(), [](double v) { return !(v > 0); });
  if (bad != k.end())
    s.fail("conductivity", "must be positive at every node, is " + std::to_string(*bad) + " at " +
                               node_text(grid, index_t(bad - k.begin())));
  const auto [lo, hi] = std::minmax_element(k.begin(), k.end());
  if (*lo == *hi) kappa0_ = *lo;
  else kappa_ = std::move(k);
}

// The multifrontal solve's matrix holds kappa (varying, or a constant that scales it): its entries
// kappa / h^2 are multiplied in the elimination, so they must stay finite in T (kappa = 1e300 beside
// 1 gave NaN in the solve, "the run diverged"). The fast methods divide f by a constant kappa instead.
template <class T>
void PoissonModule<T>::require_matrix_range(const DeckNode& s) const {
  const double k = kappa_.empty() ? kappa0_ : *std::max_element(kappa_.begin(), kappa_.end());
  double h = g_.h(0);
  for (int a = 1; a < g_.dim; ++a) h = std::min(h, g_.h(a));
  const double entry = k / (h * h), top = double(std::numeric_limits<T>::max());
  if (!(entry * entry <= top))
    s.fail("conductivity", fmt::format("reaches {:.3g}: the matrix entries kappa / h^2 = {:.3g} (h = {:.3g}) are "
                                       "multiplied in the solve, so they must stay below sqrt({:.3g}) = {:.3g} in {}: "
                                       "a smaller kappa (in other units) or a coarser grid",
                                       k, entry, h, top, std::sqrt(top), std::is_same_v<T, float> ? "float" : "double"));
}

// auto: multifrontal when kappa varies; fft-tridiagonal for a constant kappa with a face that is
// not Dirichlet (multifrontal on the cuda backend, for Neumann faces beside a Dirichlet one); else a
// fast method. A method named in the deck must be able to solve the problem.
template <class T>
void PoissonModule<T>::choose_method(const DeckNode& s, Backend backend) {
  const Face *neumann = nullptr, *periodic = nullptr;
  bool any_dirichlet = false;
  for (const Face& f : bc_.faces()) {
    if (f.kind == BoundaryKind::neumann && !neumann) neumann = &f;
    if (f.kind == BoundaryKind::periodic && !periodic) periodic = &f;
    if (f.kind == BoundaryKind::dirichlet) any_dirichlet = true;
  }
  const Face* other = periodic ? periodic : neumann;  // a face that is not Dirichlet
  const bool varies = !kappa_.empty(), cuda = backend == Backend::cuda;
  const bool named = method_ != PoissonModuleMethod::automatic;  // by the deck
  if (g_.any_stretched()) {  // fft-tridiagonal alone solves it, on the cpu (the last axis stretched)
    const int last = g_.dim - 1;
    std::string axis = "grid.";
    axis += "xyz"[last];
    for (int a = 0; a < last; ++a)
      if (g_.stretched(a))
        throw Error(std::string("poisson: axis ") + "xyz"[a] + " is stretched; only the last axis may be (its transforms "
                    "run along the others)");
    if (named && method_ != PoissonModuleMethod::fft_tridiagonal)
      s.fail("method", fmt::format("{} needs a uniform grid, and {} is stretched: use method: fft-tridiagonal (or auto)",
                                   name_of(kPoissonModuleMethodNames, method_), axis));
    if (varies)
      s.fail("conductivity", fmt::format("varies, which only multifrontal solves, on a uniform grid; {} is stretched, "
                                         "which only fft-tridiagonal solves, for a constant conductivity",
                                         axis));
    if (cuda)
      s.fail("method", fmt::format("{} is stretched, which fft-tridiagonal solves, on the cpu backend only (its cuFFT "
                                   "version is not written yet): use backend: cpu",
                                   axis));
    method_ = PoissonModuleMethod::fft_tridiagonal;
  }
  if (method_ == PoissonModuleMethod::automatic) {
    if (varies) method_ = PoissonModuleMethod::multifrontal;
    else if (other)
      method_ = cuda && !periodic && any_dirichlet ? PoissonModuleMethod::multifrontal
                                                  : PoissonModuleMethod::fft_tridiagonal;
  }
  // project has nothing to project unless fft-tridiagonal solves with no Dirichlet face (require,
  // the default, is then true as it stands).
  auto no_compatibility = [&](const std::string& why) {
    if (s.has("compatibility") &&
        s.get_enum("compatibility", kPoissonCompatibilityNames) == PoissonCompatibility::project)
      s.fail("compatibility", "project applies to fft-tridiagonal with no dirichlet face; " + why);
  };
  if (method_ == PoissonModuleMethod::multifrontal) {
    if (s.has("refine"))
      s.fail("refine", "applies to bcr, bcr4 and fft; multifrontal refines until the residual stops falling");
    if (periodic)
      fail_face(s, *periodic,
                varies ? "periodic faces are solved by fft-tridiagonal, which takes a constant conductivity, and "
                         "poisson.conductivity varies; multifrontal takes dirichlet and neumann faces only"
                       : "multifrontal takes dirichlet and neumann faces only: use method: fft-tridiagonal (or auto)");
    if (!any_dirichlet)
      s.fail("boundary", std::string("no face is dirichlet: with Neumann faces only, u is fixed only up to a constant "
                                     "(the problem is singular), which multifrontal does not solve; give at least one "
                                     "face type: dirichlet") +
                             (varies || cuda ? "" : ", or use method: fft-tridiagonal (or auto), which does"));
    no_compatibility("here multifrontal solves");
    return;
  }
  const std::string name = method_ == PoissonModuleMethod::automatic
                               ? std::string("auto")
                               : std::string(name_of(kPoissonModuleMethodNames, method_));
  if (varies)
    s.fail("method", name + " solves a constant conductivity, and poisson.conductivity varies: use method: "
                            "multifrontal (or auto)");
  if (method_ == PoissonModuleMethod::fft_tridiagonal) {
    if (cuda) {
      const std::string why = "runs on the cpu backend only (its cuFFT version is not written yet, issue 37): use "
                              "backend: cpu";
      if (named) s.fail("method", "fft-tridiagonal " + why + (periodic || !any_dirichlet ? "" : ", or method: multifrontal"));
      if (periodic) fail_face(s, *periodic, "periodic faces are solved by fft-tridiagonal, which " + why);
      s.fail("boundary", "no face is dirichlet (a singular problem, which multifrontal does not take), and "
                         "fft-tridiagonal " + why);
    }
    if (s.has("refine")) s.fail("refine", "applies to bcr, bcr4 and fft; fft-tridiagonal solves to rounding");
    if (any_dirichlet) no_compatibility("here a face is dirichlet, so the problem is not singular: remove the key");
    return;
  }
  if (other)
    s.fail("method", name + " needs type: dirichlet on every face, and face " + other->name() + " is " +
                         name_of(kBoundaryKindNamesPeriodic, other->kind) + ": use method: fft-tridiagonal" +
                         (periodic ? "" : " or multifrontal") + " (or auto)");
  no_compatibility("here every face is dirichlet: remove the key");
}

template <class T>
void PoissonModule<T>::setup(const Grid& whole, const DeckNode& s, const SetupContext& ctx, double t0) {
  // Periodic axes (the driver's grid says the same; a test's may not): n distinct nodes, h = L/n.
  Grid grid = whole;
  grid.periodic = Boundary::periodic_axes(s, grid.dim);
  g_ = grid;
  t0_ = t0;
  // 1. Method (resolved in 5, once the problem is known).
  const KeyTable keys = poisson_keys();
  method_ = s.get_enum_or_default("method", kPoissonModuleMethodNames, keys);
  refine_ = s.get_enum_or_default("refine", cr::kRefineNames, keys);
  for (int a = 0; a < grid.dim; ++a)
    if (grid.n[a] < 3)
      s.fail("", "grid.n: every axis needs at least 3 nodes (one interior node between two faces), axis " +
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

  // 3. The conductivity kappa; f must leave the solve room.
  read_conductivity(s, grid, ctx);
  const double kappa_min = kappa_.empty() ? kappa0_ : *std::min_element(kappa_.begin(), kappa_.end());
  require_solve_headroom<T>(s, "source", grid, largest_magnitude(grid.size(), f_.data()), SteadyData::source, kappa_min);

  // 4. The faces: Dirichlet values or Neumann derivatives du/dn (outward normal), finite and steady,
  //    or periodic (both faces of an axis).
  bc_.read(s, grid, ctx.constants, {}, true);
  for (const Face& f : bc_.faces())
    if (f.value.uses_time()) fail_face(s, f, "the problem is steady: boundary values may not use t");
  bc_.require_finite(s, {t0});
  neumann_.assign(bc_.faces().size(), {});
  for (std::size_t fi = 0; fi < bc_.faces().size(); ++fi) {
    const Face& f = bc_.faces()[fi];
    if (f.kind == BoundaryKind::periodic) continue;
    std::vector<double> values(static_cast<std::size_t>(f.size()));
    f.evaluate(grid, t0, values.data());
    require_solve_headroom<T>(face_spec(s.child("boundary"), f.name()), "value", grid,
                              largest_magnitude(index_t(values.size()), values.data()),
                              f.kind == BoundaryKind::neumann ? SteadyData::neumann : SteadyData::dirichlet);
    if (f.kind == BoundaryKind::neumann) neumann_[fi] = std::move(values);
  }
  if (s.has("exact")) {
    exact_ = Expression::from_deck(s, "exact", ctx.constants);
    if (exact_->uses_time()) s.fail("exact", "the problem is steady: the exact solution may not use t");
    const double largest = require_finite_expression(s, "exact", *exact_, grid, {t0});
    require_solve_headroom<T>(s, "exact", grid, largest, SteadyData::exact);
  }
  u_.assign(grid.size(), T(0));
  bc_.impose_dirichlet(t0, u_.data());

  // 5. The solver (analysis, plans and tables are made here, once).
  choose_method(s, ctx.backend);
  if (method_ == PoissonModuleMethod::fft_tridiagonal) return setup_transform(s);
  if (method_ == PoissonModuleMethod::multifrontal) {
    require_matrix_range(s);
    sparse_ = std::make_unique<PoissonSparse<T>>(grid, bc_, kappa_, kappa0_, ctx.backend);
    try {
      sparse::check_memory(sparse_->working_bytes(), 0, "the multifrontal factorization");
    } catch (const Error& e) {
      s.fail("method", e.what());
    }
    const sparse::Analysis& an = sparse_->analysis();
    spdlog::info("poisson: multifrontal on {} unknowns, {} fronts: factor {:.3g} MiB, working memory {:.3g} MiB, "
                 "{:.3g} Gflop (analysis {:.3g} s)",
                 an.unknowns(), an.fronts().size(), double(an.factor_entries()) * sizeof(T) / 1048576.0,
                 sparse_->working_bytes() / 1048576.0, an.flops() * 1e-9, an.seconds());
    return;
  }
  const cr::PoissonBox box = interior_box();
  if (ctx.backend == Backend::cuda) {
#if TRIDSIM_HAVE_CUDA
    gpu_ = std::make_unique<PoissonGpu<T>>(box, fast_method(method_), refine_);
    method_ = module_method(gpu_->method());
#else
    throw Error("backend cuda: this build has no CUDA support (configure with -DTRIDSIM_CUDA=ON)");
#endif
  } else {
    cpu_ = std::make_unique<cr::PoissonSolver<T>>(box, fast_method(method_), false, refine_);
    method_ = module_method(cpu_->method());
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
  const T inv_kappa = T(1 / kappa0_);  // -kappa0 Lap u = f is -Lap u = f / kappa0
  const index_t sy = g_.n[0], sz = g_.n[0] * g_.n[1];
#pragma omp parallel for collapse(2) schedule(static)
  for (index_t k = 0; k < mz; ++k)
    for (index_t j = 0; j < my; ++j)
      for (index_t i = 0; i < mx; ++i) {
        // interior node (i, j, k) is grid node (i+1, j+1, k+1) (k+1 -> 0 in 2D), x-fastest
        const index_t o = (i + 1) + (dim > 1 ? (j + 1) * sy : 0) + (dim > 2 ? (k + 1) * sz : 0);
        T v = f_[o] * inv_kappa;
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
void PoissonModule<T>::solve_fast() {
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
  residual_ = relative_norm(b.size(), r.data(), rhs.data());
}

template <class T>
cr::TransformPoissonBox PoissonModule<T>::transform_box() const {
  cr::TransformPoissonBox b;
  b.dim = g_.dim;
  for (int a = 0; a < g_.dim; ++a) {
    b.n[a] = g_.n[a];
    b.h[a] = g_.stretched(a) ? 0.0 : g_.h(a);
    for (int side = 0; side < 2; ++side) b.ends[a][side] = bc_.kind(a, side);
  }
  b.line_nodes = g_.nodes[g_.dim - 1];  // (choose_method refuses any other axis stretched)
  return b;
}

// fft-tridiagonal: the right-hand side over the unknowns (the nodes not on a Dirichlet face) is
// f / kappa, plus the Dirichlet neighbours / h^2 and, on Neumann faces, 2 g / h (the half cell's
// flux, as for multifrontal). With no Dirichlet face it must balance, or is made to. On a stretched
// last axis h is the end cell's width, and a Dirichlet neighbour's coefficient its line row's.

template <class T>
void PoissonModule<T>::setup_transform(const DeckNode& s) {
  const cr::TransformPoissonBox box = transform_box();
  transform_ = std::make_unique<cr::TransformPoisson<T>>(box);
  const cr::LineRows line_rows = cr::line_axis_rows(box);
  const std::array<index_t, 3> m{box.m(0), box.m(1), box.m(2)}, first{box.first(0), box.first(1), box.first(2)};
  auto unknown = [&](index_t i, index_t j, index_t k) { return i + m[0] * (j + m[1] * k); };
  rhs_.assign(box.size(), T(0));
  const T inv_kappa = T(1 / kappa0_);  // -kappa0 Lap u = f is -Lap u = f / kappa0
#pragma omp parallel for collapse(2) schedule(static)
  for (index_t k = 0; k < m[2]; ++k)
    for (index_t j = 0; j < m[1]; ++j)
      for (index_t i = 0; i < m[0]; ++i)
        rhs_[unknown(i, j, k)] = f_[g_.index(first[0] + i, first[1] + j, first[2] + k)] * inv_kappa;
  for (std::size_t fi = 0; fi < bc_.faces().size(); ++fi) {
    const Face& f = bc_.faces()[fi];
    if (f.kind == BoundaryKind::periodic) continue;
    const int a = f.axis;
    const bool stretched = g_.stretched(a);
    const std::vector<double>& z = g_.nodes[a];
    const double inv_h = stretched ? 1 / (f.side ? z[z.size() - 1] - z[z.size() - 2] : z[1] - z[0]) : 1 / g_.h(a);
    const double dirichlet_coefficient = stretched ? -(f.side ? line_rows.C.back() : line_rows.A.front()) : inv_h * inv_h;
    for (index_t iq = 0; iq < m[f.q]; ++iq)
      for (index_t ip = 0; ip < m[f.p]; ++ip) {
        std::array<index_t, 3> at{};  // the unknown next to (Dirichlet) or on (Neumann) the face
        at[a] = f.side ? m[a] - 1 : 0;
        at[f.p] = ip;
        at[f.q] = iq;
        std::array<index_t, 3> node{first[0] + at[0], first[1] + at[1], first[2] + at[2]};
        T& r = rhs_[unknown(at[0], at[1], at[2])];
        if (f.kind == BoundaryKind::neumann) {
          const double g = neumann_[fi][(first[f.p] + ip) + f.np * (first[f.q] + iq)];  // face array x-fastest
          r += T(neumann_flux_term(1.0, g, inv_h));
        } else {
          node[a] = f.fixed;
          r += T(double(u_[g_.index(node[0], node[1], node[2])]) * dirichlet_coefficient);
        }
      }
  }
  if (!box.singular()) return;
  const auto mode = s.get_enum_or_default("compatibility", kPoissonCompatibilityNames, poisson_keys());
  const double mean = transform_->weighted_mean(rhs_.data()), size = transform_->weighted_mean(rhs_.data(), true);
  const double tolerance = 1e3 * std::numeric_limits<T>::epsilon();
  if (mode == PoissonCompatibility::require && std::abs(mean) > tolerance * size)
    s.fail("compatibility",
           fmt::format("no face is dirichlet, so u is fixed only up to a constant and a solution exists only when "
                       "f balances the boundary fluxes: the mean of f + 2 kappa du/dn / h over the nodes (half "
                       "weights on Neumann faces) must vanish, and it is {:.3g} ({:.3g} of its mean magnitude, more "
                       "than {:.1g}): correct poisson.source or the Neumann values, or set poisson.compatibility: "
                       "project to subtract that mean from f",
                       mean * kappa0_, std::abs(mean) / size, tolerance));
  if (mode == PoissonCompatibility::project) {
    transform_->remove_mean(rhs_.data());
    projected_mean_ = mean * kappa0_;
    spdlog::info("poisson: compatibility: project subtracted the mean {:.3g} of f and the boundary fluxes",
                 projected_mean_);
  }
}

template <class T>
void PoissonModule<T>::solve_transform() {
  const cr::TransformPoissonBox box = transform_->box();
  const std::array<index_t, 3> m{box.m(0), box.m(1), box.m(2)}, first{box.first(0), box.first(1), box.first(2)};
  AlignedVector<T> w = rhs_;
  transform_->solve(w.data());
#pragma omp parallel for collapse(2) schedule(static)
  for (index_t k = 0; k < m[2]; ++k)
    for (index_t j = 0; j < m[1]; ++j)
      std::copy(w.data() + m[0] * (j + m[1] * k), w.data() + m[0] * (j + m[1] * k + 1),
                u_.data() + g_.index(first[0], first[1] + j, first[2] + k));
  AlignedVector<T> r(box.size());
  transform_->residual(w.data(), rhs_.data(), r.data());
  residual_ = relative_norm(box.size(), r.data(), rhs_.data());
}

template <class T>
void PoissonModule<T>::solve_sparse() {
  const sparse::Refinement r = sparse_->solve(f_.data(), neumann_, u_.data());
  residual_ = r.residual;
  refinement_steps_ = r.steps;
  spdlog::info("poisson: multifrontal factored in {:.3g} s; {} refinement step{}, relative residual {:.3g}",
               sparse_->factor_seconds(), r.steps, r.steps == 1 ? "" : "s", r.residual);
}

template <class T>
void PoissonModule<T>::step(double /*t*/, double /*dt*/) {
  if (sparse_) solve_sparse();
  else if (transform_) solve_transform();
  else solve_fast();
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
  if (!kappa_.empty()) out.push_back({"kappa", Precision::float64, kappa_.data()});
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
