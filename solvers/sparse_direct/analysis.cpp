#include "solvers/sparse_direct/analysis.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <numeric>

#include "core/errors.hpp"

namespace tridsim::sparse {

namespace {

using Box = std::array<std::array<index_t, 3>, 2>;  // lo, hi (half-open)

index_t volume(const Box& b) { return (b[1][0] - b[0][0]) * (b[1][1] - b[0][1]) * (b[1][2] - b[0][2]); }

// Calls f(node) for every node outside box b that the stencil couples to a node inside it.
template <class F>
void for_each_update_node(const GridPattern& p, const Box& b, F&& f) {
  index_t elo[3], ehi[3];
  for (int a = 0; a < 3; ++a) {
    elo[a] = std::max<index_t>(b[0][a] - 1, 0);
    ehi[a] = std::min<index_t>(b[1][a] + 1, p.n[a]);
  }
  const bool star = p.stencil == Stencil::star;
  for (index_t k = elo[2]; k < ehi[2]; ++k)
    for (index_t j = elo[1]; j < ehi[1]; ++j) {
      const int out = (k < b[0][2] || k >= b[1][2]) + (j < b[0][1] || j >= b[1][1]);
      const index_t row = p.n[0] * (j + p.n[1] * k);  // x-fastest
      if (out == 0) {
        if (b[0][0] > 0) f(row + b[0][0] - 1);
        if (b[1][0] < p.n[0]) f(row + b[1][0]);
      } else if (!star) {
        for (index_t i = elo[0]; i < ehi[0]; ++i) f(row + i);
      } else if (out == 1) {
        for (index_t i = b[0][0]; i < b[1][0]; ++i) f(row + i);
      }
    }
}

struct TreeNode {
  Box box, own;  // the subtree's box and the front's own nodes (a separator, or the leaf box)
  std::array<int, 2> child{-1, -1};  // none at a leaf
  index_t update_nodes = 0;
  double flops = 0, subtree_flops = 0;
};

// Nested dissection of box b: returns the index of its tree node (children first).
int dissect(const GridPattern& p, const Box& b, index_t leaf_nodes, std::vector<TreeNode>& tree) {
  int axis = 0;
  for (int a = 1; a < p.dim; ++a)
    if (b[1][a] - b[0][a] > b[1][axis] - b[0][axis]) axis = a;
  const index_t extent = b[1][axis] - b[0][axis];
  TreeNode t;
  t.box = t.own = b;
  if (volume(b) > leaf_nodes && extent >= 3) {
    const index_t mid = b[0][axis] + extent / 2;
    Box left = b, right = b;
    left[1][axis] = mid;
    right[0][axis] = mid + 1;
    t.own[0][axis] = mid;
    t.own[1][axis] = mid + 1;
    t.child = {dissect(p, left, leaf_nodes, tree), dissect(p, right, leaf_nodes, tree)};
  }
  tree.push_back(std::move(t));
  return int(tree.size()) - 1;
}

index_t default_leaf_nodes(const GridPattern& p) {
  const index_t by_dim[4] = {0, 32, 64, 64};
  return std::max<index_t>(4, by_dim[p.dim] / p.dofs);
}

}  // namespace

index_t Analysis::first_top_position() const {
  return first_top_front() < int(fronts_.size()) ? fronts_[first_top_front()].first : unknowns();
}

index_t Analysis::max_front_rows() const {
  index_t m = 0;
  for (const Front& f : fronts_) m = std::max(m, f.rows());
  return m;
}

Analysis::Analysis(const GridPattern& p, const SolverOptions& options) : pattern_(p) {
  const auto start = std::chrono::steady_clock::now();
  if (p.dim < 1 || p.dim > 3 || p.dofs < 1 || p.dofs > 8 || p.nodes() < 1)
    throw Error("sparse direct solver: a grid needs 1 to 3 axes of at least one node and 1 to 8 unknowns per node");
  threads_ = options.threads > 0 ? options.threads : omp_get_max_threads();
  const index_t leaf = options.leaf_nodes > 0 ? options.leaf_nodes : default_leaf_nodes(p);

  // 1. The assembly tree by nested dissection, and every front's flops.
  std::vector<TreeNode> tree;
  Box whole{};
  for (int a = 0; a < 3; ++a) whole[1][a] = p.n[a];
  const int root = dissect(p, whole, leaf, tree);
  for (TreeNode& t : tree) {  // children precede parents in `tree`
    for_each_update_node(p, t.box, [&](index_t) { ++t.update_nodes; });
    t.flops = front_flops(double(volume(t.own) * p.dofs), double(t.update_nodes * p.dofs));
    t.subtree_flops = t.flops;
    for (const int c : t.child)
      if (c >= 0) t.subtree_flops += tree[c].subtree_flops;
  }

  // 2. The layer of subtrees: split the heaviest until there are 4 per thread, then deal them
  //    out heaviest first to the least loaded thread.
  std::vector<int> layer{root};
  std::vector<char> is_top(tree.size(), 0);
  if (threads_ > 1) {
    for (;;) {
      auto heaviest = std::max_element(layer.begin(), layer.end(), [&](int a, int b) {
        return tree[a].subtree_flops < tree[b].subtree_flops;
      });
      if (int(layer.size()) >= 4 * threads_ || tree[*heaviest].child[0] < 0) break;
      const int h = *heaviest;
      is_top[h] = 1;
      layer.erase(heaviest);
      for (const int c : tree[h].child) layer.push_back(c);
    }
  }
  std::sort(layer.begin(), layer.end(), [&](int a, int b) { return tree[a].subtree_flops > tree[b].subtree_flops; });
  std::vector<std::vector<int>> dealt(threads_);
  std::vector<double> load(threads_, 0);
  for (const int s : layer) {
    const int t = int(std::min_element(load.begin(), load.end()) - load.begin());
    dealt[t].push_back(s);
    load[t] += tree[s].subtree_flops;
  }

  // 3. The elimination order: each thread's subtrees in postorder, then the top in postorder.
  std::vector<int> order, index_of(tree.size(), -1);
  std::function<void(int, bool)> post = [&](int t, bool top_only) {
    for (const int c : tree[t].child)
      if (c >= 0 && (!top_only || is_top[c])) post(c, top_only);
    index_of[t] = int(order.size());
    order.push_back(t);
  };
  thread_begin_.assign(1, 0);
  for (int t = 0; t < threads_; ++t) {
    for (const int s : dealt[t]) post(s, false);
    thread_begin_.push_back(int(order.size()));
  }
  if (is_top[root]) post(root, true);

  position_.assign(std::size_t(p.unknowns()), -1);
  unknown_.resize(std::size_t(p.unknowns()));
  fronts_.resize(order.size());
  std::vector<index_t> update_at(order.size() + 1, 0);
  std::vector<int> parent(order.size(), -1);
  for (std::size_t f = 0; f < order.size(); ++f) {
    update_at[f + 1] = update_at[f] + tree[order[f]].update_nodes * p.dofs;
    for (const int c : tree[order[f]].child)
      if (c >= 0) parent[index_of[c]] = int(f);
  }
  updates_.resize(std::size_t(update_at.back()));
  children_.clear();
  index_t next = 0;
  for (std::size_t f = 0; f < order.size(); ++f) {
    const TreeNode& t = tree[order[f]];
    Front& fr = fronts_[f];
    fr.lo = t.box[0];
    fr.hi = t.box[1];
    fr.first = next;
    fr.parent = parent[f];
    for (index_t k = t.own[0][2]; k < t.own[1][2]; ++k)
      for (index_t j = t.own[0][1]; j < t.own[1][1]; ++j)
        for (index_t i = t.own[0][0]; i < t.own[1][0]; ++i)
          for (int d = 0; d < p.dofs; ++d) {
            const index_t u = d + p.dofs * (i + p.n[0] * (j + p.n[1] * k));  // x-fastest
            position_[u] = next;
            unknown_[next++] = u;
          }
    fr.size = next - fr.first;
    for (const int c : t.child)
      if (c >= 0) {
        children_.push_back(index_of[c]);
        fr.height = std::max(fr.height, fronts_[index_of[c]].height + 1);
      }
  }
  for (std::size_t f = 0, c = 0; f < order.size(); ++f) {
    const int count = tree[order[f]].child[0] >= 0 ? 2 : 0;
    fronts_[f].children = {children_.data() + c, std::size_t(count)};
    c += std::size_t(count);
  }

  // 4. Update unknowns (positions, ascending) and where each child's land in its parent.
#pragma omp parallel for schedule(dynamic, 64) num_threads(threads_)
  for (std::size_t f = 0; f < order.size(); ++f) {
    index_t* out = updates_.data() + update_at[f];
    index_t* const begin = out;
    for_each_update_node(p, tree[order[f]].box, [&](index_t node) {
      for (int d = 0; d < p.dofs; ++d) *out++ = position_[node * p.dofs + d];
    });
    std::sort(begin, out);
    fronts_[f].update = {begin, std::size_t(out - begin)};
  }
  std::vector<index_t> map_at(order.size() + 1, 0);
  for (std::size_t f = 0; f < order.size(); ++f) {
    map_at[f + 1] = map_at[f];
    for (const int c : fronts_[f].children) map_at[f + 1] += index_t(fronts_[c].update.size());
  }
  child_maps_.resize(std::size_t(map_at.back()));
  bool consistent = true;
#pragma omp parallel for schedule(dynamic, 64) num_threads(threads_) reduction(&& : consistent)
  for (std::size_t f = 0; f < order.size(); ++f) {
    Front& fr = fronts_[f];
    int* out = child_maps_.data() + map_at[f];
    for (const int c : fr.children) {
      // Both lists ascend: a merge finds each child update unknown among this front's own
      // unknowns (contiguous) or its update unknowns.
      std::size_t k = 0;
      for (const index_t pos : fronts_[c].update) {
        if (pos < fr.first + fr.size) {
          *out++ = int(pos - fr.first);
          continue;
        }
        while (k < fr.update.size() && fr.update[k] < pos) ++k;
        consistent = consistent && k < fr.update.size() && fr.update[k] == pos;
        *out++ = int(fr.size + index_t(k));
      }
    }
    fr.child_map = {child_maps_.data() + map_at[f], std::size_t(map_at[f + 1] - map_at[f])};
  }
  if (!consistent)
    throw Error("sparse direct solver: inconsistent assembly tree (a child's update unknown is not in its parent)");

  // 5. Panels, flops and the numeric phase's working memory (per thread, then the top).
  for (Front& fr : fronts_) {
    fr.factor_offset = factor_entries_;
    factor_entries_ += fr.rows() * fr.size;
    flops_ += front_flops(double(fr.size), double(fr.update.size()));
  }
  front_peak_.assign(threads_ + 1, 0);
  stack_peak_.assign(threads_ + 1, 0);
  for (int t = 0; t <= threads_; ++t) {
    const int begin = t < threads_ ? thread_begin_[t] : first_top_front();
    const int end = t < threads_ ? thread_begin_[t + 1] : int(fronts_.size());
    index_t stack = 0;
    for (int f = begin; f < end; ++f) {
      Front& fr = fronts_[f];
      front_peak_[t] = std::max(front_peak_[t], fr.rows() * fr.rows());
      for (const int c : fr.children)
        if (fronts_[c].handoff < 0) stack -= index_t(fronts_[c].update.size() * fronts_[c].update.size());
      const index_t cb = index_t(fr.update.size() * fr.update.size());
      if (t < threads_ && (fr.parent < 0 || fr.parent >= first_top_front())) {
        fr.handoff = handoff_entries_;
        handoff_entries_ += cb;
      } else {
        stack += cb;
        stack_peak_[t] = std::max(stack_peak_[t], stack);
      }
    }
  }
  working_entries_ = factor_entries_ + handoff_entries_;
  for (int t = 0; t <= threads_; ++t) working_entries_ += front_peak_[t] + stack_peak_[t];
  seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace tridsim::sparse
