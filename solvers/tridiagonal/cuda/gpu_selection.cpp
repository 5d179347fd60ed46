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
#include <string>
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
  GpuAlgorithm ranked[6];  // fastest first; automatic pads
};

constexpr GpuAlgorithm thomas = GpuAlgorithm::thomas, thomas_pcr = GpuAlgorithm::thomas_pcr,
                       pcr = GpuAlgorithm::pcr, cusparse = GpuAlgorithm::cusparse,
                       thomas_naive = GpuAlgorithm::thomas_naive, thomas_shuffle = GpuAlgorithm::thomas_shuffle,
                       automatic = GpuAlgorithm::automatic;

// clang-format off
const std::vector<Measured> kMeasured = {
#include "solvers/tridiagonal/cuda/gpu_selection_table.inc"
};
// clang-format on

}  // namespace

std::string gpu_unsupported_reason(GpuAlgorithm alg, const LineSet& L, bool in_place) {
  const index_t n = L.length();
  auto limit = [&](const char* name, index_t max) {
    return n > max ? std::string(name) + " solves lines of at most " + std::to_string(max) + " points" : std::string();
  };
  switch (alg) {
    case GpuAlgorithm::thomas_pcr: return limit("thomas-pcr", detail::kThomasPcrMax);
    case GpuAlgorithm::pcr: return limit("pcr", detail::kPcrMax);
    case GpuAlgorithm::thomas_shuffle:
      if (!in_place) return "thomas-shuffle solves arrays in place only; use thomas or thomas-pcr";
      if (L.axis != 0) return "thomas-shuffle solves lines along x only";
      return limit("thomas-shuffle", detail::kShuffleMax);
    case GpuAlgorithm::cusparse:
      if (!in_place) return "cusparse solves arrays in place only; use thomas or thomas-pcr";
      return CusparseTridiagonal::supports(L) ? "" : "cusparse needs lines of >= 3 points in unpadded y/z layouts";
    default: return "";
  }
}

bool gpu_algorithm_supports(GpuAlgorithm alg, const LineSet& L) { return gpu_unsupported_reason(alg, L, true).empty(); }

GpuAlgorithm resolve_gpu_algorithm(GpuAlgorithm alg, const LineSet& L, bool uniform, std::size_t elem_bytes,
                                   bool in_place) {
  if (alg != GpuAlgorithm::automatic) return alg;
  // Past the measured lengths, and in place of thomas-naive past kThomasPcrMax, thomas: its
  // segmented path (segmented_lines.cuh) runs lines of any length.
  if (L.length() > detail::kPcrMax) return GpuAlgorithm::thomas;
  const bool along_x = L.axis == 0;
  const double ln = std::log2(double(std::max<index_t>(1, L.length())));
  const double lb = std::log2(double(std::max<index_t>(1, L.count())));
  double best_score = std::numeric_limits<double>::infinity();
  GpuAlgorithm pick = GpuAlgorithm::thomas;
  for (const auto& m : kMeasured) {
    if (m.along_x != along_x || m.elem != elem_bytes || m.uniform != uniform) continue;
    // Line length matters far more than batch size: weigh its distance 8x.
    const double score = 8 * std::abs(std::log2(double(m.n)) - ln) + std::abs(std::log2(double(m.batch)) - lb);
    if (score >= best_score) continue;
    for (GpuAlgorithm a : m.ranked)  // the fastest of this case that can run these lines
      if (a != GpuAlgorithm::automatic && gpu_unsupported_reason(a, L, in_place).empty()) {
        best_score = score;
        pick = a == GpuAlgorithm::thomas_naive && L.length() > detail::kThomasPcrMax ? GpuAlgorithm::thomas : a;
        break;
      }
  }
  return pick;
}

}  // namespace tridsim::tridiag
