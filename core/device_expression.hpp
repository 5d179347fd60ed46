#pragma once
// A deck expression evaluated on the GPU (namespace tridsim): translated to CUDA C++
// (core/expression_translate.hpp), compiled once per process with NVRTC for the current device and
// launched on a stream. Values are computed in double, as muparser does on the CPU, and cast to T;
// coordinates are Grid::coord's own values (computed on the host, uploaded once per grid).
// Built only when TRIDSIM_HAVE_CUDA; no CUDA headers here (streams are passed as void*).
#include <memory>
#include <string>

#include "core/expression.hpp"
#include "core/grid.hpp"
#include "core/types.hpp"

namespace tridsim {

template <class T>
class DeviceExpression {
 public:
  // Translate (throws Error if the text is not supported) and compile for the current device.
  explicit DeviceExpression(const Expression& e);
  DeviceExpression(const std::string& text, const Constants& constants);
  DeviceExpression(DeviceExpression&&) noexcept;
  DeviceExpression& operator=(DeviceExpression&&) noexcept;
  ~DeviceExpression();

  // Value at every node of g at time t into device memory, x-fastest: i + nx*(j + ny*k).
  // `stream` is a cudaStream_t (nullptr: the default stream); the call does not synchronize.
  void fill(const Grid& g, double t, T* device_out, void* stream = nullptr) const;
  // The same into host memory (through a device buffer; returns when the values are there).
  void fill_host(const Grid& g, double t, T* host_out) const;
  // Value at every node of face (axis, side) in Face's layout: its own axes p < q, ip + np*iq.
  void fill_face(const Grid& g, int axis, int side, double t, T* device_out, void* stream = nullptr) const;
  // The translated CUDA C++ expression.
  const std::string& code() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The complete NVRTC source of the kernel that evaluates a translated expression.
std::string device_expression_source(const std::string& code, Precision precision);
// A kernel compiled once per process with NVRTC for the current device: the extern "C"
// __global__ function `name` of the CUDA C++ `source` (a cudaKernel_t, as void* here: launch it
// with cudaLaunchKernel). `what` names the source in errors, which carry NVRTC's log.
void* compiled_kernel(const std::string& source, const std::string& name, const std::string& what);
// Compile that source to PTX for compute capability `sm` (e.g. 90); needs NVRTC, not a GPU.
// Throws Error with the NVRTC log on failure.
std::string device_expression_ptx(const std::string& code, Precision precision, int sm);

}  // namespace tridsim
