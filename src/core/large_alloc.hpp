#pragma once
// Aligned allocation that offers large blocks transparent huge pages (see buffer.cpp), and a
// std::vector allocator on it that leaves trivially constructible elements uninitialized.
#include <cstddef>
#include <cstdlib>
#include <new>
#include <utility>

namespace strata::detail {

/// 64-byte aligned block of `bytes` (nullptr when out of memory); from kHugePageMin bytes on,
/// 2 MiB aligned and marked for huge pages. Freed with std::free.
void* allocate_aligned(std::size_t bytes);

template <class T>
struct LargeBlockAllocator {
  using value_type = T;
  LargeBlockAllocator() = default;
  template <class U> LargeBlockAllocator(const LargeBlockAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    void* p = allocate_aligned(n * sizeof(T));
    if (!p) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t) noexcept { std::free(p); }
  template <class U> void construct(U* p) noexcept { ::new (static_cast<void*>(p)) U; }
  template <class U, class... A> void construct(U* p, A&&... a) { ::new (static_cast<void*>(p)) U(std::forward<A>(a)...); }
  template <class U> bool operator==(const LargeBlockAllocator<U>&) const noexcept { return true; }
};

}  // namespace strata::detail
