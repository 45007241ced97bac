// strata.pca on a dask.distributed cluster: the worker tasks' kernels (a group's partial Gram
// product, its projection rows, the float64 check pass's block partials, code counts) and the driver's PCA whose passes call back into
// Python to run those tasks (python/strata/_dask.py).
#include <nanobind/stl/string.h>

#include <cstring>
#include <mutex>

#include "common.hpp"
#include "python_calls.hpp"
#include "pca_common.hpp"
#include "strata/genomics/genotype_gram.hpp"
#include "strata/genomics/pca.hpp"
#include "strata/io/genotype_dosage.hpp"

namespace strata::python {
namespace {

using Codes = nb::ndarray<const uint8_t, nb::ndim<2>, nb::c_contig, nb::device::cpu>;
using Counts = nb::ndarray<const int64_t, nb::ndim<2>, nb::c_contig, nb::device::cpu>;
using Matrix = nb::ndarray<const double, nb::ndim<2>, nb::device::cpu>;
using Doubles = nb::ndarray<const double, nb::c_contig, nb::device::cpu>;
using Ints = nb::ndarray<const int32_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

std::vector<genomics::VariantCounts> counts_of(const Counts& c) {
  if (c.shape(1) != 4) throw StatusError(Status::Invalid("counts must be (variants, 4): hom_ref, het, hom_alt, missing"));
  std::vector<genomics::VariantCounts> out(c.shape(0));
  for (size_t i = 0; i < out.size(); ++i) {
    const int64_t* r = c.data() + 4 * i;
    out[i] = {r[0], r[1], r[2], r[3]};
  }
  return out;
}

linalg::DenseMatrix dense_of(const Matrix& a) {
  linalg::DenseMatrix m(static_cast<int64_t>(a.shape(0)), static_cast<int64_t>(a.shape(1)));
  for (int64_t j = 0; j < m.cols; ++j)
    for (int64_t i = 0; i < m.rows; ++i) m(i, j) = a.data()[i * a.stride(0) + j * a.stride(1)];
  return m;
}

nb::ndarray<nb::numpy, double> to_numpy_f(const linalg::DenseMatrix& m) {
  std::vector<double> d = m.data;
  return column_major_array(std::move(d), m.rows, m.cols);
}

genomics::GenotypeGroup group_of(const Codes& codes, const Counts& counts, int64_t samples) {
  if (static_cast<int64_t>(codes.shape(1)) != io::packed_row_bytes(samples))
    throw StatusError(Status::Invalid("packed rows have ", codes.shape(1), " bytes, expected ",
                                      io::packed_row_bytes(samples), " for ", samples, " samples"));
  genomics::GenotypeGroup g;
  g.codes = codes.data();
  g.rows = static_cast<int64_t>(codes.shape(0));
  g.samples = samples;
  g.counts = counts_of(counts);
  return g;
}

template <class T>
std::vector<T> copy_of(const nb::ndarray<const T, nb::c_contig, nb::device::cpu>& a) {
  const T* p = a.data();
  return std::vector<T>(p, p + a.size());
}

// The runner of the driver's passes: Python callables (plan, gram, project) that run the
// groups as Dask tasks and return their results in group order. Called with the GIL released
// by the library's thread; a Python exception is kept and raised from strata.pca.
class PyGroupRunner final : public genomics::GenotypeGroupRunner {
 public:
  // `selected`: the workers' variant index of each variant the library sees (the selection's).
  PyGroupRunner(nb::object plan, nb::object gram, nb::object project, nb::object check, std::vector<int64_t> selected)
      : plan_(std::move(plan)), gram_(std::move(gram)), project_(std::move(project)), check_(std::move(check)),
        selected_(std::move(selected)) {}
  ~PyGroupRunner() override {
    nb::gil_scoped_acquire gil;
    plan_.reset();
    gram_.reset();
    project_.reset();
    check_.reset();
  }

