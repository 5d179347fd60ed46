// Batched tridiagonal line solves for Python: CPU (solvers/tridiagonal/batched.hpp) and, in CUDA
// builds, GPU (lines_cuda.hpp). The Python layer has already checked the arrays and mapped them
// onto LineSets (line_arguments.hpp); these run the solvers with the GIL released.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "core/errors.hpp"
#include "python/src/bindings.hpp"
#include "python/src/line_arguments.hpp"
#include "solvers/tridiagonal/batched.hpp"
#include "solvers/tridiagonal/line_solvers.hpp"
#include "tridsim_build_info.hpp"
#if TRIDSIM_HAVE_CUDA
#include "python/src/lines_cuda.hpp"
#endif

namespace py = pybind11;

namespace tridsim::python {

namespace {

using tridiag::LineSet;

// One coefficient of a batch: a scalar, one value per row, or an array in d's layout.
template <class T>
struct Coefficient {
  CoefficientMode mode;
  const T* p;
  T value;
  void fill_line(index_t off, index_t n, T* out) const {  // rows 0..n-1 of the x-line at off
    if (mode == CoefficientMode::scalar) std::fill(out, out + n, value);
    else std::memcpy(out, mode == CoefficientMode::per_row ? p : p + off, sizeof(T) * n);
  }
  void fill_row(index_t off, index_t count, index_t r, T* out) const {  // row r of count lines
    if (mode == CoefficientMode::full) std::memcpy(out, p + off, sizeof(T) * count);
    else std::fill(out, out + count, mode == CoefficientMode::scalar ? value : p[r]);
  }
};

// The coefficient source of solve_lines (coefficients.hpp's load_line/load_row) over three
// coefficients of any mode.
template <class T>
struct MixedCoeffs {
  Coefficient<T> a, b, c;
  void load_line(index_t off, index_t n, T* A, T* B, T* C) const {
    a.fill_line(off, n, A);
    b.fill_line(off, n, B);
    c.fill_line(off, n, C);
  }
  void load_row(index_t off, index_t count, index_t r, T* A, T* B, T* C) const {
    a.fill_row(off, count, r, A);
    b.fill_row(off, count, r, B);
    c.fill_row(off, count, r, C);
  }
};

template <class T>
Coefficient<T> coefficient(const CoefficientArg& arg) {
  return {arg.mode, reinterpret_cast<const T*>(arg.address), T(arg.value)};
}

// Writes the solution and remembers where a value is not finite (x - x is 0 for finite x only).
template <class T>
struct CheckingStore {
  T* d;
  std::atomic<index_t>* bad;
  void operator()(index_t off, index_t count, const T* in) const {
    std::memcpy(d + off, in, sizeof(T) * count);
    int finite = 1;
#pragma omp simd reduction(& : finite)
    for (index_t l = 0; l < count; ++l) finite &= int(in[l] - in[l] == T(0));
    if (finite) return;
    index_t l = 0;
    while (in[l] - in[l] == T(0)) ++l;
    index_t none = kAllFinite;
    bad->compare_exchange_strong(none, off + l);
  }
};

template <class T, class Matrix>
index_t solve_cpu(const LinesArg& d, const Matrix& M, tridiag::Algorithm alg, bool check) {
  T* x = reinterpret_cast<T*>(d.address);
  if (!check) {
    tridiag::solve_lines<T>(d.lines, M, x, alg);
    return kAllFinite;
  }
  std::atomic<index_t> bad{kAllFinite};
  const auto load = [x](index_t off, index_t count, T* out) { std::memcpy(out, x + off, sizeof(T) * count); };
  tridiag::solve_lines<T>(d.lines, M, load, CheckingStore<T>{x, &bad}, alg);
  return bad.load();
}

// NumPy arrays take the names the cpu backend runs as themselves (kLineSolvers).
std::vector<std::string> cpu_algorithm_names() {
  return tridiag::line_solver_names([](const tridiag::LineSolver& s) { return s.on_cpu == tridiag::OnCpu::runs; });
}

tridiag::Algorithm cpu_algorithm(const std::string& name) {
  const tridiag::LineSolver* s = tridiag::find_line_solver(name);
  if (s && s->on_cpu == tridiag::OnCpu::runs) return s->cpu;
  const bool gpu_name = s && s->on_gpu != tridiag::OnGpu::refuses;
  throw py::value_error("algorithm '" + name + "'" + (gpu_name ? " runs on CUDA arrays only" : " is not known") +
                        "; NumPy arrays are solved by " + list_names(cpu_algorithm_names()));
}

#if TRIDSIM_HAVE_CUDA
tridiag::GpuAlgorithm gpu_algorithm(const std::string& name, const LineSet& L, bool check) {
  const auto alg = tridiag::parse_gpu_algorithm(name);
  if (!alg)
    throw py::value_error("algorithm '" + name + "' is not known; valid: " +
                          list_names(tridiag::line_solver_names(
                              [](const tridiag::LineSolver& s) { return s.on_gpu != tridiag::OnGpu::refuses; }, true)));
  if (const std::string why = tridiag::gpu_unsupported_reason(*alg, L, !check); !why.empty())
    throw py::value_error("algorithm '" + name + "': " + why + (check ? " (with check=True)" : ""));
  return *alg;
}
#endif

// A constant-coefficient matrix shared by every line (Python: tridsim.UniformMatrix), factored
// once per precision on the host and uploaded once per device.
class UniformLines {
 public:
  UniformLines(std::vector<double> a, std::vector<double> b, std::vector<double> c)
      : a_(std::move(a)), b_(std::move(b)), c_(std::move(c)), f64_(a_, b_, c_) {}
  index_t size() const { return index_t(a_.size()); }

