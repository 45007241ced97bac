// `strata project`: projection onto a reference PCA (strata/genomics/project.hpp).
#include <memory>

#include "cli_common.hpp"
#include "strata/core/log.hpp"
#include "strata/genomics/project.hpp"

namespace strata::cli {

void register_project_commands(CLI::App& app, CliState& state) {
  struct Args {
    io::GenotypeInputFlags input;
    std::string out, array, vcf_dosage, correction = "none";
    genomics::ProjectOptions options;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "project",
      "Project samples onto the PCs of `strata pca --out P`: Q.sscore (plink2 --score P.eigenvec.var 2 3 header-read "
      "no-mean-imputation variance-standardize --read-freq P.afreq, same digits; PCj_AVG = -(score on P.eigenvec's "
      "scale) x sqrt(eigenvalue_j x M) / ALLELE_CT, M = rows of P.afreq) and Q.eigenvec (on P.eigenvec's scale: a "
      "reference sample reproduces its P.eigenvec row; OADP-corrected with --correction oadp)");
  add_input_options(cmd, a->input, &a->vcf_dosage, "Target genotypes: PLINK prefix or .bed, .pgen, .bgen, VCF/BCF, or a Zarr genotype store");
  cmd->add_option("--ref", a->options.reference, "Prefix of the reference PCA (reads P.eigenvec.var, P.afreq, P.eigenval)")
      ->required()
      ->check(non_empty_path());
  cmd->add_option("--out", a->out, "Output prefix (writes PREFIX.sscore and PREFIX.eigenvec)")
      ->required()
      ->check(non_empty_path());
  cmd->add_option("-k", a->options.k, "PCs to project (default: every PC of P.eigenvec.var)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  cmd->add_option("--correction", a->correction,
                  "none (default; plink2's simple projection, shrunk towards 0 on later PCs) or oadp (online "
                  "augmentation, decomposition and Procrustes, Prive et al. 2020: unshrunk)")
      ->check(CLI::IsMember({"none", "oadp"}));
  cmd->add_flag("--drop-ambiguous", a->options.drop_ambiguous,
                "Leave A/T and C/G SNPs out (by default they are matched by allele name, never strand-flipped)");
  cmd->add_option("--array", a->array, "Zarr: path of the genotype array inside the store");
  add_common_options(cmd, state);
  add_selection_options(cmd, a->options.selection);
  cmd->callback([a, &state] {
    state.run = [a, &state]() -> Status {
      genomics::ProjectOptions o = a->options;
      STRATA_ASSIGN_OR_RETURN(o.correction, genomics::parse_project_correction(a->correction));
      o.open.array = a->array;
      o.open.vcf_dosage = a->vcf_dosage;
      STRATA_ASSIGN_OR_RETURN(const std::string input, io::resolve_genotype_input(a->input, o.open));
      STRATA_RETURN_NOT_OK(genomics::validate_selection(o.selection));
      STRATA_ASSIGN_OR_RETURN(genomics::ProjectSummary s, genomics::run_project_to_files(state.ctx(), input, a->out, o));
      const genomics::ProjectMatchCounts& c = s.match;
      log_info(c.matched, " variants matched (", c.by_position, " by position, ", c.swapped, " swapped, ",
               c.strand_flipped, " strand-flipped, ", c.ambiguous, " ambiguous used); ", c.ambiguous_dropped,
               " ambiguous dropped, ", c.allele_mismatch, " allele mismatches, ", c.missing,
               " reference variants missing");
      note_selection(state, s.selection);
      set_report(state, s.report);
      return Status::OK();
    };
    state.distributed = true;  // genomics::run_project_to_files shares the samples' sums across MPI ranks
  });
}

}  // namespace strata::cli
