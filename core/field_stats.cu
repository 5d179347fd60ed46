// The device side of core/field_stats.hpp: a grid-stride reduction with the host's add/merge.
#include <algorithm>
#include <vector>

#include "core/cuda_support.cuh"
#include "core/field_stats.hpp"

namespace tridsim {

namespace {

constexpr int kThreads = 256;

template <class T>
__global__ void field_stats_kernel(StatsSpec s, const T* u, FieldStats* partial) {
  __shared__ alignas(FieldStats) unsigned char buffer[sizeof(FieldStats) * kThreads];  // no constructors
  FieldStats* sh = reinterpret_cast<FieldStats*>(buffer);
  const index_t N = s.count[0] * s.count[1] * s.count[2];  // (the box of spec's nodes)
  FieldStats mine;
  for (index_t e = index_t(blockIdx.x) * blockDim.x + threadIdx.x; e < N; e += index_t(gridDim.x) * blockDim.x) {
    const index_t i = s.first[0] + e % s.count[0], j = s.first[1] + (e / s.count[0]) % s.count[1],
                  k = s.first[2] + e / (s.count[0] * s.count[1]);
    mine.add(s, double(u[i + s.n[0] * (j + s.n[1] * k)]), s.axis_weight(0, i) * s.axis_weight(1, j) * s.axis_weight(2, k));
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
  const index_t N = s.count[0] * s.count[1] * s.count[2];
  const unsigned blocks = unsigned(std::min<index_t>((N + kThreads - 1) / kThreads, 1024));
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
