// `strata gwas`: a thin wrapper over strata/genomics/gwas.hpp.
#include <cstdio>
#include <memory>

#include "cli_common.hpp"
#include "strata/genomics/gwas.hpp"
#include "strata/genomics/pheno.hpp"

namespace strata::cli {
namespace {

struct GwasArgs {
  io::GenotypeInputFlags input;
  std::string out, pheno, pheno_name, covar, covar_name, model = "auto", firth = "auto", cols;
  double ci = 0.0, vif = 50.0, max_corr = 0.999;
  bool zero_one = false, nonfounders = false, plot = true;
  bool adjust = false;
  std::vector<std::string> adjust_modifiers;
  std::string plot_format;
  genomics::SelectionOptions selection;
};

Status run_gwas(const GwasArgs& a, CliState& state) {
  genomics::GwasOptions o;
  o.pheno_path = a.pheno;
  o.pheno_names = genomics::split_names(a.pheno_name);
  o.covar_path = a.covar;
  o.covar_names = genomics::split_names(a.covar_name);
  STRATA_ASSIGN_OR_RETURN(o.model, genomics::parse_gwas_model(a.model));
  STRATA_ASSIGN_OR_RETURN(o.firth, genomics::parse_firth_mode(a.firth));
  STRATA_ASSIGN_OR_RETURN(o.columns, genomics::parse_gwas_columns(a.cols));
  o.zero_one_binary = a.zero_one;
  o.nonfounders = a.nonfounders;
  o.ci = a.ci;
  o.max_vif = a.vif;
  o.max_corr = a.max_corr;
  o.selection = a.selection;
  if (a.adjust) {
    STRATA_ASSIGN_OR_RETURN(o.adjust, genomics::parse_adjust_options(a.adjust_modifiers));
  }
  o.write_plot = a.plot;
  o.plot_format = a.plot_format;
  STRATA_ASSIGN_OR_RETURN(const std::string input, io::resolve_genotype_input(a.input, o.selection.open));
  STRATA_RETURN_NOT_OK(genomics::validate_selection(o.selection));
  STRATA_ASSIGN_OR_RETURN(genomics::GwasRunSummary s, genomics::run_gwas_to_files(state.ctx(), input, a.out, o));
  const double wall = wall_seconds(s.report);
  for (const auto& w : s.warnings) std::fprintf(stderr, "strata: warning: %s\n", w.c_str());
  for (const auto& p : s.phenotypes) {
    if (!state.quiet) {
      if (p.logistic)
        std::printf("%s: logistic, %lld samples (%lld cases, %lld controls), %lld Firth fits, %lld NA rows, "
                    "lambda_gc %g -> %s\n",
                    p.name.c_str(), static_cast<long long>(p.samples), static_cast<long long>(p.cases),
                    static_cast<long long>(p.controls), static_cast<long long>(p.firth),
                    static_cast<long long>(p.errors), p.gc.lambda, p.file.c_str());
      else
        std::printf("%s: linear, %lld samples, %lld NA rows, lambda_gc %g -> %s\n", p.name.c_str(),
                    static_cast<long long>(p.samples), static_cast<long long>(p.errors), p.gc.lambda,
                    p.file.c_str());
      if (!p.adjusted_file.empty()) std::printf("%s: --adjust -> %s\n", p.name.c_str(), p.adjusted_file.c_str());
    }
  }
  if (!state.quiet)
    std::printf("%lld variants x %lld samples, %zu covariates, %zu phenotypes, %.2f s\n",
                static_cast<long long>(s.num_variants), static_cast<long long>(s.num_samples), s.covariates.size(),
                s.phenotypes.size(), wall);
  set_report(state, s.report);
  note_selection(state, s.selection);
  return Status::OK();
}

}  // namespace

void register_gwas_commands(CLI::App& app, CliState& state) {
  auto a = std::make_shared<GwasArgs>();
  auto* cmd = app.add_subcommand(
      "gwas",
      "Association scan as plink2 --glm hide-covar: PREFIX.<PHENO>.glm.linear (quantitative) or "
      ".glm.logistic.hybrid (case/control, Firth fallback) per phenotype; many phenotypes share every pass");
  add_input_options(cmd, a->input, &a->selection.open.vcf_dosage,
                    "Genotypes: PLINK prefix or .bed, .pgen, .bgen, VCF/BCF (.vcf, .vcf.gz, .bcf), VCF Zarr, "
                    "scikit-allel or dosage Zarr");
  cmd->add_option("--pheno", a->pheno, "Phenotype file (#FID IID A B ... or #IID A ...; NA / -9 missing)")
      ->required()
      ->check(non_empty_path());
  cmd->add_option("--pheno-name", a->pheno_name, "Phenotype columns to test, comma-separated (default: all)")
      ->check(name_list());
  cmd->add_option("--covar", a->covar, "Covariate file (same layout)")->check(non_empty_path());
  cmd->add_option("--covar-name", a->covar_name, "Covariate columns to use, comma-separated (default: all)");
  cmd->add_option("--model", a->model, "auto (logistic for case/control phenotypes), linear or logistic")
      ->check(CLI::IsMember({"auto", "linear", "logistic"}));
  cmd->add_option("--firth", a->firth,
                  "auto (Firth when logistic regression fails or reaches its iteration limit, or an allele is only in cases or controls: plink2's firth-fallback), always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  cmd->add_flag("--1", a->zero_one, "Case/control phenotypes are coded 0 = control, 1 = case (plink2 --1)");
  cmd->add_flag("--nonfounders", a->nonfounders,
                "A1 from every sample's allele frequencies (plink2 --nonfounders); default: the founders'");
  cmd->add_option("--ci", a->ci, "Add L95/U95 columns for this confidence level, e.g. 0.95")
      ->check(real_in([](double v) { return v > 0.0 && v < 1.0; }, "a number between 0 and 1"));
  cmd->add_option("--cols", a->cols, "Extra columns, comma-separated: provref, omitted, a1freq")
      ->check(CLI::Validator(
          [](std::string& s) -> std::string {
            auto r = genomics::parse_gwas_columns(s);
            return r.ok() ? std::string() : r.status().message();
          },
          "provref,omitted,a1freq", ""));
  cmd->add_option("--vif", a->vif, "Variance inflation factor limit (plink2 --vif, default 50)")
      ->check(real_in([](double v) { return v >= 1.0; }, "a number of at least 1"));
  cmd->add_option("--max-corr", a->max_corr, "Predictor correlation limit (plink2 --max-corr, default 0.999)")
      ->check(real_in([](double v) { return v > 0.0 && v <= 1.0; }, "a number in (0, 1]"));
  auto* adjust = cmd->add_option("--adjust", a->adjust_modifiers,
                  "Also write PREFIX.<PHENO>.glm.*.adjusted as plink2 --adjust (UNADJ, GC, BONF, HOLM, SIDAK_SS, "
                  "SIDAK_SD, FDR_BH, FDR_BY); modifiers: gc, log10, cols=LIST")
      ->expected(0, 3);
  cmd->add_option("--out", a->out, "Output prefix")->required()->check(non_empty_path());
  add_plot_options(cmd, a->plot, a->plot_format, "PREFIX.<pheno>.manhattan.svg and .qq.svg (QQ with lambda GC)");
  add_memory_option(cmd, state, "the decoded genotypes of a VCF/BCF must fit in it");
  add_selection_options(cmd, a->selection);
  add_common_options(cmd, state);
  cmd->callback([a, adjust, &state] {
    a->adjust = adjust->count() > 0;
    state.run = [a, &state] { return run_gwas(*a, state); };
    state.distributed = true;  // genomics::run_gwas_to_files shares the variants across MPI ranks
  });
}

}  // namespace strata::cli
