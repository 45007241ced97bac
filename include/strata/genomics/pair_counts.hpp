#pragma once
/// \file
/// Joint genotype counts for every pair of samples: the exact integers behind KING kinship,
/// IBS and every genotype distance (strata/genomics/king.hpp, distance.hpp).
///
/// For a pair (a, b), PairTable holds the 3 × 3 table of their codes over the variants where
/// both are observed (c[x][y] = variants with a = x, b = y ALT alleles). The pass computes it
/// from bit planes with AND + popcount on the Context's backend (backend.hpp
/// pair_code_counts), so every count is exact and the same bits for any backend, thread count
/// and tile size.
///
/// The pass walks tiles of samples **row-major**: the tiles of the first tile row, then the
/// second, each from column 0 up to the diagonal (the lower triangle), or across the whole row
/// with `full_rows`. A finished tile is handed to the caller and then freed; the tile that
/// completes a tile row says so (`last_in_row`), and tile rows complete in order.
///
/// **Bands.** When the bit planes of every sample (3 bits per genotype: 375 MB for 50,000 ×
/// 20,000) fit the Context's memory budget they are built once and stay resident, and tiles
/// come in exactly the order above. Otherwise the samples are cut into bands of whole tiles
/// sized from the budget: for row band I and each column band J (J ≤ I, or every J with
/// `full_rows`) the planes of band I stay resident while band J's are built by another pass
/// over the variants (re-read once per band pair), and the tiles of (I, J) follow row-major.
/// So tiles of several tile rows of one band interleave, but a tile row's tiles still come in
/// column order and the tile rows of a band still complete in order: a caller that keeps each
/// tile row's pieces until `last_in_row` (genomics/row_spool.hpp bounds that memory) writes
/// the same bytes for any band, tile size and thread count. Counts are exact integers either
/// way.

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "strata/backend/backend.hpp"
#include "strata/core/context.hpp"
#include "strata/io/genotype.hpp"

namespace strata::genomics {

/// \brief Codes of two samples over the variants both have observed: c[x][y] = variants where
/// the first has x and the second y ALT alleles.
struct PairTable {
  int64_t c[3][3] = {};

  /// From the kernel's fields (backend::PairCountField order).
  static PairTable from_fields(const int64_t* fields, int64_t stride);
  /// From the five KING counts (backend::KingCountField order): only what KING reads is
  /// exact — c[1][1], both(), differ2() and the het-hom sums c[1][0] + c[1][2] and
  /// c[0][1] + c[2][1] (the hom-alt/hom-ref split of those is lumped into c[1][0], c[0][1],
  /// and opposite homozygotes into c[0][2]).
  static PairTable from_king_fields(const int64_t* fields, int64_t stride);
  /// Variants observed in both.
  int64_t both() const;
  /// Variants where the dosages differ by 1 and by 2 (IBS1 and IBS0).
  int64_t differ1() const { return c[0][1] + c[1][0] + c[1][2] + c[2][1]; }
  int64_t differ2() const { return c[0][2] + c[2][0]; }
  /// Σa, Σa², Σb, Σb², Σab over the jointly observed variants (dosages as coordinates).
  int64_t sum_a() const;
  int64_t sum_a2() const;
  int64_t sum_b() const;
  int64_t sum_b2() const;
  int64_t sum_ab() const;
};

/// \brief Settings of the pair pass (resources come from the Context).
struct PairPassOptions {
  /// Samples per tile side, a multiple of 8; 0 = 256 (fewer for small N). Results do not
  /// depend on it; tests vary it.
  int64_t tile = 0;
  /// Progress label.
  std::string label = "pair counts";
  /// Only the counts KING needs (backend pair_king_counts: 5 popcounts per word instead of
  /// 9); PairTile::table() is then exact only where from_king_fields() says.
  bool king_only = false;
  /// Also the tiles above the diagonal (pairs j > i): each tile row then covers whole rows of
  /// the N × N matrix (a square output streamed in row order).
  bool full_rows = false;
  /// Samples per band when the planes do not all fit (rounded up to whole tiles); 0 = from
  /// the budget. Results do not depend on it; tests set it to force several bands.
  int64_t band = 0;
  /// Memory the caller holds beside the pass (its pending output): left out of the budget
  /// when sizing the bands.
  int64_t reserve_bytes = 0;
};

/// \brief How the pass will run for a view and options: tile side, samples per band and
/// bands (1 = every sample's planes resident, one pass over the variants).
struct PairPassPlan {
  int64_t tile = 0, band = 0, bands = 1;
  int64_t plane_bytes_per_sample = 0;
};

/// \brief The plan of for_each_pair_tile(); OutOfMemory (naming the need) when not even two
/// tiles of samples' planes fit the budget.
Result<PairPassPlan> plan_pair_pass(const Context& ctx, const io::GenotypeView& view, const PairPassOptions& options);

/// \brief One finished tile: pairs (row0 + i, col0 + j) for i < rows, j < cols, with
/// col0 ≤ row0 unless full_rows (a diagonal tile, col0 = row0, holds both orders of each pair
/// and the diagonal itself; with king_only only j ≤ i there).
struct PairTile {
  int64_t index = 0;               ///< position in the pass order
  int64_t row0 = 0, rows = 0, col0 = 0, cols = 0;
  int64_t tile_row = 0, tile_col = 0;  ///< row0 and col0 in tiles
  bool last_in_row = false;        ///< its tile row is complete (the diagonal tile, or the last with full_rows)
  const int64_t* counts = nullptr;  ///< field f of (i, j) at counts[(f·rows + i)·ldc + j]
  int64_t ldc = 0;
  bool king_only = false;           ///< KingCountField fields (PairPassOptions::king_only)

