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

constexpr long long kMaxChunk = 100'000'000;
constexpr const char* kChunkRange = "an integer from 1 to 100,000,000";
constexpr long long kMaxSimulated = 1'000'000'000'000;

// A VCF Zarr call_genotype chunk (variants x samples x ploidy 2 bytes) must stay below 2 GiB:
// blosc cannot compress a larger buffer. Either extent may take its default (1000, 10000).
Status check_chunk_bytes(int64_t variants_chunk, int64_t samples_chunk) {
  const double v = variants_chunk > 0 ? double(variants_chunk) : 1000.0;
  const double s = samples_chunk > 0 ? double(samples_chunk) : 10000.0;
  if (v * s * 2.0 >= 2147483648.0 - 65536.0)
    return Status::Invalid("--variants-chunk x --samples-chunk x 2 (ploidy) must be below 2 GiB (",
                           static_cast<long long>(v), " x ", static_cast<long long>(s),
                           " x 2 bytes is too large for one chunk)");
  return Status::OK();
}

void register_convert(CLI::App& app, CliState& state) {
  struct Args {
    io::GenotypeInputFlags input;
    std::string path, output;  // INPUT OUTPUT, or OUTPUT alone (in `path`) after an input flag
    std::string codec, multiallelic;
    int64_t variants_chunk = 0, samples_chunk = 0;
    bool overwrite = false;
    genomics::SelectionOptions selection;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "convert",
      "Convert genotypes: VCF/BCF (.vcf, .vcf.gz, .bcf), a PLINK prefix or .bed, or a VCF Zarr, "
      "to VCF Zarr (OUTPUT ending .vcz or .zarr), a PLINK 1 fileset (.bed), a PLINK 2 fileset (.pgen, with "
      "dosages when the input has them) or BGEN 1.2 with a .sample (.bgen, 8-bit, REF first)");
  cmd->add_option("INPUT", a->path, "Input file, PLINK prefix or Zarr store (or an input flag, then OUTPUT alone)")
      ->required()
      ->check(non_empty_path());
  cmd->add_option("OUTPUT", a->output, "Output: *.vcz / *.zarr, *.bed, *.pgen or *.bgen")->check(non_empty_path());
  // No --vcf-dosage on convert yet: a VCF is converted from its GT.
  add_input_options(cmd, a->input, nullptr, "");
  add_memory_option(cmd, state, "the decoded genotypes of a VCF/BCF read through a selection must fit in it");
  // vcf2zarr's names (-l/--variants-chunk-size, -w/--samples-chunk-size) work too.
  cmd->add_option("-l,--variants-chunk,--variants-chunk-size", a->variants_chunk,
                  "VCF Zarr chunk length along variants (default 1000)")
      ->check(integer_in(1, kMaxChunk, kChunkRange));
  cmd->add_option("-w,--samples-chunk,--samples-chunk-size", a->samples_chunk,
                  "VCF Zarr chunk width along samples (default 10000)")
      ->check(integer_in(1, kMaxChunk, kChunkRange));
  cmd->add_option("--codec", a->codec, "Codec for call_genotype (default blosc:zstd:3:bitshuffle)");
  cmd->add_option("--multiallelic", a->multiallelic,
                  "Multi-allelic sites in dosage outputs: nonref (count any ALT) or skip (default for .bed)")
      ->check(multiallelic_check());
  cmd->add_flag("--overwrite", a->overwrite,
                "Replace an existing Zarr store at OUTPUT (never an input); PLINK files are always replaced");
  add_common_options(cmd, state);
  add_selection_options(cmd, a->selection);
  cmd->callback([a, &state] {
    state.run = [a, &state]() -> Status {
      STRATA_RETURN_NOT_OK(check_chunk_bytes(a->variants_chunk, a->samples_chunk));
      io::GenotypeInputFlags flags = a->input;
      if (!a->output.empty()) flags.path = a->path;
      const std::string& output = a->output.empty() ? a->path : a->output;
      io::GenotypeOpenOptions open;
      STRATA_ASSIGN_OR_RETURN(const std::string input, io::resolve_genotype_input(flags, open));
      io::ConvertOptions o;
      o.bgen_sample = open.bgen_sample;
      o.variants_chunk = a->variants_chunk;
      o.samples_chunk = a->samples_chunk;
      o.genotype_codec = a->codec;
      o.overwrite = a->overwrite;
      if (!a->multiallelic.empty()) {
        STRATA_ASSIGN_OR_RETURN(o.multiallelic, io::parse_multiallelic_mode(a->multiallelic));
        o.multiallelic_set = true;
      }
      STRATA_RETURN_NOT_OK(genomics::validate_selection(a->selection));
      STRATA_ASSIGN_OR_RETURN(genomics::SelectedConvert sc,
                              genomics::convert_selected(state.ctx(), input, output, o, a->selection));
      note_selection(state, sc.selection);
      set_report(state, sc.report);
      const io::ConvertReport& r = sc.convert;
      log_info("converted ", r.variants, " variants x ", r.samples, " samples to ", output);
      if (r.skipped > 0) {
        log_warning("skipped ", r.skipped, " multi-allelic sites (keep them as non-reference dosage with --multiallelic nonref)");
      } else if (r.multiallelic > 0 && !io::is_zarr_output(output)) {
        log_warning(r.multiallelic, " multi-allelic sites written as non-reference dosage");
      }
      if (r.polyploid_calls > 0) log_warning(r.polyploid_calls, " calls with more than two alleles coded missing");
      return Status::OK();
    };
  });
}

