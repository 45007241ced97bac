// The block scheduler: workers claim blocks in index order (bounded by a window ahead of the
// oldest unfinished block and by the memory budget), run them in parallel, and one worker at a
// time commits finished blocks strictly in index order.
#include "strata/exec/pass.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>

#include "exec/run_context.hpp"
#include "strata/core/progress.hpp"
#include "strata/core/thread_pool.hpp"

namespace strata {

namespace detail {

int64_t default_memory_budget() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return int64_t{4} << 30;
  return static_cast<int64_t>(pages) * page / 2;
}

int64_t effective_threads(const ExecOptions& o) {
  ThreadPool& pool = o.pool ? *o.pool : ThreadPool::global();
  return pool.in_worker() ? 1 : pool.size();
}

int64_t reduce_slots(const ExecOptions& o) {
  return o.window > 0 ? o.window : 2 * effective_threads(o);
}

}  // namespace detail

int64_t BlockView::numel() const {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

Status run_blocks(int64_t n, int64_t bytes_per_block, const std::function<Status(int64_t)>& work,
                  const std::function<Status(int64_t)>& commit, const ExecOptions& options) {
  if (n <= 0) return Status::OK();
  ThreadPool& pool = options.pool ? *options.pool : ThreadPool::global();
  const int64_t budget = options.memory_budget > 0 ? options.memory_budget : detail::default_memory_budget();
  if (bytes_per_block > budget) {
    return Status::OutOfMemory("a block of ", options.label.empty() ? "the pass" : options.label, " needs ",
                               format_bytes(bytes_per_block), " but the memory budget is ", format_bytes(budget),
                               "; use smaller chunks or a larger budget");
  }
  const int64_t window = std::max<int64_t>(1, detail::reduce_slots(options));
  const int64_t workers = std::min<int64_t>(detail::effective_threads(options), n);
  std::unique_ptr<ProgressBar> bar;
  if (options.progress && n > 1 && !pool.in_worker()) {
    bar = std::make_unique<ProgressBar>(options.label.empty() ? "pass" : options.label, n);
  }

  std::mutex mu;
  std::condition_variable cv;
  int64_t next = 0, committed = 0, in_use = 0, first_error = INT64_MAX;
  bool committing = false;
  Status error;
  std::vector<char> done(static_cast<size_t>(window), 0);
  auto guarded = [](const std::function<Status(int64_t)>& f, int64_t i) -> Status {
    try {
      return f(i);
    } catch (const std::bad_alloc&) {
      return Status::OutOfMemory("allocation failed in block ", i);
    } catch (const std::exception& e) {
      return Status::Internal("exception in block ", i, ": ", e.what());
    }
  };
  auto worker = [&]() -> Status {
    while (true) {
      int64_t i;
      {
        std::unique_lock<std::mutex> lk(mu);
        cv.wait(lk, [&] {
          return next >= n || first_error != INT64_MAX ||
                 (next < committed + window && in_use + bytes_per_block <= budget);
        });
        if (next >= n || first_error != INT64_MAX) return Status::OK();
        i = next++;
        in_use += bytes_per_block;
      }
      Status st = guarded(work, i);
      std::unique_lock<std::mutex> lk(mu);
      in_use -= bytes_per_block;
      if (!st.ok() && i < first_error) {
        first_error = i;
        error = std::move(st);
      }
      done[i % window] = 1;
      if (!committing) {
        committing = true;
        while (committed < n && done[committed % window] && committed < first_error) {
          const int64_t c = committed;
          done[c % window] = 0;
          lk.unlock();
          Status cs = commit ? guarded(commit, c) : Status::OK();
          if (bar) bar->advance();
          lk.lock();
          if (!cs.ok() && c < first_error) {
            first_error = c;
            error = std::move(cs);
          }
          ++committed;
        }
        committing = false;
      }
      cv.notify_all();
    }
  };
  Status st = pool.parallel_for(workers, [&](int64_t) { return worker(); });
  if (bar) bar->finish();
  if (!error.ok()) return error;
  return st;
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

Status for_each_block(const std::vector<Array>& arrays, const BlockKernel& fn, const ExecOptions& options,
                      Shape block_shape) {
  STRATA_ASSIGN_OR_RETURN(detail::PassGrid grid, detail::PassGrid::make(arrays, std::move(block_shape)));
  detail::RunContext run(options);
  STRATA_RETURN_NOT_OK(run.prepare(arrays));
  ExecOptions o = run.pass_options(options.label.empty() ? "for_each_block" : options.label);
  const auto t0 = std::chrono::steady_clock::now();
  Status st = run_blocks(
      grid.grid.num_chunks(), grid.block_bytes(arrays),
      [&](int64_t i) -> Status {
        BlockInfo info = grid.info(i);
        std::vector<Buffer> bufs;
        std::vector<BlockView> views;
        STRATA_RETURN_NOT_OK(detail::read_block_views(arrays, info, run, bufs, views));
        return fn(info, views);
      },
      nullptr, o);
  run.finish_pass(o.label, grid.grid.num_chunks(), t0);
  run.finish();
  return st;
}

namespace detail {

Status reduce_blocks_impl(const std::vector<Array>& arrays, int64_t slots,
                          const std::function<Status(const BlockInfo&, std::span<const BlockView>, int64_t)>& partial,
                          const std::function<void(int64_t)>& combine, const ExecOptions& options,
                          Shape block_shape) {
  ExecOptions o = options;
  o.window = slots;
  if (o.label.empty()) o.label = "reduce_blocks";
  STRATA_ASSIGN_OR_RETURN(PassGrid grid, PassGrid::make(arrays, std::move(block_shape)));
  RunContext run(o);
  STRATA_RETURN_NOT_OK(run.prepare(arrays));
  ExecOptions po = run.pass_options(o.label);
  po.window = slots;
  const auto t0 = std::chrono::steady_clock::now();
  Status st = run_blocks(
      grid.grid.num_chunks(), grid.block_bytes(arrays),
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
  run.finish_pass(o.label, grid.grid.num_chunks(), t0);
  run.finish();
  return st;
}

}  // namespace detail

}  // namespace strata
