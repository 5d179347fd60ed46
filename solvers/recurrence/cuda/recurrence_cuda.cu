// CUDA divide-and-conquer for the almost-Toeplitz BVP systems: see recurrence_cuda.hpp.
// Same steps and arithmetic as the CPU version (divide_conquer.hpp); comments there say why.
#include "solvers/recurrence/cuda/recurrence_cuda.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cub/device/device_scan.cuh>
#include <stdexcept>
#include <string>
#include <thrust/iterator/reverse_iterator.h>
#include <type_traits>
#include <vector>

namespace tridsim::rec::cuda {

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("CUDA error in ") + what + ": " + cudaGetErrorString(e));
}
#define TRIDSIM_CK(call) check((call), #call)

constexpr int kThreads = 128;  // columns per block (one panel)
// Elements per column: odd, so that thread t reading word t*S + i hits distinct banks.
template <class T>
constexpr int kCol = std::is_same_v<T, double> ? 17 : 33;

struct Map {  // logical index -> array index (suffix-first order = prefix-first on the reversed array)
  long long m;
  bool rev;
  __device__ long long operator()(long long i) const { return rev ? m - 1 - i : i; }
};

struct CompSum {  // TwoSum-compensated float accumulator (as CompSum in divide_conquer.hpp)
  float hi = 0, lo = 0;
  __device__ void add(float x) {
    const float t = __fadd_rn(hi, x), bp = __fsub_rn(t, hi);
    lo = __fadd_rn(lo, __fadd_rn(__fsub_rn(hi, __fsub_rn(t, bp)), __fsub_rn(x, bp)));
    hi = t;
  }
  __device__ double value() const { return double(hi) + double(lo); }
};

// The block's panel (kThreads columns of S elements, logical order) through shared memory:
// coalesced global accesses, column-wise reads by the owning thread.
template <class T, int S>
__device__ void load_panel(const T* d, Map at, long long base, T* sh) {
#pragma unroll 4
  for (int k = 0; k < S; ++k) {
    const long long i = base + (long long)k * kThreads + threadIdx.x;
    sh[k * kThreads + threadIdx.x] = i < at.m ? d[at(i)] : T(0);
  }
}
template <class T, int S>
__device__ void store_panel(T* d, Map at, long long base, const T* sh) {
#pragma unroll 4
  for (int k = 0; k < S; ++k) {
    const long long i = base + (long long)k * kThreads + threadIdx.x;
    if (i < at.m) d[at(i)] = sh[k * kThreads + threadIdx.x];
  }
}

// Step 1A: per column its sum and the sum of its prefix sums.
template <class T, class C, bool Cp>
__global__ void __launch_bounds__(kThreads) column_sums(const T* __restrict__ d, Map at, long long r, C* sum, C* wsum) {
  constexpr int S = kCol<T>;
  __shared__ T sh[kThreads * S];
  load_panel<T, S>(d, at, (long long)blockIdx.x * kThreads * S, sh);
  __syncthreads();
  const long long col = (long long)blockIdx.x * kThreads + threadIdx.x;
  if (col >= r) return;
  const int len = int(min((long long)S, at.m - col * S));
  const T* x = sh + threadIdx.x * S;
  if constexpr (Cp) {
    CompSum p, w;
    for (int i = 0; i < len; ++i) {
      p.add(x[i]);
      w.add(p.hi);
      w.lo += p.lo;
    }
    sum[col] = C(p.value());
    wsum[col] = C(w.value());
  } else {
    T p = 0, w = 0;
    for (int i = 0; i < len; ++i) {
      p += x[i];
      w += p;
    }
    sum[col] = C(p);
    wsum[col] = C(w);
  }
}

// Y_j = W_j + len_j c_j: the sum of column j's y (what 2B scans).
template <class C>
__global__ void column_totals(const C* c, C* w, long long r, long long m, int S) {
  const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (j < r) w[j] += C(min((long long)S, m - j * S)) * c[j];
}

