#pragma once
// One streaming pass computing Y = AᵀA·Q for a cols × w block Q: the only per-pass work of the
// randomized SVD (and of genotype PCA through a standardizing source).

#include <cstdint>

#include "linalg/pass_internal.hpp"
#include "strata/linalg/dense.hpp"

namespace strata::linalg {

/// Products of the streamed blocks run in float32 (`use_float`) or float64; Y is accumulated
/// in float64 block by block in block order, so it is bit-identical for any thread count.
///
/// Blocks are processed in groups: phase 1 computes W_b = A_b·Q for every block of the group
/// in parallel; phase 2 splits the columns of Y into fixed slices and, in parallel over
/// slices, adds A_b[:, slice]ᵀ·W_b for the group's blocks in order. State is cols × w plus the
/// group's blocks; no per-thread copies of Y.
Status gram_pass(const RowBlockSource& source, const BlockPlan& plan, const PassEnv& options,
                 const DenseMatrix& q, bool use_float, ScratchPool& scratch, DenseMatrix& y);

/// Block plan for gram_pass with elements of `elem_bytes`.
Result<BlockPlan> plan_gram(const RowBlockSource& source, const PassEnv& options, int64_t elem_bytes);

}  // namespace strata::linalg
