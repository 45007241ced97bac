#pragma once
/// \file
/// NumPy `.npy` files (format versions 1.0–3.0), read and written in row slabs so arrays
/// larger than memory can be imported into or exported from Zarr.

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "strata/core/dtype.hpp"
#include "strata/core/output.hpp"
#include "strata/core/result.hpp"
#include "strata/core/shape.hpp"

namespace strata::io {

/// \brief The parsed header of a `.npy` file.
struct NpyHeader {
  DType dtype;               ///< stored dtype (may be big-endian)
  Shape shape;
  bool fortran_order = false;
  int64_t data_offset = 0;   ///< byte offset of the first element
};

/// \brief Sequential reader of a C-order `.npy` file.
class NpyReader {
 public:
  /// \brief Open and parse the header. Fortran-order files are Unsupported (message says how
  /// to convert); malformed headers and short files are Corrupt, naming the file.
  static Result<NpyReader> open(const std::string& path);
  NpyReader(NpyReader&&) noexcept;
  NpyReader& operator=(NpyReader&&) noexcept;
  ~NpyReader();

  const NpyHeader& header() const { return header_; }
  /// \brief Read the next `count` elements into `out` in host byte order.
  Status read(void* out, int64_t count);

 private:
  NpyReader() = default;
  std::string path_;
  NpyHeader header_;
  std::FILE* file_ = nullptr;
};

/// \brief Writer of a C-order `.npy` file (version 1.0, or 2.0 for very long headers).
/// Data goes to a temporary file renamed into place by finish(), so an interrupted export never
/// leaves a file that looks complete.
class NpyWriter {
 public:
  /// \brief Start `path` (written privately, moved into place by finish(); an existing file
  /// there is replaced, never an input named in `rules`).
  static Result<NpyWriter> create(const std::string& path, DType dtype, const Shape& shape,
                                  OutputRules rules = {});
  NpyWriter(NpyWriter&&) noexcept;
  NpyWriter& operator=(NpyWriter&&) noexcept;
  /// Removes the staged file if finish() was not reached.
  ~NpyWriter();

  /// \brief Append `count` elements (host byte order) from `data`.
  Status write(const void* data, int64_t count);
  /// \brief Check that exactly numel elements were written, flush, and rename into place.
  Status finish();

 private:
  NpyWriter() = default;
  std::string path_, tmp_path_;
  std::unique_ptr<AtomicFile> out_;
  DType dtype_;
  int64_t expected_ = 0, written_ = 0;
  std::FILE* file_ = nullptr;
};

}  // namespace strata::io
