#pragma once
// Names and limits of the GPU block-tridiagonal solvers (solvers/block_tridiagonal/cuda/
// block_solve.cuh describes the kernels; namespace tridsim::blocktri). Free of CUDA headers: deck
// parsing includes it in builds without CUDA, and asks block_gpu_unsupported_reason() when the deck
// is read.
#include <string>

#include "core/names.hpp"
#include "solvers/block_tridiagonal/block_rows.hpp"

namespace tridsim::blocktri {

enum class BlockGpuAlgorithm { automatic, thread_per_system, work_sharing, block_pcr };

inline constexpr NameEntry<BlockGpuAlgorithm> kBlockGpuAlgorithmNames[] = {
    {"auto", BlockGpuAlgorithm::automatic, "by block size, axis, line count and length"},
    {"thread-per-system", BlockGpuAlgorithm::thread_per_system, "block Thomas, one thread per line (M <= 4)"},
    {"work-sharing", BlockGpuAlgorithm::work_sharing, "block Thomas, M threads per line sharing the blocks by shuffles"},
    {"block-pcr", BlockGpuAlgorithm::block_pcr,
     "hybrid for few long lines: block Thomas on segments, then the reduced system (recursively)"},
    {"hybrid", BlockGpuAlgorithm::block_pcr}};

inline const char* block_gpu_algorithm_name(BlockGpuAlgorithm alg) { return name_of(kBlockGpuAlgorithmNames, alg); }

inline constexpr int kMaxThreadPerSystemM = 4;  // registers: one thread holds whole blocks

// Why `alg` cannot solve lines of block size m ("" when it can).
inline std::string block_gpu_unsupported_reason(BlockGpuAlgorithm alg, int m, const LineSet& L) {
  if (m < 1 || m > kMaxTemplateM)
    return "block size M = " + std::to_string(m) + " has no GPU kernel (the CUDA block solvers take M = 1.." +
           std::to_string(kMaxTemplateM) + ")";
  if (alg == BlockGpuAlgorithm::thread_per_system && m > kMaxThreadPerSystemM)
    return "thread-per-system takes block sizes M <= " + std::to_string(kMaxThreadPerSystemM) + " (got M = " +
           std::to_string(m) + "); use work-sharing";
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
