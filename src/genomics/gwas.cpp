// strata gwas: options, the phenotype/covariate model set-up (sample sets, groups, covariate
// checks, QR and residualized phenotypes). The pass and the output are in gwas_run.cpp.
#include <cmath>
#include <map>

#include "gwas_setup.hpp"
#include "io/genotype/plink_numbers_internal.hpp"
#include "strata/backend/backend.hpp"
#include "strata/core/context.hpp"
#include "strata/linalg/design_checks.hpp"

namespace strata::genomics {

Result<GwasModel> parse_gwas_model(const std::string& name) {
  if (name == "auto") return GwasModel::Auto;
  if (name == "linear") return GwasModel::Linear;
  if (name == "logistic") return GwasModel::Logistic;
  return Status::Invalid("--model must be auto, linear or logistic, got '", name, "'");
}

Result<FirthMode> parse_firth_mode(const std::string& name) {
  if (name == "auto") return FirthMode::Auto;
  if (name == "always") return FirthMode::Always;
  if (name == "never") return FirthMode::Never;
  return Status::Invalid("--firth must be auto, always or never, got '", name, "'");
}

Result<GwasColumns> parse_gwas_columns(const std::string& list) {
  GwasColumns c;
  for (const auto& n : split_names(list)) {
    if (n == "provref") c.provisional_ref = true;
    else if (n == "omitted") c.omitted = true;
    else if (n == "a1freq") c.a1_freq = true;
    else return Status::Invalid("--cols takes provref, omitted, a1freq; got '", n, "'");
  }
  return c;
}

namespace gwas_detail {
namespace {

// Check the covariates alone (with the intercept) over a group's samples, as plink2 does
// before a phenotype's scan: a failure stops the run.
Status check_covariates(Group& g, const std::vector<std::string>& names, const std::string& pheno,
                        const GwasOptions& o) {
  const int64_t k = g.k, n = static_cast<int64_t>(g.samples.size());
  g.cc.assign(static_cast<size_t>(k * k), 0.0);  // kept: the per-variant checks downdate it
  for (int64_t s = 0; s < n; ++s)
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = 0; j < k; ++j) g.cc[i * k + j] += g.c[s * k + i] * g.c[s * k + j];
  const Err e = check_corr_and_vif(g.cc, k, o.max_corr, o.max_vif, &g.cov_corr, &g.cov_vif);
  if (e == Err::Ok) return Status::OK();
  std::string list;
  for (const auto& x : names) list += (list.empty() ? "" : ", ") + x;
  return Status::InvalidData("cannot run phenotype '", pheno, "': its covariates (", list, ") are ",
                             e == Err::CorrTooHigh ? "too correlated (plink2's CORR_TOO_HIGH, --max-corr)"
                                                   : "collinear (plink2's VIF_TOO_HIGH / VIF_INFINITE, --vif)",
                             "; remove redundant covariates");
}

// Q·R of the covariates (backend QR), then Y_r = Y − Q·QᵀY and y_rᵀy_r.
Status orthonormalize(const Context& ctx, Group& g, const std::vector<std::vector<double>>& y) {
  const int64_t n = static_cast<int64_t>(g.samples.size()), k = g.k, P = static_cast<int64_t>(y.size());
  std::vector<double> a(static_cast<size_t>(n * k)), r(static_cast<size_t>(k * k));
  for (int64_t s = 0; s < n; ++s)
    for (int64_t i = 0; i < k; ++i) a[s + i * n] = g.c[s * k + i];
  const backend::Backend& be = backend::of(ctx);
  STRATA_RETURN_NOT_OK(be.qr(backend::col_major<const double>(a.data(), n, k), backend::col_major(a.data(), n, k),
                             backend::col_major(r.data(), k, k)));
  g.q.assign(static_cast<size_t>(n * k), 0.0);
  g.r.assign(static_cast<size_t>(k * k), 0.0);
  for (int64_t s = 0; s < n; ++s)
    for (int64_t i = 0; i < k; ++i) g.q[s * k + i] = a[s + i * n];
  for (int64_t i = 0; i < k; ++i)
    for (int64_t j = i; j < k; ++j) g.r[i * k + j] = r[i + j * k];
  g.y.assign(static_cast<size_t>(n * P), 0.0);
  g.yy.assign(static_cast<size_t>(P), 0.0);
  g.sst.assign(static_cast<size_t>(P), 0.0);
  for (int64_t j = 0; j < P; ++j) {
    double mean = 0.0;
    for (double v : y[j]) mean += v;
    mean /= static_cast<double>(n);
    for (double v : y[j]) g.sst[j] += (v - mean) * (v - mean);
  }
  std::vector<double> qty(static_cast<size_t>(k));
  for (int64_t j = 0; j < P; ++j) {
    std::vector<double> res(y[j]);
    for (int round = 0; round < 2; ++round) {  // twice: residuals orthogonal to working precision
      for (int64_t i = 0; i < k; ++i) {
        double t = 0.0;
        for (int64_t s = 0; s < n; ++s) t += g.q[s * k + i] * res[s];
        qty[i] = t;
      }
      for (int64_t s = 0; s < n; ++s) {
        double t = 0.0;
        for (int64_t i = 0; i < k; ++i) t += g.q[s * k + i] * qty[i];
        res[s] -= t;
      }
    }
    double ss = 0.0;
    for (int64_t s = 0; s < n; ++s) {
      g.y[s * P + j] = res[s];
      ss += res[s] * res[s];
    }
    g.yy[j] = ss;
  }
  return Status::OK();
}

}  // namespace

Result<Model> build_model(const Context& ctx, const io::SampleInfo& samples, const GwasOptions& o,
                          const ModelScope& scope) {
  Model m;
  SampleTableOptions po;
  po.phenotypes = true;
  po.zero_one_binary = o.zero_one_binary;
  po.names = o.pheno_names;
  for (const std::string& v : samples.phenotype) {
    // Missing in plink2's spelling: NA/NaN in any case, -9 or 0 in any notation ("-9.0").
    const io::detail::ScannedNumber x = io::detail::scan_plink_number(v);
    const bool missing = io::detail::is_plink_nan_word(v) ||
                         (x.kind == io::detail::NumberScan::kNumber && (x.value == -9.0 || x.value == 0.0));
    if (!(v.empty() || missing)) {
      po.first_number = 2;  // PHENO1 is the .fam's phenotype in plink2's numbering
      break;
    }
  }
  if (scope.table_rows) m.table_rows = *scope.table_rows;
  const std::string& pheno_source = o.pheno_table ? o.pheno_table->source : o.pheno_path;
  const std::string& covar_source = o.covar_table ? o.covar_table->source : o.covar_path;
  STRATA_ASSIGN_OR_RETURN(SampleTable pheno, o.pheno_table ? align_sample_table(*o.pheno_table, samples, m.table_rows, po)
                                                           : read_sample_table(o.pheno_path, samples, po));
  SampleTable covar;
  if (o.covar_table || !o.covar_path.empty()) {
    SampleTableOptions co;
    co.phenotypes = false;
    co.names = o.covar_names;
    STRATA_ASSIGN_OR_RETURN(covar, o.covar_table ? align_sample_table(*o.covar_table, samples, m.table_rows, co)
                                                 : read_sample_table(o.covar_path, samples, co));
  }
  if (!scope.sex_covariate.empty()) {
    SampleColumn sex;
    sex.name = "SEX";
    sex.values = scope.sex_covariate;
    covar.columns.push_back(std::move(sex));
  }
  for (const auto& w : covar.warnings) m.warnings.push_back(covar_source + ": " + w);
  if (pheno.unknown_rows > 0)
    m.warnings.push_back(std::to_string(pheno.unknown_rows) + " rows of " + pheno_source +
                         " name samples not analysed (absent from the input or removed by the selection)");
  if (covar.unknown_rows > 0)
    m.warnings.push_back(std::to_string(covar.unknown_rows) + " rows of " + covar_source +
                         " name samples not analysed (absent from the input or removed by the selection)");
  const int64_t n = samples.size();
  std::map<std::pair<bool, std::vector<int64_t>>, size_t> group_of;  // (logistic, samples) → group
  std::vector<std::vector<std::vector<double>>> group_y;
  for (size_t pi = 0; pi < pheno.columns.size(); ++pi) {
    const SampleColumn& col = pheno.columns[pi];
    // The name becomes part of a file name (PREFIX.<PHENO>.glm.linear).
    if (col.name.find('/') != std::string::npos || col.name == "." || col.name == "..")
      return Status::InvalidData(pheno_source, ": phenotype name '", col.name, "' cannot be part of a file name");
    bool logistic = o.model == GwasModel::Logistic || (o.model == GwasModel::Auto && col.binary);
    if (o.model == GwasModel::Logistic && !col.binary)
      return Status::InvalidData("phenotype '", col.name, "' is not case/control (", o.zero_one_binary ? "0/1" : "1/2",
                                 " with missing values), but --model logistic was asked");
    Phenotype ph;
    ph.name = col.name;
    ph.logistic = logistic;
    std::vector<int64_t> s_set;
    for (int64_t s = 0; s < n; ++s) {
      if (std::isnan(col.values[s]) || (!scope.include.empty() && !scope.include[s])) continue;
      bool ok = true;
      for (const auto& c : covar.columns) ok = ok && !std::isnan(c.values[s]);
      if (ok) s_set.push_back(s);
    }
    if (s_set.empty())
      return Status::InvalidData("phenotype '", col.name, "' has no sample with a value",
                                 covar.columns.empty() ? "" : " and every covariate present");
    if (logistic) {
      for (int64_t s : s_set) (col.values[s] > 0.5 ? ph.cases : ph.controls) += 1;
      if (ph.cases == 0 || ph.controls == 0)
        return Status::InvalidData("phenotype '", col.name, "': all ", s_set.size(), " samples are ",
                                   ph.cases == 0 ? "controls" : "cases");
    } else {
      bool constant = true;
      for (int64_t s : s_set) constant = constant && col.values[s] == col.values[s_set[0]];
      if (constant) return Status::InvalidData("phenotype '", col.name, "' is constant over its ", s_set.size(), " samples");
    }
    ph.samples = static_cast<int64_t>(s_set.size());
    auto key = std::make_pair(logistic, s_set);
    auto it = group_of.find(key);
    size_t gi;
    if (it == group_of.end()) {
      gi = m.groups.size();
      group_of.emplace(key, gi);
      Group g;
      g.logistic = logistic;
      g.samples = s_set;
      // Covariates constant over these samples are left out (plink2 warns and does the same).
      std::vector<int> used;
      for (size_t c = 0; c < covar.columns.size(); ++c) {
        const auto& v = covar.columns[c].values;
        bool constant = true;
        for (int64_t s : s_set) constant = constant && v[s] == v[s_set[0]];
        if (constant) {
          const std::string w = "covariate '" + covar.columns[c].name + "' is constant and left out";
          bool seen = false;
          for (const auto& x : m.warnings) seen = seen || x == w;
          if (!seen) m.warnings.push_back(w);
        } else {
          used.push_back(static_cast<int>(c));
        }
      }
      g.k = 1 + static_cast<int64_t>(used.size());
      g.c.assign(s_set.size() * static_cast<size_t>(g.k), 1.0);
      std::vector<std::string> names;
      for (size_t u = 0; u < used.size(); ++u) names.push_back(covar.columns[used[u]].name);
      // Covariates on scales far from the genotype's and each other's (plink2 refuses them:
      // "scales vary too widely", e.g. 1e15 + 1e12·c) are standardized here, as plink2's
      // --covar-variance-standardize would: an affine change of the covariates leaves the
      // genotype's estimate, SE and P as they are, and keeps the float covariates of the
      // logistic fit and the Gram checks accurate.
      std::vector<double> shift(used.size(), 0.0), scale(used.size(), 1.0);
      {
        std::vector<double> sums(used.size(), 0.0), ssqs(used.size(), 0.0);
        for (size_t u = 0; u < used.size(); ++u)
          for (int64_t s : s_set) {
            const double v = covar.columns[used[u]].values[s];
            sums[u] += v;
            ssqs[u] += v * v;
          }
        const int64_t ns = static_cast<int64_t>(s_set.size());
        if (linalg::covariate_scales_unstable(sums, ssqs, ns)) {
          for (size_t u = 0; u < used.size(); ++u) {
            shift[u] = sums[u] / static_cast<double>(ns);
            double ss = 0.0;
            for (int64_t s : s_set) {
              const double d = covar.columns[used[u]].values[s] - shift[u];
              ss += d * d;
            }
            scale[u] = 1.0 / std::sqrt(ss / static_cast<double>(ns - 1));
          }
          m.warnings.push_back("phenotype '" + col.name +
                               "': the covariates' scales vary too widely for a stable fit (plink2 refuses them); "
                               "strata standardizes them internally (--covar-variance-standardize), which leaves "
                               "the genotype's results unchanged");
        }
      }
      for (size_t i = 0; i < s_set.size(); ++i)
        for (size_t u = 0; u < used.size(); ++u) {
          const double v = (covar.columns[used[u]].values[s_set[i]] - shift[u]) * scale[u];
          // plink2 holds covariates in single precision for logistic regression.
          g.c[i * g.k + 1 + u] = logistic ? static_cast<double>(static_cast<float>(v)) : v;
        }
      if (m.covariates.empty() || names.size() > m.covariates.size()) m.covariates = names;
      STRATA_RETURN_NOT_OK(check_covariates(g, names, col.name, o));
      if (!logistic) {
        for (int64_t i = 0; i < g.k; ++i) g.cc_diag_max = std::fmax(g.cc_diag_max, g.cc[i * g.k + i]);
        g.est_corr_risk = !(linalg::max_estimate_correlation(g.cc, g.k) <= 0.999);
      }
      m.groups.push_back(std::move(g));
      group_y.emplace_back();
    } else {
      gi = it->second;
    }
    Group& g = m.groups[gi];
    ph.group = static_cast<int>(gi);
    ph.index_in_group = static_cast<int>(g.phenos.size());
    g.phenos.push_back(static_cast<int>(m.phenotypes.size()));
    std::vector<double> y(s_set.size());
    for (size_t i = 0; i < s_set.size(); ++i) y[i] = col.values[s_set[i]];
    group_y[gi].push_back(std::move(y));
    m.phenotypes.push_back(std::move(ph));
  }
  int64_t col = 0;
  for (size_t gi = 0; gi < m.groups.size(); ++gi) {
    Group& g = m.groups[gi];
    if (g.logistic) {
      const int64_t P = static_cast<int64_t>(g.phenos.size()), ns = static_cast<int64_t>(g.samples.size());
      g.y.assign(static_cast<size_t>(ns * P), 0.0);
      for (int64_t j = 0; j < P; ++j)
        for (int64_t s = 0; s < ns; ++s) g.y[s * P + j] = group_y[gi][j][s];
      g.ct.assign(static_cast<size_t>(g.k * ns), 0.0);
      for (int64_t s = 0; s < ns; ++s)
        for (int64_t i = 0; i < g.k; ++i) g.ct[i * ns + s] = g.c[s * g.k + i];
      g.cy.assign(static_cast<size_t>(P * g.k), 0.0);
      for (int64_t j = 0; j < P; ++j)
        for (int64_t s = 0; s < ns; ++s)
          for (int64_t i = 0; i < g.k; ++i) g.cy[j * g.k + i] += g.c[s * g.k + i] * g.y[s * P + j];
      continue;
    }
    STRATA_RETURN_NOT_OK(orthonormalize(ctx, g, group_y[gi]));
    for (size_t j = 0; j < g.phenos.size(); ++j)
      if (linalg::exact_fit(g.yy[j], g.sst[j]))
        m.warnings.push_back("phenotype '" + m.phenotypes[g.phenos[j]].name +
                             "' is a linear function of the covariates (residual variance 0, e.g. a covariate "
                             "equal to the phenotype): every variant is INVALID_RESULT");
    g.col0 = col;
    col += g.width();
    g.pos.assign(static_cast<size_t>(n), -1);
    for (size_t i = 0; i < g.samples.size(); ++i) g.pos[g.samples[i]] = static_cast<int64_t>(i);
    ++m.linear_groups;
  }
  m.product_width = col;
  return m;
}

}  // namespace gwas_detail
}  // namespace strata::genomics
