// Relatedness and distances as N × N numpy arrays: strata.king, strata.grm, strata.pairwise_distance.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include "common.hpp"
#include "strata/genomics/selection.hpp"
#include "strata/genomics/distance.hpp"
#include "strata/genomics/grm.hpp"
#include "strata/genomics/king.hpp"
#include "strata/genomics/row_distance.hpp"
#include "strata/io/genotype_dosage.hpp"

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

using Codes = nb::ndarray<const uint8_t, nb::ndim<2>, nb::c_contig, nb::device::cpu>;
using Counts = nb::ndarray<const int64_t, nb::ndim<2>, nb::c_contig, nb::device::cpu>;
using PairCounts = nb::ndarray<const int32_t, nb::ndim<2>, nb::c_contig, nb::device::cpu>;
using Packed = nb::ndarray<const double, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

// A worker's rows of packed codes (a variant range of a Dask array) as a genotype view.
io::GenotypeViewPtr view_of_codes(const Codes& codes, int64_t samples) {
  const auto rows = static_cast<int64_t>(codes.shape(0));
  if (samples < 2 || static_cast<int64_t>(codes.shape(1)) != io::packed_row_bytes(samples))
    throw StatusError(Status::Invalid("packed rows have ", codes.shape(1), " bytes, expected ",
                                      io::packed_row_bytes(samples), " for ", samples, " samples (at least 2)"));
  io::DosageViewBuilder b = take(io::DosageViewBuilder::make(rows, samples));
  check(b.add_codes(0, rows, codes.data()));
  return take(std::move(b).finish({}, {}));
}

std::vector<genomics::VariantCounts> counts_of(const Counts& c, int64_t rows) {
  if (c.shape(1) != 4 || static_cast<int64_t>(c.shape(0)) != rows)
    throw StatusError(Status::Invalid("counts must be (", rows, ", 4): hom_ref, het, hom_alt, missing"));
  std::vector<genomics::VariantCounts> out(static_cast<size_t>(rows));
  for (size_t i = 0; i < out.size(); ++i) {
    const int64_t* r = c.data() + 4 * i;
    out[i] = {r[0], r[1], r[2], r[3]};
  }
  return out;
}

template <class T>
nb::ndarray<nb::numpy, T> owned(std::vector<T>&& v, std::initializer_list<size_t> shape) {
  T* p = v.data();
  return owned_array<T>(std::move(v), p, shape);
}

// Summed pair counts (fields × n(n+1)/2) of n samples: their layout checked.
const int32_t* pair_counts_of(const PairCounts& c, int64_t n, int64_t fields) {
  if (n < 2 || static_cast<int64_t>(c.shape(0)) != fields || static_cast<int64_t>(c.shape(1)) != n * (n + 1) / 2)
    throw StatusError(Status::Invalid("pair counts must be (", fields, ", n(n+1)/2) for n = ", n, " samples, got (",
                                      c.shape(0), ", ", c.shape(1), ")"));
  return c.data();
}

