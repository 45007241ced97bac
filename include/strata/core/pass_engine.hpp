#pragma once
/// \file
/// The pass engine's scheduler: every pass in strata — array passes (strata/exec), linalg's
/// row-block passes, the genotype passes of io and genomics — runs its blocks through
/// run_blocks. It lives at the bottom layer so the io writers share it; strata/exec adds the
/// array sources on top.
///
/// Determinism: blocks are claimed in index order and committed strictly in index order, so
/// anything combined in `commit` is the same bits for any thread count. Memory: at most
/// `window` blocks in flight, each holding `bytes_per_block` of the Context's budget.

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "strata/core/context.hpp"

namespace strata {

/// \brief Per-pass settings; resources (threads, memory budget, report, progress,
/// cancellation) come from the Context.
struct PassOptions {
  std::string label;             ///< name of the pass in reports and progress
  int64_t window = 0;            ///< max blocks started ahead of the oldest unfinished (0 = 2 x threads)
  /// Row-block passes (linalg): rows per block; 0 = about kRowBlockBytes of decoded rows.
  /// Changing it changes the reduction tree, so results then agree only to rounding.
  int64_t block_rows = 0;
  /// Progress units of block i (rows, variants); null = 1 per block.
  std::function<int64_t(int64_t)> progress_units;
  /// Read-ahead: `prefetch(i)` is called once per block, in increasing i, up to
  /// `read_ahead.blocks` blocks before block i starts, so a remote source can have those
  /// blocks' reads in flight (Store::prefetch) while earlier blocks decode and compute. It only
  /// starts I/O and never waits for it; what it fetches never changes what a block reads.
  /// Null or a zero window = no read-ahead.
  std::function<void(int64_t)> prefetch;
  struct ReadAhead {
    int64_t blocks = 0;  ///< blocks hinted ahead of the newest started
    int64_t bytes = 0;   ///< held for them, out of the memory budget the blocks share
  } read_ahead;
};

/// \brief The read-ahead window for blocks of `bytes_per_block` (stored bytes a block reads):
/// kReadAheadBlocks blocks, fewer when that would pass a quarter of ctx's memory budget (none
/// when not even one fits). run_blocks takes its bytes out of the budget for blocks in flight.
inline constexpr int64_t kReadAheadBlocks = 4;
PassOptions::ReadAhead read_ahead_window(const Context& ctx, int64_t bytes_per_block);

/// \brief Target bytes of one decoded block of a row-block pass (linalg). Fixed: block grids
/// depend only on the data, never on the thread count, the storage chunking or the memory
/// budget, so float results are the same bits in core and out of core. The budget bounds how
/// many blocks are in flight.
inline constexpr int64_t kRowBlockBytes = int64_t{16} << 20;

/// \brief Blocks a pass keeps in flight: options.window, or 2 per worker (1 when called from
/// inside one of ctx's workers, where passes run inline).
int64_t pass_window(const Context& ctx, const PassOptions& options);

/// \brief The read-ahead of one pass (run_blocks and run_pipelined use it; loops of their own
/// can too): starting(i) hints every block not yet hinted up to i + window, once each, in
/// order. Records the window in ctx's report. Thread-safe.
class ReadAheadHints {
 public:
  ReadAheadHints(const Context& ctx, const PassOptions& options, int64_t num_blocks);
  void starting(int64_t block);
  int64_t reserved() const { return on_ ? o_.read_ahead.bytes : 0; }

