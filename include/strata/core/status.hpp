#pragma once
/// \file
/// Status and error codes: the result of every strata operation that can fail.
///
/// strata does not throw across its public API. Anything that can fail (I/O, corrupt data,
/// allocation, invalid arguments, devices, communication) returns a `Status` or a `Result<T>`.
/// Messages name the file, field or chunk and the problem, so the CLI can print them as-is.

#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>

namespace strata {

/// \brief Broad category of a failure; the CLI and Python map these to exit codes/exceptions.
enum class StatusCode : int8_t {
  Ok = 0,
  Invalid,         ///< invalid argument or option
  IOError,         ///< the operating system failed a read/write/open
  Corrupt,         ///< data or metadata does not decode (bad magic, truncated, crc mismatch)
  NotFound,        ///< a file, key, array or field is absent
  AlreadyExists,   ///< refusing to overwrite
  OutOfMemory,     ///< allocation failed or the memory budget is exceeded
  Unsupported,     ///< valid input that strata does not handle (unknown codec, old format)
  InvalidData,     ///< well-formed input whose content cannot be processed (k too large for it,
                   ///< every variant filtered out, constant or non-finite data, duplicate IDs)
  DeviceError,     ///< CUDA / accelerator failure
  CommError,       ///< MPI / communicator failure
  Cancelled,       ///< stopped on request
  Internal,        ///< a strata bug: an invariant did not hold
};

/// \brief Name of a status code ("Invalid", "IOError", ...).
std::string_view status_code_name(StatusCode code);

/// \brief Concatenate any streamable values into a string.
template <class... Args>
std::string str_cat(Args&&... args) {
  std::ostringstream os;
  (os << ... << std::forward<Args>(args));
  return os.str();
}

/// \brief Success, or a code and a human-readable message.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status OK() { return Status(); }
  template <class... A> static Status Invalid(A&&... a) { return {StatusCode::Invalid, str_cat(std::forward<A>(a)...)}; }
  template <class... A> static Status IOError(A&&... a) { return {StatusCode::IOError, str_cat(std::forward<A>(a)...)}; }
  template <class... A> static Status Corrupt(A&&... a) { return {StatusCode::Corrupt, str_cat(std::forward<A>(a)...)}; }
  template <class... A> static Status NotFound(A&&... a) { return {StatusCode::NotFound, str_cat(std::forward<A>(a)...)}; }
  template <class... A> static Status AlreadyExists(A&&... a) { return {StatusCode::AlreadyExists, str_cat(std::forward<A>(a)...)}; }
  template <class... A> static Status OutOfMemory(A&&... a) { return {StatusCode::OutOfMemory, str_cat(std::forward<A>(a)...)}; }
  template <class... A> static Status Unsupported(A&&... a) { return {StatusCode::Unsupported, str_cat(std::forward<A>(a)...)}; }
  template <class... A> static Status InvalidData(A&&... a) { return {StatusCode::InvalidData, str_cat(std::forward<A>(a)...)}; }
  template <class... A> static Status DeviceError(A&&... a) { return {StatusCode::DeviceError, str_cat(std::forward<A>(a)...)}; }
  template <class... A> static Status CommError(A&&... a) { return {StatusCode::CommError, str_cat(std::forward<A>(a)...)}; }
  template <class... A> static Status Cancelled(A&&... a) { return {StatusCode::Cancelled, str_cat(std::forward<A>(a)...)}; }
  template <class... A> static Status Internal(A&&... a) { return {StatusCode::Internal, str_cat(std::forward<A>(a)...)}; }

  bool ok() const { return code_ == StatusCode::Ok; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  /// \brief "Code: message", or "OK".
  std::string to_string() const;

  /// \brief Return a copy with `context + ": "` prepended to the message (no-op when ok).
  Status with_context(std::string_view context) const;

  /// \brief Equality of code and message, for tests.
  friend bool operator==(const Status& a, const Status& b) {
    return a.code_ == b.code_ && a.message_ == b.message_;
  }

 private:
  StatusCode code_ = StatusCode::Ok;
  std::string message_;
};

}  // namespace strata

#define STRATA_CONCAT_IMPL(a, b) a##b
#define STRATA_CONCAT(a, b) STRATA_CONCAT_IMPL(a, b)

/// Evaluate an expression yielding Status or Result<T>; return its Status from the caller on error.
#define STRATA_RETURN_NOT_OK(expr)                                          \
  do {                                                                      \
    ::strata::Status _strata_st = ::strata::detail::status_of(expr);        \
    if (!_strata_st.ok()) return _strata_st;                                \
  } while (false)

/// `STRATA_ASSIGN_OR_RETURN(auto x, make_x());` — declares/assigns `x` or returns the error.
/// Multi-statement: do not use as the body of an unbraced if/else.
#define STRATA_ASSIGN_OR_RETURN(lhs, rexpr) \
  STRATA_ASSIGN_OR_RETURN_IMPL(STRATA_CONCAT(_strata_res_, __LINE__), lhs, rexpr)
#define STRATA_ASSIGN_OR_RETURN_IMPL(tmp, lhs, rexpr) \
  auto tmp = (rexpr);                                 \
  if (!tmp.ok()) return std::move(tmp).status();      \
  lhs = std::move(tmp).value()

namespace strata::detail {
inline const Status& status_of(const Status& s) { return s; }
}  // namespace strata::detail
