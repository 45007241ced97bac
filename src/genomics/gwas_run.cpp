// strata gwas: the run — models, the scan of every segment (or a distributed run's shares of
// rows), the rows kept in memory and/or formatted into the declared files, the summary.
#include <algorithm>
#include <cmath>
#include <optional>
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

// A share's block as the scan delivers it: its tallies from its rows (ERRCODE less a
// separation's allele; Firth fits) and, for files, its lines.
gwas_detail::ScanBlock share_block(const gwas_detail::ScanSetup& setup, GwasRows rows) {
  gwas_detail::ScanBlock b;
  const int64_t np = setup.phenotypes;
  b.errors.assign(static_cast<size_t>(np * kCodes), 0);
  b.firth.assign(static_cast<size_t>(np), 0);
  for (int64_t j = 0; j < np; ++j) {
    const GwasStats& st = rows.phenotypes[j];
    for (size_t r = 0; r < st.errcode.size(); ++r) {
      b.firth[j] += st.firth[r] != 0;
      const std::string& e = st.errcode[r];
      if (e == ".") continue;
      if (e == "UNFINISHED") {
        ++b.errors[j * kCodes + kUnfinished];
        continue;
      }
      const std::string code = e.substr(0, e.find(','));
      for (int c = 1; c < kUnfinished; ++c)
        if (code == gwas_detail::err_text(static_cast<Err>(c))) ++b.errors[j * kCodes + c];
    }
  }
  if (setup.text) {
    b.text.resize(static_cast<size_t>(np));
    for (int64_t j = 0; j < np; ++j) b.text[j] = gwas_detail::format_rows(setup, rows, j);
  }
  b.rows = std::move(rows);
  return b;
}

// The files of a run: declared before the scan (nothing is written on error), fed each block's
// lines in variant order, λ and --adjust from their tests, committed at the end.
class GwasFiles {
 public:
  GwasFiles(Job& job, const std::string& prefix, const GwasOptions& o, const Model& model,
            const gwas_detail::ScanSetup& setup)
      : job_(job), prefix_(prefix), o_(o), model_(model), setup_(setup) {}

  // Names every phenotype's file in `summary` and stages the outputs.
  Status declare(GwasRunSummary& summary) {
    const int64_t np = static_cast<int64_t>(model_.phenotypes.size());
    paths_.resize(static_cast<size_t>(np));
    files_.resize(static_cast<size_t>(np));
    adjusted_.resize(static_cast<size_t>(np));
    tests_.resize(static_cast<size_t>(np));
    staged_.resize(static_cast<size_t>(np));
    plots_.resize(static_cast<size_t>(np));
    for (int64_t j = 0; j < np; ++j) {
      paths_[j] = file_of(model_.phenotypes[j]);
      summary.phenotypes[j].file = paths_[j];
      if (o_.adjust.enabled) summary.phenotypes[j].adjusted_file = paths_[j] + ".adjusted";
    }
    // Under MPI the ranks share the variants (gwas_detail::scan_segment); rank 0 alone
    // declares, writes and commits the outputs.
    OutputRules rules;
    if (!o_.pheno_table) rules.inputs.push_back(o_.pheno_path);
    if (!o_.covar_table && !o_.covar_path.empty()) rules.inputs.push_back(o_.covar_path);
    for (const auto& f : o_.selection.files()) rules.inputs.push_back(f);
    return job_.declare(paths_[0], std::move(rules), [&](OutputSet& out) -> Status {
      STRATA_ASSIGN_OR_RETURN(const PlotFormats plot, PlotFormats::choose(o_.write_plot, o_.plot_format));
      for (int64_t j = 0; j < np; ++j) {
        STRATA_RETURN_NOT_OK(declare_gwas_plots(out, prefix_ + "." + model_.phenotypes[j].name, plot, plots_[j]));
        STRATA_ASSIGN_OR_RETURN(staged_[j], out.add_file(paths_[j]));
        STRATA_ASSIGN_OR_RETURN(files_[j], detail::TextWriter::open(staged_[j], paths_[j]));
        files_[j].put(gwas_detail::header(model_.phenotypes[j].logistic, setup_.columns));
        if (!o_.adjust.enabled) continue;
        const std::string& adj = summary.phenotypes[j].adjusted_file;
        STRATA_ASSIGN_OR_RETURN(std::string staged_adj, out.add_file(adj));
        STRATA_ASSIGN_OR_RETURN(adjusted_[j], detail::TextWriter::open(staged_adj, adj));
        adjusted_[j].put(adjusted_header(o_.adjust));
      }
      return Status::OK();
    });
  }

