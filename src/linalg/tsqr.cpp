// TSQR: leaves → per-block tree → block tree, R in one pass, Q (or Q·C) in a second.
#include "strata/linalg/tsqr.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <optional>

#include "linalg/dense_internal.hpp"
#include "linalg/tsqr_internal.hpp"
#include "strata/core/buffer.hpp"
#include "strata/core/shape.hpp"
#include "strata/core/wire.hpp"

namespace strata::linalg {
namespace {

// About 0.5 MiB of doubles at 16 columns: small enough for L2, large enough that the BLAS-3
// calls of CholeskyQR2 run near their narrow-shape peak (measured: flat from 512 to 16384).
constexpr int64_t kLeafRows = 4096;

}  // namespace

Status RTree::push(DenseMatrix r) {
  stack_.push_back({0, -(leaves_ + 1), std::move(r)});
  ++leaves_;
  while (stack_.size() >= 2 && stack_[stack_.size() - 1].level == stack_[stack_.size() - 2].level) {
    STRATA_RETURN_NOT_OK(combine_top());
  }
  return Status::OK();
}

Status RTree::push_node(int level, DenseMatrix r, int64_t leaves) {
  if (keep_q_) return Status::Internal("tsqr: a subtree pushed into a tree that keeps its Qs");
  stack_.push_back({level, -1, std::move(r)});
  leaves_ += leaves;
  while (stack_.size() >= 2 && stack_[stack_.size() - 1].level == stack_[stack_.size() - 2].level) {
    STRATA_RETURN_NOT_OK(combine_top());
  }
  return Status::OK();
}

Status RTree::combine_top() {
  Entry bottom = std::move(stack_.back());
  stack_.pop_back();
  Entry top = std::move(stack_.back());
  stack_.pop_back();
  DenseMatrix r(n_, n_);
  Node node{top.id, bottom.id, {}};
  if (keep_q_) node.q.resize(static_cast<size_t>(2 * n_ * n_));
  STRATA_RETURN_NOT_OK(
      combine_qr(*be_, top.r.data.data(), bottom.r.data.data(), n_, r.data.data(), keep_q_ ? node.q.data() : nullptr));
  nodes_.push_back(std::move(node));
  stack_.push_back({std::max(top.level, bottom.level) + 1, static_cast<int64_t>(nodes_.size()) - 1, std::move(r)});
  return Status::OK();
}

Result<DenseMatrix> RTree::finish() {
  if (stack_.empty()) return DenseMatrix(n_, n_);
  while (stack_.size() >= 2) STRATA_RETURN_NOT_OK(combine_top());
  root_ = stack_.back().id;
  DenseMatrix r = std::move(stack_.back().r);
  stack_.clear();
  return r;
}

Result<std::vector<DenseMatrix>> RTree::distribute(const DenseMatrix& c_root) const {
  std::vector<DenseMatrix> out(static_cast<size_t>(leaves_));
  if (leaves_ == 0) return out;
  const int64_t k = c_root.cols;
  // Depth-first with an explicit stack of (id, C).
  std::vector<std::pair<int64_t, DenseMatrix>> pending_nodes;
  pending_nodes.emplace_back(root_, c_root);
  while (!pending_nodes.empty()) {
    auto [id, c] = std::move(pending_nodes.back());
    pending_nodes.pop_back();
    if (id < 0) {
      out[static_cast<size_t>(-id - 1)] = std::move(c);
      continue;
    }
    const Node& node = nodes_[static_cast<size_t>(id)];
    DenseMatrix ct(n_, k), cb(n_, k);
    if (k > 0) {
      // The top and bottom halves of the node's 2n × n Q times C.
      using backend::Trans;
      const auto q_top = backend::col_major<const double>(node.q.data(), n_, n_, 2 * n_);
      const auto q_bottom = backend::col_major<const double>(node.q.data() + n_, n_, n_, 2 * n_);
      STRATA_RETURN_NOT_OK(be_->gemm(Trans::No, Trans::No, 1.0, q_top, view(c), 0.0, view(ct)));
      STRATA_RETURN_NOT_OK(be_->gemm(Trans::No, Trans::No, 1.0, q_bottom, view(c), 0.0, view(cb)));
    }
    pending_nodes.emplace_back(node.left, std::move(ct));
    pending_nodes.emplace_back(node.right, std::move(cb));
  }
  return out;
}

LeafPlan plan_leaves(int64_t block_rows, int64_t n) {
  LeafPlan p;
  p.rows = block_rows;
  const int64_t leaf = std::max(kLeafRows, 2 * n);
  p.num_leaves = std::max<int64_t>(1, block_rows / leaf);
  return p;
}

Result<BlockPlan> plan_tsqr(const RowBlockSource& source, const PassEnv& options) {
  const int64_t n = source.cols();
  STRATA_RETURN_NOT_OK(check_lapack_dims(2 * n, n, "tsqr"));
  STRATA_ASSIGN_OR_RETURN(int64_t row_bytes, checked_mul(n, int64_t{8}));
  return plan_blocks(source, options, row_bytes, std::max(kLeafRows, 2 * n));
}

namespace {

// Factor block b's leaves; the block's leaf tree gives its R. With want_q, `buf` (rows × n)
// ends up holding every leaf's Q and `tree` keeps its combine Qs. Pass 1 only reads the
// block (leaf_r factors a copy), so in-memory data is used in place.
Status factor_block(const backend::Backend& be, const RowBlockSource& source, const BlockPlan& plan, int64_t b,
                    bool want_q,
                    ScratchPool& scratch, RTree& tree, DenseMatrix& r_block, int64_t* householder,
                    std::optional<ScratchPool::Lease>& lease) {
  const int64_t n = source.cols(), rows = plan.count(b);
  const double* direct = want_q ? nullptr : source.direct_rows(plan.start(b), rows);
  double* buf = nullptr;
  if (!direct) {
    STRATA_ASSIGN_OR_RETURN(auto l, scratch.acquire(rows * n * 8));
    lease.emplace(std::move(l));
    buf = lease->as<double>();
    STRATA_RETURN_NOT_OK(source.read_block(plan.start(b), rows, buf));
  }
  const LeafPlan leaves = plan_leaves(rows, n);
  for (int64_t i = 0; i < leaves.num_leaves; ++i) {
    DenseMatrix r(n, n);
    const int64_t off = leaves.start(i) * n;
    // R alone is computed the same way whether the rows were read or used in place.
    STRATA_ASSIGN_OR_RETURN(const bool hh, want_q ? leaf_qr(be, buf + off, leaves.count(i), n, r.data.data(), true)
                                                  : leaf_r(be, (direct ? direct : buf) + off, leaves.count(i), n,
                                                           r.data.data()));
    if (hh && householder) ++*householder;
    STRATA_RETURN_NOT_OK(tree.push(std::move(r)));
  }
  STRATA_ASSIGN_OR_RETURN(r_block, tree.finish());
  return Status::OK();
}

}  // namespace

namespace {

// A rank's share of the block tree under MPI: the R of every aligned subtree (2^level blocks
// starting at a multiple of 2^level) that lies wholly in its range of blocks, combined as the
// blocks commit. What is left, in order, are the range's maximal aligned subtrees.
class AlignedStack {
 public:
  struct Node {
    int level;
    int64_t start;
    DenseMatrix r;
  };
  AlignedStack(const backend::Backend& be, int64_t n) : be_(&be), n_(n) {}
  Status push(int64_t block, DenseMatrix r) {
    nodes_.push_back({0, block, std::move(r)});
    while (nodes_.size() >= 2) {
      const Node& a = nodes_[nodes_.size() - 2];
      const Node& b = nodes_.back();
      if (a.level != b.level || a.start % (int64_t{2} << a.level) != 0) break;
      DenseMatrix r2(n_, n_);
      STRATA_RETURN_NOT_OK(combine_qr(*be_, a.r.data.data(), b.r.data.data(), n_, r2.data.data(), nullptr));
      Node up{a.level + 1, a.start, std::move(r2)};
      nodes_.pop_back();
      nodes_.back() = std::move(up);
    }
    return Status::OK();
  }
  // Per node: level, first block, R (n × n).
  std::string bytes() const {
    WireWriter out;
    for (const Node& nd : nodes_) {
      out.put(static_cast<int64_t>(nd.level));
      out.put(nd.start);
      out.put_raw(nd.r.data.data(), static_cast<int64_t>(nd.r.data.size()));
    }
    return std::move(out.bytes());
  }

