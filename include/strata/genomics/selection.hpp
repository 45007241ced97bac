#pragma once
/// \file
/// Sample and variant selection with plink2's flags and order of operations, applied as a view
/// over the source (io::make_genotype_subset): nothing is copied, every later pass reads
/// through it.
///
/// Order (plink2 2.00a3.5, checked by experiment): `--keep` then `--remove` (samples);
/// `--chr`, `--autosome`/`--autosome-xy`, `--from-bp/--to-bp`, `--extract`, `--exclude`
/// (variants, from metadata); then one counting pass for `--mind` (sample missing rate over the
/// variants left); then, on the samples left, `--geno` (variant missing rate), `--hwe` (exact
/// test, founders only) and `--maf` (founders only), each counted among the variants the
/// previous one left; last, for relatedness and PCA, X, Y and MT are skipped
/// (`skip_non_autosomes_for`).
///
/// Semantics matched to plink2:
/// - sample ID files: whitespace-separated; a `#FID IID …` or `#IID …` header names the
///   columns; without one a line is `FID IID …` (a `.fam` works) or a lone `IID`. A missing
///   FID is `0`, on both sides. IDs absent from the data are ignored (counted in the report).
///   Samples keep the source order.
/// - variant ID files: every whitespace-separated token is an ID; every variant with that ID
///   matches (duplicates included); unknown IDs are ignored.
/// - `--chr`: comma/space separated names and numeric ranges (`1-4,22,X`); `chr` prefixes,
///   X = 23, Y = 24, XY = 25, MT = M = 26.
/// - `--from-bp`/`--to-bp` need `--chr` naming exactly one chromosome; fractional bounds round
///   inwards.
/// - `--mind X` / `--geno X` remove rates > X; `--maf X` removes minor allele frequency < X
///   (a variant with no observed founder call has no frequency and is kept); `--hwe P`
///   removes exact-test p-values < P (Wigginton et al. 2005, mid-p off; variants with no
///   founder call have p = 1). Founders are samples whose two parent IDs are `0` (all samples
///   when the source has no pedigree).
///
/// \code
/// genomics::SelectionOptions s;
/// s.keep = {"unrelated.txt"};
/// s.maf = 0.01;
/// STRATA_ASSIGN_OR_RETURN(auto sel, genomics::open_selected_genotypes(ctx, "cohort", s));
/// STRATA_ASSIGN_OR_RETURN(auto pcs, genomics::pca(ctx, sel.view, params));
/// \endcode

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "strata/core/result.hpp"
#include "strata/core/job.hpp"
#include "strata/genomics/qc.hpp"
#include "strata/io/genotype.hpp"
#include "strata/io/genotype_convert.hpp"

