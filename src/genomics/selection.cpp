// select_genotypes: plink2's sample and variant filters, in its order, as index lists over the
// source and one subset view (io::make_genotype_subset).
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "strata/core/job.hpp"
#include "strata/core/log.hpp"
#include "strata/core/output.hpp"
#include "strata/genomics/freq.hpp"
#include "strata/genomics/prune.hpp"
#include "strata/genomics/qc.hpp"
#include "strata/genomics/selection.hpp"
#include "strata/io/chromosome.hpp"

namespace strata::genomics {
namespace {

std::vector<int64_t> iota_indices(int64_t n) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = i;
  return v;
}

std::string plural(int64_t n, const char* one, const char* many) { return str_cat(n, " ", n == 1 ? one : many); }

// Samples of `kept` listed (keep = true) or not listed in the files; unmatched IDs counted.
Status filter_samples(const io::SampleInfo& info, const std::vector<std::string>& files, bool keep,
                      std::vector<int64_t>& kept, int64_t& unmatched) {
  std::unordered_set<std::string> listed;
  for (const auto& f : files) {
    STRATA_ASSIGN_OR_RETURN(auto keys, read_sample_id_file(f));
    listed.insert(keys.begin(), keys.end());
  }
  std::unordered_set<std::string> seen;
  std::vector<int64_t> out;
  for (int64_t i : kept) {
    std::string key = sample_key(info, i);
    const bool in = listed.count(key) > 0;
    if (in) seen.insert(std::move(key));
    if (in == keep) out.push_back(i);
  }
  // IDs of samples removed by an earlier step still count as present in the data.
  for (int64_t i = 0; i < info.size() && seen.size() < listed.size(); ++i) {
    std::string key = sample_key(info, i);
    if (listed.count(key)) seen.insert(std::move(key));
  }
  unmatched = static_cast<int64_t>(listed.size() - seen.size());
  kept = std::move(out);
  return Status::OK();
}

Status filter_variant_ids(const io::VariantInfo& info, const std::vector<std::string>& files, bool keep,
                          std::vector<int64_t>& kept, int64_t& unmatched) {
  std::unordered_set<std::string> listed;
  for (const auto& f : files) {
    STRATA_ASSIGN_OR_RETURN(auto ids, read_variant_id_file(f));
    listed.insert(ids.begin(), ids.end());
  }
  std::unordered_set<std::string_view> present;
  for (const auto& id : info.id)
    if (listed.count(id)) present.insert(id);
  unmatched = static_cast<int64_t>(listed.size() - present.size());
  std::vector<int64_t> out;
  for (int64_t i : kept)
    if ((listed.count(info.id[static_cast<size_t>(i)]) > 0) == keep) out.push_back(i);
  kept = std::move(out);
  return Status::OK();
}

// Per-variant counts of `view` and, when `sample_missing` is given, per-sample missing counts.
Status count_pass(const Context& ctx, const io::GenotypeView& view, std::vector<VariantCounts>& counts,
                  std::vector<int64_t>* sample_missing) {
  const int64_t n = view.num_samples();
  counts.assign(static_cast<size_t>(view.num_variants()), VariantCounts{});
  if (sample_missing) sample_missing->assign(static_cast<size_t>(n), 0);
  const int64_t row = std::max<int64_t>(1, io::packed_row_bytes(n));
  const int64_t fit = ctx.memory_budget() / (4 * row * std::max<int64_t>(1, pass_window(ctx, {})));
  const int64_t block = std::max<int64_t>(1, std::min(io::default_block_variants(view), fit));
  // Counts are integers: each block writes its own rows, and the per-sample sums run in block
  // order, so the result is the same for any thread count.
  return io::for_each_genotype_block(
      ctx, view, block,
      [&](io::GenotypeBlock& b) { return count_block(ctx, b, counts.data() + b.variant_start); },
      [&](io::GenotypeBlock& b) {
        if (!sample_missing) return Status::OK();
        int64_t* miss = sample_missing->data();
        for (int64_t v = 0; v < b.variant_count; ++v) {
          if (counts[static_cast<size_t>(b.variant_start + v)].missing == 0) continue;
          const uint8_t* r = b.row(v);
          for (int64_t w = 0; w * 8 < io::packed_row_bytes(n); ++w) {
            uint64_t x = 0;
            std::memcpy(&x, r + w * 8, static_cast<size_t>(std::min<int64_t>(8, io::packed_row_bytes(n) - w * 8)));
            uint64_t m = x & (x >> 1) & 0x5555555555555555ull;  // code 3 = both bits set
            while (m) {
              const int64_t j = w * 32 + std::countr_zero(m) / 2;
              if (j < n) ++miss[j];
              m &= m - 1;
            }
          }
        }
        return Status::OK();
      },
      PassOptions{.label = "selection counts"});
}

// Indices of `base_idx` for which keep(i) (i indexes base_idx).
template <class F>
int64_t retain(std::vector<int64_t>& base_idx, F keep) {
  std::vector<int64_t> out;
  out.reserve(base_idx.size());
  for (size_t i = 0; i < base_idx.size(); ++i)
    if (keep(static_cast<int64_t>(i))) out.push_back(base_idx[i]);
  const int64_t removed = static_cast<int64_t>(base_idx.size() - out.size());
  base_idx = std::move(out);
  return removed;
}

// KING and distances read the hard calls (as plink2 --make-king); PCA and the GRM read a
// source's dosages. Said in the run's log (a float array may hold hard calls only: not a warning).
void warn_hard_calls(const io::GenotypeView& source, const std::string& calculation) {
  if (calculation == "PCA" || calculation == "GRM construction") return;
  if (source.has_dosages())
    log_info(source.describe(), " has dosages: ", calculation,
                " reads their hard calls (the nearest call within 0.1, else missing); plink2 uses the dosages");
}

// The chromosome kind of each of `variants` (source indices, ascending); metadata is read only
// when some contig is X, Y or MT.
// Drops the variants on X, Y and MT from `variants` (source indices) and says so as plink2 does.
// Contig names are checked first: most inputs have none of these and read no metadata here.
Status skip_non_autosomes(const io::GenotypeView& source, const std::string& what, std::vector<int64_t>& variants,
                          SelectionReport& rep) {
  if (variants.empty() || !io::has_haploid_contig(source)) return Status::OK();
  STRATA_ASSIGN_OR_RETURN(const std::vector<io::ChromosomeKind> kind, io::variant_chromosome_kinds(source, &variants));
  rep.removed_non_autosomes =
      retain(variants, [&](int64_t i) { return !io::is_haploid_somewhere(kind[static_cast<size_t>(i)]); });
  if (rep.removed_non_autosomes > 0)
    rep.messages.push_back(str_cat("Excluding ", plural(rep.removed_non_autosomes, "variant", "variants"),
                                   " on non-autosomes from ", what, "."));
  return Status::OK();
}

}  // namespace

