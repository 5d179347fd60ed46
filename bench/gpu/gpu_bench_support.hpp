#pragma once
// Shared by the GPU benchmarks: CUDA checks, the stream every case runs on, device buffers, the
// event timing of one call per iteration, the device copy baseline copy/d2d/<size> (whose
// bandwidth the other cases are read against: run it first) and main's device check and context.
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

#include "core/types.hpp"

namespace tridsim::gpu_bench {

inline void ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

inline cudaStream_t g_stream = nullptr;
inline double g_copy_bandwidth = 0;  // bytes/s of the copy baseline, once it has run

struct DeviceFree {
  void operator()(void* p) const { cudaFree(p); }
};
template <class T>
using DeviceBuffer = std::unique_ptr<T, DeviceFree>;

template <class T>
DeviceBuffer<T> device_alloc(index_t count) {
  void* p = nullptr;
  ok(cudaMalloc(&p, sizeof(T) * std::size_t(count)), "cudaMalloc");
  return DeviceBuffer<T>(static_cast<T*>(p));
}

// A deterministic value in [0, 1) for element i.
inline double hash01(index_t i) { return double((std::uint64_t(i) * 2654435761u) % 1000u) / 1000.0; }

// Time `call` once per iteration with events on g_stream (after one warm-up call); returns the
// total seconds of the timed iterations.
template <class Call>
double time_calls(benchmark::State& state, const Call& call) {
  cudaEvent_t start = nullptr, stop = nullptr;
  ok(cudaEventCreate(&start), "cudaEventCreate");
  ok(cudaEventCreate(&stop), "cudaEventCreate");
  call();  // warm-up: kernel attributes, memory pools, cached factorizations
  ok(cudaStreamSynchronize(g_stream), "warm-up");
  double total = 0;
  for (auto _ : state) {
    ok(cudaEventRecord(start, g_stream), "cudaEventRecord");
    call();
    ok(cudaEventRecord(stop, g_stream), "cudaEventRecord");
    ok(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    ok(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    state.SetIterationTime(double(ms) * 1e-3);
    total += double(ms) * 1e-3;
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return total;
}

// Sets bytes/s and, once the copy baseline has run, copy_fraction.
inline void bandwidth_counters(benchmark::State& state, double bytes_per_call, double total) {
  if (total <= 0) return;
  const double rate = bytes_per_call * double(state.iterations()) / total;
  state.counters["bytes/s"] = rate;
  if (g_copy_bandwidth > 0) state.counters["copy_fraction"] = rate / g_copy_bandwidth;
}

// cudaMemcpyAsync device to device of `bytes`; bytes moved = 2 * bytes (read + write).
inline void bm_copy(benchmark::State& state, std::size_t bytes) {
  DeviceBuffer<unsigned char> src = device_alloc<unsigned char>(index_t(bytes));
  DeviceBuffer<unsigned char> dst = device_alloc<unsigned char>(index_t(bytes));
  ok(cudaMemset(src.get(), 1, bytes), "cudaMemset");
  ok(cudaMemset(dst.get(), 0, bytes), "cudaMemset");
  const double total = time_calls(state, [&] {
    ok(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, g_stream), "copy");
  });
  if (total > 0) g_copy_bandwidth = 2.0 * double(bytes) * double(state.iterations()) / total;
  state.counters["bytes/s"] = g_copy_bandwidth;
}

// main: refuse to run without a device, record it in the JSON context, register copy/d2d/134MB
// and then the program's cases, run them.
inline int run(int argc, char** argv, const char* program, const std::function<void()>& register_cases) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::fprintf(stderr, "%s: no CUDA device\n", program);
    return 1;
  }
  cudaDeviceProp prop{};
  ok(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  ok(cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking), "cudaStreamCreate");
  benchmark::AddCustomContext("cuda_device", prop.name);
  benchmark::AddCustomContext("cuda_sm_count", std::to_string(prop.multiProcessorCount));
  benchmark::AddCustomContext("cuda_l2_bytes", std::to_string(prop.l2CacheSize));
  benchmark::AddCustomContext("cuda_global_mem_bytes", std::to_string(prop.totalGlobalMem));
  benchmark::RegisterBenchmark("copy/d2d/134MB", [](benchmark::State& st) { bm_copy(st, std::size_t(1) << 27); })
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond)
      ->MinTime(0.1);
  register_cases();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  cudaStreamDestroy(g_stream);
  return 0;
}

}  // namespace tridsim::gpu_bench
