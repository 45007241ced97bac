// strata glm: the family's row terms, the block kernel and the passes over X's fixed row blocks.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "linalg/glm_internal.hpp"
#include "strata/backend/backend.hpp"
#include "strata/core/shape.hpp"
#include "strata/core/tree_sum.hpp"
#include "strata/linalg/stats.hpp"

namespace strata::linalg {
namespace {

// Only the shape: what plan_blocks reads of a source.
class ShapeOnly final : public RowBlockSource {
 public:
  ShapeOnly(int64_t rows, int64_t cols) : rows_(rows), cols_(cols) {}
  int64_t rows() const override { return rows_; }
  int64_t cols() const override { return cols_; }
  std::string describe() const override { return "X"; }
  Status read_block(int64_t, int64_t, double*) const override { return Status::Internal("a shape has no rows"); }

 private:
  int64_t rows_, cols_;
};

}  // namespace

// The grid follows plan_blocks' rule for rows of p float64 values (about kRowBlockBytes each),
// as every pass of fit_glm does: the shape alone decides it.
Result<GlmBlockGrid> glm_block_grid(const Context& ctx, int64_t rows, int64_t cols, bool intercept) {
  GlmBlockGrid g;
  g.rows = rows;
  g.cols = cols;
  g.p = cols + (intercept ? 1 : 0);
  if (rows < 1 || cols < 0 || g.p < 1)
    return Status::Invalid("glm: X of ", rows, " rows × ", cols, " columns", intercept ? " (+ the intercept)" : "",
                           " has nothing to fit");
  PassEnv env(ctx, PassOptions{});
  STRATA_ASSIGN_OR_RETURN(int64_t row_bytes, checked_mul(g.p, int64_t{8}));
  STRATA_ASSIGN_OR_RETURN(BlockPlan plan, plan_blocks(ShapeOnly(rows, cols), env, row_bytes));
  g.block_rows = plan.block_rows;
  g.num_blocks = plan.num_blocks;
  return g;
}

}  // namespace strata::linalg

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
  std::unique_ptr<GlmData> d(new GlmData(ctx.local(), &x));
  d->cols_ = x.cols();
  d->intercept_ = intercept;
  d->family_ = family;
  d->p_ = x.cols() + (intercept ? 1 : 0);
  if (static_cast<int64_t>(y.size()) != x.rows())
    return Status::InvalidData("y has ", y.size(), " values but X (", x.describe(), ") has ", x.rows(), " rows");
  if (x.rows() == 0) return Status::InvalidData(x.describe(), ": X has no rows");
  if (d->p_ == 0) return Status::InvalidData(x.describe(), ": X has no columns (and no --intercept)");
  d->y_.assign(y.begin(), y.end());
  STRATA_ASSIGN_OR_RETURN(GlmBlockGrid grid, glm_block_grid(d->ctx_, x.rows(), x.cols(), intercept));
  d->plan_.rows = grid.rows;
  d->plan_.block_rows = grid.block_rows;
  d->plan_.num_blocks = grid.num_blocks;
  d->plan_.bytes_per_row = grid.p * 8;
  const int64_t row_bytes = d->plan_.bytes_per_row;
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

Result<std::unique_ptr<GlmData>> GlmData::make_remote(const Context& ctx, int64_t rows, int64_t cols,
                                                      std::shared_ptr<GlmBlockRunner> runner,
                                                      std::span<const double> y, bool intercept, GlmFamily family) {
  if (!runner) return Status::Invalid("glm: no block runner");
  if (static_cast<int64_t>(y.size()) != rows)
    return Status::InvalidData("y has ", y.size(), " values but X has ", rows, " rows");
  if (rows == 0) return Status::InvalidData("X has no rows");
  if (cols + (intercept ? 1 : 0) == 0) return Status::InvalidData("X has no columns (and no intercept)");
  std::unique_ptr<GlmData> d(new GlmData(ctx.local(), nullptr));
  d->runner_ = std::move(runner);
  d->cols_ = cols;
  d->intercept_ = intercept;
  d->family_ = family;
  d->p_ = cols + (intercept ? 1 : 0);
  d->resident_ = true;  // the runner holds the decoded blocks across passes
  d->y_.assign(y.begin(), y.end());
  STRATA_ASSIGN_OR_RETURN(GlmBlockGrid grid, glm_block_grid(d->ctx_, rows, cols, intercept));
  d->plan_.rows = grid.rows;
  d->plan_.block_rows = grid.block_rows;
  d->plan_.num_blocks = grid.num_blocks;
  d->plan_.bytes_per_row = grid.p * 8;
  d->progress_ = std::make_unique<ProgressScope>(d->ctx_, "glm", 0, "rows");
  STRATA_RETURN_NOT_OK(d->runner_->plan(grid));
  return d;
}

