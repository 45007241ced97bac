// run_qc_to_files: `.smiss`, `.vmiss`, `.het`, `.hardy` and `.hardy.x` as plink2 writes them
// (qc_tables.hpp), streamed from the one counting pass of qc_tables_count.cpp.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "genomics/qc_tables_count.hpp"
#include "genomics/relatedness_internal.hpp"
#include "genomics/text_writer.hpp"
#include "strata/core/output.hpp"
#include "strata/genomics/freq.hpp"
#include "strata/genomics/qc_tables.hpp"
#include "strata/io/chromosome.hpp"

namespace strata::genomics {

bool phenotype_value_missing(const std::string& v, bool binary) {
  return v.empty() || v == "-9" || v == "NA" || v == "na" || v == "nan" || v == "NaN" || (binary && v == "0");
}

namespace {

using detail::TextWriter;
using io::ChromosomeKind;

bool x_rows_tested(const io::SampleInfo& s) {  // plink2 tests X when some founder's sex is known
  for (int64_t i = 0; i < s.size(); ++i)
    if (i < static_cast<int64_t>(s.sex.size()) && s.sex[static_cast<size_t>(i)] != 0 && is_founder(s, i)) return true;
  return false;
}

// What the tables cover, from the chromosome of each variant (known before the pass).
struct Plan {
  std::vector<ChromosomeKind> kind;
  int64_t y = 0, x = 0, het = 0, hardy = 0, hardy_x = 0, founders = 0;
  bool test_x = false;
};

Result<Plan> plan_tables(const io::GenotypeView& view, const std::string& input, const QcOptions& o) {
  Plan p;
  const int64_t m = view.num_variants();
  p.kind.assign(static_cast<size_t>(m), ChromosomeKind::kAutosome);
  if (io::has_haploid_contig(view)) {
    STRATA_ASSIGN_OR_RETURN(p.kind, io::variant_chromosome_kinds(view));
  }
  p.test_x = x_rows_tested(view.samples());
  for (ChromosomeKind k : p.kind) {
    p.y += k == ChromosomeKind::kY;
    p.x += k == ChromosomeKind::kX;
    p.het += !io::is_haploid_somewhere(k);
    p.hardy += !io::is_haploid_somewhere(k);
    p.hardy_x += k == ChromosomeKind::kX && p.test_x;
  }
  for (int64_t i = 0; i < view.num_samples(); ++i) p.founders += is_founder(view.samples(), i);
  if (o.het && p.het == 0)
    return Status::InvalidData(input, ": qc --het needs a variant outside X, Y and MT (plink2 skips those); none of ",
                               m, " is");
  if (o.het && p.founders < kMinFreqFounders && !o.bad_freqs)
    return Status::InvalidData(input, ": qc --het estimates allele frequencies from the founders and there are ",
                               p.founders, " (fewer than ", kMinFreqFounders,
                               "); pass --bad-freqs to compute them anyway, as plink2 --bad-freqs does");
  if (o.check_sex && p.x == 0)
    return Status::InvalidData(input, ": qc --check-sex needs X chromosome variants (X, 23 or chrX; XY/PAR "
                               "does not count) and none of ", m, " is on X");
  if (o.hardy && p.hardy == 0 && p.hardy_x == 0)
    return Status::InvalidData(input, ": qc --hardy needs a diploid variant (Y and MT are skipped",
                               p.test_x ? "" : "; X needs a founder of known sex", "); none of ", m, " is");
  return p;
}

std::string ref_or_dot(const std::string& s) { return s.empty() ? "." : s; }
std::string count_text(int64_t v) { return std::to_string(v); }

void append_hardy(std::string& b, const VariantCounts& f) {
  b += count_text(f.hom_ref) + '\t' + count_text(f.het) + '\t' + count_text(f.hom_alt) + '\t';
  const int64_t n = f.observed();
  const double recip = 1.0 / double(n);
  b += format_plink_float(double(f.het) * recip) + '\t';
  if (f.hom_ref == n) {
    b += '0';  // plink2 prints 0 here rather than risk 1 − 1 rounding
  } else {
    const double twice_p = double(2 * f.hom_ref + f.het) * recip;
    b += format_plink_float(twice_p * (1.0 - twice_p * 0.5));
  }
  b += '\t' + format_plink_float(hwe_exact_p(f.het, f.hom_ref, f.hom_alt)) + '\n';
}

void append_hardy_x(std::string& b, const VariantCounts& f, const VariantCounts& m) {
  b += count_text(f.hom_ref) + '\t' + count_text(f.het) + '\t' + count_text(f.hom_alt) + '\t' +
       count_text(m.hom_ref) + '\t' + count_text(m.hom_alt) + '\t';
  const int64_t n = f.observed();
  const double recip = 1.0 / double(n);
  const double twice_p = double(2 * f.hom_ref + f.het) * recip;
  b += format_plink_float(double(f.het) * recip) + '\t';
  b += f.hom_ref == n ? std::string("0") : format_plink_float(twice_p * (1.0 - 0.5 * twice_p));
  b += '\t' + format_plink_float(twice_p * 0.5) + '\t';
  b += format_plink_float(double(m.hom_ref) / double(m.hom_ref + m.hom_alt)) + '\t';
  b += format_plink_float(hwe_xchr_exact_p(f.het, f.hom_ref, f.hom_alt, m.hom_ref, m.hom_alt)) + '\n';
}

// The per-variant tables: rank 0 streams its rows into the files; under MPI the other ranks
// hold the text of their rows (their contiguous part of the variants) until rank 0 gathers it
// after the pass (append_ranks).
struct VariantWriters {
  const io::GenotypeView* view = nullptr;
  const Plan* plan = nullptr;
  std::vector<std::string> contigs;
  TextWriter vmiss, hardy, hardy_x;
  bool write_vmiss = false, write_hardy = false, write_hardy_x = false;
  bool writer = true;
  std::string held[3];  // a rank other than 0: its .vmiss, .hardy and .hardy.x lines

