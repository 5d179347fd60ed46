#pragma once
#include <string>

namespace tridsim {
// One line per CUDA device (name, memory), or why there is none.
std::string cuda_device_summary();
}  // namespace tridsim
