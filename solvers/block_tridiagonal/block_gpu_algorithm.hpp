#pragma once
// Every block-tridiagonal line-solver algorithm as one row of kBlockLineSolvers (namespace
// tridsim::blocktri): its name, its block-size limit, the source that launches it. The GPU runs
// each (solvers/block_tridiagonal/cuda/block_solve.cuh describes the kernels); the cpu backend has
// one block solver (block Thomas, vectorized across lines) and takes the names without effect.
// Deck parsing, the lists of valid names in errors, `tridsim info`, the Python bindings and the GPU
// tests and benchmarks read it; tests/solvers/test_solver_tables.cpp checks that every row is
// documented, benchmarked and in the fuzz dictionary. Free of CUDA headers: deck parsing includes
// it in builds without CUDA, and asks block_gpu_unsupported_reason() when the deck is read.
#include <string>
#include <string_view>
#include <vector>

#include "core/names.hpp"
#include "solvers/block_tridiagonal/block_rows.hpp"

namespace tridsim::blocktri {

enum class BlockGpuAlgorithm { automatic, thread_per_system, work_sharing, block_pcr };

inline constexpr int kMaxThreadPerSystemM = 4;  // registers: one thread holds whole blocks

// A row of the table; name, value and description make it a name table (core/names.hpp).
struct BlockLineSolver {
  const char* name;
  BlockGpuAlgorithm value;
  const char* description;  // a few words, for `tridsim info`; "" for an alias
  int max_m;                // the largest block size it takes
  const char* launched_by;  // the source that launches it
};

inline constexpr BlockLineSolver kBlockLineSolvers[] = {
    {"auto", BlockGpuAlgorithm::automatic, "by block size, axis, line count and length", kMaxTemplateM,
     "solvers/block_tridiagonal/block_gpu_algorithm.hpp"},
    {"thread-per-system", BlockGpuAlgorithm::thread_per_system, "block Thomas, one thread per line",
     kMaxThreadPerSystemM, "solvers/block_tridiagonal/cuda/block_solve.cuh"},
    {"work-sharing", BlockGpuAlgorithm::work_sharing, "block Thomas, M threads per line sharing the blocks by shuffles",
     kMaxTemplateM, "solvers/block_tridiagonal/cuda/block_solve.cuh"},
    {"block-pcr", BlockGpuAlgorithm::block_pcr,
     "hybrid for few long lines: block Thomas on segments, then the reduced system (recursively)", kMaxTemplateM,
     "solvers/block_tridiagonal/cuda/block_solve.cuh"},
    {"hybrid", BlockGpuAlgorithm::block_pcr, "", kMaxTemplateM, "solvers/block_tridiagonal/cuda/block_solve.cuh"}};

inline const char* block_gpu_algorithm_name(BlockGpuAlgorithm alg) { return name_of(kBlockLineSolvers, alg); }

// The algorithms a caller may name, automatic left out, each once, in table order (the
// benchmarks' and tests' lists).
inline std::vector<BlockGpuAlgorithm> block_gpu_algorithms() {
  std::vector<BlockGpuAlgorithm> out;
  for (const auto& s : kBlockLineSolvers)
    if (s.value != BlockGpuAlgorithm::automatic && std::string_view(s.name) == name_of(kBlockLineSolvers, s.value))
      out.push_back(s.value);
  return out;
}

// Why `alg` cannot solve lines of block size m ("" when it can).
inline std::string block_gpu_unsupported_reason(BlockGpuAlgorithm alg, int m, const LineSet& L) {
  if (m < 1 || m > kMaxTemplateM)
    return "block size M = " + std::to_string(m) + " has no GPU kernel (the CUDA block solvers take M = 1.." +
           std::to_string(kMaxTemplateM) + ")";
  for (const auto& s : kBlockLineSolvers)
    if (s.value == alg && m > s.max_m)
      return std::string(s.name) + " takes block sizes M <= " + std::to_string(s.max_m) + " (got M = " +
             std::to_string(m) + "); use " + block_gpu_algorithm_name(BlockGpuAlgorithm::work_sharing);
  if (L.length() > 2147483647) return "lines longer than 2^31 - 1 block rows";
  return "";
}

// What `automatic` runs (never automatic): the hybrid where there are too few lines to fill the
// device with M threads each and the lines are not short (where bench_gpu_block_tridiagonal finds
// the hybrid faster: 64 lines of 65536, and the reaction-diffusion sweeps of 256 to 2048 lines of
// 256 to 2048 rows; docs/performance.md); otherwise work-sharing (16384 lines of 256).
inline BlockGpuAlgorithm resolve_block_gpu_algorithm(BlockGpuAlgorithm alg, int m, const LineSet& L) {
  if (alg != BlockGpuAlgorithm::automatic) return alg;
  const double threads = double(L.count()) * m;
  if (threads < 32768.0 && L.length() >= 256) return BlockGpuAlgorithm::block_pcr;
  return BlockGpuAlgorithm::work_sharing;
}

}  // namespace tridsim::blocktri