  /// The pair (i, j); on a diagonal tile only j ≤ i.
  PairTable table(int64_t i, int64_t j) const {
    return king_only ? PairTable::from_king_fields(counts + i * ldc + j, rows * ldc)
                     : PairTable::from_fields(counts + i * ldc + j, rows * ldc);
  }
};

/// \brief Run the pass over `view` (all samples, all variants) and hand each finished tile to
/// `on_tile`, serially, in the order of the file comment. Memory: the planes of the whole
/// view or of two bands, plus the tiles in flight, within the budget (less reserve_bytes).
/// Phases "bit planes" and "pair counts" go to ctx.report().
Status for_each_pair_tile(const Context& ctx, const io::GenotypeView& view, const PairPassOptions& options,
                          const std::function<Status(const PairTile&)>& on_tile);

/// \brief What a tile's parallel step leaves for the in-order commit (see the overload of
/// for_each_pair_tile() with `prepare`).
struct PreparedTile {
  std::string text;                                ///< the tile's formatted output
  std::vector<uint32_t> ends;                      ///< end of each tile row's part of text
  std::vector<std::pair<int64_t, int64_t>> pairs;  ///< pairs the caller collects, in order
  int64_t count = 0;                               ///< a tally of the caller's
};

/// \brief As above, with the per-tile work split in two: `prepare` runs on the worker that
/// computed the tile, right after its counts (in parallel, any order; formatting text there
/// keeps it off the serial commit), and `commit` gets the tile and what prepare left, serially
/// in the pass order. Under MPI (a communicator of several ranks) the ranks share the tiles:
/// each computes and prepares its share, round by round, and rank 0 alone commits every tile,
/// in the same order, with `counts` null (they stay on the rank that computed them). Every
/// rank builds the planes (reads the whole input); the prepared bytes are what crosses ranks.
Status for_each_pair_tile(const Context& ctx, const io::GenotypeView& view, const PairPassOptions& options,
                          const std::function<Status(const PairTile&, PreparedTile&)>& prepare,
                          const std::function<Status(const PairTile&, PreparedTile&)>& commit);

/// \brief The joint counts of every pair (i, j ≤ i) over all of `view`'s variants: field f of
/// the pair at lower_pair(i, j) (grm.hpp's packing) is counts[f·pairs + p], pairs = n(n+1)/2,
/// fields in backend::KingCountField order with king_only, else PairCountField. One variant
/// range's share of the pass: counts add exactly, so the partials of disjoint ranges summed in
/// any order are the counts of their union (a cluster splits the pass so, python/strata/
/// _dask_pairs.py); pair_table_of() reads a pair's table. InvalidData from 2^31 variants on.
Result<std::vector<int32_t>> pair_count_partial(const Context& ctx, const io::GenotypeView& view, bool king_only);

/// \brief The table of pair p of summed partial counts (layout as pair_count_partial()).
PairTable pair_table_of(const int32_t* counts, int64_t pairs, int64_t p, bool king_only);

/// \brief The tile side the pass uses for `n` samples under `options`.
int64_t pair_tile_size(int64_t n, const PairPassOptions& options);

}  // namespace strata::genomics
