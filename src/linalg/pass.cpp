#include <algorithm>
#include <cmath>

#include "linalg/pass_internal.hpp"
#include "strata/core/shape.hpp"
#include "strata/core/thread_pool.hpp"

namespace strata::linalg {
namespace {
// Automatic block heights are multiples of this many rows (when larger).
constexpr int64_t kRowGranule = 64;
}  // namespace

Result<BlockPlan> plan_blocks(const RowBlockSource& source, const PassEnv& options,
                              int64_t bytes_per_row, int64_t min_rows) {
  return plan_row_blocks(source.rows(), options.pass.block_rows, options.block_bytes, bytes_per_row, min_rows);
}

Result<BlockPlan> plan_row_blocks(int64_t total_rows, int64_t requested_rows, int64_t block_bytes,
                                  int64_t bytes_per_row, int64_t min_rows) {
  BlockPlan plan;
  plan.rows = total_rows;
  plan.bytes_per_row = bytes_per_row;
  int64_t rows = requested_rows;
  if (rows < 0) return Status::Invalid("block rows must be positive, got ", rows);
  if (rows == 0) {
    // From the block size and the row width only: not the budget or the thread count, and not
    // the storage chunking either (a block may start inside a stored chunk), so the reduction
    // tree — and the bits of the result — are the same however the input is chunked or held.
    rows = std::max<int64_t>(1, block_bytes / std::max<int64_t>(1, bytes_per_row));
    rows = std::max(rows, min_rows);
    if (rows > kRowGranule) rows = rows / kRowGranule * kRowGranule;
  }
  plan.block_rows = std::max<int64_t>(1, std::min(rows, std::max<int64_t>(1, plan.rows)));
  plan.num_blocks = plan.rows == 0 ? 0 : ceil_div(plan.rows, plan.block_rows);
  return plan;
}

Result<ScratchPool::Lease> ScratchPool::acquire(int64_t bytes) {
  std::unique_ptr<Buffer> buf;
  {
    // Best fit: the smallest free buffer that is large enough, so small requests do not
    // take (and strand) the large block buffers.
    std::lock_guard<std::mutex> lk(mu_);
    size_t best = free_.size();
    for (size_t i = 0; i < free_.size(); ++i) {
      if (free_[i]->size() >= bytes && (best == free_.size() || free_[i]->size() < free_[best]->size())) best = i;
    }
    if (best < free_.size()) {
      buf = std::move(free_[best]);
      free_.erase(free_.begin() + static_cast<std::ptrdiff_t>(best));
    }
  }
  if (!buf || buf->size() < bytes) {
    STRATA_ASSIGN_OR_RETURN(Buffer fresh, Buffer::allocate(std::max<int64_t>(bytes, 64)));
    buf = std::make_unique<Buffer>(std::move(fresh));
  }
  return Lease(this, std::move(buf));
}

void ScratchPool::release(std::unique_ptr<Buffer> buf) {
  std::lock_guard<std::mutex> lk(mu_);
  free_.push_back(std::move(buf));
}

Status run_blocks(const BlockPlan& plan, const PassEnv& env, const std::function<Status(int64_t)>& work,
                  const std::function<Status(int64_t)>& in_order) {
  return run_block_range(plan, env, 0, plan.num_blocks, work, in_order);
}

Status run_block_range(const BlockPlan& plan, const PassEnv& env, int64_t first, int64_t count,
                       const std::function<Status(int64_t)>& work, const std::function<Status(int64_t)>& in_order) {
  PassOptions o = env.pass;
  o.progress_units = [&plan, first](int64_t i) { return plan.count(first + i); };
  const int64_t bytes = plan.block_rows * plan.bytes_per_row + env.extra_bytes_per_block;
  std::function<Status(int64_t)> commit;
  if (in_order) commit = [&](int64_t i) { return in_order(first + i); };
  return strata::run_blocks(
      *env.ctx, count, std::min(bytes, env.ctx->memory_budget()), [&](int64_t i) { return work(first + i); }, commit,
      o);
}

}  // namespace strata::linalg
