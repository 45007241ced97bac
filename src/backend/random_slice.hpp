#pragma once
// Argument check of Backend::random_slice_sum, shared by the CPU backend and the CUDA module.
#include <cstdint>
#include <limits>

#include "strata/core/random.hpp"
#include "strata/core/status.hpp"

namespace strata::backend::detail {

inline Status check_random_slice(const random::FillParams& p, int64_t ld, int64_t r0, int64_t rstep, int64_t rows,
                                 int64_t c0, int64_t cstep, int64_t cols) {
  if ((p.dist != random::Dist::Normal && p.dist != random::Dist::Uniform) || p.out != ScalarType::Float64)
    return Status::Invalid("random_slice_sum: float64 normal or uniform elements only");
  if (ld < 0 || r0 < 0 || c0 < 0 || rows < 0 || cols < 0 || rstep < 0 || cstep < 0)
    return Status::Invalid("random_slice_sum: negative extent, start or step");
  if (rows == 0 || cols == 0) return Status::OK();
  // The last element index, (r0 + (rows-1)·rstep)·ld + c0 + (cols-1)·cstep, must fit int64.
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  const auto mul_ok = [](int64_t a, int64_t b) { return b == 0 || a <= kMax / b; };
  if (!mul_ok(rows - 1, rstep) || r0 > kMax - (rows - 1) * rstep) return Status::Invalid("random_slice_sum: rows overflow");
  const int64_t last_row = r0 + (rows - 1) * rstep;
  if (!mul_ok(cols - 1, cstep) || c0 > kMax - (cols - 1) * cstep) return Status::Invalid("random_slice_sum: cols overflow");
  const int64_t last_col = c0 + (cols - 1) * cstep;
  if (!mul_ok(last_row, ld) || last_row * ld > kMax - last_col)
    return Status::Invalid("random_slice_sum: element index overflow");
  return Status::OK();
}

}  // namespace strata::backend::detail
