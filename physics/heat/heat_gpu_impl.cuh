#pragma once
// CUDA side of the heat module's ADI steps (namespace tridsim; heat.cpp has the schemes): the
// right-hand sides and updates as load/store functors, handed to the shared GPU line solvers
// (solvers/tridiagonal/cuda/line_solve.cuh) with the rows of I - dt/2 A_axis: a factored
// uniform matrix for constant kappa, DiffusionRows (core/diffusion.hpp) for variable kappa. The
// explicit right-hand side is formed while loading the x-sweep and the update applied while
// storing the last sweep, as on the CPU.
// Included by heat_gpu_float.cu and heat_gpu_double.cu, one precision each: the sweeps' kernels are
// most of the module's compile time, and two files compile side by side.
#include "physics/heat/heat_gpu.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "core/cuda_support.cuh"
#include "core/device_expression.hpp"
#include "core/device_halos.cuh"
#include "core/diffusion.hpp"
#include "core/errors.hpp"
#include "physics/heat/face_data.hpp"
#include "solvers/tridiagonal/cuda/distributed_cuda.cuh"
#include "solvers/tridiagonal/cuda/line_solve.cuh"
#include "solvers/tridiagonal/line_set.hpp"

namespace tridsim {

namespace {

using cuda::DeviceArray;

// Everything a kernel needs to know about the grid, coefficients and boundary data.
template <class T>
struct View {
  int dim;
  index_t n[3], sy, sz;  // sizes; strides of y and z (x-fastest, dense)
  T ih2[3], ih[3];       // 1/h^2, 1/h
  T kappa0;
  const T* kappa;  // null: constant kappa0
  const T* f;      // null: no source
  int dir[3][2];   // Dirichlet face?
  const T* flux[3][2];
  const T* stage[3][2];
  T c[3];  // dt / h^2 of the current step