// A part of a split system: the other parts' carries added to c_j and e_j (part_carries).
template <class C>
__global__ void add_part_carries(C* c, C* e, long long r, long long m, int S, PartCarries p) {
  const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= r) return;
  c[j] = C(double(c[j]) + p.before);
  e[j] = C(double(e[j]) + p.after_column(min((j + 1) * S, m), m));
}

// The rank-one term's z_0, the whole system's length and this array's logical offset in it, when
// the array is a part of a split system (given); else z_0 = e_0 + Y_0 on the device, this array alone.
struct Whole {
  bool given = false;
  double total = 0;
  long long m = 0, offset = 0;
};

// Steps 1C, 2A, 2C per column in registers, then the Sherman-Morrison term for two fixed ends.
template <class T, class C, bool Cp>
__global__ void __launch_bounds__(kThreads) finish(T* __restrict__ d, Map at, long long r, const C* c, const C* e,
                                                   const C* y, bool rank_one, Whole whole) {
  constexpr int S = kCol<T>;
  __shared__ T sh[kThreads * S];
  const long long base = (long long)blockIdx.x * kThreads * S;
  load_panel<T, S>(d, at, base, sh);
  __syncthreads();
  const long long col = (long long)blockIdx.x * kThreads + threadIdx.x;
  if (col < r) {
    const int len = int(min((long long)S, at.m - col * S));
    T* x = sh + threadIdx.x * S;
    const double total = !rank_one ? 0.0 : whole.given ? whole.total : double(e[0]) + double(y[0]);
    const long long m_all = whole.given ? whole.m : at.m, offset = whole.given ? whole.offset : 0;
    auto put = [&](int i, double v) {
      if (rank_one) v -= total * rank_one_weight(offset + col * S + i, m_all);
      x[i] = T(v);
    };
    if constexpr (Cp) {
      float ph[S], pl[S];
      CompSum p;
#pragma unroll
      for (int i = 0; i < S; ++i) {
        if (i < len) p.add(x[i]);
        ph[i] = p.hi;
        pl[i] = p.lo;
      }
      const double cj = double(c[col]), ej = double(e[col]);
      CompSum q;
#pragma unroll
      for (int i = S - 1; i >= 0; --i)
        if (i < len) {
          q.add(ph[i]);
          q.lo += pl[i];
          put(i, ej + double(len - i) * cj + q.value());
        }
    } else {
      T yv[S];
      const T cj = T(c[col]), ej = T(e[col]);
      T p = 0;
#pragma unroll
      for (int i = 0; i < S; ++i) {
        if (i < len) p += x[i];
        yv[i] = cj + p;  // 1C
      }
      T q = 0;
#pragma unroll
      for (int i = S - 1; i >= 0; --i)
        if (i < len) {
          q += yv[i];             // 2A
          put(i, double(ej + q)); // 2C
        }
    }
  }
  __syncthreads();
  store_panel<T, S>(d, at, base, sh);
}

}  // namespace

int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no device" error
    return 0;
  }
  return n;
}

template <class T>
struct GpuSolver<T>::Impl {
  Arithmetic arithmetic;
  Carries carries;
  char* work = nullptr;  // sum, c, wsum (becomes Y), e: 4 arrays of r carries (<= 8 bytes each)
  std::size_t work_r = 0;
  void* temp = nullptr;  // CUB scan storage
  std::size_t temp_bytes = 0;
  double* host = nullptr;  // pinned, 2 r doubles (the hybrid's carries)
  cudaEvent_t start{}, stop{};

  Impl(Arithmetic a, Carries c) : arithmetic(a), carries(c) {
    TRIDSIM_CK(cudaEventCreate(&start));
    TRIDSIM_CK(cudaEventCreate(&stop));
  }
  ~Impl() {
    cudaFree(work);
    cudaFree(temp);
    cudaFreeHost(host);
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }

  template <class C>
  void reserve(long long r) {
    if (std::size_t(r) > work_r) {
      cudaFree(work);
      cudaFreeHost(host);
      work = nullptr;
      host = nullptr;
      TRIDSIM_CK(cudaMalloc(&work, 4 * std::size_t(r) * sizeof(double)));
      TRIDSIM_CK(cudaMallocHost(&host, 2 * std::size_t(r) * sizeof(double)));
      work_r = std::size_t(r);
    }
    std::size_t bytes = 0, reversed = 0;  // storage for the forward and the reversed scan
    C* p = reinterpret_cast<C*>(work);
    TRIDSIM_CK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, p, p + r, int(r)));
    TRIDSIM_CK(cub::DeviceScan::ExclusiveSum(nullptr, reversed, thrust::make_reverse_iterator(p + r),
                                             thrust::make_reverse_iterator(p + 2 * r), int(r)));
    bytes = std::max(bytes, reversed);
    if (bytes > temp_bytes) {
      cudaFree(temp);
      temp = nullptr;
      TRIDSIM_CK(cudaMalloc(&temp, bytes));
      temp_bytes = bytes;
    }
  }

  template <class C, bool Cp>
  double run(T* d, index_t m, Ends ends, const Part* part) {
    constexpr int S = kCol<T>;
    const long long r = (m + S - 1) / S;
    if (r > (1LL << 31) - 1) throw std::invalid_argument("GpuSolver: too many columns for one scan");
    reserve<C>(r);
    C* sum = reinterpret_cast<C*>(work);
    C* c = sum + r;
    C* y = c + r;
    C* e = y + r;
    const Map at{m, !ends.prefix_first()};
    const unsigned blocks = unsigned((r + kThreads - 1) / kThreads);
    TRIDSIM_CK(cudaEventRecord(start));
    if (r > 0) column_sums<T, C, Cp><<<blocks, kThreads>>>(d, at, r, sum, y);
    TRIDSIM_CK(cudaGetLastError());
    Whole whole;
    if (carries == Carries::device) {  // 1B and 2B as parallel scans on the device
      std::size_t bytes = temp_bytes;
      TRIDSIM_CK(cub::DeviceScan::ExclusiveSum(temp, bytes, sum, c, int(r)));
      column_totals<C><<<unsigned((r + 255) / 256), 256>>>(c, y, r, m, S);
      TRIDSIM_CK(cudaGetLastError());
      bytes = temp_bytes;
      TRIDSIM_CK(cub::DeviceScan::ExclusiveSum(temp, bytes, thrust::make_reverse_iterator(y + r),
                                               thrust::make_reverse_iterator(e + r), int(r)));
      if (part) {  // the part's sums of d and y (4 numbers from the device), the other parts' carries added
        C last[2] = {}, first[2] = {};
        if (r > 0) {
          TRIDSIM_CK(cudaMemcpy(last, c + r - 1, sizeof(C), cudaMemcpyDeviceToHost));
          TRIDSIM_CK(cudaMemcpy(last + 1, sum + r - 1, sizeof(C), cudaMemcpyDeviceToHost));
          TRIDSIM_CK(cudaMemcpy(first, e, sizeof(C), cudaMemcpyDeviceToHost));
          TRIDSIM_CK(cudaMemcpy(first + 1, y, sizeof(C), cudaMemcpyDeviceToHost));
        }
        const PartCarries p = part_carries(*part, m, double(last[0]) + double(last[1]),
                                           double(first[0]) + double(first[1]), !ends.prefix_first());
        if (r > 0) add_part_carries<C><<<unsigned((r + 255) / 256), 256>>>(c, e, r, m, S, p);
        TRIDSIM_CK(cudaGetLastError());
        whole = {true, p.total, p.whole_m, p.offset};
      }
    } else {  // the paper's hybrid: the two sequential carries on the host, in double
      std::vector<C> hs(r), hw(r);
      TRIDSIM_CK(cudaMemcpy(hs.data(), sum, r * sizeof(C), cudaMemcpyDeviceToHost));
      TRIDSIM_CK(cudaMemcpy(hw.data(), y, r * sizeof(C), cudaMemcpyDeviceToHost));
      double* hc = host;
      double* he = host + r;
      auto len = [&](long long j) { return std::min<long long>(S, m - j * S); };
      double sum_d = 0, sum_y = 0;
      for (long long j = 0; j < r; ++j) {
        hc[j] = sum_d;
        sum_d += double(hs[j]);
        hw[j] = C(double(hw[j]) + double(len(j)) * hc[j]);
      }
      for (long long j = r - 1; j >= 0; --j) {
        he[j] = sum_y;
        sum_y += double(hw[j]);
      }
      if (part) {  // the other parts' carries
        const PartCarries p = part_carries(*part, m, sum_d, sum_y, !ends.prefix_first());
        for (long long j = 0; j < r; ++j) {
          hc[j] += p.before;
          he[j] += p.after_column(j * S + len(j), m);
        }
        whole = {true, p.total, p.whole_m, p.offset};
      }
      for (long long j = 0; j < r; ++j) hs[j] = C(hc[j]);
      TRIDSIM_CK(cudaMemcpy(c, hs.data(), r * sizeof(C), cudaMemcpyHostToDevice));
      for (long long j = 0; j < r; ++j) hs[j] = C(he[j]);
      TRIDSIM_CK(cudaMemcpy(e, hs.data(), r * sizeof(C), cudaMemcpyHostToDevice));
      TRIDSIM_CK(cudaMemcpy(y, hw.data(), r * sizeof(C), cudaMemcpyHostToDevice));
    }
    if (r > 0) finish<T, C, Cp><<<blocks, kThreads>>>(d, at, r, c, e, y, ends.rank_one(), whole);
    TRIDSIM_CK(cudaGetLastError());
    TRIDSIM_CK(cudaEventRecord(stop));
    TRIDSIM_CK(cudaEventSynchronize(stop));
    float ms = 0;
    TRIDSIM_CK(cudaEventElapsedTime(&ms, start, stop));
    return 1e-3 * double(ms);
  }
};

