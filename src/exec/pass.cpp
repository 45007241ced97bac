// The block scheduler: workers claim blocks in index order (bounded by a window ahead of the
// oldest unfinished block and by the memory budget), run them in parallel, and one worker at a
// time commits finished blocks strictly in index order.
#include "strata/exec/pass.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>

#include "exec/run_context.hpp"
#include "strata/core/thread_pool.hpp"

namespace strata {

int64_t BlockView::numel() const {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

namespace detail {

// Materialize the block `info` of every input array; `bufs` owns the memory `views` point into.
Status read_block_views(const std::vector<Array>& arrays, const BlockInfo& info, RunContext& run,
                        std::vector<Buffer>& bufs, std::vector<BlockView>& views) {
  const Box box = Box::dense(info.origin, info.extent);
  for (const Array& a : arrays) {
    STRATA_ASSIGN_OR_RETURN(Buffer b, Buffer::allocate(std::max<int64_t>(1, box.numel()) * a.dtype().itemsize()));
    EvalContext ctx = run.eval_context();
    STRATA_RETURN_NOT_OK(a.node()->read_box(box, b.data(), ctx));
    views.push_back(BlockView{b.data(), a.dtype(), info.extent});
    bufs.push_back(std::move(b));
  }
  return Status::OK();
}

}  // namespace detail

Status for_each_block(const Context& ctx, const std::vector<Array>& arrays, const BlockKernel& fn,
                      const PassOptions& options, Shape block_shape) {
  STRATA_ASSIGN_OR_RETURN(detail::PassGrid grid, detail::PassGrid::make(arrays, std::move(block_shape)));
  detail::RunContext run(ctx, options);
  STRATA_RETURN_NOT_OK(run.prepare(arrays));
  PassOptions o = run.pass_options(options.label.empty() ? "for_each_block" : options.label);
  const auto t0 = std::chrono::steady_clock::now();
  run.start_pass(grid.grid.num_chunks());
  Status st = run_blocks(
      ctx, grid.grid.num_chunks(), grid.block_bytes(arrays),
      [&](int64_t i) -> Status {
        BlockInfo info = grid.info(i);
        std::vector<Buffer> bufs;
        std::vector<BlockView> views;
        STRATA_RETURN_NOT_OK(detail::read_block_views(arrays, info, run, bufs, views));
        return fn(info, views);
      },
      nullptr, o);
  run.finish_pass(o.label, t0);
  run.finish();
  return st;
}

namespace detail {

Status reduce_blocks_impl(const Context& ctx, const std::vector<Array>& arrays, int64_t slots,
                          const std::function<Status(const BlockInfo&, std::span<const BlockView>, int64_t)>& partial,
                          const std::function<void(int64_t)>& combine, const PassOptions& options,
                          Shape block_shape) {
  PassOptions o = options;
  o.window = slots;
  if (o.label.empty()) o.label = "reduce_blocks";
  STRATA_ASSIGN_OR_RETURN(PassGrid grid, PassGrid::make(arrays, std::move(block_shape)));
  RunContext run(ctx, o);
  STRATA_RETURN_NOT_OK(run.prepare(arrays));
  PassOptions po = run.pass_options(o.label);
  po.window = slots;
  const auto t0 = std::chrono::steady_clock::now();
  run.start_pass(grid.grid.num_chunks());
  Status st = run_blocks(
      ctx, grid.grid.num_chunks(), grid.block_bytes(arrays),
      [&](int64_t i) -> Status {
        BlockInfo info = grid.info(i);
        std::vector<Buffer> bufs;
        std::vector<BlockView> views;
        STRATA_RETURN_NOT_OK(detail::read_block_views(arrays, info, run, bufs, views));
        return partial(info, views, i % slots);
      },
      [&](int64_t i) -> Status {
        combine(i % slots);
        return Status::OK();
      },
      po);
  run.finish_pass(o.label, t0);
  run.finish();
  return st;
}

}  // namespace detail

}  // namespace strata
