#pragma once
// A buffered line reader and whitespace tokenizer for the PLINK text files, with line numbers
// for error messages. Every text input strata reads (.bim, .fam, phenotype, covariate, ID and
// population files) goes through it: a regular file (or a pipe the user named), lines of at most
// kMaxTextLineBytes.

#include <sys/stat.h>

#include <cerrno>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "strata/core/buffer.hpp"
#include "strata/core/result.hpp"

namespace strata::io::detail {

/// The longest line a text input may have (8 MiB; a .fam or phenotype line is a few hundred
/// bytes, a phenotype table with 100,000 columns about 1 MB). A longer "line" is not text.
inline constexpr size_t kMaxTextLineBytes = size_t{8} << 20;

/// Whether a path may be read as a text input: a regular file, or a pipe (FIFO, `<(cmd)`)
/// when `allow_pipe` (the user named the file: --pheno, --keep, ...; not the .bim/.fam found
/// from a prefix). Devices (/dev/zero), sockets and directories never are, also behind a link.
inline Status check_text_input(const std::string& path, bool allow_pipe) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return Status::NotFound(path, ": no such file");
    return Status::IOError(path, ": cannot open: ", std::strerror(errno));
  }
  if (S_ISREG(st.st_mode) || (allow_pipe && S_ISFIFO(st.st_mode))) return Status::OK();
  const char* kind = S_ISDIR(st.st_mode)    ? "a directory"
                     : S_ISFIFO(st.st_mode) ? "a pipe (FIFO)"
                     : S_ISCHR(st.st_mode)  ? "a character device"
                     : S_ISBLK(st.st_mode)  ? "a block device"
                     : S_ISSOCK(st.st_mode) ? "a socket"
                                            : "not a regular file";
  return Status::InvalidData(path, " is ", kind, "; strata reads text inputs only from regular files",
                             allow_pipe ? " or pipes" : "");
}

class LineReader {
 public:
  ~LineReader() {
    if (f_) std::fclose(f_);
  }
  LineReader() = default;
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;
  /// Open a text input (see check_text_input; `allow_pipe` for files the user named).
  Status open(const std::string& path, bool allow_pipe = false) {
    path_ = path;
    STRATA_RETURN_NOT_OK(check_text_input(path, allow_pipe));
    f_ = std::fopen(path.c_str(), "rb");
    if (!f_) {
      if (errno == ENOENT) return Status::NotFound(path, ": no such file");
      return Status::IOError(path, ": cannot open: ", std::strerror(errno));
    }
    // Replaced by something else between the check and the open.
    struct stat st;
    if (::fstat(::fileno(f_), &st) != 0 || !(S_ISREG(st.st_mode) || (allow_pipe && S_ISFIFO(st.st_mode))))
      return Status::InvalidData(path, ": is not a regular file; strata reads text inputs only from regular files");
    file_bytes_ = S_ISREG(st.st_mode) ? static_cast<int64_t>(st.st_size) : -1;
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
        ended_ = nl != nullptr;
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
  /// The size of a regular file when opened (-1 for a pipe): a hint for reserving.
  int64_t file_bytes() const { return file_bytes_; }
  /// Whether the last line next() returned ended with "\n" (a file cut short mid-line does not).
  bool line_ended() const { return ended_; }
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
    if (len_ >= kMaxTextLineBytes) {
      status_ = Status::InvalidData(path_, " line ", line_no_ + 1, ": longer than ", kMaxTextLineBytes >> 20,
                                    " MiB without a line end; not a text file?");
      return;
    }
    if (len_ == buf_.size()) buf_.resize(std::min(buf_.size() * 2, kMaxTextLineBytes + 1));
    const size_t got = std::fread(buf_.data() + len_, 1, buf_.size() - len_, f_);
    len_ += got;
    if (got == 0) {
      if (std::ferror(f_)) status_ = Status::IOError(path_, ": read failed: ", std::strerror(errno));
      eof_ = true;
    }
  }
  std::string path_;
  std::FILE* f_ = nullptr;
  int64_t file_bytes_ = -1;
  // Not zeroed on growth: fread fills what is read (a zeroed 1 MiB buffer faulted in 256 pages
  // for a 20 KB .fam).
  std::vector<char, DefaultInitAllocator<char>> buf_;
  size_t pos_ = 0, len_ = 0;
  bool eof_ = false, ended_ = true;
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

/// Every space/tab-separated token of `line`.
inline std::vector<std::string_view> split_all(std::string_view line) {
  std::vector<std::string_view> out;
  for (size_t i = 0; i < line.size();) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    const size_t b = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > b) out.push_back(line.substr(b, i - b));
  }
  return out;
}

// Fields between single `sep` characters, empty ones kept (a tab-separated table whose fields
// may be empty); an empty line gives no field.
inline std::vector<std::string_view> split_on(std::string_view line, char sep) {
  std::vector<std::string_view> out;
  if (line.empty()) return out;
  for (size_t b = 0;;) {
    const size_t e = line.find(sep, b);
    out.push_back(line.substr(b, e == std::string_view::npos ? std::string_view::npos : e - b));
    if (e == std::string_view::npos) return out;
    b = e + 1;
  }
}

inline bool is_blank(std::string_view line) {
  for (char c : line)
    if (c != ' ' && c != '\t') return false;
  return true;
}

}  // namespace strata::io::detail
