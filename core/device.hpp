#pragma once
#include <string>

namespace tridsim {
// Number of CUDA devices usable by this build (0 without CUDA support or without a device).
int cuda_device_count();
// Per CUDA device: name, memory and its copy bandwidth measured now (a few ms); or why there is none.
std::string cuda_device_summary();
}  // namespace tridsim
