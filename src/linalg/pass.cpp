#include <algorithm>
#include <cmath>

#include "linalg/pass_internal.hpp"
#include "strata/core/progress.hpp"
#include "strata/core/shape.hpp"
#include "strata/core/thread_pool.hpp"
#include "strata/linalg/dense.hpp"

namespace strata::linalg {

Result<BlockPlan> plan_blocks(const RowBlockSource& source, const PassOptions& options,
                              int64_t bytes_per_row, int64_t min_rows) {
  BlockPlan plan;
  plan.rows = source.rows();
  int64_t rows = options.block_rows;
  if (options.block_rows < 0) return Status::Invalid("block rows must be positive, got ", options.block_rows);
  if (rows == 0) {
    rows = std::max<int64_t>(1, options.block_bytes / std::max<int64_t>(1, bytes_per_row));
    rows = std::max(rows, min_rows);
    const int64_t pref = source.preferred_block_rows();
    if (pref > 0) {
      const double mult = std::max(1.0, std::round(static_cast<double>(rows) / static_cast<double>(pref)));
      rows = static_cast<int64_t>(mult) * pref;
    }
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

ThreadPool& pass_pool(const PassOptions& options) {
  return options.pool ? *options.pool : ThreadPool::global();
}

Status run_blocks(const BlockPlan& plan, const PassOptions& options,
                  const std::function<Status(int64_t)>& work,
                  const std::function<Status(int64_t)>& in_order) {
  ThreadPool& pool = pass_pool(options);
  BlasThreadsGuard blas(1);
  // Two blocks per thread keep every worker busy across the wave barrier without holding
  // more than that many blocks.
  const int64_t wave = std::max<int64_t>(2, 2 * static_cast<int64_t>(pool.size()));
  for (int64_t first = 0; first < plan.num_blocks; first += wave) {
    const int64_t n = std::min(wave, plan.num_blocks - first);
    STRATA_RETURN_NOT_OK(pool.parallel_for(n, [&](int64_t j) -> Status {
      STRATA_RETURN_NOT_OK(work(first + j));
      if (options.progress) options.progress->advance(plan.count(first + j));
      return Status::OK();
    }));
    if (in_order) {
      for (int64_t j = 0; j < n; ++j) STRATA_RETURN_NOT_OK(in_order(first + j));
    }
  }
  return Status::OK();
}

}  // namespace strata::linalg
