// The block scheduler: workers claim blocks in index order (bounded by a window ahead of the
// oldest unfinished block and by the memory budget), run them in parallel, and one worker at a
// time commits finished blocks strictly in index order.
#include "strata/exec/pass.hpp"

#include <unistd.h>

#include <algorithm>

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
  for (const Array& a : arrays) {
    STRATA_ASSIGN_OR_RETURN(Buffer b, run.read_block(*a.node(), info, a.dtype().itemsize()));
    views.push_back(BlockView{b.data(), a.dtype(), info.extent});
    bufs.push_back(std::move(b));
  }
  return Status::OK();
}

// One pass over the grid's blocks: `visit(info, views, i)` with block i of every array read,
// `commit` as run_blocks takes it.
Status run_block_views(const PassGrid& grid, const std::vector<Array>& arrays, RunContext& run,
                       const std::function<Status(const BlockInfo&, std::span<const BlockView>, int64_t)>& visit,
                       const std::function<Status(int64_t)>& commit, const PassOptions& o) {
  return run.run_pass(
      grid.grid.num_chunks(), grid.block_bytes(arrays),
      [&](int64_t i) -> Status {
        const BlockInfo info = grid.info(i);
        std::vector<Buffer> bufs;
        std::vector<BlockView> views;
        STRATA_RETURN_NOT_OK(read_block_views(arrays, info, run, bufs, views));
        return visit(info, views, i);
      },
      commit, o);
}

}  // namespace detail

Status for_each_block(const Context& ctx, const std::vector<Array>& arrays, const BlockKernel& fn,
                      const PassOptions& options, Shape block_shape) {
  STRATA_ASSIGN_OR_RETURN(detail::PassGrid grid, detail::PassGrid::make(arrays, std::move(block_shape)));
  detail::RunContext run(ctx, options);
  STRATA_RETURN_NOT_OK(run.prepare(arrays));
  const PassOptions o = run.pass_options(options.label.empty() ? "for_each_block" : options.label);
  Status st = detail::run_block_views(
      grid, arrays, run, [&](const BlockInfo& info, std::span<const BlockView> views, int64_t) { return fn(info, views); },
      nullptr, o);
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
  Status st = run_block_views(
      grid, arrays, run,
      [&](const BlockInfo& info, std::span<const BlockView> views, int64_t i) { return partial(info, views, i % slots); },
      [&](int64_t i) -> Status {
        combine(i % slots);
        return Status::OK();
      },
      po);
  run.finish();
  return st;
}

}  // namespace detail

}  // namespace strata
