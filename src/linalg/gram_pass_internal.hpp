#pragma once
// One streaming pass computing Y = AᵀA·Q for a cols × w block Q: the only per-pass work of the
// randomized SVD (and of genotype PCA through a standardizing source).

#include <cstdint>

#include "linalg/pass_internal.hpp"
#include "strata/linalg/dense.hpp"

namespace strata::linalg {

/// Products of the streamed blocks run in float32 (`use_float`) or float64 on the backend; Y
/// is accumulated in float64 block by block in block order, so it is bit-identical for any
/// thread count.
///
/// Each block computes Z_b = A_bᵀ·(A_b·Q) on its own (blocks in parallel on the pass engine),
/// and the engine's in-order commit adds Z_b to Y. A block in flight holds its rows, A_b·Q and
/// Z_b (cols × w), all counted against the memory budget. A source with generated_products on
/// the backend (a RandInt3 random source on CUDA) takes their gram product per fixed block of
/// rows instead (float64, nothing generated on the host); the CPU path is unchanged.
Status gram_pass(const RowBlockSource& source, const BlockPlan& plan, const PassEnv& options,
                 const DenseMatrix& q, bool use_float, ScratchPool& scratch, DenseMatrix& y);

/// Block plan for gram_pass with elements of `elem_bytes`.
Result<BlockPlan> plan_gram(const RowBlockSource& source, const PassEnv& options, int64_t elem_bytes);

}  // namespace strata::linalg
