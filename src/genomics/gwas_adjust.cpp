// strata gwas --adjust: plink2's multiple-testing corrections and genomic control
// (strata/genomics/gwas_adjust.hpp).
#include "strata/genomics/gwas_adjust.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>

#include "strata/core/status.hpp"
#include "strata/core/thread_pool.hpp"
#include "strata/genomics/freq.hpp"
#include "strata/linalg/stats.hpp"

namespace strata::genomics {
namespace {

struct ColumnName {
  const char* name;
  uint32_t bit;
  const char* header;
};
constexpr ColumnName kColumns[] = {
    {"chrom", kAdjustChrom, "CHROM"},      {"pos", kAdjustPos, "POS"},
    {"ref", kAdjustRef, "REF"},            {"alt1", kAdjustAlt1, "ALT1"},
    {"alt", kAdjustAlt, "ALT"},            {"a1", kAdjustA1, "A1"},
    {"unadj", kAdjustUnadj, "UNADJ"},      {"gc", kAdjustGc, "GC"},
    {"qq", kAdjustQq, "QQ"},               {"bonf", kAdjustBonf, "BONF"},
    {"holm", kAdjustHolm, "HOLM"},         {"sidakss", kAdjustSidakSs, "SIDAK_SS"},
    {"sidaksd", kAdjustSidakSd, "SIDAK_SD"}, {"fdrbh", kAdjustFdrBh, "FDR_BH"},
    {"fdrby", kAdjustFdrBy, "FDR_BY"},
};
constexpr uint32_t kValueColumns = kAdjustUnadj | kAdjustGc | kAdjustQq | kAdjustBonf | kAdjustHolm |
                                   kAdjustSidakSs | kAdjustSidakSd | kAdjustFdrBh | kAdjustFdrBy;

Result<uint32_t> column_bit(std::string_view name) {
  for (const ColumnName& c : kColumns)
    if (name == c.name) return c.bit;
  return Status::Invalid("--adjust cols: unknown column '", name,
                         "' (chrom, pos, ref, alt1, alt, a1, unadj, gc, qq, bonf, holm, sidakss, sidaksd, "
                         "fdrbh, fdrby)");
}

// cols=LIST: names replace the default; +name / -name change it (not mixed, as plink2).
Result<uint32_t> parse_columns(std::string_view list) {
  if (list.empty()) return Status::Invalid("--adjust cols= needs a column list");
  const bool relative = list[0] == '+' || list[0] == '-';
  uint32_t cols = relative ? kAdjustDefaultColumns : 0;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(',', start);
    if (end == std::string_view::npos) end = list.size();
    std::string_view item = list.substr(start, end - start);
    const bool plus = !item.empty() && item[0] == '+', minus = !item.empty() && item[0] == '-';
    if ((plus || minus) != relative)
      return Status::Invalid("--adjust cols=", list, ": mix of column names and +/- changes");
    if (relative) item.remove_prefix(1);
    STRATA_ASSIGN_OR_RETURN(const uint32_t bit, column_bit(item));
    cols = minus ? (cols & ~bit) : (cols | bit);
    start = end + 1;
  }
  if (!(cols & kValueColumns)) return Status::Invalid("--adjust cols=", list, ": no P-value column left");
  return cols;
}

void put_ln(std::string& s, double ln_p, bool log10) {
  s += '\t';
  if (ln_p <= -DBL_MAX) {  // plink2 prints its floor (P = 0, an exact fit) this way
    s += log10 ? "2147483647" : "0";
  } else if (log10) {
    s += format_plink_float(ln_p * (-1.0 / M_LN10) + 0.0);  // + 0.0: never "-0"
  } else {
    s += format_plink_ln(ln_p);
  }
}

// One valid test in plink2's sort buffer layout: ln P first, the only sort key.
struct Entry {
  double ln_p;
  double chisq;
  int64_t index;
};

}  // namespace

Result<AdjustOptions> parse_adjust_options(const std::vector<std::string>& modifiers) {
  AdjustOptions o;
  o.enabled = true;
  for (const std::string& m : modifiers) {
    if (m.empty()) continue;  // a bare flag's value
    if (m == "gc") {
      o.gc = true;
    } else if (m == "log10") {
      o.log10 = true;
    } else if (m.rfind("cols=", 0) == 0) {
      STRATA_ASSIGN_OR_RETURN(o.columns, parse_columns(std::string_view(m).substr(5)));
    } else {
      return Status::Invalid("--adjust: unknown modifier '", m, "' (gc, log10, cols=LIST)");
    }
  }
  return o;
}

