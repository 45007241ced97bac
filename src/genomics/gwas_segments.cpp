// strata gwas: the view's chromosome segments and their models (gwas_scan.hpp).
#include <cmath>

#include "gwas_scan.hpp"
#include "strata/core/context.hpp"
#include "strata/io/chromosome.hpp"

namespace strata::genomics::gwas_detail {
namespace {

ModelPass make_pass(const Model& model, int64_t n) {
  ModelPass mp;
  mp.model = &model;
  const int64_t w = mp.w = model.product_width;
  mp.wmat.assign(static_cast<size_t>(n * w), 0.0);
  mp.sq_col.assign(model.groups.size(), -1);
  mp.outside.resize(model.groups.size());
  for (size_t gi = 0; gi < model.groups.size(); ++gi) {
    const Group& g = model.groups[gi];
    if (g.logistic) continue;
    const int64_t P = static_cast<int64_t>(g.phenos.size());
    for (size_t i = 0; i < g.samples.size(); ++i) {
      double* row = &mp.wmat[g.samples[i] * w + g.col0];
      for (int64_t t = 0; t < g.k; ++t) row[t] = g.q[i * g.k + t];
      for (int64_t j = 0; j < P; ++j) row[g.k + j] = g.y[i * P + j];
      row[g.k + P] = 1.0;
    }
    if ((n - static_cast<int64_t>(g.samples.size())) * 8 <= n) {
      for (int64_t s = 0; s < n; ++s)
        if (g.pos[s] < 0) mp.outside[gi].push_back(s);
    } else {
      mp.sq_col[gi] = mp.nsq++;
    }
  }
  mp.ind.assign(static_cast<size_t>(n * mp.nsq), 0.0);
  for (size_t gi = 0; gi < model.groups.size(); ++gi)
    if (mp.sq_col[gi] >= 0)
      for (int64_t s : model.groups[gi].samples) mp.ind[s * mp.nsq + mp.sq_col[gi]] = 1.0;
  return mp;
}

Segment segment_of(io::ChromosomeKind k) {
  switch (k) {
    case io::ChromosomeKind::kX: return Segment::kX;
    case io::ChromosomeKind::kY: return Segment::kY;
    case io::ChromosomeKind::kMT: return Segment::kMT;
    default: return Segment::kDiploid;
  }
}

}  // namespace

Status plan_segments(const Context& ctx, const io::GenotypeView& view, const GwasOptions& o, const Model& model,
                     SegmentPlan& plan) {
  const int64_t n = view.num_samples(), m = view.num_variants();
  auto& runs = plan.runs;
  auto& models = plan.models;
  auto& no_model = plan.no_model;
  if (m > 0 && io::has_haploid_contig(view)) {
    STRATA_ASSIGN_OR_RETURN(const std::vector<io::ChromosomeKind> kind, io::variant_chromosome_kinds(view));
    for (int64_t v = 0; v < m; ++v) {
      const Segment sg = segment_of(kind[static_cast<size_t>(v)]);
      if (runs.empty() || runs.back().first != sg) runs.emplace_back(sg, std::vector<int64_t>{});
      runs.back().second.push_back(v);
    }
  }
  // The models of X and Y (MT uses the autosomes' with the haploid coding).
  const io::SampleInfo& sample_info = view.samples();
  auto sex_of = [&](int64_t s) { return s < static_cast<int64_t>(sample_info.sex.size()) ? sample_info.sex[static_cast<size_t>(s)] : 0; };
  bool any_sex = false, any_male = false;
  for (int64_t s = 0; s < n; ++s) any_sex |= sex_of(s) == 1 || sex_of(s) == 2, any_male |= sex_of(s) == 1;
  for (const auto& [sg, vars] : runs) {
    const int k = static_cast<int>(sg);
    if (sg == Segment::kDiploid || sg == Segment::kMT || models[k] || !no_model[k].empty()) continue;
    gwas_detail::ModelScope scope;
    scope.table_rows = &model.table_rows;
    if (sg == Segment::kX && any_sex) {
      scope.include.assign(static_cast<size_t>(n), 0);
      scope.sex_covariate.assign(static_cast<size_t>(n), std::nan(""));
      for (int64_t s = 0; s < n; ++s)
        if (sex_of(s) == 1 || sex_of(s) == 2) scope.include[s] = 1, scope.sex_covariate[s] = sex_of(s);
    }
    if (sg == Segment::kY) {
      if (!any_male) {
        no_model[k] = "no sample is male";
        continue;
      }
      scope.include.assign(static_cast<size_t>(n), 0);
      for (int64_t s = 0; s < n; ++s) scope.include[s] = sex_of(s) == 1;
    }
    if (sg == Segment::kX && !any_sex) continue;  // no sex known: X is tested as an autosome, as plink2 does
    auto built = gwas_detail::build_model(ctx, sample_info, o, scope);
    if (!built.ok()) {
      no_model[k] = built.status().message();
      continue;
    }
    if (built->phenotypes.size() != model.phenotypes.size())
      return Status::Invalid("gwas: the ", sg == Segment::kX ? "X" : "Y", " model has ", built->phenotypes.size(),
                             " phenotypes, the autosomes' ", model.phenotypes.size());
    models[k] = std::move(*built);
  }
  auto& passes = plan.passes;
  for (int k = 0; k < 4; ++k) {
    const Model* mk = (k == static_cast<int>(Segment::kX) || k == static_cast<int>(Segment::kY)) && models[k] ? &*models[k]
                      : &model;
    passes[k] = make_pass(*mk, n);
  }
  passes[static_cast<int>(Segment::kY)].scale = passes[static_cast<int>(Segment::kMT)].scale = 2.0;
  passes[static_cast<int>(Segment::kY)].y = true;
  for (Segment sg : {Segment::kX, Segment::kY}) {
    if (!models[static_cast<int>(sg)]) continue;
    auto& male = passes[static_cast<int>(sg)].male;
    male.assign(static_cast<size_t>(n), 0);
    for (int64_t s = 0; s < n; ++s) male[s] = sex_of(s) == 1;
  }
  if (runs.empty()) runs.emplace_back(Segment::kDiploid, std::vector<int64_t>{});
  return Status::OK();
}

}  // namespace strata::genomics::gwas_detail
