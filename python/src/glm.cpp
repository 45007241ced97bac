// strata.glm: GLM fits on numpy arrays (read in place) and Zarr arrays (streamed).
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <cmath>
#include <optional>

#include "common.hpp"
#include "strata/linalg/glm.hpp"

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
}

}  // namespace strata::python
