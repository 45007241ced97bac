// The block scheduler: workers claim blocks in index order (bounded by a window ahead of the
// oldest unfinished block and by the memory budget), run them in parallel, and one worker at a
// time commits finished blocks strictly in index order.
#include "strata/core/pass_engine.hpp"

#include <algorithm>
#include <climits>
#include <condition_variable>
#include <exception>
#include <future>
#include <thread>
#include <system_error>
#include <mutex>
#include <new>
#include <vector>

#include "strata/core/buffer.hpp"
#include "strata/core/thread_pool.hpp"

namespace strata {

namespace {

int64_t effective_threads(const Context& ctx) {
  ThreadPool& pool = ctx.pool();
  return pool.in_worker() ? 1 : pool.size();
}

}  // namespace

int64_t pass_window(const Context& ctx, const PassOptions& o) {
  return o.window > 0 ? o.window : 2 * effective_threads(ctx);
}

PassOptions::ReadAhead read_ahead_window(const Context& ctx, int64_t bytes_per_block) {
  PassOptions::ReadAhead w;
  const int64_t b = std::max<int64_t>(1, bytes_per_block);
  w.blocks = std::min(kReadAheadBlocks, ctx.memory_budget() / 4 / b);
  w.bytes = w.blocks * b;
  return w;
}

ReadAheadHints::ReadAheadHints(const Context& ctx, const PassOptions& o, int64_t n)
    : o_(o), n_(n), on_(o.prefetch && o.read_ahead.blocks > 0) {
  if (!on_) return;
  RunReport part;
  part.read_ahead_blocks = o.read_ahead.blocks;
  part.read_ahead_bytes = o.read_ahead.bytes;
  ctx.report().merge(part);
}

void ReadAheadHints::starting(int64_t block) {
  if (!on_) return;
  std::lock_guard lock(mu_);
  const int64_t upto = std::min(n_, block + 1 + o_.read_ahead.blocks);
  for (; next_ < upto; ++next_) o_.prefetch(next_);
}

Status run_blocks(const Context& ctx, int64_t n, int64_t bytes_per_block, const std::function<Status(int64_t)>& work,
                  const std::function<Status(int64_t)>& commit, const PassOptions& options) {
  if (n <= 0) return Status::OK();
  STRATA_RETURN_NOT_OK(ctx.check_cancelled());
  ctx.report().add_pass(n);
  ctx.progress_phase(options.label);
  ThreadPool& pool = ctx.pool();
  const int64_t budget = ctx.memory_budget();
  if (bytes_per_block > budget) {
    return Status::OutOfMemory("a block of ", options.label.empty() ? "the pass" : options.label, " needs ",
                               format_bytes(bytes_per_block), " but the memory budget is ", format_bytes(budget),
                               "; use smaller chunks or a larger budget");
  }
  const int64_t window = std::max<int64_t>(1, pass_window(ctx, options));
  const int64_t workers = std::min<int64_t>(effective_threads(ctx), n);
  // Read-ahead holds its bytes out of the budget, as long as one block still fits beside it.
  ReadAheadHints ahead(ctx, options, n);
  const int64_t block_budget = std::max(bytes_per_block, budget - ahead.reserved());

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
                 (next < committed + window && in_use + bytes_per_block <= block_budget);
        });
        if (next >= n || first_error != INT64_MAX) return Status::OK();
        if (ctx.cancelled()) {
          first_error = next;
          error = ctx.check_cancelled();
          cv.notify_all();
          return Status::OK();
        }
        i = next++;
        in_use += bytes_per_block;
        ahead.starting(i);
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
          ctx.advance_progress(options.progress_units ? options.progress_units(c) : 1);
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
  if (!error.ok()) return error;
  return st;
}

bool pipelined_reads(const Context& ctx) {
  // The ranks of a distributed run on this host share its hardware threads.
  const int64_t busy = int64_t{ctx.threads()} * std::max(1, ctx.communicator().ranks_on_this_host());
  return busy < static_cast<int64_t>(std::max(1u, std::thread::hardware_concurrency()));
}

