#pragma once
/// \file
/// strata::Array — an immutable, lazy, chunked n-d array.
///
/// An Array is a cheap handle to a node of an expression graph: a source (host memory, Zarr,
/// counter-based random, persisted blocks) or an operation on other arrays (ops.hpp). Nothing
/// is computed until a pass asks for blocks (`compute`, `persist`, `to_zarr`, `for_each_block`,
/// see strata/exec). Every node can produce any strided box of its values, which is how slicing
/// reaches the sources: a random source generates only the elements a slice keeps and a Zarr
/// source reads only the chunks the slice touches.
///
/// Errors are deferred: an invalid operation (mismatched shapes, bad axis, ...) returns an Array
/// whose `status()` is the error, every later operation on it keeps that error, and computing it
/// returns it. This keeps expressions readable (`(x + 1).slice(...)`) without losing a Status.
///
/// \code
/// using namespace strata;
/// Array x = Array::random_normal({40000, 40000}, {10000, 10000}, 10.0, 1.0, /*seed=*/0);
/// Array y = sum((x + 1).slice({Slice::every(2), Slice::every(2)}));
/// STRATA_ASSIGN_OR_RETURN(HostArray r, compute(y));   // strata/exec/run.hpp
/// double total = r.value_as_double(0);
/// \endcode

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "strata/array/host_array.hpp"
#include "strata/core/dtype.hpp"
#include "strata/core/result.hpp"
#include "strata/core/shape.hpp"

namespace strata {

namespace io {
class ZarrArray;
}
namespace detail {
class Node;
}

/// \brief One axis of a numpy-style basic slice `start:stop:step` (negative indices count from
/// the end; missing start/stop mean "from the beginning/to the end" in the step's direction).
struct Slice {
  std::optional<int64_t> start, stop;
  int64_t step = 1;
  /// `:` (the whole axis).
  static Slice all() { return {}; }
  /// `::step`.
  static Slice every(int64_t step) { return {std::nullopt, std::nullopt, step}; }
  /// `start:stop`.
  static Slice range(int64_t start, int64_t stop, int64_t step = 1) { return {start, stop, step}; }
};

/// \brief Lazy chunked n-d array handle (see the file comment).
class Array {
 public:
  /// An array in the error state "empty Array".
  Array();
  /// A 0-d "weak" scalar (numpy's rule for Python scalars: it adopts the other operand's kind
  /// and size where it can, e.g. int8_array + 1 stays int8, float32_array * 2.0 stays float32).
  template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  Array(T value)  // NOLINT(implicit)
      : Array(make_scalar(static_cast<double>(value),
                          std::is_integral_v<T> ? static_cast<int64_t>(value) : 0, scalar_kind<T>())) {}

  // ---- sources -------------------------------------------------------------------------------
  /// \brief Wrap a host array; `chunks` empty = one chunk per ~16 MiB of leading rows.
  static Array from_host(HostArray data, Shape chunks = {});
  /// \brief Uniform [0, 1) (float64: 53 random bits; float32: 24 bits).
  static Array random_uniform(Shape shape, Shape chunks, uint64_t seed,
                              DType dtype = DType(ScalarType::Float64), uint64_t stream = 0);
  /// \brief Normal(mean, sd): the ziggurat on element e's word (float64 math; float32 = rounded).
  static Array random_normal(Shape shape, Shape chunks, double mean, double sd, uint64_t seed,
                             DType dtype = DType(ScalarType::Float64), uint64_t stream = 0);
  /// \brief Integers in [low, high), int64, by 64-bit multiply-shift (bias <= (high-low)/2^64).
  static Array random_integers(Shape shape, Shape chunks, int64_t low, int64_t high, uint64_t seed,
                               uint64_t stream = 0);
  /// \brief Every element equal to `value` (converted to `dtype`).
  static Array full(Shape shape, Shape chunks, double value, DType dtype = DType(ScalarType::Float64));
  /// \brief A Zarr array (read lazily, chunk by chunk; chunks = the Zarr read chunks).
  static Array from_zarr(const io::ZarrArray& zarr);

  // ---- properties ----------------------------------------------------------------------------
  bool ok() const { return node_ != nullptr; }
  /// OK, or the deferred error of this array.
  const Status& status() const;
  /// \brief This array, or its deferred error.
  Result<Array> checked() const;
  const Shape& shape() const;
  DType dtype() const;
  int64_t ndim() const { return static_cast<int64_t>(shape().size()); }
  int64_t numel() const;
  /// Chunk (block) shape: the natural unit of a pass over this array.
  const Shape& chunks() const;
  /// \brief The chunk grid (shape and chunks).
  ChunkGrid chunk_grid() const;
  /// \brief A one-line-per-node description of the expression graph.
  std::string describe() const;

  // ---- method sugar for ops.hpp ----------------------------------------------------------------
  /// \brief Basic slicing; fewer slices than axes leaves the remaining axes whole.
  Array slice(const std::vector<Slice>& slices) const;
  Array astype(DType dtype) const;
  /// \brief Same values, different chunks (a pass over the result uses the new blocks).
  Array rechunk(Shape chunks) const;

  /// \brief Internal: the node (null in the error state).
  const std::shared_ptr<const detail::Node>& node() const { return node_; }
  /// \brief Internal: wrap a node / an error.
  static Array from_node(std::shared_ptr<const detail::Node> node);
  static Array from_error(Status status);

 private:
  enum class ScalarKind { Bool, Int, Float };
  template <class T> static constexpr ScalarKind scalar_kind() {
    if constexpr (std::is_same_v<T, bool>) return ScalarKind::Bool;
    else if constexpr (std::is_integral_v<T>) return ScalarKind::Int;
    else return ScalarKind::Float;
  }
  static Array make_scalar(double value, int64_t int_value, ScalarKind kind);

  std::shared_ptr<const detail::Node> node_;
  std::shared_ptr<const Status> error_;
};

}  // namespace strata
