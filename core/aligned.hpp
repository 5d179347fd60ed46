#pragma once
// Aligned vector storage (namespace tridsim): 64-byte alignment so SIMD loops start on a cache
// line; large arrays (fields) are aligned to 2 MiB and marked for transparent huge pages, so that
// sweeps along y and z, which touch one row per page, do not thrash the TLB.
#include <cstddef>
#include <new>
#include <vector>

#include <sys/mman.h>

namespace tridsim {

template <class T>
struct AlignedAllocator {
  using value_type = T;
  static constexpr std::size_t huge_page = std::size_t(2) << 20;
  static constexpr std::align_val_t alignment_for(std::size_t bytes) {
    return std::align_val_t(bytes >= 2 * huge_page ? huge_page : 64);
  }
  AlignedAllocator() = default;
  template <class U>
  AlignedAllocator(const AlignedAllocator<U>&) {}
  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    void* p = ::operator new(bytes, alignment_for(bytes));
    if (bytes >= 2 * huge_page) madvise(p, bytes, MADV_HUGEPAGE);  // a hint; failure is harmless
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) { ::operator delete(p, alignment_for(n * sizeof(T))); }
  template <class U>
  bool operator==(const AlignedAllocator<U>&) const { return true; }
};

template <class T>
using AlignedVector = std::vector<T, AlignedAllocator<T>>;

}  // namespace tridsim
