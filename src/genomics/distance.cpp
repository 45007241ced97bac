// Pairwise genotype distances (strata/genomics/distance.hpp): metrics from the exact joint
// counts of the pair pass; square and Zarr outputs from the whole matrix, triangle streamed by
// tile rows.
#include "strata/genomics/distance.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <optional>

#include "genomics/relatedness_internal.hpp"
#include "genomics/row_spool.hpp"
#include "strata/core/job.hpp"
#include "strata/genomics/row_distance.hpp"
#include "strata/io/store.hpp"
#include "strata/io/zarr.hpp"
#include "strata/io/zarr_strings.hpp"

namespace strata::genomics {
namespace {

using detail::SampleIds;
using detail::TextWriter;

// Shortest decimal that reads back to the same double ("nan", "inf" as such).
void append_value(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "nan";
    return;
  }
  char buf[40];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, end);
}
void put_value(TextWriter& w, double v) {
  if (std::isnan(v)) return w.put("nan");
  char buf[40];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  w.put(std::string_view(buf, static_cast<size_t>(end - buf)));
}

Status write_dist_ids(const std::string& path, const SampleIds& ids) {
  STRATA_ASSIGN_OR_RETURN(TextWriter w, TextWriter::open(path));
  for (size_t i = 0; i < ids.iid.size(); ++i) {
    w.put(ids.has_fid ? ids.fid[i] : ids.iid[i]);
    w.put('\t');
    w.put(ids.iid[i]);
    w.put('\n');
    STRATA_RETURN_NOT_OK(w.maybe_flush());
  }
  return w.close();
}

Status write_square(const std::string& path, const std::vector<double>& d, int64_t n) {
  STRATA_ASSIGN_OR_RETURN(TextWriter w, TextWriter::open(path));
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      if (j) w.put('\t');
      put_value(w, d[static_cast<size_t>(i * n + j)]);
    }
    w.put('\n');
    STRATA_RETURN_NOT_OK(w.maybe_flush());
  }
  return w.close();
}

Result<io::ZarrArray> create_zarr(const std::shared_ptr<io::LocalStore>& store, int64_t n, int64_t chunk) {
  io::ZarrCreateOptions o;
  o.shape = {n, n};
  o.chunks = {std::min(n, chunk), std::min(n, chunk)};
  o.dtype = DType(ScalarType::Float64);
  o.dimension_names = {"samples_0", "samples_1"};
  return io::ZarrArray::create(store, "distance", o);
}

Status finish_zarr(const std::shared_ptr<io::LocalStore>& store, const std::string& input, const std::string& metric,
                   const SampleIds& ids, const std::string& missing) {
  STRATA_RETURN_NOT_OK(io::write_zarr_strings(store, "sample_id", ids.iid, "samples"));
  const std::string attrs = "{\"source\": \"" + input + "\", \"metric\": \"" + metric +
                            "\", \"missing\": \"" + missing + "\"}";
  STRATA_RETURN_NOT_OK(io::zarr_create_group(store, "", io::ZarrFormat::V2, attrs));
  return io::zarr_consolidate(store, "");
}

Status write_zarr(const std::string& path, const std::string& input, const std::string& metric,
                  const std::vector<double>& d, int64_t n, int64_t chunk, const SampleIds& ids,
                  const std::string& missing) {
  STRATA_ASSIGN_OR_RETURN(auto store, io::LocalStore::open(path, true));
  STRATA_ASSIGN_OR_RETURN(auto arr, create_zarr(store, n, chunk));
  STRATA_RETURN_NOT_OK(arr.write_region({0, 0}, {n, n}, d.data()));
  return finish_zarr(store, input, metric, ids, missing);
}

std::string json_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;
    out += c;
  }
  return out;
}