  Status plan(const std::vector<int64_t>& kept, genomics::Standardization scale, Precision arithmetic) override {
    return call([&] {
      std::vector<int64_t> k(kept.size());
      for (size_t i = 0; i < kept.size(); ++i) k[i] = selected_[static_cast<size_t>(kept[i])];
      int64_t* p = k.data();
      const size_t n = k.size();
      plan_(owned_array<int64_t>(std::move(k), p, {n}), genomics::standardization_name(scale),
            precision_name(arithmetic));
    });
  }
  Status gram(const linalg::DenseMatrix& q,
              const std::function<Status(int64_t, genomics::GenotypeGramPartial&&)>& add) override {
    Status st;
    Status ran = call([&] {
      nb::list parts = nb::cast<nb::list>(gram_(to_numpy_f(q)));
      for (size_t g = 0; g < parts.size() && st.ok(); ++g) {
        nb::tuple t = nb::cast<nb::tuple>(parts[g]);
        genomics::GenotypeGramPartial p;
        p.rows = nb::cast<int64_t>(t[0]);
        p.z = copy_of(nb::cast<Doubles>(t[1]));
        p.t = copy_of(nb::cast<Doubles>(t[2]));
        p.missing = copy_of(nb::cast<nb::ndarray<const int32_t, nb::c_contig, nb::device::cpu>>(t[3]));
        nb::gil_scoped_release release;
        st = add(static_cast<int64_t>(g), std::move(p));
      }
    });
    return ran.ok() ? st : ran;
  }
  Status project(const linalg::DenseMatrix& x, const std::function<Status(int64_t, std::vector<double>&&)>& add) override {
    Status st;
    Status ran = call([&] {
      nb::list parts = nb::cast<nb::list>(project_(to_numpy_f(x)));
      for (size_t g = 0; g < parts.size() && st.ok(); ++g) {
        std::vector<double> rows = copy_of(nb::cast<Doubles>(parts[g]));
        nb::gil_scoped_release release;
        st = add(static_cast<int64_t>(g), std::move(rows));
      }
    });
    return ran.ok() ? st : ran;
  }

  // check(block_rows, q): per range of blocks, in block order, its tree nodes (level, index, sum).
  Status check_gram(int64_t block_rows, const linalg::DenseMatrix& q,
                    const std::function<Status(std::vector<TreeSum::Node>&&)>& add) override {
    Status st;
    Status ran = call([&] {
      nb::list ranges = nb::cast<nb::list>(check_(block_rows, to_numpy_f(q)));
      for (size_t r = 0; r < ranges.size() && st.ok(); ++r) {
        std::vector<TreeSum::Node> nodes;
        for (nb::handle h : nb::cast<nb::list>(ranges[r])) {
          nb::tuple t = nb::cast<nb::tuple>(h);
          nodes.push_back({nb::cast<int>(t[0]), nb::cast<int64_t>(t[1]), copy_of(nb::cast<Doubles>(t[2]))});
        }
        nb::gil_scoped_release release;
        st = add(std::move(nodes));
      }
    });
    return ran.ok() ? st : ran;
  }

  std::optional<nb::python_error> take_error() { return calls_.take_error(); }

 private:
  template <class F>
  Status call(F&& f) {
    return calls_.call("distributed pass", std::forward<F>(f));
  }