Status run_pipelined(const Context& ctx, int64_t n, const std::function<Status(int64_t, int)>& read,
                     const std::function<Status(int64_t, int)>& compute, const PassOptions& options) {
  if (n <= 0) return Status::OK();
  ctx.report().add_pass(n);
  ctx.progress_phase(options.label);
  auto guarded = [](const std::function<Status(int64_t, int)>& f, int64_t i, int slot) -> Status {
    try {
      return f(i, slot);
    } catch (const std::bad_alloc&) {
      return Status::OutOfMemory("allocation failed in block ", i);
    } catch (const std::exception& e) {
      return Status::Internal("exception in block ", i, ": ", e.what());
    }
  };
  // Start read(i) in the background; a process that cannot start a thread reads inline, and
  // so does a context with no spare hardware thread (see pipelined_reads).
  const bool overlap = read && pipelined_reads(ctx);
  auto ready = [](Status st) {
    std::promise<Status> done;
    done.set_value(std::move(st));
    return done.get_future();
  };
  ReadAheadHints ahead(ctx, options, n);
  auto start_read = [&](int64_t i) -> std::future<Status> {
    if (!read) return ready(Status::OK());  // nothing to read (resident data): no thread
    ahead.starting(i);
    const int slot = static_cast<int>(i % 2);
    if (!overlap) return ready(guarded(read, i, slot));
    try {
      return std::async(std::launch::async, [&guarded, &read, i, slot] { return guarded(read, i, slot); });
    } catch (const std::system_error&) {
      return ready(guarded(read, i, slot));
    }
  };
  std::future<Status> next = start_read(0);
  for (int64_t i = 0; i < n; ++i) {
    Status st = next.get();
    if (st.ok()) st = ctx.check_cancelled();
    if (!st.ok()) return st;
    if (overlap && i + 1 < n) next = start_read(i + 1);
    st = guarded(compute, i, static_cast<int>(i % 2));
    if (!st.ok()) {
      if (next.valid()) next.wait();  // the read in flight uses the caller's buffers
      return st;
    }
    if (!overlap && i + 1 < n) next = start_read(i + 1);
    ctx.advance_progress(options.progress_units ? options.progress_units(i) : 1);
  }
  return Status::OK();
}

SymmetricTiles SymmetricTiles::make(int64_t n, int64_t tile) {
  SymmetricTiles g;
  g.n = std::max<int64_t>(0, n);
  g.tile = std::max<int64_t>(1, tile);
  g.per_side = (g.n + g.tile - 1) / g.tile;
  g.count = g.per_side * (g.per_side + 1) / 2;
  return g;
}

SymmetricTiles::Tile SymmetricTiles::at(int64_t t) const {
  // Row i of the triangle holds per_side - i tiles: walk down to the row that holds t.
  int64_t i = 0;
  while (t >= per_side - i) {
    t -= per_side - i;
    ++i;
  }
  const int64_t j = i + t;
  Tile out;
  out.row0 = i * tile;
  out.rows = std::min(tile, n - out.row0);
  out.col0 = j * tile;
  out.cols = std::min(tile, n - out.col0);
  return out;
}

Status run_symmetric_tiles(const Context& ctx, const SymmetricTiles& tiles, int64_t num_blocks,
                           const std::function<Status(int64_t, int)>& read,
                           const std::function<Status(int64_t, int, int64_t, const SymmetricTiles::Tile&)>& kernel,
                           const PassOptions& options) {
  std::vector<int64_t> every(static_cast<size_t>(tiles.count));
  for (int64_t t = 0; t < tiles.count; ++t) every[static_cast<size_t>(t)] = t;
  return run_symmetric_tiles(ctx, tiles, every, num_blocks, read, kernel, options);
}

Status run_symmetric_tiles(const Context& ctx, const SymmetricTiles& tiles, const std::vector<int64_t>& tile_indices,
                           int64_t num_blocks, const std::function<Status(int64_t, int)>& read,
                           const std::function<Status(int64_t, int, int64_t, const SymmetricTiles::Tile&)>& kernel,
                           const PassOptions& options) {
  std::vector<SymmetricTiles::Tile> listed;
  listed.reserve(tile_indices.size());
  for (int64_t t : tile_indices) {
    if (t < 0 || t >= tiles.count) {
      return Status::Invalid("run_symmetric_tiles: tile ", t, " out of range [0, ", tiles.count, ")");
    }
    listed.push_back(tiles.at(t));
  }
  const auto count = static_cast<int64_t>(listed.size());
  PassOptions o = options;
  if (o.label.empty()) o.label = "symmetric tiles";
  return run_pipelined(
      ctx, num_blocks, read,
      [&](int64_t block, int slot) -> Status {
        return ctx.pool().parallel_for(count, [&](int64_t i) -> Status {
          return kernel(block, slot, tile_indices[static_cast<size_t>(i)], listed[static_cast<size_t>(i)]);
        });
      },
      o);
}

}  // namespace strata