// The outputs of a numeric array's rows (row_distance.hpp), from its bands: triangle lines as
// bands finish, square and Zarr from the whole matrix.
Result<DistanceSummary> write_row_distances(const Context& ctx, const io::ZarrArray& matrix, const std::string& input,
                                            const std::string& dist_path, const std::string& id_path,
                                            const DistanceOptions& options) {
  DistanceSummary s;
  const int64_t n = matrix.shape()[0];
  s.num_samples = n;
  s.num_variants = matrix.shape()[1];
  const SampleIds ids = SampleIds::of(io::SampleInfo{}, n);
  RowDistanceOptions ro;
  ro.band = options.row_band;
  if (options.format == DistanceFormat::Triangle) {
    STRATA_ASSIGN_OR_RETURN(TextWriter w, TextWriter::open(dist_path));
    STRATA_RETURN_NOT_OK(for_each_row_distance_band(ctx, matrix, options.metric, ro, [&](const RowDistanceBand& b) {
      for (int64_t r = 0; r < b.rows; ++r) {
        const int64_t i = b.row0 + r;
        if (i == 0) continue;
        for (int64_t j = 0; j < i; ++j) {
          if (j) w.put('\t');
          put_value(w, b.values[r * b.ld + j]);
        }
        w.put('\n');
        STRATA_RETURN_NOT_OK(w.maybe_flush());
      }
      return Status::OK();
    }));
    STRATA_RETURN_NOT_OK(w.close());
  } else {
    STRATA_ASSIGN_OR_RETURN(const std::vector<double> d,
                            row_distance_matrix(ctx, RowMatrix::of(matrix), options.metric, ro));
    PhaseTimer write(ctx, "write");
    if (options.format == DistanceFormat::Zarr) {
      STRATA_RETURN_NOT_OK(write_zarr(dist_path, json_escape(input), distance_metric_name(options.metric), d, n,
                                      std::min<int64_t>(n, 256), ids,
                                      "each pair uses the coordinates both rows have (NaN = missing)"));
    } else {
      STRATA_RETURN_NOT_OK(write_square(dist_path, d, n));
    }
  }
  if (options.format != DistanceFormat::Zarr) STRATA_RETURN_NOT_OK(write_dist_ids(id_path, ids));
  return s;
}

// Raw doubles carried in a PreparedTile's bytes (tiles computed on another rank arrive so).
void append_doubles(std::string& out, const std::vector<double>& v) {
  out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(double));
}
const double* doubles_at(const std::string& bytes, size_t index) {
  return reinterpret_cast<const double*>(bytes.data()) + index;
}

