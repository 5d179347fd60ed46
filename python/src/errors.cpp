// tridsim's C++ errors as Python exceptions:
//   tridsim::DeckError   -> tridsim.DeckError (also a ValueError) with .file, .line, .key, .message
//   tridsim::SingularMatrix -> tridsim.SingularMatrixError (also a numpy.linalg.LinAlgError)
//   tridsim::Error       -> tridsim.TridsimError (a RuntimeError)
#include <pybind11/pybind11.h>

#include <string>

#include "core/errors.hpp"
#include "python/src/bindings.hpp"

namespace py = pybind11;

namespace tridsim::python {

namespace {

// "deck.yaml:12" -> ("deck.yaml", 12); a place without a line number -> (place, None).
py::tuple split_where(const std::string& where) {
  const auto colon = where.rfind(':');
  if (colon != std::string::npos && colon + 1 < where.size() &&
      where.find_first_not_of("0123456789", colon + 1) == std::string::npos)
    return py::make_tuple(where.substr(0, colon), std::stol(where.substr(colon + 1)));
  return py::make_tuple(where, py::none());
}

py::exception<Error>* tridsim_error = nullptr;

py::handle singular_matrix_error() {
  static py::handle type = [] {
    py::object linalg = py::module_::import("numpy.linalg").attr("LinAlgError");
    py::object bases = py::make_tuple(*tridsim_error, linalg);
    return py::handle(PyErr_NewExceptionWithDoc("tridsim._core.SingularMatrixError",
                                                "A zero pivot: the lines are singular or need pivoting.", bases.ptr(), nullptr));
  }();
  return type;
}

}  // namespace

void register_errors(py::module_& m) {
  static py::exception<Error> base(m, "TridsimError", PyExc_RuntimeError);
  tridsim_error = &base;
  static py::handle deck_error = [&] {
    py::object bases = py::make_tuple(base, py::handle(PyExc_ValueError));
    py::object type = py::reinterpret_steal<py::object>(
        PyErr_NewExceptionWithDoc("tridsim._core.DeckError", "A deck error: .file, .line, .key and .message say where and what.",
                                  bases.ptr(), nullptr));
    m.attr("DeckError") = type;
    return type.release();
  }();
  // Made on first use: its base numpy.linalg.LinAlgError would make `import tridsim` import NumPy.
  m.def("singular_matrix_error", &singular_matrix_error,
        "tridsim.SingularMatrixError (a TridsimError and a numpy.linalg.LinAlgError), made on first use");
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const DeckError& e) {
      py::object where = split_where(e.where());
      py::object exc = py::reinterpret_borrow<py::object>(deck_error)(e.what());
      exc.attr("file") = where[py::int_(0)];
      exc.attr("line") = where[py::int_(1)];
      exc.attr("key") = e.key();
      exc.attr("message") = std::string(e.what());
      PyErr_SetObject(deck_error.ptr(), exc.ptr());
    } catch (const SingularMatrix& e) {
      PyErr_SetString(singular_matrix_error().ptr(), e.what());
    } catch (const Error& e) {
      base(e.what());
    }
  });
}

}  // namespace tridsim::python
