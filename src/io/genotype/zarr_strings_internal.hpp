#pragma once
// Zarr v2 string arrays (VCF Zarr `sample_id`, `variant_id`, `variant_allele`, `contig_id`, and
// the scikit-allel `samples`, `variants/*`). ZarrArray handles numeric dtypes only, so these
// are read and written here on the Store: `|O` with the vlen-utf8 (or vlen-bytes) filter, and
// fixed-width `|S<n>` and `<U<n>`. Arrays are 1-D or 2-D, C order, chunked along axis 0 only
// on write.

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

#include "strata/core/result.hpp"
#include "strata/core/shape.hpp"
#include "strata/io/store.hpp"

namespace strata::io::detail {

/// A string array opened for reading.
class StringArray {
 public:
  /// Open `path` (a node with .zarray) and check its dtype is a string type.
  static Result<StringArray> open(std::shared_ptr<Store> store, const std::string& path);
  const Shape& shape() const { return shape_; }
  /// Rows [start, start + count) (all columns), row-major: count × columns values.
  Result<std::vector<std::string>> read_rows(int64_t start, int64_t count) const;
  int64_t columns() const { return shape_.size() > 1 ? shape_[1] : 1; }

 private:
  Result<std::vector<std::string>> decode_chunk(const Shape& index) const;
  std::shared_ptr<Store> store_;
  std::string path_;
  Shape shape_, chunks_;
  nlohmann::json compressor_;
  char separator_ = '.';
  enum class Kind { VlenUtf8, VlenBytes, FixedBytes, FixedUcs4 } kind_ = Kind::VlenUtf8;
  int64_t width_ = 0;  // fixed-width types: bytes (S) or characters (U) per item
  bool big_endian_ = false;
};

/// Writes a `|O` vlen-utf8 array chunk by chunk along axis 0; the shape's length along axis 0
/// is fixed by finish(), so the array can grow while streaming.
class StringArrayWriter {
 public:
  /// `columns` = 0 for a 1-D array. `dims` become `_ARRAY_DIMENSIONS`.
  static Result<StringArrayWriter> create(std::shared_ptr<Store> store, const std::string& path,
                                          int64_t chunk_rows, int64_t columns,
                                          std::vector<std::string> dims,
                                          nlohmann::json compressor);
  /// Write rows [start, start + values.size() / columns); start must be a multiple of
  /// chunk_rows, and the count too unless this is the last write.
  Status write_rows(int64_t start, const std::vector<std::string>& values) const;
  /// Write `.zarray` / `.zattrs` for `rows` rows.
  Status finish(int64_t rows) const;

 private:
  std::shared_ptr<Store> store_;
  std::string path_;
  int64_t chunk_rows_ = 1, columns_ = 0;
  std::vector<std::string> dims_;
  nlohmann::json compressor_;
};

/// Encode/decode the numcodecs vlen-utf8 layout (u32 count, then u32 length + bytes each).
Bytes encode_vlen(const std::vector<std::string>& items, size_t first, size_t count);
Result<std::vector<std::string>> decode_vlen(std::span<const uint8_t> data, int64_t expected,
                                             const std::string& what);

/// Set axis 0 of the v2 array at `path` to `length` (arrays created while streaming).
Status set_v2_length(Store& store, const std::string& path, int64_t length);

}  // namespace strata::io::detail
