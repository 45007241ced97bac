// genomics::compute_grm: counts pass, the plan, then one symmetric tile pass per band of tile
// rows (the sparse float64 step from hard calls, float64 panels from dosages, or float32 panels
// through the fused tile kernel; float64 accumulators either way). Blocks are read by
// grm_reader.cpp.
#include "strata/genomics/grm.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "genomics/dosage_standardize.hpp"
#include "genomics/grm_internal.hpp"
#include "strata/backend/backend.hpp"
#include "strata/core/buffer.hpp"
#include "strata/core/job.hpp"
#include "strata/core/pass_engine.hpp"
#include "strata/core/shape.hpp"
#include "strata/core/thread_pool.hpp"
#include "strata/core/wire.hpp"
#include "strata/linalg/dense.hpp"

namespace strata::genomics {
namespace {

using namespace grm_integer;
using namespace grm_detail;


// Lower-triangle tile (R, C), R ≥ C, is upper tile (C, R) of SymmetricTiles' row-major order.
int64_t upper_index(int64_t per_side, int64_t i, int64_t j) { return i * per_side - i * (i - 1) / 2 + (j - i); }

// Accumulators of one tile (lower orientation: rows from tile R, cols from tile C).
struct TileAccumulator {
  int64_t row0 = 0, rows = 0, col0 = 0, cols = 0;
  Buffer sum, both_missing;  // rows × cols doubles each (tracked: they are the pass's memory)
  // This rank's tiles lie in one buffer per band instead (one block in huge pages: ten 0.5 MB
  // tiles took ~2,000 page faults of ~4 µs); tiles received from other ranks own theirs.
  double* band_sum = nullptr;
  double* band_missing = nullptr;
  double* s() { return band_sum ? band_sum : sum.as<double>(); }
  double* b() { return band_missing ? band_missing : both_missing.as<double>(); }
};

// acc += the tile's product over the k packed rows of a float64 panel, one run at a time.
// Diagonal tiles compute their lower half and diagonal (mirrored at the end of the pass).
Status add_product_f64(const backend::Backend& be, const double* panel, int64_t k, int64_t npad,
                       const TileAccumulator& a, double* acc) {
  const int mode = a.row0 == a.col0 ? 1 : 0;
  for (int64_t k0 = 0; k0 < k; k0 += kFloat32Run) {
    const int64_t kk = std::min(kFloat32Run, k - k0);
    const double* run = panel + k0 * npad;
    STRATA_RETURN_NOT_OK(be.gram_panels_f64(run + a.row0 * kk, run + a.col0 * kk, kk, a.rows, a.cols, mode, acc, a.cols));
  }
  return Status::OK();
}

// acc += the tile's product over the k rows of a block in the sparse route's runs: for each
// run, the column samples' y panel and centring sums u, the row samples' entry lists.
Status add_product_sparse(const backend::Backend& be, const Panels& p, int slot, int64_t npad,
                          const TileAccumulator& a, double* acc) {
  const int mode = a.row0 == a.col0 ? 1 : 0;
  const int64_t k = p.rows[slot];
  for (int64_t t = 0; t * backend::kSparseRun < k; ++t) {
    const int64_t kk = std::min(backend::kSparseRun, k - t * backend::kSparseRun);
    const double* run = p.values64[slot].data() + t * backend::kSparseRun * npad;
    backend::SparseRowLists lists;
    lists.entries = p.entries[slot].data() + (t * npad + a.row0) * backend::kSparseRun;
    lists.counts = p.counts[slot].data() + (t * npad + a.row0) * grm_sparse::kParts;
    lists.stride = backend::kSparseRun;
    lists.coef = p.coef[slot].data() + t * backend::kSparseRun;
    STRATA_RETURN_NOT_OK(be.gram_sparse_f64(lists, run + a.col0 * kk, p.centre_u[slot].data() + t * npad + a.col0, kk,
                                            a.rows, a.cols, mode, acc, a.cols));
  }
  return Status::OK();
}

// acc += the block's float64 product (the sparse route or the dense panels of dosages).
Status add_product_block(const backend::Backend& be, bool sparse, const Panels& p, int slot, int64_t npad,
                         const TileAccumulator& a, double* acc) {
  if (sparse) return add_product_sparse(be, p, slot, npad, a, acc);
  return add_product_f64(be, p.values64[slot].data(), p.rows[slot], npad, a, acc);
}

// acc += the block's float64 product, its runs summed apart first (from zero, in run order):
// a block is the unit grm_partial() hands a cluster's driver, which adds the blocks in order
// just so, and gets the bits of this pass.
Status add_block_f64(const backend::Backend& be, bool sparse, const Panels& p, int slot, int64_t npad,
                     const TileAccumulator& a, double* acc) {
  thread_local std::vector<double> block;  // one tile's worth per worker thread
  block.assign(static_cast<size_t>(a.rows * a.cols), 0.0);
  STRATA_RETURN_NOT_OK(add_product_block(be, sparse, p, slot, npad, a, block.data()));
  for (int64_t e = 0; e < a.rows * a.cols; ++e) acc[e] += block[static_cast<size_t>(e)];
  return Status::OK();
}

// acc += the tile's product over the k packed rows of `panel`, one float32 run at a time.
// Diagonal tiles compute their lower half only (mirrored at the end of the pass); with
// exact_diagonal their diagonal is an exact float64 sum of squares instead.
Status add_product(const backend::Backend& be, const float* panel, int64_t k, int64_t npad, const TileAccumulator& a,
                   double* acc, bool exact_diagonal) {
  const bool diagonal = a.row0 == a.col0;
  const int mode = !diagonal ? 0 : exact_diagonal ? 2 : 1;
  for (int64_t k0 = 0; k0 < k; k0 += kFloat32Run) {
    const int64_t kk = std::min(kFloat32Run, k - k0);
    const float* run = panel + k0 * npad;
    STRATA_RETURN_NOT_OK(
        be.gram_panels_f32(run + a.row0 * kk, run + a.col0 * kk, kk, a.rows, a.cols, mode, acc, a.cols));
    if (mode != 2) continue;
    for (int64_t g0 = 0; g0 < a.rows; g0 += kGroup) {
      const float* grp = run + (a.row0 + g0) * kk;
      const int64_t cnt = std::min(kGroup, a.rows - g0);
      double sq[kGroup] = {};
      for (int64_t r = 0; r < kk; ++r)
        for (int64_t l = 0; l < kGroup; ++l) {
          const double x = grp[r * kGroup + l];
          sq[l] += x * x;
        }
      for (int64_t l = 0; l < cnt; ++l) acc[(g0 + l) * a.cols + g0 + l] += sq[l];
    }
  }
  return Status::OK();
}

// Mirror the lower half of a diagonal tile onto its upper half (exact symmetry whatever order
// the product kernel summed in).
void symmetrize(double* v, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < i; ++j) v[j * n + i] = v[i * n + j];
}

// Rank 0 receives every rank's raw tile sums (tile k of the band from rank k mod P, sums then
// both-missing counts, in order) into the accumulators it did not compute; others send theirs.
Status gather_tiles(const Communicator& comm, std::vector<TileAccumulator>& acc, bool pairwise) {
  const int ranks = comm.size(), rank = comm.rank();
  WireWriter mine;
  for (size_t k = static_cast<size_t>(rank); k < acc.size(); k += static_cast<size_t>(ranks)) {
    TileAccumulator& a = acc[k];
    mine.put_raw(a.s(), a.rows * a.cols);
    if (pairwise) mine.put_raw(a.b(), a.rows * a.cols);
    if (rank != 0) a = TileAccumulator{a.row0, a.rows, a.col0, a.cols, Buffer(), Buffer()};  // sent: free it
  }
  std::vector<std::string> all;
  STRATA_RETURN_NOT_OK(comm.gather(mine.bytes(), &all));
  if (rank != 0) return Status::OK();
  for (int r = 1; r < ranks; ++r) {
    WireReader in(all[static_cast<size_t>(r)], str_cat("grm: rank ", r, "'s tile sums"));
    for (size_t k = static_cast<size_t>(r); k < acc.size(); k += static_cast<size_t>(ranks)) {
      TileAccumulator& a = acc[k];
      STRATA_ASSIGN_OR_RETURN(a.sum, Buffer::allocate(a.rows * a.cols * 8));
      STRATA_RETURN_NOT_OK(in.get_raw(a.s(), a.rows * a.cols));
      if (pairwise) {
        STRATA_ASSIGN_OR_RETURN(a.both_missing, Buffer::allocate(a.rows * a.cols * 8));
        STRATA_RETURN_NOT_OK(in.get_raw(a.b(), a.rows * a.cols));
      }
    }
  }
  return Status::OK();
}


// The variants (all of the view's), and their standardization tables.
// With dosages (`dosage` non-null) the tables and missingness are the dosages' own.
Status plan_variants(const io::GenotypeView& view, const std::vector<VariantCounts>& counts,
                     const DosageMoments* dosage, const GrmParams& params, GrmPlan& plan) {
  GrmInfo& info = plan.info;
  info.num_samples = plan.n;
  info.num_variants_input = view.num_variants();
  // Every variant: the selection filtered the view before (--maf, --geno); monomorphic ones
  // stay, as plink2 keeps them (x = 0, but they count in M).
  info.filter = apply_variant_filter(counts, VariantFilter{});
  const std::vector<int64_t>& kept = info.filter.kept;
  if (kept.empty()) {
    return Status::InvalidData(view.describe(), ": every variant was filtered out (", info.filter.dropped_missing,
                               " by missingness, ", info.filter.dropped_maf, " by MAF)");
  }
  const auto m = static_cast<int64_t>(kept.size());
  plan.m = info.grm_variants = m;
  if (m > std::numeric_limits<int32_t>::max()) {
    return Status::InvalidData(view.describe(), ": ", m, " variants is more than a GRM pass takes (2^31 - 1)");
  }
  // Tables: standardized values per code, and which kept variants have missing calls.
  plan.luts.resize(static_cast<size_t>(4 * m));
  plan.luts64.resize(static_cast<size_t>(plan.f64 ? 4 * m : 0));
  plan.sv.resize(static_cast<size_t>(plan.sparse ? m : 0));
  plan.has_missing.assign(static_cast<size_t>(m), 0);
  bool any_missing = false;
  for (int64_t i = 0; i < m; ++i) {
    const auto v = static_cast<size_t>(kept[static_cast<size_t>(i)]);
    double lut[4];
    if (dosage)
      make_standardize_lut_for_freq(dosage->alt_freq[v], Standardization::Binom2, lut);
    else
      make_standardize_lut(counts[v], Standardization::Binom2, lut);
    for (int q = 0; q < 4; ++q) plan.luts[static_cast<size_t>(4 * i + q)] = static_cast<float>(lut[q]);
    if (plan.sparse) {
      const grm_sparse::SparseVariant& sv = plan.sv[static_cast<size_t>(i)] =
          grm_sparse::make_sparse_variant(counts[v].alt_freq(), lut);
      std::copy(sv.y, sv.y + 4, plan.luts64.begin() + 4 * i);
    } else if (plan.f64) {
      std::copy(lut, lut + 4, plan.luts64.begin() + 4 * i);
    }
    const int64_t missing = dosage ? dosage->missing[v] : counts[v].missing;
    plan.has_missing[static_cast<size_t>(i)] = missing > 0;
    any_missing = any_missing || missing > 0;
  }
  info.pairwise_counts = !params.meanimpute && any_missing;
  plan.pairwise = info.pairwise_counts;
  return Status::OK();
}

// Integer products: polymorphic variants with every call observed (μ is then their mean, so
// the centring sums are exact identities), their quantized weights and C.
void plan_integer_weights(const std::vector<VariantCounts>& counts, GrmPlan& plan) {
  const std::vector<int64_t>& kept = plan.info.filter.kept;
  plan.eligible.assign(static_cast<size_t>(plan.integer ? plan.m : 0), 0);
  plan.iw.assign(plan.eligible.size(), IntWeight{});
  for (int64_t i = 0; plan.integer && i < plan.m; ++i) {
    const VariantCounts& c = counts[static_cast<size_t>(kept[static_cast<size_t>(i)])];
    const double f = c.alt_freq();
    // (Founders' frequencies are no mean of these codes: those variants take the float path.)
    if (c.missing > 0 || !(f > 0.0 && f < 1.0) || c.freq_allele_count >= 0) continue;
    IntWeight& x = plan.iw[static_cast<size_t>(i)];
    const double w = 1.0 / (2.0 * f * (1.0 - f)), mu = 2.0 * std::min(f, 1.0 - f);
    x.k = static_cast<int>(std::floor(std::log2(static_cast<double>(kWeightMax) / w)));
    while ((x.w = std::llround(std::ldexp(w, x.k))) > kWeightMax) --x.k;
    x.a = std::llround(static_cast<double>(x.w) * mu);
    x.flip = f > 0.5;
    plan.eligible[static_cast<size_t>(i)] = 1;
    plan.centre_c += std::ldexp(static_cast<double>(x.a), -x.k) * mu;
    ++plan.info.integer_variants;
  }
}

// Bands of lower tile rows whose accumulators fit half the budget beside the panels.
std::vector<std::pair<int64_t, int64_t>> plan_bands(const GrmPlan& plan, int64_t memory_budget) {
  const int64_t n = plan.n, tile = plan.tile, per_side = plan.tiles.per_side;
  // (The sparse route's lists: a byte per sample and variant, and 11 per sample and run.)
  const int64_t panel_bytes = 2 * plan.block_variants * plan.npad *
                              ((plan.f64 ? 8 : 4) + (plan.sparse ? 2 : 0) + (plan.pairwise && !plan.sparse ? 4 : 0));
  const int64_t acc_per_value = plan.pairwise ? 16 : 8;
  const int64_t room = std::max<int64_t>(0, memory_budget / 2 - panel_bytes);
  std::vector<std::pair<int64_t, int64_t>> bands;  // [R0, R1)
  for (int64_t r = 0; r < per_side;) {
    int64_t r1 = r, bytes = 0;
    while (r1 < per_side) {
      const int64_t rows = std::min(tile, n - r1 * tile);
      const int64_t add = rows * std::min(n, (r1 + 1) * tile) * acc_per_value;
      if (r1 > r && bytes + add > room) break;
      bytes += add;
      ++r1;
    }
    bands.emplace_back(r, r1);
    r = r1;
  }
  return bands;
}

Result<GrmPlan> plan_grm(const Context& ctx, const io::GenotypeViewPtr& view, const std::vector<VariantCounts>& counts,
                         const GrmParams& params) {
  GrmPlan plan;
  plan.n = view->num_samples();
  plan.dosages = view->has_dosages();
  plan.f64 = params.float64 && !params.integer_products;
  plan.sparse = plan.f64 && !plan.dosages;
  DosageMoments moments;
  if (plan.dosages) {
    STRATA_ASSIGN_OR_RETURN(moments, dosage_moments(ctx, *view, params.nonfounders));
  }
  STRATA_RETURN_NOT_OK(plan_variants(*view, counts, plan.dosages ? &moments : nullptr, params, plan));
  // Dosages take the float32 products (the integer ones sum codes).
  plan.integer = params.integer_products && !plan.dosages && backend::of(ctx).fast_u8s8();
  plan_integer_weights(counts, plan);
  plan.kept_view = io::make_variant_subset(view, plan.info.filter.kept);
  plan.tile = plan.info.tile = grm_tile(plan.n, params.tile);
  plan.tiles = SymmetricTiles::make(plan.n, plan.tile);
  plan.block_variants = grm_block_variants(plan.n);
  plan.num_blocks = ceil_div(plan.m, plan.block_variants);
  plan.stride = io::packed_row_bytes(plan.n);
  plan.npad = ceil_div(plan.n, kGroup) * kGroup;  // packed panel width
  plan.block_plans.resize(static_cast<size_t>(plan.integer ? plan.num_blocks : 0));
  for (int64_t b = 0; plan.integer && b < plan.num_blocks; ++b)
    plan.block_plans[static_cast<size_t>(b)] =
        plan_block(plan.iw, plan.eligible, b * plan.block_variants, plan.block_rows(b));
  plan.bands = plan_bands(plan, ctx.memory_budget());
  plan.info.bands = static_cast<int64_t>(plan.bands.size());
  return plan;
}


// The accumulators of one band: lower tile rows R in [r0, r1), columns C ≤ R, row-major. Under
// MPI tile k of the band is rank k mod P's; this rank's lie in one zeroed buffer.
struct BandTiles {
  std::vector<TileAccumulator> acc;
  std::vector<int64_t> mine;     // this rank's tiles (upper indices)
  std::vector<int64_t> slot_of;  // upper index → position in acc (-1: not in the band)
  Buffer buffer;
};

Result<BandTiles> band_tiles(const GrmPlan& plan, int64_t r0, int64_t r1, int rank, int ranks) {
  BandTiles band;
  const int64_t tile = plan.tile, n = plan.n;
  band.slot_of.assign(static_cast<size_t>(plan.tiles.count), -1);
  for (int64_t r = r0; r < r1; ++r) {
    for (int64_t c = 0; c <= r; ++c) {
      const int64_t u = upper_index(plan.tiles.per_side, c, r);
      if (static_cast<int64_t>(band.acc.size()) % ranks == rank) band.mine.push_back(u);
      band.slot_of[static_cast<size_t>(u)] = static_cast<int64_t>(band.acc.size());
      TileAccumulator a;
      a.row0 = r * tile;
      a.rows = std::min(tile, n - a.row0);
      a.col0 = c * tile;
      a.cols = std::min(tile, n - a.col0);
      band.acc.push_back(std::move(a));
    }
  }
  // Each of this rank's tiles at a 64-byte boundary.
  auto padded = [](const TileAccumulator& a) { return (a.rows * a.cols + 7) / 8 * 8; };
  const int copies = plan.pairwise ? 2 : 1;
  int64_t doubles = 0;
  for (size_t i = 0; i < band.acc.size(); ++i)
    if (static_cast<int64_t>(i) % ranks == rank) doubles += padded(band.acc[i]) * copies;
  STRATA_ASSIGN_OR_RETURN(band.buffer, Buffer::zeros(doubles * 8));
  for (size_t i = 0, at = 0; i < band.acc.size(); ++i) {
    if (static_cast<int64_t>(i) % ranks != rank) continue;
    band.acc[i].band_sum = band.buffer.as<double>() + at;
    at += static_cast<size_t>(padded(band.acc[i]));
    if (!plan.pairwise) continue;
    band.acc[i].band_missing = band.buffer.as<double>() + at;
    at += static_cast<size_t>(padded(band.acc[i]));
  }
  return band;
}

// This rank's tiles of the band over every block: the float32 product, the integer runs'
// product and, for pairwise counts, the product of missing indicators.
Status sum_band(const Context& ctx, const GrmPlan& plan, BlockReader& reader, BandTiles& band) {
  if (band.mine.empty()) return Status::OK();
  const backend::Backend& be = backend::of(ctx);
  const Panels& p = reader.panels();
  PassOptions po;
  po.label = "grm";
  po.progress_units = [&](int64_t b) { return plan.block_rows(b); };
  STRATA_RETURN_NOT_OK(run_symmetric_tiles(
      ctx, plan.tiles, band.mine, plan.num_blocks, [&](int64_t b, int slot) { return reader.read(b, slot); },
      [&](int64_t, int slot, int64_t u, const SymmetricTiles::Tile&) -> Status {
        TileAccumulator& a = band.acc[static_cast<size_t>(band.slot_of[static_cast<size_t>(u)])];
        if (plan.f64) {
          STRATA_RETURN_NOT_OK(add_block_f64(be, plan.sparse, p, slot, plan.npad, a, a.s()));
        } else {
          STRATA_RETURN_NOT_OK(add_product(be, p.values[slot].data(), p.rows[slot], plan.npad, a, a.s(), true));
        }
        if (plan.integer)
          STRATA_RETURN_NOT_OK(add_integer_product(be, plan.block_plans[static_cast<size_t>(p.block[slot])],
                                                   p.icodes[slot].data(), p.ilimbs[slot].data(), plan.npad,
                                                   {a.row0, a.rows, a.col0, a.cols}, a.s()));
        if (plan.pairwise && p.mrows[slot] > 0) {
          if (!plan.sparse) return add_product(be, p.missing[slot].data(), p.mrows[slot], plan.npad, a, a.b(), false);
          grm_sparse::add_missing_pairs(p.missing_samples[slot], a.row0, a.rows, a.col0, a.cols, a.b());
        }
        return Status::OK();
      },
      po));
  // r needs every block once, in order: the first band's reads (a rank with tiles reads all).
  if (plan.integer && reader.centred_blocks() != plan.num_blocks)
    return Status::Internal("grm: centring sums saw ", reader.centred_blocks(), " of ", plan.num_blocks, " blocks");
  return Status::OK();
}

// The band's raw sums made GRM values (the integer products' centring terms, then division by
// M or by each pair's M_ab) and handed to `sink`, tile by tile in order. `missing_per_sample`
// gains this band's rows (columns of earlier bands were recorded by their diagonal tiles).
Status finish_band(const GrmPlan& plan, const std::vector<double>& centre_r, BandTiles& band,
                   std::vector<double>& missing_per_sample, const GrmTileSink& sink) {
  for (auto& a : band.acc) {
    if (a.row0 != a.col0) continue;
    symmetrize(a.s(), a.rows);
    if (!plan.pairwise) continue;
    symmetrize(a.b(), a.rows);
    for (int64_t i = 0; i < a.rows; ++i) missing_per_sample[static_cast<size_t>(a.row0 + i)] = a.b()[i * a.cols + i];
  }
  const int64_t m = plan.m;
  const double inv_m = 1.0 / static_cast<double>(m);
  for (auto& a : band.acc) {
    GrmTile t{a.row0, a.rows, a.col0, a.cols, a.s(), nullptr};
    double* sum = a.s();
    for (int64_t i = 0; plan.integer && i < a.rows; ++i) {  // the integer products' centring terms
      const double ci = plan.centre_c - centre_r[static_cast<size_t>(a.row0 + i)];
      for (int64_t j = 0; j < a.cols; ++j) sum[i * a.cols + j] += ci - centre_r[static_cast<size_t>(a.col0 + j)];
    }
    if (!plan.pairwise) {
      for (int64_t e = 0; e < a.rows * a.cols; ++e) sum[e] *= inv_m;
    } else {
      double* both_missing = a.b();
      // M_ab = M − missing_a − missing_b + both missing (plink2's count of pairs observed).
      for (int64_t i = 0; i < a.rows; ++i) {
        const double ma = missing_per_sample[static_cast<size_t>(a.row0 + i)];
        for (int64_t j = 0; j < a.cols; ++j) {
          const int64_t e = i * a.cols + j;
          const double mb = missing_per_sample[static_cast<size_t>(a.col0 + j)];
          const double both = a.row0 + i == a.col0 + j ? ma : both_missing[e];
          const double pairs = static_cast<double>(m) - ma - mb + both;
          both_missing[e] = pairs;
          sum[e] = pairs > 0 ? sum[e] / pairs : std::numeric_limits<double>::quiet_NaN();
        }
      }
      t.counts = both_missing;
    }
    STRATA_RETURN_NOT_OK(sink(t));
    a.sum = Buffer();
    a.both_missing = Buffer();
  }
  return Status::OK();
}

}  // namespace

