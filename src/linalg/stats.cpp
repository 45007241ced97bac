// Tail probabilities, the normal quantile and a small Cholesky (strata/linalg/stats.hpp).
#include "strata/linalg/stats.hpp"

#include <cmath>

namespace strata::linalg {
namespace {

// Continued fraction of the regularized incomplete beta (modified Lentz), valid for
// x < (a + 1) / (a + b + 2).
double beta_cf(double a, double b, double x) {
  constexpr double kTiny = 1e-300, kEps = 1e-16;
  double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1.0 / d;
  double h = d;
  for (int m = 1; m <= 10000; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
    d = 1.0 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1.0 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    h *= d * c;
    aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
    d = 1.0 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1.0 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    const double del = d * c;
    h *= del;
    if (std::fabs(del - 1.0) < kEps) break;
  }
  return h;
}

// I_x(a, b), computed in log space so that tiny tails keep their relative accuracy.
double inc_beta(double a, double b, double x) {
  if (x <= 0.0) return 0.0;
  if (x >= 1.0) return 1.0;
  const double log_front =
      std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  if (x < (a + 1.0) / (a + b + 2.0)) return std::exp(log_front) * beta_cf(a, b, x) / a;
  return 1.0 - std::exp(log_front) * beta_cf(b, a, 1.0 - x) / b;
}

}  // namespace

double p_from_t(double t, double df) {
  if (!std::isfinite(t)) return std::isnan(t) ? std::nan("") : 0.0;
  const double x = df / (df + t * t);
  return inc_beta(0.5 * df, 0.5, x);
}

double p_from_z(double z) { return std::erfc(std::fabs(z) / std::sqrt(2.0)); }

double ln_p_from_t(double t, double df) {
  const double p = p_from_t(t, df);
  if (std::isnan(p) || p > 1e-300) return std::log(p);
  // The tail I_x(df/2, 1/2) with x small: its log-space front plus the continued fraction.
  const double a = 0.5 * df, b = 0.5, x = df / (df + t * t);
  if (!(x > 0.0)) return -INFINITY;
  return std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x) +
         std::log(beta_cf(a, b, x)) - std::log(a);
}

double ln_p_from_z(double z) {
  const double x = std::fabs(z);
  if (std::isnan(x) || x < 37.0) return std::log(p_from_z(z));
  if (std::isinf(x)) return -INFINITY;
  // P = 2·φ(x)/x · (1 − 1/x² + 3/x⁴ − 15/x⁶ + …): beyond 37 six terms reach double precision.
  const double r = 1.0 / (x * x);
  double series = 1.0, term = 1.0;
  for (int k = 1; k <= 6; ++k) {
    term *= -(2.0 * k - 1.0) * r;
    series += term;
  }
  return std::log(2.0) - 0.5 * x * x - std::log(x) - 0.5 * std::log(2.0 * M_PI) + std::log(series);
}

double normal_quantile(double p) {
  // Acklam's rational approximation, then one Halley step on erfc.
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                             1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01,  -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  if (p <= 0.0) return -INFINITY;
  if (p >= 1.0) return INFINITY;
  double x;
  if (p < 0.02425) {
    const double q = std::sqrt(-2 * std::log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (p > 1 - 0.02425) {
    const double q = std::sqrt(-2 * std::log(1 - p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else {
    const double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  }
  const double e = 0.5 * std::erfc(-x / std::sqrt(2.0)) - p;
  const double u = e * std::sqrt(2 * M_PI) * std::exp(x * x / 2);
  return x - u / (1 + x * u / 2);
}

bool cholesky(std::vector<double>& a, int64_t p) {
  for (int64_t j = 0; j < p; ++j) {
    double s = a[j * p + j];
    for (int64_t t = 0; t < j; ++t) s -= a[j * p + t] * a[j * p + t];
    if (!(s > 0.0) || !std::isfinite(s)) return false;
    const double d = std::sqrt(s);
    a[j * p + j] = d;
    for (int64_t i = j + 1; i < p; ++i) {
      double v = a[i * p + j];
      for (int64_t t = 0; t < j; ++t) v -= a[i * p + t] * a[j * p + t];
      a[i * p + j] = v / d;
    }
  }
  return true;
}

std::vector<double> cholesky_inverse_diagonal(const std::vector<double>& l, int64_t p) {
  std::vector<double> diag(static_cast<size_t>(p)), z(static_cast<size_t>(p));
  for (int64_t j = 0; j < p; ++j) {
    double v = 0.0;  // column j of L⁻¹ by forward substitution (entries above j are zero)
    for (int64_t r = j; r < p; ++r) {
      double t = r == j ? 1.0 : 0.0;
      for (int64_t k = j; k < r; ++k) t -= l[r * p + k] * z[k];
      z[r] = t / l[r * p + r];
      v += z[r] * z[r];
    }
    diag[j] = v;
  }
  return diag;
}

}  // namespace strata::linalg