// The genotype outputs, streamed: triangle and square text row by row through a RowSpool
// (square from full rows of tiles, unless the N × N matrix fits half the budget: then it is
// held and mirrored, half the kernel work), Zarr chunk by chunk as tiles finish (each tile and
// its mirror). Each tile's values are formed where it was computed (the pass's prepare step;
// under MPI the ranks share the tiles) and written by rank 0 alone (`writer`), in pass order.
// Returns how the matrix was laid out ("streamed", "held").
Result<std::string> write_genotype_distances(const Context& ctx, const io::GenotypeView& view, const std::string& input,
                                             const std::string& dist_path, const SampleIds& ids,
                                             const DistanceOptions& options, const std::string& spool_dir,
                                             bool writer, DistanceSummary* s) {
  const int64_t n = view.num_samples();
  const DistanceSpec& metric = options.metric;
  PairPassOptions pass = options.pass;
  if (options.format == DistanceFormat::Zarr) {
    std::shared_ptr<io::LocalStore> store;
    std::optional<io::ZarrArray> arr;
    if (writer) {
      STRATA_ASSIGN_OR_RETURN(store, io::LocalStore::open(dist_path, true));
      STRATA_ASSIGN_OR_RETURN(arr, create_zarr(store, n, pair_tile_size(n, pass)));
    }
    STRATA_ASSIGN_OR_RETURN(const PairPassPlan plan, plan_pair_pass(ctx, view, pass));
    s->sample_bands = plan.bands;
    // Bytes: the tile (rows × cols) and, off the diagonal, its mirror (cols × rows).
    auto prepare = [&](const PairTile& pt, PreparedTile& out) -> Status {
      std::vector<double> v(static_cast<size_t>(pt.rows * pt.cols), 0.0), mirror(v.size(), 0.0);
      const bool diagonal = pt.row0 == pt.col0;
      for (int64_t r = 0; r < pt.rows; ++r)
        for (int64_t c = 0; c < (diagonal ? r + 1 : pt.cols); ++c) {
          const double d = pair_distance(metric, pt.table(r, c), diagonal && c == r);
          v[static_cast<size_t>(r * pt.cols + c)] = d;
          mirror[static_cast<size_t>(c * pt.rows + r)] = d;
          if (diagonal) v[static_cast<size_t>(c * pt.cols + r)] = d;
        }
      append_doubles(out.text, v);
      if (!diagonal) append_doubles(out.text, mirror);
      return Status::OK();
    };
    auto commit = [&](const PairTile& pt, PreparedTile& done) -> Status {
      const size_t cells = static_cast<size_t>(pt.rows * pt.cols);
      STRATA_RETURN_NOT_OK(arr->write_region({pt.row0, pt.col0}, {pt.rows, pt.cols}, doubles_at(done.text, 0)));
      if (pt.row0 == pt.col0) return Status::OK();
      return arr->write_region({pt.col0, pt.row0}, {pt.cols, pt.rows}, doubles_at(done.text, cells));
    };
    STRATA_RETURN_NOT_OK(for_each_pair_tile(ctx, view, pass, prepare, commit));
    if (writer) {
      STRATA_RETURN_NOT_OK(finish_zarr(store, json_escape(input), distance_metric_name(metric), ids,
                                       "each pair uses the variants both samples have observed"));
    }
    return std::string("streamed");
  }
  const bool square = options.format == DistanceFormat::Square;
  if (square && n * n * 8 <= ctx.memory_budget() / 2 && !options.stream_square) {
    pass.reserve_bytes += n * n * 8;
    STRATA_ASSIGN_OR_RETURN(const PairPassPlan plan, plan_pair_pass(ctx, view, pass));
    s->sample_bands = plan.bands;
    STRATA_ASSIGN_OR_RETURN(std::vector<double> d, distance_matrix(ctx, view, metric, pass));
    if (writer) STRATA_RETURN_NOT_OK(write_square(dist_path, d, n));
    return std::string("held");
  }
  // Triangle: line i holds j < i (ibs, a similarity: j ≤ i). Square: every j, from full rows.
  const bool with_diagonal = metric.metric == DistanceMetric::Ibs;
  pass.full_rows = square;
  const int64_t cap = options.spool_bytes > 0 ? options.spool_bytes : ctx.memory_budget() / 4;
  pass.reserve_bytes += cap;
  std::optional<detail::RowSpool> spool;
  TextWriter w;
  if (writer) {
    spool.emplace(spool_dir, cap);
    STRATA_ASSIGN_OR_RETURN(w, TextWriter::open(dist_path));
  }
  STRATA_ASSIGN_OR_RETURN(const PairPassPlan plan, plan_pair_pass(ctx, view, pass));
  s->sample_bands = plan.bands;
  auto prepare = [&](const PairTile& pt, PreparedTile& out) -> Status {
    for (int64_t r = 0; r < pt.rows; ++r) {
      const int64_t i = pt.row0 + r, last = square ? n : with_diagonal ? i + 1 : i;
      const int64_t cols = std::min(pt.cols, last - pt.col0);
      for (int64_t c = 0; c < cols; ++c) {
        if (pt.col0 + c > 0) out.text += '\t';
        append_value(out.text, pair_distance(metric, pt.table(r, c), pt.col0 + c == i));
      }
      if (pt.last_in_row && last > 0) out.text += '\n';
      out.ends.push_back(static_cast<uint32_t>(out.text.size()));
    }
    return Status::OK();
  };
  auto commit = [&](const PairTile& pt, PreparedTile& done) -> Status {
    STRATA_RETURN_NOT_OK(spool->add(pt.tile_row, std::move(done.text), std::move(done.ends)));
    return pt.last_in_row ? spool->emit(pt.tile_row, w) : Status::OK();
  };
  STRATA_RETURN_NOT_OK(for_each_pair_tile(ctx, view, pass, prepare, commit));
  if (writer) {
    STRATA_RETURN_NOT_OK(w.close());
    s->spilled_bytes = spool->spilled_bytes();
  }
  return std::string("streamed");
}

}  // namespace

