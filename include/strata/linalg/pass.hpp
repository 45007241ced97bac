#pragma once
/// \file
/// Options shared by the streaming linear-algebra passes, and the sink through which a tall
/// factor (U, Q) leaves an algorithm block by block instead of being held.

#include <cstdint>
#include <functional>

#include "strata/core/status.hpp"

namespace strata {
class ThreadPool;
class ProgressBar;
}  // namespace strata

namespace strata::linalg {

/// \brief Receives rows [row0, row0 + nrows) of a tall rows × k factor as a row-major
/// nrows × k block. Called from pool threads, possibly concurrently, for disjoint row ranges
/// covering every row exactly once (in no particular order). An error stops the pass.
using FactorSink = std::function<Status(int64_t row0, int64_t nrows, int64_t k, const double* block)>;

/// \brief How a pass streams its source.
struct PassOptions {
  /// Thread pool running the block kernels; nullptr = ThreadPool::global(). Results are
  /// bit-identical for any pool size.
  ThreadPool* pool = nullptr;
  /// Rows per block; 0 = automatic: about `block_bytes` of decoded values, rounded to a
  /// multiple of the source's preferred_block_rows() (storage chunks are read whole).
  /// Changing it changes the reduction tree, so results agree only to rounding.
  int64_t block_rows = 0;
  /// Target bytes of one decoded block in automatic mode.
  int64_t block_bytes = int64_t{32} << 20;
  /// Optional progress bar, advanced by rows processed in every pass.
  ProgressBar* progress = nullptr;
};

}  // namespace strata::linalg
