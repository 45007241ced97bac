// strata glm: the family's row terms, the block kernel and the passes over X's fixed row blocks.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "linalg/glm_internal.hpp"
#include "strata/backend/backend.hpp"
#include "strata/core/shape.hpp"
#include "strata/core/tree_sum.hpp"
#include "strata/linalg/stats.hpp"

namespace strata::linalg::glm_detail {
namespace {

// Rows per sub-block of the block kernel: ~256 KiB of X, so X·β and Xᵀr (and the Hessian's
// rows) read it from cache.
int64_t sub_rows(int64_t p) { return std::max<int64_t>(16, (int64_t{32} << 10) / std::max<int64_t>(1, p)); }

// Spread n rows of `cols` values to rows of cols + 1 in place (last row first), ones appended:
// the intercept's column.
void append_ones(double* buf, int64_t n, int64_t cols) {
  for (int64_t i = n - 1; i >= 0; --i) {
    std::memmove(buf + i * (cols + 1), buf + i * cols, static_cast<size_t>(cols) * sizeof(double));
    buf[i * (cols + 1) + cols] = 1.0;
  }
}

}  // namespace

double row_terms(GlmFamily f, const double* eta, const double* y, int64_t n, double* r, double* w) {
  double loss = 0;
  switch (f) {
    case GlmFamily::Normal:
      for (int64_t i = 0; i < n; ++i) {
        const double d = eta[i] - y[i];
        loss += d * d;
        r[i] = 2.0 * d;
        if (w) w[i] = 2.0;
      }
      break;
    case GlmFamily::Logistic:
      // log(1 + e^η) − yη without overflow; p = sigmoid(η).
      for (int64_t i = 0; i < n; ++i) {
        const double e = std::exp(-std::fabs(eta[i]));
        loss += std::max(eta[i], 0.0) + std::log1p(e) - y[i] * eta[i];
        const double pr = eta[i] >= 0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
        r[i] = pr - y[i];
        if (w) w[i] = pr * (1.0 - pr);
      }
      break;
    case GlmFamily::Poisson:
      for (int64_t i = 0; i < n; ++i) {
        const double mu = std::exp(eta[i]);
        loss += mu - y[i] * eta[i];
        r[i] = mu - y[i];
        if (w) w[i] = mu;
      }
      break;
  }
  return loss;
}

Status block_eval(const backend::Backend& be, GlmFamily f, const double* x, const double* y, int64_t rows, int64_t p,
                  const double* beta, unsigned want, double* loss, double* grad, double* hess, const double* eta_in,
                  double* eta_out, double* xmax) {
  using backend::Trans;
  const int64_t s = std::min(rows, sub_rows(p));
  const bool need_w = want & kHess;
  std::vector<double> eta(static_cast<size_t>(s)), r(static_cast<size_t>(s)), w(need_w ? static_cast<size_t>(s) : 0);
  const auto bv = backend::col_major<const double>(beta, p, 1);
  for (int64_t i0 = 0; i0 < rows; i0 += s) {
    const int64_t ns = std::min(s, rows - i0);
    const double* xs = x + i0 * p;
    const auto xv = backend::row_major<const double>(xs, ns, p);
    const double* e = eta.data();
    if (eta_in) {
      e = eta_in + i0;
    } else {
      STRATA_RETURN_NOT_OK(be.gemm(Trans::No, Trans::No, 1.0, xv, bv, 0.0, backend::col_major(eta.data(), ns, 1)));
    }
    if (eta_out) std::memcpy(eta_out + i0, e, static_cast<size_t>(ns) * sizeof(double));
    const double l = row_terms(f, e, y + i0, ns, r.data(), need_w ? w.data() : nullptr);
    if (want & kLoss) *loss += l;
    if (want & kGrad)
      STRATA_RETURN_NOT_OK(be.gemm(Trans::Yes, Trans::No, 1.0, xv, backend::col_major<const double>(r.data(), ns, 1),
                                   1.0, backend::col_major(grad, p, 1)));
    if (want & kHess)
      STRATA_RETURN_NOT_OK(be.weighted_gram_rows(xv, w.data(), backend::row_major(hess, p, p)));
    if (xmax)  // the sub-block is still in cache
      for (int64_t k = 0; k < ns * p; ++k) *xmax = std::max(*xmax, std::fabs(xs[k]));
  }
  return Status::OK();
}

Result<std::unique_ptr<GlmData>> GlmData::make(const Context& ctx, const RowBlockSource& x, std::span<const double> y,
                                               bool intercept, GlmFamily family) {
  std::unique_ptr<GlmData> d(new GlmData(ctx.local(), x));
  d->cols_ = x.cols();
  d->intercept_ = intercept;
  d->family_ = family;
  d->p_ = x.cols() + (intercept ? 1 : 0);
  if (static_cast<int64_t>(y.size()) != x.rows())
    return Status::InvalidData("y has ", y.size(), " values but X (", x.describe(), ") has ", x.rows(), " rows");
  if (x.rows() == 0) return Status::InvalidData(x.describe(), ": X has no rows");
  if (d->p_ == 0) return Status::InvalidData(x.describe(), ": X has no columns (and no --intercept)");
  d->y_.assign(y.begin(), y.end());
  PassEnv env(d->ctx_, PassOptions{});
  STRATA_ASSIGN_OR_RETURN(int64_t row_bytes, checked_mul(d->p_, int64_t{8}));
  STRATA_ASSIGN_OR_RETURN(d->plan_, plan_blocks(x, env, row_bytes));
  STRATA_ASSIGN_OR_RETURN(int64_t all_bytes, checked_mul(row_bytes, x.rows()));
  d->resident_ = all_bytes <= ctx.memory_budget() / 2;
  if (!d->resident_) {
    // Streamed: read units of several blocks, so a stored chunk taller than a block is read
    // (and decoded) about once per pass rather than once per block it overlaps; as many as the
    // budget allows with two units per worker in flight.
    const int64_t chunk = std::max<int64_t>(1, x.preferred_block_rows());
    const int64_t block_bytes = d->plan_.block_rows * row_bytes;
    const int64_t fit = ctx.memory_budget() / std::max<int64_t>(1, 2 * ctx.threads() * block_bytes);
    d->group_ = std::clamp<int64_t>(fit, 1, std::max<int64_t>(1, 2 * ceil_div(chunk, d->plan_.block_rows)));
  }
  d->progress_ = std::make_unique<ProgressScope>(d->ctx_, "glm", 0, "rows");
  if (d->resident_) STRATA_RETURN_NOT_OK(d->load_resident());
  return d;
}

// Resident X: one load pass in units of whole storage chunks (each stored chunk is read and
// decoded once, straight into place), or no copy at all when the source is row-major float64
// memory and no intercept column is appended.
Status GlmData::load_resident() {
  if (!intercept_) {
    resident_base_ = x_.direct_rows(0, plan_.rows);
    if (resident_base_) return Status::OK();
  }
  STRATA_ASSIGN_OR_RETURN(resident_rows_, Buffer::allocate(plan_.rows * p_ * 8));
  double* base = resident_rows_.as<double>();
  const int64_t chunk = x_.preferred_block_rows() > 0 ? x_.preferred_block_rows() : plan_.block_rows;
  const int64_t unit = std::max<int64_t>(1, plan_.block_rows / chunk) * chunk;
  const int64_t units = ceil_div(plan_.rows, unit);
  progress_->add_total(plan_.rows);
  PassOptions o;
  o.label = "glm load";
  o.progress_units = [&](int64_t u) { return std::min(unit, plan_.rows - u * unit); };
  return strata::run_blocks(
      ctx_, units, 0,
      [&](int64_t u) -> Status {
        const int64_t row0 = u * unit, n = std::min(unit, plan_.rows - row0);
        double* buf = base + row0 * p_;
        STRATA_RETURN_NOT_OK(x_.read_block(row0, n, buf));
        if (intercept_) append_ones(buf, n, cols_);
        return Status::OK();
      },
      [](int64_t) { return Status::OK(); }, o);
}

Status GlmData::pass(const std::string& label, int64_t width, const BlockFn& fn, std::vector<double>* total) {
  ++passes_;
  progress_->add_total(plan_.rows);
  PassOptions o;
  o.label = label;
  // Work items are units of group_ consecutive blocks (one read each when streamed); every
  // block's partial is computed alone and pushed in block order, so the sums do not depend on
  // the grouping.
  const int64_t g = group_, units = ceil_div(plan_.num_blocks, g);
  const int64_t window = std::max<int64_t>(1, pass_window(ctx_, o));
  const int64_t w = std::max<int64_t>(width, 0);
  std::vector<std::vector<std::vector<double>>> slots(static_cast<size_t>(window));
  TreeSum sum(w);
  const int64_t unit_bytes = (resident_ ? 0 : g * plan_.block_rows * p_ * 8) + g * w * 8 + sub_rows(p_) * (p_ + 3) * 8;
  o.progress_units = [&](int64_t u) {
    const int64_t b0 = u * g, b1 = std::min(plan_.num_blocks, b0 + g);
    return plan_.start(b1 - 1) + plan_.count(b1 - 1) - plan_.start(b0);
  };
  STRATA_RETURN_NOT_OK(strata::run_blocks(
      ctx_, units, std::min(unit_bytes, ctx_.memory_budget()),
      [&](int64_t u) -> Status {
        const int64_t b0 = u * g, b1 = std::min(plan_.num_blocks, b0 + g);
        const int64_t row0 = plan_.start(b0), rows = plan_.start(b1 - 1) + plan_.count(b1 - 1) - row0;
        std::optional<ScratchPool::Lease> lease;
        const double* x = nullptr;
        if (resident_) {
          x = (resident_base_ ? resident_base_ : resident_rows_.as<double>()) + row0 * p_;
        } else {
          STRATA_ASSIGN_OR_RETURN(auto l, scratch_.acquire(rows * p_ * 8));
          lease.emplace(std::move(l));
          double* buf = lease->as<double>();
          STRATA_RETURN_NOT_OK(x_.read_block(row0, rows, buf));
          if (intercept_) append_ones(buf, rows, cols_);
          x = buf;
        }
        auto& parts = slots[static_cast<size_t>(u % window)];
        parts.assign(static_cast<size_t>(b1 - b0), std::vector<double>(static_cast<size_t>(w), 0.0));
        for (int64_t b = b0; b < b1; ++b)
          STRATA_RETURN_NOT_OK(fn(b, x + (plan_.start(b) - row0) * p_, plan_.count(b), plan_.start(b),
                                  parts[static_cast<size_t>(b - b0)].data()));
        return Status::OK();
      },
      [&](int64_t u) -> Status {
        auto& parts = slots[static_cast<size_t>(u % window)];
        if (w > 0)
          for (size_t i = 0; i < parts.size(); ++i) sum.push(u * g + static_cast<int64_t>(i), std::move(parts[i]));
        parts.clear();
        return Status::OK();
      },
      o));
  if (w > 0 && total) return sum.combine(ctx_.communicator(), total);
  return Status::OK();
}

Status GlmData::evaluate(const std::vector<double>& beta, unsigned want, Eval* out,
                         const std::vector<double>* eta_in, std::vector<double>* eta_out) {
  const int64_t p = p_;
  const int64_t hw = (want & kHess) ? p * p : 0, gw = (want & kGrad) ? p : 0;
  const backend::Backend& be = backend::of(ctx_);
  if (eta_out) eta_out->resize(static_cast<size_t>(plan_.rows));
  std::vector<double> total;
  // The first Hessian pass also finds max |x| (per block, then the largest).
  std::vector<double> xmax(hw && x_abs_max_ < 0 ? static_cast<size_t>(plan_.num_blocks) : 0, 0.0);
  STRATA_RETURN_NOT_OK(pass(
      "glm", 1 + gw + hw,
      [&](int64_t b, const double* x, int64_t n, int64_t row0, double* part) -> Status {
        return block_eval(be, family_, x, y_.data() + row0, n, p, beta.data(), want | kLoss, part,
                          gw ? part + 1 : nullptr, hw ? part + 1 + gw : nullptr,
                          eta_in ? eta_in->data() + row0 : nullptr, eta_out ? eta_out->data() + row0 : nullptr,
                          xmax.empty() ? nullptr : &xmax[static_cast<size_t>(b)]);
      },
      &total));
  if (!xmax.empty()) x_abs_max_ = *std::max_element(xmax.begin(), xmax.end());
  out->loss = total[0];
  out->grad.assign(total.begin() + 1, total.begin() + 1 + gw);
  out->hess.assign(total.begin() + 1 + gw, total.end());
  for (int64_t i = 0; i < (hw ? p : 0); ++i)  // the lower triangle (row-major) onto the upper
    for (int64_t j = 0; j < i; ++j) out->hess[static_cast<size_t>(j * p + i)] = out->hess[static_cast<size_t>(i * p + j)];
  return Status::OK();
}

Status GlmData::multiply(const std::vector<double>& v, std::vector<double>* out) {
  out->resize(static_cast<size_t>(plan_.rows));
  const backend::Backend& be = backend::of(ctx_);
  return pass(
      "glm X·v", 0,
      [&](int64_t, const double* x, int64_t n, int64_t row0, double*) -> Status {
        return be.gemm(backend::Trans::No, backend::Trans::No, 1.0, backend::row_major<const double>(x, n, p_),
                       backend::col_major<const double>(v.data(), p_, 1), 0.0,
                       backend::col_major(out->data() + row0, n, 1));
      },
      nullptr);
}

double penalty_value(const GlmParams& p, const std::vector<double>& beta) {
  double l1 = 0, l2 = 0;
  for (double b : beta) {
    l1 += std::fabs(b);
    l2 += b * b;
  }
  switch (p.penalty) {
    case GlmPenalty::None: return 0.0;
    case GlmPenalty::L1: return p.lambda * l1;
    case GlmPenalty::L2: return p.lambda * l2 / 2;
    case GlmPenalty::ElasticNet: return p.lambda * (p.alpha * l1 + (1 - p.alpha) * l2 / 2);
  }
  return 0.0;
}

void penalty_prox(const GlmParams& p, double t, std::vector<double>& beta) {
  auto soft = [](double b, double s) { return b > s ? b - s : (b < -s ? b + s : 0.0); };
  for (double& b : beta) {
    switch (p.penalty) {
      case GlmPenalty::None: break;
      case GlmPenalty::L1: b = soft(b, t); break;
      case GlmPenalty::L2: b = b / (1 + t); break;
      case GlmPenalty::ElasticNet: b = soft(b, p.alpha * t) / (1 + (1 - p.alpha) * t); break;
    }
  }
}

Result<std::vector<double>> solve_symmetric(const Context& ctx, std::vector<double> h, const std::vector<double>& g,
                                            int64_t p) {
  // Not LAPACK's "argument rejected": say which input is at fault.
  for (double v : h)
    if (!std::isfinite(v))
      return Status::InvalidData("X: the information matrix XᵀWX is not finite (X holds values too large for float64 "
                                 "sums of squares, near 1e154 or above, or not finite); rescale X");
  std::vector<double> l = h;  // symmetric: row-major = column-major
  if (cholesky(l, p)) {
    std::vector<double> s = g;
    for (int64_t i = 0; i < p; ++i) {  // L·u = g
      double v = s[i];
      for (int64_t k = 0; k < i; ++k) v -= l[i * p + k] * s[k];
      s[i] = v / l[i * p + i];
    }
    for (int64_t i = p - 1; i >= 0; --i) {  // Lᵀ·s = u
      double v = s[i];
      for (int64_t k = i + 1; k < p; ++k) v -= l[k * p + i] * s[k];
      s[i] = v / l[i * p + i];
    }
    return s;
  }
  // Minimum-norm least squares through the eigendecomposition (lstsq's rcond: eps·p·max|λ|).
  std::vector<double> w(static_cast<size_t>(p));
  const backend::Backend& be = backend::of(ctx);
  STRATA_RETURN_NOT_OK(be.syev(backend::col_major(h.data(), p, p), w.data(), true));
  double wmax = 0;
  for (double v : w) wmax = std::max(wmax, std::fabs(v));
  const double cut = wmax * static_cast<double>(p) * 2.220446049250313e-16;
  std::vector<double> s(static_cast<size_t>(p), 0.0);
  for (int64_t k = 0; k < p; ++k) {
    if (!(std::fabs(w[k]) > cut)) continue;
    double c = 0;
    for (int64_t i = 0; i < p; ++i) c += h[i + k * p] * g[i];
    c /= w[k];
    for (int64_t i = 0; i < p; ++i) s[i] += c * h[i + k * p];
  }
  return s;
}

}  // namespace strata::linalg::glm_detail
