#pragma once
// Basic types shared by every part of tridsim (namespace tridsim).
#include <cstddef>
#include <string_view>

#include "core/names.hpp"

namespace tridsim {

using index_t = std::ptrdiff_t;

enum class Precision { float32, float64 };

// The deck key `precision` and the --precision option.
inline constexpr NameEntry<Precision> kPrecisionNames[] = {{"double", Precision::float64}, {"float", Precision::float32}};
constexpr std::string_view to_string(Precision p) { return name_of(kPrecisionNames, p); }

template <class T> constexpr Precision precision_of();
template <> constexpr Precision precision_of<float>() { return Precision::float32; }
template <> constexpr Precision precision_of<double>() { return Precision::float64; }

}  // namespace tridsim
