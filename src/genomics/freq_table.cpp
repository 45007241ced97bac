// compute_freq_table: plink2's --freq (founders, ploidy by chromosome and sex) and --missing
// (every sample; males on Y) counts from genotype-code counts over a few sample subsets; a
// source with dosages gets its allele counts from a pass over the founders' dosages (missingness
// stays the hard calls', as plink2's --missing and --geno count it).
#include <algorithm>
#include <cmath>
#include <vector>

#include "strata/genomics/freq.hpp"
#include "strata/genomics/selection.hpp"
#include "strata/io/chromosome.hpp"

namespace strata::genomics {
namespace {

using io::ChromosomeKind;

// Counts over `samples` × `variants` of `view` (everything when both are empty).
Result<std::vector<VariantCounts>> counts_over(const Context& ctx, const io::GenotypeViewPtr& view,
                                               const std::vector<int64_t>* samples, const std::vector<int64_t>* variants) {
  if (!samples && !variants) return compute_variant_counts(ctx, *view);
  std::vector<int64_t> all_samples, all_variants;
  if (!samples) {
    for (int64_t i = 0; i < view->num_samples(); ++i) all_samples.push_back(i);
    samples = &all_samples;
  }
  if (!variants) {
    for (int64_t v = 0; v < view->num_variants(); ++v) all_variants.push_back(v);
    variants = &all_variants;
  }
  if (samples->empty() || variants->empty()) return std::vector<VariantCounts>(variants->size());
  STRATA_ASSIGN_OR_RETURN(auto sub, io::make_genotype_subset(view, *samples, *variants));
  return compute_variant_counts(ctx, *sub);
}

VariantCounts minus(const VariantCounts& a, const VariantCounts& b) {
  return {a.hom_ref - b.hom_ref, a.het - b.het, a.hom_alt - b.hom_alt, a.missing - b.missing};
}

AlleleCounts diploid(const VariantCounts& c) { return {2 * c.alt_alleles(), c.allele_count()}; }
AlleleCounts haploid(const VariantCounts& c) { return {c.het + 2 * c.hom_alt, c.observed()}; }
AlleleCounts operator+(const AlleleCounts& a, const AlleleCounts& b) {
  return {a.alt_halves + b.alt_halves, a.observed_alleles + b.observed_alleles};
}

// ALT dosage and observed alleles of every variant over the `founders` of a dosage source: a
// male's dosage on X and Y is one allele (d / 2), on Y only males count, MT is haploid.
Status dosage_alleles(const io::GenotypeViewPtr& view, const std::vector<int64_t>& founders,
                      const std::vector<ChromosomeKind>& kind, std::vector<AlleleCounts>& alleles) {
  const int64_t n = view->num_samples(), m = view->num_variants();
  std::vector<char> male(static_cast<size_t>(n), 0);
  const io::SampleInfo& info = view->samples();
  for (int64_t i = 0; i < n && i < static_cast<int64_t>(info.sex.size()); ++i) male[i] = info.sex[i] == 1;
  io::GenotypeViewPtr sub = view;
  if (static_cast<int64_t>(founders.size()) != n) {
    std::vector<int64_t> every(static_cast<size_t>(m));
    for (int64_t v = 0; v < m; ++v) every[static_cast<size_t>(v)] = v;
    STRATA_ASSIGN_OR_RETURN(sub, io::make_genotype_subset(view, founders, std::move(every)));
  }
  const int64_t ns = sub->num_samples();
  const int64_t block = std::max<int64_t>(1, (int64_t{8} << 20) / (4 * std::max<int64_t>(ns, 1)));
  std::vector<float> d;
  for (int64_t v0 = 0; v0 < m; v0 += block) {
    const int64_t nv = std::min(block, m - v0);
    d.resize(static_cast<size_t>(nv * ns));
    STRATA_RETURN_NOT_OK(sub->read_dosages(v0, nv, 0, ns, d.data(), ns));
    for (int64_t v = 0; v < nv; ++v) {
      const ChromosomeKind k = kind[static_cast<size_t>(v0 + v)];
      const bool sexed = k == ChromosomeKind::kX || k == ChromosomeKind::kY;
      double alt = 0.0;
      int64_t obs = 0;
      for (int64_t j = 0; j < ns; ++j) {
        const float x = d[static_cast<size_t>(v * ns + j)];
        if (std::isnan(x)) continue;
        const bool haploid = k == ChromosomeKind::kMT || (sexed && male[founders.empty() ? j : founders[j]]);
        if (k == ChromosomeKind::kY && !haploid) continue;
        alt += haploid ? x / 2.0 : x;
        obs += haploid ? 1 : 2;
      }
      AlleleCounts& a = alleles[static_cast<size_t>(v0 + v)];
      a.alt_dosage = alt;
      a.observed_alleles = obs;
    }
  }
  return Status::OK();
}

}  // namespace

Result<FreqTable> compute_freq_table(const Context& ctx, const io::GenotypeViewPtr& view, const FreqTableOptions& o) {
  const int64_t n = view->num_samples(), m = view->num_variants();
  const io::SampleInfo& info = view->samples();
  std::vector<ChromosomeKind> kind(static_cast<size_t>(m), ChromosomeKind::kAutosome);
  if (io::has_haploid_contig(*view)) {
    STRATA_ASSIGN_OR_RETURN(kind, io::variant_chromosome_kinds(*view));
  }
  std::vector<int64_t> xy_variants;  // on X or Y
  for (int64_t v = 0; v < m; ++v)
    if (kind[static_cast<size_t>(v)] == ChromosomeKind::kX || kind[static_cast<size_t>(v)] == ChromosomeKind::kY)
      xy_variants.push_back(v);
  std::vector<int64_t> founders, males, founder_males;
  for (int64_t i = 0; i < n; ++i) {
    const bool f = is_founder(info, i);
    const bool male = i < static_cast<int64_t>(info.sex.size()) && info.sex[static_cast<size_t>(i)] == 1;
    if (f) founders.push_back(i);
    if (male) males.push_back(i);
    if (f && male) founder_males.push_back(i);
  }
  const bool all_founders = static_cast<int64_t>(founders.size()) == n;

  FreqTable t;
  if (o.calls) {
    if (static_cast<int64_t>(o.calls->size()) != m)
      return Status::Invalid("compute_freq_table: ", o.calls->size(), " counts for ", m, " variants");
    t.calls = *o.calls;
  } else {
    STRATA_ASSIGN_OR_RETURN(t.calls, counts_over(ctx, view, nullptr, nullptr));
  }
  std::vector<VariantCounts> founder_counts;
  if (!all_founders) {
    STRATA_ASSIGN_OR_RETURN(founder_counts, counts_over(ctx, view, &founders, nullptr));
  }
  const std::vector<VariantCounts>& fc = all_founders ? t.calls : founder_counts;
  if (o.founder_calls) *o.founder_calls = fc;  // copied before the rows of Y in t.calls become males only
  // Males on X and Y, indexed like xy_variants: every male (for --missing on Y) and the founders.
  std::vector<VariantCounts> male_counts, founder_male_counts;
  if (!xy_variants.empty()) {
    STRATA_ASSIGN_OR_RETURN(male_counts, counts_over(ctx, view, &males, &xy_variants));
    if (founder_males.size() != males.size()) {
      STRATA_ASSIGN_OR_RETURN(founder_male_counts, counts_over(ctx, view, &founder_males, &xy_variants));
    }
  }
  const std::vector<VariantCounts>& fmc = founder_males.size() != males.size() ? founder_male_counts : male_counts;

  t.alleles.resize(static_cast<size_t>(m));
  size_t j = 0;  // position in xy_variants
  for (int64_t v = 0; v < m; ++v) {
    const auto k = static_cast<size_t>(v);
    switch (kind[k]) {
      case ChromosomeKind::kX:
        t.alleles[k] = haploid(fmc[j]) + diploid(minus(fc[k], fmc[j]));
        ++j;
        break;
      case ChromosomeKind::kY:
        t.alleles[k] = haploid(fmc[j]);
        t.calls[k] = male_counts[j];  // plink2 --missing counts males only on Y
        ++j;
        break;
      case ChromosomeKind::kMT:
        t.alleles[k] = haploid(fc[k]);
        break;
      default:
        t.alleles[k] = diploid(fc[k]);
    }
  }
  if (view->has_dosages()) STRATA_RETURN_NOT_OK(dosage_alleles(view, founders, kind, t.alleles));
  return t;
}

}  // namespace strata::genomics
