// run_pca_to_files: declare every output (one OutputSet), open, pca(), write them all, commit.
#include "strata/genomics/pca_output.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>
#include <system_error>
#include <unordered_map>

#include "io/genotype/text_reader_internal.hpp"
#include "io/zarr/metadata_json_internal.hpp"
#include "strata/core/job.hpp"
#include "strata/core/output.hpp"
#include "strata/core/thread_pool.hpp"
#include "strata/genomics/freq.hpp"
#include "strata/genomics/pca_format.hpp"
#include "strata/genomics/plot.hpp"
#include "strata/io/chromosome.hpp"
#include "strata/io/store.hpp"
#include "strata/io/zarr.hpp"
#include "strata/io/zarr_strings.hpp"

namespace strata::genomics {
namespace {

namespace fs = std::filesystem;


const char* method_name(linalg::SvdMethod m) { return linalg::svd_method_name(m); }

const char* scale_name(genomics::Standardization s) {
  switch (s) {
    case genomics::Standardization::Binom2: return "binom2";
    case genomics::Standardization::Binom: return "binom";
    case genomics::Standardization::Center: return "center";
    case genomics::Standardization::None: return "none";
  }
  return "?";
}

Status check_stream(const std::ofstream& f, const std::string& path) {
  if (!f) return Status::IOError("cannot write ", path);
  return Status::OK();
}

Status write_text(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
  f.close();
  return check_stream(f, path);
}

std::string one_component_svg() {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"480\" height=\"60\">"
         "<text x=\"10\" y=\"35\" font-size=\"14\">One principal component: nothing to plot.</text></svg>\n";
}

// Sample IDs, numbered from 0 where the source has none (plain dosage arrays).
std::vector<std::string> sample_ids(const io::SampleInfo& s, int64_t n) {
  if (static_cast<int64_t>(s.id.size()) == n) return s.id;
  std::vector<std::string> out;
  for (int64_t i = 0; i < n; ++i) out.push_back(std::to_string(i));
  return out;
}

// Appends "\tX" for each value of a row (the PCA's "%.9g" text).
void append_values(std::string& line, const double* x, int64_t count, int64_t stride) {
  char buf[32];
  for (int64_t j = 0; j < count; ++j) {
    line += '\t';
    line += format_pca_value(x[j * stride], buf);
  }
}

Status write_eigenvec(const std::string& path, const io::SampleInfo& s, const linalg::DenseMatrix& v) {
  const std::vector<std::string> ids = sample_ids(s, v.rows);
  std::string text = "#FID\tIID";
  for (int64_t j = 0; j < v.cols; ++j) text += "\tPC" + std::to_string(j + 1);
  text += '\n';
  const bool has_fid = static_cast<int64_t>(s.family_id.size()) == v.rows;
  for (int64_t i = 0; i < v.rows; ++i) {
    const std::string& iid = ids[static_cast<size_t>(i)];
    text += has_fid ? s.family_id[static_cast<size_t>(i)] : iid;
    text += '\t';
    text += iid;
    append_values(text, v.data.data() + i, v.cols, v.rows);
    text += '\n';
  }
  return write_text(path, text);
}

Status write_eigenval(const std::string& path, const std::vector<double>& values) {
  std::ofstream f(path);
  f << format_eigenval(values);
  f.close();
  return check_stream(f, path);
}

constexpr int64_t kMetadataReadAhead = int64_t{64} << 20;
// The variant table is written in pieces of this size from one buffer: growing a 2 MB string by
// doubling faulted in ~4 MB of fresh pages (~4 µs each under the hypervisor) and copied it.
constexpr size_t kTextFlushBytes = size_t{256} << 10;

// Variant metadata of the used variants, read in ranges of the input; also fills `ids`.
Status write_eigenvec_var(const std::string& path, const io::GenotypeView& view, const PcaResult& r) {
  std::ofstream f(path, std::ios::binary);
  const int64_t k = static_cast<int64_t>(r.eigenvalues.size());
  std::string text;
  text.reserve(kTextFlushBytes + 4096);
  text = "#CHROM\tID\tREF\tALT";
  for (int64_t j = 0; j < k; ++j) text += "\tPC" + std::to_string(j + 1);
  text += '\n';
  const auto& used = r.variants_used;
  const int64_t m = static_cast<int64_t>(used.size());
  const bool have_loadings = r.loadings.rows == m && r.loadings.cols == k;
  const int64_t span = 65536;
  static const std::string dot = ".";
  std::vector<std::string> chrom;  // plink2's spelling of each contig (chrX → X)
  for (const std::string& c : view.contigs()) chrom.push_back(io::plink_chromosome_name(c));
  for (int64_t i = 0; i < m;) {
    const int64_t start = used[static_cast<size_t>(i)];
    const int64_t next = std::min(start + span, view.num_variants());
    // A remote source fetches the next span's metadata while this one is formatted.
    if (next < view.num_variants()) view.prefetch_variants(next, std::min(span, view.num_variants() - next), kMetadataReadAhead);
    STRATA_ASSIGN_OR_RETURN(io::VariantInfo info,
                            view.variants(start, std::min(span, view.num_variants() - start)));
    for (; i < m && used[static_cast<size_t>(i)] < start + info.size(); ++i) {
      const auto v = static_cast<size_t>(used[static_cast<size_t>(i)] - start);
      const int32_t c = info.contig.empty() ? -1 : info.contig[v];
      text += c >= 0 && c < static_cast<int32_t>(chrom.size()) ? chrom[static_cast<size_t>(c)] : dot;
      text += '\t';
      text += info.id.empty() ? dot : info.id[v];
      text += '\t';
      text += info.ref.empty() ? dot : info.ref[v];
      text += '\t';
      text += info.alt.empty() || info.alt[v].empty() ? dot : info.alt[v];
      if (have_loadings) {
        append_values(text, r.loadings.data.data() + i, k, r.loadings.rows);
      } else {
        for (int64_t j = 0; j < k; ++j) text += "\tnan";
      }
      text += '\n';
      if (text.size() > kTextFlushBytes) {  // one buffer reused: no fresh pages to fault in
        f.write(text.data(), static_cast<std::streamsize>(text.size()));
        text.clear();
      }
    }
    if (info.size() == 0) return Status::IOError(view.describe(), ": no metadata for variant ", start);
  }
  f.write(text.data(), static_cast<std::streamsize>(text.size()));
  f.close();
  return check_stream(f, path);
}

// IDs of the used variants ("." where the source has none), for the Zarr store.
Result<std::vector<std::string>> used_variant_ids(const io::GenotypeView& view, const std::vector<int64_t>& used) {
  std::vector<std::string> ids;
  ids.reserve(used.size());
  const int64_t span = 65536;
  for (size_t i = 0; i < used.size();) {
    const int64_t start = used[i];
    STRATA_ASSIGN_OR_RETURN(io::VariantInfo info, view.variants(start, std::min(span, view.num_variants() - start)));
    if (info.size() == 0) return Status::IOError(view.describe(), ": no metadata for variant ", start);
    for (; i < used.size() && used[i] < start + info.size(); ++i)
      ids.push_back(info.id.empty() ? "." : info.id[static_cast<size_t>(used[i] - start)]);
  }
  return ids;
}

Result<io::ZarrArray> make_f64(const std::shared_ptr<io::Store>& store, const std::string& name, Shape shape,
                               std::vector<std::string> dims) {
  io::ZarrCreateOptions o;
  o.shape = shape;
  o.chunks = shape;
  for (auto& c : o.chunks) c = std::max<int64_t>(c, 1);
  o.dtype = DType(ScalarType::Float64);
  o.dimension_names = std::move(dims);
  return io::ZarrArray::create(store, name, o);
}

Status write_zarr(const std::string& path, const std::string& input, const PcaRunOptions& opt,
                  const PcaRunSummary& s, const io::SampleInfo& samples, const std::vector<std::string>& variant_ids) {
  const PcaResult& r = s.result;
  const auto k = static_cast<int64_t>(r.eigenvalues.size());
  const auto n = r.eigenvectors.rows;
  const auto m = static_cast<int64_t>(r.variants_used.size());
  STRATA_ASSIGN_OR_RETURN(auto store, io::LocalStore::open(path, true));
  STRATA_ASSIGN_OR_RETURN(auto ev, make_f64(store, "eigenvalues", {k}, {"components"}));
  STRATA_RETURN_NOT_OK(ev.write_region({0}, {k}, r.eigenvalues.data()));
  STRATA_ASSIGN_OR_RETURN(auto vr, make_f64(store, "variance_ratio", {k}, {"components"}));
  STRATA_RETURN_NOT_OK(vr.write_region({0}, {k}, r.variance_ratio.data()));
  STRATA_ASSIGN_OR_RETURN(auto vec, make_f64(store, "eigenvectors", {n, k}, {"samples", "components"}));
  STRATA_RETURN_NOT_OK(vec.write_region({0, 0}, {n, k}, r.eigenvectors.to_row_major().data()));
  if (r.loadings.rows == m) {
    STRATA_ASSIGN_OR_RETURN(auto ld, make_f64(store, "loadings", {m, k}, {"variants", "components"}));
    STRATA_RETURN_NOT_OK(ld.write_region({0, 0}, {m, k}, r.loadings.to_row_major().data()));
  }
  io::ZarrCreateOptions io64;
  io64.shape = {m};
  io64.chunks = {std::max<int64_t>(m, 1)};
  io64.dtype = DType(ScalarType::Int64);
  io64.dimension_names = {"variants"};
  STRATA_ASSIGN_OR_RETURN(auto vi, io::ZarrArray::create(store, "variant_index", io64));
  // Indices into the input, through the selection.
  std::vector<int64_t> index = r.variants_used;
  if (!s.selected_variants.empty())
    for (int64_t& v : index) v = s.selected_variants[static_cast<size_t>(v)];
  STRATA_RETURN_NOT_OK(vi.write_region({0}, {m}, index.data()));
  STRATA_RETURN_NOT_OK(io::write_zarr_strings(store, "sample_id", sample_ids(samples, n), "samples"));
  STRATA_RETURN_NOT_OK(io::write_zarr_strings(store, "variant_id", variant_ids, "variants"));
  const nlohmann::json attrs = {
      {"source", input},
      {"method", method_name(r.method)},
      {"route", r.route},
      {"scale", scale_name(opt.pca.scale)},
      {"missing", opt.pca.meanimpute ? "mean-imputed" : "pairwise: each GRM entry over the variants both samples observe"},
      {"k", k},
      {"num_samples", n},
      {"num_variants_used", m},
      {"grm_trace", r.grm_trace},
      {"passes", r.passes},
      {"error_estimate", r.error_estimate},
      {"eigenvalue_scale", "GRM X^T X / M, M = variants passing the filters, monomorphic ones included (plink2 --pca)"},
      {"grm_variants", r.grm_variants},
      {"converged", r.converged},
      {"stop", r.stop},
      {"loadings", "unit-norm left singular vectors of the standardized variants x samples matrix"}};
  STRATA_RETURN_NOT_OK(io::zarr_create_group(store, "", io::ZarrFormat::V2, io::detail::dump_compact(attrs)));
  return io::zarr_consolidate(store, "");
}

}  // namespace

Summary pca_result_summary(const PcaResult& r, const PcaParams& params) {
  Summary s;
  s.set("method", linalg::svd_method_name(r.method)).set("route", r.route).set("k", params.k);
  s.set("scale", standardization_name(params.scale));
  s.set("variants_used", r.variants_used.size()).set("grm_variants", r.grm_variants);
  s.set("passes", r.passes).set("stop", r.stop).set("converged", r.converged);
  s.set("tolerance", params.tolerance).set("max_error_estimate", r.max_error_estimate);
  s.set("codes_resident", r.resident).set("arithmetic", r.arithmetic);
  s.set("eigenvalues", r.eigenvalues).set("variance_ratio", r.variance_ratio).set("error_estimate", r.error_estimate);
  s.set("missing", params.meanimpute ? "meanimpute" : "pairwise");
  s.set("errors_bounded", r.errors_bounded).set("eigenvector_error_bound", r.eigenvector_error_bound);
  return s;
}

Result<PcaRunSummary> run_pca_to_files(const Context& ctx, const std::string& input, const std::string& prefix,
                                       const PcaRunOptions& options) {
  if (prefix.empty()) return Status::Invalid("pca: no output prefix");
  PcaRunSummary s;
  // Under MPI rank 0 alone declares and writes the outputs; every rank opens the input and
  // runs the passes on its part. The ranks agree after this setup and before the commit.
  Job job(ctx, "pca", input, prefix);
  PhaseTimer open = job.phase("open");
  const bool writer = job.writer();
  std::string vec, val, var, afreq_file, zarr, svg, png;
  PlotFormats formats;
  // Every output is declared (and checked against the inputs and what exists) before the passes.
  OutputRules rules;
  rules.overwrite = options.overwrite;
  if (!options.pop_file.empty()) rules.inputs.push_back(options.pop_file);
  for (const auto& f : options.selection.files()) rules.inputs.push_back(f);
  STRATA_RETURN_NOT_OK(job.declare(prefix + ".eigenvec", std::move(rules), [&](OutputSet& out) -> Status {
    STRATA_ASSIGN_OR_RETURN(vec, out.add_file(prefix + ".eigenvec"));
    STRATA_ASSIGN_OR_RETURN(val, out.add_file(prefix + ".eigenval"));
    STRATA_ASSIGN_OR_RETURN(var, out.add_file(prefix + ".eigenvec.var"));
    STRATA_ASSIGN_OR_RETURN(afreq_file, out.add_file(prefix + ".afreq"));
    STRATA_ASSIGN_OR_RETURN(zarr, out.add_directory(prefix + ".zarr"));
    if (options.write_plot) {
      STRATA_ASSIGN_OR_RETURN(formats, PlotFormats::choose(true, options.plot_format));
      if (formats.svg) {
        STRATA_ASSIGN_OR_RETURN(svg, out.add_file(prefix + ".svg"));
      }
      if (formats.png && options.pca.k >= 2) {
        STRATA_ASSIGN_OR_RETURN(png, out.add_file(prefix + ".png"));
      }
    }
    return Status::OK();
  }));
  io::GenotypeViewPtr view;
  std::vector<std::string> labels;
  Status st = [&]() -> Status {
    SelectionOptions selection = options.selection;
    selection.skip_non_autosomes_for = "PCA";  // plink2 --pca skips X, Y and MT
    STRATA_ASSIGN_OR_RETURN(Selection sel, open_selected_genotypes(ctx, input, selection));
    view = sel.view;
    s.selection = std::move(sel.report);
    if (options.selection.any() || s.selection.removed_non_autosomes > 0) s.selected_variants = std::move(sel.variants);
    // Labels first: a bad --pop-file should fail before the expensive passes.
    if (writer && options.write_plot) {
      STRATA_ASSIGN_OR_RETURN(labels, pca_population_labels(view->samples(), options.pop_file, options.pop_column, &s.pop_labels));
    }
    return Status::OK();
  }();
  STRATA_RETURN_NOT_OK(job.agree(st));
  s.num_samples = view->num_samples();
  s.num_variants_input = view->num_variants();
  open.stop();
  STRATA_ASSIGN_OR_RETURN(s.result, pca(ctx, view, options.pca));
  const PcaResult& r = s.result;
  // PREFIX.afreq: the frequencies the PCA standardized with (the founders' in a pedigree, every
  // sample's with --nonfounders; dosages as counted for --freq), so `strata project` and plink2
  // --score --read-freq standardize targets alike.
  std::vector<AlleleCounts> afreq;
  if (view->has_dosages()) {
    STRATA_ASSIGN_OR_RETURN(FreqTable t, compute_freq_table(ctx, view));
    afreq = std::move(t.alleles);
  } else {
    // pca() hands back the counts it standardized with (no second pass over the genotypes).
    if (static_cast<int64_t>(r.counts.size()) != view->num_variants())
      return Status::Internal("pca: ", r.counts.size(), " variant counts for ", view->num_variants(), " variants");
    for (const VariantCounts& c : r.counts) afreq.push_back({2 * c.frequency_alt_alleles(), c.frequency_allele_count()});
  }

  PhaseTimer write = job.phase("write");
  // With one component there is no scatter to draw: the SVG says so (a stale plot of an older
  // run must not survive beside the new outputs).
  const bool plot = options.write_plot && r.eigenvalues.size() >= 2;
  // Two halves of about equal work on the workers: the variant table, and the sample-sized
  // files plus the Zarr store (which reads the variant IDs itself).
  auto variant_side = [&]() -> Status {
    STRATA_RETURN_NOT_OK(write_eigenvec_var(var, *view, r));
    return write_afreq_file(*view, afreq, afreq_file, prefix + ".afreq");
  };
  auto sample_side = [&]() -> Status {
    STRATA_RETURN_NOT_OK([&]() -> Status {
      STRATA_ASSIGN_OR_RETURN(std::vector<std::string> variant_ids, used_variant_ids(*view, r.variants_used));
      return write_zarr(zarr, input, options, s, view->samples(), variant_ids);
    }());
    STRATA_RETURN_NOT_OK(write_eigenvec(vec, view->samples(), r.eigenvectors));
    STRATA_RETURN_NOT_OK(write_eigenval(val, r.eigenvalues));
    if (plot) {
      PcaPlotData pd;
      pd.num_samples = r.eigenvectors.rows;
      pd.num_components = std::min<int64_t>(r.eigenvectors.cols, 4);
      pd.scores.resize(static_cast<size_t>(pd.num_samples * pd.num_components));
      for (int64_t i = 0; i < pd.num_samples; ++i)
        for (int64_t j = 0; j < pd.num_components; ++j)
          pd.scores[static_cast<size_t>(i * pd.num_components + j)] = r.eigenvectors(i, j);
      pd.labels = std::move(labels);
      pd.variance_ratio.assign(r.variance_ratio.begin(), r.variance_ratio.end());
      pd.title = "PCA of " + fs::path(input).filename().string();
      return write_pca_plot(pd, svg, png);
    }
    if (!svg.empty()) return write_text(svg, one_component_svg());
    return Status::OK();
  };
  if (writer) st = ctx.pool().parallel_for(2, [&](int64_t half) { return half == 0 ? variant_side() : sample_side(); });
  STRATA_RETURN_NOT_OK(job.commit(st));
  write.stop();
  s.files = job.files();
  Summary& rep = job.summary();
  rep.merge(pca_result_summary(r, options.pca));
  rep.set("samples", s.num_samples).set("variants_input", s.num_variants_input);
  s.selection.add_to(rep);
  if (!s.pop_labels.empty()) rep.set("pop_file_labels", s.pop_labels);
  s.report = rep;  // a copy: the Job logs its summary when it ends
  return s;
}

}  // namespace strata::genomics
