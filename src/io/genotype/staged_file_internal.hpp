#pragma once
// One file of a fileset being written: staged in an OutputSet (strata/core/output.hpp) under a
// private name and buffered; messages name the final path.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "strata/core/output.hpp"
#include "strata/core/result.hpp"

namespace strata::io::detail {

struct StagedFile {
  std::string final_path;
  std::FILE* f = nullptr;

  StagedFile() = default;
  StagedFile(const StagedFile&) = delete;
  StagedFile& operator=(const StagedFile&) = delete;

  Status open(OutputSet& out, const std::string& path) {
    final_path = path;
    STRATA_ASSIGN_OR_RETURN(std::string staged, out.add_file(path));
    f = std::fopen(staged.c_str(), "wb");
    if (!f) return Status::IOError(path, ": cannot create: ", std::strerror(errno));
    std::setvbuf(f, nullptr, _IOFBF, 1 << 20);
    return Status::OK();
  }
  Status write(const void* data, size_t n) {
    if (n && std::fwrite(data, 1, n, f) != n)
      return Status::IOError(final_path, ": write failed: ", std::strerror(errno));
    return Status::OK();
  }
  Status write(const std::string& s) { return write(s.data(), s.size()); }
  /// Overwrite `n` bytes at `offset` (a header filled in once the records are written).
  Status write_at(int64_t offset, const void* data, size_t n) {
    if (std::fflush(f) != 0 || std::fseek(f, static_cast<long>(offset), SEEK_SET) != 0)
      return Status::IOError(final_path, ": seek failed: ", std::strerror(errno));
    STRATA_RETURN_NOT_OK(write(data, n));
    if (std::fseek(f, 0, SEEK_END) != 0) return Status::IOError(final_path, ": seek failed: ", std::strerror(errno));
    return Status::OK();
  }
  Status close() {
    if (!f) return Status::OK();
    const bool bad = std::fflush(f) != 0 || std::ferror(f);
    const int rc = std::fclose(f);
    f = nullptr;
    if (bad || rc != 0) return Status::IOError(final_path, ": write failed: ", std::strerror(errno));
    return Status::OK();
  }
  ~StagedFile() {
    if (f) std::fclose(f);
  }
};

}  // namespace strata::io::detail
