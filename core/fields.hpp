#pragma once
// What a module hands the driver and the writers (namespace tridsim): its fields and its
// diagnostics. Core types, so that modules (core/module.hpp) need nothing of outputs/.
#include <string>

#include "core/types.hpp"

namespace tridsim {

// One field to write: grid.size() values, x-fastest, on the host (for a writer that writes from
// every rank, WriterInfo::Fields::collective: the rank's domain.local() nodes); or, for a vector field,
// grid.size() tuples of `components` values, the component fastest (component c of node p at
// data[c + components * p]). Writers take scalars (1) and vectors of 3 components (x, y, z; a 2D
// vector gives z = 0): ParaView's Glyph and Warp By Vector need 3.
struct FieldRef {
  std::string name;
  Precision precision = Precision::float64;
  const void* data = nullptr;  // const float* or const double*
  int components = 1;          // 1: scalar, 3: vector
};

// One named scalar per diagnostics row (the CSV columns; the last row also goes into summary.json).
struct Diagnostic {
  std::string name;
  double value = 0;
  // In the deck's units: "length" is the unit of grid.lo and grid.hi; empty where the module
  // cannot say (a field in whatever unit its initial data had).
  std::string unit = {};
};

}  // namespace tridsim