  __device__ T kap(index_t o) const { return kappa ? kappa[o] : kappa0; }
  __device__ index_t face_index(int axis, index_t i, index_t j, index_t k) const {
    return axis == 0 ? j + n[1] * k : axis == 1 ? i + n[0] * k : i + n[0] * j;
  }
  // Is the line through (j, k) on a Dirichlet face of y or z other than `skip`?
  __device__ bool on_dirichlet_line(index_t j, index_t k, int skip) const {
    if (dim > 1 && skip != 1 && ((j == 0 && dir[1][0]) || (j == n[1] - 1 && dir[1][1]))) return true;
    if (dim > 2 && skip != 2 && ((k == 0 && dir[2][0]) || (k == n[2] - 1 && dir[2][1]))) return true;
    return false;
  }
  __device__ index_t stride(int axis) const { return axis == 0 ? 1 : axis == 1 ? sy : sz; }
  // (A_axis src) at node o (position pos along axis); 0 on a Dirichlet face of that axis.
  __device__ T op(int axis, const T* src, index_t o, index_t pos) const {
    const index_t s = stride(axis), nn = n[axis];
    index_t sm = -s, sp = s;
    if (pos == 0) {
      if (dir[axis][0]) return T(0);
      sm = s;
    }
    if (pos == nn - 1) {
      if (dir[axis][1]) return T(0);
      sp = -s;
    }
    const T val = kappa ? diffusion_difference(face_mean<FaceMean::arithmetic>(kappa[o], kappa[o + sm]),
                                               face_mean<FaceMean::arithmetic>(kappa[o], kappa[o + sp]), src[o + sm],
                                               src[o], src[o + sp])
                        : diffusion_difference(kappa0, src[o + sm], src[o], src[o + sp]);
    return val * ih2[axis];
  }
  // 2 kappa g / h at a Neumann-face node of `axis`, g from data[side] (flux, or stage for the
  // y data of Peaceman-Rachford's second stage).
  __device__ T flux_term(int axis, index_t o, index_t i, index_t j, index_t k, const T* const* data) const {
    const index_t pos = axis == 0 ? i : axis == 1 ? j : k;
    const int side = pos == 0 ? 0 : pos == n[axis] - 1 ? 1 : -1;
    if (side < 0 || dir[axis][side]) return T(0);
    return neumann_flux_term(kap(o), data[side][face_index(axis, i, j, k)], ih[axis]);
  }
  // f + the flux terms of every axis; y_data: where the y fluxes come from.
  __device__ T all_fluxes(index_t o, index_t i, index_t j, index_t k, const T* const* y_data = nullptr) const {
    T sum = f ? f[o] : T(0);
    for (int a = 0; a < dim; ++a) sum += flux_term(a, o, i, j, k, a == 1 && y_data ? y_data : flux[a]);
    return sum;
  }
};

// ---- right-hand sides (loads) and updates (stores) ------------------------------------------

template <class T>
struct DouglasRhs {  // dt (A u + b) with Dirichlet stage values on x faces
  const T* u;
  T dt;
  __device__ T operator()(const View<T>& v, index_t o, index_t i, index_t j, index_t k) const {
    const bool interior = i > 0 && i < v.n[0] - 1 && (v.dim < 2 || (j > 0 && j < v.n[1] - 1)) &&
                          (v.dim < 3 || (k > 0 && k < v.n[2] - 1));
    if (interior) {  // the common case, without the boundary branches; the terms are summed
      // in the CPU's order so both backends round alike
      T out = v.f ? dt * v.f[o] : T(0);
      if (!v.kappa) {
        out += diffusion_difference(v.c[0] * v.kappa0, u[o - 1], u[o], u[o + 1]);
        if (v.dim > 1) out += diffusion_difference(v.c[1] * v.kappa0, u[o - v.sy], u[o], u[o + v.sy]);
        if (v.dim > 2) out += diffusion_difference(v.c[2] * v.kappa0, u[o - v.sz], u[o], u[o + v.sz]);
        return out;
      }
      const T k = v.kappa[o];
      for (int a = 0; a < v.dim; ++a) {
        const index_t s = v.stride(a);
        out += v.c[a] * diffusion_difference(face_mean<FaceMean::arithmetic>(k, v.kappa[o - s]),
                                             face_mean<FaceMean::arithmetic>(k, v.kappa[o + s]), u[o - s], u[o],
                                             u[o + s]);
      }
      return out;
    }
    if (v.on_dirichlet_line(j, k, 0)) return T(0);
    for (int side = 0; side < 2; ++side)
      if (v.dir[0][side] && i == (side ? v.n[0] - 1 : 0)) return v.stage[0][side][j + v.n[1] * k];
    T sum = v.all_fluxes(o, i, j, k);
    sum += v.op(0, u, o, i);
    if (v.dim > 1) sum += v.op(1, u, o, j);
    if (v.dim > 2) sum += v.op(2, u, o, k);
    return dt * sum;
  }
};
template <class T>
struct AddToU {  // last Douglas stage: u += du, except on Dirichlet faces of other axes
  T* u;
  int last;
  __device__ void operator()(const View<T>& v, index_t o, index_t i, index_t j, index_t k, T x) const {
    if (last > 0) {
      if (v.on_dirichlet_line(j, k, last)) return;
      if ((i == 0 && v.dir[0][0]) || (i == v.n[0] - 1 && v.dir[0][1])) return;
    }
    u[o] += x;
  }
};
template <class T>
struct PrStage1 {  // u + dt/2 (A_y u + b), Dirichlet stage values on x faces
  const T* u;
  T half;
  __device__ T operator()(const View<T>& v, index_t o, index_t i, index_t j, index_t k) const {
    if (v.on_dirichlet_line(j, k, 0)) return u[o];
    for (int side = 0; side < 2; ++side)
      if (v.dir[0][side] && i == (side ? v.n[0] - 1 : 0)) return v.stage[0][side][j];
    return u[o] + half * (v.op(1, u, o, j) + v.all_fluxes(o, i, j, k));
  }
};
template <class T>
struct PrStage2 {  // v + dt/2 (A_x v + b); y-face rows take u^{n+1}
  const T* w;
  T half;
  __device__ T operator()(const View<T>& v, index_t o, index_t i, index_t j, index_t k) const {
    for (int side = 0; side < 2; ++side)
      if (v.dir[1][side] && j == (side ? v.n[1] - 1 : 0)) return v.stage[1][side][i];
    return w[o] + half * (v.op(0, w, o, i) + v.all_fluxes(o, i, j, k, v.stage[1]));  // g_y(t + dt)
  }
};
template <class T>
struct StoreU {  // PR: u = x, except on Dirichlet x faces
  T* u;
  __device__ void operator()(const View<T>& v, index_t o, index_t i, index_t, index_t, T x) const {
    if ((i == 0 && v.dir[0][0]) || (i == v.n[0] - 1 && v.dir[0][1])) return;
    u[o] = x;
  }
};

// The line solvers' functor interface (offset o, line q, row r) for the functors above, which
// take the node's (i, j, k).
template <class T, class F>
struct LoadAt {
  View<T> v;
  int axis;
  F f;
  __device__ T operator()(index_t o, index_t q, int r) const {
    index_t i, j, k;
    tridiag::line_node(axis, v.n[0], v.n[1], q, r, i, j, k);
    return f(v, o, i, j, k);
  }
};
template <class T, class F>
struct StoreAt {
  View<T> v;
  int axis;
  F f;
  __device__ void operator()(index_t o, index_t q, int r, T x) const {
    index_t i, j, k;
    tridiag::line_node(axis, v.n[0], v.n[1], q, r, i, j, k);
    f(v, o, i, j, k, x);
  }
};

// The grid offset of face node e (face (axis, side), Face's layout), false past the face's end.
template <class T>
__device__ bool face_node(const View<T>& v, int axis, int side, index_t e, index_t& o) {
  const int p = axis == 0 ? 1 : 0, q = axis == 2 ? 1 : 2;
  const index_t np = v.n[p];
  if (e >= np * v.n[q]) return false;
  index_t ijk[3];
  ijk[axis] = side ? v.n[axis] - 1 : 0;
  ijk[p] = e % np;
  ijk[q] = e / np;
  o = ijk[0] + v.sy * ijk[1] + v.sz * ijk[2];
  return true;
}

template <class T>
__global__ void scatter_face(View<T> v, int axis, int side, const T* values, T* field) {
  const index_t e = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  index_t o;
  if (face_node(v, axis, side, e, o)) field[o] = values[e];
}

// Elementwise face arithmetic and the face operator for prepare_face_data (face_data.hpp).
enum class FaceArith { subtract, half_step };
template <class T>
__global__ void face_arith(FaceArith op, index_t n, const T* a, const T* b, T* out) {
  const index_t e = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e < n) out[e] = op == FaceArith::subtract ? a[e] - b[e] : a[e] + T(0.5) * b[e];
}
template <class T>
__global__ void face_apply(FaceOperator<T> op, index_t n, const T* in, T* out) {
  const index_t e = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e < n) out[e] = op(in, e);
}
unsigned face_blocks(index_t n) { return unsigned((n + 255) / 256); }

