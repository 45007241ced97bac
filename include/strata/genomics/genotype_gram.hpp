#pragma once
/// \file
/// The standardized genotype matrix as a linalg::GramOperator computed straight from 2-bit
/// codes: the kernels decode codes inside their register loop, so the matrix is never expanded
/// in memory. Arithmetics (strata::Precision): int16 (default) multiplies the raw codes
/// by 15-bit rounded operands with exact integer sums (AVX-512 VNNI) and applies centring,
/// scaling and missing calls afterwards as per-variant terms; float32 decodes codes through the
/// per-variant standardization table and feeds FMAs.
///
/// Y = AᵀA·Q runs in groups of 3,072 variants: phase 1 computes A_t·Q for every 96-variant tile
/// of the group in parallel; phase 2 splits the samples into fixed slices and adds A_gᵀ·(A_g·Q)
/// row by row in order, exact (int16) or float32 within a group and float64 across groups. The
/// partition is fixed by the shape, so results are bit-identical for any thread count (and, for
/// int16, between the vectorized and portable kernels).
///
/// The packed codes of the used variants stay in memory when they fit the `resident_bytes`
/// budget (M·⌈N/4⌉ bytes: 250 MB for 10,000 × 100,000); otherwise every pass re-reads them
/// from the view (out of core, memory independent of M).

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "strata/core/buffer.hpp"
#include "strata/core/result.hpp"
#include "strata/core/tree_sum.hpp"
#include "strata/io/genotype.hpp"
#include "strata/genomics/qc.hpp"
#include "strata/linalg/gram_operator.hpp"


