#include "physics/solver_choice.hpp"

#include <optional>
#include <string>
#include <vector>

#include "tridsim_build_info.hpp"
#if TRIDSIM_HAVE_CUDA
#include "solvers/tridiagonal/cuda/batched_cuda.hpp"
#endif

namespace tridsim {

namespace {

constexpr const char* kAxes[] = {"x", "y", "z"};

tridiag::Algorithm cpu_algorithm(const DeckNode& node, const std::string& key, const std::string& name) {
  if (same_name(name, "pcr")) return tridiag::Algorithm::pcr;
  if (same_name(name, "cr")) return tridiag::Algorithm::cr;
  if (same_name(name, "cusparse"))
    node.fail(key, "cusparse is a GPU solver; with the cpu backend use auto, thomas, pcr or cr");
  return tridiag::Algorithm::thomas;  // auto and every GPU variant of Thomas
}

tridiag::GpuAlgorithm gpu_algorithm(const DeckNode& node, const std::string& key, const std::string& name, int axis,
                                    const Grid& grid, std::size_t elem_bytes, bool uniform) {
  if (same_name(name, "cr")) node.fail(key, "cr is a CPU solver; with the cuda backend use auto, thomas, thomas-naive, thomas-pcr or pcr");
  const tridiag::GpuAlgorithm alg = *tridiag::parse_gpu_algorithm(name);
#if TRIDSIM_HAVE_CUDA
  const auto lines = tridiag::LineSet::dense(grid, axis);
  if (const std::string why = tridiag::gpu_unsupported_reason(alg, lines, false); !why.empty())
    node.fail(key, why + " (the grid has " + std::to_string(grid.n[axis]) + " points along " + kAxes[axis] +
                       "); use auto, thomas or thomas-naive");
  return tridiag::resolve_gpu_algorithm(alg, lines, uniform, elem_bytes, false);
#else
  (void)axis, (void)grid, (void)elem_bytes, (void)uniform;
  return alg;
#endif
}

}  // namespace

SolverChoice read_solver_choice(const DeckNode& s, const Grid& grid, Backend backend,
                                std::size_t elem_bytes, bool uniform, const KeyTable& keys) {
  SolverChoice choice;
  for_each_axis_choice(s, "solver", grid.dim, keys, [&](const DeckNode& node, const std::string& key,
                                                           const std::string& name, int a) {
    if (!same_name(name, "cr") && !tridiag::parse_gpu_algorithm(name)) {
      std::vector<std::string> names = names_of(tridiag::kGpuAlgorithmNames);
      names.emplace_back("cr");
      node.fail(key, "unknown line solver: " + unknown_name_message(name, names) +
                         " (cr runs on the cpu backend only, thomas-shuffle and cusparse on cuda only)");
    }
    if (backend != Backend::cuda) choice.cpu[a] = cpu_algorithm(node, key, name);
    if (backend == Backend::cuda) choice.gpu[a] = gpu_algorithm(node, key, name, a, grid, elem_bytes, uniform);
  });
  return choice;
}

}  // namespace tridsim
