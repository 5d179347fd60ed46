// Decks run and checked in this process, through the CLI's driver (app/simulation.hpp): the same
// run_simulation, with its outputs captured by an in-memory writer (RunOptions::capture), its
// summary handed over (on_summary) and Python's progress callback and Ctrl-C looked at after
// each step (on_step). python/tridsim/_runs.py is the documented interface over these.
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>
#include <omp.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <csignal>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <variant>
#include <vector>
#if defined(__SSE__) || defined(__x86_64__)
#include <xmmintrin.h>
#endif

#include "app/simulation.hpp"
#include "core/backend.hpp"
#include "core/names.hpp"
#include "python/src/bindings.hpp"

namespace py = pybind11;

namespace tridsim::python {

namespace {

// One output time's fields, copied out of the run (without the GIL).
struct Output {
  long step;
  double time;
  std::vector<std::pair<std::string, std::variant<std::vector<float>, std::vector<double>>>> fields;
};

struct Captured {
  Grid grid;
  std::vector<Output> outputs;  // every output time, or the last one only
  std::string summary;
};

// The in-memory writer: a copy of each output's fields, as the deck's writers are given them.
class CaptureWriter final : public Writer {
 public:
  CaptureWriter(Captured& into, bool keep_all) : into_(into), keep_all_(keep_all) {}
  void write(int step, double time, std::span<const FieldRef> fields) override {
    if (!keep_all_) into_.outputs.clear();  // (before the copy: one output in memory at a time)
    Output out{step, time, {}};
    for (const FieldRef& f : fields) {
      const auto size = std::size_t(into_.grid.size()) * std::size_t(f.components);
      if (f.precision == Precision::float32) {
        const auto* p = static_cast<const float*>(f.data);
        out.fields.emplace_back(f.name, std::vector<float>(p, p + size));
      } else {
        const auto* p = static_cast<const double*>(f.data);
        out.fields.emplace_back(f.name, std::vector<double>(p, p + size));
      }
    }
    into_.outputs.push_back(std::move(out));
  }
  void close() override {}