bool is_founder(const io::SampleInfo& s, int64_t i) {
  const auto k = static_cast<size_t>(i);
  const bool pat = k >= s.paternal_id.size() || s.paternal_id[k] == "0" || s.paternal_id[k].empty();
  const bool mat = k >= s.maternal_id.size() || s.maternal_id[k] == "0" || s.maternal_id[k].empty();
  return pat && mat;
}

Result<io::GenotypeViewPtr> without_non_autosomes(io::GenotypeViewPtr view, const std::string& calculation) {
  warn_hard_calls(*view, calculation);
  if (!io::has_haploid_contig(*view)) return view;
  std::vector<int64_t> variants = iota_indices(view->num_variants());
  SelectionReport rep;
  STRATA_RETURN_NOT_OK(skip_non_autosomes(*view, calculation, variants, rep));
  if (rep.removed_non_autosomes == 0) return view;
  if (variants.empty())
    return Status::InvalidData(view->describe(), ": no autosomal variants (", rep.removed_non_autosomes,
                               " on X, Y and MT are skipped by ", calculation, ", as plink2 does)");
  for (const auto& m : rep.messages) log_info(m);
  return io::make_variant_subset(std::move(view), std::move(variants));
}

void SelectionReport::add_to(Summary& summary) const {
  if (!messages.empty()) summary.set("selection", Summary::Json{to_json()});
}

