// Dense linear algebra on numpy arrays (read in place) and Zarr arrays: strata.svd, strata.qr.
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>

#include <cstring>

#include "common.hpp"
#include "strata/linalg/dense.hpp"
#include "strata/linalg/svd.hpp"
#include "strata/linalg/tsqr.hpp"

namespace strata::python {
namespace {

using Matrix = nb::ndarray<const double, nb::ndim<2>, nb::c_contig, nb::device::cpu>;

nb::tuple svd_of(const PyContext& pc, const linalg::RowBlockSourcePtr& src, const linalg::SvdParams& p) {
  if (p.k < 0) throw StatusError(Status::Invalid("k must be positive (or None for all components), got ", p.k));
  linalg::SvdResult r = released(pc, [&] { return linalg::svd(pc.ctx(), src, p); });
  nb::object u = nb::none();
  if (!r.u.empty()) u = nb::cast(column_major_array(std::move(r.u.data), r.u.rows, r.u.cols));
  const int64_t vr = r.v.rows, vc = r.v.cols;
  nb::object v = nb::cast(column_major_array(std::move(r.v.data), vr, vc));
  const char* m = linalg::svd_method_name(r.method);
  return nb::make_tuple(u, vector_array(std::move(r.s)), v, m, vector_array(std::move(r.error_estimate)));
}

nb::tuple qr_of(const PyContext& pc, const Matrix& a) {
  const int64_t rows = static_cast<int64_t>(a.shape(0)), cols = static_cast<int64_t>(a.shape(1));
  if (rows >= cols && cols > 0) {
    // Tall: TSQR streams Q into a row-major array block by block.
    std::vector<double> q(static_cast<size_t>(rows * cols));
    auto src = linalg::make_dense_source(a.data(), rows, cols);
    linalg::FactorSink sink = [&](int64_t row0, int64_t nrows, int64_t k, const double* block) {
      std::memcpy(q.data() + row0 * cols, block, sizeof(double) * static_cast<size_t>(nrows * k));
      return Status::OK();
    };
    linalg::DenseMatrix r = released(pc, [&] { return linalg::tsqr(pc.ctx(), *src, sink); });
    double* qp = q.data();
    auto qa = owned_array<double>(std::move(q), qp, {static_cast<size_t>(rows), static_cast<size_t>(cols)});
    return nb::make_tuple(qa, column_major_array(std::move(r.data), r.rows, r.cols));
  }
  linalg::DenseMatrix dense = linalg::DenseMatrix::from_row_major(a.data(), rows, cols);
  linalg::QrResult f = released(pc, [&] { return linalg::qr(pc.ctx(), dense); });
  const int64_t qr_rows = f.q.rows, qc = f.q.cols, rr = f.r.rows, rc = f.r.cols;
  return nb::make_tuple(column_major_array(std::move(f.q.data), qr_rows, qc),
                        column_major_array(std::move(f.r.data), rr, rc));
}

}  // namespace

void bind_svd_params(nb::module_& m) {
  using linalg::SvdParams;
  // As PcaParams: enums as the library spells them, numbers as they are, the struct's defaults.
  nb::class_<SvdParams> cls(m, "SvdParams");
  cls.def(nb::init<>())
      .def_rw("k", &SvdParams::k)
      .def_rw("exact_max_dim", &SvdParams::exact_max_dim)
      .def_rw("oversampling", &SvdParams::oversampling)
      .def_rw("block_columns", &SvdParams::block_columns)
      .def_rw("iterations", &SvdParams::iterations)
      .def_rw("tolerance", &SvdParams::tolerance)
      .def_rw("seed", &SvdParams::seed)
      .def_rw("compute_u", &SvdParams::compute_u);
  enum_property(cls, "method", &SvdParams::method, linalg::svd_method_name, linalg::parse_svd_method);
  enum_property(cls, "scheme", &SvdParams::scheme, linalg::randomized_scheme_name, linalg::parse_randomized_scheme);
  enum_property(cls, "precision", &SvdParams::precision, precision_name, parse_precision);
}

void bind_linalg(nb::module_& m) {
  bind_svd_params(m);
  m.def("svd_dense", [](const PyContext& pc, const Matrix& a, const linalg::SvdParams& p) {
    auto src = linalg::make_dense_source(a.data(), static_cast<int64_t>(a.shape(0)), static_cast<int64_t>(a.shape(1)));
    return svd_of(pc, src, p);
  }, nb::arg("ctx"), nb::arg("a"), nb::arg("params"));
  m.def("svd_zarr", [](const PyContext& pc, const std::string& path, const linalg::SvdParams& p) {
    auto src = released([&] { return linalg::open_zarr_source(path); });
    return svd_of(pc, src, p);
  }, nb::arg("ctx"), nb::arg("path"), nb::arg("params"));
  m.def("qr", &qr_of);
}

}  // namespace strata::python
