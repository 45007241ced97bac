#pragma once
/// \file
/// TSQR: exact QR of a tall-and-skinny matrix (rows ≫ cols) streamed in row blocks.
///
/// Each block is split into cache-sized leaves factored in parallel (CholeskyQR2, or
/// Householder when a leaf is ill conditioned); the R factors are combined up a fixed binary
/// tree in block order (Benson, Gleich & Demmel 2013), so R is bit-identical for any thread
/// count. Q is never held: a second pass recomputes the leaf factors and writes Q through a
/// sink, block by block. Memory: one block per thread plus O(blocks · cols²) for the tree.

#include "strata/core/result.hpp"
#include "strata/linalg/dense.hpp"
#include "strata/linalg/pass.hpp"
#include "strata/linalg/row_blocks.hpp"

namespace strata::linalg {

/// \brief What a TSQR run did.
struct TsqrStats {
  int64_t blocks = 0;              ///< row blocks per pass
  int64_t leaves = 0;              ///< leaf factorizations per pass
  int64_t householder_leaves = 0;  ///< leaves too ill conditioned for CholeskyQR2
  int64_t passes = 0;              ///< passes over the source
};

/// \brief The cols × cols R factor of A = QR (one pass; Q is not formed).
/// \code
/// auto src = linalg::make_dense_source(a.data(), m, n);
/// STRATA_ASSIGN_OR_RETURN(linalg::DenseMatrix r, linalg::tsqr_r(*src));
/// \endcode
Result<DenseMatrix> tsqr_r(const Context& ctx, const RowBlockSource& source, const PassOptions& options = {},
                           TsqrStats* stats = nullptr);

/// \brief A = Q·R: returns R (cols × cols) and streams Q (rows × cols, orthonormal columns)
/// to `q_sink` in a second pass. rows ≥ cols is required.
Result<DenseMatrix> tsqr(const Context& ctx, const RowBlockSource& source, const FactorSink& q_sink,
                         const PassOptions& options = {}, TsqrStats* stats = nullptr);

}  // namespace strata::linalg