Result<DistanceSpec> parse_distance_metric(std::string_view text) {
  static const std::pair<std::string_view, DistanceMetric> kNames[] = {
      {"euclidean", DistanceMetric::Euclidean},     {"sqeuclidean", DistanceMetric::SqEuclidean},
      {"cityblock", DistanceMetric::Cityblock},     {"chebyshev", DistanceMetric::Chebyshev},
      {"cosine", DistanceMetric::Cosine},           {"correlation", DistanceMetric::Correlation},
      {"hamming", DistanceMetric::Hamming},         {"ibs", DistanceMetric::Ibs},
      {"allele-sharing", DistanceMetric::AlleleSharing}};
  for (const auto& [name, m] : kNames)
    if (text == name) return DistanceSpec{m, 2.0};
  if (text.starts_with("minkowski")) {
    const std::string_view rest = text.substr(9);
    if (rest.empty() || rest[0] != ':')
      return Status::Invalid("--metric minkowski needs its power: minkowski:P with P > 0 (e.g. minkowski:3), got '",
                             text, "'");
    const std::string p_text(rest.substr(1));
    char* end = nullptr;
    const double p = p_text.empty() ? 0.0 : std::strtod(p_text.c_str(), &end);
    if (p_text.empty() || end != p_text.c_str() + p_text.size() || !std::isfinite(p) || !(p > 0.0))
      return Status::Invalid("--metric minkowski:P needs a number P > 0, got '", p_text, "'");
    return DistanceSpec{DistanceMetric::Minkowski, p};
  }
  return Status::Invalid("--metric must be one of ", kDistanceMetricNames, "; got '", text, "'");
}

std::string distance_metric_name(const DistanceSpec& spec) {
  switch (spec.metric) {
    case DistanceMetric::Euclidean: return "euclidean";
    case DistanceMetric::SqEuclidean: return "sqeuclidean";
    case DistanceMetric::Cityblock: return "cityblock";
    case DistanceMetric::Chebyshev: return "chebyshev";
    case DistanceMetric::Cosine: return "cosine";
    case DistanceMetric::Correlation: return "correlation";
    case DistanceMetric::Hamming: return "hamming";
    case DistanceMetric::Ibs: return "ibs";
    case DistanceMetric::AlleleSharing: return "allele-sharing";
    case DistanceMetric::Minkowski: {
      char buf[40];
      auto [end, ec] = std::to_chars(buf, buf + sizeof buf, spec.p);
      return "minkowski:" + std::string(buf, end);
    }
  }
  return "?";
}

Result<DistanceFormat> parse_distance_format(std::string_view text) {
  if (text == "square") return DistanceFormat::Square;
  if (text == "triangle") return DistanceFormat::Triangle;
  if (text == "zarr") return DistanceFormat::Zarr;
  return Status::Invalid("--format must be square, triangle or zarr; got '", text, "'");
}

