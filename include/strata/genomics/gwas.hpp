#pragma once
/// \file
/// `strata gwas`: per-variant association tests as plink2 `--glm hide-covar` (Debian's
/// 2.00a3.5): one file per phenotype, `P.<PHENO>.glm.linear` (quantitative) or
/// `P.<PHENO>.glm.logistic.hybrid` (case/control), with plink2's columns, A1 choice, sample
/// handling, ERRCODEs and number formatting.
///
/// Every phenotype's genomic-control λ (median 1-df χ² of its P values / 0.456, at least 1:
/// plink2's `--adjust` estimate) is in the summary; `--adjust` adds `<file>.adjusted`
/// (strata/genomics/gwas_adjust.hpp).
///
/// Model: phenotype ~ intercept + A1 dosage + covariates, over the samples with the phenotype
/// and every covariate present, less (for each variant) the samples whose call is missing.
/// A1 is the non-major allele over all samples of the input (REF is major unless
/// ALT frequency > REF frequency, frequencies as plink2 rounds them).
///
/// Linear phenotypes share every pass: phenotypes with the same sample set form a group whose
/// covariates are orthonormalized once (C = Q·R over the group's samples) and whose phenotypes
/// are residualized (y_r = y − Q·Qᵀy); one product of each decoded genotype block with
/// [Q | Y_r] per group gives every phenotype's statistics. A variant with missing calls is
/// corrected exactly by downdating the covariate Gram with the missing samples' rows
/// (A = I − Σ qᵢqᵢᵀ) — the fit is the one plink2 makes without those samples.
///
/// Logistic phenotypes run plink2's per-variant Newton iteration (start at 0, its stopping
/// and failure rules) in double precision, with its Firth fallback (`FIRTH?` = Y) when the
/// fit fails or an allele separates cases from controls.
///
/// \code
/// genomics::GwasOptions o;
/// o.pheno_path = "pheno.txt";
/// o.covar_path = "covar.txt";
/// STRATA_ASSIGN_OR_RETURN(auto s, genomics::run_gwas_to_files(ctx, "cohort.bed", "out/assoc", o));
/// \endcode

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "strata/core/job.hpp"
#include "strata/core/result.hpp"
#include "strata/genomics/gwas_adjust.hpp"
#include "strata/genomics/pheno.hpp"
#include "strata/genomics/selection.hpp"
#include "strata/io/genotype.hpp"

namespace strata {
class Context;
}

