// The `automatic` choice of GPU line solver (see batched_cuda.hpp).
//
// automatic picks, for the axis class (x: contiguous lines; y/z: strided lines), precision and
// coefficient kind, the fastest algorithm of the nearest measured case (nearest line length, then
// nearest batch size, on a log scale). The cases are the H100 line-solver benchmark's; the table
// below is written by tools/gpu_selection_table.py from its JSON (bench/results/), not by hand.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "solvers/tridiagonal/cuda/batched_cuda.hpp"
#include "solvers/tridiagonal/cuda/warp_solvers.hpp"

namespace tridsim::tridiag {

namespace {

struct Measured {
  bool along_x;
  std::uint8_t elem;  // bytes per value
  bool uniform;
  index_t n, batch;
  GpuAlgorithm best;
};

constexpr GpuAlgorithm thomas = GpuAlgorithm::thomas, thomas_pcr = GpuAlgorithm::thomas_pcr,
                       pcr = GpuAlgorithm::pcr, cusparse = GpuAlgorithm::cusparse,
                       thomas_naive = GpuAlgorithm::thomas_naive, thomas_shuffle = GpuAlgorithm::thomas_shuffle;

// clang-format off
const std::vector<Measured> kMeasured = {
#include "solvers/tridiagonal/cuda/gpu_selection_table.inc"
};
// clang-format on

}  // namespace

bool gpu_algorithm_supports(GpuAlgorithm alg, const LineSet& L) {
  switch (alg) {
    case GpuAlgorithm::thomas_pcr: return L.length() <= detail::kThomasPcrMax;
    case GpuAlgorithm::pcr: return L.length() <= detail::kPcrMax;
    case GpuAlgorithm::thomas_shuffle: return L.axis == 0 && L.length() <= detail::kShuffleMax;
    case GpuAlgorithm::cusparse: return CusparseTridiagonal::supports(L);
    default: return true;
  }
}

GpuAlgorithm resolve_gpu_algorithm(GpuAlgorithm alg, const LineSet& L, bool uniform, std::size_t elem_bytes) {
  if (alg != GpuAlgorithm::automatic) return alg;
  const bool along_x = L.axis == 0;
  const double ln = std::log2(double(std::max<index_t>(1, L.length())));
  const double lb = std::log2(double(std::max<index_t>(1, L.count())));
  double best_score = std::numeric_limits<double>::infinity();
  GpuAlgorithm pick = GpuAlgorithm::thomas;
  for (const auto& m : kMeasured) {
    if (m.along_x != along_x || m.elem != elem_bytes || m.uniform != uniform) continue;
    // Line length matters far more than batch size: weigh its distance 8x.
    const double score = 8 * std::abs(std::log2(double(m.n)) - ln) + std::abs(std::log2(double(m.batch)) - lb);
    if (score < best_score && gpu_algorithm_supports(m.best, L)) {
      best_score = score;
      pick = m.best;
    }
  }
  return pick;
}

}  // namespace tridsim::tridiag