template <class T>
GpuSolver<T>::GpuSolver(Arithmetic a, Carries c) {
  if (stores_double(a) != std::is_same_v<T, double> || a == Arithmetic::automatic)
    throw std::invalid_argument(std::string("GpuSolver: arithmetic ") + to_string(a) + " does not match the storage type");
  impl_ = std::make_unique<Impl>(a, c);
}
template <class T>
GpuSolver<T>::~GpuSolver() = default;

template <class T>
int GpuSolver<T>::column_length() {
  return kCol<T>;
}

template <class T>
double GpuSolver<T>::solve_device(T* d, index_t m, Ends ends, const Part* part) {
  if (part) {
    if (ends.singular()) throw std::invalid_argument("both ends free (Neumann): the system is singular");
  } else {
    check_ends(ends, m);
  }
  if constexpr (std::is_same_v<T, double>) {
    return impl_->template run<double, false>(d, m, ends, part);
  } else {
    switch (impl_->arithmetic) {
      case Arithmetic::float32: return impl_->template run<float, false>(d, m, ends, part);
      case Arithmetic::mixed: return impl_->template run<double, false>(d, m, ends, part);
      default: return impl_->template run<double, true>(d, m, ends, part);
    }
  }
}

template <class T>
double GpuSolver<T>::solve_host(T* d_host, index_t m, Ends ends, const Part* part) {
  T* dev = nullptr;
  TRIDSIM_CK(cudaMalloc(&dev, std::max<std::size_t>(1, std::size_t(m)) * sizeof(T)));
  struct Free {
    T* p;
    ~Free() { cudaFree(p); }
  } guard{dev};
  TRIDSIM_CK(cudaMemcpy(dev, d_host, std::size_t(m) * sizeof(T), cudaMemcpyHostToDevice));
  const double s = solve_device(dev, m, ends, part);
  TRIDSIM_CK(cudaMemcpy(d_host, dev, std::size_t(m) * sizeof(T), cudaMemcpyDeviceToHost));
  return s;
}

template class GpuSolver<float>;
template class GpuSolver<double>;

}  // namespace tridsim::rec::cuda
