#pragma once
/// \file
/// Pairwise distances between samples (`strata distance`): samples are the observations and
/// their ALT dosages (0, 1, 2) the coordinates. Every metric is formed from the pair's exact
/// joint code counts (pair_counts.hpp), so the values are the same bits for any backend,
/// thread count and tile size.
///
/// **Missing calls.** Each pair uses only the variants both samples have observed (as sgkit's
/// `pairwise_distance`), without rescaling: sums (euclidean, sqeuclidean, cityblock,
/// minkowski) run over those variants; hamming, ibs and allele-sharing are fractions of them;
/// cosine and correlation use Σa, Σb, Σa², Σb², Σab over them. A pair with no variant observed
/// in both gets NaN. On complete data every metric equals `scipy.spatial.distance.pdist`.
///
/// | metric | value (d₁, d₂ = variants whose dosages differ by 1, 2; n = jointly observed) |
/// |---|---|
/// | euclidean, sqeuclidean | √(d₁ + 4d₂), d₁ + 4d₂ |
/// | cityblock | d₁ + 2d₂ |
/// | chebyshev | 2 if d₂ > 0, else 1 if d₁ > 0, else 0 |
/// | minkowski:P | (d₁ + 2ᴾd₂)^(1/P), P > 0 |
/// | cosine | 1 − Σab / √(Σa²·Σb²) |
/// | correlation | 1 − (nΣab − ΣaΣb) / √((nΣa² − (Σa)²)(nΣb² − (Σb)²)) |
/// | hamming | (d₁ + d₂) / n |
/// | ibs | 1 − (d₁ + 2d₂) / 2n: plink 1.9 `--distance ibs flat-missing` (`.mibs`) |
/// | allele-sharing | (d₁ + 2d₂) / 2n: plink 1.9 `--distance 1-ibs flat-missing` (`.mdist`) |
///
/// plink 1.9 without `flat-missing` reweights pairs with missing calls by allele frequency;
/// on complete data the two agree.
///
/// Files for prefix P (one OutputSet): `P.dist` (tab-separated, shortest round-trip decimal)
/// and `P.dist.id` (FID and IID per line, no header, as plink 1.9's `.mibs.id`):
/// - square (default): N lines of N values;
/// - triangle: line i holds the pairs (i, j < i), plink's triangle; for `ibs` (a similarity)
///   the diagonal too, as plink 1.9's `.mibs`;
/// - zarr: `P.dist.zarr` instead, a Zarr v2 group with `distance` (N × N float64, chunked by
///   tiles of samples) and `sample_id`.
/// Genotype input, memory bounded by the budget for any N (the pair pass goes in sample bands
/// when the bit planes do not fit, pair_counts.hpp): triangle text streams rows as tile rows
/// finish; zarr writes each tile as its chunk and the chunk's mirror as the tile finishes
/// (chunks are tiles); square holds the N × N matrix (half the kernel work: the lower
/// triangle, mirrored) only when it fits half the budget, and otherwise streams whole rows from
/// a pass over full tile rows (both triangles computed: twice the kernel work, no N² memory).
/// Rows waiting for their tile row go through a spool (a quarter of the budget in memory, the
/// rest in a spill file in the staging directory). Every output is the same bytes either way
/// and for any band, tile size and thread count (the Zarr chunking follows the tile size).
/// A numeric array's square and zarr outputs still hold the matrix.
///
/// A 2-D numeric Zarr array as input (rows = observations, NaN = missing): see
/// strata/genomics/row_distance.hpp.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "strata/core/context.hpp"
#include "strata/core/job.hpp"
#include "strata/genomics/pair_counts.hpp"
#include "strata/genomics/selection.hpp"

namespace strata::genomics {

enum class DistanceMetric : uint8_t {
  Euclidean,
  SqEuclidean,
  Cityblock,
  Chebyshev,
  Minkowski,
  Cosine,
  Correlation,
  Hamming,
  Ibs,
  AlleleSharing,
};

/// \brief A metric and its parameter (Minkowski's P).
struct DistanceSpec {
  DistanceMetric metric = DistanceMetric::Euclidean;
  double p = 2.0;
};

/// \brief The metric names `parse_distance_metric` accepts, for messages and help.
inline constexpr std::string_view kDistanceMetricNames =
    "euclidean, sqeuclidean, cityblock, chebyshev, minkowski:P, cosine, correlation, hamming, ibs, allele-sharing";

/// \brief "euclidean", "minkowski:3", …; Invalid naming the valid metrics otherwise, or a
/// Minkowski P that is not a number above 0.
Result<DistanceSpec> parse_distance_metric(std::string_view text);

/// \brief The metric's name as parse_distance_metric() reads it ("minkowski:3").
std::string distance_metric_name(const DistanceSpec& spec);

enum class DistanceFormat : uint8_t { Square, Triangle, Zarr };
/// \brief "square", "triangle" or "zarr"; Invalid otherwise.
Result<DistanceFormat> parse_distance_format(std::string_view text);

/// \brief The metric of a pair from its joint counts (see the table above). A sample with itself
/// (`same_sample`) is 0 apart (ibs: 1), whatever it has observed: plink 1.9's diagonal, and
/// scipy's squareform, even for a sample with no call.
double pair_distance(const DistanceSpec& spec, const PairTable& t, bool same_sample = false);

/// \brief The N × N matrix (row-major) of `view`'s samples.
Result<std::vector<double>> distance_matrix(const Context& ctx, const io::GenotypeView& view,
                                            const DistanceSpec& spec, const PairPassOptions& pass = {});
/// \brief distance_matrix() from the summed pair counts of a pass split by variants
/// (pair_count_partial(), summed): the same values, bit for bit.
std::vector<double> distance_matrix_from_counts(int64_t n, const int32_t* counts, const DistanceSpec& spec);

struct DistanceOptions {
  DistanceSpec metric;
  DistanceFormat format = DistanceFormat::Square;
  bool overwrite = false;  ///< replace an existing `P.dist.zarr`
  PairPassOptions pass;
  int64_t row_band = 0;    ///< numeric array input: rows per band (row_distance.hpp; tests)
  SelectionOptions selection;  ///< genotype input: samples and variants to use (plink2's --keep, --maf, …)
  /// Bytes of pending text rows kept in memory before the rest goes to a spill file in the
  /// staging directory; 0 = a quarter of the budget.
  int64_t spool_bytes = 0;
  /// Square genotype output: stream full rows even when the N × N matrix fits (tests).
  bool stream_square = false;
};

struct DistanceSummary {
  int64_t num_samples = 0, num_variants = 0;
  SelectionReport selection;  ///< what the selection removed
  std::string layout;         ///< genotype input: "streamed", or "held" (square matrix in memory)
  int64_t spilled_bytes = 0;  ///< pending text rows that went through the spill file
  int64_t sample_bands = 1;   ///< bands of the pair pass (pair_counts.hpp; 1 = planes resident)
  std::vector<std::string> files;
  Summary report;             ///< the report fields (the CLI's --report, Python's dict)
};

/// \brief Open `input` and write the distance outputs for `prefix`. A path naming a 2-D numeric
/// Zarr array is read as rows = observations (row_distance.hpp; IDs are the row numbers);
/// anything else io::open_genotypes() reads is genotypes, samples = observations (a dosage
/// array is read as genotypes through the group that holds it). InvalidData for fewer than
/// two samples or rows (there is no pair).
Result<DistanceSummary> run_distance_to_files(const Context& ctx, const std::string& input, const std::string& prefix,
                                              const DistanceOptions& options);

}  // namespace strata::genomics