std::string SelectionReport::to_json() const {
  nlohmann::json j = {{"samples_input", samples_input},     {"variants_input", variants_input},
                      {"samples", samples},                 {"variants", variants},
                      {"removed_keep", removed_keep},       {"removed_remove", removed_remove},
                      {"removed_mind", removed_mind},       {"removed_chr", removed_chr},
                      {"removed_range", removed_range},     {"removed_extract", removed_extract},
                      {"removed_exclude", removed_exclude}, {"removed_geno", removed_geno},
                      {"removed_hwe", removed_hwe},         {"removed_maf", removed_maf},
                      {"removed_autosome", removed_autosome}, {"removed_non_autosomes", removed_non_autosomes},
                      {"removed_prune", removed_prune},
                      {"keep_unmatched", keep_unmatched},   {"remove_unmatched", remove_unmatched},
                      {"extract_unmatched", extract_unmatched}, {"exclude_unmatched", exclude_unmatched},
                      {"counting_passes", counting_passes}, {"messages", messages}};
  return j.dump();
}

namespace {

// `--geno X`: a variant stays unless its missing rate is above X (one with no call stays).
bool passes_geno(const VariantCounts& c, double x) {
  return c.total() == 0 || !(double(c.missing) / double(c.total()) > x);
}

// `--maf X` on `total` observed allele halves of which `alt` are ALT: no observed allele means
// no frequency, kept (plink2 compares NaN, which is never below). From the minor allele
// count, one rounding: 4 of 20 is exactly 0.2.
bool passes_maf(int64_t total, int64_t alt, double x) {
  return total == 0 || !(double(std::min(alt, total - alt)) / double(total) < x);
}

}  // namespace

Result<std::vector<int64_t>> select_variants_by_counts(const SelectionOptions& o,
                                                       const std::vector<VariantCounts>& counts) {
  STRATA_RETURN_NOT_OK(validate_selection(o));
  SelectionOptions rest = o;
  rest.geno.reset();
  rest.maf.reset();
  rest.skip_non_autosomes_for.clear();
  if (rest.any())
    return Status::Unsupported("genotypes known only by their counts (distributed PCA) take --geno and --maf alone");
  std::vector<int64_t> kept;
  for (size_t v = 0; v < counts.size(); ++v) {
    const VariantCounts& c = counts[v];
    if (o.geno && !passes_geno(c, *o.geno)) continue;
    // Diploid calls in halves, as the selection's allele table counts them.
    const int64_t called = c.hom_ref + c.het + c.hom_alt;
    if (o.maf && !passes_maf(4 * called, 2 * (c.het + 2 * c.hom_alt), *o.maf)) continue;
    kept.push_back(static_cast<int64_t>(v));
  }
  if (kept.empty() && (o.maf || o.geno))
    return Status::InvalidData("no variants left after ", o.maf ? "--maf" : "--geno", " (of ", counts.size(), ")");
  return kept;
}