namespace {

// Numerical Recipes' erfc(z) = t·exp(poly(t) − z²), t = 1/(1 + z/2) (relative error < 1.2e-7):
// plink2's 1-df χ² tail for χ²/2 in (0.2, ...), in its P values of χ² (GC) and its inverse (λ).
double nr_erfc_poly(double z, double* t_out) {
  const double t = 1.0 / (1.0 + 0.5 * z);
  *t_out = t;
  return ((((((((0.17087277 * t - 0.82215223) * t + 1.48851587) * t - 1.13520398) * t + 0.27886807) * t -
             0.18628806) * t + 0.09678418) * t + 0.37409196) * t + 1.00002368) * t - 1.26551223;
}
constexpr double kLnMaxDouble = 709.0;  // plink2's kLogMaxValue

// χ²/2 of a small 1-df upper tail q from y = −ln(q·√π): DiDonato & Morris's 5-term expansion,
// plink2's first guess (Boost's find_inverse_gamma at a = 1/2) and, below q·√π = 1e-28, its answer.
double series_guess(double y) {
  const double c1 = -0.5 * std::log(y), c1_2 = c1 * c1, c1_3 = c1_2 * c1, c1_4 = c1_2 * c1_2;
  const double c2 = -0.5 * (1 + c1);
  const double c3 = 0.25 * c1_2 + 0.75 * c1 + 0.875;
  const double c4 = c1_3 * (-1.0 / 6.0) - 0.875 * c1_2 - 1.875 * c1 - (26.75 / 12.0);
  const double c5 = 0.125 * c1_4 + (5.75 / 6.0) * c1_3 + 3.625 * c1_2 + 7.75 * c1 + (83.0625 / 12.0);
  const double r = 1.0 / y, r2 = r * r;
  return y + c1 + c2 * r + c3 * r2 + c4 * r2 * r + c5 * r2 * r2;
}

// χ²/2 of a 1-df upper tail q as plink2 finds it: that first guess, then Halley steps on
// erf/erfc(√x) that stop at 2⁻²³ relative change (Boost's gamma_p_inv at 24 bits). The result
// is ~1e-7 off the exact quantile; λ and GC depend on it, so strata takes the same path.
double plink2_half_chisq(double q) {
  constexpr double kEps = 0x1p-44;  // plink2's kSmallEpsilon
  if (q >= 1.0 - kEps) return 0.0;
  double p = 1.0 - q;
  const double b = q * std::sqrt(M_PI);
  double guess;
  if (b >= 0.45) {
    const double u = p * p * (0.25 * M_PI);
    guess = u / (1 - u * (1.0 / 1.5));
  } else {
    const double y = -std::log(b);
    if (b > 0.1) {
      const double u = y - 0.5 * std::log(y);
      guess = b > 0.15 ? y - 0.5 * std::log(u) - std::log(1 + 0.5 / u)
                       : y - 0.5 * std::log(u) - std::log(((u + 5) * u + 3.75) / ((u + 4.5) * u + 2));
    } else {
      guess = series_guess(y);
      if (b < 1e-28) return guess;  // ten digits already
    }
  }
  double lo = kEps, hi = DBL_MAX;
  if (guess < kEps) guess = kEps;
  const bool invert = p > 0.9;  // iterate on the smaller tail
  if (invert) p = q;
  double result = guess, delta = 10000000, delta1 = delta;
  bool out_of_bounds = false;
  auto sign = [](double v) { return v < 0 ? -1.0 : 1.0; };
  do {
    const double delta2 = delta1;
    delta1 = delta;
    const double root = std::sqrt(result);
    double ff;
    if (result > 0.2 && result < kLnMaxDouble) {
      double t;
      const double poly = nr_erfc_poly(root, &t);
      const double upper = std::min(1.0, t * std::exp(poly - result));
      ff = invert ? upper : 1 - upper;
    } else {
      ff = invert ? std::erfc(root) : std::erf(root);
    }
    double f1 = root * std::exp(-result) * (1.0 / std::sqrt(M_PI)) / result;  // d erf(√x) / dx
    const double div = (-0.5 - result) / result;
    double f2 = (std::fabs(div) > 1 && DBL_MAX / std::fabs(div) < f1) ? -DBL_MAX / 2 : f1 * div;
    if (invert) {
      f1 = -f1;
      f2 = -f2;
    }
    const double f0 = ff - p;
    if (f0 == 0) break;
    delta = f0 / f1;
    if (f2 != 0) {
      const double denom = 2 * f0, numer = 2 * f1 - f0 * (f2 / f1);
      if (std::fabs(numer) >= 1 || std::fabs(denom) < std::fabs(numer) * DBL_MAX) {
        const double halley = denom / numer;
        if (halley / delta < 0) {
          if (std::fabs(delta) > 2 * std::fabs(guess)) delta = sign(delta) * 2 * std::fabs(guess);
        } else {
          delta = halley;
        }
      }
    }
    const double convergence = std::fabs(delta / delta2);
    if (convergence > 0.8 && convergence < 2) {  // not converging: bisect toward the bracket
      delta = delta > 0 ? 0.5 * (result - lo) : 0.5 * (result - hi);
      if (std::fabs(delta) > result) delta = (delta > 0 ? 1 : -1) * result;
    }
    guess = result;
    result -= delta;
    if (result < lo || result > hi) {
      const double bound = result < lo ? lo : hi;
      double diff = (std::fabs(bound) < 1 && std::fabs(result) > 1 && DBL_MAX / std::fabs(result) < std::fabs(bound))
                        ? 1000
                        : result / bound;
      if (std::fabs(diff) < 1) diff = 1 / diff;
      if (!out_of_bounds && diff > 0 && diff < 3) {
        delta = 0.99 * (guess - bound);
        result = guess - delta;
        out_of_bounds = true;
      } else {
        delta = (guess - bound) * 0.5;
        result = guess - delta;
        if (result == lo || result == hi) break;
      }
    }
    if (delta > 0) {
      hi = guess;
    } else {
      lo = guess;
    }
  } while (std::fabs(result * 0x1p-23) < std::fabs(delta));
  return result;
}

}  // namespace

