// strata gwas: the command — models, declared outputs, the scan of every segment, the summary.
#include <algorithm>
#include <cmath>
#include <string_view>

#include "genomics/text_writer.hpp"
#include "gwas_scan.hpp"
#include "strata/core/context.hpp"
#include "strata/core/job.hpp"
#include "strata/genomics/plot.hpp"
#include "strata/genomics/selection.hpp"
#include "strata/io/chromosome.hpp"

namespace strata::genomics {
namespace {

using gwas_detail::Columns;
using gwas_detail::Err;
using gwas_detail::kCodes;
using gwas_detail::kUnfinished;
using gwas_detail::Model;
using gwas_detail::PhenotypeTally;
using gwas_detail::Segment;

// Each phenotype's rows by ERRCODE into the summary, and a warning for the degenerate designs
// (collinear, separated, invalid, unfinished) and for Firth on most variants.
void summarize_phenotypes(const std::vector<PhenotypeTally>& tally, const GwasOptions& o, int64_t m, int64_t tested,
                          GwasRunSummary& summary) {
  for (size_t j = 0; j < tally.size(); ++j) {
    GwasPhenotypeSummary& ps = summary.phenotypes[j];
    ps.firth = tally[j].firth;
    std::string degenerate;
    for (int c = 1; c < kCodes; ++c) {
      const int64_t count = tally[j].codes[c];
      if (count == 0) continue;
      const std::string name = c == kUnfinished ? "UNFINISHED" : gwas_detail::err_text(static_cast<Err>(c));
      ps.errcodes[name] = count;
      if (c != kUnfinished) ps.errors += count;
      const Err e = static_cast<Err>(c);
      if (c == kUnfinished || e == Err::CorrTooHigh || e == Err::VifInfinite || e == Err::VifTooHigh ||
          e == Err::Separation || e == Err::RankDeficient || e == Err::LogisticConvergeFail ||
          e == Err::FirthConvergeFail || e == Err::InvalidResult)
        degenerate += (degenerate.empty() ? "" : ", ") + std::to_string(count) + " " + name;
    }
    if (!degenerate.empty())
      summary.warnings.push_back("phenotype '" + ps.name + "': " + degenerate + " of " + std::to_string(tested) +
                                 " variants (plink2's ERRCODEs: the design is collinear, separated or "
                                 "numerically degenerate there)");
    // Most variants needing Firth under --firth auto: the covariates separate the classes.
    if (ps.logistic && o.firth == FirthMode::Auto && ps.firth * 2 > m)
      summary.warnings.push_back("phenotype '" + ps.name + "': Firth regression on " + std::to_string(ps.firth) +
                                 " of " + std::to_string(tested) +
                                 " variants: the covariates (quasi-)separate cases from controls");
  }
}

// The report fields of a scan.
Summary report_of(const GwasRunSummary& s) {
  Summary r;
  r.set("samples", s.num_samples).set("variants", s.num_variants).set("covariates", s.covariates);
  r.set("warnings", s.warnings).set("linear_groups", s.groups);
  std::vector<Summary> phenos;
  for (const GwasPhenotypeSummary& p : s.phenotypes) {
    Summary codes;
    for (const auto& [name, count] : p.errcodes) codes.set(name, count);
    Summary ps;
    ps.set("name", p.name).set("model", p.logistic ? "logistic" : "linear").set("samples", p.samples);
    ps.set("cases", p.cases).set("controls", p.controls).set("firth_fits", p.firth).set("na_rows", p.errors);
    ps.set("errcodes", std::move(codes)).set("file", p.file);
    ps.set("tests", p.gc.tests).set("median_chisq", p.gc.median_chisq).set("lambda_gc", p.gc.lambda);
    if (!p.adjusted_file.empty()) ps.set("adjusted_file", p.adjusted_file);
    phenos.push_back(std::move(ps));
  }
  r.set("phenotypes", std::move(phenos));
  return r;
}

}  // namespace

Result<GwasRunSummary> run_gwas_to_files(const Context& ctx, const std::string& input, const std::string& prefix,
                                         const GwasOptions& o) {
  if (prefix.empty()) return Status::Invalid("gwas: no output prefix");
  if (o.pheno_path.empty()) return Status::Invalid("gwas: --pheno is required");
  if (o.ci < 0.0 || o.ci >= 1.0) return Status::Invalid("--ci must be in (0, 1), got ", o.ci);
  STRATA_RETURN_NOT_OK(validate_selection(o.selection));
  Job job(ctx, "gwas", input, prefix);
  PhaseTimer open = job.phase("open");
  STRATA_ASSIGN_OR_RETURN(Selection sel, open_selected_genotypes(ctx, input, o.selection));
  const io::GenotypeViewPtr view = sel.view;
  STRATA_ASSIGN_OR_RETURN(Model model, gwas_detail::build_model(ctx, view->samples(), o));
  const int64_t n = view->num_samples(), m = view->num_variants();
  gwas_detail::SegmentPlan plan;
  STRATA_RETURN_NOT_OK(gwas_detail::plan_segments(ctx, *view, o, model, plan));
  const int64_t np = static_cast<int64_t>(model.phenotypes.size());

  gwas_detail::ScanSetup setup;
  setup.options = &o;
  Columns& cols = setup.columns;
  cols.firth_col = o.firth == FirthMode::Auto;
  cols.ci = o.ci > 0.0;
  cols.z = cols.ci ? gwas_detail::normal_quantile(0.5 + o.ci / 2) : 0.0;
  cols.extra = o.columns;
  setup.plink_input = io::is_plink_path(input);
  for (const auto& c : view->contigs()) setup.contigs.push_back(io::plink_chromosome_name(c));
  setup.phenotypes = np;
  for (int64_t i = 0; i < n && !o.nonfounders; ++i)
    if (!is_founder(view->samples(), i)) setup.nonfounders.push_back(i);
  if (!setup.nonfounders.empty()) {
    setup.is_nonfounder.assign(static_cast<size_t>(n), 0);
    for (int64_t i : setup.nonfounders) setup.is_nonfounder[static_cast<size_t>(i)] = 1;
  }
  // Blocks of ~8 MiB of decoded dosages: the grid depends on the data only.
  setup.block = std::max<int64_t>(16, (int64_t{8} << 20) / (8 * std::max<int64_t>(n, 1)));

  auto file_of = [&](const gwas_detail::Phenotype& p) {
    const char* ext = !p.logistic                     ? ".glm.linear"
                      : o.firth == FirthMode::Auto   ? ".glm.logistic.hybrid"
                      : o.firth == FirthMode::Always ? ".glm.firth"
                                                     : ".glm.logistic";
    return prefix + "." + p.name + ext;
  };
  std::vector<std::string> paths(static_cast<size_t>(np));
  std::vector<detail::TextWriter> files(static_cast<size_t>(np)), adjusted(static_cast<size_t>(np));
  std::vector<AdjustTests> tests(static_cast<size_t>(np));  // each phenotype's valid tests
  GwasRunSummary summary;
  for (int64_t j = 0; j < np; ++j) {
    const auto& p = model.phenotypes[j];
    paths[j] = file_of(p);
    GwasPhenotypeSummary ps;
    ps.name = p.name;
    ps.logistic = p.logistic;
    ps.samples = p.samples;
    ps.cases = p.cases;
    ps.controls = p.controls;
    ps.file = paths[j];
    if (o.adjust.enabled) ps.adjusted_file = paths[j] + ".adjusted";
    summary.phenotypes.push_back(ps);
  }
  // Declare every output before the pass. Under MPI the ranks share the variants
  // (gwas_detail::scan_segment); rank 0 alone declares, writes and commits the outputs.
  OutputRules rules;
  rules.inputs.push_back(o.pheno_path);
  if (!o.covar_path.empty()) rules.inputs.push_back(o.covar_path);
  for (const auto& f : o.selection.files()) rules.inputs.push_back(f);
  std::vector<std::string> staged_paths(static_cast<size_t>(np));
  std::vector<GwasPlotPaths> plots(static_cast<size_t>(np));
  STRATA_RETURN_NOT_OK(job.declare(file_of(model.phenotypes[0]), std::move(rules), [&](OutputSet& out) -> Status {
    STRATA_ASSIGN_OR_RETURN(const PlotFormats plot, PlotFormats::choose(o.write_plot, o.plot_format));
    for (int64_t j = 0; j < np; ++j) {
      STRATA_RETURN_NOT_OK(declare_gwas_plots(out, prefix + "." + model.phenotypes[j].name, plot, plots[j]));
      STRATA_ASSIGN_OR_RETURN(std::string staged, out.add_file(paths[j]));
      staged_paths[j] = staged;
      STRATA_ASSIGN_OR_RETURN(files[j], detail::TextWriter::open(staged, paths[j]));
      files[j].put(gwas_detail::header(model.phenotypes[j].logistic, cols));
      if (!o.adjust.enabled) continue;
      const std::string& adj = summary.phenotypes[j].adjusted_file;
      STRATA_ASSIGN_OR_RETURN(std::string staged_adj, out.add_file(adj));
      STRATA_ASSIGN_OR_RETURN(adjusted[j], detail::TextWriter::open(staged_adj, adj));
      adjusted[j].put(adjusted_header(o.adjust));
    }
    return Status::OK();
  }));
  open.stop();

  // One pass per run of variants with the same model (one run, the whole view, for autosomes).
  std::vector<PhenotypeTally> tally(static_cast<size_t>(np));
  // Each line with a test gives its ln P (λ) and, under --adjust, its leading columns.
  const size_t a1_field = o.columns.provisional_ref ? 6 : 5;
  auto write = [&](int64_t j, const std::string& text, const std::vector<double>& ln_p) -> Status {
    AdjustTests& t = tests[j];
    size_t at = 0;
    for (double x : ln_p) {
      const size_t end = text.find('\n', at);
      if (!std::isnan(x)) {
        t.ln_p.push_back(x);
        if (o.adjust.enabled) {
          std::string_view f[7];
          size_t p0 = at;
          for (size_t k = 0; k <= a1_field; ++k) {
            const size_t tab = text.find('\t', p0);
            f[k] = std::string_view(text).substr(p0, tab - p0);
            p0 = tab + 1;
          }
          t.labels.push_back(adjust_label(o.adjust, f[0], f[1], f[2], f[3], f[4], f[a1_field]));
        }
      }
      at = end + 1;
    }
    return files[j].write(text);
  };
  int64_t tested = 0;
  {
    PhaseTimer scan = job.phase("scan");
    ProgressScope progress(ctx, "gwas", m, "variants");
    for (auto& [segment, vars] : plan.runs) {
      const int k = static_cast<int>(segment);
      if (!plan.no_model[k].empty()) {
        ctx.advance_progress(static_cast<int64_t>(vars.size()));
        continue;  // said once, below
      }
      const io::GenotypeViewPtr seg_view = plan.whole() ? view : io::make_variant_subset(view, std::move(vars));
      tested += seg_view->num_variants();
      STRATA_RETURN_NOT_OK(gwas_detail::scan_segment(ctx, setup, plan.passes[k], seg_view, write, tally));
    }
  }
  for (int k = 0; k < 4; ++k) {
    if (plan.no_model[k].empty()) continue;
    int64_t skipped = 0;
    for (const auto& [segment, vars] : plan.runs)
      if (static_cast<int>(segment) == k) skipped += static_cast<int64_t>(vars.size());
    model.warnings.push_back(str_cat(skipped, " variants on ", k == static_cast<int>(Segment::kX) ? "X" : "Y",
                                     " are not tested (", plan.no_model[k], ")"));
  }
  // λ of every phenotype; under --adjust its sorted, corrected tests after the header.
  PhaseTimer adjust_phase = job.phase(o.adjust.enabled ? "adjust" : "lambda");
  for (int64_t j = 0; j < np && job.writer(); ++j) {
    GcLambda& gc = summary.phenotypes[j].gc;
    if (!o.adjust.enabled) {
      gc = genomic_control_lambda(tests[j].ln_p);
      continue;
    }
    STRATA_RETURN_NOT_OK(write_adjusted_rows(
        o.adjust, tests[j], [&](const std::string& s) { return adjusted[j].write(s); }, &gc, &ctx.pool()));
  }
  adjust_phase.stop();
  auto close_all = [&]() -> Status {
    for (auto& f : files) STRATA_RETURN_NOT_OK(f.close());
    if (o.adjust.enabled)
      for (auto& f : adjusted) STRATA_RETURN_NOT_OK(f.close());
    for (int64_t j = 0; j < np; ++j)
      STRATA_RETURN_NOT_OK(write_gwas_plots(staged_paths[j], model.phenotypes[j].name, plots[j]));
    return Status::OK();
  };
  STRATA_RETURN_NOT_OK(job.commit(job.writer() ? close_all() : Status::OK()));
  summary.num_samples = n;
  summary.num_variants = tested;
  summary.selection = sel.report;
  summary.covariates = model.covariates;
  summary.warnings = model.warnings;
  summarize_phenotypes(tally, o, m, tested, summary);
  summary.groups = model.linear_groups;
  if (job.writer())
    summary.files = paths;
  Summary& r = job.summary();
  r.merge(report_of(summary));
  summary.selection.add_to(r);
  summary.report = r;  // a copy: the Job logs its summary when it ends
  return summary;
}

}  // namespace strata::genomics