 private:
  const PassOptions& o_;
  int64_t n_, next_ = 0;
  bool on_;
  std::mutex mu_;
};

/// \brief The engine: run `work(i)` for blocks i in [0, num_blocks) in parallel on `ctx`'s
/// threads (claimed in order, each holding `bytes_per_block` of the budget while it runs) and
/// `commit(i)` serially in increasing i as soon as blocks 0..i have finished. The first failing
/// block (lowest index) decides the returned error; a cancelled context stops at the next
/// block with Cancelled. Advances ctx's progress by options.progress_units per committed block.
/// Called from inside one of ctx's workers it runs inline (one level of parallelism).
Status run_blocks(const Context& ctx, int64_t num_blocks, int64_t bytes_per_block,
                  const std::function<Status(int64_t)>& work, const std::function<Status(int64_t)>& commit,
                  const PassOptions& options = {});

/// \brief A pass whose reads overlap its compute: `read(i, slot)` fills buffer `slot` (0 or 1)
/// on one reader thread, one block ahead, while `compute(i, slot)` runs on the calling thread
/// (which may use all of ctx's workers). Blocks run strictly in order, so results do not
/// depend on timing. The first error (lowest block) is returned and no read starts after it; a
/// cancelled context stops before the next block. Reads run on the calling thread, before their
/// block's compute, where no reader thread can start or where pipelined_reads(ctx) is false (a
/// read called there may itself use ctx's workers); a null `read` (data already in memory)
/// starts no thread at all. Advances ctx's progress by options.progress_units per block.
/// \brief Whether run_pipelined overlaps reads with compute on ctx: only when a hardware thread
/// is left over beside ctx's workers (and, in a distributed run, those of the other ranks on
/// this host: Communicator::ranks_on_this_host). Otherwise a CPU-bound reader (a page-cached .bed is
/// translated, not waited for) would preempt a worker between the compute's barriers, and the
/// read is better split across the workers themselves.
bool pipelined_reads(const Context& ctx);

Status run_pipelined(const Context& ctx, int64_t num_blocks, const std::function<Status(int64_t, int)>& read,
                     const std::function<Status(int64_t, int)>& compute, const PassOptions& options = {});

/// \brief The upper triangle (diagonal included) of an n × n output cut into square tiles of
/// `tile` rows: tile t covers rows [row0, row0 + rows) and columns [col0, col0 + cols) with
/// row0 ≤ col0. The order of tiles is fixed by (n, tile): row-major over the triangle.
struct SymmetricTiles {
  int64_t n = 0, tile = 1, per_side = 0, count = 0;
  struct Tile {
    int64_t row0 = 0, rows = 0, col0 = 0, cols = 0;
    bool diagonal() const { return row0 == col0; }
  };
  static SymmetricTiles make(int64_t n, int64_t tile);
  Tile at(int64_t t) const;
};

/// \brief A symmetric N × N tile pass (distances, kinship, GRM): the input is streamed once in
/// `num_blocks` row blocks (variants), each read one block ahead of the compute as in
/// run_pipelined; for each block, `kernel(block, slot, tile_index, tile)` runs for every tile of
/// the upper triangle in parallel on ctx's workers. Each tile accumulates its blocks in block
/// order, on one worker at a time, so the result is the same bits for any thread count; the
/// caller owns one accumulator per tile (the output, which the caller asked for). Progress
/// advances per block by options.progress_units.
Status run_symmetric_tiles(const Context& ctx, const SymmetricTiles& tiles, int64_t num_blocks,
                           const std::function<Status(int64_t block, int slot)>& read,
                           const std::function<Status(int64_t block, int slot, int64_t tile_index,
                                                      const SymmetricTiles::Tile& tile)>& kernel,
                           const PassOptions& options = {});

/// \brief run_symmetric_tiles over the listed tiles only (indices into `tiles`, each once):
/// one band of an output too large to accumulate at once. Each listed tile gets exactly the
/// blocks, in the order, that the full pass gives it, so a band's tiles are the same bits as
/// the same tiles of the full pass.
Status run_symmetric_tiles(const Context& ctx, const SymmetricTiles& tiles, const std::vector<int64_t>& tile_indices,
                           int64_t num_blocks, const std::function<Status(int64_t block, int slot)>& read,
                           const std::function<Status(int64_t block, int slot, int64_t tile_index,
                                                      const SymmetricTiles::Tile& tile)>& kernel,
                           const PassOptions& options = {});

}  // namespace strata
