// LocalStore: a directory on the local file system, one file per key.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sys/random.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <random>
#include <filesystem>
#include <system_error>

#include "io/zarr/store_key_internal.hpp"
#include "strata/io/store.hpp"

namespace strata::io {
namespace {

using detail::check_key;

namespace fs = std::filesystem;

// Temporary files written by set() start with this; list_dir() hides them.
constexpr std::string_view kTempPrefix = ".strata-tmp.";

std::string errno_text(int e) { return std::error_code(e, std::generic_category()).message(); }

Status io_error(const std::string& path, std::string_view what, int e) {
  return Status::IOError(path, ": ", what, ": ", errno_text(e));
}

// Read exactly `n` bytes at `offset`; returns the number read (short only at end of file).
Result<int64_t> pread_full(int fd, uint8_t* dst, int64_t n, int64_t offset, const std::string& path) {
  int64_t done = 0;
  while (done < n) {
    ssize_t r = ::pread(fd, dst + done, static_cast<size_t>(n - done), offset + done);
    if (r < 0) {
      if (errno == EINTR) continue;
      return io_error(path, "read failed", errno);
    }
    if (r == 0) break;
    done += r;
  }
  return done;
}

// Open `path` for reading; -1 with errno ENOENT-like conditions mapped to "missing".
struct OpenResult {
  int fd = -1;
  bool missing = false;
  int64_t size = 0;
};

Status not_regular(const std::string& path, mode_t mode) {
  const char* kind = S_ISFIFO(mode) ? "a FIFO" : S_ISSOCK(mode) ? "a socket" : S_ISCHR(mode) ? "a character device"
                     : S_ISBLK(mode) ? "a block device" : "not a regular file";
  return Status::Corrupt(path, ": is ", kind, ", not a regular file");
}

// Open `path` for reading. Directories (prefixes, not values) and absent paths are "missing";
// anything else that is not a regular file (FIFO, socket, device) is Corrupt, refused before
// it is opened where possible and opened non-blocking otherwise, so a FIFO cannot hang a read.
Result<OpenResult> open_for_read(const std::string& path) {
  OpenResult o;
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) {
      o.missing = true;
      return o;
    }
    return io_error(path, "cannot stat", errno);
  }
  if (S_ISDIR(st.st_mode)) {
    o.missing = true;
    return o;
  }
  if (!S_ISREG(st.st_mode)) return not_regular(path, st.st_mode);
  int fd;
  do {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) {
      o.missing = true;
      return o;
    }
    return io_error(path, "cannot open", errno);
  }
  if (::fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    return io_error(path, "cannot stat", e);
  }
  if (!S_ISREG(st.st_mode)) {  // replaced between stat and open
    ::close(fd);
    if (S_ISDIR(st.st_mode)) {
      o.missing = true;
      return o;
    }
    return not_regular(path, st.st_mode);
  }
  o.fd = fd;
  o.size = static_cast<int64_t>(st.st_size);
  return o;
}

Status too_large(const std::string& path, int64_t size, int64_t max_bytes) {
  return Status::Corrupt(path, ": object of ", size, " bytes exceeds the ", max_bytes,
                         "-byte limit for it (refused before reading)");
}

// An unpredictable suffix for temporary file names (getrandom; never pid-based).
std::string random_suffix() {
  uint64_t r[2] = {0, 0};
  size_t got = 0;
  while (got < sizeof r) {
    ssize_t n = ::getrandom(reinterpret_cast<uint8_t*>(r) + got, sizeof r - got, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    got += static_cast<size_t>(n);
  }
  if (got < sizeof r) {  // no getrandom: fall back to the clock and address-space entropy
    static std::atomic<uint64_t> counter{0};
    std::random_device rd;
    r[0] ^= (uint64_t{rd()} << 32) ^ rd() ^ static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    r[1] ^= (uint64_t{rd()} << 32) ^ rd() ^ counter.fetch_add(1) ^ reinterpret_cast<uintptr_t>(&r);
  }
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(r[0]),
                static_cast<unsigned long long>(r[1]));
  return buf;
}

struct FdCloser {
  int fd;
  ~FdCloser() {
    if (fd >= 0) ::close(fd);
  }
};

Result<Bytes> allocate_bytes(int64_t n, const std::string& path) {
  try {
    return Bytes(static_cast<size_t>(n));
  } catch (const std::exception&) {
    return Status::OutOfMemory(path, ": cannot allocate ", n, " bytes");
  }
}

}  // namespace

// ---- Store defaults ----

