#pragma once
// The parts of the tridsim._core module (python/src/module.cpp puts them together).
#include <pybind11/pybind11.h>

namespace tridsim::python {

void register_errors(pybind11::module_& m);    // tridsim errors -> Python exceptions (bind_lines.cpp)
void bind_lines(pybind11::module_& m);         // batched tridiagonal line solves, CPU and CUDA
void bind_block_lines(pybind11::module_& m);   // batched block-tridiagonal line solves
void bind_runs(pybind11::module_& m);          // decks: run and check

}  // namespace tridsim::python