// The partial/finish split of king, grm and genotype distances for a pass split by variants
// over a Dask cluster (python/strata/_dask_pairs.py): each task a variant range's partial,
// the driver the finish of their sum.
void bind_partials(nb::module_& m) {
  m.def("select_by_counts", [](const genomics::SelectionOptions& selection, const Counts& counts) {
    check(genomics::validate_selection(selection));
    std::vector<int64_t> kept =
        take(genomics::select_variants_by_counts(selection, counts_of(counts, static_cast<int64_t>(counts.shape(0)))));
    const size_t k = kept.size();
    return owned(std::move(kept), {k});
  });
  m.def("distance_metric_name", [](const std::string& metric) {
    return genomics::distance_metric_name(take(genomics::parse_distance_metric(metric)));
  });
  m.def("grm_block_variants", [](int64_t n) { return genomics::grm_block_variants(n); });
  m.def("pair_count_partial", [](const PyContext& pc, const Codes& codes, int64_t samples, bool king_only) {
    const io::GenotypeViewPtr v = view_of_codes(codes, samples);
    std::vector<int32_t> c = released(pc, [&] { return genomics::pair_count_partial(pc.ctx(), *v, king_only); });
    const size_t pairs = static_cast<size_t>(samples * (samples + 1) / 2), fields = c.size() / pairs;
    return owned(std::move(c), {fields, pairs});
  });
  m.def("king_from_counts", [](const PairCounts& counts, int64_t n) {
    const int32_t* c = pair_counts_of(counts, n, backend::kKingCountFields);
    using Matrix = Result<std::vector<double>>;
    return square(released([&]() -> Matrix { return genomics::king_matrix_from_counts(n, c); }), n);
  });
  m.def("distance_from_counts", [](const PairCounts& counts, int64_t n, const std::string& metric) {
    const genomics::DistanceSpec spec = take(genomics::parse_distance_metric(metric));
    const int32_t* c = pair_counts_of(counts, n, backend::kPairCountFields);
    using Matrix = Result<std::vector<double>>;
    return square(released([&]() -> Matrix { return genomics::distance_matrix_from_counts(n, c, spec); }), n);
  });
  m.def("grm_partial", [](const PyContext& pc, const Codes& codes, const Counts& counts, int64_t samples,
                          bool meanimpute) {
    const io::GenotypeViewPtr v = view_of_codes(codes, samples);
    const std::vector<genomics::VariantCounts> c = counts_of(counts, v->num_variants());
    genomics::GrmParams p;
    p.meanimpute = meanimpute;
    genomics::GrmPartial part = released(pc, [&] { return genomics::grm_partial(pc.ctx(), v, c, p); });
    const auto pairs = static_cast<size_t>(samples * (samples + 1) / 2);
    nb::object both = part.both_missing.empty() ? nb::none() : nb::cast(owned(std::move(part.both_missing), {pairs}));
    return nb::make_tuple(owned(std::move(part.block_sums), {static_cast<size_t>(part.blocks), pairs}), both);
  });
  m.def("grm_from_sums", [](const Packed& sums, std::optional<Packed> both_missing, int64_t n, int64_t m) {
    std::vector<double> s(sums.data(), sums.data() + sums.size()), b;
    if (both_missing) b.assign(both_missing->data(), both_missing->data() + both_missing->size());
    return square(released([&] { return genomics::grm_from_sums(n, m, s, b); }), n);
  }, nb::arg("sums"), nb::arg("both_missing").none(), nb::arg("n"), nb::arg("m"));
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
  bind_partials(m);
  m.def("row_distance", [](const PyContext& pc, const Rows& a, const std::string& metric) {
    const genomics::DistanceSpec spec = take(genomics::parse_distance_metric(metric));
    const int64_t rows = static_cast<int64_t>(a.shape(0));
    const genomics::RowMatrix rm =
        take(genomics::RowMatrix::in_memory(a.data(), rows, static_cast<int64_t>(a.shape(1)), dtype_of(a)));
    std::vector<double> d = released(pc, [&] { return genomics::row_distance_matrix(pc.ctx(), rm, spec); });
    return square(std::move(d), rows);
  });
  // A Dask array's distances as tasks (python/strata/_dask_rows.py): the driver's checks, then
  // one tile of two row bands per task.
  m.def("row_distance_check", [](const Rows& like, int64_t n, const std::string& metric) {
    const genomics::DistanceSpec spec = take(genomics::parse_distance_metric(metric));
    const genomics::RowMatrix rm =
        take(genomics::RowMatrix::of_bands(n, static_cast<int64_t>(like.shape(1)), dtype_of(like), {}));
    check(genomics::check_row_distance_metric(rm, spec));
  });
  m.def("row_distance_tile", [](const PyContext& pc, const Rows& a, int64_t row0, const Rows& b, int64_t col0,
                                int64_t n, const std::string& metric) {
    const genomics::DistanceSpec spec = take(genomics::parse_distance_metric(metric));
    const DType t = dtype_of(a);
    if (dtype_of(b) != t || a.shape(1) != b.shape(1))
      throw StatusError(Status::Invalid("row bands of different dtypes or widths"));
    const auto ra = static_cast<int64_t>(a.shape(0)), rb = static_cast<int64_t>(b.shape(0));
    const genomics::RowMatrix rm = take(genomics::RowMatrix::of_bands(
        n, static_cast<int64_t>(a.shape(1)), t, {{row0, ra, a.data()}, {col0, rb, b.data()}}));
    std::vector<double> d =
        released(pc, [&] { return genomics::row_distance_tile(pc.ctx(), rm, row0, ra, col0, rb, spec); });
    return owned(std::move(d), {static_cast<size_t>(ra), static_cast<size_t>(rb)});
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