Result<GrmInfo> compute_grm(const Context& ctx, const io::GenotypeViewPtr& view, const GrmParams& params,
                            const GrmTileSink& sink) {
  if (!view) return Status::Invalid("grm: no genotype view");
  PhaseTimer counting(ctx, "variant counts");
  // The counts pass, then the GRM pass at its weight: one band stands in for the pass until it
  // starts and adds its own bands.
  const int64_t m = view->num_variants(), weight = grm_pass_work_per_variant(view->num_samples());
  ProgressScope progress(ctx, "grm", m + weight * m, "variants");
  STRATA_ASSIGN_OR_RETURN(auto counts, compute_variant_counts(ctx, *view));
  // Dosage sources take their frequencies from their own dosage pass (plan_grm).
  if (!view->has_dosages()) STRATA_RETURN_NOT_OK(use_founder_frequencies(ctx, view, params.nonfounders, counts));
  counting.stop();
  progress.add_total(-weight * m);
  ProgressWeight weigh(ctx, weight);
  return compute_grm(ctx, view, counts, params, sink);
}

int64_t grm_pass_work_per_variant(int64_t n) {
  const double dn = std::max(1.0, static_cast<double>(n));
  return std::max<int64_t>(1, std::llround(2.5e-11 * dn * dn / (9.2e-10 * dn)));
}

