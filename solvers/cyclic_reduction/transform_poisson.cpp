#include "solvers/cyclic_reduction/transform_poisson.hpp"

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "core/aligned.hpp"
#include "core/errors.hpp"
#include "solvers/cyclic_reduction/fftw_plans.hpp"
#include "solvers/tridiagonal/batched.hpp"
#include "solvers/tridiagonal/cyclic.hpp"

namespace tridsim::cr {

namespace {

// The transform pair of one axis and the eigenvalues of its operator in the order of the forward
// transform's output: u = backward(forward(b) / lambda) / norm along that axis.
struct AxisTransform {
  fftw_r2r_kind forward = FFTW_R2HC, backward = FFTW_HC2R;
  double norm = 1;
  std::vector<double> eig;
};

AxisTransform axis_transform(index_t m, double h, BoundaryKind lo, BoundaryKind hi) {
  using K = BoundaryKind;
  AxisTransform t;
  t.eig.resize(std::size_t(m));
  // lambda = 4 sin^2(theta / 2) / h^2 for the mode of angle theta per node
  auto set = [&](auto theta) {
    for (index_t k = 0; k < m; ++k) {
      const double s = std::sin(0.5 * theta(k));
      t.eig[std::size_t(k)] = 4 * s * s / (h * h);
    }
  };
  const double pi = M_PI, dm = double(m);
  if (lo == K::periodic) {  // halfcomplex: r_0, r_1, ..., r_{m/2}, i_{(m-1)/2}, ..., i_1
    t.norm = dm;
    set([&](index_t k) { return 2 * pi * double(k <= m / 2 ? k : m - k) / dm; });
  } else if (lo == K::dirichlet && hi == K::dirichlet) {  // sin(pi (k+1) j / (m+1))
    t.forward = t.backward = FFTW_RODFT00;
    t.norm = 2 * (dm + 1);
    set([&](index_t k) { return pi * double(k + 1) / (dm + 1); });
  } else if (lo == K::neumann && hi == K::neumann) {  // cos(pi k j / (m-1))
    t.forward = t.backward = FFTW_REDFT00;
    t.norm = 2 * (dm - 1);
    set([&](index_t k) { return pi * double(k) / (dm - 1); });
  } else {  // one end of each: sin or cos(pi (2k+1) j / (2m)), the analysis the inverse of the synthesis
    const bool dirichlet_lo = lo == K::dirichlet;
    t.forward = dirichlet_lo ? FFTW_RODFT01 : FFTW_REDFT01;
    t.backward = dirichlet_lo ? FFTW_RODFT10 : FFTW_REDFT10;
    t.norm = 2 * dm;
    set([&](index_t k) { return pi * double(2 * k + 1) / (2 * dm); });
  }
  return t;
}

// The rows of the last axis's lines, one shift per wavenumber (the lines' offsets within a plane
// of that axis), in the batched solvers' row-source contract (solvers/tridiagonal/coefficients.hpp).
template <class T>
struct WavenumberRows {
  const T* shift;     // per line
  index_t stride;     // of the line axis
  index_t m;          // line length
  const T *a, *b, *c;  // -D2_h's rows along the line (line_axis_rows)
  bool pin;           // the singular case: row 0 of line 0 is u = 0