// Resident X: one load pass in units of whole storage chunks (each stored chunk is read and
// decoded once, straight into place), or no copy at all when the source is row-major float64
// memory and no intercept column is appended.
Status GlmData::load_resident() {
  if (!intercept_) {
    resident_base_ = x_->direct_rows(0, plan_.rows);
    if (resident_base_) return Status::OK();
  }
  STRATA_ASSIGN_OR_RETURN(resident_rows_, Buffer::allocate(plan_.rows * p_ * 8));
  double* base = resident_rows_.as<double>();
  const int64_t chunk = x_->preferred_block_rows() > 0 ? x_->preferred_block_rows() : plan_.block_rows;
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
        STRATA_RETURN_NOT_OK(x_->read_block(row0, n, buf));
        if (intercept_) append_ones(buf, n, cols_);
        return Status::OK();
      },
      [](int64_t) { return Status::OK(); }, o);
}

// Block b's inputs sliced from the pass's whole arrays.
static GlmBlockInput block_input(const BlockPlan& plan, int64_t p, int64_t b, std::span<const double> eta,
                                 std::span<const double> u, std::span<const double> betas) {
  GlmBlockInput in;
  if (!eta.empty()) in.eta = eta.subspan(static_cast<size_t>(plan.start(b)), static_cast<size_t>(plan.count(b)));
  if (!u.empty()) in.u = u.subspan(static_cast<size_t>(b * p), static_cast<size_t>(p));
  if (!betas.empty()) in.beta = betas.subspan(static_cast<size_t>(b * p), static_cast<size_t>(p));
  return in;
}

Status GlmData::run_here(const std::string& label, const GlmBlockTask& task, std::span<const double> eta,
                         std::span<const double> u, std::span<const double> betas,
                         const std::function<Status(int64_t, GlmBlockOutput&&)>& accept) {
  PassOptions o;
  o.label = label;
  // Work items are units of group_ consecutive blocks (one read each when streamed); every
  // block's output is computed alone and handed on in block order, so the sums do not depend
  // on the grouping.
  const int64_t g = group_, units = ceil_div(plan_.num_blocks, g);
  const int64_t window = std::max<int64_t>(1, pass_window(ctx_, o));
  const int64_t w = glm_partial_width(task, p_);
  const bool rows_out = task.op == GlmBlockOp::Multiply || task.eta_out;
  std::vector<std::vector<GlmBlockOutput>> slots(static_cast<size_t>(window));
  const int64_t unit_bytes = (resident_ ? 0 : g * plan_.block_rows * p_ * 8) + g * w * 8 +
                             (rows_out ? g * plan_.block_rows * 8 : 0) + sub_rows(p_) * (p_ + 3) * 8;
  o.progress_units = [&](int64_t u) {
    const int64_t b0 = u * g, b1 = std::min(plan_.num_blocks, b0 + g);
    return plan_.start(b1 - 1) + plan_.count(b1 - 1) - plan_.start(b0);
  };
  return strata::run_blocks(
      ctx_, units, std::min(unit_bytes, ctx_.memory_budget()),
      [&](int64_t un) -> Status {
        const int64_t b0 = un * g, b1 = std::min(plan_.num_blocks, b0 + g);
        const int64_t row0 = plan_.start(b0), rows = plan_.start(b1 - 1) + plan_.count(b1 - 1) - row0;
        std::optional<ScratchPool::Lease> lease;
        const double* x = nullptr;
        if (resident_) {
          x = (resident_base_ ? resident_base_ : resident_rows_.as<double>()) + row0 * p_;
        } else {
          STRATA_ASSIGN_OR_RETURN(auto l, scratch_.acquire(rows * p_ * 8));
          lease.emplace(std::move(l));
          double* buf = lease->as<double>();
          STRATA_RETURN_NOT_OK(x_->read_block(row0, rows, buf));
          if (intercept_) append_ones(buf, rows, cols_);
          x = buf;
        }
        auto& outs = slots[static_cast<size_t>(un % window)];
        outs.clear();
        for (int64_t b = b0; b < b1; ++b) {
          STRATA_ASSIGN_OR_RETURN(GlmBlockOutput out,
                                  glm_block_partial(ctx_, x + (plan_.start(b) - row0) * p_, y_.data() + plan_.start(b),
                                                    plan_.count(b), p_, task, block_input(plan_, p_, b, eta, u, betas)));
          outs.push_back(std::move(out));
        }
        return Status::OK();
      },
      [&](int64_t un) -> Status {
        auto& outs = slots[static_cast<size_t>(un % window)];
        for (size_t i = 0; i < outs.size(); ++i)
          STRATA_RETURN_NOT_OK(accept(un * g + static_cast<int64_t>(i), std::move(outs[i])));
        outs.clear();
        return Status::OK();
      },
      o);
}

