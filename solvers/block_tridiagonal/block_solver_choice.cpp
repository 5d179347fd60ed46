#include "solvers/block_tridiagonal/block_solver_choice.hpp"

#include <optional>
#include <string>

namespace tridsim {

std::array<blocktri::BlockGpuAlgorithm, 3> read_block_solver(const DeckNode& s, const Grid& grid, int m,
                                                             Backend backend) {
  static constexpr const char* axes[] = {"x", "y", "z"};
  std::array<blocktri::BlockGpuAlgorithm, 3> choice{};
  const bool per_axis = s.has("solver") && s.is_map("solver");
  const std::optional<DeckNode> map = per_axis ? std::optional<DeckNode>(s.child("solver")) : std::nullopt;
  const std::string all = per_axis ? "auto" : s.get_or<std::string>("solver", "auto");
  for (int a = 0; a < grid.dim; ++a) {
    const DeckNode& node = per_axis ? *map : s;
    const std::string key = per_axis ? axes[a] : "solver";
    const std::string name = per_axis ? map->get_or<std::string>(key, "auto") : all;
    const auto alg = parse_name(blocktri::kBlockGpuAlgorithmNames, name);
    if (!alg)
      node.fail(key, "unknown block line solver: " + unknown_name_message(name, names_of(blocktri::kBlockGpuAlgorithmNames)));
    if (backend == Backend::cuda) {
      const auto lines = tridiag::LineSet::dense(grid, a);
      if (const std::string why = blocktri::block_gpu_unsupported_reason(*alg, m, lines); !why.empty())
        node.fail(key, why);
      choice[std::size_t(a)] = blocktri::resolve_block_gpu_algorithm(*alg, m, lines);
    }
  }
  return choice;
}

}  // namespace tridsim
