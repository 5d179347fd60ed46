// GPU line solves for the Python module (lines_cuda.hpp). Without a check they run the in-place
// solvers of batched_cuda.hpp; with one, the functor solvers of line_solve.cuh with a store
// that also flags non-finite solution values, so the check costs no extra pass over d.
#include <cstdint>
#include <map>

#include "core/errors.hpp"
#include "python/src/lines_cuda.hpp"
#include "solvers/tridiagonal/cuda/line_solve.cuh"

namespace tridsim::python {

template <class T>
struct FlaggingStore {  // x over d; the smallest offset of a non-finite x into *bad
  T* d;
  unsigned long long* bad;
  __device__ __forceinline__ void operator()(index_t o, index_t, int, T x) const {
    d[o] = x;
    if (!isfinite(x)) atomicMin(bad, static_cast<unsigned long long>(o));
  }
};

}  // namespace tridsim::python

namespace tridsim::tridiag::gpu {
// A plain store to d: the factored in-place kernel (asynchronous copies ahead of the sweep) takes it.
template <class T>
inline constexpr bool is_array_store_v<python::FlaggingStore<T>> = true;
}  // namespace tridsim::tridiag::gpu

namespace tridsim::python {

namespace {

void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw Error(std::string("CUDA: ") + what + ": " + cudaGetErrorString(e));
}

cudaStream_t as_stream(std::uintptr_t s) { return reinterpret_cast<cudaStream_t>(s); }

// The flag of the checking store and its pinned host copy, one pair per host thread and device,
// made once: an allocation per solve would cost more than a solve (a pool trimmed at each sync
// allocates anew). Kept until the process ends.
struct Flag {
  unsigned long long* device = nullptr;
  unsigned long long* host = nullptr;
};
Flag& flag_of_current_device() {
  thread_local std::map<int, Flag> flags;
  int dev = 0;
  check_cuda(cudaGetDevice(&dev), "cudaGetDevice");
  Flag& f = flags[dev];
  if (!f.device) {
    check_cuda(cudaMalloc(&f.device, sizeof *f.device), "cudaMalloc");
    check_cuda(cudaMallocHost(&f.host, sizeof *f.host), "cudaMallocHost");
  }
  return f;
}

// Runs solve(store) with a flagging store and returns the flagged offset (kAllFinite if none).
template <class T, class Solve>
index_t checked(const LinesArg& d, cudaStream_t stream, const Solve& solve) {
  const Flag& flag = flag_of_current_device();
  check_cuda(cudaMemsetAsync(flag.device, 0xFF, sizeof *flag.device, stream), "cudaMemsetAsync");
  solve(FlaggingStore<T>{reinterpret_cast<T*>(d.address), flag.device});
  check_cuda(cudaMemcpyAsync(flag.host, flag.device, sizeof *flag.host, cudaMemcpyDeviceToHost, stream),
             "cudaMemcpyAsync");
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  return *flag.host == ~0ull ? kAllFinite : index_t(*flag.host);
}

template <class T>
index_t solve_arrays(const LinesArg& d, std::uintptr_t a, std::uintptr_t b, std::uintptr_t c, tridiag::GpuAlgorithm alg,
                     cudaStream_t stream, bool check) {
  T* x = reinterpret_cast<T*>(d.address);
  const T *A = reinterpret_cast<const T*>(a), *B = reinterpret_cast<const T*>(b), *C = reinterpret_cast<const T*>(c);
  if (!check) {
    tridiag::solve_lines_cuda<T>(d.lines, A, B, C, x, stream, alg);
    return kAllFinite;
  }
  return checked<T>(d, stream, [&](auto store) {
    tridiag::gpu::solve_lines<T>(d.lines, tridiag::gpu::ArrayRows<T>{A, B, C}, tridiag::gpu::ArrayLoad<T>{x}, store,
                                 alg, stream);
  });
}

}  // namespace

DeviceOf::DeviceOf(std::uintptr_t address) {
  cudaPointerAttributes attributes{};
  check_cuda(cudaPointerGetAttributes(&attributes, reinterpret_cast<const void*>(address)), "cudaPointerGetAttributes");
  if (attributes.type != cudaMemoryTypeDevice && attributes.type != cudaMemoryTypeManaged)
    throw Error("the array is not in CUDA device memory");
  device_ = attributes.device;
  check_cuda(cudaGetDevice(&previous_), "cudaGetDevice");
  if (device_ != previous_) check_cuda(cudaSetDevice(device_), "cudaSetDevice");
}

DeviceOf::~DeviceOf() {
  if (device_ != previous_) cudaSetDevice(previous_);
}

index_t solve_array_lines_cuda(const LinesArg& d, std::uintptr_t a, std::uintptr_t b, std::uintptr_t c,
                               tridiag::GpuAlgorithm alg, std::uintptr_t stream, bool check) {
  return d.is_double ? solve_arrays<double>(d, a, b, c, alg, as_stream(stream), check)
                     : solve_arrays<float>(d, a, b, c, alg, as_stream(stream), check);
}

template <class T>
index_t solve_uniform_lines_cuda(const LinesArg& d, const tridiag::UniformMatrixDevice<T>& M, tridiag::GpuAlgorithm alg,
                                 std::uintptr_t stream, bool check) {
  T* x = reinterpret_cast<T*>(d.address);
  if (!check) {
    tridiag::solve_lines_cuda<T>(d.lines, M, x, as_stream(stream), alg);
    return kAllFinite;
  }
  if (M.size() != d.lines.length())
    throw Error("tridiagonal solver (cuda): the uniform matrix has " + std::to_string(M.size()) +
                " rows but the lines have length " + std::to_string(d.lines.length()));
  return checked<T>(d, as_stream(stream), [&](auto store) {
    tridiag::gpu::solve_lines<T>(d.lines, tridiag::gpu::factored_rows(M), tridiag::gpu::ArrayLoad<T>{x}, store, alg,
                                 as_stream(stream));
  });
}

template index_t solve_uniform_lines_cuda<float>(const LinesArg&, const tridiag::UniformMatrixDevice<float>&,
                                                 tridiag::GpuAlgorithm, std::uintptr_t, bool);
template index_t solve_uniform_lines_cuda<double>(const LinesArg&, const tridiag::UniformMatrixDevice<double>&,
                                                  tridiag::GpuAlgorithm, std::uintptr_t, bool);

}  // namespace tridsim::python
