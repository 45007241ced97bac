#pragma once
// Block planning and the block-parallel driver shared by TSQR and the randomized passes.

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "strata/core/buffer.hpp"

#include "strata/core/result.hpp"
#include "strata/linalg/pass.hpp"
#include "strata/linalg/row_blocks.hpp"

namespace strata::linalg {

/// What a linalg pass runs with: the Context's resources and the pass settings. Block sizes
/// come from the data (kRowBlockBytes), never from the threads, the chunking or the budget.
struct PassEnv {
  PassEnv(const Context& c, const PassOptions& p) : ctx(&c), pass(p), block_bytes(kRowBlockBytes) {}
  const Context* ctx;
  PassOptions pass;
  int64_t block_bytes;
  int64_t extra_bytes_per_block = 0;  ///< what a block in flight holds besides its rows
};

/// Fixed partition of a source's rows into blocks: block i = [i * block_rows, ...) clipped.
/// Depends on the source and the options only, never on the thread count.
struct BlockPlan {
  int64_t rows = 0;
  int64_t block_rows = 1;
  int64_t num_blocks = 0;
  int64_t bytes_per_row = 0;  ///< decoded bytes of one row (for the memory budget)
  int64_t start(int64_t i) const { return i * block_rows; }
  int64_t count(int64_t i) const { return std::min(block_rows, rows - i * block_rows); }
};

/// Plan blocks of about env.block_bytes given the decoded bytes of one row; at least
/// `min_rows` rows per block where the matrix has them.
Result<BlockPlan> plan_blocks(const RowBlockSource& source, const PassEnv& options,
                              int64_t bytes_per_row, int64_t min_rows = 1);
/// As plan_blocks() for a source of `rows` rows, `requested_rows` per block (PassOptions::
/// block_rows; 0 = about `block_bytes`): the plan depends on nothing else.
Result<BlockPlan> plan_row_blocks(int64_t rows, int64_t requested_rows, int64_t block_bytes, int64_t bytes_per_row,
                                  int64_t min_rows = 1);

/// Reusable block buffers for the passes of one algorithm run: a task leases a buffer and
/// returns it when done, so buffers are allocated (and their pages faulted in) once per run
/// rather than once per block, and are freed when the run ends.
class ScratchPool {
 public:
  class Lease {
   public:
    Lease(ScratchPool* pool, std::unique_ptr<Buffer> buf) : pool_(pool), buf_(std::move(buf)) {}
    Lease(Lease&&) = default;
    ~Lease() {
      if (buf_) pool_->release(std::move(buf_));
    }
    template <class T> T* as() { return buf_->as<T>(); }

   private:
    ScratchPool* pool_;
    std::unique_ptr<Buffer> buf_;
  };
  /// A buffer of at least `bytes` (contents undefined). OutOfMemory when allocation fails.
  Result<Lease> acquire(int64_t bytes);

 private:
  void release(std::unique_ptr<Buffer> buf);
  std::mutex mu_;
  std::vector<std::unique_ptr<Buffer>> free_;
};

/// Run `work(i)` for every block through the pass engine (strata::run_blocks): blocks in parallel, `in_order(i)` serially in ascending i (may be empty),
/// at most a window of blocks in flight. Results combined in `in_order` do not depend on the
/// thread count. Advances the context's progress by rows.
Status run_blocks(const BlockPlan& plan, const PassEnv& options,
                  const std::function<Status(int64_t)>& work,
                  const std::function<Status(int64_t)>& in_order);
/// As run_blocks() over blocks [first, first + count) only (a rank's share under MPI).
Status run_block_range(const BlockPlan& plan, const PassEnv& options, int64_t first, int64_t count,
                       const std::function<Status(int64_t)>& work, const std::function<Status(int64_t)>& in_order);

}  // namespace strata::linalg
