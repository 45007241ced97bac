// strata.glm: GLM fits on numpy arrays (read in place) and Zarr arrays (streamed), and on a
// Dask array whose blocks the workers hold (python/strata/_dask_glm.py): the worker's block
// function and the driver's fit whose passes call back into Python to run the block tasks.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <cmath>
#include <cstring>
#include <optional>

#include "common.hpp"
#include "python_calls.hpp"
#include "strata/linalg/glm.hpp"
#include "strata/linalg/glm_remote.hpp"

namespace strata::python {
namespace {

using Matrix = nb::ndarray<const double, nb::ndim<2>, nb::c_contig, nb::device::cpu>;
using Vector = nb::ndarray<const double, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

void bind_glm_params(nb::module_& m) {
  using linalg::GlmParams;
  // Enums as the library spells them; max_iter / tol are None for the solver's own default
  // (kGlmDefaultMaxIter / kGlmDefaultTol), and any number given goes to the library's check
  // as it is (NaN too: only None means the default).
  nb::class_<GlmParams> cls(m, "GlmParams");
  cls.def(nb::init<>());
  enum_property(cls, "family", &GlmParams::family, linalg::glm_family_name, linalg::parse_glm_family);
  enum_property(cls, "solver", &GlmParams::solver, linalg::glm_solver_name, linalg::parse_glm_solver);
  enum_property(cls, "penalty", &GlmParams::penalty, linalg::glm_penalty_name, linalg::parse_glm_penalty);
  cls.def_rw("lam", &GlmParams::lambda)  // "lambda" is a Python keyword; strata.glm's lam=
      .def_rw("alpha", &GlmParams::alpha)
      .def_rw("intercept", &GlmParams::intercept)
      .def_prop_rw(
          "max_iter",
          [](const GlmParams& p) -> std::optional<int64_t> {
            if (p.max_iter == linalg::kGlmDefaultMaxIter) return std::nullopt;
            return p.max_iter;
          },
          [](GlmParams& p, std::optional<int64_t> v) {
            if (v) check(linalg::check_glm_max_iter(*v));
            p.max_iter = v.value_or(linalg::kGlmDefaultMaxIter);
          },
          nb::arg().none())
      .def_prop_rw(
          "tol",
          [](const GlmParams& p) -> std::optional<double> {
            if (std::isnan(p.tol)) return std::nullopt;
            return p.tol;
          },
          [](GlmParams& p, std::optional<double> v) {
            if (v) check(linalg::check_glm_tol(*v));
            p.tol = v.value_or(linalg::kGlmDefaultTol);
          },
          nb::arg().none())
      .def_rw("ftol", &GlmParams::ftol)
      .def_rw("rho", &GlmParams::rho)
      .def_rw("over_relax", &GlmParams::over_relax)
      .def_rw("abstol", &GlmParams::abstol)
      .def_rw("reltol", &GlmParams::reltol);
}

nb::dict result_of(linalg::GlmResult&& r) {
  nb::dict d;
  nb::list terms, log, warnings;
  for (const auto& t : r.terms) terms.append(t);
  for (const auto& w : r.warnings) warnings.append(w);
  for (const auto& it : r.log) {
    nb::dict e;
    e["iteration"] = it.iteration;
    e["objective"] = it.objective;
    e["change"] = it.change;
    e["step"] = it.step;
    e["passes"] = it.passes;
    log.append(e);
  }
  d["terms"] = terms;
  d["coef"] = vector_array(std::move(r.coef));
  d["has_stats"] = r.has_stats;
  d["se"] = vector_array(std::move(r.se));
  d["stat"] = vector_array(std::move(r.stat));
  d["p"] = vector_array(std::move(r.p));
  d["t_stat"] = r.t_stat;
  d["df_resid"] = r.df_resid;
  d["objective"] = r.objective;
  d["iterations"] = r.iterations;
  d["passes"] = r.passes;
  d["converged"] = r.converged;
  d["resident"] = r.resident;
  d["log"] = log;
  d["warnings"] = warnings;
  d["design_check"] = r.design_check;
  d["separation"] = r.separation;
  return d;
}

nb::dict fit_of(const PyContext& pc, const linalg::RowBlockSource& x, const Vector& y, const linalg::GlmParams& p) {
  std::span<const double> ys(y.data(), static_cast<size_t>(y.shape(0)));
  linalg::GlmResult r = released(pc, [&] { return linalg::fit_glm(pc.ctx(), x, ys, p); });
  const Summary summary = linalg::glm_result_summary(r, p);  // as `strata glm --report`
  nb::dict d = result_of(std::move(r));
  d["summary"] = summary_dict(summary);
  return d;
}

constexpr const char* kOps[] = {"evaluate", "multiply", "admm", "design"};

using AnyVector = nb::ndarray<const double, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

// A task as a plain tuple (it travels to the workers pickled): (op, family, want, eta_in,
// eta_out, x_abs_max, rho, beta).
nb::tuple task_tuple(const linalg::GlmBlockTask& t) {
  std::vector<double> beta = t.beta;
  return nb::make_tuple(kOps[static_cast<int>(t.op)], linalg::glm_family_name(t.family), t.want, t.eta_in, t.eta_out,
                        t.x_abs_max, t.rho, vector_array(std::move(beta)));
}

linalg::GlmBlockTask task_of(const nb::tuple& t) {
  if (t.size() != 8) throw StatusError(Status::Invalid("glm block task: expected 8 fields, got ", t.size()));
  linalg::GlmBlockTask task;
  const std::string op = nb::cast<std::string>(t[0]);
  size_t i = 0;
  while (i < std::size(kOps) && op != kOps[i]) ++i;
  if (i == std::size(kOps)) throw StatusError(Status::Invalid("glm block task: unknown op '", op, "'"));
  task.op = static_cast<linalg::GlmBlockOp>(i);
  task.family = take(linalg::parse_glm_family(nb::cast<std::string>(t[1])));
  task.want = nb::cast<unsigned>(t[2]);
  task.eta_in = nb::cast<bool>(t[3]);
  task.eta_out = nb::cast<bool>(t[4]);
  task.x_abs_max = nb::cast<bool>(t[5]);
  task.rho = nb::cast<double>(t[6]);
  const AnyVector beta = nb::cast<AnyVector>(t[7]);
  task.beta.assign(beta.data(), beta.data() + beta.shape(0));
  return task;
}

std::vector<double> doubles_of(const nb::handle& h) {
  if (h.is_none()) return {};
  const AnyVector a = nb::cast<AnyVector>(h);
  return std::vector<double>(a.data(), a.data() + a.shape(0));
}

nb::object array_or_none(std::span<const double> v) {
  if (v.empty()) return nb::none();
  return nb::cast(vector_array(std::vector<double>(v.begin(), v.end())));
}

// The driver's runner: Python callables plan(block_rows, num_blocks, p) and run(task, eta, u,
// betas) -> [(partial, rows, beta, x_abs_max)] in block order (rows/beta None when the task
// has none). Called with the GIL released by the library; a Python exception is kept and
// raised from strata.glm.
class PyGlmRunner final : public linalg::GlmBlockRunner {
 public:
  PyGlmRunner(nb::object plan, nb::object run) : plan_(std::move(plan)), run_(std::move(run)) {}
  ~PyGlmRunner() override {
    nb::gil_scoped_acquire gil;
    plan_.reset();
    run_.reset();
  }
  Status plan(const linalg::GlmBlockGrid& g) override {
    return call([&] { plan_(g.block_rows, g.num_blocks, g.p); });
  }
  Status run(const linalg::GlmBlockTask& task, std::span<const double> eta, std::span<const double> u,
             std::span<const double> betas,
             const std::function<Status(int64_t, linalg::GlmBlockOutput&&)>& add) override {
    Status st;
    Status ran = call([&] {
      nb::list outs = nb::cast<nb::list>(run_(task_tuple(task), array_or_none(eta), array_or_none(u),
                                              array_or_none(betas)));
      for (size_t b = 0; b < outs.size() && st.ok(); ++b) {
        nb::tuple t = nb::cast<nb::tuple>(outs[b]);
        if (t.size() != 4) throw StatusError(Status::Internal("glm block output: expected 4 fields, got ", t.size()));
        linalg::GlmBlockOutput o;
        o.partial = doubles_of(t[0]);
        o.rows = doubles_of(t[1]);
        o.beta = doubles_of(t[2]);
        o.x_abs_max = nb::cast<double>(t[3]);
        nb::gil_scoped_release release;
        st = add(static_cast<int64_t>(b), std::move(o));
      }
    });
    return ran.ok() ? st : ran;
  }
  std::optional<nb::python_error> take_error() { return calls_.take_error(); }

