#pragma once
// The parts of the tridsim._core module (python/src/module.cpp puts them together).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include "core/names.hpp"

namespace tridsim::python {

void register_errors(pybind11::module_& m);    // tridsim errors -> Python exceptions (bind_lines.cpp)
void bind_lines(pybind11::module_& m);         // batched tridiagonal line solves, CPU and CUDA
void bind_block_lines(pybind11::module_& m);   // batched block-tridiagonal line solves
void bind_runs(pybind11::module_& m);          // decks: run and check

// Coefficients as the Python layer hands them over: float64 NumPy arrays, read as one buffer
// (pybind11's list conversion would make a Python float of every value).
using Values = pybind11::array_t<double, pybind11::array::c_style | pybind11::array::forcecast>;
// x's n values, or its one value n times (a scalar, which Python never expands).
inline std::vector<double> to_vector(const Values& x, std::size_t n) {
  if (x.size() == 1) return std::vector<double>(n, *x.data());
  if (std::size_t(x.size()) != n) throw pybind11::value_error("expected 1 or " + std::to_string(n) + " values");
  return {x.data(), x.data() + n};
}

// The value named `name` in a name table (core/names.hpp), or a ValueError listing the valid names.
template <class Table>
name_value_t<Table> parse_or_raise(const Table& table, const std::string& name, const char* what) {
  if (const auto value = parse_name(table, name)) return *value;
  std::string valid;
  for (const auto& n : names_of(table)) valid += (valid.empty() ? "" : ", ") + n;
  throw pybind11::value_error(std::string(what) + " '" + name + "' is not known; valid: " + valid);
}

}  // namespace tridsim::python