// Stage rows on a Neumann face of `axis` (Douglas, y and z): field += dt/2 * 2 kappa dg / h, with dg
// the face's flux change over the step (the CPU's set_face_rows).
template <class T>
__global__ void add_face_flux(View<T> v, int axis, int side, T dt, const T* dg, T* field) {
  const index_t e = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  index_t o;
  if (face_node(v, axis, side, e, o)) field[o] += T(0.5) * dt * neumann_flux_term(v.kap(o), dg[e], v.ih[axis]);
}

}  // namespace

// ---- host side -----------------------------------------------------------------------------

template <class T>
struct HeatGpu<T>::Impl {
  View<T> view{};
  Grid grid;
  DeviceArray<T> u, du, extra, kappa, f;
  DeviceArray<T> flux[6], stage[6];
  std::array<tridiag::UniformMatrixDevice<T>, 3> matrix;
  std::array<tridiag::GpuAlgorithm, 3> solver{};
  T w[3] = {};  // dt/2 / h^2 of the current step
  std::unique_ptr<DeviceExpression<T>> source;  // a time-dependent source, evaluated on the device
  // The boundary: per face, the expression of moving data, or the values of constant data.
  std::optional<Boundary> bc;
  bool peaceman_rachford = false;
  std::vector<std::unique_ptr<DeviceExpression<T>>> face_expression;
  DeviceArray<T> face_values[6], face_scratch[6][3];  // scratch: dflux, g0, g1
  struct FaceOps;
  // Several ranks (null: one).
  const Domain* domain = nullptr;
  std::array<std::array<BoundaryKind, 2>, 3> deck_kind{};
  std::unique_ptr<cuda::DeviceHalos<T>> halos;
  tridiag::gpu::SplitScratch<T> split_scratch;

