#pragma once
// The glioma module's point formulas and schemes, written once for every backend (namespace
// tridsim::glioma) on the layer of solvers/exec/points.hpp. Instantiated with the host executor
// (glioma.cpp) and with the CUDA executor (glioma_cuda.cu); both run the same formulas in the same
// order, so they agree to rounding.
//   strang-adi: c* = L(dt/2) c; (I - dt/2 A_x)(I - dt/2 A_y)(I - dt/2 A_z) dc = dt A c*;
//               c = L(dt/2) (c* + dc), the right-hand side formed in the x-sweep's load and the
//               last half reaction applied in the last sweep's store.
//   explicit:   c += dt (A c + rho c (1 - c)), one pass.
// A_a c = (D_+ (c_+ - c) - D_- (c - c_-)) / h_a^2, missing neighbours mirrored at the box faces
// (no flux; the half cell of the vertex-centred grid), D at faces stored per axis (face_lines.hpp).
// The first half reaction is a pass of its own and the faces are stored, on every backend: the
// sweeps then do no division but their own. (Recomputing the faces from D and fusing the half
// reaction into the x-sweep's load, which saves memory traffic on a GPU, made the GPU step slower:
// its sweeps are bound by the arithmetic and registers of their lines, not by traffic.)
#include <utility>

#include "physics/glioma/face_lines.hpp"
#include "physics/glioma/reaction.hpp"
#include "physics/glioma/stepper.hpp"
#include "solvers/exec/points.hpp"

namespace tridsim::glioma {

// dt A c at node o; coef[a] = dt / h_a^2. Axis by axis from 0, on every backend.
template <class T, class Dim>
TRIDSIM_HOST_DEVICE inline T diffusion_at(const StoredFaces<T>& faces, const T* c, index_t o,
                                          const exec::Neighbours& nb, Dim dim, const T (&coef)[3]) {
  T out = T(0);
  const T co = c[o];
  for (int a = 0; a < 3; ++a) {  // (to 3, not dim: see neighbours_at)
    if (a >= int(dim)) break;
    const index_t sm = nb.minus[a], sp = nb.plus[a];
    out += coef[a] * diffusion_difference(faces(a, o, sm), faces(a, o, sp), c[o + sm], co, c[o + sp]);
  }
  return out;
}

template <class T>
struct StrangRhs {  // dt A c*
  StoredFaces<T> faces;
  const T* c;
  T coef[3];
  template <class Dim>
  TRIDSIM_HOST_DEVICE T operator()(index_t o, const exec::Neighbours& nb, Dim dim) const {
    return diffusion_at(faces, c, o, nb, dim, coef);
  }
};

template <class T>
struct StrangFinish {  // c = L(c* + dc): the second half reaction
  T* c;
  Logistic<T> L;
  TRIDSIM_HOST_DEVICE void operator()(index_t o, T x) const { c[o] = L(c[o] + x); }
};

template <class T>
struct React {  // c = L(c): a half reaction as a pass of its own
  T* c;
  Logistic<T> L;
  template <class Dim>
  TRIDSIM_HOST_DEVICE void operator()(index_t o, const exec::Neighbours&, Dim) const {
    c[o] = L(c[o]);
  }
};

template <class T>
struct ExplicitPoint {  // out = c + (dt A c + dt rho c (1 - c))
  StoredFaces<T> faces;
  const T* c;
  T* out;
  T coef[3];
  T dt, rho;
  template <class Dim>
  TRIDSIM_HOST_DEVICE void operator()(index_t o, const exec::Neighbours& nb, Dim dim) const {
    const T co = c[o];
    out[o] = co + (diffusion_at(faces, c, o, nb, dim, coef) + logistic_increment(dt, rho, co));
  }
};

// c, its step's work array and the faces in the memory of executor E (exec::HostExec or CudaExec).
template <class T, class E>
class Scheme final : public Stepper<T> {
  using Buffer = typename E::template Buffer<T>;

 public:
  template <class Algorithms>
  Scheme(const Grid& grid, const Domain* domain, const Algorithms& alg, const T* D, double rho)
      : ex_(grid, domain, alg), rho_(rho) {
    const index_t N = grid.size();
    ex_.allocate(c_, N);
    ex_.allocate(work_, N);
    Buffer D_at_nodes;
    ex_.allocate(D_at_nodes, N);
    ex_.upload(D_at_nodes, D);
    FaceOf<T> make{E::data(D_at_nodes), {nullptr, nullptr, nullptr}};
    for (int a = 0; a < grid.dim; ++a) {
      ex_.allocate(F_[a], N);
      make.F[a] = E::data(F_[a]);
    }
    ex_.for_each_point(make);
    ex_.wait();  // (D_at_nodes is freed on return)
  }

  void set_density(const T* c) override { ex_.upload(c_, c); }
  void get_density(T* c) override { ex_.download(c_, c); }
  void wait() override { ex_.wait(); }
  FieldStats stats(const StatsSpec& s) override { return ex_.stats(s, E::data(c_)); }

  void step_adi(double dt) override {
    ex_.exchange_halos(E::data(c_));  // the operator reads the neighbours' nodes
    const StoredFaces<T> f = faces();
    const Logistic<T> L(rho_, 0.5 * dt);
    ex_.for_each_point(React<T>{E::data(c_), L});
    StrangRhs<T> rhs{f, E::data(c_), {}};
    set_coef(rhs.coef, dt);
    const Grid& g = ex_.grid();
    auto rows_of = [&](int a, index_t n) { return f.rows(a, n, T(0.5 * dt / (g.h(a) * g.h(a)))); };
    exec::adi_sweeps(ex_, rows_of, rhs, exec::Array<T>{E::data(work_)}, StrangFinish<T>{E::data(c_), L});
  }

  void step_explicit(double dt) override {
    ex_.exchange_halos(E::data(c_));
    ExplicitPoint<T> p{faces(), E::data(c_), E::data(work_), {}, T(dt), T(rho_)};
    set_coef(p.coef, dt);
    ex_.for_each_point(p);
    std::swap(c_, work_);
  }

 private:
  StoredFaces<T> faces() {
    const Grid& g = ex_.grid();
    const index_t st[3] = {g.strides()[0], g.strides()[1], g.strides()[2]};
    return {{E::data(F_[0]), E::data(F_[1]), E::data(F_[2])}, {st[0], st[1], st[2]}};
  }
  void set_coef(T (&coef)[3], double dt) const {
    const Grid& g = ex_.grid();
    for (int a = 0; a < 3; ++a) coef[a] = a < g.dim ? T(dt) / T(g.h(a) * g.h(a)) : T(0);
  }

  E ex_;
  double rho_;
  Buffer c_, work_;
  Buffer F_[3];  // the faces of each axis
};

}  // namespace tridsim::glioma
