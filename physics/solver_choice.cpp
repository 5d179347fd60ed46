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

using tridiag::LineSolver, tridiag::OnCpu, tridiag::OnGpu;

// The names the cpu backend runs as themselves; those the cuda backend runs with load/store functors.
std::string cpu_names() {
  return list_names(tridiag::line_solver_names([](const LineSolver& s) { return s.on_cpu == OnCpu::runs; }));
}
std::string fused_names() {
  return list_names(tridiag::line_solver_names([](const LineSolver& s) { return s.on_gpu == OnGpu::fused; }));
}

tridiag::Algorithm cpu_algorithm(const DeckNode& node, const std::string& key, const LineSolver& s) {
  if (s.on_cpu == OnCpu::refuses)
    node.fail(key, std::string(s.name) + " is a GPU solver; with the cpu backend use " + cpu_names());
  return s.cpu;  // auto and every GPU variant of Thomas: thomas
}

tridiag::GpuAlgorithm gpu_algorithm(const DeckNode& node, const std::string& key, const LineSolver& s, int axis,
                                    const Grid& grid, std::size_t elem_bytes, bool uniform) {
  if (s.on_gpu == OnGpu::refuses)
    node.fail(key, std::string(s.name) + " is a CPU solver; with the cuda backend use " + fused_names());
  const tridiag::GpuAlgorithm alg = s.gpu;
#if TRIDSIM_HAVE_CUDA
  const auto lines = tridiag::LineSet::dense(grid, axis);
  if (const std::string why = tridiag::gpu_unsupported_reason(alg, lines, false); !why.empty()) {
    const auto any_length = [](const LineSolver& o) { return o.on_gpu == OnGpu::fused && o.max_length == 0; };
    node.fail(key, why + " (the grid has " + std::to_string(grid.n[axis]) + " points along " + kAxes[axis] +
                       "); use " + list_names(tridiag::line_solver_names(any_length)));
  }
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
    const LineSolver* solver = tridiag::find_line_solver(name);
    if (!solver) {
      const auto cpu_only = tridiag::line_solver_names([](const LineSolver& s) { return s.on_gpu == OnGpu::refuses; });
      const auto gpu_only = tridiag::line_solver_names([](const LineSolver& s) { return s.on_cpu == OnCpu::refuses; });
      node.fail(key, "unknown line solver: " + unknown_name_message(name, tridiag::all_line_solver_names()) + " (" +
                         list_names(cpu_only) + " runs on the cpu backend only, " + list_names(gpu_only) +
                         " on cuda only)");
    }
    if (backend != Backend::cuda) choice.cpu[a] = cpu_algorithm(node, key, *solver);
    if (backend == Backend::cuda) choice.gpu[a] = gpu_algorithm(node, key, *solver, a, grid, elem_bytes, uniform);
  });
  return choice;
}

}  // namespace tridsim