  bool split(int axis) const { return domain && domain->layout().split(axis); }
  void exchange_halos(T* field) {
    if (halos) halos->exchange(field);
  }

  // One implicit stage along `axis`: rows of I - w A, right-hand side from `load`, result to `store`.
  template <class Load, class Store>
  void sweep(int axis, const Load& load, const Store& store) {
    const auto lines = tridiag::LineSet::dense(grid, axis);
    if (split(axis)) {  // the whole line's rows, across the ranks of the axis
      const AxisSplit& part = domain->layout().axes[std::size_t(axis)];
      const tridiag::Segment seg = tridiag::segment_of(part);
      const BoundaryKind lo = deck_kind[axis][0], hi = deck_kind[axis][1];
      LineComm& comm = domain->line_comm(axis);
      if (view.kappa)
        tridiag::gpu::solve_split_lines<T>(lines, seg,
                                           DiffusionRows<T, FaceMean::arithmetic>{view.kappa, grid.strides()[axis], part.global_n,
                                                                                  w[axis], lo == BoundaryKind::dirichlet,
                                                                                  hi == BoundaryKind::dirichlet},
                                           load, store, comm, split_scratch);
      else
        tridiag::gpu::solve_split_lines<T>(
            lines, seg, tridiag::ConstantDiffusionRows<T>{w[axis] * view.kappa0, part.global_n, lo, hi}, load, store, comm,
            split_scratch);
      return;
    }
    if (view.kappa) {
      const DiffusionRows<T, FaceMean::arithmetic> rows{view.kappa, grid.strides()[axis], grid.n[axis], w[axis],
                                                        view.dir[axis][0] != 0, view.dir[axis][1] != 0};
      tridiag::gpu::solve_lines<T>(lines, rows, load, store, solver[axis]);
    } else {
      tridiag::gpu::solve_lines<T>(lines, tridiag::gpu::factored_rows(matrix[axis]), load, store, solver[axis]);
    }
  }
  template <class F>
  LoadAt<T, F> load_at(int axis, F f) const { return {view, axis, f}; }
  template <class F>
  StoreAt<T, F> store_at(int axis, F f) const { return {view, axis, f}; }
  // Before the stage of `axis` (Douglas): Dirichlet rows take their stage values, Neumann rows
  // whose data move their flux increment.
  void set_faces(int axis, T dt, T* field) {
    for (int side = 0; side < 2; ++side) {
      const T* data = stage[2 * axis + side].p;
      const unsigned blocks = unsigned((stage[2 * axis + side].n + 255) / 256);
      if (view.dir[axis][side]) scatter_face<T><<<blocks, 256>>>(view, axis, side, data, field);
      else if (bc->face(axis, side).value.uses_time()) add_face_flux<T><<<blocks, 256>>>(view, axis, side, dt, data, field);
      TRIDSIM_CUDA_LAUNCH();
    }
  }
};

