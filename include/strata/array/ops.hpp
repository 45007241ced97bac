#pragma once
/// \file
/// Lazy operations on strata::Array: elementwise math with numpy broadcasting and result
/// dtypes, slicing, transpose, reductions, matmul and map_blocks. Each returns a new Array at
/// once (nothing runs); invalid arguments give an Array in the error state (see array.hpp).
///
/// Result dtypes follow numpy's promotion for the types strata computes on (bool, int8..64,
/// uint8..64, float32, float64), with Python scalars "weak" (NEP 50): `int8_array + 1` is int8,
/// `int32_array + 1.5` is float64, `float32_array * 2.0` is float32. Deviations from numpy, all
/// documented where they occur: `+ - * pow` on two bool arrays compute in int64; integer `pow`
/// with a negative exponent gives 0 (or ±1 for bases ±1) instead of raising; integer overflow
/// wraps.
///
/// A chain of elementwise operations becomes one fused block kernel: it is evaluated tile by
/// tile (a few thousand elements) with per-tile scratch only, never as whole intermediate arrays.
///
/// \code
/// Array z = where(x > 0.0, sqrt(x), 0.0) * 2 + y;   // one fused kernel
/// Array col_means = mean(z, {0});
/// \endcode

#include <functional>
#include <span>
#include <vector>

#include "strata/array/array.hpp"

