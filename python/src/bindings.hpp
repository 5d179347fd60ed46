#pragma once
// The parts of the tridsim._core module (python/src/module.cpp puts them together).
#include <pybind11/pybind11.h>

#include <string>

#include "core/names.hpp"

namespace tridsim::python {

void register_errors(pybind11::module_& m);    // tridsim errors -> Python exceptions (bind_lines.cpp)
void bind_lines(pybind11::module_& m);         // batched tridiagonal line solves, CPU and CUDA
void bind_block_lines(pybind11::module_& m);   // batched block-tridiagonal line solves
void bind_runs(pybind11::module_& m);          // decks: run and check

// The value named `name` in a name table (core/names.hpp), or a ValueError listing the valid names.
template <class Table>
name_value_t<Table> parse_or_raise(const Table& table, const std::string& name, const char* what) {
  if (const auto value = parse_name(table, name)) return *value;
  std::string valid;
  for (const auto& n : names_of(table)) valid += (valid.empty() ? "" : ", ") + n;
  throw pybind11::value_error(std::string(what) + " '" + name + "' is not known; valid: " + valid);
}

}  // namespace tridsim::python
