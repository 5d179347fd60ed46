#include "physics/block_solver_choice.hpp"

#include <string>

namespace tridsim {

std::array<blocktri::BlockGpuAlgorithm, 3> read_block_solver(const DeckNode& s, const Grid& grid, int m,
                                                             Backend backend, const KeyTable& keys) {
  std::array<blocktri::BlockGpuAlgorithm, 3> choice{};
  for_each_axis_choice(s, "solver", grid.dim, keys, [&](const DeckNode& node, const std::string& key,
                                                           const std::string& name, int a) {
    const auto alg = parse_name(blocktri::kBlockLineSolvers, name);
    if (!alg)
      node.fail(key, "unknown block line solver: " + unknown_name_message(name, names_of(blocktri::kBlockLineSolvers)));
    if (backend != Backend::cuda) return;
    const auto lines = tridiag::LineSet::dense(grid, a);
    if (const std::string why = blocktri::block_gpu_unsupported_reason(*alg, m, lines); !why.empty()) node.fail(key, why);
    choice[std::size_t(a)] = blocktri::resolve_block_gpu_algorithm(*alg, m, lines);
  });
  return choice;
}

}  // namespace tridsim
