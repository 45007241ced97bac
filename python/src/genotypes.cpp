// Genotype sources and PCA: strata.open_genotypes, dosage arrays packed to 2-bit codes, strata.pca.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "common.hpp"
#include "pca_common.hpp"
#include "strata/genomics/selection.hpp"
#include "strata/genomics/pca.hpp"
#include "strata/io/genotype.hpp"
#include "strata/io/genotype_dosage.hpp"

namespace strata::python {
namespace {

using ROArray = nb::ndarray<nb::ro, nb::device::cpu>;

io::DosageType dosage_type(const ROArray& a) {
  const nb::dlpack::dtype t = a.dtype();
  if (t == nb::dtype<int8_t>()) return io::DosageType::Int8;
  if (t == nb::dtype<int16_t>()) return io::DosageType::Int16;
  if (t == nb::dtype<int32_t>()) return io::DosageType::Int32;
  if (t == nb::dtype<int64_t>()) return io::DosageType::Int64;
  if (t == nb::dtype<uint8_t>()) return io::DosageType::UInt8;
  if (t == nb::dtype<float>()) return io::DosageType::Float32;
  if (t == nb::dtype<double>()) return io::DosageType::Float64;
  throw StatusError(Status::Invalid(
      "dosages must be int8/int16/int32/int64/uint8 (negative = missing) or float32/float64 (NaN = missing)"));
}

io::DosageMatrix dosage_matrix(const ROArray& a) {
  if (a.ndim() != 2)
    throw StatusError(Status::Invalid("dosages must be a 2-D (variants x samples) array, got ", a.ndim(), " dimensions"));
  io::DosageMatrix d;
  d.data = a.data();
  d.type = dosage_type(a);
  d.rows = static_cast<int64_t>(a.shape(0));
  d.cols = static_cast<int64_t>(a.shape(1));
  d.row_stride = a.stride(0);
  d.col_stride = a.stride(1);
  return d;
}

io::SampleInfo sample_info(const std::optional<std::vector<std::string>>& ids) {
  io::SampleInfo s;
  if (ids) s.id = *ids;
  return s;
}

class DosageBuilder {
 public:
  DosageBuilder(int64_t m, int64_t n) : b_(take(io::DosageViewBuilder::make(m, n))) {}
  void add_rows(int64_t row0, const ROArray& block) {
    const io::DosageMatrix d = dosage_matrix(block);
    released([&] { return b_->add_rows(row0, d); });
  }
  void add_codes(int64_t row0, const nb::ndarray<const uint8_t, nb::ndim<2>, nb::c_contig, nb::device::cpu>& codes) {
    if (!b_) throw StatusError(Status::Invalid("this dosage builder was already finished"));
    if (static_cast<int64_t>(codes.shape(1)) != io::packed_row_bytes(b_->num_samples()))
      throw StatusError(Status::Invalid("packed rows have ", codes.shape(1), " bytes, expected ",
                                        io::packed_row_bytes(b_->num_samples())));
    released([&] { return b_->add_codes(row0, static_cast<int64_t>(codes.shape(0)), codes.data()); });
  }
  Genotypes finish(const std::optional<std::vector<std::string>>& ids) {
    if (!b_) throw StatusError(Status::Invalid("this dosage builder was already finished"));
    if (ids && static_cast<int64_t>(ids->size()) != b_->num_samples())
      throw StatusError(Status::Invalid("sample_ids has ", ids->size(), " entries for ", b_->num_samples(), " samples"));
    io::DosageViewBuilder b = std::move(*b_);
    b_.reset();
    return {take(std::move(b).finish(sample_info(ids), {}))};
  }

