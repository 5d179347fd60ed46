// NVRTC compilation and launch of translated deck expressions. Only the CUDA runtime and NVRTC
// are used (cudaLibraryLoadData, cudaLaunchKernel on a cudaKernel_t), so binaries need no
// libcuda.so at load time and run, or skip their GPU tests, on machines without a driver.
#include "core/device_expression.hpp"

#include <nvrtc.h>

#include <algorithm>
#include <array>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

#include "core/cuda_support.cuh"
#include "core/expression_translate.hpp"

namespace tridsim {

namespace {

void check_nvrtc(nvrtcResult r, const char* what, const char* file, int line) {
  if (r != NVRTC_SUCCESS)
    throw Error(std::string("NVRTC error in ") + what + " at " + file + ":" + std::to_string(line) + ": " +
                nvrtcGetErrorString(r));
}
#define TRIDSIM_NVRTC(call) check_nvrtc((call), #call, __FILE__, __LINE__)

constexpr const char* kernel_name = "tridsim_expression";

// Compile to a cubin (`sm` supported by this NVRTC) or PTX (`ptx`: for compute_sm, JIT by the driver).
// `what` names the source in errors.
std::string compile(const std::string& src, const std::string& what, int sm, bool ptx) {
  nvrtcProgram prog;
  TRIDSIM_NVRTC(nvrtcCreateProgram(&prog, src.c_str(), "tridsim_kernel.cu", 0, nullptr, nullptr));
  std::unique_ptr<nvrtcProgram, void (*)(nvrtcProgram*)> guard(&prog, [](nvrtcProgram* p) { nvrtcDestroyProgram(p); });
  const std::string arch = (ptx ? "-arch=compute_" : "-arch=sm_") + std::to_string(sm);
  // No FMA contraction: the CPU's muparser rounds every operation.
  const char* options[] = {arch.c_str(), "--std=c++17", "--fmad=false"};
  const nvrtcResult r = nvrtcCompileProgram(prog, 3, options);
  if (r != NVRTC_SUCCESS) {
    std::size_t n = 0;
    nvrtcGetProgramLogSize(prog, &n);
    std::string log(n, '\0');
    if (n) nvrtcGetProgramLog(prog, log.data());
    throw Error("NVRTC could not compile " + what + " (" + arch + ") at " + __FILE__ + ":" +
                std::to_string(__LINE__) + ": " + nvrtcGetErrorString(r) + "\n" + log);
  }
  std::size_t n = 0;
  std::string image;
  if (ptx) {
    TRIDSIM_NVRTC(nvrtcGetPTXSize(prog, &n));
    image.resize(n);
    TRIDSIM_NVRTC(nvrtcGetPTX(prog, image.data()));
  } else {
    TRIDSIM_NVRTC(nvrtcGetCUBINSize(prog, &n));
    image.resize(n);
    TRIDSIM_NVRTC(nvrtcGetCUBIN(prog, image.data()));
  }
  return image;
}

// The current device's compute capability, and the newest NVRTC target not above it.
std::pair<int, bool> target_arch() {
  int dev = 0, major = 0, minor = 0;
  TRIDSIM_CUDA(cudaGetDevice(&dev));
  TRIDSIM_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  TRIDSIM_CUDA(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
  const int cc = 10 * major + minor;
  int count = 0;
  TRIDSIM_NVRTC(nvrtcGetNumSupportedArchs(&count));
  std::vector<int> archs(count);
  TRIDSIM_NVRTC(nvrtcGetSupportedArchs(archs.data()));
  if (std::find(archs.begin(), archs.end(), cc) != archs.end()) return {cc, false};
  int best = 0;
  for (int a : archs)
    if (a <= cc) best = std::max(best, a);
  if (!best)
    throw Error("NVRTC supports no architecture up to the device's sm_" + std::to_string(cc) + " at " + __FILE__ +
                ":" + std::to_string(__LINE__));
  return {best, true};  // PTX, compiled by the driver for the device
}

// One kernel per (source, name, target) in the process; libraries are never unloaded.
cudaKernel_t kernel_for(const std::string& source, const std::string& name, const std::string& what) {
  static std::mutex mutex;
  static std::map<std::tuple<std::string, std::string, int, bool>, cudaKernel_t> cache;
  const auto [sm, ptx] = target_arch();
  const std::lock_guard lock(mutex);
  const auto key = std::make_tuple(source, name, sm, ptx);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  const std::string image = compile(source, what, sm, ptx);
  cudaLibrary_t library;
  TRIDSIM_CUDA(cudaLibraryLoadData(&library, image.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  cudaKernel_t kernel;
  TRIDSIM_CUDA(cudaLibraryGetKernel(&kernel, library, name.c_str()));
  cache.emplace(key, kernel);
  return kernel;
}

}  // namespace

std::string device_expression_source(const std::string& code, Precision precision) {
  // One kernel for volumes and faces: node (a, b, c) of an na x nb x nc box (a fastest), each
  // of x, y, z read from its coordinate table at index a, b or c (sx, sy, sz).
  return std::string("typedef ") + (precision == Precision::float32 ? "float" : "double") + " T;\n" +
         device_expression_prelude() + "extern \"C\" __global__ void " + kernel_name +
         R"((T* __restrict__ out, long long na, long long nb, long long nc,
    const double* __restrict__ cx, const double* __restrict__ cy, const double* __restrict__ cz,
    int sx, int sy, int sz, double t) {
  const long long n = na * nb * nc;
  for (long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x; idx < n;
       idx += (long long)gridDim.x * blockDim.x) {
    const long long a = idx % na, r = idx / na, b = r % nb, c = r / nb;
    const double x = cx[sx == 0 ? a : sx == 1 ? b : c];
    const double y = cy[sy == 0 ? a : sy == 1 ? b : c];
    const double z = cz[sz == 0 ? a : sz == 1 ? b : c];
    (void)x; (void)y; (void)z; (void)t;
    out[idx] = (T)()" + code + R"();
  }
}
)";
}

std::string device_expression_ptx(const std::string& code, Precision precision, int sm) {
  return compile(device_expression_source(code, precision), "expression " + quoted(code), sm, true);
}

void* compiled_kernel(const std::string& source, const std::string& name, const std::string& what) {
  return reinterpret_cast<void*>(kernel_for(source, name, what));
}

// Coordinate tables (Grid::coord of every node of each axis, axes one after the other) of the
// grids this expression has seen; each is uploaded once and kept, so no launch reads a rewritten one.
template <class T>
struct DeviceExpression<T>::Impl {
  std::string code;
  cudaKernel_t kernel = nullptr;
  std::mutex mutex;
  std::vector<std::pair<std::array<double, 9>, cuda::DeviceArray<double>>> tables;