namespace strata::genomics {

/// The Gram products take three of strata::Precision's values:
/// - Int16: int16 operands, exact integer sums (AVX-512 VNNI: twice the float32 rate). The dense
///   block is rounded to 15 bits per column (and A·Q per 3,072-variant group and column) before
///   each product: relative error ~1e-5 on the products, far below what randomized PCA resolves.
/// - Float32: float32 products of the standardized values, float64 across groups.
/// - Mixed: A·Q̃ as int16 exact integer sums, then Aᵀ·(A·Q̃) in float32, where Q̃ is Q rounded
///   to 15 bits per column and reported by GramOperator::operand(): callers that take Q̃ as
///   their basis get float32 accuracy (the rounding is not an error, only a slightly different
///   block) at ~0.8× the float32 cost. For converged (--tolerance) runs.
/// Auto and Float64 are refused (Invalid).
using strata::Precision;

/// \brief Whether the backend of `ctx` runs the int16 kernels fast (on the CPU: AVX-512 VNNI
/// and VBMI); where it does not, float32 (AVX-512 FMA where available) is the faster choice.
bool int16_kernels_vectorized(const Context& ctx);
/// \brief As above for the default CPU backend (backend::cpu_backend()).
bool int16_kernels_vectorized();

/// \brief Every variant's packed codes in memory, laid out as the operator keeps them (rows
/// `stride` apart, one zero row and slack after the last), with their counts.
struct ResidentCodes {
  Buffer codes;
  int64_t rows = 0, stride = 0;
  std::vector<VariantCounts> counts;
};

/// \brief The counts pass and the load of the codes in one read of `view` (one process only):
/// what compute_variant_counts() returns, and the codes for GenotypeGramOptions::preloaded.
/// Advances ctx's progress by variants.
Result<ResidentCodes> load_codes_with_counts(const Context& ctx, const io::GenotypeView& view);

/// \brief Options of make_genotype_gram_operator().
struct GenotypeGramOptions {
  Precision arithmetic = Precision::Int16;
  int64_t resident_bytes = 0;           ///< keep the codes in memory up to this size (0 = never)
  /// Codes of every variant of the view, already in memory (one process only): a resident
  /// operator takes them over (its kept rows moved down in place) instead of reading the view
  /// again. Emptied by make_genotype_gram_operator() whether taken or not.
  ResidentCodes* preloaded = nullptr;
};

/// \brief The operator over variants `kept` (ascending indices into `view`) × all samples,
/// standardized with `scale` from `counts` (one entry per variant of `view`). Its passes run
/// on `ctx` (threads, progress by variants, cancellation between groups).
Result<linalg::GramOperatorPtr> make_genotype_gram_operator(const Context& ctx, const io::GenotypeViewPtr& view,
                                                            const std::vector<genomics::VariantCounts>& counts,
                                                            std::vector<int64_t> kept, genomics::Standardization scale,
                                                            const GenotypeGramOptions& options);

/// \brief Whether the codes of the operator are held in memory (for reports and tests).
bool genotype_gram_is_resident(const linalg::GramOperator& op);

// ---- Passes whose groups run where the codes are (Dask workers) -------------------------------

/// \brief Variants per group of the Gram products: the fixed unit of their summation order.
inline constexpr int64_t kGenotypeGramGroupVariants = 3072;

/// \brief What one group of variants adds to Y = AᵀA·Q, computed where its codes are by
/// genotype_gram_group() and added on the driver, in group order, by the operator of
/// make_remote_genotype_gram_operator(): the same bits as make_genotype_gram_operator()'s.
struct GenotypeGramPartial {
  int64_t rows = 0;              ///< variants of the group
  std::vector<double> z;         ///< the group's sums, w × ⌈n/16⌉·16 (w = Q's columns rounded up to 8)
  std::vector<double> t;         ///< int16: the group's A·Q̃ as rounded, rows × w
  std::vector<int32_t> missing;  ///< int16: (row, sample) pairs of the group's missing calls
};

/// \brief One group's variants where their codes are: `rows` packed rows of `samples` codes at
/// `codes` (io::packed_row_bytes(samples) bytes each), and their counts (one per row).
struct GenotypeGroup {
  const uint8_t* codes = nullptr;
  int64_t rows = 0, samples = 0;
  std::vector<VariantCounts> counts;
};

/// \brief The group's contribution to gram(q) (q: samples × w, float64) for `scale` and
/// `arithmetic` (int16, mixed or float32, as the driver's operator).
Result<GenotypeGramPartial> genotype_gram_group(const Context& ctx, const GenotypeGroup& group,
                                                genomics::Standardization scale, Precision arithmetic,
                                                const linalg::DenseMatrix& q);
/// \brief The group's rows of A·X (rows × x.cols, row-major).
Result<std::vector<double>> genotype_project_group(const Context& ctx, const GenotypeGroup& group,
                                                   genomics::Standardization scale, const linalg::DenseMatrix& x);

/// \brief Consecutive rows of the used variants where their codes are: `pieces`, in order, hold
/// rows [row0, row0 + their rows) (pieces of any size: a batch's groups, then the head of the
/// next batch).
struct GenotypeRowRange {
  int64_t row0 = 0;
  std::vector<GenotypeGroup> pieces;
};

/// \brief PCA's float64 check pass where the codes are: the blocks of `block_rows` used
/// variants (the local check operator's plan, linalg::gram_operator_blocks()) that `range`
/// holds — it starts on a block boundary and ends on one or at the last of `total_rows` used
/// variants. Each block's rows, standardized through float64 tables, go through
/// linalg::gram_block_partial() into a TreeSum over the block grid; its nodes come back in block
/// order, for the driver's tree to continue (TreeSum::push_nodes): the local pass's bits.
Result<std::vector<TreeSum::Node>> genotype_check_blocks(const Context& ctx, const GenotypeRowRange& range,
                                                         int64_t total_rows, genomics::Standardization scale,
                                                         int64_t block_rows, const linalg::DenseMatrix& q);

/// \brief Runs the groups of each pass where the codes are and hands their results back in
/// ascending group order. Group g is kept[g·kGenotypeGramGroupVariants …] (at most that many).
class GenotypeGroupRunner {
 public:
  virtual ~GenotypeGroupRunner() = default;
  /// Once, before the passes: the variants used (ascending indices into the input).
  virtual Status plan(const std::vector<int64_t>& kept, genomics::Standardization scale, Precision arithmetic) = 0;
  virtual Status gram(const linalg::DenseMatrix& q,
                      const std::function<Status(int64_t group, GenotypeGramPartial&&)>& add) = 0;
  virtual Status project(const linalg::DenseMatrix& x,
                         const std::function<Status(int64_t group, std::vector<double>&&)>& add) = 0;
  /// The float64 check pass (PcaParams::check_errors) in blocks of `block_rows` used variants:
  /// consecutive ranges of blocks computed by genotype_check_blocks(), each range's TreeSum
  /// nodes handed to `add` in block order.
  virtual Status check_gram(int64_t block_rows, const linalg::DenseMatrix& q,
                            const std::function<Status(std::vector<TreeSum::Node>&&)>& add) = 0;
};

/// \brief The operator over variants `kept` × `samples` whose groups run in `runner` (plan()
/// is called here). Only the operand, the group sums and the dense work stay on this machine.
Result<linalg::GramOperatorPtr> make_remote_genotype_gram_operator(const Context& ctx, int64_t samples,
                                                                   const std::vector<genomics::VariantCounts>& counts,
                                                                   std::vector<int64_t> kept,
                                                                   genomics::Standardization scale,
                                                                   const GenotypeGramOptions& options,
                                                                   std::shared_ptr<GenotypeGroupRunner> runner);

/// \brief The float64 check operator over `rows` used variants × `samples` whose blocks run in
/// `runner` (check_gram()): the plan of make_gram_operator(standardized rows, Float64, `pass`)
/// and its sums, so the same bits as the local check pass. Only gram() (the check's one pass).
Result<linalg::GramOperatorPtr> make_remote_check_operator(const Context& ctx, int64_t samples, int64_t rows,
                                                           const PassOptions& pass,
                                                           std::shared_ptr<GenotypeGroupRunner> runner);

}  // namespace strata::genomics