  // A block's lines; each row with a test gives its ln P (λ) and, under --adjust, its label.
  Status put(const gwas_detail::ScanBlock& b) {
    const GwasVariants& v = b.rows.variants;
    for (size_t j = 0; j < files_.size(); ++j) {
      const GwasStats& st = b.rows.phenotypes[j];
      AdjustTests& t = tests_[j];
      for (int64_t r = 0; r < v.size(); ++r) {
        if (std::isnan(st.ln_p[r])) continue;
        t.ln_p.push_back(st.ln_p[r]);
        if (o_.adjust.enabled)
          t.labels.push_back(adjust_label(o_.adjust, v.chrom[r], std::to_string(v.pos[r]), v.id[r], v.ref[r],
                                          v.alt[r], v.a1[r]));
      }
      STRATA_RETURN_NOT_OK(files_[j].write(b.text[j]));
    }
    return Status::OK();
  }

  // λ of every phenotype (under --adjust with its sorted, corrected tests), then the commit.
  Status finish(const Context& ctx, GwasRunSummary& summary) {
    PhaseTimer adjust_phase = job_.phase(o_.adjust.enabled ? "adjust" : "lambda");
    for (size_t j = 0; j < files_.size() && job_.writer(); ++j) {
      GcLambda& gc = summary.phenotypes[j].gc;
      if (!o_.adjust.enabled) {
        gc = genomic_control_lambda(tests_[j].ln_p);
        continue;
      }
      STRATA_RETURN_NOT_OK(write_adjusted_rows(
          o_.adjust, tests_[j], [&](const std::string& s) { return adjusted_[j].write(s); }, &gc, &ctx.pool()));
    }
    adjust_phase.stop();
    auto close_all = [&]() -> Status {
      for (auto& f : files_) STRATA_RETURN_NOT_OK(f.close());
      if (o_.adjust.enabled)
        for (auto& f : adjusted_) STRATA_RETURN_NOT_OK(f.close());
      for (size_t j = 0; j < files_.size(); ++j)
        STRATA_RETURN_NOT_OK(write_gwas_plots(staged_[j], model_.phenotypes[j].name, plots_[j]));
      return Status::OK();
    };
    STRATA_RETURN_NOT_OK(job_.commit(job_.writer() ? close_all() : Status::OK()));
    if (job_.writer()) summary.files = paths_;
    return Status::OK();
  }

 private:
  std::string file_of(const gwas_detail::Phenotype& p) const {
    const char* ext = !p.logistic                      ? ".glm.linear"
                      : o_.firth == FirthMode::Auto   ? ".glm.logistic.hybrid"
                      : o_.firth == FirthMode::Always ? ".glm.firth"
                                                      : ".glm.logistic";
    return prefix_ + "." + p.name + ext;
  }

  Job& job_;
  const std::string& prefix_;
  const GwasOptions& o_;
  const Model& model_;
  const gwas_detail::ScanSetup& setup_;
  std::vector<std::string> paths_, staged_;
  std::vector<detail::TextWriter> files_, adjusted_;
  std::vector<AdjustTests> tests_;  // each phenotype's valid tests
  std::vector<GwasPlotPaths> plots_;
};

