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
  GpuAlgorithm ranked[count_gpu_line_algorithms()];  // fastest first; automatic pads
};

using enum GpuAlgorithm;  // the table's names

// clang-format off
const std::vector<Measured> kMeasured = {
#include "solvers/tridiagonal/cuda/gpu_selection_table.inc"
};
// clang-format on

}  // namespace

std::string gpu_unsupported_reason(GpuAlgorithm alg, const LineSet& L, bool in_place) {
  const LineSolver& s = *line_solver(alg);
  const std::string name = s.name;
  if (s.on_gpu == OnGpu::in_place_only && !in_place)
    return name + " solves arrays in place only; with load/store functors use " +
           list_names(line_solver_names([](const LineSolver& o) { return o.on_gpu == OnGpu::fused; }));
  if (s.only_axis >= 0 && L.axis != s.only_axis)
    return name + " solves lines along " + "xyz"[s.only_axis] + " only";
  if (s.max_length > 0 && L.length() > s.max_length)
    return name + " solves lines of at most " + std::to_string(s.max_length) + " points";
  if (s.layouts && !CusparseTridiagonal::supports(L)) return name + " needs " + s.layouts;
  return "";
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
