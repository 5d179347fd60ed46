#pragma once
// Symbolic analysis of the sparse direct solver (namespace tridsim::sparse): geometric nested
// dissection of a GridPattern's box and the assembly tree it gives.
//
// The box is cut recursively across its longest axis by a one-node-thick plane (a separator),
// until a box holds at most `leaf_nodes` nodes. Every box is a front of the assembly tree: its own
// unknowns are the separator's (or, at a leaf, the whole box's), and its update unknowns are the
// nodes next to the box (through the stencil) outside it, which lie on the ancestors' separators.
// So every front's size is known before any number is computed: the factor's size, the flops and
// the working memory of the numeric phase are exact.
//
// Positions number the unknowns in elimination order. The tree is cut into a layer of subtrees,
// dealt to the threads (each factors its subtrees alone, with single-threaded dense kernels), and
// the fronts above the layer (the "top", factored one at a time with threaded dense kernels).
// Subtrees come first in the position order, the top last: a front's unknowns are contiguous and
// every front comes after its children.
#include <array>
#include <cstdint>
#include <cstddef>
#include <vector>

#include "core/backend.hpp"
#include "solvers/sparse_direct/stencil_matrix.hpp"

namespace tridsim::sparse {

struct SolverOptions {
  Backend backend = Backend::cpu;  // cuda: factors and solves on the GPU (multifrontal_cuda.hpp)
  int threads = 0;            // 0: omp_get_max_threads()
  index_t leaf_nodes = 0;     // 0: chosen from the dimension and dofs
  double memory_limit = 0;    // bytes; 0: the memory the system reports available
};

// A read-only view of a piece of an Analysis's arrays (C++17: the CUDA sources include this).
template <class T>
struct ListView {
  const T* data = nullptr;
  std::size_t count = 0;
  const T* begin() const { return data; }
  const T* end() const { return data + count; }
  std::size_t size() const { return count; }
  const T& operator[](std::size_t i) const { return data[i]; }
};

struct Front {
  index_t first = 0, size = 0;    // own unknowns: positions [first, first + size)
  ListView<index_t> update;       // the update unknowns' positions, ascending (all > first + size)
  ListView<int> children;
  ListView<int> child_map;        // for each child in turn, where its update unknowns sit in this front
  int parent = -1;
  int height = 0;                // 0 at a leaf; 1 + the highest child's
  std::array<index_t, 3> lo{}, hi{};  // the front's box (its subtree's nodes), half-open
  index_t factor_offset = 0;     // its panel [L11; L21], (size + update) x size, column-major
  index_t handoff = -1;          // a subtree root's contribution block's offset in the hand-off area
  index_t rows() const { return size + index_t(update.size()); }
};

class Analysis {
 public:
  explicit Analysis(const GridPattern& pattern, const SolverOptions& options = {});
  Analysis(const Analysis&) = delete;  // the fronts view storage it owns
  Analysis& operator=(const Analysis&) = delete;

  const GridPattern& pattern() const { return pattern_; }
  index_t unknowns() const { return pattern_.unknowns(); }
  // Every front after its children: the thread layers' subtrees first, then the top.
  const std::vector<Front>& fronts() const { return fronts_; }
  const std::vector<index_t>& position_of() const { return position_; }  // unknown -> position
  const std::vector<index_t>& unknown_at() const { return unknown_; }    // position -> unknown
  int threads() const { return threads_; }
  // The fronts of thread t's subtrees: fronts()[begin .. end) (contiguous, in order).
  std::array<int, 2> thread_fronts(int t) const { return {thread_begin_[t], thread_begin_[t + 1]}; }
  int first_top_front() const { return thread_begin_.back(); }
  index_t first_top_position() const;

  index_t factor_entries() const { return factor_entries_; }  // of the stored panels
  double flops() const { return flops_; }                       // of one Cholesky factorization
  // Working memory of the numeric phase in entries: panels, fronts and the contribution stacks.
  index_t working_entries() const { return working_entries_; }
  // Per thread (and the top, last): the largest front (rows^2) and the contribution stack's peak.
  index_t front_entries(int t) const { return front_peak_[t]; }
  index_t stack_entries(int t) const { return stack_peak_[t]; }
  index_t handoff_entries() const { return handoff_entries_; }  // the subtree roots' contribution blocks
  index_t max_front_rows() const;
  double seconds() const { return seconds_; }

 private:
  GridPattern pattern_;
  int threads_ = 1;
  std::vector<Front> fronts_;
  std::vector<index_t> updates_;  // the fronts' update lists, end to end
  std::vector<int> children_, child_maps_;
  std::vector<index_t> position_, unknown_;
  std::vector<int> thread_begin_;  // threads_ + 1 entries
  std::vector<index_t> front_peak_, stack_peak_;
  index_t factor_entries_ = 0, working_entries_ = 0, handoff_entries_ = 0;
  double flops_ = 0, seconds_ = 0;
};

// Flops of one front's dense partial Cholesky: potrf + trsm + syrk.
inline double front_flops(double s, double u) { return s * s * s / 3 + u * s * s + u * u * s; }

}  // namespace tridsim::sparse
