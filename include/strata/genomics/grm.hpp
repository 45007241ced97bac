#pragma once
/// \file
/// The genomic relationship matrix (GRM) as plink2 `--make-rel` / `--make-grm-bin` define it:
///
///   GRM_ab = (1 / M_ab) Σ_j x_aj x_bj,   x_aj = (g_aj − 2f_j) / √(2f_j(1 − f_j)),
///
/// g the ALT dosage, f_j the ALT frequency of the observed calls, a missing call x = 0 (its
/// centred mean), a monomorphic variant x = 0 (it counts in M). With `meanimpute`, M_ab = M,
/// the variants of the view; without it (plink2's default), M_ab is the number of
/// those variants where both samples are observed (the diagonal: where the sample is), which
/// `.grm.N.bin` holds. Without missing calls the two agree.
///
/// Computed as one symmetric tile pass (core/pass_engine.hpp, run_symmetric_tiles): variants
/// stream in blocks of grm_block_variants(n). From hard calls (the float64 default) each
/// sample's x is x_ref + c·d per variant, c the copies of the minor allele (0 for most calls),
/// so a tile entry (a, b) is a centring sum over b plus c·d·x_b over a's non-zero calls only
/// (Backend::gram_sparse_f64: one float64 chain per entry and run of 128 variants, about half the
/// multiply-adds of dense panels); from dosages, float64 standardized panels and a dense chain
/// per entry and run of 128 (Backend::gram_panels_f64). Runs and blocks join float64
/// accumulators in order — the same bits for any thread count, tile size, band split, rank
/// count and CPU level (GrmParams::float64 = false: float32 panels and chains, joined likewise). Tiles that do not all fit the Context's memory
/// budget run in bands of tile rows, one pass over the variants per band; each finished tile
/// goes to the caller's sink, so no N × N matrix is held unless the caller keeps one.
///
/// \code
/// genomics::GrmParams p;
/// p.meanimpute = true;
/// STRATA_ASSIGN_OR_RETURN(auto info, genomics::compute_grm(ctx, view, p, [&](const genomics::GrmTile& t) {
///   // t.values[i * t.cols + j] = GRM(t.row0 + i, t.col0 + j), t.row0 >= t.col0
///   return Status::OK();
/// }));
/// \endcode

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "strata/core/context.hpp"
#include "strata/core/result.hpp"
#include "strata/genomics/qc.hpp"
#include "strata/io/genotype.hpp"