Result<Selection> select_genotypes(const Context& ctx, io::GenotypeViewPtr source, const SelectionOptions& o) {
  STRATA_RETURN_NOT_OK(validate_selection(o));
  Selection sel;
  SelectionReport& rep = sel.report;
  const io::SampleInfo& info = source->samples();
  rep.samples_input = source->num_samples();
  rep.variants_input = source->num_variants();
  sel.samples = iota_indices(rep.samples_input);
  sel.variants = iota_indices(rep.variants_input);
  auto& msg = rep.messages;
  const std::string what = source->describe();
  auto no_samples = [&](const char* step) {
    return Status::InvalidData(what, ": no samples left after ", step, " (", rep.samples_input, " in the input)");
  };
  auto no_variants = [&](const char* step) {
    return Status::InvalidData(what, ": no variants left after ", step, " (", rep.variants_input, " in the input)");
  };

  // 1. Samples by ID: --keep, then --remove.
  if (!o.keep.empty()) {
    const int64_t before = static_cast<int64_t>(sel.samples.size());
    STRATA_RETURN_NOT_OK(filter_samples(info, o.keep, true, sel.samples, rep.keep_unmatched));
    rep.removed_keep = before - static_cast<int64_t>(sel.samples.size());
    if (rep.keep_unmatched > 0) msg.push_back(str_cat("--keep: ", plural(rep.keep_unmatched, "ID", "IDs"), " not in the data (ignored)."));
    msg.push_back(str_cat("--keep: ", plural(static_cast<int64_t>(sel.samples.size()), "sample", "samples"), " remaining."));
    if (sel.samples.empty()) return no_samples("--keep");
  }
  if (!o.remove.empty()) {
    const int64_t before = static_cast<int64_t>(sel.samples.size());
    STRATA_RETURN_NOT_OK(filter_samples(info, o.remove, false, sel.samples, rep.remove_unmatched));
    rep.removed_remove = before - static_cast<int64_t>(sel.samples.size());
    if (rep.remove_unmatched > 0)
      msg.push_back(str_cat("--remove: ", plural(rep.remove_unmatched, "ID", "IDs"), " not in the data (ignored)."));
    msg.push_back(str_cat("--remove: ", plural(static_cast<int64_t>(sel.samples.size()), "sample", "samples"), " remaining."));
    if (sel.samples.empty()) return no_samples("--remove");
  }

  // 2. Variants from metadata: --chr, --from-bp/--to-bp, --extract, --exclude.
  const bool by_metadata = !o.chr.empty() || o.autosome || o.autosome_xy || !o.extract.empty() || !o.exclude.empty();
  if (by_metadata && rep.variants_input > 0) {
    STRATA_ASSIGN_OR_RETURN(io::VariantInfo vi, source->variants(0, rep.variants_input));
    const auto& contigs = source->contigs();
    auto contig_name = [&](int64_t v) -> const std::string& {
      static const std::string kNone = ".";
      const int32_t c = vi.contig[static_cast<size_t>(v)];
      return c >= 0 && c < static_cast<int32_t>(contigs.size()) ? contigs[static_cast<size_t>(c)] : kNone;
    };
    if (!o.chr.empty()) {
      STRATA_ASSIGN_OR_RETURN(ChromosomeSet set, ChromosomeSet::parse(o.chr));
      rep.removed_chr = retain(sel.variants, [&](int64_t i) { return set.contains(contig_name(sel.variants[static_cast<size_t>(i)])); });
      msg.push_back(str_cat("--chr: ", plural(static_cast<int64_t>(sel.variants.size()), "variant", "variants"), " remaining."));
      if (sel.variants.empty()) return no_variants("--chr");
    }
    if (o.autosome || o.autosome_xy) {
      const char* flag = o.autosome ? "--autosome" : "--autosome-xy";
      rep.removed_autosome = retain(sel.variants, [&](int64_t i) {
        const io::ChromosomeKind k = io::chromosome_kind(contig_name(sel.variants[static_cast<size_t>(i)]));
        return k == io::ChromosomeKind::kAutosome || (!o.autosome && k == io::ChromosomeKind::kXY);
      });
      msg.push_back(str_cat(flag, ": ", plural(static_cast<int64_t>(sel.variants.size()), "variant", "variants"), " remaining."));
      if (sel.variants.empty()) return no_variants(flag);
    }
    if (!o.chr.empty()) {
      if (o.from_bp || o.to_bp) {
        // Positions are integers: a fractional bound rounds inwards.
        const double lo = o.from_bp ? std::ceil(*o.from_bp) : -1e300, hi = o.to_bp ? std::floor(*o.to_bp) : 1e300;
        rep.removed_range = retain(sel.variants, [&](int64_t i) {
          const double p = static_cast<double>(vi.position[static_cast<size_t>(sel.variants[static_cast<size_t>(i)])]);
          return p >= lo && p <= hi;
        });
        msg.push_back(str_cat("--from-bp/--to-bp: ", plural(static_cast<int64_t>(sel.variants.size()), "variant", "variants"),
                              " remaining."));
        if (sel.variants.empty()) return no_variants("--from-bp/--to-bp");
      }
    }
    if (!o.extract.empty()) {
      const int64_t before = static_cast<int64_t>(sel.variants.size());
      STRATA_RETURN_NOT_OK(filter_variant_ids(vi, o.extract, true, sel.variants, rep.extract_unmatched));
      rep.removed_extract = before - static_cast<int64_t>(sel.variants.size());
      msg.push_back(str_cat("--extract: ", plural(static_cast<int64_t>(sel.variants.size()), "variant", "variants"), " remaining."));
      if (sel.variants.empty()) return no_variants("--extract");
    }
    if (!o.exclude.empty()) {
      const int64_t before = static_cast<int64_t>(sel.variants.size());
      STRATA_RETURN_NOT_OK(filter_variant_ids(vi, o.exclude, false, sel.variants, rep.exclude_unmatched));
      rep.removed_exclude = before - static_cast<int64_t>(sel.variants.size());
      msg.push_back(str_cat("--exclude: ", plural(static_cast<int64_t>(sel.variants.size()), "variant", "variants"), " remaining."));
      if (sel.variants.empty()) return no_variants("--exclude");
    }
  }

  // 3. Counting filters: --mind on the variants left, then --geno, --hwe, --maf on the samples left,
  // with plink2's chromosome model: Y counts for males only (--mind, --geno), --maf uses
  // compute_freq_table's founder frequencies (X haploid in males, MT haploid), --hwe tests the
  // founders (on X plink2's X test of female genotypes and male alleles; Y and MT are not tested).
  if (o.mind || o.geno || o.hwe || o.maf) {
    if (sel.variants.empty()) return no_variants("the variant filters");
    std::vector<io::ChromosomeKind> kind(sel.variants.size(), io::ChromosomeKind::kAutosome);
    if (io::has_haploid_contig(*source)) {
      STRATA_ASSIGN_OR_RETURN(kind, io::variant_chromosome_kinds(*source, &sel.variants));
    }
    auto is_male = [&](int64_t s) { return s < static_cast<int64_t>(info.sex.size()) && info.sex[static_cast<size_t>(s)] == 1; };
    auto variants_of = [&](io::ChromosomeKind k) {
      std::vector<int64_t> out;
      for (size_t i = 0; i < kind.size(); ++i)
        if (kind[i] == k) out.push_back(sel.variants[i]);
      return out;
    };
    // The --mind pass's variant counts serve the frequency table when --mind removed no sample.
    std::vector<VariantCounts> counts;
    if (o.mind) {
      std::vector<VariantCounts> y_counts;
      std::vector<int64_t> miss, y_miss;
      STRATA_ASSIGN_OR_RETURN(auto view, io::make_genotype_subset(source, sel.samples, sel.variants));
      STRATA_RETURN_NOT_OK(count_pass(ctx, *view, counts, &miss));
      ++rep.counting_passes;
      const std::vector<int64_t> y = variants_of(io::ChromosomeKind::kY);
      if (!y.empty()) {
        STRATA_ASSIGN_OR_RETURN(auto yview, io::make_genotype_subset(source, sel.samples, y));
        STRATA_RETURN_NOT_OK(count_pass(ctx, *yview, y_counts, &y_miss));
        ++rep.counting_passes;
      }
      const auto m = static_cast<int64_t>(sel.variants.size()), my = static_cast<int64_t>(y.size());
      std::vector<int64_t> before = sel.samples;
      rep.removed_mind = retain(sel.samples, [&](int64_t i) {
        const bool male = is_male(before[static_cast<size_t>(i)]);
        const int64_t missing = miss[static_cast<size_t>(i)] - (male || my == 0 ? 0 : y_miss[static_cast<size_t>(i)]);
        const int64_t total = male ? m : m - my;
        return total == 0 || !(double(missing) / double(total) > *o.mind);
      });
      msg.push_back(str_cat(plural(rep.removed_mind, "sample", "samples"), " removed due to missing genotype data (--mind)."));
      if (sel.samples.empty()) return no_samples("--mind");
    }
    if (o.geno || o.hwe || o.maf) {
      STRATA_ASSIGN_OR_RETURN(auto view, io::make_genotype_subset(source, sel.samples, sel.variants));
      // --hwe: founders' genotype counts (from the table's pass); on X the female founders'.
      std::vector<VariantCounts> hwe_counts;
      FreqTableOptions fo;
      if (o.mind && rep.removed_mind == 0) fo.calls = &counts;
      if (o.hwe) fo.founder_calls = &hwe_counts;
      STRATA_ASSIGN_OR_RETURN(FreqTable table, compute_freq_table(ctx, view, fo));
      ++rep.counting_passes;
      std::vector<VariantCounts> x_male;  // founder males on X, by position in sel.variants (hom codes = alleles)
      if (o.hwe) {
        std::vector<int64_t> female_founders, male_founders;
        for (int64_t s : sel.samples) {
          if (!is_founder(info, s)) continue;
          if (s < static_cast<int64_t>(info.sex.size()) && info.sex[static_cast<size_t>(s)] == 2) female_founders.push_back(s);
          if (is_male(s)) male_founders.push_back(s);
        }
        const std::vector<int64_t> x = variants_of(io::ChromosomeKind::kX);
        if (!x.empty()) {
          std::vector<VariantCounts> x_female(x.size()), x_male_rows(x.size());
          for (auto [who, into] : {std::pair{&female_founders, &x_female}, std::pair{&male_founders, &x_male_rows}}) {
            if (who->empty()) continue;
            STRATA_ASSIGN_OR_RETURN(auto xview, io::make_genotype_subset(source, *who, x));
            STRATA_RETURN_NOT_OK(count_pass(ctx, *xview, *into, nullptr));
            ++rep.counting_passes;
          }
          x_male.assign(kind.size(), VariantCounts{});
          size_t j = 0;
          for (size_t i = 0; i < kind.size(); ++i)
            if (kind[i] == io::ChromosomeKind::kX) hwe_counts[i] = x_female[j], x_male[i] = x_male_rows[j++];
        }
      }
      // `keep` runs over positions of the current variant list; `pos` maps them to count rows.
      std::vector<int64_t> pos = iota_indices(static_cast<int64_t>(sel.variants.size()));
      auto apply = [&](auto keep) {
        std::vector<int64_t> vars, p;
        for (size_t i = 0; i < pos.size(); ++i)
          if (keep(static_cast<size_t>(pos[i]))) {
            vars.push_back(sel.variants[i]);
            p.push_back(pos[i]);
          }
        const int64_t removed = static_cast<int64_t>(sel.variants.size() - vars.size());
        sel.variants = std::move(vars);
        pos = std::move(p);
        return removed;
      };
      if (o.geno) {
        rep.removed_geno = apply([&](size_t v) {
          return passes_geno(table.calls[v], *o.geno);
        });
        msg.push_back(str_cat("--geno: ", plural(rep.removed_geno, "variant", "variants"), " removed due to missing genotype data."));
      }
      if (o.hwe) {
        rep.removed_hwe = apply([&](size_t v) {
          if (kind[v] == io::ChromosomeKind::kY || kind[v] == io::ChromosomeKind::kMT) return true;
          const VariantCounts& f = hwe_counts[v];
          if (kind[v] == io::ChromosomeKind::kX) {  // plink2: females and haploid male calls together
            const VariantCounts& m = x_male[v];
            return !(hwe_xchr_exact_p(f.het, f.hom_ref, f.hom_alt, m.hom_ref, m.hom_alt) < *o.hwe);
          }
          return !(hwe_exact_p(f.het, f.hom_ref, f.hom_alt) < *o.hwe);
        });
        msg.push_back(str_cat("--hwe: ", plural(rep.removed_hwe, "variant", "variants"),
                              " removed due to Hardy-Weinberg exact test (founders only)."));
      }
      if (o.maf) {
        rep.removed_maf = apply([&](size_t v) {
          const AlleleCounts& a = table.alleles[v];
          if (!std::isnan(a.alt_dosage)) {  // dosage frequencies, as plink2 --maf on dosages
            const double f = a.alt_freq();
            return a.observed_alleles == 0 || !(std::fmin(f, 1.0 - f) < *o.maf);
          }
          return passes_maf(2 * a.observed_alleles, a.alt_halves, *o.maf);
        });
        msg.push_back(str_cat("--maf: ", plural(rep.removed_maf, "variant", "variants"),
                              " removed due to allele frequency threshold(s)."));
      }
    }
    if (sel.variants.empty()) return no_variants(o.maf ? "--maf" : o.hwe ? "--hwe" : o.geno ? "--geno" : "--mind");
  }
  // 4. Relatedness and PCA skip X, Y and MT (plink2 does so inside the command, after its filters).
  if (!o.skip_non_autosomes_for.empty()) {
    warn_hard_calls(*source, o.skip_non_autosomes_for);
    STRATA_RETURN_NOT_OK(skip_non_autosomes(*source, o.skip_non_autosomes_for, sel.variants, rep));
    if (sel.variants.empty())
      return Status::InvalidData(what, ": no autosomal variants left (", rep.removed_non_autosomes,
                                 " on X, Y and MT are skipped by ", o.skip_non_autosomes_for,
                                 ", as plink2 does; ", rep.variants_input, " in the input)");
  }
  // 5. --prune: LD pruning of what is left, as `strata prune` with the same options would.
  if (!o.prune.empty()) {
    STRATA_ASSIGN_OR_RETURN(PruneWindow window, parse_indep_pairwise(o.prune));
    STRATA_ASSIGN_OR_RETURN(auto view, io::make_genotype_subset(source, sel.samples, sel.variants));
    STRATA_ASSIGN_OR_RETURN(PruneResult pruned, ld_prune(ctx, view, window));
    rep.removed_prune = retain(sel.variants, [&](int64_t i) {
      return !pruned.removed[static_cast<size_t>(i)] && !pruned.skipped[static_cast<size_t>(i)];
    });
    std::string args;
    for (const auto& a : o.prune) args += (args.empty() ? "" : " ") + a;
    msg.push_back(str_cat("--prune ", args, ": ", plural(rep.removed_prune, "variant", "variants"),
                          " removed by LD pruning."));
    if (sel.variants.empty()) return no_variants("--prune");
  }
  rep.samples = static_cast<int64_t>(sel.samples.size());
  rep.variants = static_cast<int64_t>(sel.variants.size());
  if (o.any())
    msg.push_back(str_cat(plural(rep.samples, "sample", "samples"), " and ", plural(rep.variants, "variant", "variants"),
                          " remaining after selection."));
  STRATA_ASSIGN_OR_RETURN(sel.view, io::make_genotype_subset(std::move(source), sel.samples, sel.variants));
  return sel;
}