double ln_p_to_chisq(double ln_p) {
  if (ln_p >= 0.0) return 0.0;
  if (ln_p > -65.04474754675797) return 2 * plink2_half_chisq(std::exp(ln_p));
  // Beyond, plink2 keeps the expansion itself (y = ln√π − ln P).
  return 2 * series_guess(0.5 * std::log(M_PI) - ln_p);
}

double chisq_to_ln_p(double chisq) {
  const double x = 0.5 * chisq;
  if (!(x >= 0x1p-44)) return 0.0;
  if (x > 0.2 && x < 1e10) {  // plink2's approximation (its GC values)
    double t;
    const double poly = nr_erfc_poly(std::sqrt(x), &t);
    return std::min(std::log(t) + poly - x, 0.0);
  }
  return std::min(linalg::ln_p_from_z(std::sqrt(chisq)), 0.0);
}

std::string format_plink_ln(double ln_p) {
  // plink2's fast path: P within rounding of 1 (most corrected values of a scan) prints "1".
  if (ln_p > -5.000001349509205e-7 && ln_p < 4.999987599993995e-6) return "1";
  if (ln_p >= -708.0) return format_plink_float(std::exp(ln_p));
  if (ln_p < 0x7ffffffb * -M_LN10) return "0";
  // Below DBL_MIN: the decimal exponent and the mantissa from the log.
  int64_t e10 = static_cast<int64_t>((5.000001349509205e-7 + ln_p) / M_LN10);
  double mantissa = std::exp(ln_p - static_cast<double>(e10) * M_LN10);
  if (mantissa < 0.99999949999999) {
    mantissa *= 10;
    --e10;
  } else if (mantissa > 9.9999949999999) {
    mantissa *= 0.1;
    ++e10;
  }
  std::string m = format_plink_float(mantissa);  // 6 digits of a number in [1, 10)
  if (m == "10") {
    m = "1";
    ++e10;
  }
  return str_cat(m, e10 < 0 ? "e-" : "e+", std::abs(e10) < 10 ? "0" : "", std::abs(e10));
}

