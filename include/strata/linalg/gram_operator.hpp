#pragma once
/// \file
/// GramOperator: what the randomized SVD needs from a matrix A (rows × cols): one pass giving
/// Y = AᵀA·Q for a narrow cols × w block Q, and one pass giving the rows of A·X. Any
/// RowBlockSource is one (make_gram_operator streams its blocks through BLAS); specialised
/// operators compute the same products straight from a compact encoding (genomics: 2-bit
/// genotype codes with standardization folded into the kernels).
///
/// Contract for implementations: results are bit-identical for any thread count; every call
/// is one pass over A (counted in `passes()`); memory is bounded by the operator's budget.

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "strata/core/result.hpp"
#include "strata/core/precision.hpp"
#include "strata/linalg/dense.hpp"
#include "strata/linalg/pass.hpp"
#include "strata/linalg/row_blocks.hpp"

namespace strata {
class Communicator;
}

namespace strata::linalg {

/// Arithmetic of the streamed products is strata::Precision (strata/core/precision.hpp): dense
/// sources take Auto (float32 when the source stores 32-bit-or-narrower values, else float64),
/// Float32 or Float64; state and small dense work are float64.
using strata::Precision;

/// \brief A matrix seen through its Gram products.
class GramOperator {
 public:
  virtual ~GramOperator() = default;
  virtual int64_t rows() const = 0;
  virtual int64_t cols() const = 0;
  virtual std::string describe() const = 0;
  /// \brief Whether the products are computed in float32 (sets the rank-truncation level).
  virtual bool single_precision() const = 0;

  /// \brief Y = AᵀA·Q (cols × w) for Q cols × w, in one pass over A.
  virtual Status gram(const DenseMatrix& q, DenseMatrix& y) const = 0;
  /// \brief Rows of A·X (rows × w) for X cols × w, handed to `sink` block by block, in one pass.
  virtual Status project(const DenseMatrix& x, const FactorSink& sink) const = 0;
  /// \brief The block gram() really multiplies for Q. Operators that round their operand
  /// (int16) return the rounded copy Q̃, and gram(Q̃) multiplies Q̃ itself without further
  /// loss, so a caller that keeps Q̃ as its basis loses nothing to the rounding (only its
  /// basis is not exactly orthonormal). Default: Q.
  virtual DenseMatrix operand(const DenseMatrix& q) const { return q; }
  /// \brief Whether operand() may differ from its argument.
  virtual bool rounds_operand() const { return false; }
  /// \brief Widest Q the operator takes at once at full speed (0 = any). Wider blocks still
  /// work; implementations may split them.
  virtual int64_t preferred_width() const { return 0; }
  /// \brief The ranks that run this operator's passes together (each calls gram() with the same
  /// Q and gets the same Y), or null when this process runs them alone. The randomized SVD
  /// then shares its dense work on the cols-long state across them by fixed row chunks.
  virtual const Communicator* ranks() const { return nullptr; }
};

using GramOperatorPtr = std::shared_ptr<const GramOperator>;

/// \brief The streaming operator over any RowBlockSource: every pass re-reads the source in
/// blocks (float32 products when the source is 32-bit or narrower and `precision` is Auto).
Result<GramOperatorPtr> make_gram_operator(const Context& ctx, RowBlockSourcePtr source, Precision precision,
                                           const PassOptions& options = {});

// ---- The gram pass's blocks computed apart (pca's float64 check pass on Dask workers) ----------

/// \brief The fixed row blocks of make_gram_operator()'s gram pass over a `rows` × `cols`
/// source with products in `precision` (Float32 or Float64): block b is rows
/// [b·block_rows, (b+1)·block_rows) clipped to `rows`. A function of the shape and
/// options.block_rows alone (about kRowBlockBytes of decoded rows when 0), never of the
/// threads, the memory budget or the source's chunking, so a pass computed elsewhere can
/// reproduce it.
struct GramBlocks {
  int64_t rows = 0, block_rows = 1, num_blocks = 0;
};
Result<GramBlocks> gram_operator_blocks(int64_t rows, int64_t cols, Precision precision,
                                        const PassOptions& options = {});

/// \brief One float64 block's partial of that pass, Z = Aᵀ·(A·Q) (cols × q.cols, column-major)
/// for the block's rows A (`rows` × `cols`, row-major): the same bits as the pass computes for
/// it on `ctx`'s backend. Summing the partials in a TreeSum over the block grid in block order
/// gives the pass's Y.
Status gram_block_partial(const Context& ctx, const double* a, int64_t rows, int64_t cols, const DenseMatrix& q,
                          std::vector<double>* z);

}  // namespace strata::linalg
