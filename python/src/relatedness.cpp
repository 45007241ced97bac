// Relatedness and distances as N × N numpy arrays: strata.king, strata.grm, strata.pairwise_distance.
#include <nanobind/stl/string.h>

#include "common.hpp"
#include "strata/genomics/selection.hpp"
#include "strata/genomics/distance.hpp"
#include "strata/genomics/grm.hpp"
#include "strata/genomics/king.hpp"
#include "strata/genomics/row_distance.hpp"

namespace strata::python {
namespace {

using Rows = nb::ndarray<nb::ro, nb::ndim<2>, nb::c_contig, nb::device::cpu>;

nb::ndarray<nb::numpy, double> square(std::vector<double>&& v, int64_t n) {
  double* p = v.data();
  return owned_array<double>(std::move(v), p, {static_cast<size_t>(n), static_cast<size_t>(n)});
}

void need_pairs(const Genotypes& g, const char* what) {
  const int64_t n = g.view->num_samples();
  if (n < 2)
    throw StatusError(Status::InvalidData(g.view->describe(), ": ", n, n == 1 ? " sample" : " samples", ": ", what,
                                          " at least two samples (there is no pair)"));
}

DType dtype_of(const Rows& a) {
  const nb::dlpack::dtype t = a.dtype();
  const auto bits = t.bits;
  if (t.code == static_cast<uint8_t>(nb::dlpack::dtype_code::Float)) {
    if (bits == 32) return DType(ScalarType::Float32);
    if (bits == 64) return DType(ScalarType::Float64);
  } else if (t.code == static_cast<uint8_t>(nb::dlpack::dtype_code::Int)) {
    if (bits == 8) return DType(ScalarType::Int8);
    if (bits == 16) return DType(ScalarType::Int16);
    if (bits == 32) return DType(ScalarType::Int32);
    if (bits == 64) return DType(ScalarType::Int64);
  } else if (t.code == static_cast<uint8_t>(nb::dlpack::dtype_code::UInt)) {
    if (bits == 8) return DType(ScalarType::UInt8);
    if (bits == 16) return DType(ScalarType::UInt16);
    if (bits == 32) return DType(ScalarType::UInt32);
    if (bits == 64) return DType(ScalarType::UInt64);
  }
  throw StatusError(Status::Invalid("distances take integer or float32/float64 arrays"));
}

}  // namespace

void bind_relatedness(nb::module_& m) {
  m.def("king", [](const PyContext& pc, const Genotypes& g) {
    need_pairs(g, "kinship needs");
    const io::GenotypeViewPtr v = take(genomics::without_non_autosomes(g.view, "KING-robust calculation"));
    std::vector<double> k = released(pc, [&] { return genomics::king_matrix(pc.ctx(), *v); });
    return square(std::move(k), g.view->num_samples());
  });
  // As `strata grm` (genomics::run_grm_to_files): the selection (--maf, --geno in plink2's
  // order, founders-only MAF; then X, Y and MT skipped), then the GRM of the selected view.
  m.def("grm", [](const PyContext& pc, const Genotypes& g, bool meanimpute,
                  const genomics::SelectionOptions& selection) {
    need_pairs(g, "a GRM needs");
    genomics::SelectionOptions s = selection;
    check(genomics::validate_selection(s));
    s.skip_non_autosomes_for = "GRM construction";
    genomics::GrmParams p;
    p.meanimpute = meanimpute;
    genomics::GrmInfo info;
    int64_t n = 0;
    std::vector<double> v = released(pc, [&]() -> Result<std::vector<double>> {
      STRATA_ASSIGN_OR_RETURN(genomics::Selection sel, genomics::select_genotypes(pc.ctx(), g.view, s));
      n = sel.view->num_samples();
      return genomics::compute_grm_dense(pc.ctx(), sel.view, p, &info);
    });
    return nb::make_tuple(square(std::move(v), n), info.grm_variants);
  }, nb::arg("ctx"), nb::arg("genotypes"), nb::arg("meanimpute"), nb::arg("selection"));
  m.def("genotype_distance", [](const PyContext& pc, const Genotypes& g, const std::string& metric) {
    const genomics::DistanceSpec spec = take(genomics::parse_distance_metric(metric));
    need_pairs(g, "distances need");
    const io::GenotypeViewPtr v = take(genomics::without_non_autosomes(g.view, "the distance calculation"));
    std::vector<double> d = released(pc, [&] { return genomics::distance_matrix(pc.ctx(), *v, spec); });
    return square(std::move(d), g.view->num_samples());
  });
  m.def("row_distance", [](const PyContext& pc, const Rows& a, const std::string& metric) {
    const genomics::DistanceSpec spec = take(genomics::parse_distance_metric(metric));
    const int64_t rows = static_cast<int64_t>(a.shape(0));
    const genomics::RowMatrix rm =
        take(genomics::RowMatrix::in_memory(a.data(), rows, static_cast<int64_t>(a.shape(1)), dtype_of(a)));
    std::vector<double> d = released(pc, [&] { return genomics::row_distance_matrix(pc.ctx(), rm, spec); });
    return square(std::move(d), rows);
  });
  m.def("zarr_row_distance", [](const PyContext& pc, const std::string& path, const std::string& metric) -> nb::object {
    const genomics::DistanceSpec spec = take(genomics::parse_distance_metric(metric));
    std::optional<io::ZarrArray> z = released([&] { return genomics::open_row_matrix(path); });
    if (!z) return nb::none();  // a genotype source
    const genomics::RowMatrix rm = genomics::RowMatrix::of(*z);
    std::vector<double> d = released(pc, [&] { return genomics::row_distance_matrix(pc.ctx(), rm, spec); });
    return nb::cast(square(std::move(d), rm.rows));
  });
}

}  // namespace strata::python
