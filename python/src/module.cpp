// strata._core: the compiled half of the strata Python package (python/strata is the other).
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>

#include "common.hpp"
#include "strata/backend/backend.hpp"
#include "strata/core/config.hpp"
#include "strata/core/cpu_pin.hpp"
#include "strata/core/status.hpp"

namespace strata::python {
namespace {

PyObject* exception_type(StatusCode code) {
  switch (code) {
    case StatusCode::Invalid:
    case StatusCode::InvalidData:
      return PyExc_ValueError;
    case StatusCode::IOError:
    case StatusCode::NotFound:
    case StatusCode::AlreadyExists:
    case StatusCode::Corrupt:
    case StatusCode::Unsupported:
      return PyExc_OSError;
    case StatusCode::OutOfMemory:
      return PyExc_MemoryError;
    default:
      return PyExc_RuntimeError;
  }
}

void bind_context(nb::module_& m) {
  nb::class_<PyContext>(m, "Context")
      .def_prop_ro("threads", [](const PyContext& c) { return c.ctx().threads(); })
      .def_prop_ro("memory", [](const PyContext& c) { return c.ctx().memory_budget(); })
      .def("report_json", [](const PyContext& c) { return c.ctx().report().to_json(); })
      .def("clear_report", [](const PyContext& c) { c.ctx().report().clear(); })
      .def("cancel", [](const PyContext& c) { c.ctx().cancel(); });
  // The CPU level kernels run at (STRATA_CPU caps it; strata/core/cpu_pin.hpp).
  m.def("cpu_level", [] {
    nb::dict d;
    d["level"] = backend::cpu_isa_name(backend::best_cpu_isa());
    d["detected"] = backend::cpu_isa_name(backend::detected_cpu_isa());
    d["pinned"] = cpu_pin().text.empty() ? nb::object(nb::none()) : nb::object(nb::str(cpu_pin().text.c_str()));
    return d;
  });
  m.def("check_cpu_pin", [] {
    if (const Status st = cpu_pin_status(); !st.ok()) throw nb::value_error(st.message().c_str());
  });
  m.def("memory_budget", [](nb::handle memory) { return memory_budget_or_default(memory_budget_of(memory)); },
        nb::arg("memory").none(), "The budget a Context gets for memory= (None: the library's default).");
  m.def("make_context", &make_py_context, nb::arg("threads"), nb::arg("memory").none(), nb::arg("progress").none(),
        nb::arg("interval") = 0.1);
}

}  // namespace
}  // namespace strata::python

NB_MODULE(_core, m) {
  using namespace strata::python;
  m.attr("__version__") = STRATA_VERSION_STRING;
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const StatusError& e) {
      PyErr_SetString(exception_type(e.status().code()), e.what());
    }
  });
  bind_context(m);
  bind_genotypes(m);
  bind_linalg(m);
  bind_glm(m);
  bind_gwas(m);
  bind_arrays(m);
  bind_relatedness(m);
  bind_project(m);
  bind_distributed(m);
}
