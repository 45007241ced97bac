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

// Per-sample sums of the pass; `Count` is int64_t for the totals and int32_t for one block's.
// Vectors of the tables not asked for stay empty.
template <class Count>
struct QcSampleSums {
  std::vector<Count> missing;      // `.smiss` MISSING_CT (Y for males only)
  std::vector<Count> het_missing;  // missing calls among the `.het` variants
  std::vector<Count> het_calls;    // heterozygous calls among them
  std::vector<Fixed> het_expected_missing;  // Σ 2p(1 − p) over its missing calls there
  int64_t het_variants = 0;
  Fixed het_expected_all = 0;        // Σ 2p(1 − p) over every `.het` variant
  // `--check-sex` (plink 1.9): the same sums over the polymorphic X variants, p from PLINK 1.9's
  // X frequency (female and unknown-sex founders' genotypes, male founders' homozygous calls).
  std::vector<Count> x_missing, x_het;
  std::vector<Fixed> x_expected_missing;
  int64_t x_variants = 0;
  Fixed x_expected_all = 0;

  // Zeroed vectors of `n` samples for the sums `samples`, `het` and `sex` ask for.
  void size_for(size_t n, bool samples, bool het, bool sex) {
    if (samples) missing.assign(n, 0);
    if (het) {
      het_missing.assign(n, 0);
      het_calls.assign(n, 0);
      het_expected_missing.assign(n, 0);
    }
    if (sex) {
      x_missing.assign(n, 0);
      x_het.assign(n, 0);
      x_expected_missing.assign(n, 0);
    }
  }

  // `f(field)` for every vector and count above, in one fixed order (what crosses MPI ranks).
  template <class F>
  void for_each_field(F&& f) {
    f(missing), f(het_missing), f(het_calls), f(het_expected_missing), f(het_variants), f(het_expected_all);
    f(x_missing), f(x_het), f(x_expected_missing), f(x_variants), f(x_expected_all);
  }

  template <class Other>
  void add(const QcSampleSums<Other>& o) {
    auto sum = [](auto& to, const auto& from) {
      for (size_t s = 0; s < from.size(); ++s) to[s] += from[s];
    };
    sum(missing, o.missing);
    sum(het_missing, o.het_missing);
    sum(het_calls, o.het_calls);
    sum(het_expected_missing, o.het_expected_missing);
    het_variants += o.het_variants;
    het_expected_all += o.het_expected_all;
    sum(x_missing, o.x_missing);
    sum(x_het, o.x_het);
    sum(x_expected_missing, o.x_expected_missing);
    x_variants += o.x_variants;
    x_expected_all += o.x_expected_all;
  }
};
using QcSampleTotals = QcSampleSums<int64_t>;

struct QcPassOptions {
  bool samples = true;  // per-sample totals (`.smiss`, `.het`)
  bool het = true;      // the `.het` sums
  bool sex = false;     // the `.sexcheck` sums over X
};

// One pass over `view`: `rows(block_rows)` runs serially in variant order as blocks finish
// (the writers stream there); the per-sample totals come back. `kind` has one entry per variant.
// Under MPI each rank passes over its own contiguous range of variants (`rows` sees only those)
// and rank 0 gets the totals of every rank (collective; the others keep their own part).
Result<QcSampleTotals> run_qc_pass(const Context& ctx, const io::GenotypeView& view,
                                   const std::vector<io::ChromosomeKind>& kind, const QcPassOptions& options,
                                   const std::function<Status(const QcVariantRows&)>& rows);

// The expected heterozygosity 2p(1 − p) plink2's `--het` uses, from the founders' counts of a
// diploid variant (p = 0.5 when no founder is observed); below 2^-35 the variant is skipped (< 0).
double het_expected(const VariantCounts& founders);

// 2p(1 − p) of an X variant for `--check-sex` from PLINK 1.9's frequency (`female`: female and
// unknown-sex founders, `male`: male founders, whose heterozygous calls do not count); < 0 when
// the variant is left out (no call at all among `observed_alleles`, or p within 1e-8 of 0 or 1).
double sexcheck_expected(const VariantCounts& female, const VariantCounts& male, int64_t observed_calls);

// `.sexcheck` as PLINK 1.9 writes it (F from the X sums of `t`; thresholds of `o`).
struct SexCheckCounts {
  int64_t problems = 0, no_x_calls = 0;
};
Result<SexCheckCounts> write_sexcheck(const std::string& staged, const std::string& path, const io::SampleInfo& s,
                                      int64_t n, const QcSampleTotals& t, double max_female_xf, double min_male_xf);

}  // namespace strata::genomics::detail
