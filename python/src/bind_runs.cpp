#include "python/src/bindings.hpp"

namespace tridsim::python {

void bind_runs(pybind11::module_&) {}

}  // namespace tridsim::python