void register_freq(CLI::App& app, CliState& state) {
  struct Args {
    io::GenotypeInputFlags input;
    std::string out, multiallelic = "nonref", array, vcf_dosage;
    genomics::SelectionOptions selection;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("freq", "Allele frequencies (.afreq) and variant missingness (.vmiss), as plink2 writes them");
  add_input_options(cmd, a->input, &a->vcf_dosage, "Genotypes: PLINK prefix or .bed, .pgen, .bgen, VCF/BCF, or a Zarr genotype store");
  cmd->add_option("--out", a->out, "Output prefix (writes PREFIX.afreq and PREFIX.vmiss)")->required()->check(non_empty_path());
  cmd->add_option("--multiallelic", a->multiallelic, "nonref (count any ALT allele; default) or skip")
      ->check(multiallelic_check());
  cmd->add_option("--array", a->array, "Zarr: path of the genotype array inside the store");
  add_memory_option(cmd, state, "the decoded genotypes of a VCF/BCF must fit in it");
  add_common_options(cmd, state);
  add_selection_options(cmd, a->selection);
  cmd->callback([a, &state] {
    state.run = [a, &state]() -> Status {
      genomics::FreqOptions fo;
      fo.open.vcf_dosage = a->vcf_dosage;
      STRATA_ASSIGN_OR_RETURN(fo.open.multiallelic, io::parse_multiallelic_mode(a->multiallelic));
      fo.open.array = a->array;
      fo.selection = a->selection;
      STRATA_ASSIGN_OR_RETURN(const std::string input, io::resolve_genotype_input(a->input, fo.open));
      STRATA_RETURN_NOT_OK(genomics::validate_selection(fo.selection));
      STRATA_ASSIGN_OR_RETURN(genomics::FreqSummary s, genomics::run_freq_to_files(state.ctx(), input, a->out, fo));
      if (s.skipped_sites > 0) log_warning("skipped ", s.skipped_sites, " multi-allelic sites");
      note_selection(state, s.selection);
      set_report(state, s.report);
      return Status::OK();
    };
    state.distributed = true;
  });
}

void register_simulate(CLI::App& app, CliState& state) {
  struct Args {
    genomics::SimulateOptions o;
    std::string out;
    genomics::SimulateFormat format = genomics::SimulateFormat::Bed;
    int64_t variants_chunk = 0, samples_chunk = 0;
    bool overwrite = false;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("simulate", "Simulate structured genotypes (Balding-Nichols) as PLINK 1 and/or VCF Zarr");
  cmd->add_option("--samples", a->o.num_samples, "Number of samples")
      ->required()
      ->check(integer_in(1, kMaxSimulated, "an integer from 1 to 1,000,000,000,000"));
  cmd->add_option("--variants", a->o.num_variants, "Number of variants")
      ->required()
      ->check(integer_in(0, kMaxSimulated, "an integer from 0 to 1,000,000,000,000"));
  cmd->add_option("--pops", a->o.num_pops, "Number of populations (default 3; at most --samples)")
      ->check(integer_in(1, 1000000, "an integer from 1 to 1,000,000 (and at most --samples)"));
  cmd->add_option("--fst", a->o.fst, "F_ST between populations (default 0.05)")
      ->check(real_in([](double v) { return v >= 0.0 && v < 1.0; }, "a number from 0 up to (not including) 1"));
  cmd->add_option("--missing", a->o.missing, "Per-call missing rate (default 0)")
      ->check(real_in([](double v) { return v >= 0.0 && v <= 1.0; }, "a number from 0 to 1"));
  cmd->add_option("--seed", a->o.seed, "Random seed (default 1)")
      ->check(seed_check());
  cmd->add_option("--out", a->out, "Output prefix (PREFIX.bed/.bim/.fam, PREFIX.vcz)")->required()->check(non_empty_path());
  add_enum_option(cmd, "--format", a->format, genomics::parse_simulate_format, "bed, vcz or both (default bed)",
                  CLI::IsMember(enum_names(genomics::simulate_format_name, genomics::SimulateFormat::Both)));
  cmd->add_flag("--overwrite", a->overwrite, "Replace an existing PREFIX.vcz that strata did not write (its own earlier output is replaced without it); files are always replaced");
  cmd->add_option("--variants-chunk", a->variants_chunk, "VCF Zarr chunk length along variants")
      ->check(integer_in(1, kMaxChunk, kChunkRange));
  cmd->add_option("--samples-chunk", a->samples_chunk, "VCF Zarr chunk width along samples")
      ->check(integer_in(1, kMaxChunk, kChunkRange));
  add_common_options(cmd, state);
  cmd->callback([a, &state] {
    state.run = [a, &state]() -> Status {
      if (a->o.num_pops > a->o.num_samples)
        return Status::Invalid("--pops must be at most --samples (", a->o.num_samples, "), got ", a->o.num_pops);
      STRATA_RETURN_NOT_OK(check_chunk_bytes(a->variants_chunk, a->samples_chunk));
      genomics::SimulateWriteOptions w;
      w.variants_chunk = a->variants_chunk;
      w.samples_chunk = a->samples_chunk;
      w.overwrite = a->overwrite;
      STRATA_ASSIGN_OR_RETURN(genomics::SimulateSummary s,
                              genomics::run_simulate_to_files(state.ctx(), a->o, a->out, a->format, w));
      set_report(state, s.report);
      return Status::OK();
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
