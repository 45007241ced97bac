// The pair pass (strata/genomics/pair_counts.hpp): bit planes of every sample in one parallel
// pass over the variants, then the lower triangle of tiles on the pass engine, each tile
// computed whole (all variants) by one worker and committed in order.
#include "strata/genomics/pair_counts.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <mutex>
#include <vector>

#include "strata/core/buffer.hpp"
#include "strata/core/pass_engine.hpp"

namespace strata::genomics {
namespace {

using backend::kPairCountFields;
using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t) {
  return std::chrono::duration<double>(clock_type::now() - t).count();
}

constexpr int64_t kDefaultTile = 256;
constexpr int64_t kWordBits = 64;

// Tile (R, C), C ≤ R, of the lower triangle at position t of the row-major order.
std::pair<int64_t, int64_t> lower_tile(int64_t t) {
  int64_t r = static_cast<int64_t>((std::sqrt(8.0 * static_cast<double>(t) + 1.0) - 1.0) / 2.0);
  while (r * (r + 1) / 2 > t) --r;
  while ((r + 1) * (r + 2) / 2 <= t) ++r;
  return {r, t - r * (r + 1) / 2};
}

}  // namespace

PairTable PairTable::from_fields(const int64_t* f, int64_t s) {
  using namespace backend;
  PairTable t;
  t.c[1][1] = f[kPairHetHet * s];
  t.c[1][2] = f[kPairHetAlt * s];
  t.c[2][1] = f[kPairAltHet * s];
  t.c[2][2] = f[kPairAltAlt * s];
  t.c[1][0] = f[kPairHetObs * s] - t.c[1][1] - t.c[1][2];
  t.c[2][0] = f[kPairAltObs * s] - t.c[2][1] - t.c[2][2];
  t.c[0][1] = f[kPairObsHet * s] - t.c[1][1] - t.c[2][1];
  t.c[0][2] = f[kPairObsAlt * s] - t.c[1][2] - t.c[2][2];
  t.c[0][0] = f[kPairBoth * s] - t.c[1][0] - t.c[1][1] - t.c[1][2] - t.c[2][0] - t.c[2][1] - t.c[2][2] - t.c[0][1] -
              t.c[0][2];
  return t;
}

PairTable PairTable::from_king_fields(const int64_t* f, int64_t s) {
  using namespace backend;
  PairTable t;
  t.c[1][1] = f[kKingHetHet * s];
  t.c[1][0] = f[kKingHetObs * s] - t.c[1][1];
  t.c[0][1] = f[kKingObsHet * s] - t.c[1][1];
  t.c[0][2] = f[kKingIbs0 * s];
  t.c[0][0] = f[kKingBoth * s] - t.c[1][1] - t.c[1][0] - t.c[0][1] - t.c[0][2];
  return t;
}

int64_t PairTable::both() const {
  int64_t n = 0;
  for (const auto& row : c)
    for (int64_t v : row) n += v;
  return n;
}
int64_t PairTable::sum_a() const { return (c[1][0] + c[1][1] + c[1][2]) + 2 * (c[2][0] + c[2][1] + c[2][2]); }
int64_t PairTable::sum_a2() const { return (c[1][0] + c[1][1] + c[1][2]) + 4 * (c[2][0] + c[2][1] + c[2][2]); }
int64_t PairTable::sum_b() const { return (c[0][1] + c[1][1] + c[2][1]) + 2 * (c[0][2] + c[1][2] + c[2][2]); }
int64_t PairTable::sum_b2() const { return (c[0][1] + c[1][1] + c[2][1]) + 4 * (c[0][2] + c[1][2] + c[2][2]); }
int64_t PairTable::sum_ab() const { return c[1][1] + 2 * (c[1][2] + c[2][1]) + 4 * c[2][2]; }

int64_t pair_tile_size(int64_t n, const PairPassOptions& options) {
  if (options.tile > 0) return (options.tile + 7) / 8 * 8;
  return std::clamp<int64_t>((n + 7) / 8 * 8, 8, kDefaultTile);
}

