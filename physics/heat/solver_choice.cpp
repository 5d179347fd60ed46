#include "physics/heat/solver_choice.hpp"

#include <optional>
#include <string>

#include "tridsim_build_info.hpp"
#if TRIDSIM_HAVE_CUDA
#include "solvers/tridiagonal/cuda/batched_cuda.hpp"
#endif

namespace tridsim {

namespace {

constexpr const char* kAxes[] = {"x", "y", "z"};

tridiag::Algorithm cpu_algorithm(const DeckNode& node, const std::string& key, const std::string& name) {
  if (name == "pcr") return tridiag::Algorithm::pcr;
  if (name == "cr") return tridiag::Algorithm::cr;
  if (name == "cusparse")
    node.fail(key, "cusparse is a GPU solver; with the cpu backend use auto, thomas, pcr or cr");
  return tridiag::Algorithm::thomas;  // auto and every GPU variant of Thomas
}

tridiag::GpuAlgorithm gpu_algorithm(const DeckNode& node, const std::string& key, const std::string& name, int axis,
                                    const Grid& grid, std::size_t elem_bytes, bool uniform) {
  using tridiag::GpuAlgorithm;
  const bool along_x = axis == 0;
  const GpuAlgorithm alg = tridiag::parse_gpu_algorithm(name).value_or(GpuAlgorithm::pcr);  // (cr: refused below)
  if (alg == GpuAlgorithm::automatic) {
#if TRIDSIM_HAVE_CUDA
    const GpuAlgorithm best =
        tridiag::resolve_gpu_algorithm(alg, tridiag::LineSet::dense(grid, axis), uniform, elem_bytes);
    const bool fused = best == GpuAlgorithm::thomas_naive ? !along_x
                       : best == GpuAlgorithm::thomas_pcr ? grid.n[axis] <= 512 && (along_x || uniform)
                                                           : false;
    return fused ? best : GpuAlgorithm::thomas;
#else
    (void)elem_bytes, (void)uniform;
    return GpuAlgorithm::thomas;
#endif
  }
  const bool ok = along_x ? alg == GpuAlgorithm::thomas || alg == GpuAlgorithm::thomas_pcr
                          : (alg == GpuAlgorithm::thomas && name != "thomas-transposed") ||
                                alg == GpuAlgorithm::thomas_naive || alg == GpuAlgorithm::thomas_pcr;
  if (!ok)
    node.fail(key, "the cuda backend's heat sweeps along " + std::string(kAxes[axis]) +
                       " are fused with the right-hand side and run " +
                       (along_x ? "auto, thomas, thomas-transposed or thomas-pcr"
                                : "auto, thomas, thomas-naive or thomas-pcr (constant diffusivity)") +
                       "; got '" + name + "'");
  if (alg == GpuAlgorithm::thomas_pcr && !along_x && !uniform)
    node.fail(key, "thomas-pcr along y and z needs a constant diffusivity (its lines share one matrix); use auto, "
                   "thomas or thomas-naive");
  if (alg == GpuAlgorithm::thomas_pcr && grid.n[axis] > 512)
    node.fail(key, "thomas-pcr solves lines of at most 512 points; the grid has " + std::to_string(grid.n[axis]) +
                       " along " + kAxes[axis] + " (use thomas or auto)");
  return alg;
}

}  // namespace

SolverChoice read_solver_choice(const DeckNode& s, const Grid& grid, Backend backend,
                                std::size_t elem_bytes, bool uniform) {
  SolverChoice choice;
  const bool per_axis = s.has("solver") && s.is_map("solver");
  const std::optional<DeckNode> map = per_axis ? std::optional<DeckNode>(s.child("solver")) : std::nullopt;
  const std::string all = per_axis ? "auto" : s.get_or<std::string>("solver", "auto");
  for (int a = 0; a < grid.dim; ++a) {
    const DeckNode& node = per_axis ? *map : s;
    const std::string key = per_axis ? kAxes[a] : "solver";
    const std::string name = per_axis ? map->get_or<std::string>(key, "auto") : all;
    if (name != "cr" && !tridiag::parse_gpu_algorithm(name))
      node.fail(key, "unknown line solver '" + name + "'; valid: " + tridiag::gpu_algorithm_names() +
                         " (GPU) and thomas, pcr, cr (CPU)");
    if (backend != Backend::cuda) choice.cpu[a] = cpu_algorithm(node, key, name);
    if (backend == Backend::cuda) choice.gpu[a] = gpu_algorithm(node, key, name, a, grid, elem_bytes, uniform);
  }
  return choice;
}

}  // namespace tridsim