  void row(index_t line, index_t r, T& A, T& B, T& C) const {
    if (pin && line == 0 && r == 0) {
      A = C = 0;
      B = 1;
      return;
    }
    A = a[r];
    B = b[r] + shift[line];
    C = c[r];
  }
  void load_line(index_t off, index_t len, T* A, T* B, T* C) const {  // (1D: the one x-line)
    for (index_t r = 0; r < len; ++r) row(off / m, r, A[r], B[r], C[r]);
  }
  void load_row(index_t off, index_t count, index_t r, T* A, T* B, T* C) const {
    const index_t line = off - r * stride;
    for (index_t l = 0; l < count; ++l) row(line + l, r, A[l], B[l], C[l]);
  }
};

// The trapezoid weights of the unknowns of a stretched line axis: their cells' widths.
std::vector<double> stretched_weights(const TransformPoissonBox& box, int a, index_t m) {
  const std::vector<double>& z = box.line_nodes;
  std::vector<double> w(static_cast<std::size_t>(m));
  for (index_t r = 0; r < m; ++r) {
    const std::size_t i = std::size_t(box.first(a) + r);
    const double below = i > 0 && !(r == 0 && box.neumann(a, 0)) ? z[i] - z[i - 1] : 0.0;
    const double above = i + 1 < z.size() && !(r == m - 1 && box.neumann(a, 1)) ? z[i + 1] - z[i] : 0.0;
    w[std::size_t(r)] = 0.5 * (below + above);
  }
  return w;
}

}  // namespace

LineRows line_axis_rows(const TransformPoissonBox& box) {
  const int a = box.dim - 1;
  const index_t m = box.m(a);
  const bool neumann_lo = box.neumann(a, 0), neumann_hi = box.neumann(a, 1);
  LineRows rows{std::vector<double>(std::size_t(m)), std::vector<double>(std::size_t(m)),
                std::vector<double>(std::size_t(m))};
  const std::vector<double>& z = box.line_nodes;
  for (index_t r = 0; r < m; ++r) {
    double& A = rows.A[std::size_t(r)];
    double& B = rows.B[std::size_t(r)];
    double& C = rows.C[std::size_t(r)];
    if (z.empty()) {
      poisson_line_row<double>(r, m, neumann_lo, neumann_hi, 1 / (box.h[a] * box.h[a]), 0.0, A, B, C);
      continue;
    }
    const std::size_t i = std::size_t(box.first(a) + r);  // the grid node
    if (r == 0 && neumann_lo) {  // the half cell [z_0, z_0 + h/2]: its mirrored neighbour doubles the coupling
      const double h = z[1] - z[0];
      A = 0;
      C = -2 / (h * h);
    } else if (r == m - 1 && neumann_hi) {
      const double h = z[i] - z[i - 1];
      A = -2 / (h * h);
      C = 0;
    } else {
      const double below = z[i] - z[i - 1], above = z[i + 1] - z[i];
      A = -2 / (below * (below + above));
      C = -2 / (above * (below + above));
    }
    B = -(A + C);
  }
  return rows;
}

template <class T>
struct TransformPoisson<T>::Impl {
  TransformPoissonBox box;
  std::array<index_t, 3> m{1, 1, 1};
  int line_axis = 0;
  typename fftw::Api<T>::plan forward{}, backward{};
  std::array<std::vector<double>, 3> eig;  // transformed axes: eigenvalues by wavenumber index
  AlignedVector<T> shift;                  // per line of the line axis
  AlignedVector<T> row_a, row_b, row_c;    // -D2_h along the line axis, per unknown
  std::vector<double> line_weight;         // a stretched line axis's trapezoid weights
  T scale = 1;                             // 1 / the product of the transforms' norms
  int plan_alignment = 0;
  mutable AlignedVector<T> buffer;  // for arrays whose alignment differs from the plans'

