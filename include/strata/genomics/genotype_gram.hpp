#pragma once
/// \file
/// The standardized genotype matrix as a linalg::GramOperator computed straight from 2-bit
/// codes: the kernels decode codes inside their register loop, so the matrix is never expanded
/// in memory. Two arithmetics (GenotypeArithmetic): int16 (default) multiplies the raw codes
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
#include <string>
#include <vector>

#include "strata/core/result.hpp"
#include "strata/io/genotype.hpp"
#include "strata/io/genotype_stats.hpp"
#include "strata/linalg/gram_operator.hpp"

namespace strata {
class ThreadPool;
class ProgressBar;
}  // namespace strata

namespace strata::genomics {

/// \brief Arithmetic of the Gram products.
enum class GenotypeArithmetic : uint8_t {
  /// int16 operands, exact integer sums (AVX-512 VNNI: twice the float32 rate). The dense block
  /// is rounded to 15 bits per column (and A·Q per 3,072-variant group and column) before each
  /// product: relative error ~1e-5 on the products, far below what randomized PCA resolves.
  Int16,
  /// float32 products of the standardized values, float64 across groups.
  Float32,
  /// A·Q̃ as int16 exact integer sums, then Aᵀ·(A·Q̃) in float32, where Q̃ is Q rounded to
  /// 15 bits per column and reported by GramOperator::operand(): callers that take Q̃ as
  /// their basis get float32 accuracy (the rounding is not an error, only a slightly different
  /// block) at ~0.8× the float32 cost. For converged (--tolerance) runs.
  Mixed,
};

/// \brief Whether this CPU runs the int16 kernels vectorized (AVX-512 VNNI and VBMI); where
/// it does not, float32 (AVX-512 FMA where available) is the faster choice.
bool int16_kernels_vectorized();

/// \brief "int16" / "float32" / "mixed"; parse_genotype_arithmetic() reads them back.
const char* genotype_arithmetic_name(GenotypeArithmetic a);
Result<GenotypeArithmetic> parse_genotype_arithmetic(const std::string& name);

/// \brief Options of make_genotype_gram_operator().
struct GenotypeGramOptions {
  GenotypeArithmetic arithmetic = GenotypeArithmetic::Int16;
  ThreadPool* pool = nullptr;           ///< nullptr = ThreadPool::global()
  int64_t resident_bytes = 0;           ///< keep the codes in memory up to this size (0 = never)
  ProgressBar* progress = nullptr;      ///< advanced by variants in every pass
};

/// \brief The operator over variants `kept` (ascending indices into `view`) × all samples,
/// standardized with `scale` from `counts` (one entry per variant of `view`).
Result<linalg::GramOperatorPtr> make_genotype_gram_operator(const io::GenotypeViewPtr& view,
                                                            const std::vector<io::VariantCounts>& counts,
                                                            std::vector<int64_t> kept, io::Standardization scale,
                                                            const GenotypeGramOptions& options);

/// \brief Whether the codes of the operator are held in memory (for reports and tests).
bool genotype_gram_is_resident(const linalg::GramOperator& op);

}  // namespace strata::genomics
