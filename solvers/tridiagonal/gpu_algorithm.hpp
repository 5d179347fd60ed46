#pragma once
// Names of the GPU line solvers (solvers/tridiagonal/cuda/batched_cuda.hpp describes them). Kept
// free of CUDA headers so that deck parsing compiles in builds without CUDA.
#include <optional>
#include <string>

namespace tridsim::tridiag {

enum class GpuAlgorithm { thomas, cusparse, thomas_naive, thomas_pcr, pcr, automatic, thomas_shuffle };

namespace detail {
struct GpuAlgorithmName {
  const char* name;
  GpuAlgorithm alg;
};
// thomas-transposed is thomas on the x axis, where it transposes locally.
inline constexpr GpuAlgorithmName kGpuAlgorithmNames[] = {
    {"thomas", GpuAlgorithm::thomas},         {"thomas-transposed", GpuAlgorithm::thomas},
    {"thomas-naive", GpuAlgorithm::thomas_naive}, {"thomas-pcr", GpuAlgorithm::thomas_pcr},
    {"thomas-shuffle", GpuAlgorithm::thomas_shuffle},
    {"pcr", GpuAlgorithm::pcr},               {"cusparse", GpuAlgorithm::cusparse},
    {"auto", GpuAlgorithm::automatic}};
}  // namespace detail

inline const char* gpu_algorithm_name(GpuAlgorithm alg) {
  for (const auto& e : detail::kGpuAlgorithmNames)
    if (e.alg == alg) return e.name;
  return "?";
}

inline std::optional<GpuAlgorithm> parse_gpu_algorithm(const std::string& name) {
  for (const auto& e : detail::kGpuAlgorithmNames)
    if (name == e.name) return e.alg;
  return std::nullopt;
}

// The valid deck names, for error messages.
inline const char* gpu_algorithm_names() {
  return "auto, thomas, thomas-transposed, thomas-shuffle, thomas-naive, thomas-pcr, pcr, cusparse";
}

}  // namespace tridsim::tridiag
