// Y = AᵀA·Q in one pass on the pass engine: per block Z_b = A_bᵀ·(A_b·Q) in parallel, summed
// in the fixed binary tree of core/tree_sum.hpp over the block grid. Under MPI each rank takes
// a contiguous range of blocks and the ranks complete the same tree: Y is the same bits for
// any thread and rank count.
#include <algorithm>
#include <optional>
#include <type_traits>
#include <vector>

#include "linalg/dense_internal.hpp"
#include "linalg/gram_pass_internal.hpp"
#include "strata/core/shape.hpp"
#include "strata/core/tree_sum.hpp"

namespace strata::linalg {
namespace {

// This rank's contiguous range of a pass's blocks (all of them without MPI).
std::pair<int64_t, int64_t> rank_blocks(const Communicator& comm, int64_t blocks) {
  return comm.size() > 1 ? rank_range(blocks, 1, comm.rank(), comm.size()) : std::pair<int64_t, int64_t>{0, blocks};
}

// y (already n × w) = the tree's total, the ranks completing it.
Status take_total(TreeSum& tree, const Communicator& comm, DenseMatrix& y) {
  std::vector<double> total;
  STRATA_RETURN_NOT_OK(tree.combine(comm, &total));
  if (total.size() != y.data.size()) return Status::Internal("gram pass: the tree summed ", total.size(), " values");
  y.data = std::move(total);
  return Status::OK();
}

// One block's Z = Aᵀ·(A·Q): a (rows × n, row-major) times qv (n × w) into w_buf (rows × w), then
// z (n × w, column-major). The pass and the blocks computed elsewhere (gram_block_partial) run
// this same code, so their partials are the same bits.
template <class T>
Status block_products(const backend::Backend& be, const T* a, int64_t rows, int64_t n, backend::MatrixView<const T> qv,
                      T* w_buf, T* z) {
  using backend::Trans;
  const int64_t w = qv.cols;
  const auto av = backend::row_major<const T>(a, rows, n);
  const auto wv = backend::col_major(w_buf, rows, w);
  STRATA_RETURN_NOT_OK(be.gemm(Trans::No, Trans::No, T(1), av, qv, T(0), wv));
  return be.gemm(Trans::Yes, Trans::No, T(1), av, backend::MatrixView<const T>(wv), T(0), backend::col_major(z, n, w));
}

template <class T>
Status gram_pass_t(const RowBlockSource& source, const BlockPlan& plan, const PassEnv& options,
                   const DenseMatrix& q, ScratchPool& scratch, DenseMatrix& y) {
  const int64_t n = source.cols(), w = q.cols;
  const backend::Backend& be = backend::of(*options.ctx);
  options.ctx->report().add_pass(plan.num_blocks);
  std::vector<T> qt(q.data.begin(), q.data.end());
  const auto qv = backend::col_major<const T>(qt.data(), n, w);
  y = DenseMatrix(n, w);
  // Z_b of the blocks in flight, by window slot (the engine never has more in flight).
  const int64_t window = std::max<int64_t>(1, pass_window(*options.ctx, options.pass));
  std::vector<std::optional<ScratchPool::Lease>> zs(static_cast<size_t>(window));
  PassEnv env = options;
  // A block in flight holds its rows, A_b·Q and Z_b.
  env.extra_bytes_per_block = (n * w + plan.block_rows * w) * static_cast<int64_t>(sizeof(T));
  const Communicator& comm = options.ctx->communicator();
  const auto [first, count] = rank_blocks(comm, plan.num_blocks);
  TreeSum tree(n * w);
  STRATA_RETURN_NOT_OK(run_block_range(
      plan, env, first, count,
      [&](int64_t b) -> Status {
        const int64_t rows = plan.count(b);
        STRATA_ASSIGN_OR_RETURN(auto la, scratch.acquire(rows * n * static_cast<int64_t>(sizeof(T))));
        STRATA_ASSIGN_OR_RETURN(auto lw, scratch.acquire(rows * w * static_cast<int64_t>(sizeof(T))));
        STRATA_ASSIGN_OR_RETURN(auto lz, scratch.acquire(n * w * static_cast<int64_t>(sizeof(T))));
        T* a = la.template as<T>();
        STRATA_RETURN_NOT_OK(source.read_block(plan.start(b), rows, a));
        STRATA_RETURN_NOT_OK(block_products(be, a, rows, n, qv, lw.template as<T>(), lz.template as<T>()));
        zs[static_cast<size_t>(b % window)].emplace(std::move(lz));
        return Status::OK();
      },
      [&](int64_t b) -> Status {
        // Partials join the tree in block order, in float64.
        auto& z = zs[static_cast<size_t>(b % window)];
        const T* zb = z->template as<T>();
        tree.push(b, std::vector<double>(zb, zb + n * w));
        z.reset();
        return Status::OK();
      }));
  return take_total(tree, comm, y);
}

// A source whose products the backend computes from its definition (generated_products: a
// RandInt3 source on a device that generates it where it multiplies): one gram product per
// block of kFusedRows rows — no rows generated or copied on the host — in float64 whatever the
// pass's precision. The grid depends on the shape alone and the
// partials join the same tree in block order, so Y is deterministic (the backend's contract
// fixes each product's order).
constexpr int64_t kFusedRows = int64_t{1} << 16;

Status gram_pass_fused(const RowBlockSource& source, const GeneratedProducts& products, const PassEnv& options,
                       const DenseMatrix& q, DenseMatrix& y) {
  const int64_t n = source.cols(), w = q.cols;
  BlockPlan plan;
  plan.rows = source.rows();
  plan.block_rows = kFusedRows;
  plan.num_blocks = ceil_div(plan.rows, kFusedRows);
  plan.bytes_per_row = w * static_cast<int64_t>(sizeof(double));  // A·Q's rows (on the device)
  options.ctx->report().add_pass(plan.num_blocks);
  const auto qv = backend::col_major<const double>(q.data.data(), n, w);
  const int64_t window = std::max<int64_t>(1, pass_window(*options.ctx, options.pass));
  std::vector<std::vector<double>> zs(static_cast<size_t>(window));
  PassEnv env = options;
  env.extra_bytes_per_block = n * w * static_cast<int64_t>(sizeof(double));
  const Communicator& comm = options.ctx->communicator();
  const auto [first, count] = rank_blocks(comm, plan.num_blocks);
  TreeSum tree(n * w);
  y = DenseMatrix(n, w);
  STRATA_RETURN_NOT_OK(run_block_range(
      plan, env, first, count,
      [&](int64_t b) -> Status {
        std::vector<double> z(static_cast<size_t>(n * w));
        STRATA_RETURN_NOT_OK(products.gram(plan.start(b), plan.count(b), qv, backend::col_major(z.data(), n, w)));
        zs[static_cast<size_t>(b % window)] = std::move(z);
        return Status::OK();
      },
      [&](int64_t b) -> Status {
        tree.push(b, std::move(zs[static_cast<size_t>(b % window)]));
        return Status::OK();
      }));
  return take_total(tree, comm, y);
}

}  // namespace

Result<BlockPlan> plan_gram(const RowBlockSource& source, const PassEnv& options, int64_t elem_bytes) {
  STRATA_ASSIGN_OR_RETURN(int64_t row_bytes, checked_mul(source.cols(), elem_bytes));
  return plan_blocks(source, options, row_bytes);
}

Status gram_block_partial(const Context& ctx, const double* a, int64_t rows, int64_t cols, const DenseMatrix& q,
                          std::vector<double>* z) {
  if (rows < 1 || cols < 1 || q.rows != cols || q.cols < 1)
    return Status::Invalid("gram block: ", rows, " × ", cols, " rows against a ", q.rows, " × ", q.cols, " block");
  std::vector<double> w(static_cast<size_t>(rows * q.cols));
  z->assign(static_cast<size_t>(cols * q.cols), 0.0);
  return block_products(backend::of(ctx), a, rows, cols, backend::col_major<const double>(q.data.data(), cols, q.cols),
                        w.data(), z->data());
}

Status gram_pass(const RowBlockSource& source, const BlockPlan& plan, const PassEnv& options,
                 const DenseMatrix& q, bool use_float, ScratchPool& scratch, DenseMatrix& y) {
  if (const auto products = source.generated_products(backend::of(*options.ctx)))
    return gram_pass_fused(source, *products, options, q, y);
  return use_float ? gram_pass_t<float>(source, plan, options, q, scratch, y)
                   : gram_pass_t<double>(source, plan, options, q, scratch, y);
}

}  // namespace strata::linalg