 private:
  Captured& into_;
  bool keep_all_;
};

// A vector handed to NumPy without a copy, shaped as the HDF5 writer's datasets: (nz, ny, nx),
// C order, x fastest, and a last axis of 3 for a vector field (outputs/hdf5_xdmf_writer.cpp).
template <class T>
py::array to_numpy(std::vector<T>&& values, const Grid& grid) {
  std::vector<py::ssize_t> shape;
  for (int a = grid.dim - 1; a >= 0; --a) shape.push_back(py::ssize_t(grid.n[a]));
  if (const auto components = values.size() / std::size_t(grid.size()); components > 1)
    shape.push_back(py::ssize_t(components));
  auto* owned = new std::vector<T>(std::move(values));
  py::capsule free_it(owned, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>(shape, owned->data(), free_it);
}

py::dict grid_dict(const Grid& g) {
  py::list n, lo, hi, spacing, coords;
  for (int a = 0; a < g.dim; ++a) {
    n.append(g.n[a]);
    lo.append(g.lo[a]);
    hi.append(g.hi[a]);
    spacing.append(g.stretched(a) ? std::numeric_limits<double>::quiet_NaN() : g.h(a));  // (stretched: coords)
    py::array_t<double> x(g.n[a]);
    for (index_t i = 0; i < g.n[a]; ++i) x.mutable_at(i) = g.coord(a, i);
    coords.append(x);
  }
  py::dict d;
  d["dim"] = g.dim;
  d["n"] = py::tuple(n);
  d["lo"] = py::tuple(lo);
  d["hi"] = py::tuple(hi);
  d["spacing"] = py::tuple(spacing);
  d["coords"] = py::tuple(coords);
  return d;
}

// A choice named by the caller, checked against the driver's table so that a bad name is a
// ValueError naming the argument (the driver's own message names the CLI's option).
template <class Table>
void check_name(const char* argument, const std::optional<std::string>& word, const Table& table) {
  if (word && !parse_name(table, *word))
    throw py::value_error(std::string(argument) + "='" + *word + "': " + unknown_name_message(*word, names_of(table)));
}

// Runs are not reentrant: the driver sets process-wide state (OpenMP threads, the FPU's flush of
// subnormals, the log level), so runs from several Python threads take turns.
std::mutex g_run_mutex;

// What a run changes in the calling thread and the process, put back when it ends: the
// interpreter goes on as it was (NumPy must see subnormals again on this thread).
class CallerState {
 public:
  explicit CallerState(bool quiet) : threads_(omp_get_max_threads()), level_(spdlog::get_level()) {
#if defined(__SSE__) || defined(__x86_64__)
    csr_ = _mm_getcsr();
#endif
    spdlog::set_level(quiet ? spdlog::level::err : spdlog::level::warn);
  }
  ~CallerState() {
    omp_set_num_threads(threads_);
    spdlog::set_level(level_);
#if defined(__SSE__) || defined(__x86_64__)
    _mm_setcsr(csr_);
#endif
  }
  CallerState(const CallerState&) = delete;
  CallerState& operator=(const CallerState&) = delete;

 private:
  int threads_;
  spdlog::level::level_enum level_;
  unsigned csr_ = 0;
};

RunOptions make_options(const std::string& deck, const std::optional<std::string>& text, std::vector<std::string> sets,
                        const std::optional<std::string>& backend, const std::optional<std::string>& precision) {
  check_name("backend", backend, kBackendNames);
  check_name("precision", precision, kPrecisionNames);
  RunOptions opt;
  opt.deck = deck;
  opt.deck_text = text;
  opt.sets = std::move(sets);
  opt.backend = backend;
  opt.precision = precision;
  opt.no_progress = true;       // Python's progress callback instead of the terminal bar
  opt.catch_signals = false;    // Python's handlers stay; on_step looks at them
  return opt;
}

void check_deck(const std::string& deck, const std::optional<std::string>& text, std::vector<std::string> sets,
                const std::optional<std::string>& backend, const std::optional<std::string>& precision) {
  RunOptions opt = make_options(deck, text, std::move(sets), backend, precision);
  opt.mode = RunOptions::Mode::check;
  opt.quiet = true;  // (the CLI's "OK" line: here, returning is the answer)
  py::gil_scoped_release released;
  std::lock_guard lock(g_run_mutex);
  CallerState keep(false);
  run_simulation(opt);
}

py::dict run_deck(const std::string& deck, const std::optional<std::string>& text, std::vector<std::string> sets,
                  const std::optional<std::string>& backend, const std::optional<std::string>& precision,
                  const std::optional<std::filesystem::path>& output, std::optional<int> threads, bool keep_all,
                  const py::object& progress, bool quiet) {
  RunOptions opt = make_options(deck, text, std::move(sets), backend, precision);
  opt.output = output;
  opt.files = output.has_value();
  opt.threads = threads;
  opt.quiet = quiet;
  auto captured = std::make_shared<Captured>();
  opt.capture = [captured, keep_all](const WriterSetup& setup) {
    captured->grid = setup.grid;
    return std::make_unique<CaptureWriter>(*captured, keep_all);
  };
  opt.on_summary = [captured](const std::string& json) { captured->summary = json; };

  // After each step: Python's progress callback, and any signal Python has caught (Ctrl-C). Without
  // a callback the GIL is taken only every 50 ms, so that a run beside busy Python threads keeps
  // its pace. An exception either raises stops the run (outputs so far kept) and is raised after it.
  std::optional<py::error_already_set> pending;
  using clock = std::chrono::steady_clock;
  auto last_look = clock::now();
  const bool has_progress = !progress.is_none();
  opt.on_step = [&](long step, double t, double end) {
    if (pending) return true;
    if (!has_progress && clock::now() - last_look < std::chrono::milliseconds(50)) return false;
    last_look = clock::now();
    py::gil_scoped_acquire gil;
    try {
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
      if (has_progress) progress(step, t, end);
    } catch (py::error_already_set& e) {
      pending = std::move(e);
      return true;
    }
    return false;
  };

  int status = 0;
  {
    py::gil_scoped_release released;
    std::lock_guard lock(g_run_mutex);
    CallerState keep(quiet);
    status = run_simulation(opt);
  }
  if (pending) throw std::move(*pending);
  if (status != 0) {  // (a stop asked by on_step always leaves an exception pending)
    PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw py::error_already_set();
  }

  py::list outputs;
  for (Output& o : captured->outputs) {
    py::dict fields;
    for (auto& [name, values] : o.fields)
      fields[py::str(name)] = std::visit([&](auto& v) { return to_numpy(std::move(v), captured->grid); }, values);
    outputs.append(py::make_tuple(o.step, o.time, fields));
  }
  py::dict result;
  result["outputs"] = outputs;
  result["grid"] = grid_dict(captured->grid);
  result["summary"] = captured->summary;
  return result;
}

}  // namespace

void bind_runs(py::module_& m) {
  // tridsim's messages go to stderr as "[level] message", as the CLI's do (app/cli.cpp).
  if (!spdlog::get("tridsim")) {
    spdlog::set_default_logger(spdlog::stderr_color_mt("tridsim"));
    spdlog::set_pattern("[%l] %v");
    spdlog::set_level(spdlog::level::warn);
  }
  m.def("check_deck", &check_deck, py::arg("deck"), py::arg("text"), py::arg("sets"), py::arg("backend"),
        py::arg("precision"), "Validate a deck as `tridsim check` does (use tridsim.check).");
  m.def("run_deck", &run_deck, py::arg("deck"), py::arg("text"), py::arg("sets"), py::arg("backend"),
        py::arg("precision"), py::arg("output"), py::arg("threads"), py::arg("keep_all"), py::arg("progress"),
        py::arg("quiet"), "Run a deck in this process (use tridsim.run).");
}

}  // namespace tridsim::python