 private:
  std::optional<io::DosageViewBuilder> b_;
};

nb::ndarray<nb::numpy, int8_t> read_dosages(const Genotypes& g, int64_t v0, int64_t v1, int64_t s0, int64_t s1) {
  const int64_t nv = v1 - v0, ns = s1 - s0;
  if (v0 < 0 || s0 < 0 || nv < 0 || ns < 0 || v1 > g.view->num_variants() || s1 > g.view->num_samples())
    throw StatusError(Status::Invalid("genotype box [", v0, ":", v1, ", ", s0, ":", s1, "] outside the ",
                                      g.view->num_variants(), " x ", g.view->num_samples(), " matrix"));
  std::vector<int8_t> out(static_cast<size_t>(nv * ns));
  if (nv > 0 && ns > 0) {
    released([&]() -> Status {
      STRATA_ASSIGN_OR_RETURN(io::GenotypeBlock block, io::read_genotype_block(*g.view, v0, nv, s0, ns));
      static constexpr int8_t kDosage[4] = {0, 1, 2, -1};
      for (int64_t v = 0; v < nv; ++v) {
        const uint8_t* row = block.row(v);
        int8_t* dst = out.data() + v * ns;
        for (int64_t j = 0; j < ns; ++j) dst[j] = kDosage[io::code_at(row, j)];
      }
      return Status::OK();
    });
  }
  int8_t* p = out.data();
  return owned_array<int8_t>(std::move(out), p, {static_cast<size_t>(nv), static_cast<size_t>(ns)});
}

nb::list variant_ids(const Genotypes& g, int64_t start, int64_t count) {
  io::VariantInfo info = released([&] { return g.view->variants(start, count); });
  nb::list out;
  for (auto& id : info.id) out.append(nb::str(id.data(), id.size()));
  return out;
}

// As `strata pca` (genomics::run_pca_to_files): the selection (--maf, --geno, then X, Y and MT
// skipped), then pca() of the selected view.
nb::dict run_pca(const PyContext& pc, const Genotypes& g, const genomics::PcaParams& p,
                 const genomics::SelectionOptions& selection) {
  genomics::SelectionOptions s = selection;
  check(genomics::validate_selection(s));
  s.skip_non_autosomes_for = "PCA";
  Summary summary;
  genomics::PcaResult r = released(pc, [&]() -> Result<genomics::PcaResult> {
    STRATA_ASSIGN_OR_RETURN(genomics::Selection sel, genomics::select_genotypes(pc.ctx(), g.view, s));
    STRATA_ASSIGN_OR_RETURN(genomics::PcaResult out, genomics::pca(pc.ctx(), sel.view, p));
    // The report fields `strata pca --report` has after the job's own (command, files, ...).
    summary = genomics::pca_result_summary(out, p);
    summary.set("samples", sel.view->num_samples()).set("variants_input", sel.view->num_variants());
    sel.report.add_to(summary);
    for (int64_t& v : out.variants_used) v = sel.variants[static_cast<size_t>(v)];  // indices of the input's variants
    return out;
  });
  return pca_dict(std::move(r), summary);
}

}  // namespace

void bind_pca_params(nb::module_& m) {
  using genomics::PcaParams;
  // Enums as the library spells them (name()/parse() pairs); numbers as they are.
  nb::class_<PcaParams> cls(m, "PcaParams");
  cls.def(nb::init<>())
      .def_rw("k", &PcaParams::k)
      .def_rw("exact_max_dim", &PcaParams::exact_max_dim)
      .def_rw("iterations", &PcaParams::iterations)
      .def_rw("oversampling", &PcaParams::oversampling)
      .def_rw("block_columns", &PcaParams::block_columns)
      .def_rw("seed", &PcaParams::seed)
      .def_rw("tolerance", &PcaParams::tolerance)
      .def_rw("meanimpute", &PcaParams::meanimpute)
      .def_rw("check_errors", &PcaParams::check_errors)
      .def_rw("compute_loadings", &PcaParams::compute_loadings);
  enum_property(cls, "method", &PcaParams::method, linalg::svd_method_name, linalg::parse_svd_method);
  enum_property(cls, "scale", &PcaParams::scale, genomics::standardization_name, genomics::parse_standardization);
  enum_property(cls, "scheme", &PcaParams::scheme, linalg::randomized_scheme_name, linalg::parse_randomized_scheme);
  enum_property(cls, "precision", &PcaParams::precision, precision_name, parse_precision);
  enum_property(cls, "exact_route", &PcaParams::exact_route, genomics::pca_route_name, genomics::parse_pca_route);
  // The selection flags strata.pca takes (plink2's --maf and --geno; None = not given).
  nb::class_<genomics::SelectionOptions>(m, "SelectionOptions")
      .def(nb::init<>())
      .def_rw("maf", &genomics::SelectionOptions::maf, nb::arg().none())
      .def_rw("geno", &genomics::SelectionOptions::geno, nb::arg().none());
  // The library's fixed unit of summation of the genotype passes (the Dask tasks' groups).
  m.attr("GENOTYPE_GRAM_GROUP_VARIANTS") = genomics::kGenotypeGramGroupVariants;
}

nb::dict pca_dict(genomics::PcaResult r, const Summary& summary) {
  nb::dict d;
  d["summary"] = summary_dict(summary);
  const int64_t kk = static_cast<int64_t>(r.eigenvalues.size());
  d["eigenvalues"] = vector_array(std::move(r.eigenvalues));
  d["eigenvectors"] = column_major_array(std::move(r.eigenvectors.data), r.eigenvectors.rows, kk);
  if (!r.loadings.empty())
    d["loadings"] = column_major_array(std::move(r.loadings.data), r.loadings.rows, r.loadings.cols);
  else
    d["loadings"] = nb::none();
  std::vector<int64_t> used = std::move(r.variants_used);
  int64_t* up = used.data();
  const size_t nused = used.size();
  d["variants_used"] = owned_array<int64_t>(std::move(used), up, {nused});
  d["error_estimate"] = vector_array(std::move(r.error_estimate));
  d["grm_variants"] = r.grm_variants;
  d["grm_trace"] = r.grm_trace;
  d["variance_ratio"] = vector_array(std::move(r.variance_ratio));
  d["converged"] = r.converged;
  d["max_error_estimate"] = r.max_error_estimate;
  d["stop"] = r.stop;
  d["method"] = linalg::svd_method_name(r.method);
  d["route"] = r.route;
  d["passes"] = r.passes;
  d["resident"] = r.resident;
  d["arithmetic"] = r.arithmetic;
  return d;
}

void bind_genotypes(nb::module_& m) {
  nb::class_<Genotypes>(m, "GenotypeView")
      .def_prop_ro("num_variants", [](const Genotypes& g) { return g.view->num_variants(); })
      .def_prop_ro("num_samples", [](const Genotypes& g) { return g.view->num_samples(); })
      .def("describe", [](const Genotypes& g) { return g.view->describe(); })
      .def("sample_ids", [](const Genotypes& g) { return g.view->samples().id; })
      .def("variant_ids", &variant_ids, nb::arg("start"), nb::arg("count"))
      .def("read", &read_dosages, nb::arg("v0"), nb::arg("v1"), nb::arg("s0"), nb::arg("s1"));
  m.def("open_genotypes", [](const std::string& path) {
    return Genotypes{released([&] { return io::open_genotypes(path); })};
  });
  m.def("dosage_view", [](const ROArray& a, const std::optional<std::vector<std::string>>& ids) {
    const io::DosageMatrix d = dosage_matrix(a);  // the library checks sample_ids (count, duplicates)
    return Genotypes{released([&] { return io::make_dosage_genotypes(d, sample_info(ids)); })};
  }, nb::arg("dosages"), nb::arg("sample_ids").none());
  m.def("pack_dosages", [](const ROArray& a) {
    const io::DosageMatrix d = dosage_matrix(a);
    const int64_t row_bytes = io::packed_row_bytes(d.cols);
    std::vector<uint8_t> out(static_cast<size_t>(d.rows * row_bytes));
    released([&] { return io::pack_dosages(d, out.data(), row_bytes); });
    uint8_t* p = out.data();
    return owned_array<uint8_t>(std::move(out), p, {static_cast<size_t>(d.rows), static_cast<size_t>(row_bytes)});
  });
  nb::class_<DosageBuilder>(m, "DosageBuilder")
      .def(nb::init<int64_t, int64_t>())
      .def("add_rows", &DosageBuilder::add_rows)
      .def("add_codes", &DosageBuilder::add_codes)
      .def("finish", &DosageBuilder::finish, nb::arg("sample_ids").none());
  bind_pca_params(m);
  m.def("pca", &run_pca, nb::arg("ctx"), nb::arg("genotypes"), nb::arg("params"), nb::arg("selection"));
}

}  // namespace strata::python
