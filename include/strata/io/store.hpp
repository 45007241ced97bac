#pragma once
/// \file
/// Key-value stores holding Zarr hierarchies. Keys are '/'-separated relative paths
/// ("a/b/.zarray", "a/b/c/0/1").

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "strata/core/buffer.hpp"
#include "strata/core/result.hpp"

namespace strata::io {

class Store {
 public:
  virtual ~Store() = default;

  /// \brief Value of `key`, or std::nullopt when the key does not exist.
  virtual Result<std::optional<Bytes>> get(const std::string& key) const = 0;

  /// \brief `length` bytes at `offset` (offset < 0 counts from the end, length < 0 = to end),
  /// or nullopt when the key is missing. Reading past the end is Corrupt.
  virtual Result<std::optional<Bytes>> get_range(const std::string& key, int64_t offset,
                                                 int64_t length) const = 0;

  /// \brief Store `value` under `key` atomically: readers see the old value or the new one,
  /// never a partial write (temporary file + rename for directories).
  virtual Status set(const std::string& key, std::span<const uint8_t> value) = 0;

  /// \brief Remove a key (missing keys are fine).
  virtual Status erase(const std::string& key) = 0;

  /// \brief Whether `key` exists.
  virtual Result<bool> exists(const std::string& key) const = 0;

  /// \brief Names of the immediate children (files and directories) of `prefix` ("" = root),
  /// sorted. A missing prefix gives an empty list.
  virtual Result<std::vector<std::string>> list_dir(const std::string& prefix) const = 0;

  /// \brief Where the store lives, for error messages (a directory path).
  virtual std::string describe() const = 0;

  /// \brief Like get(), but a value larger than `max_bytes` is Corrupt, refused before it is
  /// read (callers bound metadata documents and chunks by what they could legitimately hold).
  /// The default asks size() first.
  virtual Result<std::optional<Bytes>> get_at_most(const std::string& key, int64_t max_bytes) const;

  /// \brief Size in bytes of the value at `key`, or nullopt when the key does not exist.
  /// The default reads the value; stores override it with a cheaper query (stat, HEAD).
  virtual Result<std::optional<int64_t>> size(const std::string& key) const;

  /// \brief Remove `prefix` itself and every key below it ("" = the whole store). Missing
  /// prefixes are fine. The default walks list_dir() and erases key by key.
  virtual Status erase_prefix(const std::string& prefix);

  /// \brief get_at_most() of several keys, one result per key. Remote stores have up to
  /// concurrency() requests in flight; the default reads one after another.
  virtual std::vector<Result<std::optional<Bytes>>> get_many(const std::vector<std::string>& keys,
                                                             int64_t max_bytes) const;

  /// \brief Read-ahead hint: `keys` will be read soon (get_at_most / get_many with
  /// `max_bytes`). Remote read views fetch them in the background and hold them until read,
  /// with at most `window_bytes` held or in flight; elsewhere (local files) nothing happens.
  /// Never blocks on I/O and never changes what a read returns.
  virtual void prefetch(const std::vector<std::string>& keys, int64_t max_bytes, int64_t window_bytes) const {
    (void)keys, (void)max_bytes, (void)window_bytes;
  }

  /// \brief How many reads are worth having in flight at once: 1 where a read costs little
  /// besides its bytes (local files), more where each waits on a network round trip.
  virtual int concurrency() const { return 1; }

  /// \brief Whether list_dir() can enumerate chunks (false for plain HTTP: verify and info then
  /// probe every key of the chunk grid, and an absent key is a missing chunk).
  virtual bool can_list() const { return true; }
};

/// \brief A directory on the local file system. Only regular files (or symlinks to them) are
/// values: reads open with O_NONBLOCK and refuse FIFOs, sockets and devices (Corrupt) instead of
/// blocking on them; directories are prefixes. Writes go through a temporary file with an
/// unpredictable name created with O_EXCL|O_NOFOLLOW, renamed into place.
class LocalStore : public Store {
 public:
  /// \brief Open the directory `root`; with `create` it is made (with parents) if absent.
  static Result<std::shared_ptr<LocalStore>> open(const std::string& root, bool create = false);

  Result<std::optional<Bytes>> get(const std::string& key) const override;
  Result<std::optional<Bytes>> get_at_most(const std::string& key, int64_t max_bytes) const override;
  Result<std::optional<Bytes>> get_range(const std::string& key, int64_t offset,
                                         int64_t length) const override;
  Status set(const std::string& key, std::span<const uint8_t> value) override;
  Status erase(const std::string& key) override;
  Result<bool> exists(const std::string& key) const override;
  Result<std::vector<std::string>> list_dir(const std::string& prefix) const override;
  std::string describe() const override { return root_; }
  Result<std::optional<int64_t>> size(const std::string& key) const override;
  Status erase_prefix(const std::string& prefix) override;
  const std::string& root() const { return root_; }

 private:
  explicit LocalStore(std::string root) : root_(std::move(root)) {}
  std::string path_of(const std::string& key) const;
  std::string root_;
};

}  // namespace strata::io
