#pragma once
// Every tridiagonal line-solver algorithm, CPU and GPU, as one row of kLineSolvers (namespace
// tridsim::tridiag): its name, what each backend runs under it, its limits, whether it takes fused
// load/store functors or solves device arrays in place only, and the source that launches it.
// Deck and command-line parsing, the lists of valid names in errors, `tridsim info`, the Python
// bindings, the GPU tests and benchmarks and the generator of auto's table
// (tools/gpu_selection_table.py parses the rows below) read it; tests/solvers/test_solver_tables.cpp
// checks that every row is documented, benchmarked and in the fuzz dictionary.
// Free of CUDA headers (deck parsing includes it in builds without CUDA); C++17 (CUDA sources).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/names.hpp"
#include "solvers/tridiagonal/line_set.hpp"

namespace tridsim::tridiag {

// The GPU algorithms (solvers/tridiagonal/cuda/batched_cuda.hpp describes them).
enum class GpuAlgorithm { thomas, cusparse, thomas_naive, thomas_pcr, pcr, automatic, thomas_shuffle };

namespace detail {
inline constexpr index_t kThomasPcrMax = 512;  // registers of one warp (warp_solvers.hpp)
inline constexpr index_t kPcrMax = 1024;       // one thread per row, one block per line
inline constexpr index_t kShuffleMax = 1024;   // thomas_shuffle: d' and c' per thread in local memory
}  // namespace detail

// What the cpu backend does with a name: run its own algorithm, run thomas (a GPU variant of
// Thomas), or refuse it (a GPU library).
enum class OnCpu { runs, runs_thomas, refuses };
// What the cuda backend does with a name: run it with fused load/store functors as well as on
// device arrays (gpu::solve_lines, line_solve.cuh), on device arrays in place only
// (solve_lines_cuda, batched_cuda.cu), or refuse it (a CPU algorithm).
enum class OnGpu { fused, in_place_only, refuses };

struct LineSolver {
  const char* name;
  const char* alias_of;    // nullptr, or the name this one is another name of
  OnCpu on_cpu;
  Algorithm cpu;           // what the cpu backend runs under this name (unless it refuses)
  OnGpu on_gpu;
  GpuAlgorithm gpu;        // what the cuda backend runs under this name (unless it refuses)
  index_t max_length;      // GPU: the longest line it solves; 0: any
  int only_axis;           // GPU: the one axis it solves; -1: every axis
  const char* layouts;     // GPU: nullptr, or the layouts a library takes (checked by its launcher)
  const char* launched_by;  // the source that launches it on the GPU (a CPU-only row: on the CPU; auto: resolves it)
  const char* description;  // a few words, for `tridsim info`
};

// Ordered as the names appear in errors and listings.
inline constexpr LineSolver kLineSolvers[] = {
    {"auto", nullptr, OnCpu::runs, Algorithm::thomas, OnGpu::fused, GpuAlgorithm::automatic, 0, -1, nullptr,
     "solvers/tridiagonal/cuda/gpu_selection.cpp",
     "CPU: thomas; GPU: the fastest measured for the axis, line length, batch, precision and coefficients"},
    {"thomas", nullptr, OnCpu::runs, Algorithm::thomas, OnGpu::fused, GpuAlgorithm::thomas, 0, -1, nullptr,
     "solvers/tridiagonal/cuda/line_solve.cuh", "one thread per line, lines staged in shared memory"},
    {"thomas-transposed", "thomas", OnCpu::runs_thomas, Algorithm::thomas, OnGpu::fused, GpuAlgorithm::thomas, 0, -1,
     nullptr, "solvers/tridiagonal/cuda/line_solve.cuh", "thomas on x (named after its local transposition)"},
    {"thomas-shuffle", nullptr, OnCpu::runs_thomas, Algorithm::thomas, OnGpu::in_place_only,
     GpuAlgorithm::thomas_shuffle, detail::kShuffleMax, 0, nullptr, "solvers/tridiagonal/cuda/thomas_shuffle.cu",
     "thomas on x, transposed by register shuffles"},
    {"thomas-naive", nullptr, OnCpu::runs_thomas, Algorithm::thomas, OnGpu::fused, GpuAlgorithm::thomas_naive, 0, -1,
     nullptr, "solvers/tridiagonal/cuda/line_solve.cuh", "one thread per line, d' and c' in global memory"},
    {"thomas-pcr", nullptr, OnCpu::runs_thomas, Algorithm::thomas, OnGpu::fused, GpuAlgorithm::thomas_pcr,
     detail::kThomasPcrMax, -1, nullptr, "solvers/tridiagonal/cuda/thomas_pcr.cuh",
     "Thomas-PCR hybrid, one warp per line"},
    {"pcr", nullptr, OnCpu::runs, Algorithm::pcr, OnGpu::fused, GpuAlgorithm::pcr, detail::kPcrMax, -1, nullptr,
     "solvers/tridiagonal/cuda/line_solve.cuh", "parallel cyclic reduction"},
    {"cusparse", nullptr, OnCpu::refuses, Algorithm::thomas, OnGpu::in_place_only, GpuAlgorithm::cusparse, 0, -1,
     "lines of >= 3 points in unpadded y/z layouts", "solvers/tridiagonal/cuda/batched_cuda.cu",
     "the cuSPARSE baseline (gtsv2StridedBatch, gtsvInterleavedBatch)"},
    {"cr", nullptr, OnCpu::runs, Algorithm::cr, OnGpu::refuses, GpuAlgorithm::thomas, 0, -1, nullptr,
     "solvers/tridiagonal/batched.hpp", "cyclic reduction"},
};

// The row named `name` (ASCII case-insensitive), or nullptr.
inline const LineSolver* find_line_solver(std::string_view name) {
  for (const auto& s : kLineSolvers)
    if (same_name(name, s.name)) return &s;
  return nullptr;
}

// The row that prints `alg` (its first; never nullptr for a value of the enum).
inline const LineSolver* line_solver(GpuAlgorithm alg) {
  for (const auto& s : kLineSolvers)
    if (s.on_gpu != OnGpu::refuses && s.gpu == alg) return &s;
  return nullptr;
}

// The names (table order, aliases left out unless `aliases`) of the rows for which keep(row) holds.
template <class Keep>
std::vector<std::string> line_solver_names(Keep keep, bool aliases = false) {
  std::vector<std::string> out;
  for (const auto& s : kLineSolvers)
    if ((aliases || !s.alias_of) && keep(s)) out.emplace_back(s.name);
  return out;
}

// Every name, aliases included (what parsing accepts).
inline std::vector<std::string> all_line_solver_names() {
  return line_solver_names([](const LineSolver&) { return true; }, true);
}

// The GPU algorithms a caller may name, automatic left out, each once, in table order (the
// benchmarks' and tests' lists, the width of auto's ranking).
constexpr bool is_gpu_algorithm(const LineSolver& s) {
  return !s.alias_of && s.on_gpu != OnGpu::refuses && s.gpu != GpuAlgorithm::automatic;
}
inline std::vector<GpuAlgorithm> gpu_line_algorithms() {
  std::vector<GpuAlgorithm> out;
  for (const auto& s : kLineSolvers)
    if (is_gpu_algorithm(s)) out.push_back(s.gpu);
  return out;
}
constexpr int count_gpu_line_algorithms() {
  int n = 0;
  for (const auto& s : kLineSolvers) n += is_gpu_algorithm(s);
  return n;
}

// The CPU algorithms, each once under its own name, auto left out, in table order (the CPU tests' list).
inline std::vector<const LineSolver*> cpu_line_solvers() {
  std::vector<const LineSolver*> out;
  for (const auto& s : kLineSolvers) {
    if (s.on_cpu != OnCpu::runs || s.gpu == GpuAlgorithm::automatic) continue;  // auto: a choice
    bool seen = false;
    for (const auto* o : out) seen = seen || o->cpu == s.cpu;
    if (!seen) out.push_back(&s);
  }
  return out;
}

inline const char* gpu_algorithm_name(GpuAlgorithm alg) {
  const LineSolver* s = line_solver(alg);
  return s ? s->name : "?";
}
// The GPU algorithm named `name` (aliases included; CPU-only names give nullopt).
inline std::optional<GpuAlgorithm> parse_gpu_algorithm(std::string_view name) {
  const LineSolver* s = find_line_solver(name);
  if (!s || s->on_gpu == OnGpu::refuses) return std::nullopt;
  return s->gpu;
}

}  // namespace tridsim::tridiag
