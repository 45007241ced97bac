#pragma once
/// \file
/// Owning, aligned memory that knows its device, plus process-wide memory accounting.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "strata/core/result.hpp"

namespace strata {

/// \brief Where a buffer lives. Crossing devices is always an explicit copy.
struct Device {
  enum class Kind : uint8_t { Host, Cuda };
  Kind kind = Kind::Host;
  int index = 0;
  static constexpr Device host() { return {}; }
  bool is_host() const { return kind == Kind::Host; }
  friend bool operator==(const Device&, const Device&) = default;
};

/// \brief Bytes currently held and the high-water mark, over every tracked allocation.
struct MemoryStats {
  int64_t current_bytes = 0;
  int64_t peak_bytes = 0;
};
/// \brief Snapshot of tracked allocations (Buffer and anything calling track_allocation).
MemoryStats memory_stats();
/// \brief Reset the peak to the current value (e.g. between benchmark phases).
void reset_peak_memory();
/// \brief Record `delta` bytes allocated (positive) or freed (negative).
void track_allocation(int64_t delta);
/// \brief Peak resident set size of this process in bytes (getrusage), 0 if unknown.
int64_t peak_rss_bytes();
/// \brief Current resident set size of this process in bytes (/proc/self/statm), 0 if unknown.
int64_t current_rss_bytes();
/// \brief Parse a memory size such as "2G", "512M", "1.5GiB", "1000000" (bytes).
Result<int64_t> parse_memory_size(std::string_view text);
/// \brief "1.50 GiB".
std::string format_bytes(int64_t bytes);

/// \brief Move-only, 64-byte aligned, tracked memory block. Contents start uninitialized.
class Buffer {
 public:
  static constexpr int64_t kAlignment = 64;

  Buffer() = default;
  /// \brief Allocate `nbytes` of host memory (uninitialized). OutOfMemory on failure.
  static Result<Buffer> allocate(int64_t nbytes);
  /// \brief Allocate and fill with zeros.
  static Result<Buffer> zeros(int64_t nbytes);
  /// \brief Maps every page of the buffer now, in one system call where the OS offers one:
  /// a buffer about to be filled in full then takes no page fault per 4 KiB (which costs
  /// ~7 µs each under a hypervisor). A hint: silently does nothing otherwise.
  void prefault();
  /// \brief prefault() for bytes [offset, offset + bytes) only (clamped to the buffer), so
  /// that threads filling parts of a large buffer each map their own part (the kernel zeroes
  /// fresh pages: one thread mapping 250 MB was ~5 % of a short PCA's CPU time).
  void prefault(int64_t offset, int64_t bytes);
  /// \brief Copy `bytes` into a new buffer.
  static Result<Buffer> copy_of(std::span<const uint8_t> bytes);

  Buffer(Buffer&& other) noexcept;
  Buffer& operator=(Buffer&& other) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer();

  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  template <class T> T* as() { return reinterpret_cast<T*>(data_); }
  template <class T> const T* as() const { return reinterpret_cast<const T*>(data_); }
  int64_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  Device device() const { return device_; }
  std::span<uint8_t> span() { return {data_, static_cast<size_t>(size_)}; }
  std::span<const uint8_t> span() const { return {data_, static_cast<size_t>(size_)}; }

 private:
  void release();
  uint8_t* data_ = nullptr;
  int64_t size_ = 0;
  Device device_{};
};

/// \brief Allocator that default-initializes (does not zero) trivially constructible elements:
/// a `std::vector<uint8_t, DefaultInitAllocator<uint8_t>>` can be resized and then overwritten
/// by a decompressor without paying for a memset first.
template <class T>
struct DefaultInitAllocator : std::allocator<T> {
  template <class U> struct rebind { using other = DefaultInitAllocator<U>; };
  using std::allocator<T>::allocator;
  template <class U> void construct(U* p) noexcept { ::new (static_cast<void*>(p)) U; }
  template <class U, class... A> void construct(U* p, A&&... a) {
    ::new (static_cast<void*>(p)) U(std::forward<A>(a)...);
  }
};

/// Growable byte string used for encoded chunks and store values.
using Bytes = std::vector<uint8_t, DefaultInitAllocator<uint8_t>>;

}  // namespace strata
