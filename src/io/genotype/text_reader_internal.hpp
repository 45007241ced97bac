#pragma once
// A buffered line reader and whitespace tokenizer for the PLINK text files, with line numbers
// for error messages.

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "strata/core/buffer.hpp"
#include "strata/core/result.hpp"

namespace strata::io::detail {

class LineReader {
 public:
  ~LineReader() {
    if (f_) std::fclose(f_);
  }
  LineReader() = default;
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;
  Status open(const std::string& path) {
    path_ = path;
    f_ = std::fopen(path.c_str(), "rb");
    if (!f_) {
      if (errno == ENOENT) return Status::NotFound(path, ": no such file");
      return Status::IOError(path, ": cannot open: ", std::strerror(errno));
    }
    return Status::OK();
  }
  /// Next line without its "\n" / "\r\n"; false at end of file. Errors set status().
  bool next(std::string_view& line) {
    for (;;) {
      const char* begin = buf_.data() + pos_;
      const char* end = buf_.data() + len_;
      const char* nl = end > begin ? static_cast<const char*>(std::memchr(
                                         begin, '\n', static_cast<size_t>(end - begin)))
                                   : nullptr;
      if (nl || eof_) {
        if (!nl && begin == end) return false;
        const char* stop = nl ? nl : end;
        line = std::string_view(begin, static_cast<size_t>(stop - begin));
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        pos_ = static_cast<size_t>((nl ? nl + 1 : end) - buf_.data());
        ++line_no_;
        return true;
      }
      refill();
      if (!status_.ok()) return false;
    }
  }
  int64_t line_no() const { return line_no_; }
  const std::string& path() const { return path_; }
  const Status& status() const { return status_; }

 private:
  void refill() {
    // Move the unread tail to the front and grow when a single line fills the buffer.
    const size_t tail = len_ - pos_;
    if (pos_ > 0) std::memmove(buf_.data(), buf_.data() + pos_, tail);
    pos_ = 0;
    len_ = tail;
    if (buf_.size() < (1u << 20)) buf_.resize(1u << 20);
    if (len_ == buf_.size()) buf_.resize(buf_.size() * 2);
    const size_t got = std::fread(buf_.data() + len_, 1, buf_.size() - len_, f_);
    len_ += got;
    if (got == 0) {
      if (std::ferror(f_)) status_ = Status::IOError(path_, ": read failed: ", std::strerror(errno));
      eof_ = true;
    }
  }
  std::string path_;
  std::FILE* f_ = nullptr;
  // Not zeroed on growth: fread fills what is read (a zeroed 1 MiB buffer faulted in 256 pages
  // for a 20 KB .fam).
  std::vector<char, DefaultInitAllocator<char>> buf_;
  size_t pos_ = 0, len_ = 0;
  bool eof_ = false;
  int64_t line_no_ = 0;
  Status status_;
};

/// Split on spaces/tabs into at most `max` tokens; returns the number found (may exceed max
/// by one to signal extra columns).
inline int split_ws(std::string_view line, std::string_view* out, int max) {
  int n = 0;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i >= line.size()) break;
    size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
    if (n < max) out[n] = line.substr(i, j - i);
    ++n;
    if (n > max) break;
    i = j;
  }
  return n;
}

inline bool is_blank(std::string_view line) {
  for (char c : line)
    if (c != ' ' && c != '\t') return false;
  return true;
}

}  // namespace strata::io::detail