  index_t size() const { return m[0] * m[1] * m[2]; }
  // The trapezoid weight of unknown i along axis a: 1/2 on a Neumann end.
  double weight(int a, index_t i) const {
    if (a == line_axis && !line_weight.empty()) return line_weight[std::size_t(i)];
    return (i == 0 && box.neumann(a, 0)) || (i == m[a] - 1 && box.neumann(a, 1)) ? 0.5 : 1.0;
  }
  void solve_lines(T* p) const;
};

template <class T>
TransformPoisson<T>::TransformPoisson(const TransformPoissonBox& box, bool measure) : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  if (box.dim < 1 || box.dim > 3) throw Error("transform Poisson solver: dim must be 1, 2 or 3");
  s.box = box;
  for (int a = 0; a < box.dim; ++a) {
    const bool lo = box.ends[a][0] == BoundaryKind::periodic, hi = box.ends[a][1] == BoundaryKind::periodic;
    if (lo != hi) throw Error("transform Poisson solver: axis " + std::to_string(a) + " is periodic at one end only");
    s.m[a] = box.m(a);
    const index_t least = lo ? 3 : 1;
    if (s.m[a] < least)
      throw Error("transform Poisson solver: axis " + std::to_string(a) + " has " + std::to_string(s.m[a]) +
                  " unknowns, needs at least " + std::to_string(least));
    if (box.ends[a][0] == BoundaryKind::neumann && box.ends[a][1] == BoundaryKind::neumann && s.m[a] < 2)
      throw Error("transform Poisson solver: a Neumann-Neumann axis needs at least 2 nodes");
  }
  s.line_axis = box.dim - 1;
  if (!box.line_nodes.empty()) {
    const int a = s.line_axis;
    if (box.periodic(a)) throw Error("transform Poisson solver: a stretched line axis cannot be periodic");
    if (index_t(box.line_nodes.size()) != box.n[a])
      throw Error("transform Poisson solver: " + std::to_string(box.line_nodes.size()) + " line-axis nodes for " +
                  std::to_string(box.n[a]) + " grid nodes");
    for (std::size_t i = 1; i < box.line_nodes.size(); ++i)
      if (!(box.line_nodes[i] > box.line_nodes[i - 1]))
        throw Error("transform Poisson solver: the line axis's nodes must increase strictly");
    s.line_weight = stretched_weights(box, a, s.m[a]);
  }
  {
    const LineRows rows = line_axis_rows(box);
    s.row_a.assign(rows.A.begin(), rows.A.end());
    s.row_b.assign(rows.B.begin(), rows.B.end());
    s.row_c.assign(rows.C.begin(), rows.C.end());
  }
  // Transforms along the other axes; one plan over all of them, every line of the line axis.
  const index_t stride[3] = {1, s.m[0], s.m[0] * s.m[1]};
  std::vector<fftw_iodim64> dims;
  std::vector<fftw_r2r_kind> fwd, bwd;
  double norm = 1;
  for (int a = 0; a < s.line_axis; ++a) {
    const AxisTransform t = axis_transform(s.m[a], box.h[a], box.ends[a][0], box.ends[a][1]);
    dims.push_back({ptrdiff_t(s.m[a]), ptrdiff_t(stride[a]), ptrdiff_t(stride[a])});
    fwd.push_back(t.forward);
    bwd.push_back(t.backward);
    norm *= t.norm;
    s.eig[a] = t.eig;
  }
  s.scale = T(1 / norm);
  const index_t plane = stride[s.line_axis];  // lines of the line axis: one per offset in its plane
  s.shift.assign(plane, T(0));
  for (index_t o = 0; o < plane; ++o) {
    double sum = 0;
    index_t rest = o;
    for (int a = 0; a < s.line_axis; ++a) {
      sum += s.eig[a][std::size_t(rest % s.m[a])];
      rest /= s.m[a];
    }
    s.shift[o] = T(sum);
  }
  if (dims.empty()) return;  // 1D: the line alone
  const fftw_iodim64 howmany{ptrdiff_t(s.m[s.line_axis]), ptrdiff_t(plane), ptrdiff_t(plane)};
  AlignedVector<T> scratch(s.size());
  {
    std::lock_guard<std::mutex> lock(fftw::planner_mutex());
    fftw::prepare_planner<T>();
    const unsigned flags = measure ? FFTW_MEASURE : FFTW_ESTIMATE;
    s.forward = fftw::Api<T>::make_guru(int(dims.size()), dims.data(), 1, &howmany, scratch.data(), fwd.data(), flags);
    s.backward = fftw::Api<T>::make_guru(int(dims.size()), dims.data(), 1, &howmany, scratch.data(), bwd.data(), flags);
  }
  if (!s.forward || !s.backward) throw Error("transform Poisson solver: FFTW could not make a plan");
  s.plan_alignment = fftw::Api<T>::alignment(scratch.data());
}

template <class T>
TransformPoisson<T>::~TransformPoisson() {
  if (!impl_) return;
  std::lock_guard<std::mutex> lock(fftw::planner_mutex());
  if (impl_->forward) fftw::Api<T>::destroy(impl_->forward);
  if (impl_->backward) fftw::Api<T>::destroy(impl_->backward);
}
template <class T>
TransformPoisson<T>::TransformPoisson(TransformPoisson&&) noexcept = default;
template <class T>
TransformPoisson<T>& TransformPoisson<T>::operator=(TransformPoisson&&) noexcept = default;

template <class T>
const TransformPoissonBox& TransformPoisson<T>::box() const {
  return impl_->box;
}

// One tridiagonal line per wavenumber along the line axis; the transforms' normalization is taken
// in as the right-hand side is loaded.
template <class T>
void TransformPoisson<T>::Impl::solve_lines(T* p) const {
  const int a = line_axis;
  const tridiag::LineSet L{m, {1, m[0], m[0] * m[1]}, a};
  const bool pin = box.singular();
  const WavenumberRows<T> rows{shift.data(), L.stride[a], m[a], row_a.data(), row_b.data(), row_c.data(), pin};
  const T sc = scale;
  auto load = [&](index_t off, index_t count, T* out) {
#pragma omp simd
    for (index_t i = 0; i < count; ++i) out[i] = p[off + i] * sc;
    if (pin && off == 0) out[0] = 0;  // the pinned unknown
  };
  auto store = [&](index_t off, index_t count, const T* in) { std::memcpy(p + off, in, sizeof(T) * count); };
  if (box.periodic(a)) tridiag::solve_cyclic_lines<T>(L, rows, load, store);
  else tridiag::solve_lines<T>(L, rows, load, store);
}

