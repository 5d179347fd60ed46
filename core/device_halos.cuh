#pragma once
// Halo exchange of a device array over a local box (namespace tridsim::cuda): Domain::exchange_halos
// on the device array itself where MPI is CUDA-aware, else on a pinned host mirror of the box with
// only the planes that cross copied: before, each split axis's owned planes next to a neighbour
// (device to host); after, its halo planes (host to device). Include from .cu files only.
#include <cuda_runtime.h>

#include "core/cuda_support.cuh"
#include "core/domain.hpp"

namespace tridsim::cuda {

template <class T>
class DeviceHalos {
 public:
  DeviceHalos(const Domain& domain, int components) : domain_(domain), components_(components) {
    if (!domain.distributed() || mpi_cuda_aware()) return;
    check(cudaMallocHost(&mirror_, sizeof(T) * std::size_t(domain.local().size()) * std::size_t(components)),
          "cudaMallocHost", __FILE__, __LINE__);
  }
  ~DeviceHalos() {
    if (mirror_) cudaFreeHost(mirror_);
  }
  DeviceHalos(const DeviceHalos&) = delete;
  DeviceHalos& operator=(const DeviceHalos&) = delete;

  // Fills the halos of `device` (the local box, `components` values per node) from the neighbours.
  void exchange(T* device) {
    if (!domain_.distributed()) return;
    if (!mirror_) {
      check(cudaDeviceSynchronize(), "cudaDeviceSynchronize", __FILE__, __LINE__);
      domain_.exchange_halos(device, components_);
      return;
    }
    const Decomposition& d = domain_.layout();
    for (int a = 0; a < 3; ++a) {
      const AxisSplit& s = d.axes[std::size_t(a)];
      if (s.halo_lo) plane(device, a, 1, cudaMemcpyDeviceToHost);
      if (s.halo_hi) plane(device, a, s.local_n() - 2, cudaMemcpyDeviceToHost);
    }
    domain_.exchange_halos(mirror_, components_);
    for (int a = 0; a < 3; ++a) {
      const AxisSplit& s = d.axes[std::size_t(a)];
      if (s.halo_lo) plane(device, a, 0, cudaMemcpyHostToDevice);
      if (s.halo_hi) plane(device, a, s.local_n() - 1, cudaMemcpyHostToDevice);
    }
  }

 private:
  // The plane at position p along `axis` between the device array and the mirror (same layout):
  // `height` runs of `width` bytes, `pitch` bytes apart.
  void plane(T* device, int axis, index_t p, cudaMemcpyKind kind) {
    const Grid g = domain_.local();
    const std::size_t e = sizeof(T) * std::size_t(components_), nx = std::size_t(g.n[0]), ny = std::size_t(g.n[1]),
                      nz = std::size_t(g.n[2]);
    std::size_t width = e, height = ny * nz, pitch = nx * e, offset = std::size_t(p) * e;  // axis x
    if (axis == 1) width = nx * e, height = nz, pitch = nx * ny * e, offset = std::size_t(p) * nx * e;
    if (axis == 2) width = pitch = nx * ny * e, height = 1, offset = std::size_t(p) * nx * ny * e;
    char* dev = reinterpret_cast<char*>(device) + offset;
    char* host = reinterpret_cast<char*>(mirror_) + offset;
    if (kind == cudaMemcpyDeviceToHost) check(cudaMemcpy2D(host, pitch, dev, pitch, width, height, kind), "cudaMemcpy2D", __FILE__, __LINE__);
    else check(cudaMemcpy2D(dev, pitch, host, pitch, width, height, kind), "cudaMemcpy2D", __FILE__, __LINE__);
  }

  const Domain& domain_;
  int components_;
  T* mirror_ = nullptr;
};

}  // namespace tridsim::cuda