Status for_each_pair_tile(const Context& ctx, const io::GenotypeView& view, const PairPassOptions& options,
                          const std::function<Status(const PairTile&)>& on_tile) {
  const backend::Backend& be = backend::of(ctx);
  const int64_t n = view.num_samples(), m = view.num_variants();
  const int64_t words = (m + kWordBits - 1) / kWordBits;
  const int64_t plane_words = backend::CodePlanesView::buffer_words(n, words);
  const int64_t plane_bytes = plane_words * 8;
  const int64_t tile = pair_tile_size(n, options);
  const int64_t per_side = (n + tile - 1) / tile;
  const int64_t num_tiles = per_side * (per_side + 1) / 2;
  const int64_t fields = options.king_only ? backend::kKingCountFields : kPairCountFields;
  const int64_t tile_bytes = fields * tile * tile * 8;
  if (plane_bytes + 2 * tile_bytes > ctx.memory_budget())
    return Status::OutOfMemory(view.describe(), ": the bit planes of ", n, " samples x ", m, " variants need ",
                               format_bytes(plane_bytes + 2 * tile_bytes), ", more than the memory budget of ",
                               format_bytes(ctx.memory_budget()), " (raise --memory)");

  ProgressScope progress(ctx, options.label, m + num_tiles, "steps");
  auto t0 = clock_type::now();
  STRATA_ASSIGN_OR_RETURN(Buffer planes, Buffer::allocate(std::max<int64_t>(plane_bytes, 64)));
  uint64_t* pl = planes.as<uint64_t>();
  // Variant blocks are whole words, so every block writes its own words of the planes.
  const int64_t block = std::max<int64_t>(kWordBits, io::default_block_variants(view) / kWordBits * kWordBits);
  STRATA_RETURN_NOT_OK(io::for_each_genotype_block(
      ctx, view, block,
      [&](io::GenotypeBlock& b) -> Status {
        for (int64_t v = 0; v < b.variant_count; v += kWordBits) {
          const backend::CodesView cv{b.row(v), std::min(kWordBits, b.variant_count - v), n, b.stride};
          be.code_planes(cv, pl, words, (b.variant_start + v) / kWordBits);
        }
        return Status::OK();
      },
      nullptr, PassOptions{"bit planes", 0, 0, {}}));
  ctx.report().add_phase("bit planes", seconds_since(t0));

  t0 = clock_type::now();
  const backend::CodePlanesView pv{pl, n, words};
  std::mutex mu;
  std::vector<std::vector<int64_t>> results(static_cast<size_t>(num_tiles));
  auto tile_at = [&](int64_t t) {
    const auto [r, c] = lower_tile(t);
    PairTile pt;
    pt.index = t;
    pt.row0 = r * tile;
    pt.rows = std::min(tile, n - pt.row0);
    pt.col0 = c * tile;
    pt.cols = std::min(tile, n - pt.col0);
    pt.last_in_row = r == c;
    pt.ldc = (pt.cols + 7) / 8 * 8;
    pt.king_only = options.king_only;
    return pt;
  };
  PassOptions po;
  po.label = options.label;
  po.progress_units = [](int64_t) { return int64_t{1}; };
  const Status st = run_blocks(
      ctx, num_tiles, tile_bytes,
      [&](int64_t t) -> Status {
        const PairTile pt = tile_at(t);
        std::vector<int64_t> acc(static_cast<size_t>(fields * pt.rows * pt.ldc), 0);
        STRATA_RETURN_NOT_OK(options.king_only
                                 ? be.pair_king_counts(pv, pt.row0, pt.rows, pt.col0, pt.cols, acc.data())
                                 : be.pair_code_counts(pv, pt.row0, pt.rows, pt.col0, pt.cols, acc.data()));
        std::lock_guard<std::mutex> lock(mu);
        results[static_cast<size_t>(t)] = std::move(acc);
        return Status::OK();
      },
      [&](int64_t t) -> Status {
        std::vector<int64_t> acc;
        {
          std::lock_guard<std::mutex> lock(mu);
          acc = std::move(results[static_cast<size_t>(t)]);
        }
        PairTile pt = tile_at(t);
        pt.counts = acc.data();
        return on_tile(pt);
      },
      po);
  ctx.report().add_phase(options.label, seconds_since(t0));
  return st;
}

}  // namespace strata::genomics
