// `strata grm`: a thin wrapper over strata/genomics/grm_output.hpp.
#include <cstdio>
#include <memory>

#include "cli_common.hpp"
#include "strata/genomics/grm_output.hpp"

namespace strata::cli {
namespace {

struct GrmArgs {
  io::GenotypeInputFlags input;
  std::string out;
  genomics::GrmRunOptions run;  // the options bind to the library's struct
};

Status run_grm(const GrmArgs& a, CliState& state) {
  genomics::GrmRunOptions o = a.run;
  STRATA_ASSIGN_OR_RETURN(const std::string input, io::resolve_genotype_input(a.input, o.selection.open));
  STRATA_RETURN_NOT_OK(genomics::validate_selection(o.selection));
  STRATA_ASSIGN_OR_RETURN(genomics::GrmRunSummary s, genomics::run_grm_to_files(state.ctx(), input, a.out, o));
  const genomics::GrmInfo& i = s.info;
  if (!state.quiet) {
    std::printf("GRM of %lld samples over M = %lld variants (of %lld)%s, %s, %lld pass%s, %.2f s\n",
                static_cast<long long>(i.num_samples), static_cast<long long>(i.grm_variants),
                static_cast<long long>(i.num_variants_input),
                i.pairwise_counts ? ", pairs divided by the variants both observe" : "", genomics::grm_format_name(o.format),
                static_cast<long long>(i.bands), i.bands == 1 ? "" : "es", wall_seconds(s.report));
    for (const auto& f : s.files) std::printf("wrote %s\n", f.c_str());
  }
  set_report(state, s.report);
  note_selection(state, s.selection);
  return Status::OK();
}

}  // namespace

void register_grm_commands(CLI::App& app, CliState& state) {
  auto a = std::make_shared<GrmArgs>();
  auto* cmd = app.add_subcommand(
      "grm",
      "Genomic relationship matrix as plink2 --make-rel / --make-grm-bin: PREFIX.rel + .rel.id (default), "
      "PREFIX.rel.bin (rel-bin), PREFIX.grm.bin + .grm.N.bin + .grm.id (grm-bin) or PREFIX.zarr (zarr). Missing "
      "calls add nothing; each pair is divided by the variants both samples observe unless --meanimpute");
  add_input_options(cmd, a->input, &a->run.selection.open.vcf_dosage,
                    "Genotypes: PLINK prefix or .bed, .pgen, .bgen, VCF/BCF (.vcf, .vcf.gz, .bcf), VCF Zarr, "
                    "scikit-allel or dosage Zarr");
  cmd->add_option("--out", a->out, "Output prefix")->required()->check(non_empty_path());
  add_enum_option(cmd, "--format", a->run.format, genomics::parse_grm_format,
                  "rel (text lower triangle, default), rel-bin, grm-bin or zarr",
                  CLI::Validator(
                      [](std::string& s) -> std::string {
                        return genomics::parse_grm_format(s).ok()
                                   ? std::string()
                                   : "must be rel, rel-bin, grm-bin or zarr, got '" + s + "'";
                      },
                      "rel|rel-bin|grm-bin|zarr", ""));
  cmd->add_flag("--meanimpute", a->run.grm.meanimpute, "Divide every pair by M (plink2's meanimpute modifier)");
  cmd->add_flag("--nonfounders", a->run.grm.nonfounders,
                "Allele frequencies from every sample (plink2 --nonfounders); default: the founders' when some "
                "sample has a parent, as plink2");
  add_memory_option(cmd, state, "tiles that do not fit run in bands, one pass each");
  cmd->add_flag("--overwrite", a->run.overwrite, "Replace an existing PREFIX.zarr that strata did not write (its own earlier output is replaced without it); files are always replaced");
  add_common_options(cmd, state);
  add_selection_options(cmd, a->run.selection);
  cmd->callback([a, &state] {
    state.run = [a, &state] { return run_grm(*a, state); };
    state.distributed = true;  // genomics::compute_grm shares the tiles across MPI ranks
  });
}

}  // namespace strata::cli
