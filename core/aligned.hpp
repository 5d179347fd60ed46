#pragma once
// 64-byte aligned vector storage so that SIMD loops over fields start on a cache line.
#include <cstddef>
#include <new>
#include <vector>

namespace tridsim {

template <class T>
struct AlignedAllocator {
  using value_type = T;
  static constexpr std::align_val_t alignment{64};
  AlignedAllocator() = default;
  template <class U>
  AlignedAllocator(const AlignedAllocator<U>&) {}
  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), alignment)); }
  void deallocate(T* p, std::size_t) { ::operator delete(p, alignment); }
  template <class U>
  bool operator==(const AlignedAllocator<U>&) const { return true; }
};

template <class T>
using AlignedVector = std::vector<T, AlignedAllocator<T>>;

}  // namespace tridsim
