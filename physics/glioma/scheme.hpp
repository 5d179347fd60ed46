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
// (no flux; the half cell of the vertex-centred grid), D at faces from face_lines.hpp.
// Two choices trade arithmetic for memory traffic, made by the instantiation: the faces (stored
// or recomputed, face_lines.hpp) and whether the first half reaction is a pass of its own or is
// evaluated on the fly at every node the x-sweep's load reads (then the last store writes
// c = L(L(c) + dc) and a step makes d sweeps and no other pass). The host, whose sweeps are
// instruction-bound, stores the faces and makes the pass; the device, bound by memory traffic,
// recomputes and fuses.
#include <type_traits>
#include <utility>

#include "physics/glioma/face_lines.hpp"
#include "physics/glioma/reaction.hpp"
#include "physics/glioma/stepper.hpp"
#include "solvers/exec/points.hpp"

namespace tridsim::glioma {

template <class T>
struct Identity {
  TRIDSIM_HOST_DEVICE T operator()(T c) const { return c; }
};

// dt A v(c) at node o, v the reaction's half step (Strang) or the identity (explicit); coef[a] =
// dt / h_a^2. Axis by axis from 0, on every backend.
template <class T, class Faces, class V, class Dim>
TRIDSIM_HOST_DEVICE inline T diffusion_at(const Faces& faces, const T* c, index_t o, const exec::Neighbours& nb, Dim dim,
                                          const T (&coef)[3], const V& v) {
  T out = T(0);
  const T co = v(c[o]);
  for (int a = 0; a < 3; ++a) {  // (to 3, not dim: see neighbours_at)
    if (a >= int(dim)) break;
    const index_t sm = nb.minus[a], sp = nb.plus[a];
    out += coef[a] * diffusion_difference(faces(a, o, sm), faces(a, o, sp), v(c[o + sm]), co, v(c[o + sp]));
  }
  return out;
}

template <class T, class Faces, class V>
struct StrangRhs {  // dt A v(c), v = L where the first half reaction is fused (else c holds c*)
  Faces faces;
  const T* c;
  T coef[3];
  V v;
  template <class Dim>
  TRIDSIM_HOST_DEVICE T operator()(index_t o, const exec::Neighbours& nb, Dim dim) const {
    return diffusion_at(faces, c, o, nb, dim, coef, v);
  }
};

template <class T, class V>
struct StrangFinish {  // c = L(v(c) + dc): the second half reaction
  T* c;
  V v;
  Logistic<T> L;
  TRIDSIM_HOST_DEVICE void operator()(index_t o, T x) const { c[o] = L(v(c[o]) + x); }
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

template <class T, class Faces>
struct ExplicitPoint {  // out = c + (dt A c + dt rho c (1 - c))
  Faces faces;
  const T* c;
  T* out;
  T coef[3];
  T dt, rho;
  template <class Dim>
  TRIDSIM_HOST_DEVICE void operator()(index_t o, const exec::Neighbours& nb, Dim dim) const {
    const T co = c[o];
    out[o] = co + (diffusion_at(faces, c, o, nb, dim, coef, Identity<T>{}) + logistic_increment(dt, rho, co));
  }
};

// c, its step's work array and the faces in the memory of executor E (exec::HostExec or CudaExec);
// kFuse: both half reactions fused into the sweeps.
template <class T, class E, class Faces, bool kFuse>
class Scheme final : public Stepper<T> {
  static constexpr bool kStored = std::is_same_v<Faces, StoredFaces<T>>;
  using Buffer = typename E::template Buffer<T>;

 public:
  template <class Algorithms>
  Scheme(const Grid& grid, const Domain* domain, const Algorithms& alg, const T* D, double rho)
      : ex_(grid, domain, alg), rho_(rho) {
    const index_t N = grid.size();
    ex_.allocate(c_, N);
    ex_.allocate(work_, N);
    ex_.allocate(D_, N);
    ex_.upload(D_, D);
    if constexpr (kStored) {
      FaceOf<T> make{E::data(D_), {nullptr, nullptr, nullptr}};
      for (int a = 0; a < grid.dim; ++a) {
        ex_.allocate(F_[a], N);
        make.F[a] = E::data(F_[a]);
      }
      ex_.for_each_point(make);
      ex_.wait();
      D_ = Buffer{};  // (the faces hold all the sweeps need)
    }
  }

  void set_density(const T* c) override { ex_.upload(c_, c); }
  void get_density(T* c) override { ex_.download(c_, c); }
  void wait() override { ex_.wait(); }
  FieldStats stats(const StatsSpec& s) override { return ex_.stats(s, E::data(c_)); }

  void step_adi(double dt) override {
    ex_.exchange_halos(E::data(c_));  // the operator reads the neighbours' nodes
    const Faces f = faces();
    const Logistic<T> L(rho_, 0.5 * dt);
    using V = std::conditional_t<kFuse, Logistic<T>, Identity<T>>;
    V v{};
    if constexpr (kFuse) v = L;
    else ex_.for_each_point(React<T>{E::data(c_), L});
    StrangRhs<T, Faces, V> rhs{f, E::data(c_), {}, v};
    set_coef(rhs.coef, dt);
    const Grid& g = ex_.grid();
    auto rows_of = [&](int a, index_t n) { return f.rows(a, n, T(0.5 * dt / (g.h(a) * g.h(a)))); };
    exec::adi_sweeps(ex_, rows_of, rhs, exec::Array<T>{E::data(work_)}, StrangFinish<T, V>{E::data(c_), v, L});
  }

  void step_explicit(double dt) override {
    ex_.exchange_halos(E::data(c_));
    ExplicitPoint<T, Faces> p{faces(), E::data(c_), E::data(work_), {}, T(dt), T(rho_)};
    set_coef(p.coef, dt);
    ex_.for_each_point(p);
    std::swap(c_, work_);
  }

 private:
  Faces faces() {
    const Grid& g = ex_.grid();
    const index_t st[3] = {g.strides()[0], g.strides()[1], g.strides()[2]};
    if constexpr (kStored) return {{E::data(F_[0]), E::data(F_[1]), E::data(F_[2])}, {st[0], st[1], st[2]}};
    else return {E::data(D_), {st[0], st[1], st[2]}};
  }
  void set_coef(T (&coef)[3], double dt) const {
    const Grid& g = ex_.grid();
    for (int a = 0; a < 3; ++a) coef[a] = a < g.dim ? T(dt) / T(g.h(a) * g.h(a)) : T(0);
  }

  E ex_;
  double rho_;
  Buffer c_, work_, D_;
  Buffer F_[3];  // (StoredFaces)
};

}  // namespace tridsim::glioma