double pair_distance(const DistanceSpec& spec, const PairTable& t, bool same_sample) {
  if (same_sample) return spec.metric == DistanceMetric::Ibs ? 1.0 : 0.0;
  const int64_t n = t.both();
  if (n == 0) return std::nan("");
  const auto d1 = static_cast<double>(t.differ1()), d2 = static_cast<double>(t.differ2());
  switch (spec.metric) {
    case DistanceMetric::Euclidean: return std::sqrt(d1 + 4.0 * d2);
    case DistanceMetric::SqEuclidean: return d1 + 4.0 * d2;
    case DistanceMetric::Cityblock: return d1 + 2.0 * d2;
    case DistanceMetric::Chebyshev: return d2 > 0 ? 2.0 : d1 > 0 ? 1.0 : 0.0;
    case DistanceMetric::Minkowski: return std::pow(d1 + std::pow(2.0, spec.p) * d2, 1.0 / spec.p);
    case DistanceMetric::Hamming: return (d1 + d2) / static_cast<double>(n);
    case DistanceMetric::Ibs: return 1.0 - (d1 + 2.0 * d2) / (2.0 * static_cast<double>(n));
    case DistanceMetric::AlleleSharing: return (d1 + 2.0 * d2) / (2.0 * static_cast<double>(n));
    case DistanceMetric::Cosine: {
      const double v = 1.0 - static_cast<double>(t.sum_ab()) /
                                 std::sqrt(static_cast<double>(t.sum_a2()) * static_cast<double>(t.sum_b2()));
      return std::isnan(v) ? v : std::clamp(v, 0.0, 2.0);
    }
    case DistanceMetric::Correlation: {
      // Integer moments: n·Σab − ΣaΣb and the variances are exact (below 2⁵³ for n < 10⁷).
      const int64_t num = n * t.sum_ab() - t.sum_a() * t.sum_b();
      const int64_t va = n * t.sum_a2() - t.sum_a() * t.sum_a();
      const int64_t vb = n * t.sum_b2() - t.sum_b() * t.sum_b();
      const double v = 1.0 - static_cast<double>(num) /
                                 std::sqrt(static_cast<double>(va) * static_cast<double>(vb));
      return std::isnan(v) ? v : std::clamp(v, 0.0, 2.0);
    }
  }
  return std::nan("");
}

Result<std::vector<double>> distance_matrix(const Context& ctx, const io::GenotypeView& view, const DistanceSpec& spec,
                                            const PairPassOptions& pass) {
  const int64_t n = view.num_samples();
  std::vector<double> d(static_cast<size_t>(ctx.communicator().rank() == 0 ? n * n : 0));
  // Bytes: the tile's values row-major (on a diagonal tile the upper half is not used).
  auto prepare = [&](const PairTile& pt, PreparedTile& out) -> Status {
    std::vector<double> v(static_cast<size_t>(pt.rows * pt.cols), 0.0);
    for (int64_t r = 0; r < pt.rows; ++r)
      for (int64_t c = 0; c < pt.cols && pt.col0 + c <= pt.row0 + r; ++c)
        v[static_cast<size_t>(r * pt.cols + c)] = pair_distance(spec, pt.table(r, c), pt.col0 + c == pt.row0 + r);
    append_doubles(out.text, v);
    return Status::OK();
  };
  auto commit = [&](const PairTile& pt, PreparedTile& done) -> Status {
    for (int64_t r = 0; r < pt.rows; ++r)
      for (int64_t c = 0; c < pt.cols; ++c) {
        const int64_t i = pt.row0 + r, j = pt.col0 + c;
        if (j > i) continue;
        const double v = *doubles_at(done.text, static_cast<size_t>(r * pt.cols + c));
        d[static_cast<size_t>(i * n + j)] = v;
        d[static_cast<size_t>(j * n + i)] = v;
      }
    return Status::OK();
  };
  STRATA_RETURN_NOT_OK(for_each_pair_tile(ctx, view, pass, prepare, commit));
  return d;
}

