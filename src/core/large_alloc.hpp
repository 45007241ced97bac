#pragma once
// Aligned allocation that offers large blocks transparent huge pages (see buffer.cpp), and a
// std::vector allocator on it that leaves trivially constructible elements uninitialized.
#include <cstddef>
#include <cstdlib>
#include <new>

#include "strata/core/buffer.hpp"

namespace strata::detail {

/// 64-byte aligned block of `bytes` (nullptr when out of memory); from kHugePageMin bytes on,
/// 2 MiB aligned and marked for huge pages. Freed with std::free.
void* allocate_aligned(std::size_t bytes);

/// DefaultInitAllocator (elements left unset) on allocate_aligned's blocks.
template <class T>
struct LargeBlockAllocator : DefaultInitAllocator<T> {
  template <class U> struct rebind { using other = LargeBlockAllocator<U>; };
  LargeBlockAllocator() = default;
  template <class U> LargeBlockAllocator(const LargeBlockAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    void* p = allocate_aligned(n * sizeof(T));
    if (!p) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t) noexcept { std::free(p); }
  template <class U> bool operator==(const LargeBlockAllocator<U>&) const noexcept { return true; }
};

}  // namespace strata::detail
