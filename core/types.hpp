#pragma once
// Basic types shared by every part of tridsim.
#include <cstddef>
#include <string_view>

namespace tridsim {

using index_t = std::ptrdiff_t;

enum class Precision { float32, float64 };

constexpr std::string_view to_string(Precision p) { return p == Precision::float32 ? "float" : "double"; }

template <class T> constexpr Precision precision_of();
template <> constexpr Precision precision_of<float>() { return Precision::float32; }
template <> constexpr Precision precision_of<double>() { return Precision::float64; }

}  // namespace tridsim
