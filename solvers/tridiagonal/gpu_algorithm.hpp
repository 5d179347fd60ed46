#pragma once
// Names of the GPU line solvers (solvers/tridiagonal/cuda/batched_cuda.hpp describes them;
// namespace tridsim::tridiag). Kept free of CUDA headers so that deck parsing compiles in builds
// without CUDA.
#include <optional>
#include <string>

#include "core/names.hpp"

namespace tridsim::tridiag {

enum class GpuAlgorithm { thomas, cusparse, thomas_naive, thomas_pcr, pcr, automatic, thomas_shuffle };

// One name table (core/names.hpp); thomas-transposed is thomas on the x axis, where it
// transposes locally.
inline constexpr NameEntry<GpuAlgorithm> kGpuAlgorithmNames[] = {
    {"auto", GpuAlgorithm::automatic},
    {"thomas", GpuAlgorithm::thomas},
    {"thomas-transposed", GpuAlgorithm::thomas},
    {"thomas-shuffle", GpuAlgorithm::thomas_shuffle},
    {"thomas-naive", GpuAlgorithm::thomas_naive},
    {"thomas-pcr", GpuAlgorithm::thomas_pcr},
    {"pcr", GpuAlgorithm::pcr},
    {"cusparse", GpuAlgorithm::cusparse}};

inline const char* gpu_algorithm_name(GpuAlgorithm alg) { return name_of(kGpuAlgorithmNames, alg); }
inline std::optional<GpuAlgorithm> parse_gpu_algorithm(const std::string& name) {
  return parse_name(kGpuAlgorithmNames, name);
}

}  // namespace tridsim::tridiag
