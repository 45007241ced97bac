#pragma once
/// \file
/// Result<T>: a value or the Status saying why there is none.

#include <optional>
#include <type_traits>
#include <utility>
#include <variant>

#include "strata/core/status.hpp"

namespace strata {

/// \brief Either a T or a non-OK Status.
///
/// \code
/// Result<int64_t> r = parse_int("12");
/// if (!r.ok()) return r.status();
/// int64_t v = *r;
/// \endcode
template <class T>
class [[nodiscard]] Result {
 public:
  using value_type = T;

  Result(const T& value) : v_(value) {}                     // NOLINT(implicit)
  Result(T&& value) : v_(std::move(value)) {}               // NOLINT(implicit)
  Result(Status status) : v_(std::move(status)) {           // NOLINT(implicit)
    if (std::get<0>(v_).ok()) v_ = Status::Internal("Result constructed from an OK Status");
  }
  template <class U, class = std::enable_if_t<std::is_convertible_v<U, T> && !std::is_same_v<std::decay_t<U>, T> &&
                                              !std::is_same_v<std::decay_t<U>, Status>>>
  Result(U&& value) : v_(T(std::forward<U>(value))) {}      // NOLINT(implicit)

  bool ok() const { return v_.index() == 1; }

  /// \brief The error, or OK when a value is held.
  const Status& status() const& {
    static const Status kOk;
    return ok() ? kOk : std::get<0>(v_);
  }
  Status status() && { return ok() ? Status::OK() : std::move(std::get<0>(v_)); }

  /// Access the value; calling these on an error Result is a programming error.
  T& value() & { return std::get<1>(v_); }
  const T& value() const& { return std::get<1>(v_); }
  T&& value() && { return std::move(std::get<1>(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  T value_or(T alt) const& { return ok() ? value() : std::move(alt); }

 private:
  std::variant<Status, T> v_;
};

namespace detail {
template <class T>
Status status_of(const Result<T>& r) { return r.status(); }
}  // namespace detail

}  // namespace strata