namespace strata::genomics {

/// \brief Variants per block of the GRM pass for n samples: panels of about 8 MiB in float32
/// (16 in float64), between 512 and 4,096 variants, a multiple of the 128-variant run. From n
/// alone (never threads or the budget); the partial sums are per run, so the block height
/// does not change the bits either. Small cohorts get tall blocks: fewer barriers per pass.
inline int64_t grm_block_variants(int64_t n) {
  const int64_t padded = (n + 31) / 32 * 32;
  const int64_t fit = (int64_t{8} << 20) / (4 * (padded > 0 ? padded : 1)) / 128 * 128;
  return fit < 512 ? 512 : fit > 4096 ? 4096 : fit;
}
/// \brief Samples per tile side of large cohorts unless GrmParams::tile says otherwise.
inline constexpr int64_t kGrmDefaultTile = 256;
/// \brief The default tile for n samples: kGrmDefaultTile, halved below 4 tiles a side so that
/// both workers of a small cohort get several tiles. (Zarr output chunks are one tile.)
inline int64_t grm_tile_for(int64_t n) { return n < 4 * kGrmDefaultTile ? kGrmDefaultTile / 2 : kGrmDefaultTile; }
/// \brief Samples per sample group of the tile kernel (Backend::gram_panels_f32): tile sides
/// are multiples of it.
inline constexpr int64_t kGrmSampleGroup = 32;
/// \brief The tile side a pass uses: `requested` rounded up to a whole sample group, or
/// grm_tile_for(n) when it is 0.
inline int64_t grm_tile(int64_t n, int64_t requested) {
  if (requested <= 0) return grm_tile_for(n);
  return (requested + kGrmSampleGroup - 1) / kGrmSampleGroup * kGrmSampleGroup;
}

/// \brief Parameters of compute_grm().
struct GrmParams {
  /// plink2's `meanimpute`: divide every pair by M (else by the variants both observe).
  /// Every variant of the view is used, monomorphic ones included (they count in M): `--maf`
  /// and `--geno` are the selection's (genomics::SelectionOptions), applied to the view before.
  bool meanimpute = false;
  /// Allele frequencies from every sample (plink2's --nonfounders); false: from the founders
  /// when some sample has a parent (plink2's default; use_founder_frequencies()).
  bool nonfounders = false;
  /// Samples per tile side (0 = grm_tile_for(n)), rounded up to a multiple of kGrmSampleGroup.
  /// Results are the same bits for any value.
  int64_t tile = 0;
  /// Variants with no missing call go through the exact-integer product (raw codes against a
  /// weight quantized to ~20 bits, centring as rank-1 terms) where the backend has a fast one.
  /// About 1.35× faster; entries differ from the float32 path by ~1e-7 relative. The same
  /// bits for any tile size and thread count either way.
  bool integer_products = false;
  /// Tile products in float64 (Backend::gram_sparse_f64 from codes, gram_panels_f64 from
  /// dosages; float64 sums): each entry within ~1e-15 relative of a float64 sum, so `.grm.bin` rounds to plink2's
  /// float32 bits. False: float32 panels summed in runs of 128 variants (~3e-8 from float64),
  /// about 2× faster (float32 arithmetic). Ignored with integer_products (its complete variants
  /// are summed as integers, the rest in float32).
  bool float64 = true;
};

/// \brief A finished tile of the lower triangle: GRM(row0 + i, col0 + j) = values[i·cols + j]
/// for i < rows, j < cols, with row0 ≥ col0 (diagonal tiles are whole squares, symmetric).
/// `counts` (same layout) holds M_ab, the variants both samples observe, or is null when every
/// pair has M (meanimpute, or no missing call).
struct GrmTile {
  int64_t row0 = 0, rows = 0, col0 = 0, cols = 0;
  const double* values = nullptr;
  const double* counts = nullptr;
};

/// \brief Receives each finished tile once, on the calling thread: tiles come in bands of
/// whole tile rows (increasing row0), and within a band in row-major order (row0, then col0).
using GrmTileSink = std::function<Status(const GrmTile&)>;

/// \brief What compute_grm() did.
struct GrmInfo {
  int64_t num_samples = 0;
  int64_t num_variants_input = 0;
  int64_t grm_variants = 0;        ///< M: the view's variants (monomorphic included)
  FilterResult filter;             ///< kept: every variant (the report's dropped_* counts are 0)
  bool pairwise_counts = false;    ///< M_ab varies per pair (no meanimpute, missing calls present)
  int64_t bands = 0;               ///< passes over the variants (1 when every tile fits the budget)
  int64_t tile = 0;                ///< samples per tile side
  int64_t integer_variants = 0;    ///< variants summed by the exact-integer product
};

/// \brief The GRM of `view`, streamed to `sink` tile by tile. InvalidData when fewer than two
/// samples or no variant. Phases ("variant counts", "grm") go to
/// ctx.report(); progress is one task in variants (one pass per band, after the counts pass).
Result<GrmInfo> compute_grm(const Context& ctx, const io::GenotypeViewPtr& view, const GrmParams& params,
                            const GrmTileSink& sink);

/// \brief The progress units one variant of the GRM pass weighs against one of a counts pass
/// (n² / 2 products against n codes decoded: ~2.5e-11·n² s against ~9.2e-10·n s on the
/// development VM). The 4-argument compute_grm() counts its variants at the weight its caller
/// set (ProgressWeight); the 3-argument one weighs them by this.
int64_t grm_pass_work_per_variant(int64_t n);

/// \brief As compute_grm(), on variant counts already computed (`counts`, one per variant of
/// `view`, with use_founder_frequencies() applied): PCA's exact route shares its counts pass.
Result<GrmInfo> compute_grm(const Context& ctx, const io::GenotypeViewPtr& view,
                            const std::vector<VariantCounts>& counts, const GrmParams& params,
                            const GrmTileSink& sink);

/// \brief Position of the pair (i, j), j ≤ i, in a packed lower triangle (diagonal included).
inline int64_t lower_pair(int64_t i, int64_t j) { return i * (i + 1) / 2 + j; }

/// \brief One variant range's share of the float64 GRM pass (GrmParams::float64, codes: the
/// route strata.grm takes), for a pass split by variants over a cluster (python/strata/
/// _dask_pairs.py). The pass adds each tile's products block by block (grm_block_variants(n)
/// variants: a block's runs are summed apart, then added to the accumulator in block order),
/// so a range that starts at a block boundary of the whole pass's variants returns exactly the
/// blocks' sums the pass adds: `block_sums` (blocks × pairs, pairs = n(n+1)/2, the lower
/// triangle packed by lower_pair) and `both_missing`, the pairs' both-missing counts over the
/// range (exact integers; empty without pairwise counts: meanimpute, or no missing call in the
/// range). Adding every range's block sums in block order, starting from zeros, gives the
/// pass's raw sums bit for bit; grm_from_sums() finishes them.
struct GrmPartial {
  int64_t samples = 0, variants = 0, blocks = 0;
  std::vector<double> block_sums;
  std::vector<double> both_missing;
};

/// \brief The partial of `view`'s variants (`counts`: theirs, frequencies as the whole pass
/// takes them). Invalid for parameters other than the float64 route of codes.
Result<GrmPartial> grm_partial(const Context& ctx, const io::GenotypeViewPtr& view,
                               const std::vector<VariantCounts>& counts, const GrmParams& params);

/// \brief The GRM (N × N, row-major) from the raw sums of the pass over `m` variants: `sums`
/// and `both_missing` (empty: every pair has M) packed as in GrmPartial. The same finish as
/// compute_grm() (division by M or M_ab).
Result<std::vector<double>> grm_from_sums(int64_t n, int64_t m, const std::vector<double>& sums,
                                          const std::vector<double>& both_missing);

/// \brief The whole GRM as an N × N symmetric matrix, row-major (N² doubles).
Result<std::vector<double>> compute_grm_dense(const Context& ctx, const io::GenotypeViewPtr& view,
                                              const GrmParams& params, GrmInfo* info = nullptr);

}  // namespace strata::genomics