 private:
  const backend::Backend* be_;
  int64_t n_;
  std::vector<Node> nodes_;
};

}  // namespace

Result<RTree> tsqr_r_pass(const RowBlockSource& source, const BlockPlan& plan, const PassEnv& options,
                          bool keep_q, ScratchPool& scratch, TsqrStats* stats) {
  const int64_t n = source.cols();
  const backend::Backend& be = backend::of(*options.ctx);
  const Communicator& comm = options.ctx->communicator();
  // Under MPI each rank factors a contiguous range of blocks and its aligned subtrees; the
  // ranks exchange those (allgather) and each completes the same tree: R is the same bits as
  // one process's, on every rank. (The tree's Qs stay where they were made: no keep_q.)
  const bool split = comm.size() > 1;
  if (split && keep_q) return Status::Internal("tsqr: the Q-keeping tree is not distributed");
  const auto [first, count] = split ? rank_range(plan.num_blocks, 1, comm.rank(), comm.size())
                                    : std::pair<int64_t, int64_t>{0, plan.num_blocks};
  RTree global(be, n, keep_q);
  AlignedStack mine(be, n);
  std::vector<DenseMatrix> slots(static_cast<size_t>(plan.num_blocks));
  std::atomic<int64_t> leaves{0}, householder{0};
  STRATA_RETURN_NOT_OK(run_block_range(
      plan, options, first, count,
      [&](int64_t b) -> Status {
        RTree local(be, n, false);
        int64_t hh = 0;
        std::optional<ScratchPool::Lease> lease;
        STRATA_RETURN_NOT_OK(
            factor_block(be, source, plan, b, false, scratch, local, slots[static_cast<size_t>(b)], &hh, lease));
        leaves += local.leaves();
        householder += hh;
        return Status::OK();
      },
      [&](int64_t b) -> Status {
        const Status st = split ? mine.push(b, std::move(slots[static_cast<size_t>(b)]))
                                : global.push(std::move(slots[static_cast<size_t>(b)]));
        slots[static_cast<size_t>(b)] = DenseMatrix();
        return st;
      }));
  if (split) {
    std::vector<std::string> all;
    STRATA_RETURN_NOT_OK(comm.allgather(mine.bytes(), &all));
    for (size_t rank = 0; rank < all.size(); ++rank) {
      WireReader in(all[rank], str_cat("tsqr: rank ", rank, "'s R factors"));
      while (!in.done()) {
        int64_t level = 0, start = 0;
        DenseMatrix r(n, n);
        STRATA_RETURN_NOT_OK(in.get(level));
        STRATA_RETURN_NOT_OK(in.get(start));
        STRATA_RETURN_NOT_OK(in.get_raw(r.data.data(), n * n));
        if (level < 0 || level > 62) return Status::CommError("tsqr: rank ", rank, " sent a subtree of level ", level);
        STRATA_RETURN_NOT_OK(global.push_node(static_cast<int>(level), std::move(r), int64_t{1} << level));
      }
    }
  }
  if (stats) {
    stats->blocks = plan.num_blocks;
    stats->leaves = leaves.load();
    stats->householder_leaves = householder.load();
    stats->passes += 1;
  }
  return global;
}

Status tsqr_apply_pass(const RowBlockSource& source, const BlockPlan& plan, const PassEnv& options,
                       const std::vector<DenseMatrix>& c_blocks, ScratchPool& scratch, const FactorSink& sink) {
  const int64_t n = source.cols();
  const backend::Backend& be = backend::of(*options.ctx);
  return run_blocks(
      plan, options,
      [&](int64_t b) -> Status {
        RTree local(be, n, true);
        DenseMatrix r_block;
        std::optional<ScratchPool::Lease> lease;
        STRATA_RETURN_NOT_OK(factor_block(be, source, plan, b, true, scratch, local, r_block, nullptr, lease));
        const double* q = lease->as<double>();
        const DenseMatrix& c = c_blocks[static_cast<size_t>(b)];
        const int64_t k = c.cols, rows = plan.count(b);
        STRATA_ASSIGN_OR_RETURN(const std::vector<DenseMatrix> c_leaf, local.distribute(c));
        const LeafPlan leaves = plan_leaves(rows, n);
        STRATA_ASSIGN_OR_RETURN(auto out_lease, scratch.acquire(rows * k * 8));
        double* out = out_lease.as<double>();
        for (int64_t i = 0; i < leaves.num_leaves && k > 0; ++i) {
          // Leaf rows of Q·C, row-major.
          const int64_t r0 = leaves.start(i), nr = leaves.count(i);
          STRATA_RETURN_NOT_OK(be.gemm(backend::Trans::No, backend::Trans::No, 1.0,
                                       backend::row_major<const double>(q + r0 * n, nr, n),
                                       view(c_leaf[static_cast<size_t>(i)]), 0.0,
                                       backend::row_major(out + r0 * k, nr, k)));
        }
        return sink(plan.start(b), rows, k, out);
      },
      nullptr);
}

Status projection_pass(const RowBlockSource& source, const BlockPlan& plan, const PassEnv& options,
                       const DenseMatrix& x, ScratchPool& scratch, const FactorSink& sink) {
  const int64_t n = source.cols(), k = x.cols;
  const backend::Backend& be = backend::of(*options.ctx);
  // Products the backend computes from the source's definition (a generated matrix): no host rows.
  const std::unique_ptr<const GeneratedProducts> generated = source.generated_products(be);
  // Under MPI each rank projects its range of blocks (the one its R pass read) and rank 0
  // gathers the rows and hands every block to the sink, in order; other ranks sink nothing.
  const Communicator& comm = options.ctx->communicator();
  const bool split = comm.size() > 1;
  // Plain variables, not a structured binding: the lambdas below capture them.
  const std::pair<int64_t, int64_t> range = split ? rank_range(plan.num_blocks, 1, comm.rank(), comm.size())
                                                  : std::pair<int64_t, int64_t>{0, plan.num_blocks};
  const int64_t first = range.first, count = range.second;
  std::string mine;  // this rank's blocks of A·X, in order (split only)
  if (split && count > 0)
    mine.resize(static_cast<size_t>((plan.start(first + count - 1) + plan.count(first + count - 1) - plan.start(first)) *
                                    k * 8));
  STRATA_RETURN_NOT_OK(run_block_range(
      plan, options, first, count,
      [&](int64_t b) -> Status {
        const int64_t rows = plan.count(b);
        STRATA_ASSIGN_OR_RETURN(auto out_lease, scratch.acquire(rows * k * 8));
        double* out = out_lease.as<double>();
        if (generated && k > 0) {  // A generated where it is multiplied (a device)
          STRATA_RETURN_NOT_OK(generated->times(plan.start(b), rows, view(x), backend::row_major(out, rows, k)));
        } else {
          std::optional<ScratchPool::Lease> in_lease;
          const double* a = source.direct_rows(plan.start(b), rows);
          if (!a) {
            STRATA_ASSIGN_OR_RETURN(auto l, scratch.acquire(rows * n * 8));
            in_lease.emplace(std::move(l));
            STRATA_RETURN_NOT_OK(source.read_block(plan.start(b), rows, in_lease->as<double>()));
            a = in_lease->as<double>();
          }
          if (k > 0) {
            STRATA_RETURN_NOT_OK(be.gemm(backend::Trans::No, backend::Trans::No, 1.0,
                                         backend::row_major<const double>(a, rows, n), view(x), 0.0,
                                         backend::row_major(out, rows, k)));
          }
        }
        if (!split) return sink(plan.start(b), rows, k, out);
        // Blocks of a range finish in any order: place each at its offset in the range.
        const size_t at = static_cast<size_t>((plan.start(b) - plan.start(first)) * k * 8);
        std::memcpy(mine.data() + at, out, static_cast<size_t>(rows * k * 8));
        return Status::OK();
      },
      nullptr));
  if (!split) return Status::OK();
  std::vector<std::string> all;
  STRATA_RETURN_NOT_OK(comm.gather(mine, &all));
  if (comm.rank() != 0) return Status::OK();
  for (int r = 0; r < comm.size(); ++r) {
    const auto [f, c] = rank_range(plan.num_blocks, 1, r, comm.size());
    const std::string& part = all[static_cast<size_t>(r)];
    size_t at = 0;
    for (int64_t b = f; b < f + c; ++b) {
      const int64_t rows = plan.count(b);
      if (part.size() < at + static_cast<size_t>(rows * k * 8))
        return Status::CommError("svd: rank ", r, " sent ", part.size(), " bytes of projected rows, fewer than its blocks hold");
      STRATA_RETURN_NOT_OK(sink(plan.start(b), rows, k, reinterpret_cast<const double*>(part.data() + at)));
      at += static_cast<size_t>(rows * k * 8);
    }
  }
  return Status::OK();
}

FactorSink matrix_sink(DenseMatrix& out) {
  return [&out](int64_t row0, int64_t nrows, int64_t k, const double* block) -> Status {
    for (int64_t i = 0; i < nrows; ++i)
      for (int64_t j = 0; j < k; ++j) out(row0 + i, j) = block[i * k + j];
    return Status::OK();
  };
}

Result<DenseMatrix> tsqr_r(const Context& ctx, const RowBlockSource& source, const PassOptions& pass, TsqrStats* stats) {
  const PassEnv options(ctx, pass);
  STRATA_ASSIGN_OR_RETURN(BlockPlan plan, plan_tsqr(source, options));
  ScratchPool scratch;
  STRATA_ASSIGN_OR_RETURN(RTree tree, tsqr_r_pass(source, plan, options, false, scratch, stats));
  return tree.finish();
}

Result<DenseMatrix> tsqr(const Context& ctx, const RowBlockSource& source, const FactorSink& q_sink, const PassOptions& pass,
                         TsqrStats* stats) {
  const PassEnv options(ctx, pass);
  if (source.rows() < source.cols()) {
    return Status::Invalid(source.describe(), ": TSQR needs rows >= cols (", source.rows(), " x ", source.cols(),
                           "); factor the transpose");
  }
  STRATA_ASSIGN_OR_RETURN(BlockPlan plan, plan_tsqr(source, options));
  ScratchPool scratch;
  STRATA_ASSIGN_OR_RETURN(RTree tree, tsqr_r_pass(source, plan, options, true, scratch, stats));
  STRATA_ASSIGN_OR_RETURN(DenseMatrix r, tree.finish());
  STRATA_ASSIGN_OR_RETURN(const std::vector<DenseMatrix> c_blocks, tree.distribute(DenseMatrix::identity(source.cols())));
  STRATA_RETURN_NOT_OK(tsqr_apply_pass(source, plan, options, c_blocks, scratch, q_sink));
  if (stats) stats->passes += 1;
  return r;
}

}  // namespace strata::linalg