// The run of `sel` (the selected input, named `input`): with a prefix into files, with
// `keep_rows` into memory; `shares` (a distributed run's rows, in variant order) stand in for
// the scan.
Result<GwasResult> run(const Context& ctx, Selection sel, std::optional<Job>& job, std::optional<PhaseTimer>& open,
                       bool plink_input, const GwasOptions& o, const std::string& prefix, bool keep_rows,
                       const std::vector<GwasRows>* shares) {
  io::GenotypeViewPtr view = sel.view;
  gwas_detail::ModelScope scope;
  scope.table_rows = &sel.samples;
  STRATA_ASSIGN_OR_RETURN(Model model, gwas_detail::build_model(ctx, view->samples(), o, scope));
  const int64_t n = view->num_samples();
  if (o.variant_begin < 0 || (o.variant_end >= 0 && o.variant_end < o.variant_begin) ||
      o.variant_end > view->num_variants())
    return Status::Invalid("gwas: variants [", o.variant_begin, ", ", o.variant_end, ") are not a range of the ",
                           view->num_variants(), " selected variants");
  if (o.variant_begin > 0 || (o.variant_end >= 0 && o.variant_end < view->num_variants())) {
    std::vector<int64_t> kept;
    for (int64_t v = o.variant_begin; v < (o.variant_end < 0 ? view->num_variants() : o.variant_end); ++v)
      kept.push_back(v);
    view = io::make_variant_subset(view, std::move(kept));
  }
  const int64_t m = view->num_variants();
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
  setup.plink_input = plink_input;
  for (const auto& c : view->contigs()) setup.contigs.push_back(io::plink_chromosome_name(c));
  setup.phenotypes = np;
  for (const auto& p : model.phenotypes) setup.logistic.push_back(p.logistic ? 1 : 0);
  setup.text = job.has_value();
  for (int64_t i = 0; i < n && !o.nonfounders; ++i)
    if (!is_founder(view->samples(), i)) setup.nonfounders.push_back(i);
  if (!setup.nonfounders.empty()) {
    setup.is_nonfounder.assign(static_cast<size_t>(n), 0);
    for (int64_t i : setup.nonfounders) setup.is_nonfounder[static_cast<size_t>(i)] = 1;
  }
  setup.block = gwas_block_variants(n);

  GwasResult result;
  GwasRunSummary& summary = result.summary;
  for (const auto& p : model.phenotypes) {
    GwasPhenotypeSummary ps;
    ps.name = p.name;
    ps.logistic = p.logistic;
    ps.samples = p.samples;
    ps.cases = p.cases;
    ps.controls = p.controls;
    summary.phenotypes.push_back(ps);
    result.rows.phenotypes.emplace_back();
  }
  std::optional<GwasFiles> files;
  if (job) {
    files.emplace(*job, prefix, o, model, setup);
    STRATA_RETURN_NOT_OK(files->declare(summary));
  }
  open.reset();

  // One pass per run of variants with the same model (one run, the whole view, for autosomes).
  std::vector<PhenotypeTally> tally(static_cast<size_t>(np));
  auto write = [&](gwas_detail::ScanBlock& b) -> Status {
    if (files) STRATA_RETURN_NOT_OK(files->put(b));
    if (keep_rows) result.rows.append(std::move(b.rows));
    return Status::OK();
  };
  int64_t tested = 0;
  {
    std::optional<PhaseTimer> scan(std::in_place, ctx, "scan");
    ProgressScope progress(ctx, "gwas", m, "variants");
    for (auto& [segment, vars] : plan.runs) {
      const int k = static_cast<int>(segment);
      if (!plan.no_model[k].empty()) {
        ctx.advance_progress(static_cast<int64_t>(vars.size()));
        continue;  // said once, below
      }
      if (shares) continue;
      const io::GenotypeViewPtr seg_view = plan.whole() ? view : io::make_variant_subset(view, std::move(vars));
      tested += seg_view->num_variants();
      STRATA_RETURN_NOT_OK(gwas_detail::scan_segment(ctx, setup, plan.passes[k], seg_view, write, tally));
    }
    for (const GwasRows& share : shares ? *shares : std::vector<GwasRows>{}) {
      if (share.phenotypes.size() != static_cast<size_t>(np))
        return Status::Invalid("gwas: a share has ", share.phenotypes.size(), " phenotypes, the run ", np);
      tested += share.variants.size();
      ctx.advance_progress(share.variants.size());
      gwas_detail::ScanBlock b = share_block(setup, share);
      for (int64_t j = 0; j < np; ++j) {
        for (int c = 0; c < kCodes; ++c) tally[j].codes[c] += b.errors[j * kCodes + c];
        tally[j].firth += b.firth[j];
      }
      STRATA_RETURN_NOT_OK(write(b));
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
  if (files) {
    STRATA_RETURN_NOT_OK(files->finish(ctx, summary));
  } else {
    PhaseTimer lambda(ctx, "lambda");
    for (int64_t j = 0; j < np; ++j) summary.phenotypes[j].gc = genomic_control_lambda(result.rows.phenotypes[j].ln_p);
  }
  summary.num_samples = n;
  summary.num_variants = tested;
  summary.selection = sel.report;
  summary.covariates = model.covariates;
  summary.warnings = model.warnings;
  summarize_phenotypes(tally, o, std::max(m, tested), tested, summary);  // m: 1 for a share run's stand-in view
  summary.groups = model.linear_groups;
  Summary r = report_of(summary);
  summary.selection.add_to(r);
  if (job) {
    job->summary().merge(r);
    r = job->summary();  // a copy: the Job logs its summary when it ends
  }
  summary.report = r;
  return result;
}

Status check_options(const GwasOptions& o) {
  if (o.pheno_path.empty() && !o.pheno_table) return Status::Invalid("gwas: --pheno is required");
  if (o.ci < 0.0 || o.ci >= 1.0) return Status::Invalid("--ci must be in (0, 1), got ", o.ci);
  return validate_selection(o.selection);
}

}  // namespace

void GwasRows::append(GwasRows&& more) {
  if (variants.size() == 0 && phenotypes.empty()) {
    *this = std::move(more);
    return;
  }
  auto cat = [](auto& to, auto& from) { to.insert(to.end(), std::make_move_iterator(from.begin()),
                                                  std::make_move_iterator(from.end())); };
  GwasVariants& v = variants;
  GwasVariants& w = more.variants;
  cat(v.chrom, w.chrom), cat(v.id, w.id), cat(v.ref, w.ref), cat(v.alt, w.alt), cat(v.pos, w.pos);
  cat(v.a1, w.a1), cat(v.omitted, w.omitted);
  for (size_t j = 0; j < phenotypes.size() && j < more.phenotypes.size(); ++j) {
    GwasStats& a = phenotypes[j];
    GwasStats& b = more.phenotypes[j];
    cat(a.obs, b.obs), cat(a.a1_freq, b.a1_freq), cat(a.firth, b.firth), cat(a.beta, b.beta), cat(a.se, b.se);
    cat(a.l95, b.l95), cat(a.u95, b.u95), cat(a.stat, b.stat), cat(a.p, b.p), cat(a.ln_p, b.ln_p);
    cat(a.errcode, b.errcode);
  }
}

int64_t gwas_block_variants(int64_t num_samples) {
  // Blocks of ~8 MiB of decoded dosages: the grid depends on the data only.
  return std::max<int64_t>(16, (int64_t{8} << 20) / (8 * std::max<int64_t>(num_samples, 1)));
}

namespace {

// The run of `input`, or of `view` when given.
Result<GwasResult> open_and_run(const Context& ctx, const std::string& input, const io::GenotypeViewPtr& view,
                                const GwasOptions& o, const std::string& prefix, bool keep_rows,
                                const std::vector<GwasRows>* shares) {
  STRATA_RETURN_NOT_OK(check_options(o));
  std::optional<Job> job;
  if (!prefix.empty()) job.emplace(ctx, "gwas", input, prefix);
  std::optional<PhaseTimer> open(std::in_place, ctx, "open");
  Result<Selection> sel = view ? select_genotypes(ctx, view, o.selection) : open_selected_genotypes(ctx, input, o.selection);
  if (!sel.ok()) return sel.status();
  return run(ctx, std::move(sel).value(), job, open, !view && io::is_plink_path(input), o, prefix, keep_rows, shares);
}

}  // namespace

Result<GwasRunSummary> run_gwas_to_files(const Context& ctx, const std::string& input, const std::string& prefix,
                                         const GwasOptions& o) {
  if (prefix.empty()) return Status::Invalid("gwas: no output prefix");
  STRATA_ASSIGN_OR_RETURN(GwasResult r, open_and_run(ctx, input, nullptr, o, prefix, false, nullptr));
  return std::move(r.summary);
}

Result<GwasResult> run_gwas(const Context& ctx, const std::string& input, const GwasOptions& o,
                            const std::string& prefix, const std::vector<GwasRows>* shares) {
  return open_and_run(ctx, input, nullptr, o, prefix, true, shares);
}

Result<GwasResult> run_gwas(const Context& ctx, const io::GenotypeViewPtr& view, const std::string& describe,
                            const GwasOptions& o, const std::string& prefix, const std::vector<GwasRows>* shares) {
  return open_and_run(ctx, describe, view, o, prefix, true, shares);
}

}  // namespace strata::genomics