  const double* table(const Grid& g) {
    const std::array<double, 9> key{double(g.n[0]), double(g.n[1]), double(g.n[2]), g.lo[0], g.lo[1],
                                    g.lo[2],        g.hi[0],        g.hi[1],        g.hi[2]};
    const std::lock_guard lock(mutex);
    for (const auto& [k, a] : tables)
      if (k == key) return a.p;
    std::vector<double> c;
    for (int axis = 0; axis < 3; ++axis)
      for (index_t i = 0; i < g.n[axis]; ++i) c.push_back(g.coord(axis, i));
    cuda::DeviceArray<double> a;
    a.upload(c.data(), index_t(c.size()));
    tables.emplace_back(key, std::move(a));
    return tables.back().second.p;
  }

  void launch(T* out, index_t na, index_t nb, index_t nc, std::array<const double*, 3> c, std::array<int, 3> s,
              double t, void* stream) const {
    long long n[3] = {na, nb, nc};
    if (n[0] * n[1] * n[2] == 0) return;
    void* args[] = {&out, &n[0], &n[1], &n[2], &c[0], &c[1], &c[2], &s[0], &s[1], &s[2], &t};
    const long long blocks = std::min<long long>((n[0] * n[1] * n[2] + 255) / 256, 65535LL * 16);
    TRIDSIM_CUDA(cudaLaunchKernel(reinterpret_cast<const void*>(kernel), dim3(unsigned(blocks)), dim3(256), args, 0,
                                  static_cast<cudaStream_t>(stream)));
  }
};

template <class T>
DeviceExpression<T>::DeviceExpression(const Expression& e) : DeviceExpression(e.text(), e.constants()) {}

template <class T>
DeviceExpression<T>::DeviceExpression(const std::string& text, const Constants& constants)
    : impl_(std::make_unique<Impl>()) {
  impl_->code = translate_expression(text, constants);
  impl_->kernel = kernel_for(device_expression_source(impl_->code, precision_of<T>()), kernel_name,
                             "expression " + quoted(impl_->code));
}

template <class T>
DeviceExpression<T>::DeviceExpression(DeviceExpression&&) noexcept = default;
template <class T>
DeviceExpression<T>& DeviceExpression<T>::operator=(DeviceExpression&&) noexcept = default;
template <class T>
DeviceExpression<T>::~DeviceExpression() = default;

template <class T>
const std::string& DeviceExpression<T>::code() const {
  return impl_->code;
}

template <class T>
void DeviceExpression<T>::fill(const Grid& g, double t, T* out, void* stream) const {
  const double* c = impl_->table(g);
  impl_->launch(out, g.n[0], g.n[1], g.n[2], {c, c + g.n[0], c + g.n[0] + g.n[1]}, {0, 1, 2}, t, stream);
}

template <class T>
void DeviceExpression<T>::fill_host(const Grid& g, double t, T* host_out) const {
  cuda::DeviceArray<T> values;
  values.allocate(g.size());
  fill(g, t, values.p);
  TRIDSIM_CUDA(cudaMemcpy(host_out, values.p, sizeof(T) * std::size_t(g.size()), cudaMemcpyDeviceToHost));
}

template <class T>
void DeviceExpression<T>::fill_face(const Grid& g, int axis, int side, double t, T* out, void* stream) const {
  if (axis < 0 || axis > 2 || side < 0 || side > 1)
    throw Error("DeviceExpression::fill_face: no face (axis " + std::to_string(axis) + ", side " +
                std::to_string(side) + ")");
  // As Face: own axes p < q, node index `fixed` along `axis`.
  const int p = axis == 0 ? 1 : 0, q = axis == 2 ? 1 : 2;
  const index_t fixed = side ? g.n[axis] - 1 : 0;
  const double* c = impl_->table(g);
  const std::array<const double*, 3> start{c, c + g.n[0], c + g.n[0] + g.n[1]};
  std::array<const double*, 3> coords{};
  std::array<int, 3> source{};
  coords[axis] = start[axis] + fixed;
  source[axis] = 2;  // c = 0 (a one-node box along it)
  coords[p] = start[p];
  source[p] = 0;
  coords[q] = start[q];
  source[q] = 1;
  impl_->launch(out, g.n[p], g.n[q], 1, coords, source, t, stream);
}

template class DeviceExpression<float>;
template class DeviceExpression<double>;

}  // namespace tridsim
