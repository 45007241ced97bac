#pragma once
/// \file
/// KING-robust kinship for every pair of samples (`strata king`), with plink2's outputs.
///
/// Kinship is plink2's KING-robust estimator over the variants both samples have observed:
/// φ = ½ − (4·IBS0 + H₁₂ + H₂₁) / (4·(HetHet + min(H₁₂, H₂₁))), where IBS0 counts opposite
/// homozygotes, HetHet both heterozygous, H₁₂ the first het and the second homozygous. The
/// counts are exact integers (pair_counts.hpp); φ is formed from them once, in double.
///
/// Files for an output prefix P (one OutputSet, strata/core/output.hpp: checked before the
/// pass, moved into place together when complete, nothing left behind on error):
///
/// | file | written | contents (as plink2 2.00a3.5 writes them) |
/// |---|---|---|
/// | `P.king`, `P.king.id` | default | `--make-king triangle`: line i holds φ(i, j) for j < i, tab-separated, `%g`; the ID file has a `#FID IID` (or `#IID`) header |
/// | `P.kin0.svg`, `.png` | `table` | kinship against IBS0 with the degree thresholds (unless `write_plot` is off) |
/// | `P.kin0` | `table` | `--make-king-table`: `#FID1 IID1 FID2 IID2 NSNP HETHET IBS0 KINSHIP` (FID columns only when the source has FIDs), pairs (i, j < i) in that order; HETHET and IBS0 are fractions of NSNP |
/// | `P.king.cutoff.in.id`, `P.king.cutoff.out.id` | `cutoff` | `--king-cutoff`: the samples kept and removed so that no kept pair has φ > C, by plink2's greedy rule |
///
/// `filter` keeps the table rows with φ ≥ MIN (`--king-table-filter`); rows are streamed as
/// tiles finish, so memory does not grow with N². With `cutoff` alone only the two ID lists
/// are written (as `plink2 --king-cutoff`).
///
/// Memory is bounded by the budget for any N: the pair pass goes in sample bands when the bit
/// planes do not fit (pair_counts.hpp), and the formatted rows waiting for their tile row (a
/// whole band of rows, with bands) stay in memory up to `spool_bytes` (a quarter of the budget)
/// and go to a spill file in the output's staging directory beyond it. Every file is the same
/// bytes for any band, tile size, thread count and spool size.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "strata/core/context.hpp"
#include "strata/core/job.hpp"
#include "strata/genomics/pair_counts.hpp"
#include "strata/genomics/selection.hpp"

namespace strata::genomics {

/// \brief The KING-robust kinship of a pair's table (NaN or −inf where plink2 prints them).
double king_kinship(const PairTable& t);

/// \brief The N × N KING-robust kinship matrix of `view`'s samples (row-major, symmetric). The
/// diagonal is the estimator applied to a sample with itself: 0.5, NaN for a sample with no
/// heterozygous call. InvalidData for fewer than two samples.
Result<std::vector<double>> king_matrix(const Context& ctx, const io::GenotypeView& view,
                                        const PairPassOptions& pass = {});

/// \brief king_matrix() from the summed KING counts of a pass split by variants
/// (pair_count_partial() with king_only, summed): the same values, bit for bit.
std::vector<double> king_matrix_from_counts(int64_t n, const int32_t* counts);

/// \brief Options of run_king_to_files().
struct KingOptions {
  bool table = false;             ///< write `P.kin0` instead of `P.king` + `P.king.id`
  std::optional<double> filter;   ///< table rows with kinship ≥ this only (implies `table`)
  std::optional<double> cutoff;   ///< write the `--king-cutoff` ID lists for this threshold
  SelectionOptions selection;     ///< samples and variants to use (plink2's --keep, --maf, …)
  PairPassOptions pass;           ///< tile size, band (tests)
  /// Bytes of pending output rows kept in memory before the rest goes to a spill file in the
  /// staging directory (several sample bands); 0 = a quarter of the budget.
  int64_t spool_bytes = 0;
  /// With the table: `P.kin0.svg` / `P.kin0.png`, kinship against IBS0 (genomics/plot.hpp).
  bool write_plot = true;
  std::string plot_format;  ///< "svg", "png", "svg,png" ("" = SVG, and PNG where libcairo is found)
};

/// \brief What run_king_to_files() did.
struct KingSummary {
  int64_t num_samples = 0, num_variants = 0;
  int64_t pairs_written = 0;       ///< table rows or triangle values
  int64_t cutoff_removed = 0;      ///< samples in `P.king.cutoff.out.id`
  SelectionReport selection;       ///< what the selection removed
  int64_t spilled_bytes = 0;       ///< pending rows that went through the spill file
  int64_t sample_bands = 1;        ///< bands of the pair pass (pair_counts.hpp; 1 = planes resident)
  std::vector<std::string> files;  ///< outputs written
  Summary report;                  ///< the report fields (the CLI's --report, Python's dict)
};

/// \brief Open `input` (anything io::open_genotypes() reads) and write the KING outputs for
/// `prefix`. Invalid for a negative cutoff or fewer than two samples (there is no pair).
Result<KingSummary> run_king_to_files(const Context& ctx, const std::string& input, const std::string& prefix,
                                      const KingOptions& options);

/// \brief plink2's `--king-cutoff` rule on an undirected graph of the pairs above the cutoff
/// (`edges` as (i, j) sample indices): while edges remain, remove the partner of the first
/// sample left with exactly one, else the first sample with the most. Returns the removed
/// samples, ascending.
std::vector<int64_t> king_cutoff_removed(int64_t num_samples, const std::vector<std::pair<int64_t, int64_t>>& edges);

/// \brief A number as plink2 prints kinship and fractions (`%g`: 6 significant digits;
/// "nan", "inf", "-inf").
std::string format_king_value(double v);

}  // namespace strata::genomics