// face_data.hpp's executor on device arrays: kernels on the default stream, no synchronization.
template <class T>
struct HeatGpu<T>::Impl::FaceOps {
  Impl& I;
  index_t size(std::size_t fi) const { return I.face_values[fi].n; }
  T* flux(std::size_t fi) { return I.flux[fi].p; }
  T* data(std::size_t fi) { return I.stage[fi].p; }
  T* dflux(std::size_t fi) { return I.face_scratch[fi][0].p; }
  T* g0(std::size_t fi) { return I.face_scratch[fi][1].p; }
  T* g1(std::size_t fi) { return I.face_scratch[fi][2].p; }
  void evaluate(std::size_t fi, double t, T* out) {
    const Face& f = I.bc->faces()[fi];
    if (I.face_expression[fi]) I.face_expression[fi]->fill_face(I.grid, f.axis, f.side, t, out);
    else copy(fi, I.face_values[fi].p, out);
  }
  void subtract(std::size_t fi, const T* a, const T* b, T* out) { arith(fi, FaceArith::subtract, a, b, out); }
  void half_step(std::size_t fi, const T* g, const T* d, T* out) { arith(fi, FaceArith::half_step, g, d, out); }
  void copy(std::size_t fi, const T* in, T* out) {
    TRIDSIM_CUDA(cudaMemcpyAsync(out, in, sizeof(T) * std::size_t(size(fi)), cudaMemcpyDeviceToDevice));
  }
  void apply(std::size_t fi, const FaceOperator<T>& op, const T* in, T* out) {
    face_apply<T><<<face_blocks(size(fi)), 256>>>(op, size(fi), in, out);
    TRIDSIM_CUDA_LAUNCH();
  }
  void arith(std::size_t fi, FaceArith op, const T* a, const T* b, T* out) {
    face_arith<T><<<face_blocks(size(fi)), 256>>>(op, size(fi), a, b, out);
    TRIDSIM_CUDA_LAUNCH();
  }
};

template <class T>
HeatGpu<T>::HeatGpu(const Config& c) : impl_(std::make_unique<Impl>()) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) throw Error("backend cuda: no CUDA device is present");
  auto& I = *impl_;
  I.grid = c.grid;
  I.solver = c.solver;
  I.domain = c.domain && c.domain->distributed() ? c.domain : nullptr;
  I.deck_kind = c.deck_kind;
  if (I.domain) I.halos = std::make_unique<cuda::DeviceHalos<T>>(*I.domain, 1);
  View<T>& v = I.view;
  v.dim = c.grid.dim;
  for (int a = 0; a < 3; ++a) {
    v.n[a] = c.grid.n[a];
    const double h = c.grid.h(a);
    v.ih2[a] = h > 0 ? T(1.0 / (h * h)) : T(0);
    v.ih[a] = h > 0 ? T(1.0 / h) : T(0);
    for (int s = 0; s < 2; ++s) v.dir[a][s] = c.dirichlet[a][s] ? 1 : 0;
  }
  v.sy = c.grid.n[0];
  v.sz = c.grid.n[0] * c.grid.n[1];
  v.kappa0 = c.kappa0;
  const index_t N = c.grid.size();
  I.u.allocate(N);
  I.du.allocate(N);
  if (c.kappa) {
    I.kappa.upload(c.kappa, N);
    v.kappa = I.kappa.p;
  }
  if (c.has_source) I.f.allocate(N);
  v.f = c.has_source ? I.f.p : nullptr;
}

template <class T>
HeatGpu<T>::~HeatGpu() = default;

template <class T>
void HeatGpu<T>::upload_u(const T* u) {
  impl_->u.upload(u, impl_->grid.size());
}

template <class T>
void HeatGpu<T>::download_u(T* u) const {
  TRIDSIM_CUDA(cudaMemcpy(u, impl_->u.p, sizeof(T) * impl_->grid.size(), cudaMemcpyDeviceToHost));
}

template <class T>
void HeatGpu<T>::upload_source(const T* f) {
  impl_->f.upload(f, impl_->grid.size());
}

template <class T>
void HeatGpu<T>::use_source_expression(const Expression& source) {
  impl_->source = std::make_unique<DeviceExpression<T>>(source);
}

template <class T>
void HeatGpu<T>::evaluate_source(double t) {
  impl_->source->fill(impl_->grid, t, impl_->f.p);
}

template <class T>
void HeatGpu<T>::use_boundary(const Boundary& bc, bool peaceman_rachford, const std::vector<AlignedVector<T>>& flux,
                              const std::vector<AlignedVector<T>>& stage) {
  auto& I = *impl_;
  I.bc = bc;
  I.peaceman_rachford = peaceman_rachford;
  I.face_expression.clear();
  std::vector<T> values;
  for (std::size_t fi = 0; fi < bc.faces().size(); ++fi) {
    const Face& f = bc.faces()[fi];
    const index_t n = f.size();
    I.flux[fi].upload(flux[fi].data(), n);
    I.stage[fi].upload(stage[fi].data(), n);
    I.view.flux[f.axis][f.side] = I.flux[fi].p;
    I.view.stage[f.axis][f.side] = I.stage[fi].p;
    values.resize(std::size_t(n));
    f.evaluate(I.grid, 0.0, values.data());
    I.face_values[fi].upload(values.data(), n);  // (the size of the face; the values of constant data)
    for (auto& a : I.face_scratch[fi]) a.allocate(n);
    I.face_expression.push_back(f.value.uses_time() ? std::make_unique<DeviceExpression<T>>(f.value) : nullptr);
  }
}

