#pragma once
// A deck expression at every node of a grid, evaluated on the backend that runs the module
// (namespace tridsim): muparser on the CPU; with cuda, compiled for the device
// (core/device_expression.hpp), evaluated there and copied back, so that large initial fields and
// coefficients do not wait for the host. Both agree to rounding.
#include <string>

#include "core/backend.hpp"
#include "core/deck.hpp"
#include "core/expression.hpp"
#include "core/grid.hpp"

namespace tridsim {

// `e` is the expression read from section.key; with cuda, one that does not translate is a
// DeckError at that key. out: g.size() host values, x-fastest.
template <class T>
void fill_on_backend(const DeckNode& section, const std::string& key, const Expression& e, Backend backend,
                     const Grid& g, double t, T* out);

}  // namespace tridsim