  Status rows(const detail::QcVariantRows& r) {
    const auto n = static_cast<int64_t>(r.calls.size());
    STRATA_ASSIGN_OR_RETURN(io::VariantInfo info, view->variants(r.start, n));
    std::string local[3];
    std::string &a = writer ? local[0] : held[0], &b = writer ? local[1] : held[1], &c = writer ? local[2] : held[2];
    for (int64_t i = 0; i < n; ++i) {
      const auto k = static_cast<size_t>(i);
      const ChromosomeKind kind = plan->kind[static_cast<size_t>(r.start + i)];
      const int32_t ci = info.contig[k];
      const std::string& chrom = (ci >= 0 && ci < static_cast<int32_t>(contigs.size())) ? contigs[static_cast<size_t>(ci)] : ".";
      const std::string id = ref_or_dot(info.id[k]);
      if (write_vmiss) append_vmiss_line(a, chrom, id, r.calls[k]);
      const std::string alleles = id + '\t' + ref_or_dot(info.ref[k]) + '\t' + ref_or_dot(info.alt[k]) + '\t';
      if (write_hardy && !io::is_haploid_somewhere(kind)) {
        b += chrom + '\t' + alleles;
        append_hardy(b, r.founders[k]);
      }
      if (write_hardy_x && kind == ChromosomeKind::kX) {
        c += chrom + '\t' + alleles;
        append_hardy_x(c, r.founders[k], r.male_founders[k]);
      }
    }
    return writer ? write(a, b, c) : Status::OK();
  }

  Status write(const std::string& a, const std::string& b, const std::string& c) {
    if (write_vmiss) STRATA_RETURN_NOT_OK(vmiss.write(a));
    if (write_hardy) STRATA_RETURN_NOT_OK(hardy.write(b));
    if (write_hardy_x) STRATA_RETURN_NOT_OK(hardy_x.write(c));
    return Status::OK();
  }

