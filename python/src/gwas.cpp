// strata.gwas: the library's association scan (genomics::run_gwas) with its rows as numpy
// columns, and a distributed run's pieces: one share's rows as bytes, the run from its shares.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/variant.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "common.hpp"
#include "strata/genomics/gwas.hpp"

namespace strata::python {
namespace {

// A path (opened and selected as `strata gwas` does) or a view of strata.Genotypes.
using Source = std::variant<std::string, const Genotypes*>;

template <class T>
std::optional<T> get(const nb::dict& d, const char* key) {
  if (!d.contains(key) || d[key].is_none()) return std::nullopt;
  return nb::cast<T>(d[key]);
}

using Column = nb::ndarray<const double, nb::ndim<1>, nb::device::cpu>;

// An in-memory table as _gwas.py hands it over: (source, rows, [(name, float64 array or list of
// str)]). The arrays are read in place (any stride): the options dict keeps them alive.
std::shared_ptr<const genomics::SampleTableData> table_of(const nb::handle& h) {
  auto t = std::make_shared<genomics::SampleTableData>();
  const nb::tuple tup = nb::cast<nb::tuple>(h);
  t->source = nb::cast<std::string>(tup[0]);
  t->rows = nb::cast<int64_t>(tup[1]);
  for (nb::handle item : nb::cast<nb::list>(tup[2])) {
    const nb::tuple pair = nb::cast<nb::tuple>(item);
    genomics::SampleTableData::Column c;
    c.name = nb::cast<std::string>(pair[0]);
    Column a;
    if (nb::try_cast(pair[1], a, /*convert=*/false)) {
      if (static_cast<int64_t>(a.shape(0)) != t->rows)
        throw nb::value_error((t->source + ": column '" + c.name + "' has " + std::to_string(a.shape(0)) +
                               " values; it must have one value per sample of the input (" +
                               std::to_string(t->rows) + ")").c_str());
      c.values = a.data();
      c.stride = a.stride(0);
    } else {
      c.cells = nb::cast<std::vector<std::string>>(pair[1]);
    }
    t->columns.push_back(std::move(c));
  }
  return t;
}

// strata.gwas's keywords (python/strata/_gwas.py) as the library's options.
genomics::GwasOptions options_of(const nb::dict& d) {
  genomics::GwasOptions o;
  if (d.contains("pheno_table") && !d["pheno_table"].is_none()) o.pheno_table = table_of(d["pheno_table"]);
  if (d.contains("covar_table") && !d["covar_table"].is_none()) o.covar_table = table_of(d["covar_table"]);
  o.pheno_path = get<std::string>(d, "pheno").value_or("");
  o.pheno_names = get<std::vector<std::string>>(d, "pheno_name").value_or(std::vector<std::string>{});
  o.covar_path = get<std::string>(d, "covar").value_or("");
  o.covar_names = get<std::vector<std::string>>(d, "covar_name").value_or(std::vector<std::string>{});
  if (auto v = get<std::string>(d, "model")) o.model = take(genomics::parse_gwas_model(*v));
  if (auto v = get<std::string>(d, "firth")) o.firth = take(genomics::parse_firth_mode(*v));
  if (auto v = get<std::string>(d, "cols")) o.columns = take(genomics::parse_gwas_columns(*v));
  if (auto v = get<std::vector<std::string>>(d, "adjust")) {
    o.adjust = take(genomics::parse_adjust_options(*v));
    o.adjust.enabled = true;
  }
  o.zero_one_binary = get<bool>(d, "zero_one").value_or(false);
  o.nonfounders = get<bool>(d, "nonfounders").value_or(false);
  o.ci = get<double>(d, "ci").value_or(0.0);
  o.max_vif = get<double>(d, "vif").value_or(o.max_vif);
  o.max_corr = get<double>(d, "max_corr").value_or(o.max_corr);
  o.write_plot = get<bool>(d, "plot").value_or(false);
  o.variant_begin = get<int64_t>(d, "variant_begin").value_or(0);
  o.variant_end = get<int64_t>(d, "variant_end").value_or(-1);
  genomics::SelectionOptions& s = o.selection;
  s.keep = get<std::vector<std::string>>(d, "keep").value_or(s.keep);
  s.remove = get<std::vector<std::string>>(d, "remove").value_or(s.remove);
  s.extract = get<std::vector<std::string>>(d, "extract").value_or(s.extract);
  s.exclude = get<std::vector<std::string>>(d, "exclude").value_or(s.exclude);
  s.chr = get<std::string>(d, "chr").value_or("");
  s.maf = get<double>(d, "maf");
  s.geno = get<double>(d, "geno");
  s.hwe = get<double>(d, "hwe");
  s.mind = get<double>(d, "mind");
  s.open.bgen_sample = get<std::string>(d, "sample").value_or("");
  s.open.vcf_dosage = get<std::string>(d, "vcf_dosage").value_or("");
  return o;
}

template <class T>
nb::ndarray<nb::numpy, T> column(std::vector<T>&& v) {
  T* p = v.data();
  const size_t n = v.size();
  return owned_array<T>(std::move(v), p, {n});
}

nb::list strings(const std::vector<std::string>& v) {
  nb::list l;
  for (const std::string& s : v) l.append(nb::str(s.data(), s.size()));
  return l;
}

// The result as Python values: "variants" and, per phenotype, "columns" (numpy float64 / int64
// arrays, lists of str) and "summary" (its report fields); "summary" the run's report fields.
nb::dict result_dict(genomics::GwasResult&& r) {
  nb::dict d;
  genomics::GwasVariants& v = r.rows.variants;
  nb::dict vars;
  vars["CHROM"] = strings(v.chrom);
  vars["POS"] = column(std::move(v.pos));
  vars["ID"] = strings(v.id);
  vars["REF"] = strings(v.ref);
  vars["ALT"] = strings(v.alt);
  vars["A1"] = strings(v.a1);
  vars["OMITTED"] = strings(v.omitted);
  d["variants"] = vars;
  d["selected_variants"] = r.summary.selection.variants;
  d["samples"] = r.summary.num_samples;
  const Summary summary = r.summary.report;
  d["summary"] = summary_dict(summary);
  nb::list phenos;
  for (size_t j = 0; j < r.rows.phenotypes.size(); ++j) {
    genomics::GwasStats& st = r.rows.phenotypes[j];
    nb::dict c;
    c["OBS_CT"] = column(std::move(st.obs));
    c["A1_FREQ"] = column(std::move(st.a1_freq));
    std::vector<uint8_t> firth(st.firth.begin(), st.firth.end());
    c["FIRTH"] = column(std::move(firth));
    c["BETA"] = column(std::move(st.beta));
    c["SE"] = column(std::move(st.se));
    c["L95"] = column(std::move(st.l95));
    c["U95"] = column(std::move(st.u95));
    c["STAT"] = column(std::move(st.stat));
    c["P"] = column(std::move(st.p));
    c["LN_P"] = column(std::move(st.ln_p));
    c["ERRCODE"] = strings(st.errcode);
    nb::dict p;
    p["name"] = r.summary.phenotypes[j].name;
    p["logistic"] = r.summary.phenotypes[j].logistic;
    p["columns"] = c;
    phenos.append(p);
  }
  d["phenotypes"] = phenos;
  return d;
}

genomics::GwasResult run(const PyContext& pc, const Source& source, const genomics::GwasOptions& o,
                         const std::string& prefix, const std::vector<genomics::GwasRows>* shares) {
  return released(pc, [&]() -> Result<genomics::GwasResult> {
    if (const auto* path = std::get_if<std::string>(&source)) return genomics::run_gwas(pc.ctx(), *path, o, prefix, shares);
    const io::GenotypeViewPtr& view = std::get<const Genotypes*>(source)->view;
    return genomics::run_gwas(pc.ctx(), view, view->describe(), o, prefix, shares);
  });
}

}  // namespace

void bind_gwas(nb::module_& m) {
  m.def(
      "gwas",
      [](const PyContext& pc, const Source& source, const nb::dict& options, const std::string& prefix,
         const std::optional<std::vector<nb::bytes>>& shares) {
        const genomics::GwasOptions o = options_of(options);
        std::optional<std::vector<genomics::GwasRows>> rows;
        if (shares) {
          rows.emplace();
          for (const nb::bytes& b : *shares)
            rows->push_back(take(genomics::decode_gwas_rows(std::string(b.c_str(), b.size()))));
        }
        return result_dict(run(pc, source, o, prefix, rows ? &*rows : nullptr));
      },
      nb::arg("ctx"), nb::arg("source"), nb::arg("options"), nb::arg("prefix"), nb::arg("shares").none());
  // One share of a distributed run: its rows as bytes. `position_offset` moves the positions of
  // a dosage array's rows (numbered from 1 within the array) to their place in the whole array.
  m.def(
      "gwas_share",
      [](const PyContext& pc, const Source& source, const nb::dict& options, int64_t position_offset) {
        genomics::GwasResult r = run(pc, source, options_of(options), "", nullptr);
        for (int64_t& p : r.rows.variants.pos) p += position_offset;
        const std::string bytes = genomics::encode_gwas_rows(r.rows);
        return nb::bytes(bytes.data(), bytes.size());
      },
      nb::arg("ctx"), nb::arg("source"), nb::arg("options"), nb::arg("position_offset") = 0);
  // The input's samples as a phenotype table names them: (FIDs, IIDs).
  m.def("gwas_samples", [](const Source& source, const nb::dict& options) {
    io::GenotypeViewPtr view;
    const genomics::GwasOptions o = options_of(options);
    if (const auto* path = std::get_if<std::string>(&source))
      view = released([&] { return io::open_genotypes(*path, o.selection.open); });
    else
      view = std::get<const Genotypes*>(source)->view;
    const io::SampleInfo& s = view->samples();
    std::vector<std::string> fid = s.family_id;
    fid.resize(s.id.size());
    return std::make_pair(fid, s.id);
  });
  m.def("gwas_block_variants", &genomics::gwas_block_variants, nb::arg("num_samples"));
}

}  // namespace strata::python