Result<GrmInfo> compute_grm(const Context& ctx, const io::GenotypeViewPtr& view,
                            const std::vector<VariantCounts>& counts, const GrmParams& params,
                            const GrmTileSink& sink) {
  if (!view) return Status::Invalid("grm: no genotype view");
  if (params.tile < 0) return Status::Invalid("grm: tile must be positive (0 = default), got ", params.tile);
  const int64_t n = view->num_samples();
  if (static_cast<int64_t>(counts.size()) != view->num_variants()) {
    return Status::Invalid("grm: ", counts.size(), " variant counts for ", view->num_variants(), " variants");
  }
  if (n < 2) {
    return Status::InvalidData(view->describe(), ": a relationship matrix needs at least 2 samples, got ", n);
  }
  STRATA_ASSIGN_OR_RETURN(const GrmPlan plan, plan_grm(ctx, view, counts, params));
  ProgressScope progress(ctx, "grm", plan.m * plan.info.bands, "variants");
  BlockReader reader(ctx, plan);
  PhaseTimer pass(ctx, "grm");
  std::vector<double> missing_per_sample(static_cast<size_t>(plan.pairwise ? n : 0), 0.0);
  // Under MPI the ranks share each band's tiles (tile k of the band on rank k mod P); every
  // rank streams all the variants for its own. A tile sums the same blocks in the same order
  // wherever it runs, so the GRM is the same bits for any rank count. Rank 0 gathers the raw
  // sums and finishes, normalizes and sinks every tile, in order; the other ranks sink nothing.
  const Communicator& comm = ctx.communicator();
  for (const auto& [r0, r1] : plan.bands) {
    STRATA_ASSIGN_OR_RETURN(BandTiles band, band_tiles(plan, r0, r1, comm.rank(), comm.size()));
    STRATA_RETURN_NOT_OK(sum_band(ctx, plan, reader, band));
    if (comm.size() > 1) {
      STRATA_RETURN_NOT_OK(gather_tiles(comm, band.acc, plan.pairwise));
      if (comm.rank() != 0) continue;
    }
    STRATA_RETURN_NOT_OK(finish_band(plan, reader.centre_r(), band, missing_per_sample, sink));
  }
  pass.stop();
  return plan.info;
}