Status GlmData::run(const std::string& label, const GlmBlockTask& task, std::span<const double> eta,
                    std::span<const double> u, std::span<const double> betas, std::vector<double>* total,
                    const EachFn& each) {
  ++passes_;
  progress_->add_total(plan_.rows);
  const int64_t w = glm_partial_width(task, p_);
  const bool rows_out = task.op == GlmBlockOp::Multiply || task.eta_out;
  TreeSum sum(w);
  int64_t next = 0;
  // Every block once, in order, with outputs of the task's sizes: a runner that breaks this is
  // an error here, never a wrong sum.
  auto accept = [&](int64_t b, GlmBlockOutput&& out) -> Status {
    if (b != next || b >= plan_.num_blocks)
      return Status::Internal("glm ", label, ": block ", b, " handed back where block ", next, " of ",
                              plan_.num_blocks, " was due");
    ++next;
    if (static_cast<int64_t>(out.partial.size()) != w)
      return Status::Internal("glm ", label, ": block ", b, "'s partial has ", out.partial.size(), " values, expected ",
                              w);
    if (rows_out && static_cast<int64_t>(out.rows.size()) != plan_.count(b))
      return Status::Internal("glm ", label, ": block ", b, " handed back ", out.rows.size(), " rows, expected ",
                              plan_.count(b));
    if (task.op == GlmBlockOp::Admm && static_cast<int64_t>(out.beta.size()) != p_)
      return Status::Internal("glm ", label, ": block ", b, " handed back ", out.beta.size(), " coefficients, expected ",
                              p_);
    if (runner_) ctx_.advance_progress(plan_.count(b));
    if (each) STRATA_RETURN_NOT_OK(each(b, out));
    if (w > 0) sum.push(b, std::move(out.partial));
    return Status::OK();
  };
  if (runner_) {
    STRATA_RETURN_NOT_OK(runner_->run(task, eta, u, betas, accept));
  } else {
    STRATA_RETURN_NOT_OK(run_here(label, task, eta, u, betas, accept));
  }
  if (next != plan_.num_blocks)
    return Status::Internal("glm ", label, ": ", next, " of ", plan_.num_blocks, " blocks handed back");
  if (w > 0 && total) return sum.combine(ctx_.communicator(), total);
  return Status::OK();
}

Status GlmData::evaluate(const std::vector<double>& beta, unsigned want, Eval* out,
                         const std::vector<double>* eta_in, std::vector<double>* eta_out) {
  const int64_t p = p_;
  GlmBlockTask task;
  task.op = GlmBlockOp::Evaluate;
  task.family = family_;
  task.want = want | kLoss;
  task.eta_in = eta_in != nullptr;
  task.eta_out = eta_out != nullptr;
  // The first Hessian pass also finds max |x| (per block, then the largest).
  task.x_abs_max = (want & kHess) && x_abs_max_ < 0;
  task.beta = beta;
  const int64_t hw = (want & kHess) ? p * p : 0, gw = (want & kGrad) ? p : 0;
  if (eta_out) eta_out->resize(static_cast<size_t>(plan_.rows));
  double xmax = 0;
  std::vector<double> total;
  STRATA_RETURN_NOT_OK(run(
      "glm", task, eta_in ? std::span<const double>(*eta_in) : std::span<const double>(), {}, {}, &total,
      [&](int64_t b, GlmBlockOutput& o) -> Status {
        if (eta_out) std::copy(o.rows.begin(), o.rows.end(), eta_out->begin() + plan_.start(b));
        if (task.x_abs_max) xmax = std::max(xmax, o.x_abs_max);
        return Status::OK();
      }));
  if (task.x_abs_max) x_abs_max_ = xmax;
  out->loss = total[0];
  out->grad.assign(total.begin() + 1, total.begin() + 1 + gw);
  out->hess.assign(total.begin() + 1 + gw, total.end());
  for (int64_t i = 0; i < (hw ? p : 0); ++i)  // the lower triangle (row-major) onto the upper
    for (int64_t j = 0; j < i; ++j) out->hess[static_cast<size_t>(j * p + i)] = out->hess[static_cast<size_t>(i * p + j)];
  return Status::OK();
}

Status GlmData::multiply(const std::vector<double>& v, std::vector<double>* out) {
  out->resize(static_cast<size_t>(plan_.rows));
  GlmBlockTask task;
  task.op = GlmBlockOp::Multiply;
  task.family = family_;
  task.beta = v;
  return run("glm X·v", task, {}, {}, {}, nullptr, [&](int64_t b, GlmBlockOutput& o) -> Status {
    std::copy(o.rows.begin(), o.rows.end(), out->begin() + plan_.start(b));
    return Status::OK();
  });
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
