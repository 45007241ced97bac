#pragma once
/// \file
/// Shapes, overflow-checked size arithmetic, and the regular chunk grid.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "strata/core/result.hpp"

namespace strata {

/// Extents of an n-d array, outermost first (C order). Every size in strata is int64_t.
using Shape = std::vector<int64_t>;

/// \brief a*b, or Invalid on overflow/negative operands.
Result<int64_t> checked_mul(int64_t a, int64_t b);
/// \brief a+b, or Invalid on overflow.
Result<int64_t> checked_add(int64_t a, int64_t b);
/// \brief Product of all extents (1 for a 0-d shape), overflow-checked.
Result<int64_t> shape_numel(const Shape& shape);
/// \brief ceil(a / b) for a >= 0, b > 0.
constexpr int64_t ceil_div(int64_t a, int64_t b) {
  return a > 0 ? a / b + (a % b != 0 ? 1 : 0) : (a + b - 1) / b;  // no overflow near INT64_MAX
}
/// \brief "[3, 4, 5]".
std::string shape_to_string(const Shape& shape);
/// \brief Parse "1000,1000" into a shape; every entry must be a positive integer.
Result<Shape> parse_shape(std::string_view text);
/// \brief C-order strides (in elements) of a dense array of `shape`.
Shape c_strides(const Shape& shape);

/// \brief A regular grid of chunks over an array; edge chunks are clipped to the array.
class ChunkGrid {
 public:
  ChunkGrid() = default;
  /// \brief Validate (same rank, chunk extents >= 1, shape >= 0, sizes fit int64) and build.
  static Result<ChunkGrid> make(Shape shape, Shape chunk_shape);

  int64_t ndim() const { return static_cast<int64_t>(shape_.size()); }
  const Shape& shape() const { return shape_; }
  const Shape& chunk_shape() const { return chunk_; }
  /// Number of chunks along each axis.
  const Shape& grid_shape() const { return grid_; }
  int64_t num_chunks() const { return num_chunks_; }
  /// Elements in one full (unclipped) chunk.
  int64_t chunk_numel() const { return chunk_numel_; }

  /// First element of the chunk at `index`.
  Shape chunk_origin(const Shape& index) const;
  /// Extent of the chunk at `index`, clipped at the array edge.
  Shape chunk_extent(const Shape& index) const;
  /// Linear (C-order) index of a chunk, and back.
  int64_t ravel(const Shape& index) const;
  Shape unravel(int64_t linear) const;

  /// \brief Call `fn(chunk_index)` for every chunk overlapping the box [start, start+count),
  /// in C order. Empty boxes visit nothing.
  void for_each_chunk_in(const Shape& start, const Shape& count,
                         const std::function<void(const Shape&)>& fn) const;
  /// \brief The chunk indices overlapping the box, in C order.
  std::vector<Shape> chunks_in(const Shape& start, const Shape& count) const;

 private:
  Shape shape_, chunk_, grid_;
  int64_t num_chunks_ = 1;
  int64_t chunk_numel_ = 1;
};

/// \brief Copy an n-d box between two dense C-order arrays of element size `itemsize`.
/// Copies the box of extent `count` starting at `src_start` in the source (shape `src_shape`)
/// to `dst_start` in the destination (shape `dst_shape`). Each contiguous run is one memcpy:
/// trailing axes covered whole in both arrays are merged with the axis before them, so a
/// full-array copy is a single memcpy.
void copy_box(const void* src, const Shape& src_shape, const Shape& src_start, void* dst,
              const Shape& dst_shape, const Shape& dst_start, const Shape& count, int64_t itemsize);

}  // namespace strata
