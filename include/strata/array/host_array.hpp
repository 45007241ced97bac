#pragma once
/// \file
/// HostArray: a dense, C-order, host-memory n-d array. It is what `compute()` returns and what
/// `Array::from_host` wraps. Copies share the same memory (it is a handle). The memory is either
/// allocated (tracked) or someone else's, kept alive by an owner handle (`wrap`: a numpy array).

#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "strata/core/buffer.hpp"
#include "strata/core/dtype.hpp"
#include "strata/core/result.hpp"
#include "strata/core/shape.hpp"

namespace strata {

/// \brief Dense C-order host array of one dtype (host byte order).
///
/// \code
/// STRATA_ASSIGN_OR_RETURN(auto h, HostArray::from_vector<double>({1, 2, 3, 4}, {2, 2}));
/// double first = h.data<double>()[0];
/// \endcode
class HostArray {
 public:
  HostArray() = default;

  /// \brief Allocate an uninitialized array (tracked memory). Invalid for float16 or bad shapes.
  static Result<HostArray> allocate(Shape shape, DType dtype);
  /// \brief Allocate an array filled with zeros.
  static Result<HostArray> zeros(Shape shape, DType dtype);
  /// \brief A handle over `nbytes`-sized C-order memory owned elsewhere, not copied and not
  /// tracked; `owner` is held (and so the memory kept alive) while any copy of the handle lives.
  /// Lazy arrays only read it; the owner must not change it while a computation reads it.
  static Result<HostArray> wrap(void* data, Shape shape, DType dtype, std::shared_ptr<void> owner);
  /// \brief Copy `values` (C order, numel == product of `shape`) into a new array of T's dtype.
  template <class T>
  static Result<HostArray> from_vector(const std::vector<T>& values, Shape shape) {
    STRATA_ASSIGN_OR_RETURN(int64_t n, shape_numel(shape));
    if (n != static_cast<int64_t>(values.size())) {
      return Status::Invalid("from_vector: ", values.size(), " values for shape ", shape_to_string(shape));
    }
    STRATA_ASSIGN_OR_RETURN(HostArray h, allocate(std::move(shape), dtype_of<T>()));
    if constexpr (std::is_same_v<T, bool>) {
      for (int64_t i = 0; i < n; ++i) h.data<bool>()[i] = values[i];
    } else if (n > 0) {
      std::memcpy(h.raw(), values.data(), sizeof(T) * n);
    }
    return h;
  }

  const Shape& shape() const { return shape_; }
  DType dtype() const { return dtype_; }
  int64_t ndim() const { return static_cast<int64_t>(shape_.size()); }
  int64_t numel() const { return numel_; }
  int64_t nbytes() const { return numel_ * dtype_.itemsize(); }
  bool empty_handle() const { return owner_ == nullptr; }

  void* raw() { return data_; }
  const void* raw() const { return data_; }
  /// Typed access; T must match dtype() (unchecked).
  template <class T> T* data() { return static_cast<T*>(raw()); }
  template <class T> const T* data() const { return static_cast<const T*>(raw()); }

  /// \brief All values converted (static_cast) to T, C order.
  template <class T> std::vector<T> to_vector() const;
  /// \brief Element `i` (C order) converted to double.
  double value_as_double(int64_t i) const;

 private:
  Shape shape_;
  DType dtype_;
  int64_t numel_ = 0;
  std::shared_ptr<void> owner_;  // a Buffer, or what keeps wrapped memory alive
  void* data_ = nullptr;
};

template <class T>
std::vector<T> HostArray::to_vector() const {
  std::vector<T> out(static_cast<size_t>(numel_));
  Status st = visit_scalar(dtype_.type, [&](auto tag) {
    using S = decltype(tag);
    const S* p = data<S>();
    for (int64_t i = 0; i < numel_; ++i) out[i] = static_cast<T>(p[i]);
  });
  (void)st;  // float16 arrays cannot be created
  return out;
}

}  // namespace strata
