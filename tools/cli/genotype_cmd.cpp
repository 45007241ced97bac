// `strata convert`, `strata freq`, `strata simulate`: genotype data in and out.
#include <cstdio>
#include <memory>

#include "cli_common.hpp"
#include "strata/core/log.hpp"
#include "strata/genomics/freq.hpp"
#include "strata/genomics/simulate.hpp"
#include "strata/io/genotype_convert.hpp"

namespace strata::cli {
namespace {

Result<io::MultiallelicMode> parse_multiallelic(const std::string& s) {
  if (s == "nonref") return io::MultiallelicMode::NonRefDosage;
  if (s == "skip") return io::MultiallelicMode::Skip;
  return Status::Invalid("--multiallelic must be 'nonref' or 'skip', got '", s, "'");
}

void register_convert(CLI::App& app, CliState& state) {
  struct Args {
    std::string input, output, codec, multiallelic;
    int64_t variants_chunk = 0, samples_chunk = 0;
    bool overwrite = false;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "convert",
      "Convert genotypes: VCF/BCF (.vcf, .vcf.gz, .bcf), a PLINK prefix or .bed, or a VCF Zarr, "
      "to VCF Zarr (OUTPUT ending .vcz or .zarr) or a PLINK 1 fileset (OUTPUT ending .bed)");
  cmd->add_option("INPUT", a->input, "Input file, PLINK prefix or Zarr store")->required();
  cmd->add_option("OUTPUT", a->output, "Output: *.vcz / *.zarr, or *.bed (PLINK prefix)")->required();
  cmd->add_option("--variants-chunk", a->variants_chunk, "VCF Zarr chunk length along variants (default 1000)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--samples-chunk", a->samples_chunk, "VCF Zarr chunk width along samples (default 10000)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--codec", a->codec, "Codec for call_genotype (default blosc:zstd:3:bitshuffle)");
  cmd->add_option("--multiallelic", a->multiallelic,
                  "Multi-allelic sites in dosage outputs: nonref (count any ALT) or skip (default for .bed)");
  cmd->add_flag("--overwrite", a->overwrite, "Replace an existing output");
  add_common_options(cmd, state);
  cmd->callback([a, &state] {
    state.run = [a]() -> Status {
      io::ConvertOptions o;
      o.variants_chunk = a->variants_chunk;
      o.samples_chunk = a->samples_chunk;
      o.genotype_codec = a->codec;
      o.overwrite = a->overwrite;
      if (!a->multiallelic.empty()) {
        STRATA_ASSIGN_OR_RETURN(o.multiallelic, parse_multiallelic(a->multiallelic));
        o.multiallelic_set = true;
      }
      STRATA_ASSIGN_OR_RETURN(io::ConvertReport r, io::convert_genotypes(a->input, a->output, o));
      log_info("converted ", r.variants, " variants x ", r.samples, " samples to ", a->output);
      if (r.skipped > 0) {
        log_warning("skipped ", r.skipped, " multi-allelic sites (keep them as non-reference dosage with --multiallelic nonref)");
      } else if (r.multiallelic > 0 && !io::is_zarr_output(a->output)) {
        log_warning(r.multiallelic, " multi-allelic sites written as non-reference dosage");
      }
      if (r.polyploid_calls > 0) log_warning(r.polyploid_calls, " calls with more than two alleles coded missing");
      return Status::OK();
    };
  });
}

void register_freq(CLI::App& app, CliState& state) {
  struct Args {
    std::string input, out, multiallelic = "nonref", array;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("freq", "Allele frequencies (.afreq) and variant missingness (.vmiss), as plink2 writes them");
  cmd->add_option("INPUT", a->input, "PLINK prefix or .bed, or a Zarr genotype store")->required();
  cmd->add_option("--out", a->out, "Output prefix (writes PREFIX.afreq and PREFIX.vmiss)")->required();
  cmd->add_option("--multiallelic", a->multiallelic, "nonref (count any ALT allele; default) or skip");
  cmd->add_option("--array", a->array, "Zarr: path of the genotype array inside the store");
  add_common_options(cmd, state);
  cmd->callback([a, &state] {
    state.run = [a]() -> Status {
      io::GenotypeOpenOptions oo;
      STRATA_ASSIGN_OR_RETURN(oo.multiallelic, parse_multiallelic(a->multiallelic));
      oo.array = a->array;
      STRATA_ASSIGN_OR_RETURN(auto view, io::open_genotypes(a->input, oo));
      const io::SourceReport rep = view->report();
      if (rep.skipped_sites > 0) log_warning("skipped ", rep.skipped_sites, " multi-allelic sites");
      return genomics::write_freq_files(*view, a->out);
    };
  });
}

void register_simulate(CLI::App& app, CliState& state) {
  struct Args {
    genomics::SimulateOptions o;
    std::string out, format = "bed";
    int64_t variants_chunk = 0, samples_chunk = 0;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("simulate", "Simulate structured genotypes (Balding-Nichols) as PLINK 1 and/or VCF Zarr");
  cmd->add_option("--samples", a->o.num_samples, "Number of samples")->required()->check(CLI::PositiveNumber);
  cmd->add_option("--variants", a->o.num_variants, "Number of variants")->required()->check(CLI::NonNegativeNumber);
  cmd->add_option("--pops", a->o.num_pops, "Number of populations (default 3)")->check(CLI::PositiveNumber);
  cmd->add_option("--fst", a->o.fst, "F_ST between populations (default 0.05)");
  cmd->add_option("--missing", a->o.missing, "Per-call missing rate (default 0)");
  cmd->add_option("--seed", a->o.seed, "Random seed (default 1)");
  cmd->add_option("--out", a->out, "Output prefix (PREFIX.bed/.bim/.fam, PREFIX.vcz)")->required();
  cmd->add_option("--format", a->format, "bed, vcz or both (default bed)")
      ->check(CLI::IsMember({"bed", "vcz", "both"}));
  cmd->add_option("--variants-chunk", a->variants_chunk, "VCF Zarr chunk length along variants")->check(CLI::PositiveNumber);
  cmd->add_option("--samples-chunk", a->samples_chunk, "VCF Zarr chunk width along samples")->check(CLI::PositiveNumber);
  add_common_options(cmd, state);
  cmd->callback([a, &state] {
    state.run = [a]() -> Status {
      const auto format = a->format == "vcz"    ? genomics::SimulateFormat::Vcz
                          : a->format == "both" ? genomics::SimulateFormat::Both
                                                : genomics::SimulateFormat::Bed;
      genomics::SimulateWriteOptions w;
      w.variants_chunk = a->variants_chunk;
      w.samples_chunk = a->samples_chunk;
      return genomics::simulate_to_files(a->o, a->out, format, w);
    };
  });
}

}  // namespace

void register_genotype_commands(CLI::App& app, CliState& state) {
  register_convert(app, state);
  register_freq(app, state);
  register_simulate(app, state);
}

}  // namespace strata::cli
