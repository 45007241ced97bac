// plink2-compatible `.afreq` and `.vmiss` writers.
#include <algorithm>
#include <cfloat>
#include <charconv>
#include <string_view>
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

// Writes the tables into the open writers given (either may be absent).
Status write_tables(TextWriter* afreq_file, TextWriter* vmiss_file, const io::GenotypeView& view, const FreqTable& table) {
  FreqOptions options;
  options.afreq = afreq_file != nullptr;
  options.vmiss = vmiss_file != nullptr;
  TextWriter& afreq = *(afreq_file ? afreq_file : vmiss_file);
  TextWriter& vmiss = *(vmiss_file ? vmiss_file : afreq_file);
  if (options.afreq) afreq.put("#CHROM\tID\tREF\tALT\tALT_FREQS\tOBS_CT\n");
  if (options.vmiss) vmiss.put("#CHROM\tID\tMISSING_CT\tOBS_CT\tF_MISS\n");
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
      if (options.vmiss) append_vmiss_line(b, chrom, id, c);
    }
    if (options.afreq) STRATA_RETURN_NOT_OK(afreq.write(a));
    if (options.vmiss) STRATA_RETURN_NOT_OK(vmiss.write(b));
  }
  if (options.afreq) STRATA_RETURN_NOT_OK(afreq.close());
  if (options.vmiss) STRATA_RETURN_NOT_OK(vmiss.close());
  return Status::OK();
}

Status write_into(OutputSet& out, const io::GenotypeView& view, const FreqTable& table, const std::string& prefix,
                  const FreqOptions& options) {
  TextWriter afreq, vmiss;
  if (options.afreq) {
    STRATA_ASSIGN_OR_RETURN(afreq, open_staged(out, prefix + ".afreq"));
  }
  if (options.vmiss) {
    STRATA_ASSIGN_OR_RETURN(vmiss, open_staged(out, prefix + ".vmiss"));
  }
  return write_tables(options.afreq ? &afreq : nullptr, options.vmiss ? &vmiss : nullptr, view, table);
}

}  // namespace

Status write_afreq_file(const io::GenotypeView& view, const std::vector<AlleleCounts>& alleles,
                        const std::string& staged, const std::string& path) {
  if (static_cast<int64_t>(alleles.size()) != view.num_variants())
    return Status::Invalid("afreq: ", alleles.size(), " frequencies for ", view.num_variants(), " variants");
  FreqTable table;
  table.alleles = alleles;
  table.calls.resize(alleles.size());  // read beside the frequencies, written only to .vmiss
  STRATA_ASSIGN_OR_RETURN(TextWriter w, TextWriter::open(staged, path));
  return write_tables(&w, nullptr, view, table);
}

void append_vmiss_line(std::string& out, std::string_view chrom, std::string_view id, const VariantCounts& calls) {
  out += chrom; out += '\t'; out += id; out += '\t';
  out += std::to_string(calls.missing); out += '\t';
  out += std::to_string(calls.total()); out += '\t';
  out += format_plink_float(calls.missing_rate()); out += '\n';
}

namespace {
// Bound of decade k in plink2's printing: values from 9.9999950 × 10^k print as 1 × 10^(k+1).
double decade_bound(int k) { return 9.9999949999999 * std::pow(10.0, k); }
}  // namespace

namespace {
// Whether |value| lies near a rounding tie of its 6th significant digit: digits 7–13 read
// 5000000 or 4999999. plink2's tie rule (half to even within 5e-9 of the digit) can differ from
// printf's correct rounding only there; everywhere else the two print the same digits.
bool near_sixth_digit_tie(double value) {
  char buf[40];
  const auto r = std::to_chars(buf, buf + sizeof(buf), std::fabs(value), std::chars_format::scientific, 14);
  if (r.ec != std::errc() || r.ptr - buf < 15) return true;
  const std::string_view after(buf + 7, 7);  // "d.ddddd|ddddddd…": digits 7–13
  return after == "5000000" || after == "4999999";
}
}  // namespace

std::string format_plink_float(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isfinite(value) && value != 0 && !near_sixth_digit_tie(value)) {
    // printf's %.6g (plink2's format), without printf's parsing and locale.
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof(buf), value, std::chars_format::general, 6);
    return std::string(buf, r.ptr);
  }
  std::string out;
  if (value < 0) {
    out = "-";
    value = -value;
  }
  if (value == 0) return "0";
  if (value > DBL_MAX) return out + "inf";
  // Six significant digits as an integer: value = digits × 10^(e − 5).
  int e = static_cast<int>(std::floor(std::log10(value)));
  while (value >= decade_bound(e)) ++e;
  while (value < decade_bound(e - 1)) --e;
  const int shift = 5 - e;  // in two steps: 10^shift alone overflows for the smallest doubles
  const double scaled = value * std::pow(10.0, shift / 2) * std::pow(10.0, shift - shift / 2);
  // plink2 rounds half to even with a tolerance of 5e-9 of the last digit, so a decimal tie
  // that binary stores a hair below (0.4978875) rounds as the tie it is.
  auto digits = static_cast<int64_t>(scaled);
  digits += static_cast<int64_t>((scaled - double(digits)) + ((digits & 1) ? 0.500000005 : 0.499999995));
  if (digits >= 1000000) {
    digits /= 10;
    ++e;
  }
  std::string d = std::to_string(digits);
  auto trimmed = [](std::string s) {
    while (!s.empty() && s.back() == '0') s.pop_back();
    return s;
  };
  if (e < -4 || e > 5) {
    const std::string frac = trimmed(d.substr(1));
    const int x = e < 0 ? -e : e;
    out += d.substr(0, 1) + (frac.empty() ? "" : "." + frac) + (e < 0 ? "e-" : "e+") + (x < 10 ? "0" : "") +
           std::to_string(x);
  } else if (e >= 0) {
    const std::string frac = trimmed(d.substr(static_cast<size_t>(e) + 1));
    out += d.substr(0, static_cast<size_t>(e) + 1) + (frac.empty() ? "" : "." + frac);
  } else {
    out += "0." + std::string(static_cast<size_t>(-e - 1), '0') + trimmed(d);
  }
  return out;
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
  s.report = r;  // a copy: the Job logs its summary when it ends
  return s;
}

}  // namespace strata::genomics