template <class T>
void TransformPoisson<T>::solve(T* b) const {
  const Impl& s = *impl_;
  const index_t n = s.size();
  T* p = b;
  if (s.forward && fftw::Api<T>::alignment(b) != s.plan_alignment) {  // new-array execution needs the plans' alignment
    s.buffer.resize(n);
    std::memcpy(s.buffer.data(), b, sizeof(T) * n);
    p = s.buffer.data();
  }
  if (s.forward) fftw::Api<T>::run(s.forward, p);
  s.solve_lines(p);
  if (s.backward) fftw::Api<T>::run(s.backward, p);
  if (p != b) std::memcpy(b, p, sizeof(T) * n);
  if (s.box.singular()) remove_mean(b);
}

template <class T>
double TransformPoisson<T>::weighted_mean(const T* v, bool absolute) const {
  const Impl& s = *impl_;
  const index_t mx = s.m[0], my = s.m[1], mz = s.m[2];
  double sum = 0, weights = 0;
#pragma omp parallel for collapse(2) reduction(+ : sum, weights) schedule(static)
  for (index_t k = 0; k < mz; ++k)
    for (index_t j = 0; j < my; ++j) {
      const double wjk = s.weight(1, j) * s.weight(2, k);
      const T* line = v + mx * (j + my * k);
      double line_sum = 0;
      for (index_t i = 0; i < mx; ++i) line_sum += s.weight(0, i) * (absolute ? std::abs(double(line[i])) : double(line[i]));
      sum += wjk * line_sum;
      double line_weights = 0;
      for (index_t i = 0; i < mx; ++i) line_weights += s.weight(0, i);
      weights += wjk * line_weights;
    }
  return weights > 0 ? sum / weights : 0;
}

template <class T>
void TransformPoisson<T>::remove_mean(T* v) const {
  const T mean = T(weighted_mean(v));
  const index_t n = impl_->size();
#pragma omp parallel for simd
  for (index_t i = 0; i < n; ++i) v[i] -= mean;
}

template <class T>
void TransformPoisson<T>::residual(const T* u, const T* b, T* r) const {
  const Impl& s = *impl_;
  const TransformPoissonBox& box = s.box;
  const index_t mx = s.m[0], my = s.m[1], mz = s.m[2];
  const index_t stride[3] = {1, mx, mx * my};
  double inv_h2[3] = {0, 0, 0};
  for (int a = 0; a < box.dim; ++a) inv_h2[a] = 1 / (box.h[a] * box.h[a]);
#pragma omp parallel for collapse(2) schedule(static)
  for (index_t k = 0; k < mz; ++k)
    for (index_t j = 0; j < my; ++j)
      for (index_t i = 0; i < mx; ++i) {
        const index_t ijk[3] = {i, j, k}, o = i + mx * (j + my * k);
        const double c = double(u[o]);
        double au = 0;
        for (int a = 0; a < box.dim; ++a) {
          if (a == s.line_axis && !box.line_nodes.empty()) {  // the stretched rows (not periodic)
            const std::size_t r = std::size_t(ijk[a]);
            const double um = ijk[a] > 0 ? double(u[o - stride[a]]) : 0.0;
            const double up = ijk[a] < s.m[a] - 1 ? double(u[o + stride[a]]) : 0.0;
            au += double(s.row_a[r]) * um + double(s.row_b[r]) * c + double(s.row_c[r]) * up;
            continue;
          }
          // The neighbours along a: mirrored at a Neumann end, wrapped on a periodic axis, 0 past a
          // Dirichlet end (its value is in b).
          index_t sm, sp;
          if (box.periodic(a)) wrapped_neighbours(ijk[a], s.m[a], stride[a], sm, sp);
          else mirrored_neighbours(ijk[a], s.m[a], stride[a], sm, sp);
          const bool dirichlet_lo = !box.periodic(a) && !box.neumann(a, 0) && ijk[a] == 0;
          const bool dirichlet_hi = !box.periodic(a) && !box.neumann(a, 1) && ijk[a] == s.m[a] - 1;
          const double um = dirichlet_lo ? 0.0 : double(u[o + sm]), up = dirichlet_hi ? 0.0 : double(u[o + sp]);
          au += inv_h2[a] * (2 * c - um - up);
        }
        r[o] = T(double(b[o]) - au);
      }
}

template class TransformPoisson<float>;
template class TransformPoisson<double>;

}  // namespace tridsim::cr
