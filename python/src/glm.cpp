// strata.glm: GLM fits on numpy arrays (read in place) and Zarr arrays (streamed).
#include <nanobind/stl/string.h>

#include "common.hpp"
#include "strata/linalg/glm.hpp"

namespace strata::python {
namespace {

using Matrix = nb::ndarray<const double, nb::ndim<2>, nb::c_contig, nb::device::cpu>;
using Vector = nb::ndarray<const double, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

linalg::GlmParams params_of(const nb::dict& o) {
  linalg::GlmParams p;
  p.family = take(linalg::parse_glm_family(nb::cast<std::string>(o["family"])));
  p.solver = take(linalg::parse_glm_solver(nb::cast<std::string>(o["solver"])));
  p.penalty = take(linalg::parse_glm_penalty(nb::cast<std::string>(o["penalty"])));
  p.lambda = nb::cast<double>(o["lam"]);
  p.alpha = nb::cast<double>(o["alpha"]);
  p.intercept = nb::cast<bool>(o["intercept"]);
  // None: the solver's default; any number goes to the library's validation as given.
  if (!o["max_iter"].is_none()) {
    p.max_iter = nb::cast<int64_t>(o["max_iter"]);
    check(linalg::check_glm_max_iter(p.max_iter));
  }
  if (!o["tol"].is_none()) {
    p.tol = nb::cast<double>(o["tol"]);
    check(linalg::check_glm_tol(p.tol));  // NaN too: only None means the default
  }
  p.ftol = nb::cast<double>(o["ftol"]);
  p.rho = nb::cast<double>(o["rho"]);
  p.abstol = nb::cast<double>(o["abstol"]);
  p.reltol = nb::cast<double>(o["reltol"]);
  return p;
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

nb::dict fit_of(const PyContext& pc, const linalg::RowBlockSource& x, const Vector& y, const nb::dict& o) {
  const linalg::GlmParams p = params_of(o);
  std::span<const double> ys(y.data(), static_cast<size_t>(y.shape(0)));
  return result_of(released(pc, [&] { return linalg::fit_glm(pc.ctx(), x, ys, p); }));
}

}  // namespace

void bind_glm(nb::module_& m) {
  m.def("glm_dense", [](const PyContext& pc, const Matrix& x, const Vector& y, const nb::dict& o) {
    auto src = linalg::make_dense_source(x.data(), static_cast<int64_t>(x.shape(0)), static_cast<int64_t>(x.shape(1)));
    return fit_of(pc, *src, y, o);
  });
  m.def("glm_zarr", [](const PyContext& pc, const std::string& path, const Vector& y, const nb::dict& o) {
    auto src = released([&] { return linalg::open_zarr_source(path); });
    return fit_of(pc, *src, y, o);
  });
}

}  // namespace strata::python