namespace {

// A sink writing each tile and its mirror into the n × n row-major `g`.
GrmTileSink dense_sink(std::vector<double>& g, int64_t n) {
  return [&g, n](const GrmTile& t) -> Status {
    for (int64_t r = 0; r < t.rows; ++r)
      for (int64_t c = 0; c < t.cols; ++c) {
        const double v = t.values[r * t.cols + c];
        g[static_cast<size_t>((t.row0 + r) * n + t.col0 + c)] = v;
        g[static_cast<size_t>((t.col0 + c) * n + t.row0 + r)] = v;
      }
    return Status::OK();
  };
}

}  // namespace

Result<GrmPartial> grm_partial(const Context& ctx, const io::GenotypeViewPtr& view,
                               const std::vector<VariantCounts>& counts, const GrmParams& params) {
  if (!view) return Status::Invalid("grm: no genotype view");
  const int64_t n = view->num_samples();
  if (static_cast<int64_t>(counts.size()) != view->num_variants())
    return Status::Invalid("grm: ", counts.size(), " variant counts for ", view->num_variants(), " variants");
  if (n < 2) return Status::InvalidData(view->describe(), ": a relationship matrix needs at least 2 samples, got ", n);
  GrmParams p = params;
  p.tile = 0;
  STRATA_ASSIGN_OR_RETURN(const GrmPlan plan, plan_grm(ctx, view, counts, p));
  if (!plan.f64 || plan.integer || plan.dosages)
    return Status::Invalid("grm: partial sums are those of the float64 route on hard calls");
  const backend::Backend& be = backend::of(ctx);
  BlockReader reader(ctx, plan);
  const Panels& panels = reader.panels();
  const int64_t pairs = n * (n + 1) / 2, per_side = plan.tiles.per_side;
  GrmPartial out;
  out.samples = n;
  out.variants = plan.m;
  out.blocks = plan.num_blocks;
  out.block_sums.assign(static_cast<size_t>(plan.num_blocks * pairs), 0.0);
  if (plan.pairwise) out.both_missing.assign(static_cast<size_t>(pairs), 0.0);
  // Lower tiles (R, C ≤ R), each written by one task: tile k is the k-th of the row-major order.
  std::vector<TileAccumulator> tiles;
  for (int64_t r = 0; r < per_side; ++r)
    for (int64_t c = 0; c <= r; ++c) {
      TileAccumulator a;
      a.row0 = r * plan.tile;
      a.rows = std::min(plan.tile, n - a.row0);
      a.col0 = c * plan.tile;
      a.cols = std::min(plan.tile, n - a.col0);
      tiles.push_back(std::move(a));
    }
  auto scatter = [&](const TileAccumulator& a, const std::vector<double>& v, double* dst, bool add) {
    for (int64_t i = 0; i < a.rows; ++i)
      for (int64_t j = 0; j < a.cols && a.col0 + j <= a.row0 + i; ++j) {
        double& d = dst[lower_pair(a.row0 + i, a.col0 + j)];
        d = add ? d + v[static_cast<size_t>(i * a.cols + j)] : v[static_cast<size_t>(i * a.cols + j)];
      }
  };
  for (int64_t b = 0; b < plan.num_blocks; ++b) {
    STRATA_RETURN_NOT_OK(reader.read(b, 0));
    double* sums = out.block_sums.data() + b * pairs;
    STRATA_RETURN_NOT_OK(ctx.pool().parallel_for(static_cast<int64_t>(tiles.size()), [&](int64_t t) -> Status {
      const TileAccumulator& a = tiles[static_cast<size_t>(t)];
      std::vector<double> v(static_cast<size_t>(a.rows * a.cols), 0.0);
      STRATA_RETURN_NOT_OK(add_product_block(be, plan.sparse, panels, 0, plan.npad, a, v.data()));
      scatter(a, v, sums, false);
      if (!plan.pairwise || panels.mrows[0] == 0) return Status::OK();
      std::fill(v.begin(), v.end(), 0.0);
      if (plan.sparse)
        grm_sparse::add_missing_pairs(panels.missing_samples[0], a.row0, a.rows, a.col0, a.cols, v.data());
      else
        STRATA_RETURN_NOT_OK(add_product(be, panels.missing[0].data(), panels.mrows[0], plan.npad, a, v.data(), false));
      scatter(a, v, out.both_missing.data(), true);
      return Status::OK();
    }));
  }
  return out;
}

