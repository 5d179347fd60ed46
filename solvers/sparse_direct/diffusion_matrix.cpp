#include "solvers/sparse_direct/diffusion_matrix.hpp"

#include "core/diffusion.hpp"

namespace tridsim::sparse {

namespace {

// The coupling (a positive number) between node (i, j, k) and its neighbour one step along `axis`
// in direction `side` (-1, +1), or 0 when there is none: scale * kappa_face / h^2 times the face's
// share of a full face (halved per Neumann face the two nodes both lie on).
double coupling(const DiffusionProblem& p, index_t i, index_t j, index_t k, int axis, int side) {
  const index_t c[3] = {i, j, k};
  const index_t q = c[axis] + side;
  if (q < 0 || q >= p.n[axis]) return 0;
  double share = 1;
  for (int b = 0; b < p.dim; ++b)
    if (b != axis && p.n[b] > 1 && (c[b] == 0 || c[b] == p.n[b] - 1)) share *= 0.5;
  double kf = 1;
  if (p.kappa) {
    const index_t o = i + p.n[0] * (j + p.n[1] * k);  // x-fastest
    const index_t stride[3] = {1, p.n[0], p.n[0] * p.n[1]};
    kf = face_mean<FaceMean::harmonic>(p.kappa[o], p.kappa[o + side * stride[axis]]);
  }
  return p.scale * share * kf / (p.h[axis] * p.h[axis]);
}


// f(i, j, k, node) at every node in parallel; node = i + nx (j + ny k), x-fastest.
template <class F>
void for_each_node(const DiffusionProblem& p, F&& f) {
#pragma omp parallel for collapse(2) schedule(static)
  for (index_t k = 0; k < p.n[2]; ++k)
    for (index_t j = 0; j < p.n[1]; ++j)
      for (index_t i = 0; i < p.n[0]; ++i) f(i, j, k, i + p.n[0] * (j + p.n[1] * k));
}

}  // namespace

GridPattern DiffusionProblem::pattern() const {
  GridPattern g;
  g.dim = dim;
  g.n = n;
  g.stencil = Stencil::star;
  return g;
}

bool DiffusionProblem::is_dirichlet(index_t i, index_t j, index_t k) const {
  const index_t c[3] = {i, j, k};
  for (int a = 0; a < dim; ++a)
    if ((c[a] == 0 && dirichlet[a][0]) || (c[a] == n[a] - 1 && dirichlet[a][1])) return true;
  return false;
}

double DiffusionProblem::cell_weight(index_t i, index_t j, index_t k) const {
  const index_t c[3] = {i, j, k};
  double w = 1;
  for (int a = 0; a < dim; ++a)
    if (n[a] > 1 && (c[a] == 0 || c[a] == n[a] - 1)) w *= 0.5;
  return w;
}

template <class T>
StencilMatrix<T> diffusion_matrix(const DiffusionProblem& p) {
  StencilMatrix<T> a(p.pattern());
  // The star offsets are ordered by linear offset: centre, then -z, -y, -x, +x, +y, +z (those of the dims).
  int slot[3][2];
  for (int o = 1; o < int(a.offsets.size()); ++o)
    for (int ax = 0; ax < 3; ++ax)
      if (a.offsets[o][ax] != 0) slot[ax][a.offsets[o][ax] > 0] = o;
  for_each_node(p, [&](index_t i, index_t j, index_t k, index_t node) {
    if (p.is_dirichlet(i, j, k)) {
      a.block(node, 0)[0] = T(1);
      return;
    }
    const index_t c[3] = {i, j, k};
    double diag = p.shift * p.cell_weight(i, j, k);
    for (int ax = 0; ax < p.dim; ++ax)
      for (int side : {-1, 1}) {
        const double w = coupling(p, i, j, k, ax, side);
        diag += w;
        index_t q[3] = {c[0], c[1], c[2]};
        q[ax] += side;
        if (w != 0 && !p.is_dirichlet(q[0], q[1], q[2])) a.block(node, slot[ax][side > 0])[0] = T(-w);
      }
    a.block(node, 0)[0] = T(diag);
  });
  return a;
}

template <class T>
void dirichlet_lift(const DiffusionProblem& p, const T* u, T* b) {
  for_each_node(p, [&](index_t i, index_t j, index_t k, index_t node) {
    if (p.is_dirichlet(i, j, k)) {
      b[node] = u[node];
      return;
    }
    const index_t c[3] = {i, j, k}, stride[3] = {1, p.n[0], p.n[0] * p.n[1]};
    double add = 0;
    for (int ax = 0; ax < p.dim; ++ax)
      for (int side : {-1, 1}) {
        index_t q[3] = {c[0], c[1], c[2]};
        q[ax] += side;
        if (q[ax] < 0 || q[ax] >= p.n[ax] || !p.is_dirichlet(q[0], q[1], q[2])) continue;
        add += coupling(p, i, j, k, ax, side) * double(u[node + side * stride[ax]]);
      }
    b[node] = T(double(b[node]) + add);
  });
}

template <class T>
void apply_diffusion(const DiffusionProblem& p, const T* u, T* y) {
  for_each_node(p, [&](index_t i, index_t j, index_t k, index_t node) {
    if (p.is_dirichlet(i, j, k)) {
      y[node] = T(0);
      return;
    }
    const index_t stride[3] = {1, p.n[0], p.n[0] * p.n[1]};
    const double u0 = double(u[node]);
    double acc = p.shift * p.cell_weight(i, j, k) * u0;
    for (int ax = 0; ax < p.dim; ++ax)
      for (int side : {-1, 1}) {
        const double w = coupling(p, i, j, k, ax, side);
        if (w != 0) acc += w * (u0 - double(u[node + side * stride[ax]]));
      }
    y[node] = T(acc);
  });
}

template StencilMatrix<float> diffusion_matrix<float>(const DiffusionProblem&);
template StencilMatrix<double> diffusion_matrix<double>(const DiffusionProblem&);
template void dirichlet_lift<float>(const DiffusionProblem&, const float*, float*);
template void dirichlet_lift<double>(const DiffusionProblem&, const double*, double*);
template void apply_diffusion<float>(const DiffusionProblem&, const float*, float*);
template void apply_diffusion<double>(const DiffusionProblem&, const double*, double*);

}  // namespace tridsim::sparse
