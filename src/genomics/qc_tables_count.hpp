#pragma once
// The one counting pass of `strata qc` (qc_tables.hpp): per variant, genotype counts by sample
// class (founder or not × sex); per sample, missing calls and heterozygous calls with the
// expected heterozygosity of its observed calls. Internal to src/genomics.
#include <cstdint>
#include <functional>
#include <vector>

#include "strata/core/result.hpp"
#include "strata/genomics/qc.hpp"
#include "strata/io/chromosome.hpp"
#include "strata/io/genotype.hpp"

namespace strata::genomics::detail {

using Fixed = unsigned __int128;  // sums of expected heterozygosity, in units of 2^-63 (exact)
inline constexpr double kFixedScale = 0x1p63;

// Per-variant counts of one block, in the block's variant order.
struct QcVariantRows {
  int64_t start = 0;
  std::vector<VariantCounts> calls;        // `.vmiss`: every sample; on Y males only
  std::vector<VariantCounts> founders;     // `.hardy`; on X the female founders
  std::vector<VariantCounts> male_founders;  // on X: the male founders (hom codes = alleles)
};

// Per-sample totals of the pass.
struct QcSampleTotals {
  std::vector<int64_t> missing;      // `.smiss` MISSING_CT (Y for males only)
  std::vector<int64_t> het_missing;  // missing calls among the `.het` variants
  std::vector<int64_t> het_calls;    // heterozygous calls among them
  std::vector<Fixed> het_expected_missing;  // Σ 2p(1 − p) over its missing calls there
  int64_t het_variants = 0;
  Fixed het_expected_all = 0;        // Σ 2p(1 − p) over every `.het` variant
};

struct QcPassOptions {
  bool samples = true;  // per-sample totals (`.smiss`, `.het`)
  bool het = true;      // the `.het` sums
};

// One pass over `view`: `rows(block_rows)` runs serially in variant order as blocks finish
// (the writers stream there); the per-sample totals come back. `kind` has one entry per variant.
Result<QcSampleTotals> run_qc_pass(const Context& ctx, const io::GenotypeView& view,
                                   const std::vector<io::ChromosomeKind>& kind, const QcPassOptions& options,
                                   const std::function<Status(const QcVariantRows&)>& rows);

// The expected heterozygosity 2p(1 − p) plink2's `--het` uses, from the founders' counts of a
// diploid variant (p = 0.5 when no founder is observed); below 2^-35 the variant is skipped (< 0).
double het_expected(const VariantCounts& founders);

}  // namespace strata::genomics::detail