  // Collective, after the pass: every other rank's lines, in rank order, after rank 0's.
  Status append_ranks(const Communicator& comm) {
    std::string mine;
    for (const std::string& h : held) mine += std::to_string(h.size()) + ' ';
    mine += '\n';
    for (std::string& h : held) {
      mine += h;
      std::string().swap(h);
    }
    std::vector<std::string> parts;
    STRATA_RETURN_NOT_OK(comm.gather(mine, &parts));
    for (size_t r = 1; r < parts.size(); ++r) {
      const std::string& p = parts[r];
      size_t at = p.find('\n'), len[3] = {};
      if (at == std::string::npos || std::sscanf(p.c_str(), "%zu %zu %zu", &len[0], &len[1], &len[2]) != 3 ||
          at + 1 + len[0] + len[1] + len[2] != p.size())
        return Status::CommError("qc: rank ", r, "'s table lines arrived malformed (", p.size(), " bytes)");
      ++at;
      const std::string a = p.substr(at, len[0]), b = p.substr(at + len[0], len[1]), c = p.substr(at + len[0] + len[1]);
      STRATA_RETURN_NOT_OK(write(a, b, c));
    }
    return Status::OK();
  }
};

Result<TextWriter> open_staged(OutputSet& out, const std::string& path, const char* header) {
  STRATA_ASSIGN_OR_RETURN(std::string staged, out.add_file(path));
  STRATA_ASSIGN_OR_RETURN(TextWriter w, TextWriter::open(staged, path));
  w.put(header);
  return w;
}

// `.smiss` and `.het`, from the per-sample totals.
Status write_sample_tables(OutputSet& out, const io::GenotypeView& view, const Plan& plan, const detail::QcSampleTotals& t,
                           const QcOptions& o, const std::string& prefix) {
  const int64_t n = view.num_samples(), m = view.num_variants();
  const io::SampleInfo& s = view.samples();
  const auto ids = detail::SampleIds::of(s, n);
  const std::string id_header = ids.has_fid ? "#FID\tIID" : "#IID";
  if (o.missing) {
    bool binary = true, any = false;
    for (const std::string& v : s.phenotype) {
      if (!phenotype_value_missing(v, false) && v != "0" && v != "1" && v != "2") binary = false;
    }
    for (const std::string& v : s.phenotype) any = any || !phenotype_value_missing(v, binary);
    const bool pheno = any && static_cast<int64_t>(s.phenotype.size()) == n;
    STRATA_ASSIGN_OR_RETURN(TextWriter w, open_staged(out, prefix + ".smiss",
                                                      (id_header + (pheno ? "\tPHENO1" : "") + "\tMISSING_CT\tOBS_CT\tF_MISS\n").c_str()));
    std::string b;
    for (int64_t i = 0; i < n; ++i) {
      const auto k = static_cast<size_t>(i);
      const bool male = k < s.sex.size() && s.sex[k] == 1;
      const int64_t obs = male ? m : m - plan.y;
      b += ids.columns(i);
      if (pheno) b += phenotype_value_missing(s.phenotype[k], binary) ? "\tY" : "\tN";
      b += '\t' + count_text(t.missing[k]) + '\t' + count_text(obs) + '\t' +
           format_plink_float(double(t.missing[k]) / double(obs)) + '\n';
      STRATA_RETURN_NOT_OK(w.write(b));
      b.clear();
    }
    STRATA_RETURN_NOT_OK(w.close());
  }
  if (o.het) {
    STRATA_ASSIGN_OR_RETURN(TextWriter w, open_staged(out, prefix + ".het", (id_header + "\tO(HOM)\tE(HOM)\tOBS_CT\tF\n").c_str()));
    std::string b;
    for (int64_t i = 0; i < n; ++i) {
      const auto k = static_cast<size_t>(i);
      const int64_t nobs = t.het_variants - t.het_missing[k], ohet = t.het_calls[k];
      const double ehet = static_cast<double>(t.het_expected_all - t.het_expected_missing[k]) / detail::kFixedScale;
      b += ids.columns(i) + '\t' + count_text(nobs - ohet) + '\t' + format_plink_float(double(nobs) - ehet) + '\t' +
           count_text(nobs) + '\t' + format_plink_float(1.0 - double(ohet) / ehet) + '\n';
      STRATA_RETURN_NOT_OK(w.write(b));
      b.clear();
    }
    STRATA_RETURN_NOT_OK(w.close());
  }
  return Status::OK();
}

// `.sexcheck`, once the pass found polymorphic X variants (PLINK 1.9 refuses otherwise).
Status write_sexcheck(OutputSet& out, const io::GenotypeView& view, const detail::QcSampleTotals& t, const QcOptions& o,
                      const std::string& prefix, const std::string& input, QcSummary& s) {
  if (t.x_variants == 0)
    return Status::InvalidData(input, ": qc --check-sex needs a polymorphic X variant; every X variant is "
                               "monomorphic or uncalled");
  const std::string path = prefix + ".sexcheck";
  STRATA_ASSIGN_OR_RETURN(std::string staged, out.add_file(path));
  STRATA_ASSIGN_OR_RETURN(detail::SexCheckCounts c, detail::write_sexcheck(staged, path, view.samples(),
                                                                           view.num_samples(), t, o.max_female_xf,
                                                                           o.min_male_xf));
  s.sexcheck_x_variants = t.x_variants;
  s.sexcheck_problems = c.problems;
  return Status::OK();
}

}  // namespace

Result<QcSummary> run_qc_to_files(const Context& ctx, const std::string& input, const std::string& prefix,
                                  const QcOptions& o) {
  if (prefix.empty()) return Status::Invalid("qc: no output prefix");
  if (!o.missing && !o.het && !o.hardy && !o.check_sex)
    return Status::Invalid("qc: nothing to do (ask for --missing, --het, --hardy or --check-sex)");
  if (o.check_sex && !(o.max_female_xf <= o.min_male_xf))
    return Status::Invalid("qc --check-sex: max-female-xf (", o.max_female_xf, ") must not exceed min-male-xf (",
                           o.min_male_xf, ")");
  Job job(ctx, "qc", input, prefix);
  PhaseTimer open = job.phase("open");
  OutputRules rules;
  rules.inputs = o.selection.files();
  const std::string first = prefix + (o.missing ? ".smiss" : o.het ? ".het" : o.hardy ? ".hardy" : ".sexcheck");
  STRATA_RETURN_NOT_OK(job.declare(first, std::move(rules), nullptr));
  auto selected = open_selected_genotypes(ctx, input, o.selection, o.open);
  STRATA_RETURN_NOT_OK(job.agree(selected.status()));
  const io::GenotypeViewPtr view = selected->view;
  auto planned = plan_tables(*view, input, o);
  STRATA_RETURN_NOT_OK(job.agree(planned.status()));
  const Plan& plan = *planned;
  open.stop();

  QcSummary s;
  s.num_samples = view->num_samples();
  s.num_variants = view->num_variants();
  s.skipped_sites = view->report().skipped_sites;
  s.selection = std::move(selected->report);
  s.het_variants = 0;
  s.hardy_variants = o.hardy ? plan.hardy : 0;
  s.hardy_x_variants = o.hardy ? plan.hardy_x : 0;

  VariantWriters vw;
  vw.view = view.get();
  vw.plan = &plan;
  for (const std::string& c : view->contigs()) vw.contigs.push_back(io::plink_chromosome_name(c));
  const bool writer = job.writer();
  vw.writer = writer;
  vw.write_vmiss = o.missing;
  vw.write_hardy = o.hardy && plan.hardy > 0;
  vw.write_hardy_x = o.hardy && plan.hardy_x > 0;
  auto open_writers = [&]() -> Status {
    OutputSet& out = *job.outputs();
    if (vw.write_vmiss) {
      STRATA_ASSIGN_OR_RETURN(vw.vmiss, open_staged(out, prefix + ".vmiss", "#CHROM\tID\tMISSING_CT\tOBS_CT\tF_MISS\n"));
    }
    if (vw.write_hardy) {
      STRATA_ASSIGN_OR_RETURN(vw.hardy, open_staged(out, prefix + ".hardy",
                                                    "#CHROM\tID\tA1\tAX\tHOM_A1_CT\tHET_A1_CT\tTWO_AX_CT\tO(HET_A1)\tE(HET_A1)\tP\n"));
    }
    if (vw.write_hardy_x) {
      STRATA_ASSIGN_OR_RETURN(vw.hardy_x, open_staged(out, prefix + ".hardy.x",
                                                      "#CHROM\tID\tA1\tAX\tFEMALE_HOM_A1_CT\tFEMALE_HET_A1_CT\tFEMALE_TWO_AX_CT\t"
                                                      "MALE_A1_CT\tMALE_AX_CT\tO(FEMALE_HET_A1)\tE(FEMALE_HET_A1)\t"
                                                      "FEMALE_A1_FREQ\tMALE_A1_FREQ\tP\n"));
    }
    return Status::OK();
  };
  STRATA_RETURN_NOT_OK(job.agree(writer ? open_writers() : Status::OK()));

  detail::QcPassOptions po;
  po.samples = o.missing;
  po.het = o.het;
  po.sex = o.check_sex;
  Status written;
  {
    PhaseTimer count = job.phase("count");
    ProgressScope progress(ctx, "counting", view->num_variants(), "variants");
    auto totals = detail::run_qc_pass(ctx, *view, plan.kind, po, [&](const detail::QcVariantRows& r) { return vw.rows(r); });
    written = totals.status();
    if (written.ok() && ctx.communicator().size() > 1) written = vw.append_ranks(ctx.communicator());
    if (written.ok()) {
      s.het_variants = o.het ? totals->het_variants : 0;
      PhaseTimer write = job.phase("write");
      if (writer) {
        written = write_sample_tables(*job.outputs(), *view, plan, *totals, o, prefix);
        if (written.ok() && vw.write_vmiss) written = vw.vmiss.close();
        if (written.ok() && vw.write_hardy) written = vw.hardy.close();
        if (written.ok() && vw.write_hardy_x) written = vw.hardy_x.close();
        if (written.ok() && o.check_sex) written = write_sexcheck(*job.outputs(), *view, *totals, o, prefix, input, s);
      }
    }
  }
  STRATA_RETURN_NOT_OK(job.commit(written));
  s.files = job.files();
  Summary& r = job.summary();
  r.set("samples", s.num_samples).set("variants", s.num_variants);
  if (o.het) r.set("het_variants", s.het_variants);
  if (o.hardy) r.set("hardy_variants", s.hardy_variants).set("hardy_x_variants", s.hardy_x_variants);
  if (o.check_sex) r.set("sexcheck_x_variants", s.sexcheck_x_variants).set("sexcheck_problems", s.sexcheck_problems);
  s.selection.add_to(r);
  s.report = r;  // a copy: the Job logs its summary when it ends
  return s;
}

}  // namespace strata::genomics