Result<std::optional<int64_t>> Store::size(const std::string& key) const {
  STRATA_ASSIGN_OR_RETURN(auto v, get(key));
  if (!v) return std::optional<int64_t>();
  return std::optional<int64_t>(static_cast<int64_t>(v->size()));
}

Result<std::optional<Bytes>> Store::get_at_most(const std::string& key, int64_t max_bytes) const {
  STRATA_ASSIGN_OR_RETURN(auto sz, size(key));
  if (!sz) return std::optional<Bytes>();
  const std::string what = describe() + "/" + key;
  if (*sz > max_bytes) return too_large(what, *sz, max_bytes);
  STRATA_ASSIGN_OR_RETURN(auto v, get(key));
  if (v && static_cast<int64_t>(v->size()) > max_bytes) return too_large(what, static_cast<int64_t>(v->size()), max_bytes);
  return v;
}

std::vector<Result<std::optional<Bytes>>> Store::get_many(const std::vector<std::string>& keys,
                                                          int64_t max_bytes) const {
  std::vector<Result<std::optional<Bytes>>> out;
  out.reserve(keys.size());
  for (const auto& k : keys) out.push_back(get_at_most(k, max_bytes));
  return out;
}

Status Store::erase_prefix(const std::string& prefix) {
  if (!prefix.empty()) STRATA_RETURN_NOT_OK(erase(prefix));
  STRATA_ASSIGN_OR_RETURN(auto children, list_dir(prefix));
  for (const auto& c : children) {
    STRATA_RETURN_NOT_OK(erase_prefix(prefix.empty() ? c : prefix + "/" + c));
  }
  return Status::OK();
}

// ---- LocalStore ----

Result<std::shared_ptr<LocalStore>> LocalStore::open(const std::string& root, bool create) {
  if (root.empty()) return Status::Invalid("empty store path");
  std::string r = root;
  while (r.size() > 1 && r.back() == '/') r.pop_back();
  std::error_code ec;
  if (create) {
    fs::create_directories(r, ec);
    if (ec) return Status::IOError(r, ": cannot create directory: ", ec.message());
  }
  struct stat st;
  if (::stat(r.c_str(), &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) return Status::NotFound(r, ": no such directory");
    return io_error(r, "cannot stat", errno);
  }
  if (!S_ISDIR(st.st_mode)) return Status::Invalid(r, ": not a directory");
  return std::shared_ptr<LocalStore>(new LocalStore(std::move(r)));
}

std::string LocalStore::path_of(const std::string& key) const {
  return key.empty() ? root_ : root_ + "/" + key;
}

Result<std::optional<Bytes>> LocalStore::get(const std::string& key) const {
  STRATA_RETURN_NOT_OK(check_key(key, false));
  const std::string path = path_of(key);
  STRATA_ASSIGN_OR_RETURN(OpenResult o, open_for_read(path));
  if (o.missing) return std::optional<Bytes>();
  FdCloser closer{o.fd};
  STRATA_ASSIGN_OR_RETURN(Bytes out, allocate_bytes(o.size, path));
  STRATA_ASSIGN_OR_RETURN(int64_t got, pread_full(o.fd, out.data(), o.size, 0, path));
  out.resize(static_cast<size_t>(got));  // a concurrent truncation just shortens the value
  return std::optional<Bytes>(std::move(out));
}

Result<std::optional<Bytes>> LocalStore::get_at_most(const std::string& key, int64_t max_bytes) const {
  STRATA_RETURN_NOT_OK(check_key(key, false));
  const std::string path = path_of(key);
  STRATA_ASSIGN_OR_RETURN(OpenResult o, open_for_read(path));
  if (o.missing) return std::optional<Bytes>();
  FdCloser closer{o.fd};
  if (o.size > max_bytes) return too_large(path, o.size, max_bytes);
  STRATA_ASSIGN_OR_RETURN(Bytes out, allocate_bytes(o.size, path));
  STRATA_ASSIGN_OR_RETURN(int64_t got, pread_full(o.fd, out.data(), o.size, 0, path));
  out.resize(static_cast<size_t>(got));
  return std::optional<Bytes>(std::move(out));
}