GcLambda genomic_control_lambda(const std::vector<double>& ln_p) {
  std::vector<double> v;
  v.reserve(ln_p.size());
  for (double x : ln_p)
    if (!std::isnan(x)) v.push_back(x);
  GcLambda g;
  g.tests = static_cast<int64_t>(v.size());
  if (v.empty()) return g;
  // The median χ² is the χ² of the median ln P (χ² falls as P grows): plink2 takes it at the
  // middle of its P-sorted list.
  const size_t half = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(half), v.end());
  double median = ln_p_to_chisq(v[half]);
  if (v.size() % 2 == 0) {
    const double below = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(half));
    median = (median + ln_p_to_chisq(below)) * 0.5;
  }
  g.median_chisq = median;
  g.lambda = std::max(1.0, median / 0.456);
  return g;
}

std::string adjust_label(const AdjustOptions& o, std::string_view chrom, std::string_view pos, std::string_view id,
                         std::string_view ref, std::string_view alt, std::string_view a1) {
  std::string s;
  auto add = [&](std::string_view f) {
    if (!s.empty()) s += '\t';
    s += f;
  };
  if (o.columns & kAdjustChrom) add(chrom);
  if (o.columns & kAdjustPos) add(pos);
  add(id);
  if (o.columns & kAdjustRef) add(ref);
  if (o.columns & kAdjustAlt1) add(alt.substr(0, alt.find(',')));
  if (o.columns & kAdjustAlt) add(alt);
  if (o.columns & kAdjustA1) add(a1);
  return s;
}

std::string adjusted_header(const AdjustOptions& o) {
  std::string h = "#";
  bool first = true;
  for (const ColumnName& c : kColumns) {
    const bool id_here = c.bit == kAdjustRef;  // ID sits between POS and REF, always
    if (id_here) {
      h += first ? "ID" : "\tID";
      first = false;
    }
    if (!(o.columns & c.bit)) continue;
    if (!first) h += '\t';
    first = false;
    if ((c.bit & kValueColumns) && o.log10) h += "LOG10_";
    h += c.header;
  }
  return h + "\n";
}

