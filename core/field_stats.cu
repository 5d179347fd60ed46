// The device side of core/field_stats.hpp: a grid-stride reduction with the host's add/merge.
#include <algorithm>
#include <vector>

#include "core/cuda_support.cuh"
#include "core/field_stats.hpp"

namespace tridsim {

namespace {

constexpr int kThreads = 256;
constexpr int kPerThread = 8;  // nodes of one x row per thread and work item

// A work item is a chunk of kThreads * kPerThread nodes of one x row: its row's indices are worked
// out once per item, not per node (64-bit divisions cost more than the node's load), and each
// thread has its chunk's loads in flight together.
template <class T>
__global__ void field_stats_kernel(StatsSpec s, const T* u, FieldStats* partial) {
  __shared__ alignas(FieldStats) unsigned char buffer[sizeof(FieldStats) * kThreads];  // no constructors
  FieldStats* sh = reinterpret_cast<FieldStats*>(buffer);
  constexpr index_t kChunk = index_t(kThreads) * kPerThread;
  const index_t chunks = (s.count[0] + kChunk - 1) / kChunk, items = chunks * s.count[1] * s.count[2];
  FieldStats mine;
  for (index_t item = blockIdx.x; item < items; item += gridDim.x) {
    const index_t row = item / chunks, j = s.first[1] + row % s.count[1], k = s.first[2] + row / s.count[1];
    const index_t i0 = (item % chunks) * kChunk + threadIdx.x, end = s.count[0];
    const T* line = u + s.first[0] + s.n[0] * (j + s.n[1] * k);
    const double w = s.axis_weight(1, j) * s.axis_weight(2, k);
    T v[kPerThread];
#pragma unroll
    for (int r = 0; r < kPerThread; ++r) {
      const index_t e = i0 + index_t(r) * kThreads;
      v[r] = e < end ? line[e] : T(0);
    }
#pragma unroll
    for (int r = 0; r < kPerThread; ++r) {
      const index_t e = i0 + index_t(r) * kThreads;
      if (e < end) mine.add(s, double(v[r]), s.axis_weight(0, s.first[0] + e) * w);
    }
  }
  const int t = threadIdx.x;
  sh[t] = mine;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (t < half) sh[t].merge(sh[t + half]);
    __syncthreads();
  }
  if (t == 0) partial[blockIdx.x] = sh[0];
}

}  // namespace

template <class T>
FieldStats field_stats_cuda(const StatsSpec& s, const T* u) {
  const index_t chunk = index_t(kThreads) * kPerThread;
  const index_t items = (s.count[0] + chunk - 1) / chunk * s.count[1] * s.count[2];
  const unsigned blocks = unsigned(std::clamp<index_t>(items, 1, 1024));
  // Stream-ordered scratch (the pool keeps it): no synchronizing allocation per diagnostics row.
  FieldStats* partial = nullptr;
  TRIDSIM_CUDA(cudaMallocAsync(reinterpret_cast<void**>(&partial), sizeof(FieldStats) * blocks, 0));
  field_stats_kernel<T><<<blocks, kThreads>>>(s, u, partial);
  const cudaError_t launched = cudaGetLastError();
  std::vector<FieldStats> host(blocks);
  const cudaError_t copied = cudaMemcpy(host.data(), partial, sizeof(FieldStats) * blocks, cudaMemcpyDeviceToHost);
  TRIDSIM_CUDA(cudaFreeAsync(partial, 0));
  TRIDSIM_CUDA(launched);
  TRIDSIM_CUDA(copied);
  FieldStats total;
  for (const FieldStats& b : host) total.merge(b);
  total.make_nan_visible();
  return total;
}

template FieldStats field_stats_cuda<float>(const StatsSpec&, const float*);
template FieldStats field_stats_cuda<double>(const StatsSpec&, const double*);

}  // namespace tridsim