  nb::object plan_, gram_, project_, check_;
  std::vector<int64_t> selected_;
  PythonCalls calls_;
};

}  // namespace

void bind_distributed(nb::module_& m) {
  m.def("code_counts", [](const Codes& codes, int64_t samples) {
    // Per-variant counts of codes 0..3 of packed rows, as the PCA's counts pass takes them.
    const int64_t rows = static_cast<int64_t>(codes.shape(0)), stride = io::packed_row_bytes(samples);
    if (static_cast<int64_t>(codes.shape(1)) != stride)
      throw StatusError(Status::Invalid("packed rows have ", codes.shape(1), " bytes, expected ", stride));
    std::vector<int64_t> out(static_cast<size_t>(rows * 4), 0);
    {
      nb::gil_scoped_release release;
      for (int64_t v = 0; v < rows; ++v)
        for (int64_t j = 0; j < samples; ++j) ++out[static_cast<size_t>(4 * v + io::code_at(codes.data() + v * stride, j))];
    }
    int64_t* p = out.data();
    return owned_array<int64_t>(std::move(out), p, {static_cast<size_t>(rows), 4});
  });
  m.def("gram_group", [](const PyContext& pc, const Codes& codes, const Counts& counts, int64_t samples,
                         const std::string& scale, const std::string& arithmetic, const Matrix& q) {
    const genomics::GenotypeGroup g = group_of(codes, counts, samples);
    const auto s = take(genomics::parse_standardization(scale));
    const Precision a = take(parse_precision(arithmetic));
    const linalg::DenseMatrix qm = dense_of(q);
    genomics::GenotypeGramPartial p =
        released(pc, [&] { return genomics::genotype_gram_group(pc.ctx(), g, s, a, qm); });
    const int64_t rows = p.rows;
    double* z = p.z.data();
    const size_t nz = p.z.size();
    double* t = p.t.data();
    const size_t nt = p.t.size();
    int32_t* mi = p.missing.data();
    const size_t nm = p.missing.size();
    return nb::make_tuple(rows, owned_array<double>(std::move(p.z), z, {nz}), owned_array<double>(std::move(p.t), t, {nt}),
                          owned_array<int32_t>(std::move(p.missing), mi, {nm}));
  });
  m.def("project_group", [](const PyContext& pc, const Codes& codes, const Counts& counts, int64_t samples,
                            const std::string& scale, const Matrix& x) {
    const genomics::GenotypeGroup g = group_of(codes, counts, samples);
    const auto s = take(genomics::parse_standardization(scale));
    const linalg::DenseMatrix xm = dense_of(x);
    std::vector<double> rows = released(pc, [&] { return genomics::genotype_project_group(pc.ctx(), g, s, xm); });
    double* p = rows.data();
    const size_t n = rows.size();
    return owned_array<double>(std::move(rows), p, {n});
  });
  m.def("check_blocks", [](const PyContext& pc, const nb::list& codes, const nb::list& counts, int64_t row0,
                           int64_t total_rows, int64_t samples, const std::string& scale, int64_t block_rows,
                           const Matrix& q) {
    // The float64 check pass's blocks held by consecutive pieces (codes[i], counts[i]) of the
    // used variants from row0 on: their TreeSum nodes as (level, index, sum), in block order.
    if (codes.size() != counts.size())
      throw StatusError(Status::Invalid("check blocks: ", codes.size(), " pieces of codes with ", counts.size(), " of counts"));
    genomics::GenotypeRowRange range;
    range.row0 = row0;
    std::vector<Codes> held;  // keeps the arrays alive while the pieces point into them
    for (size_t i = 0; i < codes.size(); ++i) {
      held.push_back(nb::cast<Codes>(codes[i]));
      range.pieces.push_back(group_of(held.back(), nb::cast<Counts>(counts[i]), samples));
    }
    const auto s = take(genomics::parse_standardization(scale));
    const linalg::DenseMatrix qm = dense_of(q);
    std::vector<TreeSum::Node> nodes =
        released(pc, [&] { return genomics::genotype_check_blocks(pc.ctx(), range, total_rows, s, block_rows, qm); });
    nb::list out;
    for (TreeSum::Node& n : nodes) {
      double* p = n.sum.data();
      const size_t size = n.sum.size();
      out.append(nb::make_tuple(n.level, n.index, owned_array<double>(std::move(n.sum), p, {size})));
    }
    return out;
  });
  m.def("pca_remote", [](const PyContext& pc, int64_t samples, const std::string& description, const Counts& counts,
                         nb::object plan, nb::object gram, nb::object project, nb::object check, nb::object fetch,
                         const genomics::PcaParams& p, const genomics::SelectionOptions& selection) {
    // The selection strata.pca applies to local genotypes (--geno, --maf), here on the counts.
    const std::vector<genomics::VariantCounts> all = counts_of(counts);
    const std::vector<int64_t> selected = take(genomics::select_variants_by_counts(selection, all));
    auto runner =
        std::make_shared<PyGroupRunner>(std::move(plan), std::move(gram), std::move(project), std::move(check), selected);
    genomics::RemoteGenotypes g;
    g.num_samples = samples;
    g.description = description;
    for (int64_t v : selected) g.counts.push_back(all[static_cast<size_t>(v)]);
    g.runner = runner;
    // fetch() returns a strata._core.GenotypeView built from the workers' packed codes.
    auto fetch_fn = std::make_shared<nb::object>(std::move(fetch));
    std::shared_ptr<std::optional<nb::python_error>> fetch_error = std::make_shared<std::optional<nb::python_error>>();
    g.fetch = [fetch_fn, fetch_error, selected]() -> Result<io::GenotypeViewPtr> {
      io::GenotypeViewPtr view;
      {
        nb::gil_scoped_acquire gil;
        try {
          view = nb::cast<const Genotypes&>((*fetch_fn)()).view;
        } catch (nb::python_error& e) {
          fetch_error->emplace(std::move(e));
          return Status::Cancelled("fetching the codes raised in Python");
        }
      }
      if (static_cast<int64_t>(selected.size()) == view->num_variants()) return view;
      return io::make_variant_subset(std::move(view), selected);
    };
    std::optional<Result<genomics::PcaResult>> r;
    {
      nb::gil_scoped_release release;
      r.emplace(genomics::pca_remote(pc.ctx(), g, p));
    }
    g.fetch = nullptr;
    raise_progress_error(pc);
    if (auto e = runner->take_error()) throw std::move(*e);
    if (*fetch_error) {
      nb::python_error e = std::move(**fetch_error);
      fetch_error->reset();
      throw e;
    }
    genomics::PcaResult out = take(std::move(*r));
    Summary summary = genomics::pca_result_summary(out, p);
    summary.set("samples", samples).set("variants_input", static_cast<int64_t>(selected.size()));
    for (int64_t& v : out.variants_used) v = selected[static_cast<size_t>(v)];  // the input's variant indices
    return pca_dict(std::move(out), summary);
  });
}

}  // namespace strata::python
