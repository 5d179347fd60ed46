#include "core/device.hpp"

#include <fmt/format.h>

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

std::string cuda_device_summary() {
#if TRIDSIM_HAVE_CUDA
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) return "built, no device present";
  std::string out = fmt::format("{} device(s)", count);
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, d) != cudaSuccess) continue;
    out += fmt::format("\n    [{}] {} (sm_{}{}, {:.1f} GiB)", d, p.name, p.major, p.minor,
                       double(p.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0));
  }
  return out;
#else
  return "not built (configure with -DTRIDSIM_CUDA=ON)";
#endif
}

}  // namespace tridsim
