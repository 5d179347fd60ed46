// Batched block-tridiagonal line solves for Python: stored blocks (BlockArrays) and one factored
// block matrix shared by every line (UniformBlockMatrix), on the CPU (batched.hpp) and, in CUDA
// builds, the GPU (block_batched_cuda.hpp). Vectors are interleaved per node (u[o*m + s]).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "core/errors.hpp"
#include "python/src/bindings.hpp"
#include "python/src/line_arguments.hpp"
#include "solvers/block_tridiagonal/batched.hpp"
#include "solvers/block_tridiagonal/block_gpu_algorithm.hpp"
#include "solvers/block_tridiagonal/uniform_blocks.hpp"
#include "tridsim_build_info.hpp"
#if TRIDSIM_HAVE_CUDA
#include <map>
#include <mutex>

#include "python/src/lines_cuda.hpp"
#include "solvers/block_tridiagonal/cuda/block_batched_cuda.hpp"
#endif

namespace py = pybind11;

namespace tridsim::python {

namespace {

template <class T>
T* data(const LinesArg& d) {
  return reinterpret_cast<T*>(d.address);
}
template <class T>
blocktri::BlockArrays<T> blocks(std::uintptr_t a, std::uintptr_t b, std::uintptr_t c, int m) {
  return {reinterpret_cast<const T*>(a), reinterpret_cast<const T*>(b), reinterpret_cast<const T*>(c), m};
}

// Entry (i, j) of A_r, B_r, C_r from n row-major m x m blocks per array.
template <class T>
auto block_rows(int m, const std::vector<double>& a, const std::vector<double>& b, const std::vector<double>& c) {
  return [m, &a, &b, &c](index_t r, int i, int j, T& A, T& B, T& C) {
    const std::size_t k = (std::size_t(r) * m + i) * m + j;
    A = T(a[k]);
    B = T(b[k]);
    C = T(c[k]);
  };
}

// One block matrix for every line: a, b, c hold n row-major m x m blocks each (A_0, C_{n-1}
// ignored); factored once per precision, uploaded once per device.
class UniformBlockLines {
 public:
  UniformBlockLines(int m, index_t n, const std::vector<double>& a, const std::vector<double>& b,
                    const std::vector<double>& c, blocktri::Pivoting pivoting)
      : f64_(m, n, block_rows<double>(m, a, b, c), pivoting), f32_(m, n, block_rows<float>(m, a, b, c), pivoting) {}

  template <class T>
  const blocktri::UniformBlockMatrix<T>& host() const {
    if constexpr (std::is_same_v<T, double>) return f64_;
    else return f32_;
  }
#if TRIDSIM_HAVE_CUDA
  template <class T>
  const blocktri::UniformBlocksDevice<T>& device(int dev) {  // call with dev current
    std::lock_guard lock(mutex_);
    auto& copies = std::get<std::map<int, blocktri::UniformBlocksDevice<T>>>(devices_);
    auto it = copies.find(dev);
    if (it == copies.end()) it = copies.emplace(dev, blocktri::UniformBlocksDevice<T>(host<T>())).first;
    return it->second;
  }
#endif