Result<std::vector<double>> grm_from_sums(int64_t n, int64_t m, const std::vector<double>& sums,
                                          const std::vector<double>& both_missing) {
  const int64_t pairs = n * (n + 1) / 2;
  if (n < 2 || m < 1 || static_cast<int64_t>(sums.size()) != pairs ||
      (!both_missing.empty() && static_cast<int64_t>(both_missing.size()) != pairs))
    return Status::Invalid("grm: sums of ", sums.size(), " pairs (both-missing: ", both_missing.size(), ") for ", n,
                           " samples and ", m, " variants (expected n(n+1)/2 = ", pairs, ")");
  GrmPlan plan;  // what finish_band reads: the grid, M, pairwise counts
  plan.n = n;
  plan.m = m;
  plan.pairwise = !both_missing.empty();
  plan.tile = grm_tile(n, 0);
  plan.tiles = SymmetricTiles::make(n, plan.tile);
  STRATA_ASSIGN_OR_RETURN(BandTiles band, band_tiles(plan, 0, plan.tiles.per_side, 0, 1));
  for (TileAccumulator& a : band.acc)
    for (int64_t i = 0; i < a.rows; ++i)
      for (int64_t j = 0; j < a.cols && a.col0 + j <= a.row0 + i; ++j) {
        const auto at = static_cast<size_t>(lower_pair(a.row0 + i, a.col0 + j));
        a.s()[i * a.cols + j] = sums[at];
        if (plan.pairwise) a.b()[i * a.cols + j] = both_missing[at];
      }
  std::vector<double> g(static_cast<size_t>(n * n));
  std::vector<double> missing_per_sample(static_cast<size_t>(plan.pairwise ? n : 0), 0.0);
  STRATA_RETURN_NOT_OK(finish_band(plan, {}, band, missing_per_sample, dense_sink(g, n)));
  return g;
}

Result<std::vector<double>> compute_grm_dense(const Context& ctx, const io::GenotypeViewPtr& view,
                                              const GrmParams& params, GrmInfo* info) {
  if (!view) return Status::Invalid("grm: no genotype view");
  const int64_t n = view->num_samples();
  std::vector<double> g;
  g.resize(static_cast<size_t>(std::max<int64_t>(n, 0) * std::max<int64_t>(n, 0)));
  STRATA_ASSIGN_OR_RETURN(GrmInfo i, compute_grm(ctx, view, params, dense_sink(g, n)));
  if (info) *info = i;
  return g;
}

}  // namespace strata::genomics
