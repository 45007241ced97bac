// strata qc: sample and variant QC tables as plink2 writes them (genomics/qc_tables.hpp).
#include <cstdio>
#include <memory>

#include "cli_common.hpp"
#include "strata/core/log.hpp"
#include "strata/genomics/qc_tables.hpp"

namespace strata::cli {

void register_qc_commands(CLI::App& app, CliState& state) {
  struct Args {
    io::GenotypeInputFlags input;
    std::string out, multiallelic = "nonref", array, vcf_dosage;
    bool missing = false, het = false, hardy = false, bad_freqs = false, check_sex = false;
    double max_female_xf = 0.2, min_male_xf = 0.8;
    genomics::SelectionOptions selection;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "qc", "Sample and variant QC tables as plink2 writes them: .smiss/.vmiss (--missing), .het, .hardy/.hardy.x, "
      ".sexcheck (--check-sex, PLINK 1.9's); asked together they share one pass");
  add_input_options(cmd, a->input, &a->vcf_dosage, "Genotypes: PLINK prefix or .bed, .pgen, .bgen, VCF/BCF, or a Zarr genotype store");
  cmd->add_option("--out", a->out, "Output prefix")->required()->check(non_empty_path());
  cmd->add_flag("--missing", a->missing, "Write PREFIX.smiss and PREFIX.vmiss (plink2 --missing)");
  cmd->add_flag("--het", a->het, "Write PREFIX.het (plink2 --het: inbreeding F from autosomal homozygosity)");
  cmd->add_flag("--hardy", a->hardy, "Write PREFIX.hardy and, with X variants, PREFIX.hardy.x (plink2 --hardy)");
  cmd->add_flag("--check-sex", a->check_sex,
                "Write PREFIX.sexcheck (PLINK 1.9 --check-sex: F from X heterozygosity; needs X variants)");
  cmd->add_option("--max-female-xf", a->max_female_xf, "--check-sex: F below this calls female (default 0.2)");
  cmd->add_option("--min-male-xf", a->min_male_xf, "--check-sex: F above this calls male (default 0.8)");
  cmd->add_flag("--bad-freqs", a->bad_freqs, "--het: estimate frequencies from fewer than 50 founders (plink2 --bad-freqs)");
  cmd->add_option("--multiallelic", a->multiallelic, "nonref (count any ALT allele; default) or skip")
      ->check(multiallelic_check());
  cmd->add_option("--array", a->array, "Zarr: path of the genotype array inside the store");
  add_common_options(cmd, state);
  add_selection_options(cmd, a->selection);
  cmd->callback([a, &state] {
    state.run = [a, &state]() -> Status {
      genomics::QcOptions o;
      if (!a->missing && !a->het && !a->hardy && !a->check_sex)
        return Status::Invalid("qc: name the tables to write: --missing, --het, --hardy and/or --check-sex");
      o.missing = a->missing;
      o.het = a->het;
      o.hardy = a->hardy;
      o.bad_freqs = a->bad_freqs;
      o.check_sex = a->check_sex;
      o.max_female_xf = a->max_female_xf;
      o.min_male_xf = a->min_male_xf;
      STRATA_ASSIGN_OR_RETURN(o.open.multiallelic, io::parse_multiallelic_mode(a->multiallelic));
      o.open.array = a->array;
      o.open.vcf_dosage = a->vcf_dosage;
      o.selection = a->selection;
      STRATA_ASSIGN_OR_RETURN(const std::string input, io::resolve_genotype_input(a->input, o.open));
      STRATA_RETURN_NOT_OK(genomics::validate_selection(o.selection));
      STRATA_ASSIGN_OR_RETURN(genomics::QcSummary s, genomics::run_qc_to_files(state.ctx(), input, a->out, o));
      if (s.skipped_sites > 0) log_warning("skipped ", s.skipped_sites, " multi-allelic sites");
      if (o.check_sex && !state.quiet)
        std::printf("--check-sex: %lld X variants, %lld problems -> %s.sexcheck\n",
                    static_cast<long long>(s.sexcheck_x_variants), static_cast<long long>(s.sexcheck_problems),
                    a->out.c_str());
      note_selection(state, s.selection);
      set_report(state, s.report);
      return Status::OK();
    };
    state.distributed = true;  // genomics::run_qc_to_files shares the variants across MPI ranks
  });
}

}  // namespace strata::cli
