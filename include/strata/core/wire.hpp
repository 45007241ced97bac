#pragma once
/// \file
/// Byte messages between ranks: what a rank sends through a Communicator (gather, send) is
/// written with WireWriter and read back with WireReader, which refuses a message that ends
/// early (CommError naming the sender and what was being read) instead of reading past it.
/// Plain values are copied as their bytes: the ranks of one run are the same binary.

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "strata/core/status.hpp"

namespace strata {

class WireWriter {
 public:
  template <class T>
  void put(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    bytes_.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  /// Values without a length (the reader knows how many).
  template <class T>
  void put_raw(const T* v, int64_t n) {
    static_assert(std::is_trivially_copyable_v<T>);
    bytes_.append(reinterpret_cast<const char*>(v), static_cast<size_t>(n) * sizeof(T));
  }
  /// A length, then the values.
  template <class T>
  void put_vector(const std::vector<T>& v) {
    put(static_cast<uint64_t>(v.size()));
    put_raw(v.data(), static_cast<int64_t>(v.size()));
  }
  void put_string(const std::string& s) {
    put(static_cast<uint64_t>(s.size()));
    bytes_ += s;
  }
  std::string& bytes() { return bytes_; }

 private:
  std::string bytes_;
};

class WireReader {
 public:
  /// `what` names the message in errors ("rank 2's tiles").
  WireReader(const std::string& bytes, std::string what) : s_(bytes), what_(std::move(what)) {}
  bool done() const { return at_ == s_.size(); }
  template <class T>
  Status get(T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    return get_raw(&v, 1);
  }
  template <class T>
  Status get_raw(T* v, int64_t n) {
    static_assert(std::is_trivially_copyable_v<T>);
    const size_t len = static_cast<size_t>(n) * sizeof(T);
    if (n < 0 || s_.size() - at_ < len) return truncated();
    if (len > 0) std::memcpy(v, s_.data() + at_, len);  // an empty vector's data() may be null
    at_ += len;
    return Status::OK();
  }
  template <class T>
  Status get_vector(std::vector<T>& v) {
    uint64_t n = 0;
    STRATA_RETURN_NOT_OK(get(n));
    if (n > (s_.size() - at_) / sizeof(T)) return truncated();
    v.resize(static_cast<size_t>(n));
    return get_raw(v.data(), static_cast<int64_t>(n));
  }
  Status get_string(std::string& out) {
    uint64_t n = 0;
    STRATA_RETURN_NOT_OK(get(n));
    if (n > s_.size() - at_) return truncated();
    out.assign(s_.data() + at_, static_cast<size_t>(n));
    at_ += static_cast<size_t>(n);
    return Status::OK();
  }

 private:
  Status truncated() const {
    return Status::CommError(what_, ": the message ends after ", at_, " of ", s_.size(), " bytes, short of what it holds");
  }
  const std::string& s_;
  std::string what_;
  size_t at_ = 0;
};

}  // namespace strata