 private:
  blocktri::UniformBlockMatrix<double> f64_;
  blocktri::UniformBlockMatrix<float> f32_;
#if TRIDSIM_HAVE_CUDA
  std::mutex mutex_;
  std::tuple<std::map<int, blocktri::UniformBlocksDevice<float>>, std::map<int, blocktri::UniformBlocksDevice<double>>>
      devices_;
#endif
};

}  // namespace

void bind_block_lines(py::module_& m) {
  m.def(
      "block_line_solvers",
      [] {
        py::list rows;
        for (const auto& s : blocktri::kBlockLineSolvers) {
          const char* first = blocktri::block_gpu_algorithm_name(s.value);
          py::dict row;
          row["name"] = s.name;
          row["alias_of"] = std::string(first) == s.name ? py::object(py::none()) : py::object(py::str(first));
          row["max_m"] = s.max_m;
          row["description"] = s.description;
          rows.append(row);
        }
        return rows;
      },
      "The block line-solver table (solvers/block_tridiagonal/block_gpu_algorithm.hpp): one dict per name.");
  m.def("solve_block_lines_cpu", [](const LinesArg& d, int m, std::uintptr_t a, std::uintptr_t b, std::uintptr_t c,
                                    const std::string& pivoting) {
    const auto piv = parse_or_raise(blocktri::kPivotingNames, pivoting, "pivoting");
    py::gil_scoped_release release;
    if (d.is_double) blocktri::solve_lines<double>(m, d.lines, blocks<double>(a, b, c, m), data<double>(d), piv);
    else blocktri::solve_lines<float>(m, d.lines, blocks<float>(a, b, c, m), data<float>(d), piv);
  });

  py::class_<UniformBlockLines>(m, "UniformBlockLines")
      .def(py::init([](int m, index_t n, const Values& a, const Values& b, const Values& c, const std::string& pivoting) {
        const auto piv = parse_or_raise(blocktri::kPivotingNames, pivoting, "pivoting");
        const auto size = std::size_t(n) * std::size_t(m) * std::size_t(m);  // n m x m blocks
        return std::make_unique<UniformBlockLines>(m, n, to_vector(a, size), to_vector(b, size), to_vector(c, size), piv);
      }))
      .def("solve_cpu", [](const UniformBlockLines& M, const LinesArg& d, int m) {
        py::gil_scoped_release release;
        if (d.is_double) blocktri::solve_lines<double>(m, d.lines, M.host<double>(), data<double>(d));
        else blocktri::solve_lines<float>(m, d.lines, M.host<float>(), data<float>(d));
      })
#if TRIDSIM_HAVE_CUDA
      .def("solve_cuda",
           [](UniformBlockLines& M, const LinesArg& d, int m, const std::string& algorithm, std::uintptr_t stream) {
             const auto alg = parse_or_raise(blocktri::kBlockLineSolvers, algorithm, "algorithm");
             DeviceOf on(d.address);
             const auto s = reinterpret_cast<cudaStream_t>(stream);
             if (d.is_double) {
               const auto& f = M.device<double>(on.device());
               py::gil_scoped_release release;
               blocktri::solve_lines_cuda<double>(d.lines, f, blocktri::InterleavedAccess<double>{data<double>(d), m}, alg, s);
             } else {
               const auto& f = M.device<float>(on.device());
               py::gil_scoped_release release;
               blocktri::solve_lines_cuda<float>(d.lines, f, blocktri::InterleavedAccess<float>{data<float>(d), m}, alg, s);
             }
           })
#endif
      ;

#if TRIDSIM_HAVE_CUDA
  m.def("solve_block_lines_cuda", [](const LinesArg& d, int m, std::uintptr_t a, std::uintptr_t b, std::uintptr_t c,
                                     const std::string& pivoting, const std::string& algorithm, std::uintptr_t stream) {
    const auto piv = parse_or_raise(blocktri::kPivotingNames, pivoting, "pivoting");
    const auto alg = parse_or_raise(blocktri::kBlockLineSolvers, algorithm, "algorithm");
    DeviceOf on(d.address);
    const auto s = reinterpret_cast<cudaStream_t>(stream);
    py::gil_scoped_release release;
    if (d.is_double)
      blocktri::solve_lines_cuda<double>(d.lines, blocks<double>(a, b, c, m),
                                         blocktri::InterleavedAccess<double>{data<double>(d), m}, alg, piv, s);
    else blocktri::solve_lines_cuda<float>(d.lines, blocks<float>(a, b, c, m),
                                        blocktri::InterleavedAccess<float>{data<float>(d), m}, alg, piv, s);
  });
#endif
}

}  // namespace tridsim::python
