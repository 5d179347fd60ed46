#include "python/src/bindings.hpp"

namespace tridsim::python {

void bind_block_lines(pybind11::module_&) {}

}  // namespace tridsim::python
