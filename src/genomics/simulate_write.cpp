// simulate_to_files: the simulated view written as PLINK 1 and/or VCF Zarr.
#include "strata/core/job.hpp"
#include "strata/genomics/simulate.hpp"
#include "strata/io/plink.hpp"
#include "strata/io/vcf_zarr.hpp"

namespace strata::genomics {

const char* simulate_format_name(SimulateFormat format) {
  switch (format) {
    case SimulateFormat::Bed: return "bed";
    case SimulateFormat::Vcz: return "vcz";
    case SimulateFormat::Both: return "both";
  }
  return "bed";
}

Result<SimulateFormat> parse_simulate_format(const std::string& name) {
  for (SimulateFormat f : {SimulateFormat::Bed, SimulateFormat::Vcz, SimulateFormat::Both})
    if (name == simulate_format_name(f)) return f;
  return Status::Invalid("format must be bed, vcz or both, got '", name, "'");
}

Result<SimulateSummary> run_simulate_to_files(const Context& ctx, const SimulateOptions& options,
                                              const std::string& prefix, SimulateFormat format,
                                              const SimulateWriteOptions& write) {
  STRATA_ASSIGN_OR_RETURN(auto view, make_simulated_genotypes(options));
  const bool bed = format != SimulateFormat::Vcz, vcz = format != SimulateFormat::Bed;
  const int64_t m = view->num_variants();
  // One OutputSet for every format: all outputs are checked first and appear together.
  Job job(ctx, "simulate", "", prefix);
  OutputRules rules;
  rules.overwrite = write.overwrite;
  STRATA_RETURN_NOT_OK(job.declare(prefix + ".bed", std::move(rules), [&](OutputSet& out) -> Status {
    if (bed)
      for (const char* ext : {".bed", ".bim", ".fam"}) STRATA_RETURN_NOT_OK(out.check(prefix + ext, false));
    if (vcz) STRATA_RETURN_NOT_OK(out.check(prefix + ".vcz", true));
    return Status::OK();
  }));
  auto write_all = [&]() -> Status {
    if (bed) {
      PhaseTimer phase = job.phase("write .bed");
      ProgressScope progress(ctx, "simulating .bed", m, "variants");
      io::PlinkWriteOptions po;
      po.target.output_set = job.outputs();
      STRATA_RETURN_NOT_OK(io::write_plink(ctx, *view, prefix, po));
    }
    if (vcz) {
      PhaseTimer phase = job.phase("write .vcz");
      ProgressScope progress(ctx, "simulating .vcz", m, "variants");
      io::VczWriteOptions vo;
      if (write.variants_chunk > 0) vo.variants_chunk = write.variants_chunk;
      if (write.samples_chunk > 0) vo.samples_chunk = write.samples_chunk;
      vo.output_set = job.outputs();
      for (int32_t p : simulated_populations(options)) vo.sample_population.push_back(p);
      for (int64_t k = 0; k < options.num_pops; ++k) vo.population_names.push_back("pop" + std::to_string(k));
      STRATA_RETURN_NOT_OK(io::write_vcf_zarr(ctx, *view, prefix + ".vcz", vo));
    }
    return Status::OK();
  };
  STRATA_RETURN_NOT_OK(job.commit(job.writer() ? write_all() : Status::OK()));
  SimulateSummary s;
  s.files = job.files();
  Summary& r = job.summary();
  r.set("samples", options.num_samples).set("variants", options.num_variants).set("populations", options.num_pops);
  r.set("fst", options.fst).set("missing", options.missing).set("seed", static_cast<int64_t>(options.seed));
  r.set("format", simulate_format_name(format));
  s.report = r;  // a copy: the Job logs its summary when it ends
  return s;
}

Status simulate_to_files(const Context& ctx, const SimulateOptions& options, const std::string& prefix,
                         SimulateFormat format, const SimulateWriteOptions& write) {
  return run_simulate_to_files(ctx, options, prefix, format, write).status();
}

}  // namespace strata::genomics