template <class T>
void HeatGpu<T>::prepare_faces(double t, double dt) {
  auto& I = *impl_;
  typename Impl::FaceOps ops{I};
  prepare_face_data(*I.bc, I.peaceman_rachford, t, dt, I.view.kappa, I.view.kappa0, ops);
}

template <class T>
void HeatGpu<T>::impose_dirichlet(double t) {
  auto& I = *impl_;
  typename Impl::FaceOps ops{I};
  for (std::size_t fi = 0; fi < I.bc->faces().size(); ++fi) {
    const Face& f = I.bc->faces()[fi];
    if (f.kind != BoundaryKind::dirichlet) continue;
    const T* values = I.face_values[fi].p;
    if (I.face_expression[fi]) {
      ops.evaluate(fi, t, ops.g1(fi));
      values = ops.g1(fi);
    }
    scatter_face<T><<<face_blocks(f.size()), 256>>>(I.view, f.axis, f.side, values, I.u.p);
    TRIDSIM_CUDA_LAUNCH();
  }
}

template <class T>
void HeatGpu<T>::upload_matrix(int axis, const tridiag::UniformMatrix<T>& M) {
  impl_->matrix[axis] = tridiag::UniformMatrixDevice<T>(M);
}

template <class T>
void HeatGpu<T>::step_douglas(double dt) {
  auto& I = *impl_;
  for (int a = 0; a < 3; ++a) {
    I.w[a] = T(0.5 * dt) * I.view.ih2[a];
    const double h = I.grid.h(a);
    I.view.c[a] = h > 0 ? T(dt) / T(h * h) : T(0);
  }
  const int d = I.grid.dim, last = d - 1;
  I.exchange_halos(I.u.p);  // the explicit operator reads the neighbours' nodes
  const auto rhs = I.load_at(0, DouglasRhs<T>{I.u.p, T(dt)});
  const tridiag::gpu::ArrayLoad<T> load_du{I.du.p};
  if (d == 1) {
    I.sweep(0, rhs, I.store_at(0, AddToU<T>{I.u.p, 0}));
  } else {
    I.sweep(0, rhs, tridiag::gpu::ArrayStore<T>{I.du.p});
    for (int a = 1; a < d; ++a) {
      I.set_faces(a, T(dt), I.du.p);
      if (a < last) I.sweep(a, load_du, tridiag::gpu::ArrayStore<T>{I.du.p});
      else I.sweep(a, load_du, I.store_at(a, AddToU<T>{I.u.p, last}));
    }
  }
}

template <class T>
void HeatGpu<T>::step_peaceman_rachford(double dt) {
  auto& I = *impl_;
  for (int a = 0; a < 3; ++a) I.w[a] = T(0.5 * dt) * I.view.ih2[a];
  const T half = T(0.5 * dt);
  if (I.extra.n == 0) I.extra.allocate(I.grid.size());  // u*
  I.exchange_halos(I.u.p);
  I.sweep(0, I.load_at(0, PrStage1<T>{I.u.p, half}), tridiag::gpu::ArrayStore<T>{I.extra.p});
  if (I.split(0)) I.exchange_halos(I.extra.p);  // stage 2's operator along x reads u* beyond this box
  I.sweep(1, I.load_at(1, PrStage2<T>{I.extra.p, half}), I.store_at(1, StoreU<T>{I.u.p}));
}

template <class T>
void HeatGpu<T>::synchronize() {
  TRIDSIM_CUDA(cudaDeviceSynchronize());
}

template <class T>
FieldStats HeatGpu<T>::stats(const StatsSpec& s) const {
  return field_stats_cuda(s, impl_->u.p);
}

}  // namespace tridsim
