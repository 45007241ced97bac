// plink2-compatible `.afreq` and `.vmiss` writers.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <memory>

#include "genomics/text_writer.hpp"
#include "strata/core/job.hpp"
#include "strata/core/output.hpp"
#include "strata/genomics/freq.hpp"
#include "strata/io/chromosome.hpp"

namespace strata::genomics {
namespace {

using detail::TextWriter;

// Stages `path` in `out` and opens it.
Result<TextWriter> open_staged(OutputSet& out, const std::string& path) {
  STRATA_ASSIGN_OR_RETURN(std::string staged, out.add_file(path));
  return TextWriter::open(staged, path);
}

Status write_into(OutputSet& out, const io::GenotypeView& view, const FreqTable& table, const std::string& prefix,
                  const FreqOptions& options) {
  TextWriter afreq, vmiss;
  if (options.afreq) {
    STRATA_ASSIGN_OR_RETURN(afreq, open_staged(out, prefix + ".afreq"));
    afreq.put("#CHROM\tID\tREF\tALT\tALT_FREQS\tOBS_CT\n");
  }
  if (options.vmiss) {
    STRATA_ASSIGN_OR_RETURN(vmiss, open_staged(out, prefix + ".vmiss"));
    vmiss.put("#CHROM\tID\tMISSING_CT\tOBS_CT\tF_MISS\n");
  }
  std::vector<std::string> contigs;
  for (const std::string& c : view.contigs()) contigs.push_back(io::plink_chromosome_name(c));
  const int64_t m = view.num_variants();
  const int64_t step = 65536;
  std::string a, b;
  for (int64_t start = 0; start < m; start += step) {
    const int64_t n = std::min(step, m - start);
    // A remote source fetches the next range's metadata while this one is formatted.
    if (start + n < m) view.prefetch_variants(start + n, std::min(step, m - start - n), int64_t{64} << 20);
    STRATA_ASSIGN_OR_RETURN(io::VariantInfo info, view.variants(start, n));
    a.clear();
    b.clear();
    for (int64_t i = 0; i < n; ++i) {
      const AlleleCounts& f = table.alleles[static_cast<size_t>(start + i)];
      const VariantCounts& c = table.calls[static_cast<size_t>(start + i)];
      const int32_t ci = info.contig[i];
      const std::string& chrom = (ci >= 0 && ci < static_cast<int32_t>(contigs.size())) ? contigs[ci] : ".";
      const std::string& id = info.id[i].empty() ? std::string(".") : info.id[i];
      if (options.afreq) {
        a += chrom; a += '\t'; a += id; a += '\t';
        a += info.ref[i].empty() ? "." : info.ref[i]; a += '\t';
        a += info.alt[i].empty() ? "." : info.alt[i]; a += '\t';
        a += format_plink_float(f.alt_freq()); a += '\t';
        a += std::to_string(f.observed_alleles); a += '\n';
      }
      if (options.vmiss) {
        b += chrom; b += '\t'; b += id; b += '\t';
        b += std::to_string(c.missing); b += '\t';
        b += std::to_string(c.total()); b += '\t';
        b += format_plink_float(c.missing_rate()); b += '\n';
      }
    }
    if (options.afreq) STRATA_RETURN_NOT_OK(afreq.write(a));
    if (options.vmiss) STRATA_RETURN_NOT_OK(vmiss.write(b));
  }
  if (options.afreq) STRATA_RETURN_NOT_OK(afreq.close());
  if (options.vmiss) STRATA_RETURN_NOT_OK(vmiss.close());
  return Status::OK();
}

}  // namespace

std::string format_plink_float(double value) {
  if (std::isnan(value)) return "nan";
  // to_chars with a precision is printf's %.6g (C locale), without printf's format parsing.
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof(buf), value, std::chars_format::general, 6);
  return std::string(buf, r.ptr);
}

namespace {

// Declares the outputs of `job`: every rank learns whether they can be written.
Status declare_outputs(Job& job, const FreqOptions& options) {
  OutputRules rules;
  rules.inputs = options.selection.files();
  return job.declare(job.prefix() + ".afreq", std::move(rules), nullptr);
}

// Under MPI rank 0 alone writes; every rank counts its part of the variants.
Status count_and_write(Job& job, const io::GenotypeViewPtr& view, const FreqOptions& options) {
  const Context& ctx = job.ctx();
  ProgressScope progress(ctx, "counting", view->num_variants(), "variants");
  STRATA_ASSIGN_OR_RETURN(FreqTable table, compute_freq_table(ctx, view));
  PhaseTimer write = job.phase("write");
  return job.commit(job.writer() ? write_into(*job.outputs(), *view, table, job.prefix(), options) : Status::OK());
}

}  // namespace

Status write_freq_files(const Context& ctx, const io::GenotypeViewPtr& view, const std::string& prefix,
                        const FreqOptions& options) {
  Job job(ctx, "freq", "", prefix);
  STRATA_RETURN_NOT_OK(declare_outputs(job, options));
  return count_and_write(job, view, options);
}

Result<FreqSummary> run_freq_to_files(const Context& ctx, const std::string& input, const std::string& prefix,
                                      const FreqOptions& options) {
  if (prefix.empty()) return Status::Invalid("freq: no output prefix");
  Job job(ctx, "freq", input, prefix);
  PhaseTimer open = job.phase("open");
  STRATA_RETURN_NOT_OK(declare_outputs(job, options));
  auto selected = open_selected_genotypes(ctx, input, options.selection, options.open);
  STRATA_RETURN_NOT_OK(job.agree(selected.status()));
  open.stop();
  FreqSummary s;
  s.num_samples = selected->view->num_samples();
  s.num_variants = selected->view->num_variants();
  s.skipped_sites = selected->view->report().skipped_sites;
  s.selection = std::move(selected->report);
  STRATA_RETURN_NOT_OK(count_and_write(job, selected->view, options));
  s.files = job.files();
  Summary& r = job.summary();
  r.set("samples", s.num_samples).set("variants", s.num_variants);
  s.selection.add_to(r);
  s.report = std::move(r);
  return s;
}

}  // namespace strata::genomics