namespace strata {

// ---- elementwise --------------------------------------------------------------------------------
Array add(const Array& a, const Array& b);
Array subtract(const Array& a, const Array& b);
Array multiply(const Array& a, const Array& b);
/// True division: integer inputs give float64 (numpy `/`).
Array divide(const Array& a, const Array& b);
Array power(const Array& a, const Array& b);
/// Elementwise maximum / minimum (NaN propagates, like numpy.maximum / numpy.minimum).
Array maximum(const Array& a, const Array& b);
Array minimum(const Array& a, const Array& b);
Array equal(const Array& a, const Array& b);
Array not_equal(const Array& a, const Array& b);
Array less(const Array& a, const Array& b);
Array less_equal(const Array& a, const Array& b);
Array greater(const Array& a, const Array& b);
Array greater_equal(const Array& a, const Array& b);
/// Logical ops convert their inputs to bool (nonzero = true) and return bool.
Array logical_and(const Array& a, const Array& b);
Array logical_or(const Array& a, const Array& b);
Array logical_not(const Array& a);
/// `cond ? a : b` elementwise, broadcasting all three; result dtype = promote(a, b).
Array where(const Array& cond, const Array& a, const Array& b);
Array abs(const Array& a);
Array negative(const Array& a);
/// sqrt/exp/log: integer and bool inputs give float64, float32 stays float32.
Array sqrt(const Array& a);
Array exp(const Array& a);
Array log(const Array& a);
/// numpy.clip: minimum(maximum(a, lo), hi).
Array clip(const Array& a, const Array& lo, const Array& hi);
/// Convert to `dtype` (C++ static_cast semantics; float to int truncates, NaN is unspecified).
Array astype(const Array& a, DType dtype);

inline Array operator+(const Array& a, const Array& b) { return add(a, b); }
inline Array operator-(const Array& a, const Array& b) { return subtract(a, b); }
inline Array operator*(const Array& a, const Array& b) { return multiply(a, b); }
inline Array operator/(const Array& a, const Array& b) { return divide(a, b); }
inline Array operator-(const Array& a) { return negative(a); }
inline Array operator<(const Array& a, const Array& b) { return less(a, b); }
inline Array operator<=(const Array& a, const Array& b) { return less_equal(a, b); }
inline Array operator>(const Array& a, const Array& b) { return greater(a, b); }
inline Array operator>=(const Array& a, const Array& b) { return greater_equal(a, b); }
inline Array operator&(const Array& a, const Array& b) { return logical_and(a, b); }
inline Array operator|(const Array& a, const Array& b) { return logical_or(a, b); }
inline Array operator!(const Array& a) { return logical_not(a); }

/// \brief numpy's result type of a binary operation (weak = a Python scalar operand).
Result<DType> promote_types(DType a, bool a_weak, DType b, bool b_weak);

// ---- structure ----------------------------------------------------------------------------------
/// \brief Basic slicing, `a[s0, s1, ...]`; axes without a slice are taken whole.
Array slice(const Array& a, const std::vector<Slice>& slices);
/// \brief Permute axes (empty `perm` reverses them, like numpy's `.T`).
Array transpose(const Array& a, std::vector<int64_t> perm = {});
/// \brief Same values with a new chunk shape.
Array rechunk(const Array& a, Shape chunks);
/// \brief Join arrays of one dtype and rank along `axis` (other extents equal; numpy.concatenate).
/// A box of the result reads only the parts of the inputs it covers.
Array concatenate(const std::vector<Array>& arrays, int64_t axis);
/// \brief The elements in C order under `shape` (same element count; numpy.reshape, no -1).
/// A box reads the slab of the input's leading axis holding its elements.
Array reshape(const Array& a, const Shape& shape);

// ---- reductions ---------------------------------------------------------------------------------
/// Axes to reduce; empty = all axes (a 0-d result unless keepdims).
using Axes = std::vector<int64_t>;
/// Sum: float inputs accumulate in float64 and return their own dtype; bool/signed ints return
/// int64, unsigned ints uint64 (numpy). Partials are combined in block order, so the result is
/// bit-identical for any thread count.
Array sum(const Array& a, Axes axes = {}, bool keepdims = false);
/// Mean: float64 for integer input, else the input's float dtype (accumulated in float64).
Array mean(const Array& a, Axes axes = {}, bool keepdims = false);
/// Variance with `ddof` (numpy), by per-block (count, mean, M2) combined in block order.
Array var(const Array& a, Axes axes = {}, int64_t ddof = 0, bool keepdims = false);
Array stddev(const Array& a, Axes axes = {}, int64_t ddof = 0, bool keepdims = false);
/// Min / max in the input dtype; NaN propagates (numpy). Empty reductions are Invalid.
Array min(const Array& a, Axes axes = {}, bool keepdims = false);
Array max(const Array& a, Axes axes = {}, bool keepdims = false);
/// Number of nonzero (true) elements, int64 (numpy.count_nonzero).
Array count_nonzero(const Array& a, Axes axes = {}, bool keepdims = false);

// ---- matmul and map_blocks ----------------------------------------------------------------------
/// \brief Matrix product of 2-d arrays (contraction over a chunked axis). Float inputs compute
/// in float64 (float32 x float32 accumulates in float64 and returns float32); integer inputs in
/// 64-bit integers. Output chunks: (a's row chunks, b's column chunks). A slice of the product
/// reads only the rows of `a` and columns of `b` it needs.
Array matmul(const Array& a, const Array& b);

/// \brief One block handed to a map_blocks function: dense C order, host memory.
struct MapBlockInput {
  const void* data = nullptr;
  DType dtype;
  Shape shape;
  template <class T> const T* as() const { return static_cast<const T*>(data); }
};
/// \brief The output block a map_blocks function fills (dense C order, `shape`, `dtype`).
struct MapBlockOutput {
  void* data = nullptr;
  DType dtype;
  Shape shape;
  Shape origin;  ///< position of the block in the output array
  template <class T> T* as() const { return static_cast<T*>(data); }
};
using MapBlocksFn = std::function<Status(std::span<const MapBlockInput> inputs, const MapBlockOutput& out)>;

/// \brief Apply `fn` block by block. All inputs must have the same shape; blocks follow the
/// first input's chunks (others are read over the same boxes). The output has that shape and
/// `out_dtype`. `fn` may run concurrently on different blocks and must be thread-safe.
/// \code
/// Array doubled = map_blocks({x}, DType(ScalarType::Float64),
///     [](std::span<const MapBlockInput> in, const MapBlockOutput& out) {
///       int64_t n = shape_numel(out.shape).value();
///       for (int64_t i = 0; i < n; ++i) out.as<double>()[i] = 2 * in[0].as<double>()[i];
///       return Status::OK();
///     });
/// \endcode
Array map_blocks(const std::vector<Array>& inputs, DType out_dtype, MapBlocksFn fn);

}  // namespace strata