 private:
  template <class F>
  Status call(F&& f) {
    return calls_.call("distributed glm pass", std::forward<F>(f));
  }
  nb::object plan_, run_;
  PythonCalls calls_;
};

}  // namespace

void bind_glm(nb::module_& m) {
  bind_glm_params(m);
  m.def("glm_dense", [](const PyContext& pc, const Matrix& x, const Vector& y, const linalg::GlmParams& p) {
    auto src = linalg::make_dense_source(x.data(), static_cast<int64_t>(x.shape(0)), static_cast<int64_t>(x.shape(1)));
    return fit_of(pc, *src, y, p);
  }, nb::arg("ctx"), nb::arg("x"), nb::arg("y"), nb::arg("params"));
  m.def("glm_zarr", [](const PyContext& pc, const std::string& path, const Vector& y, const linalg::GlmParams& p) {
    auto src = released([&] { return linalg::open_zarr_source(path); });
    return fit_of(pc, *src, y, p);
  }, nb::arg("ctx"), nb::arg("path"), nb::arg("y"), nb::arg("params"));
  m.def("glm_block_grid", [](const PyContext& pc, int64_t rows, int64_t cols, bool intercept) {
    const linalg::GlmBlockGrid g = take(linalg::glm_block_grid(pc.ctx(), rows, cols, intercept));
    return nb::make_tuple(g.block_rows, g.num_blocks, g.p);
  }, nb::arg("ctx"), nb::arg("rows"), nb::arg("cols"), nb::arg("intercept"));
  // One block's part of a pass, on a worker: x its rows (ones appended for the intercept), y its
  // responses, the task tuple and the block's inputs (eta rows, u_b, β_b; None when unused).
  m.def("glm_block_partial", [](const PyContext& pc, const Matrix& x, const Vector& y, const nb::tuple& task,
                                nb::object eta, nb::object u, nb::object beta) {
    const linalg::GlmBlockTask t = task_of(task);
    const int64_t rows = static_cast<int64_t>(x.shape(0)), p = static_cast<int64_t>(x.shape(1));
    if (static_cast<int64_t>(y.shape(0)) != rows)
      throw StatusError(Status::Invalid("glm block: y has ", y.shape(0), " rows, X ", rows));
    const std::vector<double> e = doubles_of(eta), uv = doubles_of(u), bv = doubles_of(beta);
    linalg::GlmBlockInput in{e, uv, bv};
    linalg::GlmBlockOutput o =
        released(pc, [&] { return linalg::glm_block_partial(pc.ctx(), x.data(), y.data(), rows, p, t, in); });
    const double xmax = o.x_abs_max;
    return nb::make_tuple(vector_array(std::move(o.partial)), array_or_none(o.rows), array_or_none(o.beta), xmax);
  }, nb::arg("ctx"), nb::arg("x"), nb::arg("y"), nb::arg("task"), nb::arg("eta").none(), nb::arg("u").none(),
     nb::arg("beta").none());
  m.def("glm_remote", [](const PyContext& pc, int64_t rows, int64_t cols, const Vector& y,
                         const linalg::GlmParams& p, nb::object plan, nb::object run) {
    auto runner = std::make_shared<PyGlmRunner>(std::move(plan), std::move(run));
    std::span<const double> ys(y.data(), static_cast<size_t>(y.shape(0)));
    std::optional<Result<linalg::GlmResult>> r;
    {
      nb::gil_scoped_release release;
      r.emplace(linalg::fit_glm_remote(pc.ctx(), rows, cols, runner, ys, p));
    }
    raise_progress_error(pc);
    if (auto e = runner->take_error()) throw std::move(*e);
    linalg::GlmResult fit = take(std::move(*r));
    const Summary summary = linalg::glm_result_summary(fit, p);
    nb::dict d = result_of(std::move(fit));
    d["summary"] = summary_dict(summary);
    return d;
  }, nb::arg("ctx"), nb::arg("rows"), nb::arg("cols"), nb::arg("y"), nb::arg("params"), nb::arg("plan"),
     nb::arg("run"));
}

}  // namespace strata::python