std::vector<double> distance_matrix_from_counts(int64_t n, const int32_t* counts, const DistanceSpec& spec) {
  const int64_t pairs = n * (n + 1) / 2;
  std::vector<double> d(static_cast<size_t>(n * n));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j <= i; ++j) {
      const double v = pair_distance(spec, pair_table_of(counts, pairs, i * (i + 1) / 2 + j, false), i == j);
      d[static_cast<size_t>(i * n + j)] = v;
      d[static_cast<size_t>(j * n + i)] = v;
    }
  return d;
}

Result<DistanceSummary> run_distance_to_files(const Context& ctx, const std::string& input, const std::string& prefix,
                                              const DistanceOptions& options) {
  if (prefix.empty()) return Status::Invalid("distance: no output prefix");
  // Under MPI the ranks share the genotype tiles; rank 0 alone declares, writes and commits
  // the outputs (and computes a numeric array's distances alone), after every rank agrees.
  Job job(ctx, "distance", input, prefix);
  PhaseTimer open = job.phase("open");
  const bool zarr = options.format == DistanceFormat::Zarr;
  std::string dist_path, id_path;
  OutputRules rules;
  rules.overwrite = options.overwrite;
  rules.inputs = options.selection.files();
  STRATA_RETURN_NOT_OK(job.declare(zarr ? prefix + ".dist.zarr" : prefix + ".dist", std::move(rules),
                                   [&](OutputSet& out) -> Status {
                                     if (zarr) {
                                       STRATA_ASSIGN_OR_RETURN(dist_path, out.add_directory(prefix + ".dist.zarr"));
                                     } else {
                                       STRATA_ASSIGN_OR_RETURN(dist_path, out.add_file(prefix + ".dist"));
                                       STRATA_ASSIGN_OR_RETURN(id_path, out.add_file(prefix + ".dist.id"));
                                     }
                                     return Status::OK();
                                   }));
  auto opened = open_row_matrix(input);
  STRATA_RETURN_NOT_OK(job.agree(opened.status()));
  DistanceSummary s;
  auto summarize = [&]() {
    s.files = job.files();
    Summary& r = job.summary();
    r.set("samples", s.num_samples).set("variants", s.num_variants);
    r.set("metric", distance_metric_name(options.metric));
    if (!s.layout.empty()) r.set("matrix", s.layout).set("sample_bands", s.sample_bands).set("spilled_bytes", s.spilled_bytes);
    s.selection.add_to(r);
    s.report = r;  // a copy: the Job logs its summary when it ends
  };
  if (const std::optional<io::ZarrArray>& matrix = *opened) {
    auto rows_alone = [&]() -> Status {
      if (options.selection.any())
        return Status::Invalid(input, ": sample and variant selection (--keep, --maf, ...) applies to genotype inputs, "
                               "not to a numeric array");
      open.stop();
      STRATA_ASSIGN_OR_RETURN(s, write_row_distances(ctx.local(), *matrix, input, dist_path, id_path, options));
      return Status::OK();
    };
    STRATA_RETURN_NOT_OK(job.commit(job.writer() ? rows_alone() : Status::OK()));
    summarize();
    return s;
  }
  auto view = detail::open_pairwise_genotypes(ctx, input, options.selection, "distances need", "the distance calculation",
                                               &s.selection);
  STRATA_RETURN_NOT_OK(job.agree(view.status()));
  s.num_samples = (*view)->num_samples();
  s.num_variants = (*view)->num_variants();
  const SampleIds ids = SampleIds::of((*view)->samples(), s.num_samples);
  open.stop();

  STRATA_ASSIGN_OR_RETURN(s.layout, write_genotype_distances(ctx, **view, input, dist_path, ids, options,
                                                              job.staging_dir(), job.writer(), &s));
  PhaseTimer write = job.phase("write");
  const Status written = job.writer() && !zarr ? write_dist_ids(id_path, ids) : Status::OK();
  STRATA_RETURN_NOT_OK(job.commit(written));
  write.stop();
  summarize();
  return s;
}

}  // namespace strata::genomics