Result<Selection> open_selected_genotypes(const Context& ctx, const std::string& input, const SelectionOptions& options,
                                          const io::GenotypeOpenOptions& open_options) {
  STRATA_RETURN_NOT_OK(validate_selection(options));
  // A VCF/BCF is decoded on ctx's threads within its budget and, when indexed, only where --chr
  // (and --from-bp/--to-bp) point; the selection below still filters.
  io::GenotypeOpenOptions oo = open_options;
  if (oo.threads == 0) oo.threads = ctx.threads();
  if (oo.memory_budget == 0) oo.memory_budget = ctx.memory_budget();
  if (oo.pool == nullptr) oo.pool = &ctx.pool();
  if (!options.chr.empty() && !oo.vcf_contig_filter) {
    STRATA_ASSIGN_OR_RETURN(ChromosomeSet set, ChromosomeSet::parse(options.chr));
    oo.vcf_contig_filter = [set](const std::string& contig) { return set.contains(contig); };
    if (options.from_bp || options.to_bp) {
      oo.vcf_bp_from = options.from_bp ? static_cast<int64_t>(std::max(1.0, std::ceil(*options.from_bp))) : 1;
      oo.vcf_bp_to = options.to_bp ? static_cast<int64_t>(std::floor(*options.to_bp)) : int64_t{1} << 40;
    }
  }
  STRATA_ASSIGN_OR_RETURN(io::GenotypeViewPtr view, io::open_genotypes(input, oo));
  return select_genotypes(ctx, std::move(view), options);
}

