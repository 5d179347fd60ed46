#pragma once
#include <string>

namespace tridsim {
// Number of CUDA devices usable by this build (0 without CUDA support or without a device).
int cuda_device_count();
// One line per CUDA device (name, memory), or why there is none.
std::string cuda_device_summary();
}  // namespace tridsim