  template <class T>
  const tridiag::UniformMatrix<T>& host() {
    if constexpr (std::is_same_v<T, double>) return f64_;
    else {
      std::lock_guard lock(mutex_);
      if (!f32_)
        f32_ = std::make_unique<tridiag::UniformMatrix<float>>(std::vector<float>(a_.begin(), a_.end()),
                                                               std::vector<float>(b_.begin(), b_.end()),
                                                               std::vector<float>(c_.begin(), c_.end()));
      return *f32_;
    }
  }
#if TRIDSIM_HAVE_CUDA
  template <class T>
  const tridiag::UniformMatrixDevice<T>& device(int dev) {  // call with dev current
    const tridiag::UniformMatrix<T>& M = host<T>();
    std::lock_guard lock(mutex_);
    auto& copies = std::get<std::map<int, tridiag::UniformMatrixDevice<T>>>(devices_);
    auto it = copies.find(dev);
    if (it == copies.end()) it = copies.emplace(dev, tridiag::UniformMatrixDevice<T>(M)).first;
    return it->second;
  }
#endif

 private:
  std::vector<double> a_, b_, c_;
  tridiag::UniformMatrix<double> f64_;
  std::unique_ptr<tridiag::UniformMatrix<float>> f32_;
  std::mutex mutex_;
#if TRIDSIM_HAVE_CUDA
  std::tuple<std::map<int, tridiag::UniformMatrixDevice<float>>, std::map<int, tridiag::UniformMatrixDevice<double>>>
      devices_;
#endif
};

}  // namespace

void bind_lines(py::module_& m) {
  py::enum_<CoefficientMode>(m, "CoefficientMode")
      .value("scalar", CoefficientMode::scalar)
      .value("per_row", CoefficientMode::per_row)
      .value("full", CoefficientMode::full);
  py::class_<CoefficientArg>(m, "CoefficientArg")
      .def(py::init([](CoefficientMode mode, std::uintptr_t address, double value) {
        return CoefficientArg{mode, address, value};
      }));
  py::class_<LinesArg>(m, "LinesArg")
      .def(py::init([](std::uintptr_t address, bool is_double, std::array<index_t, 3> n,
                       std::array<index_t, 3> stride, int axis) {
        return LinesArg{address, is_double, LineSet{n, stride, axis}};
      }));
  m.attr("all_finite") = kAllFinite;
  m.def(
      "line_solvers",
      [] {
        py::list rows;
        for (const auto& s : tridiag::kLineSolvers) {
          py::dict row;
          row["name"] = s.name;
          row["alias_of"] = s.alias_of ? py::object(py::str(s.alias_of)) : py::object(py::none());
          row["cpu"] = s.on_cpu == tridiag::OnCpu::runs;
          row["gpu"] = s.on_gpu != tridiag::OnGpu::refuses;
          row["in_place_only"] = s.on_gpu == tridiag::OnGpu::in_place_only;
          row["max_length"] = s.max_length;
          row["description"] = s.description;
          rows.append(row);
        }
        return rows;
      },
      "The line-solver table (solvers/tridiagonal/line_solvers.hpp): one dict per name.");
  m.attr("have_cuda") = bool(TRIDSIM_HAVE_CUDA);

  m.def(
      "solve_lines_cpu",
      [](const LinesArg& d, const CoefficientArg& a, const CoefficientArg& b, const CoefficientArg& c,
         const std::string& algorithm, bool check) {
        const tridiag::Algorithm alg = cpu_algorithm(algorithm);
        py::gil_scoped_release release;
        if (d.is_double)
          return solve_cpu<double>(d, MixedCoeffs<double>{coefficient<double>(a), coefficient<double>(b),
                                                          coefficient<double>(c)}, alg, check);
        return solve_cpu<float>(d, MixedCoeffs<float>{coefficient<float>(a), coefficient<float>(b),
                                                      coefficient<float>(c)}, alg, check);
      },
      "Solve the lines of d in place on the CPU; the offset of a non-finite solution value or all_finite.");

  py::class_<UniformLines>(m, "UniformLines")
      .def(py::init([](index_t n, const Values& a, const Values& b, const Values& c) {  // n rows
        return std::make_unique<UniformLines>(to_vector(a, n), to_vector(b, n), to_vector(c, n));
      }))
      .def_property_readonly("size", &UniformLines::size)
      .def("solve_cpu", [](UniformLines& M, const LinesArg& d, const std::string& algorithm, bool check) {
        const tridiag::Algorithm alg = cpu_algorithm(algorithm);
        if (d.is_double) {
          const auto& f = M.host<double>();
          py::gil_scoped_release release;
          return solve_cpu<double>(d, f, alg, check);
        }
        const auto& f = M.host<float>();
        py::gil_scoped_release release;
        return solve_cpu<float>(d, f, alg, check);
      })
#if TRIDSIM_HAVE_CUDA
      .def("solve_cuda",
           [](UniformLines& M, const LinesArg& d, const std::string& algorithm, std::uintptr_t stream, bool check) {
             const tridiag::GpuAlgorithm alg = gpu_algorithm(algorithm, d.lines, check);
             DeviceOf on(d.address);
             if (d.is_double) {
               const auto& f = M.device<double>(on.device());
               py::gil_scoped_release release;
               return solve_uniform_lines_cuda<double>(d, f, alg, stream, check);
             }
             const auto& f = M.device<float>(on.device());
             py::gil_scoped_release release;
             return solve_uniform_lines_cuda<float>(d, f, alg, stream, check);
           })
#endif
      ;

#if TRIDSIM_HAVE_CUDA
  m.def("solve_lines_cuda", [](const LinesArg& d, std::uintptr_t a, std::uintptr_t b, std::uintptr_t c,
                               const std::string& algorithm, std::uintptr_t stream, bool check) {
    const tridiag::GpuAlgorithm alg = gpu_algorithm(algorithm, d.lines, check);
    DeviceOf on(d.address);
    py::gil_scoped_release release;
    return solve_array_lines_cuda(d, a, b, c, alg, stream, check);
  });
#endif
}

}  // namespace tridsim::python
