// The pair pass (strata/genomics/pair_counts.hpp): bit planes of every sample (or of two bands
// of samples at a time) in parallel passes over the variants, then the tiles of each band pair
// on the pass engine, each tile computed whole (all variants) by one worker and committed in
// order.
#include "strata/genomics/pair_counts.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <vector>

#include "strata/core/buffer.hpp"
#include "strata/core/job.hpp"
#include "strata/core/pass_engine.hpp"
#include "strata/core/wire.hpp"

namespace strata::genomics {
namespace {

using backend::kPairCountFields;
using clock_type = std::chrono::steady_clock;


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

Result<std::vector<int32_t>> pair_count_partial(const Context& ctx, const io::GenotypeView& view, bool king_only) {
  const int64_t n = view.num_samples(), pairs = n * (n + 1) / 2;
  if (view.num_variants() > std::numeric_limits<int32_t>::max())
    return Status::InvalidData(view.describe(), ": ", view.num_variants(),
                               " variants: a partial of pair counts takes fewer than 2^31");
  const int64_t fields = king_only ? backend::kKingCountFields : kPairCountFields;
  std::vector<int32_t> out(static_cast<size_t>(fields * pairs), 0);
  PairPassOptions o;
  o.king_only = king_only;
  STRATA_RETURN_NOT_OK(for_each_pair_tile(ctx, view, o, [&](const PairTile& pt) -> Status {
    for (int64_t r = 0; r < pt.rows; ++r)
      for (int64_t c = 0; c < pt.cols && pt.col0 + c <= pt.row0 + r; ++c) {
        const int64_t p = (pt.row0 + r) * (pt.row0 + r + 1) / 2 + pt.col0 + c;
        for (int64_t f = 0; f < fields; ++f)
          out[static_cast<size_t>(f * pairs + p)] = static_cast<int32_t>(pt.counts[(f * pt.rows + r) * pt.ldc + c]);
      }
    return Status::OK();
  }));
  return out;
}

PairTable pair_table_of(const int32_t* counts, int64_t pairs, int64_t p, bool king_only) {
  int64_t f[kPairCountFields];
  const int64_t fields = king_only ? backend::kKingCountFields : kPairCountFields;
  for (int64_t k = 0; k < fields; ++k) f[k] = counts[k * pairs + p];
  return king_only ? PairTable::from_king_fields(f, 1) : PairTable::from_fields(f, 1);
}

int64_t pair_tile_size(int64_t n, const PairPassOptions& options) {
  if (options.tile > 0) return (options.tile + 7) / 8 * 8;
  return std::clamp<int64_t>((n + 7) / 8 * 8, 8, kDefaultTile);
}

Result<PairPassPlan> plan_pair_pass(const Context& ctx, const io::GenotypeView& view, const PairPassOptions& options) {
  const int64_t n = view.num_samples(), m = view.num_variants();
  const int64_t words = (m + kWordBits - 1) / kWordBits;
  PairPassPlan plan;
  plan.tile = pair_tile_size(n, options);
  plan.plane_bytes_per_sample = backend::kCodePlaneCount * words * 8;
  const int64_t fields = options.king_only ? backend::kKingCountFields : kPairCountFields;
  const int64_t tile_bytes = fields * plan.tile * plan.tile * 8;
  const int64_t all_planes = backend::CodePlanesView::buffer_words(n, words) * 8;
  const int64_t avail = ctx.memory_budget() - options.reserve_bytes - 2 * tile_bytes;
  int64_t band = n;
  if (options.band > 0) {
    band = (options.band + plan.tile - 1) / plan.tile * plan.tile;
  } else if (all_planes > avail) {
    // Two bands resident (the row band and the column band being streamed).
    band = std::max<int64_t>(avail, 0) / (2 * plan.plane_bytes_per_sample) / plan.tile * plan.tile;
    if (band < plan.tile)
      return Status::OutOfMemory(view.describe(), ": the bit planes of two tiles of ", plan.tile, " samples x ", m,
                                 " variants and their counts need ",
                                 format_bytes(2 * plan.tile * plan.plane_bytes_per_sample + 2 * tile_bytes +
                                              options.reserve_bytes),
                                 ", more than the memory budget of ", format_bytes(ctx.memory_budget()),
                                 " (raise --memory)");
  }
  plan.band = std::min(band, n);
  plan.bands = (n + plan.band - 1) / plan.band;
  return plan;
}

namespace {

// One band pair of the pass: tile rows [r0, r1) against tile columns [c0, c1), only C ≤ R
// when `triangle` (the diagonal band pair of the lower pass).
struct BandPair {
  int64_t band_i = 0, band_j = 0;
  int64_t r0 = 0, r1 = 0, c0 = 0, c1 = 0;
  bool triangle = false;
  int64_t count() const {
    const int64_t rows = r1 - r0;
    return triangle ? rows * (rows + 1) / 2 : rows * (c1 - c0);
  }
  // Tile k of the pair's row-major order.
  std::pair<int64_t, int64_t> at(int64_t k) const {
    if (!triangle) return {r0 + k / (c1 - c0), c0 + k % (c1 - c0)};
    const auto [r, c] = lower_tile(k);
    return {r0 + r, c0 + c};
  }
};

std::vector<BandPair> band_pairs(int64_t n, const PairPassPlan& plan, bool full_rows) {
  const int64_t per_side = (n + plan.tile - 1) / plan.tile, per_band = (plan.band + plan.tile - 1) / plan.tile;
  auto first = [&](int64_t b) { return b * per_band; };
  auto end = [&](int64_t b) { return std::min(per_side, (b + 1) * per_band); };
  std::vector<BandPair> out;
  for (int64_t i = 0; i < plan.bands; ++i)
    for (int64_t j = 0; j < (full_rows ? plan.bands : i + 1); ++j)
      out.push_back({i, j, first(i), end(i), first(j), end(j), !full_rows && i == j});
  return out;
}

// Prepared tiles cross ranks as bytes: per tile the text, the row ends, the pairs and the tally.
void serialize(const PreparedTile& t, WireWriter& out) {
  out.put_string(t.text);
  out.put_vector(t.ends);
  std::vector<int64_t> flat;
  flat.reserve(2 * t.pairs.size());
  for (const auto& [i, j] : t.pairs) flat.insert(flat.end(), {i, j});
  out.put_vector(flat);
  out.put(t.count);
}

Status deserialize(WireReader& in, PreparedTile& t) {
  STRATA_RETURN_NOT_OK(in.get_string(t.text));
  STRATA_RETURN_NOT_OK(in.get_vector(t.ends));
  std::vector<int64_t> flat;
  STRATA_RETURN_NOT_OK(in.get_vector(flat));
  t.pairs.clear();
  for (size_t k = 0; k + 1 < flat.size(); k += 2) t.pairs.emplace_back(flat[k], flat[k + 1]);
  return in.get(t.count);
}

}  // namespace

Status for_each_pair_tile(const Context& ctx, const io::GenotypeView& view, const PairPassOptions& options,
                          const std::function<Status(const PairTile&)>& on_tile) {
  return for_each_pair_tile(ctx, view, options, nullptr,
                            [&](const PairTile& pt, PreparedTile&) -> Status { return on_tile(pt); });
}

Status for_each_pair_tile(const Context& ctx, const io::GenotypeView& view, const PairPassOptions& options,
                          const std::function<Status(const PairTile&, PreparedTile&)>& prepare,
                          const std::function<Status(const PairTile&, PreparedTile&)>& commit) {
  const backend::Backend& be = backend::of(ctx);
  const int64_t n = view.num_samples(), m = view.num_variants();
  // Every pair would be NaN (KING, IBS) or 0/0: refused, as the GRM refuses it.
  if (m == 0) return Status::InvalidData(view.describe(), ": no variants: kinship and distances need at least one");
  const int64_t words = (m + kWordBits - 1) / kWordBits;
  STRATA_ASSIGN_OR_RETURN(const PairPassPlan plan, plan_pair_pass(ctx, view, options));
  const int64_t tile = plan.tile, per_side = (n + tile - 1) / tile;
  const int64_t fields = options.king_only ? backend::kKingCountFields : kPairCountFields;
  const int64_t tile_bytes = fields * tile * tile * 8;
  const std::vector<BandPair> pairs = band_pairs(n, plan, options.full_rows);
  // Progress in units of work: a tile weighs its pairs (each pair's counts run over every
  // variant), loading a band's bit planes kLoadPairsPerSample per sample (decoding one
  // sample's codes costs about as much as counting that many pairs over the same variants:
  // KING at 5,000 x 50,000 on the development VM, bit planes 0.46 s, pair counts 4.27 s).
  constexpr int64_t kLoadPairsPerSample = 256;
  auto band_samples = [&](int64_t b) { return std::min(plan.band, n - b * plan.band); };
  int64_t work = 0;
  for (const BandPair& bp : pairs) {
    if (bp.band_j == 0) work += band_samples(bp.band_i) * kLoadPairsPerSample;
    if (bp.band_j != bp.band_i) work += band_samples(bp.band_j) * kLoadPairsPerSample;
    for (int64_t k = 0; k < bp.count(); ++k) {
      const auto [r, c] = bp.at(k);
      work += std::min(tile, n - r * tile) * std::min(tile, n - c * tile);
    }
  }
  ProgressScope progress(ctx, options.label, work, "work");
  // Slot 0 holds the row band's planes, slot 1 the column band's (several bands only).
  const int64_t slot_words = backend::CodePlanesView::buffer_words(plan.band, words);
  STRATA_ASSIGN_OR_RETURN(Buffer planes,
                          Buffer::allocate(std::max<int64_t>((plan.bands > 1 ? 2 : 1) * slot_words * 8, 64)));
  uint64_t* const slot[2] = {planes.as<uint64_t>(), planes.as<uint64_t>() + (plan.bands > 1 ? slot_words : 0)};
  double plane_seconds = 0, count_seconds = 0;
  // Variant blocks are whole words, so every block writes its own words of the planes.
  const int64_t block = std::max<int64_t>(kWordBits, io::default_block_variants(view) / kWordBits * kWordBits);
  auto load_band = [&](int64_t b, uint64_t* dst) -> Status {
    const auto t0 = clock_type::now();
    const int64_t s0 = b * plan.band, count = std::min(plan.band, n - s0);  // s0: a multiple of 8
    PassOptions lo{"bit planes", 0, 0, {}};
    const int64_t load_work = count * kLoadPairsPerSample;  // spread over the blocks by variants
    lo.progress_units = [&](int64_t i) {
      const int64_t v0 = std::min(m, i * block), v1 = std::min(m, (i + 1) * block);
      return load_work * v1 / m - load_work * v0 / m;
    };
    const Status st = io::for_each_genotype_block(
        ctx, view, block,
        [&](io::GenotypeBlock& gb) -> Status {
          for (int64_t v = 0; v < gb.variant_count; v += kWordBits) {
            const backend::CodesView cv{gb.row(v) + s0 / 4, std::min(kWordBits, gb.variant_count - v), count,
                                        gb.stride};
            STRATA_RETURN_NOT_OK(be.code_planes(cv, dst, words, (gb.variant_start + v) / kWordBits));
          }
          return Status::OK();
        },
        nullptr, lo);
    plane_seconds += seconds_since(t0);
    return st;
  };

  PassOptions po;
  po.label = options.label;
  const BandPair* current = nullptr;  // the band pair whose tiles run
  po.progress_units = [&](int64_t k) {
    const auto [r, c] = current->at(k);
    return std::min(tile, n - r * tile) * std::min(tile, n - c * tile);
  };
  std::mutex mu;
  int64_t done = 0;  // tiles handed out before this band pair
  // Under MPI, with a prepare step, the tiles of each band pair go round by round: each rank
  // computes and prepares the next few tiles of its own, rank 0 gathers what every rank
  // prepared and commits all of them in the pass order. Every rank holds the planes (each
  // tile needs every variant of its samples); only prepared output crosses ranks.
  const Communicator& comm = ctx.communicator();
  const bool split = prepare && comm.size() > 1;
  const int64_t per_rank = std::max<int64_t>(1, 2 * ctx.threads());  // tiles per rank and round
  auto split_tiles = [&](int64_t count, const auto& tile_at,
                         const std::function<Status(const PairTile&, std::vector<int64_t>&)>& kernel) -> Status {
    for (int64_t t0 = 0; t0 < count; t0 += per_rank * comm.size()) {
      const int64_t mine0 = std::min(count, t0 + comm.rank() * per_rank);
      const int64_t mine = std::min(count, mine0 + per_rank) - mine0;
      std::vector<PreparedTile> prepared(static_cast<size_t>(mine));
      STRATA_RETURN_NOT_OK(run_blocks(
          ctx, mine, tile_bytes,
          [&](int64_t k) -> Status {
            PairTile pt = tile_at(mine0 + k);
            std::vector<int64_t> counts(static_cast<size_t>(fields * pt.rows * pt.ldc), 0);
            STRATA_RETURN_NOT_OK(kernel(pt, counts));
            pt.counts = counts.data();
            return prepare(pt, prepared[static_cast<size_t>(k)]);  // own slot: no lock
          },
          [](int64_t) { return Status::OK(); }, po));
      WireWriter out;
      for (const PreparedTile& p : prepared) serialize(p, out);
      prepared.clear();
      std::vector<std::string> all;
      STRATA_RETURN_NOT_OK(comm.gather(out.bytes(), &all));
      if (comm.rank() != 0) continue;
      for (int r = 0; r < comm.size(); ++r) {
        const int64_t first = std::min(count, t0 + r * per_rank), n = std::min(count, first + per_rank) - first;
        WireReader in(all[static_cast<size_t>(r)], str_cat("pair pass: rank ", r, "'s tiles"));
        for (int64_t k = 0; k < n; ++k) {
          PreparedTile p;
          STRATA_RETURN_NOT_OK(deserialize(in, p));
          PairTile pt = tile_at(first + k);  // counts stay with the rank that computed them
          STRATA_RETURN_NOT_OK(commit(pt, p));
        }
        all[static_cast<size_t>(r)].clear();
      }
    }
    return Status::OK();
  };
  for (const BandPair& bp : pairs) {
    current = &bp;
    if (bp.band_j == 0) STRATA_RETURN_NOT_OK(load_band(bp.band_i, slot[0]));
    const bool two = bp.band_j != bp.band_i;
    if (two) STRATA_RETURN_NOT_OK(load_band(bp.band_j, slot[1]));
    // The kernels see one planes view: the row band, then (two bands) the column band after
    // slot 0's whole capacity, so local sample indices are shifted by these offsets.
    const int64_t row_base = bp.band_i * plan.band;
    const int64_t col_base = two ? bp.band_j * plan.band - plan.band : row_base;
    const int64_t view_samples = two ? plan.band + std::min(plan.band, n - bp.band_j * plan.band)
                                     : std::min(plan.band, n - row_base);
    const backend::CodePlanesView pv{slot[0], view_samples, words};
    auto tile_at = [&](int64_t k) {
      const auto [r, c] = bp.at(k);
      PairTile pt;
      pt.index = done + k;
      pt.tile_row = r;
      pt.tile_col = c;
      pt.row0 = r * tile;
      pt.rows = std::min(tile, n - pt.row0);
      pt.col0 = c * tile;
      pt.cols = std::min(tile, n - pt.col0);
      pt.last_in_row = options.full_rows ? c == per_side - 1 : r == c;
      pt.ldc = (pt.cols + 7) / 8 * 8;
      pt.king_only = options.king_only;
      return pt;
    };
    const auto t0 = clock_type::now();
    if (split) {
      STRATA_RETURN_NOT_OK(split_tiles(bp.count(), tile_at, [&](const PairTile& pt, std::vector<int64_t>& counts) {
        const int64_t r0 = pt.row0 - row_base, c0 = pt.col0 - col_base;
        return options.king_only ? be.pair_king_counts(pv, r0, pt.rows, c0, pt.cols, counts.data())
                                 : be.pair_code_counts(pv, r0, pt.rows, c0, pt.cols, counts.data());
      }));
      count_seconds += seconds_since(t0);
      done += bp.count();
      continue;
    }
    struct Finished {
      std::vector<int64_t> counts;
      PreparedTile prepared;
    };
    std::vector<Finished> results(static_cast<size_t>(bp.count()));
    STRATA_RETURN_NOT_OK(run_blocks(
        ctx, bp.count(), tile_bytes,
        [&](int64_t k) -> Status {
          PairTile pt = tile_at(k);
          Finished f;
          f.counts.assign(static_cast<size_t>(fields * pt.rows * pt.ldc), 0);
          const int64_t r0 = pt.row0 - row_base, c0 = pt.col0 - col_base;
          STRATA_RETURN_NOT_OK(options.king_only ? be.pair_king_counts(pv, r0, pt.rows, c0, pt.cols, f.counts.data())
                                                 : be.pair_code_counts(pv, r0, pt.rows, c0, pt.cols, f.counts.data()));
          if (prepare) {
            pt.counts = f.counts.data();
            STRATA_RETURN_NOT_OK(prepare(pt, f.prepared));
          }
          std::lock_guard<std::mutex> lock(mu);
          results[static_cast<size_t>(k)] = std::move(f);
          return Status::OK();
        },
        [&](int64_t k) -> Status {
          Finished f;
          {
            std::lock_guard<std::mutex> lock(mu);
            f = std::move(results[static_cast<size_t>(k)]);
          }
          PairTile pt = tile_at(k);
          pt.counts = f.counts.data();
          return commit(pt, f.prepared);
        },
        po));
    count_seconds += seconds_since(t0);
    done += bp.count();
  }
  ctx.report().add_phase("bit planes", plane_seconds);
  ctx.report().add_phase(options.label, count_seconds);
  return Status::OK();
}

}  // namespace strata::genomics