namespace strata::genomics {

/// \brief The selection flags (plink2 spelling in the comments). Defaults select everything.
struct SelectionOptions {
  std::vector<std::string> keep;     ///< `--keep`: sample ID files (union)
  std::vector<std::string> remove;   ///< `--remove`
  std::vector<std::string> extract;  ///< `--extract`: variant ID files (union)
  std::vector<std::string> exclude;  ///< `--exclude`
  std::string chr;                   ///< `--chr` list ("" = every chromosome)
  std::optional<double> from_bp;     ///< `--from-bp` (needs one `--chr`)
  std::optional<double> to_bp;       ///< `--to-bp`
  std::optional<double> mind;        ///< `--mind`: drop samples with missing rate > X
  std::optional<double> geno;        ///< `--geno`: drop variants with missing rate > X
  std::optional<double> hwe;         ///< `--hwe`: drop variants with HWE exact p < P
  std::optional<double> maf;         ///< `--maf`: drop variants with MAF < X
  bool autosome = false;             ///< `--autosome`: chromosomes 1–22 only (with `--chr`: both)
  bool autosome_xy = false;          ///< `--autosome-xy`: chromosomes 1–22 and XY
  /// `--prune W [kb] [S] R2` (`--indep-pairwise`'s arguments): last, LD-prune what the other
  /// steps left and keep `.prune.in` — what `strata prune` with the same options and then
  /// `--extract PREFIX.prune.in` give, without the file (chromosome 0 is in neither list).
  std::vector<std::string> prune;
  /// Not a flag: set by the relatedness and PCA commands, which skip X, Y and MT as plink2's
  /// `--make-king`/`--make-rel`/`--pca` do (io/chromosome.hpp), after every other step; names
  /// the calculation in the message ("Excluding 430 variants on non-autosomes from PCA.").
  std::string skip_non_autosomes_for;
  /// Not a selection: how the input is opened (--vcf-dosage, a BGEN's --sample, ...), for the
  /// commands whose options carry no GenotypeOpenOptions of their own.
  io::GenotypeOpenOptions open;
  /// Whether any flag is set.
  bool any() const;
  /// The files the flags name (outputs must never replace them).
  std::vector<std::string> files() const;
};

/// \brief Usage checks (Invalid): thresholds in range, `--from-bp`/`--to-bp` with one `--chr`,
/// `--to-bp` ≥ `--from-bp`, a well-formed `--chr` list.
Status validate_selection(const SelectionOptions& options);

/// \brief What the selection did, in plink2's order.
struct SelectionReport {
  int64_t samples_input = 0, variants_input = 0;
  int64_t samples = 0, variants = 0;          ///< left
  int64_t keep_unmatched = 0;                 ///< `--keep` IDs not in the data (ignored)
  int64_t remove_unmatched = 0;
  int64_t extract_unmatched = 0, exclude_unmatched = 0;
  int64_t removed_keep = 0, removed_remove = 0, removed_mind = 0;
  int64_t removed_chr = 0, removed_range = 0, removed_extract = 0, removed_exclude = 0;
  int64_t removed_geno = 0, removed_hwe = 0, removed_maf = 0;
  int64_t removed_autosome = 0;               ///< `--autosome` / `--autosome-xy`
  int64_t removed_prune = 0;                  ///< `--prune` (LD pruning, chromosome 0 included)
  int64_t removed_non_autosomes = 0;          ///< X, Y and MT skipped by a relatedness/PCA command
  int64_t counting_passes = 0;
  /// One line per step that ran, as plink2 logs it ("--geno: 8 variants removed due to
  /// missing genotype data.").
  std::vector<std::string> messages;
  /// The report as JSON text (strata's public headers carry no JSON type).
  std::string to_json() const;
  /// \brief Put the report under "selection" in a command's summary when any step ran.
  void add_to(Summary& summary) const;
};

/// \brief A selected view and the indices it keeps.
struct Selection {
  io::GenotypeViewPtr view;       ///< the source restricted to the kept samples and variants
  std::vector<int64_t> samples;   ///< kept sample indices of the source (ascending)
  std::vector<int64_t> variants;  ///< kept variant indices of the source (ascending)
  SelectionReport report;
};

/// \brief Apply `options` to `source`. InvalidData (naming the step) when no sample or no
/// variant is left; Corrupt/NotFound for unreadable ID files (file and line named).
Result<Selection> select_genotypes(const Context& ctx, io::GenotypeViewPtr source, const SelectionOptions& options);

/// \brief The `--geno` and `--maf` steps of select_genotypes on per-variant counts over every
/// sample (each a founder, diploid, autosomal), for genotypes known here only by their counts
/// (the distributed PCA's Dask arrays, which carry no pedigree or chromosomes): the kept
/// indices, ascending. Unsupported when another flag is set; InvalidData when none is left.
Result<std::vector<int64_t>> select_variants_by_counts(const SelectionOptions& options,
                                                       const std::vector<VariantCounts>& counts);

/// \brief io::open_genotypes(input, open_options), then select_genotypes.
Result<Selection> open_selected_genotypes(const Context& ctx, const std::string& input,
                                          const SelectionOptions& options,
                                          const io::GenotypeOpenOptions& open_options);
/// \brief The same with options.open.
inline Result<Selection> open_selected_genotypes(const Context& ctx, const std::string& input,
                                                 const SelectionOptions& options) {
  return open_selected_genotypes(ctx, input, options, options.open);
}

/// \brief `strata convert` through a selection (io::convert_genotypes when nothing is
/// selected). A VCF/BCF input with a selection is Unsupported: convert it first.
struct SelectedConvert {
  io::ConvertReport convert;
  SelectionReport selection;
  std::vector<std::string> files;  ///< outputs written
  Summary report;                  ///< the report fields (the CLI's --report)
};
Result<SelectedConvert> convert_selected(const Context& ctx, const std::string& input, const std::string& output,
                                         const io::ConvertOptions& options, const SelectionOptions& selection);

/// \brief Whether sample `i` is a founder: both parent IDs `0` (or absent), as plink2 decides.
bool is_founder(const io::SampleInfo& samples, int64_t i);

/// \brief `view` without its variants on X, Y and MT, as the relatedness and PCA commands read
/// genotypes (plink2 skips them; `calculation` names the command in the message, which goes to
/// the log): `view` itself when it has none. InvalidData when nothing autosomal is left. The CLI
/// reaches the same rule through SelectionOptions::skip_non_autosomes_for; the Python API calls
/// this.
Result<io::GenotypeViewPtr> without_non_autosomes(io::GenotypeViewPtr view, const std::string& calculation);

/// \brief A sample's key in ID files: "FID\tIID", FID `0` when the source has none.
std::string sample_key(const io::SampleInfo& samples, int64_t i);

/// \brief The sample keys listed in a `--keep`/`--remove` file (see the file comment).
Result<std::vector<std::string>> read_sample_id_file(const std::string& path);

/// \brief The variant IDs listed in an `--extract`/`--exclude` file.
Result<std::vector<std::string>> read_variant_id_file(const std::string& path);

/// \brief A parsed `--chr` list.
class ChromosomeSet {
 public:
  /// Invalid for empty items, bad ranges or non-numeric range ends.
  static Result<ChromosomeSet> parse(const std::string& list);
  bool contains(const std::string& contig) const;
  /// How many chromosomes the list names (ranges expanded).
  int64_t size() const;

 private:
  std::vector<std::pair<int, int>> ranges_;  // numeric codes, inclusive
  std::vector<std::string> names_;           // other names, without a chr prefix
};

/// \brief plink2's numeric code of a chromosome name: 1–22 and other integers as themselves,
/// X 23, Y 24, XY 25, MT/M 26 (`chr` prefix and case ignored); −1 for anything else.
int chromosome_code(const std::string& name);

}  // namespace strata::genomics
