#pragma once
// Halo exchange of a device array over a local box (namespace tridsim::cuda), by the transport
// choose_gpu_transport picked: through NCCL, the planes that cross packed on the device (z planes
// sent and received in place) and every neighbour's pair moved in one group, ordered with the
// default stream's work; Domain::exchange_halos on the device array itself where MPI is CUDA-aware;
// else on a pinned host mirror of the box with only the planes that cross copied: before, each
// split axis's owned planes next to a neighbour (device to host); after, its halo planes (host to
// device). Include from .cu files only.
#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

#include "core/cuda_support.cuh"
#include "core/domain.hpp"
#include "tridsim_build_info.hpp"
#if TRIDSIM_HAVE_NCCL
#include "core/nccl_channel.hpp"
#endif

namespace tridsim::cuda {

template <class T>
class DeviceHalos {
 public:
  DeviceHalos(const Domain& domain, int components) : domain_(domain), components_(components) {
    if (!domain.distributed()) return;
    transport_ = gpu_transport_kind();
    if (transport_ == GpuTransport::staged)
      check(cudaMallocHost(&mirror_, sizeof(T) * std::size_t(domain.local().size()) * std::size_t(components)),
            "cudaMallocHost", __FILE__, __LINE__);
    if (transport_ == GpuTransport::nccl) plan_packed();
  }
  ~DeviceHalos() {
    if (mirror_) cudaFreeHost(mirror_);
  }
  DeviceHalos(const DeviceHalos&) = delete;
  DeviceHalos& operator=(const DeviceHalos&) = delete;

  // Fills the halos of `device` (the local box, `components` values per node) from the neighbours.
  void exchange(T* device) {
    if (!domain_.distributed()) return;
    if (transport_ == GpuTransport::nccl) return exchange_packed(device);
    if (transport_ == GpuTransport::cuda_aware_mpi) {
      check(cudaDeviceSynchronize(), "cudaDeviceSynchronize", __FILE__, __LINE__);
      domain_.exchange_halos(device, components_);
      return;
    }
    for_each_neighbour([&](int a, int side) { copy_plane(device, a, send_at(a, side), cudaMemcpyDeviceToHost); });
    domain_.exchange_halos(mirror_, components_);
    for_each_neighbour([&](int a, int side) { copy_plane(device, a, recv_at(a, side), cudaMemcpyHostToDevice); });
  }

 private:
  // The plane at position p along `axis` of the local box: `height` runs of `width` bytes, `pitch`
  // bytes apart, from byte `offset`.
  struct Plane {
    std::size_t width, height, pitch, offset;
    std::size_t bytes() const { return width * height; }
  };
  Plane plane(int axis, index_t p) const {
    const Grid g = domain_.local();
    const std::size_t e = sizeof(T) * std::size_t(components_), nx = std::size_t(g.n[0]), ny = std::size_t(g.n[1]),
                      nz = std::size_t(g.n[2]);
    if (axis == 0) return {e, ny * nz, nx * e, std::size_t(p) * e};
    if (axis == 1) return {nx * e, nz, nx * ny * e, std::size_t(p) * nx * e};
    return {nx * ny * e, 1, nx * ny * e, std::size_t(p) * nx * ny * e};
  }
  index_t send_at(int a, int side) const { return side ? domain_.local().n[a] - 2 : 1; }
  index_t recv_at(int a, int side) const { return side ? domain_.local().n[a] - 1 : 0; }
  template <class F>
  void for_each_neighbour(const F& f) const {
    for (int a = 0; a < 3; ++a)
      for (int side = 0; side < 2; ++side)
        if (domain_.layout().neighbour(a, side) >= 0) f(a, side);
  }

  void copy_plane(T* device, int axis, index_t p, cudaMemcpyKind kind) {
    const Plane q = plane(axis, p);
    char* dev = reinterpret_cast<char*>(device) + q.offset;
    char* host = reinterpret_cast<char*>(mirror_) + q.offset;
    const bool out = kind == cudaMemcpyDeviceToHost;
    check(cudaMemcpy2D(out ? host : dev, q.pitch, out ? dev : host, q.pitch, q.width, q.height, kind), "cudaMemcpy2D",
          __FILE__, __LINE__);
  }

  // NCCL: each plane that is not contiguous gets a part of `packed_` (send parts, then receive parts).
  void plan_packed() {
    std::size_t at = 0;
    for (int pass = 0; pass < 2; ++pass)
      for_each_neighbour([&](int a, int side) {
        const Plane q = plane(a, send_at(a, side));
        if (q.height == 1) return;
        (pass ? recv_part_ : send_part_)[2 * a + side] = at;
        at += q.bytes();
      });
    packed_.allocate(index_t(at));
  }
  void exchange_packed(T* device) {
#if TRIDSIM_HAVE_NCCL
    NcclChannel& channel = nccl_channel(domain_);
    char* box = reinterpret_cast<char*>(device);
    auto copy2d = [&](char* to, std::size_t to_pitch, const char* from, std::size_t from_pitch, const Plane& q) {
      check(cudaMemcpy2DAsync(to, to_pitch, from, from_pitch, q.width, q.height, cudaMemcpyDeviceToDevice,
                              channel.stream()),
            "cudaMemcpy2DAsync", __FILE__, __LINE__);
    };
    channel.after_default_stream();
    std::vector<NcclChannel::Transfer> transfers;
    std::size_t sent = 0;
    for_each_neighbour([&](int a, int side) {
      const Plane out = plane(a, send_at(a, side)), in = plane(a, recv_at(a, side));
      const bool packed = out.height > 1;
      char* send = packed ? packed_.p + send_part_[2 * a + side] : box + out.offset;
      char* recv = packed ? packed_.p + recv_part_[2 * a + side] : box + in.offset;
      if (packed) copy2d(send, out.width, box + out.offset, out.pitch, out);
      transfers.push_back({domain_.layout().neighbour(a, side), send, recv, out.bytes()});
      sent += out.bytes();
    });
    channel.exchange(transfers);
    for_each_neighbour([&](int a, int side) {
      const Plane in = plane(a, recv_at(a, side));
      if (in.height > 1) copy2d(box + in.offset, in.pitch, packed_.p + recv_part_[2 * a + side], in.width, in);
    });
    channel.before_default_stream();
    domain_.count_halo_bytes(sent);
#else
    (void)device;
#endif
  }

  const Domain& domain_;
  int components_;
  GpuTransport transport_ = GpuTransport::staged;
  T* mirror_ = nullptr;                   // staged
  DeviceArray<char> packed_;              // NCCL
  std::size_t send_part_[6] = {}, recv_part_[6] = {};
};

}  // namespace tridsim::cuda
