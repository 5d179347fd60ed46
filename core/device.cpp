#include "core/device.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>

#include "tridsim_build_info.hpp"
#if TRIDSIM_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace tridsim {

int cuda_device_count() {
#if TRIDSIM_HAVE_CUDA
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
#else
  return 0;
#endif
}

std::string cuda_device_name() {
#if TRIDSIM_HAVE_CUDA
  int d = 0;
  cudaDeviceProp p{};
  if (cudaGetDevice(&d) != cudaSuccess || cudaGetDeviceProperties(&p, d) != cudaSuccess) return "";
  return fmt::format("{} (sm_{}{})", p.name, p.major, p.minor);
#else
  return "";
#endif
}

std::string cuda_device_pci_id() {
#if TRIDSIM_HAVE_CUDA
  int d = 0;
  char id[32] = {};
  if (cudaGetDevice(&d) != cudaSuccess || cudaDeviceGetPCIBusId(id, int(sizeof id), d) != cudaSuccess) return "";
  return id;
#else
  return "";
#endif
}

void use_cuda_device_of(int host_rank) {
#if TRIDSIM_HAVE_CUDA
  if (const int count = cuda_device_count(); count > 0) cudaSetDevice(host_rank % count);
#else
  (void)host_rank;
#endif
}

std::size_t cuda_free_bytes() {
#if TRIDSIM_HAVE_CUDA
  std::size_t free_b = 0, total_b = 0;
  return cudaMemGetInfo(&free_b, &total_b) == cudaSuccess ? free_b : 0;
#else
  return 0;
#endif
}

#if TRIDSIM_HAVE_CUDA
namespace {

// Device-to-device copy bandwidth of device d in bytes/s (read + write counted), or a reason it
// could not be measured: 10 copies of a 256 MiB buffer (less when memory is short) after a
// warm-up, timed with CUDA events.
std::string measure_copy_bandwidth(int d) {
  if (cudaSetDevice(d) != cudaSuccess) return "not measured (cudaSetDevice failed)";
  std::size_t free_b = 0, total_b = 0;
  if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) return "not measured (cudaMemGetInfo failed)";
  const std::size_t bytes = std::min<std::size_t>(std::size_t(256) << 20, free_b / 4);
  void *src = nullptr, *dst = nullptr;
  cudaEvent_t t0 = nullptr, t1 = nullptr;
  float ms = 0;
  constexpr int reps = 10;
  bool ok = cudaMalloc(&src, bytes) == cudaSuccess && cudaMalloc(&dst, bytes) == cudaSuccess &&
            cudaMemset(src, 1, bytes) == cudaSuccess && cudaEventCreate(&t0) == cudaSuccess &&
            cudaEventCreate(&t1) == cudaSuccess &&
            cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice) == cudaSuccess &&
            cudaEventRecord(t0) == cudaSuccess;
  for (int r = 0; ok && r < reps; ++r) ok = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice) == cudaSuccess;
  ok = ok && cudaEventRecord(t1) == cudaSuccess && cudaEventSynchronize(t1) == cudaSuccess &&
       cudaEventElapsedTime(&ms, t0, t1) == cudaSuccess && ms > 0;
  if (t0) cudaEventDestroy(t0);
  if (t1) cudaEventDestroy(t1);
  cudaFree(src);
  cudaFree(dst);
  if (!ok) return "not measured (a CUDA call failed)";
  const double bw = 2.0 * double(bytes) * reps / (double(ms) * 1e-3);
  return fmt::format("copy bandwidth {:.0f} GB/s (device to device, {} MiB, read + write)", bw * 1e-9, bytes >> 20);
}

}  // namespace
#endif

std::string cuda_device_summary() {
#if TRIDSIM_HAVE_CUDA
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) return "built, no device present";
  std::string out = fmt::format("{} device(s)", count);
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, d) != cudaSuccess) continue;
    out += fmt::format("\n    [{}] {} (sm_{}{}, {} SMs, {:.1f} GiB, L2 {} MiB)\n        {}", d, p.name, p.major,
                       p.minor, p.multiProcessorCount, double(p.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0),
                       p.l2CacheSize >> 20, measure_copy_bandwidth(d));
  }
  return out;
#else
  return "not built (configure with -DTRIDSIM_CUDA=ON)";
#endif
}

}  // namespace tridsim
