// tridsim._core: the compiled half of the Python package (python/tridsim/ is the other half,
// which checks arguments, handles NumPy/CuPy arrays and calls these).
#include <pybind11/pybind11.h>

#include "python/src/bindings.hpp"

PYBIND11_MODULE(_core, m) {
  m.doc() = "tridsim's compiled solvers and driver (use the tridsim package, not this module)";
  tridsim::python::register_errors(m);
  tridsim::python::bind_lines(m);
  tridsim::python::bind_block_lines(m);
  tridsim::python::bind_runs(m);
}
