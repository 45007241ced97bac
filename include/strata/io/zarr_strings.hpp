#pragma once
/// \file
/// Zarr v2 string arrays: `|O` with the numcodecs vlen-utf8 (or vlen-bytes) filter, fixed-width
/// bytes `|S<n>` and fixed-width UCS-4 `<U<n>` / `>U<n>`. ZarrArray holds fixed-size numeric
/// elements only, so strings have their own reader and writer over the same Store. Arrays are
/// 1-D or 2-D, C order. Strings are UTF-8 in memory (vlen-bytes and `|S` give the stored bytes);
/// fixed-width values lose trailing NULs, as numpy does; missing chunks read as "".
///
/// \code
/// STRATA_ASSIGN_OR_RETURN(auto ids, io::ZarrStringArray::open(store, "sample_id"));
/// STRATA_ASSIGN_OR_RETURN(std::vector<std::string> names, ids.read_rows(0, ids.shape()[0]));
/// \endcode

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "strata/core/result.hpp"
#include "strata/core/shape.hpp"
#include "strata/io/codec.hpp"
#include "strata/io/store.hpp"
#include "strata/io/zarr.hpp"

namespace strata::io {

/// \brief Whether the array at `path` stores strings (`|O`, `|S<n>`, `<U<n>`), from its
/// metadata alone. False for numeric arrays, groups, missing nodes and v3 arrays.
Result<bool> is_zarr_string_array(const std::shared_ptr<Store>& store, const std::string& path);

/// \brief A string array opened for reading. Cheap to copy; thread-safe for reads.
class ZarrStringArray {
 public:
  ZarrStringArray();
  ~ZarrStringArray();
  ZarrStringArray(const ZarrStringArray&);
  ZarrStringArray& operator=(const ZarrStringArray&);
  ZarrStringArray(ZarrStringArray&&) noexcept;
  ZarrStringArray& operator=(ZarrStringArray&&) noexcept;

  /// \brief Open the v2 array at `path`. A numeric array is Invalid; object arrays with other
  /// object codecs (json, msgpack, pickle) and v3 arrays are Unsupported.
  static Result<ZarrStringArray> open(std::shared_ptr<Store> store, const std::string& path);

  /// "store/path", for messages.
  std::string describe() const;
  const Shape& shape() const;
  /// Values per row: shape[1] for 2-D arrays, 1 for 1-D.
  int64_t columns() const;
  const ChunkGrid& chunk_grid() const;
  /// The dtype as stored, e.g. "|O", "|S8", "<U4".
  const std::string& dtype() const;
  /// Filter and compressor, e.g. "vlen-utf8, blosc(zstd, 7, noshuffle)".
  std::string codecs_description() const;
  /// \brief Store key of the chunk at `index`.
  std::string chunk_key(const Shape& chunk_index) const;

  /// \brief Rows [start, start + count), all columns, row-major (count × columns values).
  Result<std::vector<std::string>> read_rows(int64_t start, int64_t count) const;
  /// \brief Read-ahead hint for read_rows(start, count) (Store::prefetch, at most
  /// `window_bytes` ahead); out-of-range rows are ignored.
  void prefetch_rows(int64_t start, int64_t count, int64_t window_bytes) const;
  /// \brief One chunk at its full chunk shape (edge padding included), C order. Returns
  /// whether it was stored (false = all "").
  Result<bool> read_chunk(const Shape& chunk_index, std::vector<std::string>& out) const;

  /// \brief Stored chunk objects and their bytes, found by listing the store.
  Result<ZarrArray::StorageInfo> storage_info() const;
  /// \brief Decode every stored chunk; report missing and corrupt ones as ZarrArray::verify().
  Result<ZarrArray::VerifyReport> verify() const;

  struct Impl;

 private:
  std::shared_ptr<const Impl> impl_;
};

/// \brief Options for writing a string array.
struct ZarrStringCreateOptions {
  /// "|O" (vlen-utf8), "|S<n>" (bytes, at most n each) or "<U<n>" (at most n characters each).
  std::string dtype = "|O";
  int64_t chunk_rows = 1;  ///< chunk length along axis 0 (a chunk holds every column)
  int64_t columns = 0;     ///< 0 = a 1-D array; else the length of axis 1
  /// The `_ARRAY_DIMENSIONS` attribute when non-empty.
  std::vector<std::string> dimension_names;
  std::shared_ptr<const BytesCodec> compressor;  ///< nullptr = none
  bool empty_fill = false;  ///< fill_value "" (numpy's default for str arrays) instead of null
};

/// \brief Writes a v2 string array chunk by chunk along axis 0. The length of axis 0 is fixed
/// by finish(), which writes the metadata, so the array can grow while streaming.
class ZarrStringWriter {
 public:
  static Result<ZarrStringWriter> create(std::shared_ptr<Store> store, const std::string& path,
                                         ZarrStringCreateOptions options);
  /// \brief Write rows [start, start + values.size() / columns). `start` must be a multiple of
  /// chunk_rows, and the row count too unless these are the last rows.
  Status write_rows(int64_t start, const std::vector<std::string>& values) const;
  /// \brief Write `.zarray` and `.zattrs` for `rows` rows.
  Status finish(int64_t rows) const;

 private:
  std::shared_ptr<Store> store_;
  std::string path_, description_;
  ZarrStringCreateOptions options_;
  int64_t width_ = 0;  // fixed-width dtypes: bytes (S) or characters (U); 0 = vlen
  bool ucs4_ = false;
};

/// \brief Write `values` as a 1-D `|O` vlen-utf8 array in one chunk, with its metadata.
Status write_zarr_strings(const std::shared_ptr<Store>& store, const std::string& path,
                          const std::vector<std::string>& values, const std::string& dimension_name,
                          std::shared_ptr<const BytesCodec> compressor = nullptr, bool empty_fill = false);

}  // namespace strata::io
