// strata gwas, linear model: one variant's statistics for every phenotype of a group from the
// block product [Qᵀg | gᵀY_r], corrected exactly for the variant's missing calls.
//
// With C = Q·R over the group's samples S, Q spans the covariates (intercept included), so the
// fit over T = S \ M (M = samples with a missing call, coded 0 in the product) is a Schur
// complement in Q coordinates:
//   A = QᵀQ over T = I − Σ_{i∈M} qᵢqᵢᵀ,  b_g = Qᵀg (g is 0 on M),  b_y = −Σ_{i∈M} qᵢ y_r,i
//   gg = Σg² − b_gᵀA⁻¹b_g,  gy = gᵀy_r − b_gᵀA⁻¹b_y,  yy = y_rᵀy_r − Σ_M y_r,i² − b_yᵀA⁻¹b_y
//   β = gy/gg,  SE² = (yy − β·gy) / (|T| − k − 1) / gg
// which is the least-squares fit plink2 makes on T.
#include <algorithm>
#include <cmath>

#include "gwas_internal.hpp"
#include "strata/backend/backend.hpp"
#include "strata/linalg/design_checks.hpp"

namespace strata::genomics::gwas_detail {
namespace {

// z = L⁻¹ b (forward substitution).
void forward(const std::vector<double>& l, int64_t k, const double* b, double* z) {
  for (int64_t i = 0; i < k; ++i) {
    double v = b[i];
    for (int64_t t = 0; t < i; ++t) v -= l[i * k + t] * z[t];
    z[i] = v / l[i * k + i];
  }
}

double dot(const double* a, const double* b, int64_t k) {
  double s = 0.0;
  for (int64_t i = 0; i < k; ++i) s += a[i] * b[i];
  return s;
}

// The lower triangle of Σ_{s∈M} x_s x_sᵀ into w.hm ((k + P) × (k + P)), x_s = the missing
// sample's [Q | Y_r] row of the block product's right-hand side (w.qy: the rows the product
// has just read, so still in cache): gathered, then one weighted_gram_rows (each sum in sample
// order, the same bits on every backend).
Status missing_gram(LinearScratch& w, const Group& g, const std::vector<int64_t>& missing) {
  const int64_t m = static_cast<int64_t>(missing.size()), width = g.k + static_cast<int64_t>(g.phenos.size());
  w.rows.resize(static_cast<size_t>(m * width));
  double* out = w.rows.data();
  for (int64_t r = 0; r < m; ++r, out += width) {
    const double* x = w.qy + g.samples[missing[r]] * w.qy_stride + g.col0;
    for (int64_t t = 0; t < width; ++t) out[t] = x[t];  // a few values: no memmove call
  }
  if (static_cast<int64_t>(w.ones.size()) < m) w.ones.assign(static_cast<size_t>(m), 1.0);
  w.hm.assign(static_cast<size_t>(width * width), 0.0);
  return w.be->weighted_gram_rows(backend::row_major<const double>(w.rows.data(), m, width), w.ones.data(),
                                  backend::row_major(w.hm.data(), width, width));
}

}  // namespace

Status linear_fits(const Group& g, const VariantData& v, const double* prod, double sum_g2, const GwasOptions& o,
                   LinearScratch& w, Fit* out) {
  const int64_t k = g.k, P = static_cast<int64_t>(g.phenos.size());
  const int64_t n_s = static_cast<int64_t>(g.samples.size());
  const int64_t miss = static_cast<int64_t>(v.missing.size());
  const int64_t n_t = n_s - miss;
  for (int64_t j = 0; j < P; ++j) {
    out[j] = Fit{};
    out[j].obs = n_t;
  }
  auto fail = [&](Err e) {
    for (int64_t j = 0; j < P; ++j) out[j].err = e;
    return Status::OK();
  };
  // plink2's order: too few samples, then a constant genotype column.
  if (n_t <= k + 1) return fail(Err::SampleCtLtePredictorCt);
  if (v.dosage ? v.constant : (v.counts[0] == n_t || v.counts[1] == n_t || v.counts[2] == n_t))
    return fail(Err::ConstOmittedAllele);

  const double* bg = prod;         // Qᵀg
  const double* gy_raw = prod + k; // gᵀy_r per phenotype
  w.zg.assign(bg, bg + k);
  if (miss > 0) {
    // The Gram of the missing samples' [Q | Y_r] rows  gives A = I − Σ_M qᵢqᵢᵀ (then
    // factored), b_y = −Σ_M qᵢ y_r,i (k × P, phenotype fastest) and Σ_M y_r,i² per phenotype.
    const int64_t kp = k + P;
    STRATA_RETURN_NOT_OK(missing_gram(w, g, v.missing));
    const double* hm = w.hm.data();
    w.a.assign(static_cast<size_t>(k * k), 0.0);
    for (int64_t i = 0; i < k; ++i)
      for (int64_t t = 0; t <= i; ++t) w.a[i * k + t] = (i == t ? 1.0 : 0.0) - hm[i * kp + t];
    w.by.resize(static_cast<size_t>(k * P));
    w.yy_miss.resize(static_cast<size_t>(P));
    for (int64_t j = 0; j < P; ++j) {
      for (int64_t i = 0; i < k; ++i) w.by[i * P + j] = -hm[(k + j) * kp + i];
      w.yy_miss[j] = hm[(k + j) * kp + k + j];
    }
    if (!cholesky(w.a, k)) return fail(Err::VifInfinite);
    forward(w.a, k, bg, w.zg.data());
  }
  const double gg = sum_g2 - dot(w.zg.data(), w.zg.data(), k);
  if (!(gg > 0.0)) return fail(Err::VifInfinite);

  // max-corr / VIF check of [g, covariates] over T. gg is g's residual after the covariates,
  // so VIF_g = (Σg² − (Σg)²/|T|) / gg exactly; each covariate's VIF with g added is at most its
  // VIF without g times VIF_g, and |corr(g, c)|² ≤ 1 − 1/VIF_g. When these bounds (with the
  // covariates' values over S, a factor 2 of room for the few missing samples) cannot reach
  // the limits, the check cannot fail; otherwise run plink2's check on the Gram over T.
  const double sum_g = v.dosage ? v.sum_g : static_cast<double>(v.counts[1] + 2 * v.counts[2]);  // ALT dosage, as sum_g2
  const double sst = sum_g2 - sum_g * sum_g / static_cast<double>(n_t);
  const double vif_g = sst / gg;
  const bool few_missing = miss * 100 <= n_s;
  const double room = miss == 0 ? 1.0 : 2.0;
  const bool safe = few_missing && vif_g * g.cov_vif * room <= o.max_vif && g.cov_corr + (miss ? 0.01 : 0.0) <= o.max_corr &&
                    std::sqrt(std::fmax(0.0, 1.0 - 1.0 / vif_g)) <= o.max_corr;
  // Gram of [intercept, g, covariates] over T in covariate coordinates: CᵀC less the missing
  // rows; Cᵀg = Rᵀ·Qᵀg (g is 0 on M).
  const int64_t p = k + 1;
  bool have_gram = false;
  auto gram_over_t = [&]() -> Status {
    if (have_gram) return Status::OK();
    have_gram = true;
    w.cc.assign(g.cc.begin(), g.cc.end());
    if (miss > 0) {
      // C = Q·R over S, so C_MᵀC_M = Rᵀ·H·R with H = Q_MᵀQ_M (w.hm's leading k × k, lower
      // triangle): k³ operations instead of another pass over the missing samples.
      const int64_t kp = k + P;
      const double* h = w.hm.data();
      w.hr.resize(static_cast<size_t>(k * k));
      for (int64_t i = 0; i < k; ++i)
        for (int64_t j = 0; j < k; ++j) {
          double sum = 0.0;
          for (int64_t t = 0; t <= j; ++t) sum += h[std::max(i, t) * kp + std::min(i, t)] * g.r[t * k + j];
          w.hr[i * k + j] = sum;  // (H·R)(i, j)
        }
      for (int64_t i = 0; i < k; ++i)
        for (int64_t j = 0; j <= i; ++j) {
          double sum = 0.0;
          for (int64_t a = 0; a <= i; ++a) sum += g.r[a * k + i] * w.hr[a * k + j];
          w.cc[i * k + j] -= sum;
          w.cc[j * k + i] = w.cc[i * k + j];
        }
    }
    w.gram.assign(static_cast<size_t>(p * p), 0.0);
    auto idx = [](int64_t c) { return c == 0 ? int64_t{0} : c + 1; };  // covariate column → predictor
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = 0; j < k; ++j) w.gram[idx(i) * p + idx(j)] = w.cc[i * k + j];
    for (int64_t i = 0; i < k; ++i) {
      double s = 0.0;
      for (int64_t t = 0; t <= i; ++t) s += g.r[t * k + i] * bg[t];
      w.gram[idx(i) * p + 1] = w.gram[1 * p + idx(i)] = s;
    }
    w.gram[1 * p + 1] = sum_g2;
    return Status::OK();
  };
  if (!safe) {
    STRATA_RETURN_NOT_OK(gram_over_t());
    const Err e = check_corr_and_vif(w.gram, p, o.max_corr, o.max_vif);
    if (e != Err::Ok) return fail(e);
  }
  const double df = static_cast<double>(n_t - k - 1);
  if (miss > 0) {
    // Z_y = L⁻¹·B_y for every phenotype at once (row i of Z_y from rows t < i), then
    // gy −= z_gᵀz_y and yy −= z_yᵀz_y: the sums of forward() and dot() per phenotype.
    w.zy.resize(static_cast<size_t>(k * P));
    w.dots.assign(static_cast<size_t>(2 * P), 0.0);
    double* zy = w.zy.data();
    double* d_gy = w.dots.data();
    double* d_yy = d_gy + P;
    for (int64_t i = 0; i < k; ++i) {
      double* z = zy + i * P;
      const double* b = w.by.data() + i * P;
      for (int64_t j = 0; j < P; ++j) z[j] = b[j];
      for (int64_t t = 0; t < i; ++t) {
        const double l = w.a[i * k + t];
        const double* zt = zy + t * P;
        for (int64_t j = 0; j < P; ++j) z[j] -= l * zt[j];
      }
      const double d = w.a[i * k + i], zgi = w.zg[i];
      for (int64_t j = 0; j < P; ++j) {
        z[j] = z[j] / d;
        d_gy[j] += zgi * z[j];
        d_yy[j] += z[j] * z[j];
      }
    }
  }
  int inv_state = 0;  // 0: not computed, 1: (XᵀX)⁻¹ in w.inv, correlations valid, 2: invalid
  for (int64_t j = 0; j < P; ++j) {
    double gy = gy_raw[j], yy = g.yy[j];
    if (miss > 0) {
      yy -= w.yy_miss[j];
      gy -= w.dots[j];
      yy -= w.dots[P + j];
    }
    const double beta = gy / gg;
    double rss = yy - beta * gy;
    if (rss < 0.0) rss = 0.0;
    const double sigma2 = rss / df;
    const double se = std::sqrt(sigma2 / gg);
    Fit& f = out[j];
    f.beta = v.flip ? -beta : beta;
    f.se = se;
    f.stat = f.beta / se;
    f.p = p_from_t(f.stat, df);
    f.ln_p = f.p > 1e-300 ? std::log(f.p) : linalg::ln_p_from_t(f.stat, df);
    // plink2's validParameters(): every predictor's variance σ²·(XᵀX)⁻¹ᵢᵢ ≥ 1e-20, no two
    // estimates correlated above 0.99999; and a residual that is zero to rounding (the
    // covariates or the genotype reproduce the phenotype) gives no statistics either.
    // (XᵀX)⁻¹ᵢᵢ ≥ 1/(XᵀX)ᵢᵢ, so the full check is needed only when σ² is within reach of the
    // limit or the group's covariate estimates are nearly collinear (g.est_corr_risk).
    if (!std::isfinite(f.se) || !(sigma2 / gg >= 1e-20) || linalg::exact_fit(rss, g.sst[j])) {
      f.err = Err::InvalidResult;
    } else if (g.est_corr_risk || sigma2 < 1e-20 * std::fmax(g.cc_diag_max, sum_g2) * 2.0) {
      // (XᵀX)⁻¹ once per variant: the correlations do not depend on σ², the floor does.
      if (inv_state == 0) {
        STRATA_RETURN_NOT_OK(gram_over_t());
        inv_state = linalg::spd_inverse(w.gram, p, &w.inv) && linalg::valid_covariance(w.inv, p, false, 0.0) ? 1 : 2;
      }
      if (inv_state == 2 || !linalg::valid_covariance(w.inv, p, false, 1e-20 / sigma2)) f.err = Err::InvalidResult;
    }
  }
  return Status::OK();
}

}  // namespace strata::genomics::gwas_detail
