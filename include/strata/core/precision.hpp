#pragma once
/// \file
/// The arithmetic of an algorithm's products: one enum and one word list for every command
/// (`--precision auto|int16|mixed|float32|float64`). Each algorithm says which it takes and
/// refuses the others with Invalid naming the ones it does.

#include <cstdint>
#include <string_view>

#include "strata/core/result.hpp"

namespace strata {

enum class Precision : uint8_t {
  /// The algorithm's default: dense SVD computes in float32 when the data is stored in 32 bits
  /// or fewer, else float64; genotype PCA uses int16 where the CPU runs it vectorized (mixed
  /// with a tolerance), else float32.
  Auto,
  /// Genotype products: int16 operands with exact integer sums (products within ~1e-5).
  Int16,
  /// Genotype products: int16 A·Q̃ of the rounded block (which becomes the basis), then float32.
  Mixed,
  Float32,
  Float64,
};

/// \brief "auto", "int16", "mixed", "float32", "float64".
const char* precision_name(Precision p);
/// \brief The inverse of precision_name; Invalid listing the words otherwise.
Result<Precision> parse_precision(std::string_view name);

}  // namespace strata
