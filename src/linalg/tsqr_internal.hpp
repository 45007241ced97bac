#pragma once
// TSQR building blocks shared by tsqr.cpp and svd_exact.cpp.

#include <cstdint>
#include <vector>

#include "linalg/pass_internal.hpp"
#include "strata/backend/backend.hpp"
#include "strata/linalg/dense.hpp"
#include "strata/linalg/tsqr.hpp"

namespace strata::linalg {

/// A binary reduction tree of n × n R factors pushed in row order. The shape depends only on
/// the number of leaves: a leaf joins as level 0; whenever the two newest entries have the
/// same level they are combined; finish() then combines what remains, newest first. With
/// keep_q each combine's explicit 2n × n Q is kept so a matrix can be sent back down.
class RTree {
 public:
  RTree(const backend::Backend& be, int64_t n, bool keep_q) : be_(&be), n_(n), keep_q_(keep_q) {}

  Status push(DenseMatrix r);
  /// Push the R of a whole aligned subtree of 2^level leaves (built elsewhere, e.g. on another
  /// rank); pushed in leaf order they give the same tree, and the same bits, as the leaves.
  /// Not with keep_q (the subtree's Qs are not here).
  Status push_node(int level, DenseMatrix r, int64_t leaves);
  /// The root R (zero when nothing was pushed). Call once, after the last push.
  Result<DenseMatrix> finish();
  int64_t leaves() const { return leaves_; }
  /// For the root's C (n × k), the C of every leaf: leaf rows of Q_tree · C (needs keep_q).
  Result<std::vector<DenseMatrix>> distribute(const DenseMatrix& c_root) const;

 private:
  struct Entry {
    int level;
    int64_t id;  // ≥ 0: node index; < 0: leaf -(id + 1)
    DenseMatrix r;
  };
  struct Node {
    int64_t left, right;
    std::vector<double> q;  // 2n × n column-major
  };
  Status combine_top();

  const backend::Backend* be_;
  int64_t n_;
  bool keep_q_;
  int64_t leaves_ = 0;
  int64_t root_ = -1;
  std::vector<Entry> stack_;
  std::vector<Node> nodes_;
};

/// Leaf partition of a block: leaves of about kLeafRows rows (at least n), split evenly.
struct LeafPlan {
  int64_t num_leaves = 1;
  int64_t rows = 0;
  int64_t start(int64_t i) const { return i * rows / num_leaves; }
  int64_t count(int64_t i) const { return start(i + 1) - start(i); }
};
LeafPlan plan_leaves(int64_t block_rows, int64_t n);

/// Block plan for TSQR (double blocks, ≥ n rows per block where possible).
Result<BlockPlan> plan_tsqr(const RowBlockSource& source, const PassEnv& options);

/// Pass 1: the block R factors combined in the block tree (with keep_q: the tree's Qs kept).
Result<RTree> tsqr_r_pass(const RowBlockSource& source, const BlockPlan& plan,
                          const PassEnv& options, bool keep_q, ScratchPool& scratch, TsqrStats* stats);

/// Pass 2, stable route: block b's rows of Q·C (C = c_blocks[b], n × k) to the sink.
Status tsqr_apply_pass(const RowBlockSource& source, const BlockPlan& plan, const PassEnv& options,
                       const std::vector<DenseMatrix>& c_blocks, ScratchPool& scratch, const FactorSink& sink);

/// One pass writing A·X (X is n × k) block by block to the sink.
Status projection_pass(const RowBlockSource& source, const BlockPlan& plan, const PassEnv& options,
                       const DenseMatrix& x, ScratchPool& scratch, const FactorSink& sink);

/// A sink that stores rows into a column-major rows × k matrix (thread-safe for disjoint rows).
FactorSink matrix_sink(DenseMatrix& out);

}  // namespace strata::linalg
