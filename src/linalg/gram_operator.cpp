// The streaming GramOperator over a RowBlockSource: gram_pass and projection_pass.
#include "strata/linalg/gram_operator.hpp"

#include "linalg/gram_pass_internal.hpp"
#include "linalg/tsqr_internal.hpp"
#include "strata/core/shape.hpp"

namespace strata::linalg {
namespace {

bool wants_float(const RowBlockSource& source, Precision p) {
  if (p != Precision::Auto) return p == Precision::Float32;
  switch (source.natural_type()) {
    case ScalarType::Float64: case ScalarType::Int64: case ScalarType::UInt64: return false;
    default: return true;
  }
}

class SourceGramOperator final : public GramOperator {
 public:
  SourceGramOperator(const Context& ctx, RowBlockSourcePtr source, bool use_float, const PassOptions& options,
                     BlockPlan gram_plan, BlockPlan project_plan)
      : source_(std::move(source)),
        use_float_(use_float),
        ctx_(ctx),
        options_(ctx_, options),
        gram_plan_(gram_plan),
        project_plan_(project_plan) {}

  int64_t rows() const override { return source_->rows(); }
  int64_t cols() const override { return source_->cols(); }
  std::string describe() const override { return source_->describe(); }
  bool single_precision() const override { return use_float_; }

  Status gram(const DenseMatrix& q, DenseMatrix& y) const override {
    return gram_pass(*source_, gram_plan_, options_, q, use_float_, scratch_, y);
  }
  Status project(const DenseMatrix& x, const FactorSink& sink) const override {
    return projection_pass(*source_, project_plan_, options_, x, scratch_, sink);
  }
  // The gram pass shares its blocks across the context's ranks and gives each the whole Y.
  const Communicator* ranks() const override { return &ctx_.communicator(); }

 private:
  RowBlockSourcePtr source_;
  bool use_float_;
  Context ctx_;  // a handle: the operator keeps the resources alive for its passes
  PassEnv options_;
  BlockPlan gram_plan_, project_plan_;
  // Block buffers reused across the passes of one run (ScratchPool is thread-safe).
  mutable ScratchPool scratch_;
};

}  // namespace

Result<GramOperatorPtr> make_gram_operator(const Context& ctx, RowBlockSourcePtr source, Precision precision,
                                           const PassOptions& options) {
  if (!source) return Status::Invalid("gram operator: no source");
  if (precision == Precision::Int16 || precision == Precision::Mixed) {
    return Status::Invalid("precision ", precision_name(precision), " is for genotype codes (pca); ", source->describe(),
                           " takes auto, float32 or float64");
  }
  const bool use_float = wants_float(*source, precision);
  const PassEnv env(ctx, options);
  STRATA_ASSIGN_OR_RETURN(BlockPlan gplan, plan_gram(*source, env, use_float ? 4 : 8));
  STRATA_ASSIGN_OR_RETURN(BlockPlan pplan, plan_gram(*source, env, 8));
  return GramOperatorPtr(std::make_shared<SourceGramOperator>(ctx, std::move(source), use_float, options, gplan, pplan));
}

Result<GramBlocks> gram_operator_blocks(int64_t rows, int64_t cols, Precision precision, const PassOptions& options) {
  if (precision != Precision::Float32 && precision != Precision::Float64)
    return Status::Invalid("gram blocks: precision ", precision_name(precision), " (float32 or float64)");
  if (rows < 0 || cols < 1) return Status::Invalid("gram blocks: a ", rows, " × ", cols, " source");
  // As make_gram_operator() plans its gram pass (plan_gram): rows of cols elements.
  STRATA_ASSIGN_OR_RETURN(int64_t row_bytes, checked_mul(cols, precision == Precision::Float32 ? 4 : 8));
  STRATA_ASSIGN_OR_RETURN(BlockPlan plan, plan_row_blocks(rows, options.block_rows, kRowBlockBytes, row_bytes));
  return GramBlocks{plan.rows, plan.block_rows, plan.num_blocks};
}

}  // namespace strata::linalg
