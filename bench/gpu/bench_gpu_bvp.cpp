// Google Benchmark of the CUDA BVP recurrence solver (solvers/recurrence/cuda/): the paper's
// Tables III/IV on the GPU. Problem P1 with n = 2^20 .. 2^28 unknowns, in device memory, solved
// in place; arithmetic double (A2D), mixed (A2SD), compensated and float (A2S), carries as a
// device scan (all on the GPU) or on the host (the paper's hybrid).
//   bench_gpu_bvp                                     # everything
//   bench_gpu_bvp --benchmark_filter='copy|n:67108864|n:268435456'
// Timing: CUDA events around the solve (manual time); the input is restored from a device copy
// before each solve (untimed). Counters:
//   points/s      unknowns per second;
//   bytes/s       2 * n * sizeof(T) / time: the minimal traffic of an in-place solve (read d,
//                 write u; the solver itself moves 3 words: a read-only pass and a read-write pass);
//   copy_fraction bytes/s over the device-to-device copy bandwidth measured in this run
//                 (copy/d2d/2GiB: cudaMemcpy of 2^28 doubles, bytes = read + write);
//   rel_error     the relative error (14) of the last solve against the exact solution.
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <string>
#include <vector>

#include "physics/bvp/paper_problems.hpp"
#include "solvers/recurrence/cuda/recurrence_cuda.hpp"

using namespace tridsim;
using rec::cuda::Carries;

namespace {

double g_copy_bytes_per_s = 0;

void ck(cudaError_t e) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(e));
    std::exit(1);
  }
}

void bm_copy(benchmark::State& state) {
  const std::size_t bytes = std::size_t(1) << 31;  // 2^28 doubles
  void *a = nullptr, *b = nullptr;
  ck(cudaMalloc(&a, bytes));
  ck(cudaMalloc(&b, bytes));
  ck(cudaMemset(a, 0, bytes));
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  double total = 0;
  long iters = 0;
  for (auto _ : state) {
    cudaEventRecord(e0);
    ck(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice));
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    state.SetIterationTime(1e-3 * ms);
    total += 1e-3 * ms;
    ++iters;
  }
  g_copy_bytes_per_s = 2.0 * double(bytes) * double(iters) / total;
  state.counters["bytes/s"] = benchmark::Counter(2.0 * double(bytes), benchmark::Counter::kIsIterationInvariantRate);
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  cudaFree(a);
  cudaFree(b);
}

template <class T>
void bm_solve(benchmark::State& state, rec::Arithmetic a, Carries carries) {
  const index_t n = state.range(0);
  std::vector<T> h(n + 1);
  const auto prob = bvp::paper_problem(1);
  const auto sys = bvp::assemble_paper(prob, n, h.data());
  T *d0 = nullptr, *d = nullptr;
  const std::size_t bytes = std::size_t(n) * sizeof(T);
  ck(cudaMalloc(&d0, bytes));
  ck(cudaMalloc(&d, bytes));
  ck(cudaMemcpy(d0, h.data(), bytes, cudaMemcpyHostToDevice));
  rec::cuda::GpuSolver<T> solver(a, carries);
  ck(cudaMemcpy(d, d0, bytes, cudaMemcpyDeviceToDevice));
  solver.solve_device(d, sys.m, sys.ends);  // warm-up: workspace allocation
  double total = 0;
  long iters = 0;
  for (auto _ : state) {
    ck(cudaMemcpy(d, d0, bytes, cudaMemcpyDeviceToDevice));
    const double s = solver.solve_device(d, sys.m, sys.ends);
    state.SetIterationTime(s);
    total += s;
    ++iters;
  }
  ck(cudaMemcpy(h.data(), d, bytes, cudaMemcpyDeviceToHost));
  state.counters["rel_error"] = bvp::relative_error(prob, n, h.data());
  state.counters["points/s"] = benchmark::Counter(double(n), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["bytes/s"] = benchmark::Counter(2.0 * double(bytes), benchmark::Counter::kIsIterationInvariantRate);
  if (g_copy_bytes_per_s > 0) state.counters["copy_fraction"] = 2.0 * double(bytes) * double(iters) / total / g_copy_bytes_per_s;
  cudaFree(d0);
  cudaFree(d);
}

template <class T>
void add(const std::string& name, rec::Arithmetic a, Carries c) {
  benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& st) { bm_solve<T>(st, a, c); })
      ->RangeMultiplier(4)
      ->Range(1 << 20, 1 << 28)
      ->ArgName("n")
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
}

}  // namespace

int main(int argc, char** argv) {
  if (rec::cuda::device_count() == 0) {
    std::printf("bench_gpu_bvp: no CUDA device\n");
    return 0;
  }
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  benchmark::AddCustomContext("device", prop.name);
  benchmark::RegisterBenchmark("copy/d2d/2GiB", bm_copy)->UseManualTime()->Unit(benchmark::kMillisecond);
  add<double>("A2D/double/device-scan", rec::Arithmetic::float64, Carries::device);
  add<float>("A2SD/mixed/device-scan", rec::Arithmetic::mixed, Carries::device);
  add<float>("A2SC/compensated/device-scan", rec::Arithmetic::compensated, Carries::device);
  add<float>("A2S/float/device-scan", rec::Arithmetic::float32, Carries::device);
  add<double>("A2D/double/host-carries", rec::Arithmetic::float64, Carries::host);
  add<float>("A2SD/mixed/host-carries", rec::Arithmetic::mixed, Carries::host);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
