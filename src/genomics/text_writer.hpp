#pragma once
// The text files of genomics' commands (.king, .kin0, .dist, .afreq, .vmiss, .glm.*): a file
// written through a large buffer; errors name the file as the user knows it (the output's final
// path, not its staged copy) and the system's reason.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>

#include "strata/core/result.hpp"

namespace strata::genomics::detail {

class TextWriter {
 public:
  // Creates `path`; `name` (default: `path`) is what errors call it.
  static Result<TextWriter> open(const std::string& path, std::string name = {}) {
    TextWriter w;
    w.name_ = name.empty() ? path : std::move(name);
    w.f_ = std::fopen(path.c_str(), "wb");
    if (!w.f_) return Status::IOError(w.name_, ": cannot create: ", std::strerror(errno));
    w.buf_.reserve(kFlush + 4096);
    return w;
  }
  TextWriter() = default;
  TextWriter(TextWriter&& o) noexcept : f_(o.f_), name_(std::move(o.name_)), buf_(std::move(o.buf_)) { o.f_ = nullptr; }
  TextWriter& operator=(TextWriter&& o) noexcept {
    std::swap(f_, o.f_);
    std::swap(name_, o.name_);
    std::swap(buf_, o.buf_);
    return *this;
  }
  ~TextWriter() {
    if (f_) std::fclose(f_);
  }
  void put(std::string_view s) { buf_.append(s); }
  void put(char c) { buf_.push_back(c); }
  // put(s), then flush once the buffer is full.
  Status write(std::string_view s) {
    put(s);
    return maybe_flush();
  }
  Status maybe_flush() { return buf_.size() >= kFlush ? flush() : Status::OK(); }
  Status flush() {
    if (!buf_.empty() && std::fwrite(buf_.data(), 1, buf_.size(), f_) != buf_.size())
      return Status::IOError(name_, ": write failed: ", std::strerror(errno));
    buf_.clear();
    return Status::OK();
  }
  Status close() {
    STRATA_RETURN_NOT_OK(flush());
    const bool bad = std::fflush(f_) != 0 || std::ferror(f_);
    const int rc = std::fclose(f_);
    f_ = nullptr;
    if (bad || rc != 0) return Status::IOError(name_, ": write failed: ", std::strerror(errno));
    return Status::OK();
  }

 private:
  static constexpr size_t kFlush = size_t{1} << 20;
  std::FILE* f_ = nullptr;
  std::string name_;
  std::string buf_;
};

}  // namespace strata::genomics::detail
