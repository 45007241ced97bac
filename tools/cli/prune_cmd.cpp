// `strata prune`: LD pruning with plink2's --indep-pairwise (strata/genomics/prune.hpp).
#include <memory>

#include "cli_common.hpp"
#include "strata/core/log.hpp"
#include "strata/genomics/prune.hpp"

namespace strata::cli {

void register_prune_commands(CLI::App& app, CliState& state) {
  struct Args {
    io::GenotypeInputFlags input;
    std::string out, array, vcf_dosage;
    std::vector<std::string> window;
    genomics::SelectionOptions selection;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "prune",
      "LD pruning as plink2 --indep-pairwise: PREFIX.prune.in / PREFIX.prune.out (use the list with --extract "
      "PREFIX.prune.in on pca, king, grm, ..., or give those --prune WINDOW [kb] [STEP] R2 instead)");
  add_input_options(cmd, a->input, &a->vcf_dosage, "Genotypes: PLINK prefix or .bed, .pgen, .bgen, VCF/BCF, or a Zarr genotype store");
  cmd->add_option("--out", a->out, "Output prefix (writes PREFIX.prune.in and PREFIX.prune.out)")
      ->required()
      ->check(non_empty_path());
  cmd->add_option("--indep-pairwise", a->window,
                  "WINDOW [kb] [STEP] R2: windows of WINDOW variants (or WINDOW kb, also 'WINDOWkb') moved STEP "
                  "variants at a time (1 with kb); r² above R2 removes one of a pair")
      ->required()
      ->expected(2, 4);
  cmd->add_option("--array", a->array, "Zarr: path of the genotype array inside the store");
  add_common_options(cmd, state);
  add_selection_options(cmd, a->selection);
  cmd->callback([a, &state] {
    state.run = [a, &state]() -> Status {
      genomics::PruneOptions o;
      STRATA_ASSIGN_OR_RETURN(o.window, genomics::parse_indep_pairwise(a->window));
      o.open.array = a->array;
      o.open.vcf_dosage = a->vcf_dosage;
      o.selection = a->selection;
      STRATA_ASSIGN_OR_RETURN(const std::string input, io::resolve_genotype_input(a->input, o.open));
      STRATA_RETURN_NOT_OK(genomics::validate_selection(o.selection));
      STRATA_ASSIGN_OR_RETURN(genomics::PruneSummary s, genomics::run_prune_to_files(state.ctx(), input, a->out, o));
      log_info(s.removed, "/", s.kept + s.removed, " variants removed");
      if (s.skipped_chr0 > 0) log_info("ignored ", s.skipped_chr0, " chromosome 0 variants");
      note_selection(state, s.selection);
      set_report(state, s.report);
      return Status::OK();
    };
  });
}

}  // namespace strata::cli
