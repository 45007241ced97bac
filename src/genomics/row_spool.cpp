// RowSpool (genomics/row_spool.hpp): tile-row parts in memory up to a cap, the rest in an
// unlinked file read back a group of rows at a time.
#include "genomics/row_spool.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace strata::genomics::detail {

RowSpool::RowSpool(std::string dir, int64_t cap) : dir_(std::move(dir)), cap_(std::max<int64_t>(cap, 1)) {}

RowSpool::~RowSpool() {
  if (fd_ >= 0) ::close(fd_);
}

Status RowSpool::add(int64_t tile_row, std::string text, std::vector<uint32_t> ends) {
  if (text.empty()) return Status::OK();  // nothing kept from this tile (a filtered table)
  held_ += static_cast<int64_t>(text.size());
  rows_[tile_row].push_back(Part{std::move(text), std::move(ends), -1});
  return held_ > cap_ ? spill() : Status::OK();
}

Status RowSpool::spill() {
  if (fd_ < 0) {
    // Unlinked at once: the file goes away with the process, whatever happens.
    const std::string dir = dir_.empty() ? std::string(".") : dir_;
    std::string path = dir + "/pair-spool-XXXXXX";  // mkostemp replaces the six X with a unique suffix
    fd_ = ::mkostemp(path.data(), O_CLOEXEC);
    if (fd_ < 0) return Status::IOError("cannot create a spill file in ", dir, ": ", std::strerror(errno));
    ::unlink(path.c_str());
  }
  for (auto& [tile_row, parts] : rows_)
    for (Part& p : parts) {
      if (p.offset >= 0) continue;
      const char* data = p.text.data();
      int64_t left = static_cast<int64_t>(p.text.size()), at = file_size_;
      while (left > 0) {
        const ssize_t w = ::pwrite(fd_, data, static_cast<size_t>(left), static_cast<off_t>(at));
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return Status::IOError("cannot write the spill file in ", dir_.empty() ? "." : dir_, " (disk full?)");
        data += w, at += w, left -= w;
      }
      p.offset = file_size_;
      file_size_ = at;
      std::string().swap(p.text);
    }
  held_ = 0;
  return Status::OK();
}

Status RowSpool::read_at(int64_t offset, int64_t bytes, char* out) const {
  while (bytes > 0) {
    const ssize_t r = ::pread(fd_, out, static_cast<size_t>(bytes), static_cast<off_t>(offset));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return Status::IOError("cannot read back the spill file in ", dir_);
    out += r, offset += r, bytes -= r;
  }
  return Status::OK();
}

Status RowSpool::emit(int64_t tile_row, TextWriter& w) {
  const auto it = rows_.find(tile_row);
  if (it == rows_.end()) return Status::OK();
  std::vector<Part> parts = std::move(it->second);
  rows_.erase(it);
  const int64_t rows = static_cast<int64_t>(parts.front().ends.size());
  auto begin = [](const Part& p, int64_t r) -> int64_t { return r == 0 ? 0 : p.ends[static_cast<size_t>(r - 1)]; };
  std::string buf;
  std::vector<int64_t> at(parts.size());  // where each spilled part's group starts in buf
  for (int64_t r0 = 0; r0 < rows;) {
    // A group of rows whose spilled bytes fit the cap (at least one row).
    int64_t r1 = r0, bytes = 0;
    while (r1 < rows) {
      int64_t next = 0;
      for (const Part& p : parts)
        if (p.offset >= 0) next += p.ends[static_cast<size_t>(r1)] - begin(p, r1);
      if (r1 > r0 && bytes + next > cap_) break;
      bytes += next;
      ++r1;
    }
    buf.resize(static_cast<size_t>(bytes));
    int64_t pos = 0;
    for (size_t k = 0; k < parts.size(); ++k) {
      const Part& p = parts[k];
      if (p.offset < 0) continue;
      const int64_t b = begin(p, r0), e = p.ends[static_cast<size_t>(r1 - 1)];
      STRATA_RETURN_NOT_OK(read_at(p.offset + b, e - b, buf.data() + pos));
      at[k] = pos - b;
      pos += e - b;
    }
    for (int64_t r = r0; r < r1; ++r) {
      for (size_t k = 0; k < parts.size(); ++k) {
        const Part& p = parts[k];
        const int64_t b = begin(p, r), e = p.ends[static_cast<size_t>(r)];
        const char* src = p.offset < 0 ? p.text.data() + b : buf.data() + at[k] + b;
        w.put(std::string_view(src, static_cast<size_t>(e - b)));
      }
      STRATA_RETURN_NOT_OK(w.maybe_flush());
    }
    r0 = r1;
  }
  for (const Part& p : parts)
    if (p.offset < 0) held_ -= static_cast<int64_t>(p.text.size());
  return Status::OK();
}

}  // namespace strata::genomics::detail
