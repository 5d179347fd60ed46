#pragma once
// The CUDA math libraries tridsim uses (namespace tridsim): cuBLAS, cuSOLVER, cuSPARSE, cuFFT and
// NVRTC are opened on the first call of one of their functions, not at start-up
// (core/cuda_libraries.cpp). CUDA builds only.
#include <string>

namespace tridsim {
// Each library's name and soname, and "(not found)" for one that cannot be opened (opens them).
std::string cuda_libraries_summary();
}  // namespace tridsim