namespace strata::genomics {

enum class GwasModel : uint8_t { Auto, Linear, Logistic };
/// auto = plink2's `firth-fallback`; always = `firth`; never = `no-firth`.
enum class FirthMode : uint8_t { Auto, Always, Never };

Result<GwasModel> parse_gwas_model(const std::string& name);
Result<FirthMode> parse_firth_mode(const std::string& name);

/// \brief Extra output columns (plink2 column sets of newer versions; off by default).
struct GwasColumns {
  bool provisional_ref = false;  ///< `PROVISIONAL_REF?` (Y for PLINK 1 input: its REF is a guess)
  bool omitted = false;          ///< `OMITTED`: the allele that is not A1
  bool a1_freq = false;          ///< `A1_FREQ` over the variant's regression samples
};
/// \brief Parse a comma-separated list of provref, omitted, a1freq (Invalid otherwise).
Result<GwasColumns> parse_gwas_columns(const std::string& list);

/// \brief Options of run_gwas_to_files().
struct GwasOptions {
  std::string pheno_path;                ///< required (or pheno_table)
  std::vector<std::string> pheno_names;  ///< `--pheno-name` (empty = every column)
  std::string covar_path;                ///< optional
  /// The tables in memory instead of files (they win over the paths): read by the file
  /// reader's rules (strata/genomics/pheno.hpp), with one row per sample of the input.
  std::shared_ptr<const SampleTableData> pheno_table, covar_table;
  std::vector<std::string> covar_names;  ///< `--covar-name` (empty = every column)
  GwasModel model = GwasModel::Auto;
  FirthMode firth = FirthMode::Auto;
  bool zero_one_binary = false;          ///< plink2 `--1`
  /// plink2 `--nonfounders`: A1 from every sample's frequencies (default: the founders').
  bool nonfounders = false;
  double ci = 0.0;                       ///< `--ci`: adds L95/U95 when in (0, 1)
  GwasColumns columns;
  double max_vif = 50.0;                 ///< plink2 `--vif`
  double max_corr = 0.999;               ///< plink2 `--max-corr`
  /// `--adjust`: also write each phenotype's `.adjusted` file (plink2's corrections).
  AdjustOptions adjust;
  /// `--keep/--remove/--extract/--exclude/--chr/--mind/--geno/--hwe/--maf`, applied first (A1
  /// and everything after see only the selected samples and variants, as in plink2).
  SelectionOptions selection;
  /// `P.<pheno>.manhattan.svg/.png` and `P.<pheno>.qq.svg/.png` per phenotype (genomics/plot.hpp).
  bool write_plot = true;
  std::string plot_format;  ///< "svg", "png", "svg,png" ("" = SVG, and PNG where libcairo is found)
  /// Test only the selected variants [variant_begin, variant_end) (end −1 = all): one share of a
  /// distributed run. Everything else (samples, A1, models) is the whole run's, so the rows are
  /// the whole run's rows of those variants; begin on a multiple of gwas_block_variants() keeps
  /// the block grid too.
  int64_t variant_begin = 0, variant_end = -1;
};

/// \brief Variants per block of the scan for `num_samples` samples (~8 MiB of float64 dosages).
int64_t gwas_block_variants(int64_t num_samples);

/// \brief What one phenotype's run did.
struct GwasPhenotypeSummary {
  std::string name;
  bool logistic = false;
  int64_t samples = 0;            ///< with the phenotype and every covariate present
  int64_t cases = 0, controls = 0;///< logistic only
  int64_t errors = 0;             ///< variants with an ERRCODE other than '.'
  int64_t firth = 0;              ///< variants fitted by Firth regression
  std::map<std::string, int64_t> errcodes;  ///< rows by ERRCODE other than '.' (UNFINISHED too)
  std::string file;
  /// Genomic control over the valid tests (plink2's `--adjust` λ, reported with or without it).
  GcLambda gc;
  std::string adjusted_file;      ///< with `--adjust`
};

/// \brief The tested variants of a run, in variant order: the leading columns of every
/// phenotype's file, as printed (plink2's chromosome names, ALT "." when there is none).
struct GwasVariants {
  std::vector<std::string> chrom, id, ref, alt;
  std::vector<int64_t> pos;
  std::vector<std::string> a1, omitted;  ///< A1 and the other allele (`OMITTED`)
  int64_t size() const { return static_cast<int64_t>(pos.size()); }
};

/// \brief One phenotype's row per tested variant: the float64 values its file prints (the
/// text is these values formatted), NaN where it prints NA.
struct GwasStats {
  std::vector<int64_t> obs;        ///< OBS_CT
  std::vector<double> a1_freq;     ///< A1 frequency over the variant's regression samples
  std::vector<char> firth;         ///< fitted by Firth regression (`FIRTH?` Y)
  std::vector<double> beta;        ///< BETA (linear) or OR (logistic)
  std::vector<double> se;          ///< SE or LOG(OR)_SE
  std::vector<double> l95, u95;    ///< the --ci bounds (NaN without --ci)
  std::vector<double> stat;        ///< T_STAT or Z_STAT
  std::vector<double> p;
  std::vector<double> ln_p;        ///< ln P, finite where P underflows; NaN without a test
  std::vector<std::string> errcode;///< "." or plink2's ERRCODE (UNFINISHED keeps its values)
};

/// \brief Rows of a run (or of a block of it): the variants and every phenotype's statistics.
struct GwasRows {
  GwasVariants variants;
  std::vector<GwasStats> phenotypes;
  /// Append `more` (the same phenotypes) after these rows.
  void append(GwasRows&& more);
};

/// \brief What run_gwas_to_files() did.
struct GwasRunSummary {
  int64_t num_samples = 0, num_variants = 0;  ///< after the selection
  SelectionReport selection;                 ///< what the selection removed
  std::vector<std::string> covariates;       ///< used, in model order
  std::vector<std::string> warnings;         ///< e.g. constant covariates left out (as plink2 does)
  std::vector<GwasPhenotypeSummary> phenotypes;
  int64_t groups = 0;                        ///< distinct sample sets among linear phenotypes
  std::vector<std::string> files;
  Summary report;                            ///< the report fields (the CLI's --report, Python's dict)
};

/// \brief Run the association scan of `input` (anything io::open_genotypes() reads) and write
/// one file per phenotype for `prefix`, all committed together (nothing is written on error).
/// InvalidData for phenotypes that cannot be tested (all missing, one class only, non-binary
/// values with a logistic model) and for collinear or too-correlated covariates (plink2's
/// VIF_TOO_HIGH / CORR_TOO_HIGH refusal).
Result<GwasRunSummary> run_gwas_to_files(const Context& ctx, const std::string& input, const std::string& prefix,
                                         const GwasOptions& options);

/// \brief A run's summary and rows, in memory (the rows the files of run_gwas_to_files hold).
struct GwasResult {
  GwasRunSummary summary;
  GwasRows rows;
};

/// \brief The scan of run_gwas_to_files() with its rows kept in memory; with a non-empty
/// `prefix` the same files are written too (byte-identical to run_gwas_to_files()).
///
/// `shares`: the rows of this run's variants computed elsewhere, in variant order (a distributed
/// run: each task runs run_gwas with its GwasOptions::variant_begin/end share); they stand in
/// for the scan, and λ, --adjust, the counts and the files are made from them here.
Result<GwasResult> run_gwas(const Context& ctx, const std::string& input, const GwasOptions& options,
                            const std::string& prefix = "", const std::vector<GwasRows>* shares = nullptr);
/// \brief The same over a genotype view (e.g. dosages in memory); `describe` names it in messages.
Result<GwasResult> run_gwas(const Context& ctx, const io::GenotypeViewPtr& view, const std::string& describe,
                            const GwasOptions& options, const std::string& prefix = "",
                            const std::vector<GwasRows>* shares = nullptr);

/// \brief Rows as bytes (a distributed task's result) and back (Corrupt for malformed bytes).
std::string encode_gwas_rows(const GwasRows& rows);
Result<GwasRows> decode_gwas_rows(const std::string& bytes);

}  // namespace strata::genomics