Result<SelectedConvert> convert_selected(const Context& ctx, const std::string& input, const std::string& output,
                                         const io::ConvertOptions& options, const SelectionOptions& selection) {
  const bool to_zarr = io::is_zarr_output(output);
  STRATA_ASSIGN_OR_RETURN(const std::vector<std::string> files, io::convert_output_files(output));
  if (selection.any()) {
    STRATA_RETURN_NOT_OK(validate_selection(selection));
  }
  // Every output is checked before the input is read; the writers stage into the Job's set.
  Job job(ctx, "convert", input, output);
  OutputRules rules;
  rules.overwrite = options.overwrite;
  rules.inputs = selection.files();
  STRATA_RETURN_NOT_OK(job.declare(output, std::move(rules), [&](OutputSet& out) -> Status {
    for (const std::string& f : files) STRATA_RETURN_NOT_OK(out.check(f, to_zarr));
    return Status::OK();
  }));
  io::ConvertOptions o = options;
  o.output_set = job.outputs();
  SelectedConvert r;
  auto write = [&]() -> Status {
    PhaseTimer phase = job.phase("convert");
    if (!selection.any()) {
      STRATA_ASSIGN_OR_RETURN(r.convert, io::convert_genotypes(ctx, input, output, o));
      return Status::OK();
    }
    STRATA_ASSIGN_OR_RETURN(Selection sel,
                            open_selected_genotypes(ctx, input, selection, io::convert_open_options(output, o)));
    r.selection = std::move(sel.report);
    std::vector<std::string> inputs = input_paths(input);
    for (const auto& f : selection.files()) inputs.push_back(f);
    STRATA_ASSIGN_OR_RETURN(r.convert, io::convert_view(ctx, sel.view, inputs, output, o));
    return Status::OK();
  };
  STRATA_RETURN_NOT_OK(job.commit(job.writer() ? write() : Status::OK()));
  r.files = job.files();
  Summary& rep = job.summary();
  rep.set("variants", r.convert.variants).set("samples", r.convert.samples);
  rep.set("skipped_multiallelic", r.convert.skipped).set("multiallelic_as_dosage", r.convert.multiallelic);
  rep.set("polyploid_calls", r.convert.polyploid_calls);
  r.selection.add_to(rep);
  r.report = rep;  // a copy: the Job logs its summary when it ends
  return r;
}

}  // namespace strata::genomics