Status write_adjusted_rows(const AdjustOptions& o, const AdjustTests& tests,
                           const std::function<Status(const std::string&)>& write, GcLambda* lambda,
                           ThreadPool* pool) {
  // Work in chunks of rows on the pool; every value is per row or a serial running one, so the
  // bytes do not depend on the thread count.
  constexpr int64_t kChunk = 8192;
  auto chunked = [&](int64_t count, const std::function<void(int64_t, int64_t)>& body) {
    return parallel_for(pool, (count + kChunk - 1) / kChunk, [&](int64_t c) {
      body(c * kChunk, std::min(count, (c + 1) * kChunk));
      return Status::OK();
    });
  };
  std::vector<Entry> sorted;
  sorted.reserve(tests.ln_p.size());
  for (size_t i = 0; i < tests.ln_p.size(); ++i)
    if (tests.ln_p[i] <= 0.0) sorted.push_back({tests.ln_p[i], 0.0, static_cast<int64_t>(i)});
  const GcLambda gc = genomic_control_lambda(tests.ln_p);
  if (lambda) *lambda = gc;
  const auto n = static_cast<int64_t>(sorted.size());
  if (n == 0) return Status::OK();
  STRATA_RETURN_NOT_OK(chunked(n, [&](int64_t a, int64_t b) {
    for (int64_t i = a; i < b; ++i) sorted[i].chisq = ln_p_to_chisq(sorted[i].ln_p);
  }));
  // plink2's sort: std::sort by ln P alone (ties in the order std::sort leaves them).
  std::sort(sorted.begin(), sorted.end(), [](const Entry& a, const Entry& b) { return a.ln_p < b.ln_p; });
  const uint32_t c = o.columns;
  const double lambda_recip = 1.0 / gc.lambda;
  const double nd = static_cast<double>(n), ln_n = std::log(nd);
  std::vector<double> ln_gc(n), unadj(n), bh(n), by(n), sidak_ss, sidak_sd;
  if (c & kAdjustSidakSs) sidak_ss.resize(n);
  if (c & kAdjustSidakSd) sidak_sd.resize(n);
  for (int64_t i = 0; i < n; ++i) unadj[i] = sorted[i].ln_p;
  const std::vector<double>& base = o.gc ? ln_gc : unadj;  // what the corrections start from
  // Šidák in log space: 1 − (1 − p)^k, by log1p below p = 2^-7 and as k·p below 2^-90.
  auto sidak = [](double ln_p, double k, double ln_k) {
    if (ln_p <= -90 * M_LN2) return ln_p + ln_k;
    const double p = std::exp(ln_p);
    return std::log(ln_p >= -7 * M_LN2 ? 1 - std::pow(1 - p, k) : 1 - std::exp(k * std::log1p(-p)));
  };
  STRATA_RETURN_NOT_OK(chunked(n, [&](int64_t a, int64_t b) {
    for (int64_t i = a; i < b; ++i) ln_gc[i] = chisq_to_ln_p(sorted[i].chisq * lambda_recip);
    for (int64_t i = a; i < b; ++i) {
      if (!sidak_ss.empty()) sidak_ss[i] = sidak(base[i], nd, ln_n);
      const double k = nd - static_cast<double>(i);
      if (!sidak_sd.empty()) sidak_sd[i] = sidak(base[i], k, std::log(k));
    }
  }));
  // Benjamini-Hochberg and -Yekutieli: running minima from the largest P down.
  double bh_min = base[n - 1], harmonic = 1.0;
  bh[n - 1] = bh_min;
  for (int64_t a = n - 1; a > 0; --a) {
    const double term = nd / static_cast<double>(a);
    harmonic += term;
    bh_min = std::min(bh_min, base[a - 1] + std::log(term));
    bh[a - 1] = bh_min;
  }
  const double ln_harmonic = std::log(harmonic);
  double by_min = std::min(0.0, base[n - 1] - ln_n + ln_harmonic);
  by[n - 1] = by_min;
  for (int64_t a = n - 1; a > 0; --a) {
    by_min = std::min(by_min, base[a - 1] - std::log(static_cast<double>(a)) + ln_harmonic);
    by[a - 1] = by_min;
  }
  // Holm and step-down Šidák: running maxima from the smallest P up.
  std::vector<double> holm(c & kAdjustHolm ? n : 0);
  double holm_run = -DBL_MAX, sd_run = -DBL_MAX;
  for (int64_t i = 0; i < n; ++i) {
    if (!holm.empty()) {
      if (holm_run < 0.0) {
        const double next = base[i] + std::log(static_cast<double>(n - i));
        holm_run = next > 0.0 ? 0.0 : std::max(holm_run, next);
      }
      holm[i] = holm_run;
    }
    if (!sidak_sd.empty()) sidak_sd[i] = sd_run = std::max(sd_run, sidak_sd[i]);
  }
  auto format_rows = [&](int64_t a, int64_t b, std::string& out) {
    for (int64_t i = a; i < b; ++i) {
      out += tests.labels[static_cast<size_t>(sorted[i].index)];
      if (c & kAdjustUnadj) put_ln(out, unadj[i], o.log10);
      if (c & kAdjustGc) put_ln(out, ln_gc[i], o.log10);
      if (c & kAdjustQq) {
        const double qq = (static_cast<double>(i) + 0.5) * (1.0 / nd);
        out += '\t';
        out += format_plink_float(o.log10 ? -std::log10(qq) : qq);
      }
      if (c & kAdjustBonf) put_ln(out, std::min(0.0, base[i] + ln_n), o.log10);
      if (c & kAdjustHolm) put_ln(out, holm[i], o.log10);
      if (c & kAdjustSidakSs) put_ln(out, sidak_ss[i], o.log10);
      if (c & kAdjustSidakSd) put_ln(out, sidak_sd[i], o.log10);
      if (c & kAdjustFdrBh) put_ln(out, bh[i], o.log10);
      if (c & kAdjustFdrBy) put_ln(out, by[i], o.log10);
      out += '\n';
    }
  };
  // Rows formatted a batch of chunks at a time, written in order.
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  const int64_t batch = 4 * std::max(1, pool ? pool->size() : 1);
  std::vector<std::string> text(static_cast<size_t>(batch));
  for (int64_t c0 = 0; c0 < chunks; c0 += batch) {
    const int64_t c1 = std::min(chunks, c0 + batch);
    STRATA_RETURN_NOT_OK(parallel_for(pool, c1 - c0, [&](int64_t k) {
      std::string& out = text[static_cast<size_t>(k)];
      out.clear();
      format_rows((c0 + k) * kChunk, std::min(n, (c0 + k + 1) * kChunk), out);
      return Status::OK();
    }));
    for (int64_t k = 0; k < c1 - c0; ++k) STRATA_RETURN_NOT_OK(write(text[static_cast<size_t>(k)]));
  }
  return Status::OK();
}

}  // namespace strata::genomics