Result<std::optional<Bytes>> LocalStore::get_range(const std::string& key, int64_t offset,
                                                   int64_t length) const {
  STRATA_RETURN_NOT_OK(check_key(key, false));
  const std::string path = path_of(key);
  STRATA_ASSIGN_OR_RETURN(OpenResult o, open_for_read(path));
  if (o.missing) return std::optional<Bytes>();
  FdCloser closer{o.fd};
  int64_t start = offset < 0 ? o.size + offset : offset;
  if (start < 0 || start > o.size)
    return Status::Corrupt(path, ": range at offset ", offset, " lies outside the ", o.size,
                           "-byte object");
  int64_t n = length < 0 ? o.size - start : length;
  if (n > o.size - start)
    return Status::Corrupt(path, ": range of ", n, " bytes at offset ", start, " runs past the end of the ",
                           o.size, "-byte object");
  STRATA_ASSIGN_OR_RETURN(Bytes out, allocate_bytes(n, path));
  STRATA_ASSIGN_OR_RETURN(int64_t got, pread_full(o.fd, out.data(), n, start, path));
  if (got != n) return Status::Corrupt(path, ": short read (", got, " of ", n, " bytes)");
  return std::optional<Bytes>(std::move(out));
}

Status LocalStore::set(const std::string& key, std::span<const uint8_t> value) {
  STRATA_RETURN_NOT_OK(check_key(key, false));
  const std::string path = path_of(key);
  const fs::path parent = fs::path(path).parent_path();
  std::error_code ec;
  fs::create_directories(parent, ec);
  if (ec) return Status::IOError(parent.string(), ": cannot create directory: ", ec.message());

  // An unpredictable name in the same directory (so rename is atomic), created exclusively and
  // without following symlinks: a pre-planted file or symlink cannot redirect the write.
  std::string tmp;
  int fd = -1;
  for (int attempt = 0; fd < 0 && attempt < 8; ++attempt) {
    tmp = (parent / str_cat(kTempPrefix, random_suffix())).string();
    do {
      fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) return io_error(tmp, "cannot create temporary file", errno);

  size_t done = 0;
  while (done < value.size()) {
    ssize_t w = ::write(fd, value.data() + done, value.size() - done);
    if (w < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      return io_error(path, "write failed", e);
    }
    done += static_cast<size_t>(w);
  }
  if (::close(fd) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    return io_error(path, "write failed", e);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    return io_error(path, "cannot rename temporary file into place", e);
  }
  return Status::OK();
}

Status LocalStore::erase(const std::string& key) {
  STRATA_RETURN_NOT_OK(check_key(key, false));
  const std::string path = path_of(key);
  if (::unlink(path.c_str()) != 0) {
    // Missing keys and directories (prefixes, not keys) are not errors.
    if (errno == ENOENT || errno == ENOTDIR || errno == EISDIR) return Status::OK();
    return io_error(path, "cannot remove", errno);
  }
  return Status::OK();
}

Status LocalStore::erase_prefix(const std::string& prefix) {
  STRATA_RETURN_NOT_OK(check_key(prefix, true));
  std::error_code ec;
  if (!prefix.empty()) {
    fs::remove_all(path_of(prefix), ec);
    if (ec) return Status::IOError(path_of(prefix), ": cannot remove: ", ec.message());
    return Status::OK();
  }
  // The root directory itself stays: remove what is inside it.
  for (fs::directory_iterator it(root_, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code rec;
    fs::remove_all(it->path(), rec);
    if (rec) return Status::IOError(it->path().string(), ": cannot remove: ", rec.message());
  }
  if (ec) return Status::IOError(root_, ": cannot list: ", ec.message());
  return Status::OK();
}

Result<bool> LocalStore::exists(const std::string& key) const {
  STRATA_ASSIGN_OR_RETURN(auto sz, size(key));
  return sz.has_value();
}

Result<std::optional<int64_t>> LocalStore::size(const std::string& key) const {
  STRATA_RETURN_NOT_OK(check_key(key, false));
  const std::string path = path_of(key);
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) return std::optional<int64_t>();
    return io_error(path, "cannot stat", errno);
  }
  if (S_ISDIR(st.st_mode)) return std::optional<int64_t>();  // a prefix, not a value
  if (!S_ISREG(st.st_mode)) return not_regular(path, st.st_mode);
  return std::optional<int64_t>(static_cast<int64_t>(st.st_size));
}

Result<std::vector<std::string>> LocalStore::list_dir(const std::string& prefix) const {
  STRATA_RETURN_NOT_OK(check_key(prefix, true));
  const std::string path = path_of(prefix);
  std::vector<std::string> out;
  DIR* d = ::opendir(path.c_str());
  if (!d) {
    if (errno == ENOENT || errno == ENOTDIR) return out;
    return io_error(path, "cannot list directory", errno);
  }
  errno = 0;
  while (struct dirent* e = ::readdir(d)) {
    std::string_view name(e->d_name);
    if (name == "." || name == ".." || name.starts_with(kTempPrefix)) continue;
    out.emplace_back(name);
  }
  int e = errno;
  ::closedir(d);
  if (e != 0) return io_error(path, "cannot list directory", e);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace strata::io
