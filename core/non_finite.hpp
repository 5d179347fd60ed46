#pragma once
// Finding and naming values that are not finite (NaN, +inf, -inf), for the messages of deck
// checks and of a run that diverges (namespace tridsim).
#include <optional>
#include <string>

#include "core/grid.hpp"

namespace tridsim {

// "NaN", "+inf" or "-inf".
const char* non_finite_name(double v);

// "at node (i, j, k) (x = .., y = .., z = ..)": grid node (i, j, k) of g, named in messages by its
// index in the whole grid (g.first + (i, j, k)) when g is a rank's box.
std::string node_where(const Grid& g, index_t i, index_t j, index_t k);

// The first node of a field over g whose value is not finite; nullopt when every value is.
struct NonFinite {
  const char* name;   // its value, named
  std::string where;  // "at node (i, j, k) (x = .., y = .., z = ..)"
};
template <class T>
std::optional<NonFinite> first_non_finite(const Grid& g, const T* values);

}  // namespace tridsim
