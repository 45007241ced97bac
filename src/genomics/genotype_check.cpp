// PCA's float64 check pass where the codes are (Dask workers): the blocks of the local check
// operator (linalg::make_gram_operator over the standardized rows, float64), their partials
// summed in the same TreeSum, so the bounds are the local run's bits (genotype_gram.hpp).
#include <algorithm>
#include <cstring>

#include "strata/backend/backend.hpp"
#include "strata/core/shape.hpp"
#include "strata/genomics/genotype_gram.hpp"

namespace strata::genomics {
namespace {

// The check operator whose blocks run in the runner: it checks that the ranges come back in
// block order and cover every block, and continues their trees into Y.
class RemoteCheckOperator final : public linalg::GramOperator {
 public:
  RemoteCheckOperator(const Context& ctx, int64_t samples, linalg::GramBlocks blocks,
                      std::shared_ptr<GenotypeGroupRunner> runner)
      : ctx_(ctx), n_(samples), blocks_(blocks), runner_(std::move(runner)) {}

  int64_t rows() const override { return blocks_.rows; }
  int64_t cols() const override { return n_; }
  std::string describe() const override { return "remote genotypes (standardized, float64 check)"; }
  bool single_precision() const override { return false; }

  Status gram(const linalg::DenseMatrix& q, linalg::DenseMatrix& y) const override {
    if (q.rows != n_) return Status::Invalid("float64 check: Q has ", q.rows, " rows for ", n_, " samples");
    ctx_.report().add_pass(blocks_.num_blocks);
    TreeSum tree(n_ * q.cols);
    int64_t next = 0;  // the first block not yet back
    STRATA_RETURN_NOT_OK(runner_->check_gram(blocks_.block_rows, q, [&](std::vector<TreeSum::Node>&& nodes) -> Status {
      STRATA_RETURN_NOT_OK(ctx_.check_cancelled());
      const int64_t first = next;
      for (const TreeSum::Node& node : nodes) {
        if (node.level < 0 || node.level > 62 || node.index < 0 || (node.index << node.level) != next)
          return Status::Invalid("float64 check: a range of blocks came back out of order (block ", next,
                                 " expected)");
        next = (node.index + 1) << node.level;
        if (next > blocks_.num_blocks)
          return Status::Invalid("float64 check: block ", next - 1, " came back of ", blocks_.num_blocks);
      }
      ctx_.advance_progress(std::min(blocks_.rows, next * blocks_.block_rows) - first * blocks_.block_rows);
      return tree.push_nodes(std::move(nodes));
    }));
    if (next != blocks_.num_blocks)
      return Status::Invalid("float64 check: ", next, " of ", blocks_.num_blocks, " blocks came back");
    std::vector<double> total;
    STRATA_RETURN_NOT_OK(tree.combine(*single_process_communicator(), &total));
    y = linalg::DenseMatrix(n_, q.cols);
    y.data = std::move(total);
    return Status::OK();
  }

  Status project(const linalg::DenseMatrix&, const linalg::FactorSink&) const override {
    return Status::Unsupported("float64 check operator: only its gram pass runs remotely");
  }

 private:
  Context ctx_;  // a handle: progress, cancellation and the report
  int64_t n_;
  linalg::GramBlocks blocks_;
  std::shared_ptr<GenotypeGroupRunner> runner_;
};

// Rows [row, row + count) of `range` (relative to range.row0) into `codes` (count rows of
// `stride` bytes) and their float64 tables into `luts`.
Status gather_rows(const GenotypeRowRange& range, int64_t row, int64_t count, int64_t stride, Standardization scale,
                   uint8_t* codes, double* luts) {
  int64_t piece_row0 = 0;  // the first row of the piece, relative to range.row0
  for (const GenotypeGroup& p : range.pieces) {
    const int64_t lo = std::max(row, piece_row0), hi = std::min(row + count, piece_row0 + p.rows);
    for (int64_t r = lo; r < hi; ++r) {
      const int64_t i = r - piece_row0, o = r - row;
      std::memcpy(codes + o * stride, p.codes + i * stride, static_cast<size_t>(stride));
      make_standardize_lut(p.counts[static_cast<size_t>(i)], scale, luts + 4 * o);
    }
    piece_row0 += p.rows;
  }
  return Status::OK();
}

}  // namespace

Result<std::vector<TreeSum::Node>> genotype_check_blocks(const Context& ctx, const GenotypeRowRange& range,
                                                         int64_t total_rows, Standardization scale, int64_t block_rows,
                                                         const linalg::DenseMatrix& q) {
  const int64_t n = q.rows;
  int64_t rows = 0;
  for (const GenotypeGroup& p : range.pieces) {
    if (p.samples != n || p.rows < 0 || static_cast<int64_t>(p.counts.size()) != p.rows || (p.rows > 0 && !p.codes))
      return Status::Invalid("float64 check: a piece of ", p.rows, " rows of ", p.samples, " samples with ",
                             p.counts.size(), " counts, for Q of ", n, " rows");
    rows += p.rows;
  }
  if (block_rows < 1 || range.row0 < 0 || range.row0 % block_rows != 0 || range.row0 + rows > total_rows ||
      (rows % block_rows != 0 && range.row0 + rows != total_rows) || n < 1 || q.cols < 1)
    return Status::Invalid("float64 check: rows [", range.row0, ", ", range.row0 + rows, ") of ", total_rows,
                           " are not whole blocks of ", block_rows);
  const backend::Backend& be = backend::of(ctx);
  const int64_t stride = io::packed_row_bytes(n), first = range.row0 / block_rows;
  TreeSum tree(n * q.cols);
  std::vector<uint8_t> codes;
  std::vector<double> luts, a, z;
  for (int64_t b = 0; b * block_rows < rows; ++b) {
    STRATA_RETURN_NOT_OK(ctx.check_cancelled());
    const int64_t r0 = b * block_rows, count = std::min(block_rows, rows - r0);
    codes.resize(static_cast<size_t>(count * stride));
    luts.resize(static_cast<size_t>(count * 4));
    a.resize(static_cast<size_t>(count * n));
    STRATA_RETURN_NOT_OK(gather_rows(range, r0, count, stride, scale, codes.data(), luts.data()));
    // As the local check source decodes its blocks (pca_source.cpp), then the pass's product.
    STRATA_RETURN_NOT_OK(be.decode({codes.data(), count, n, stride}, luts.data(), backend::row_major(a.data(), count, n)));
    STRATA_RETURN_NOT_OK(linalg::gram_block_partial(ctx, a.data(), count, n, q, &z));
    tree.push(first + b, std::move(z));
  }
  return tree.take_nodes();
}

Result<linalg::GramOperatorPtr> make_remote_check_operator(const Context& ctx, int64_t samples, int64_t rows,
                                                           const PassOptions& pass,
                                                           std::shared_ptr<GenotypeGroupRunner> runner) {
  if (!runner) return Status::Invalid("float64 check: no group runner");
  STRATA_ASSIGN_OR_RETURN(const linalg::GramBlocks blocks,
                          linalg::gram_operator_blocks(rows, samples, Precision::Float64, pass));
  return linalg::GramOperatorPtr(std::make_shared<RemoteCheckOperator>(ctx, samples, blocks, std::move(runner)));
}

}  // namespace strata::genomics
