// strata project: one pass over the matched target variants summing standardized genotypes ×
// loadings per sample (float64, variant order: the same bits for any thread count), OADP on
// the sums, and the Q.sscore / Q.eigenvec outputs.
#include "strata/genomics/project.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>

#include "genomics/text_writer.hpp"
#include "strata/core/context.hpp"
#include "strata/core/output.hpp"
#include "strata/core/thread_pool.hpp"
#include "strata/genomics/freq.hpp"
#include "strata/genomics/pca_format.hpp"

namespace strata::genomics {
namespace {

constexpr int64_t kBlockVariants = 2048;   // matched variants per read
constexpr int64_t kSampleChunk = 256;      // samples per task
constexpr int64_t kTileVariants = 64;     // variants whose tables stay in L1 while a sample sums them

// Per matched variant, per code 0..3 (3 = missing): z·w (`width` values: K padded with a zero
// to an even count up to 32, the SSE2 register pairs of the baseline build), z², REF count.
struct VariantTables {
  int64_t k = 0, width = 0;
  std::vector<double> zw, z2, ref_count;  // [4 · width] / [4] per variant
};

struct Sums {
  int64_t n = 0, k = 0;
  std::vector<double> s;        // n × k row-major
  std::vector<double> sq, dosage;
  std::vector<int64_t> ct;
};

// Standardized value of a count x of the reference's ALT allele.
double standardized(double x, double p) { return (x - 2.0 * p) / std::sqrt(2.0 * p * (1.0 - p)); }

constexpr int64_t kMaxFixedWidth = 32;
int64_t table_width(int64_t k) { return k <= kMaxFixedWidth ? (k + 1) / 2 * 2 : k; }

void fill_tables(const ProjectReference& ref, const ProjectMatch& m, int64_t a, int64_t b, int64_t k,
                 VariantTables& t) {
  t.k = k;
  t.width = table_width(k);
  const auto len = static_cast<size_t>(b - a);
  const auto width = static_cast<size_t>(t.width);
  t.zw.assign(len * 4 * width, 0.0);
  t.z2.assign(len * 4, 0.0);
  t.ref_count.assign(len * 4, 0.0);
  for (int64_t v = a; v < b; ++v) {
    const auto r = static_cast<size_t>(m.reference[static_cast<size_t>(v)]);
    const double p = ref.alt_freq[r];
    const auto o = static_cast<size_t>(v - a);
    for (int code = 0; code < 3; ++code) {
      const double x = m.sign[static_cast<size_t>(v)] > 0 ? code : 2 - code;  // reference ALT count
      const double z = standardized(x, p);
      const size_t c = o * 4 + static_cast<size_t>(code);
      t.z2[c] = z * z;
      t.ref_count[c] = 2.0 - x;
      for (int64_t j = 0; j < k; ++j)
        t.zw[c * width + static_cast<size_t>(j)] = z * ref.weights[r * static_cast<size_t>(ref.k) + static_cast<size_t>(j)];
    }
  }
}

// Adds variants [a, b) of the match, read into `codes` (rows `stride` bytes, row 0 = target
// variant `first`) to samples [s0, s1): tiles of kTileVariants, each sample summing a tile in
// registers (W = the table width, 0 = runtime). Per sample the order is the variant order.
template <int W>
void add_codes(const ProjectMatch& m, int64_t a, int64_t b, int64_t first, const uint8_t* codes, int64_t stride,
               const VariantTables& t, int64_t s0, int64_t s1, Sums& out) {
  const int64_t k = t.k, width = W > 0 ? W : t.width;
  std::vector<const uint8_t*> rows(static_cast<size_t>(kTileVariants));
  double acc[W > 0 ? W : 1];
  std::vector<double> wide(W > 0 ? 0 : static_cast<size_t>(width));
  double* sum = W > 0 ? acc : wide.data();
  for (int64_t v0 = a; v0 < b; v0 += kTileVariants) {
    const int64_t v1 = std::min(b, v0 + kTileVariants);
    for (int64_t v = v0; v < v1; ++v)
      rows[static_cast<size_t>(v - v0)] = codes + (m.target[static_cast<size_t>(v)] - first) * stride;
    for (int64_t i = s0; i < s1; ++i) {
      double* dst = out.s.data() + i * k;
      for (int64_t j = 0; j < width; ++j) sum[j] = j < k ? dst[j] : 0.0;
      double sq = out.sq[static_cast<size_t>(i)], dos = out.dosage[static_cast<size_t>(i)];
      int64_t ct = out.ct[static_cast<size_t>(i)];
      const int64_t byte = i >> 2, shift = (i & 3) * 2;
      for (int64_t v = v0; v < v1; ++v) {
        const unsigned c = (rows[static_cast<size_t>(v - v0)][byte] >> shift) & 3u;
        if (c == 3) continue;
        const size_t o = static_cast<size_t>(v - a) * 4 + c;
        const double* w = t.zw.data() + o * static_cast<size_t>(width);
        for (int64_t j = 0; j < width; ++j) sum[j] += w[j];
        sq += t.z2[o];
        dos += t.ref_count[o];
        ct += 2;
      }
      for (int64_t j = 0; j < k; ++j) dst[j] = sum[j];
      out.sq[static_cast<size_t>(i)] = sq;
      out.dosage[static_cast<size_t>(i)] = dos;
      out.ct[static_cast<size_t>(i)] = ct;
    }
  }
}

// The same from dosages (NaN = missing), rows `stride` floats apart.
void add_dosages(const ProjectReference& ref, const ProjectMatch& m, int64_t a, int64_t b, int64_t first,
                 const float* dos, int64_t stride, int64_t k, int64_t s0, int64_t s1, Sums& out) {
  for (int64_t v = a; v < b; ++v) {
    const float* row = dos + (m.target[static_cast<size_t>(v)] - first) * stride;
    const auto r = static_cast<size_t>(m.reference[static_cast<size_t>(v)]);
    const double* w = ref.weights.data() + r * static_cast<size_t>(ref.k);
    for (int64_t i = s0; i < s1; ++i) {
      if (std::isnan(row[i])) continue;
      const double x = m.sign[static_cast<size_t>(v)] > 0 ? double(row[i]) : 2.0 - double(row[i]);
      const double z = standardized(x, ref.alt_freq[r]);
      double* acc = out.s.data() + i * k;
      for (int64_t j = 0; j < k; ++j) acc[j] += z * w[j];
      out.sq[static_cast<size_t>(i)] += z * z;
      out.dosage[static_cast<size_t>(i)] += 2.0 - x;
      out.ct[static_cast<size_t>(i)] += 2;
    }
  }
}

using AddCodes = void (*)(const ProjectMatch&, int64_t, int64_t, int64_t, const uint8_t*, int64_t,
                         const VariantTables&, int64_t, int64_t, Sums&);

template <size_t... I>
AddCodes pick_add_codes(int64_t width, std::index_sequence<I...>) {
  constexpr AddCodes table[] = {add_codes<int(2 * (I + 1))>...};
  return width <= kMaxFixedWidth ? table[width / 2 - 1] : add_codes<0>;
}

// The kernel compiled for `width` (even, ≤ kMaxFixedWidth) or the runtime-width one.
AddCodes add_codes_for_width(int64_t width) {
  return pick_add_codes(width, std::make_index_sequence<kMaxFixedWidth / 2>());
}

// Every rank's samples [s0, s0 + count) of `out` (clipped to n) to every rank, in rank order
// (collective).
Status share_sums(const Communicator& comm, int64_t first, int64_t count, Sums& out) {
  const int64_t s0 = std::min(out.n, first), s1 = std::min(out.n, first + count);
  std::string mine;
  auto put = [&](const auto* data, int64_t from, int64_t to) {
    mine.append(reinterpret_cast<const char*>(data + from), static_cast<size_t>(to - from) * sizeof(*data));
  };
  put(out.s.data(), s0 * out.k, s1 * out.k);
  put(out.sq.data(), s0, s1);
  put(out.dosage.data(), s0, s1);
  put(out.ct.data(), s0, s1);
  std::vector<std::string> parts;
  STRATA_RETURN_NOT_OK(comm.allgather(mine, &parts));
  const auto per_sample = static_cast<size_t>(out.k) * sizeof(double) + 2 * sizeof(double) + sizeof(int64_t);
  int64_t at = 0;  // the first sample of the next rank's part
  for (const std::string& part : parts) {
    if (part.size() % per_sample != 0 || at + static_cast<int64_t>(part.size() / per_sample) > out.n)
      return Status::CommError("project: a rank's sums hold ", part.size(), " bytes, not whole samples of ", out.n);
    const auto len = static_cast<int64_t>(part.size() / per_sample);
    const char* src = part.data();
    auto take = [&](auto* data, int64_t from, int64_t values) {
      std::memcpy(data + from, src, static_cast<size_t>(values) * sizeof(*data));
      src += static_cast<size_t>(values) * sizeof(*data);
    };
    take(out.s.data(), at * out.k, len * out.k);
    take(out.sq.data(), at, len);
    take(out.dosage.data(), at, len);
    take(out.ct.data(), at, len);
    at += len;
  }
  if (at != out.n) return Status::CommError("project: the ranks' sums cover ", at, " of ", out.n, " samples");
  return Status::OK();
}

Result<Sums> sum_scores(const Context& ctx, const io::GenotypeView& view, const ProjectReference& ref,
                        const ProjectMatch& m, int64_t k) {
  Sums out;
  out.n = view.num_samples();
  out.k = k;
  out.s.assign(static_cast<size_t>(out.n * k), 0.0);
  out.sq.assign(static_cast<size_t>(out.n), 0.0);
  out.dosage.assign(static_cast<size_t>(out.n), 0.0);
  out.ct.assign(static_cast<size_t>(out.n), 0);
  const auto total = static_cast<int64_t>(m.target.size());
  const bool dosages = view.has_dosages();
  const int64_t stride = io::packed_row_bytes(out.n);
  std::vector<uint8_t> codes;
  std::vector<float> dos;
  VariantTables t;
  // Under MPI each rank sums a contiguous range of the sample chunks over every variant (a
  // sample's sums are the same additions in the same order wherever they run) and the ranks
  // allgather their samples' sums.
  const Communicator& comm = ctx.communicator();
  const auto [chunk0, chunks] = rank_range((out.n + kSampleChunk - 1) / kSampleChunk, 1, comm.rank(), comm.size());
  auto pass = [&]() -> Status {
    for (int64_t a = 0; a < total;) {
      // A block of matched variants whose target rows span at most kBlockVariants × 2.
      const int64_t first = m.target[static_cast<size_t>(a)];
      int64_t b = a + 1;
      while (b < total && b - a < kBlockVariants && m.target[static_cast<size_t>(b)] - first < 2 * kBlockVariants) ++b;
      const int64_t span = m.target[static_cast<size_t>(b - 1)] - first + 1;
      if (dosages) {
        dos.resize(static_cast<size_t>(span * out.n));
        STRATA_RETURN_NOT_OK(view.read_dosages(first, span, 0, out.n, dos.data(), out.n));
      } else {
        codes.resize(static_cast<size_t>(span * stride));
        STRATA_RETURN_NOT_OK(view.read_codes(first, span, 0, out.n, codes.data(), stride));
        fill_tables(ref, m, a, b, k, t);
      }
      STRATA_RETURN_NOT_OK(ctx.pool().parallel_for(chunks, [&](int64_t c) -> Status {
        const int64_t s0 = (chunk0 + c) * kSampleChunk, s1 = std::min(out.n, s0 + kSampleChunk);
        if (dosages) add_dosages(ref, m, a, b, first, dos.data(), out.n, k, s0, s1, out);
        else add_codes_for_width(t.width)(m, a, b, first, codes.data(), stride, t, s0, s1, out);
        return Status::OK();
      }));
      a = b;
    }
    return Status::OK();
  };
  if (comm.size() == 1) {
    STRATA_RETURN_NOT_OK(pass());
    return out;
  }
  STRATA_RETURN_NOT_OK(comm.agree(pass()));
  STRATA_RETURN_NOT_OK(share_sums(comm, chunk0 * kSampleChunk, chunks * kSampleChunk, out));
  return out;
}

std::vector<std::string> sample_ids(const io::SampleInfo& s, int64_t n) {
  if (static_cast<int64_t>(s.id.size()) == n) return s.id;
  std::vector<std::string> out;
  for (int64_t i = 0; i < n; ++i) out.push_back(std::to_string(i));
  return out;
}

// "#FID\tIID" (or "#IID") and each sample's leading fields, as strata's .eigenvec writes them.
std::string id_header(const io::SampleInfo& s, int64_t n) {
  return static_cast<int64_t>(s.family_id.size()) == n ? "#FID\tIID" : "#IID";
}
void append_ids(std::string& line, const io::SampleInfo& s, const std::vector<std::string>& ids, int64_t i) {
  if (static_cast<int64_t>(s.family_id.size()) == static_cast<int64_t>(ids.size())) {
    line += s.family_id[static_cast<size_t>(i)];
    line += '\t';
  }
  line += ids[static_cast<size_t>(i)];
}

Status write_outputs(OutputSet& out, const std::string& prefix, const io::SampleInfo& samples,
                     const ProjectResult& r) {
  const int64_t n = r.scores.rows, k = r.k;
  const std::vector<std::string> ids = sample_ids(samples, n);
  {
    const std::string path = prefix + ".sscore";
    STRATA_ASSIGN_OR_RETURN(std::string staged, out.add_file(path));
    STRATA_ASSIGN_OR_RETURN(detail::TextWriter w, detail::TextWriter::open(staged, path));
    std::string line = id_header(samples, n) + "\tALLELE_CT\tNAMED_ALLELE_DOSAGE_SUM";
    for (int64_t j = 0; j < k; ++j) line += "\tPC" + std::to_string(j + 1) + "_AVG";
    line += '\n';
    STRATA_RETURN_NOT_OK(w.write(line));
    for (int64_t i = 0; i < n; ++i) {
      line.clear();
      append_ids(line, samples, ids, i);
      const int64_t ct = r.allele_ct[static_cast<size_t>(i)];
      line += '\t' + std::to_string(ct) + '\t' + format_plink_float(r.named_dosage_sum[static_cast<size_t>(i)]);
      // plink2 scores the REF allele (column 3 of .eigenvec.var): −Σ z·v over its allele count.
      for (int64_t j = 0; j < k; ++j) line += '\t' + format_plink_float(-r.scores(i, j) / double(ct));
      line += '\n';
      STRATA_RETURN_NOT_OK(w.write(line));
    }
    STRATA_RETURN_NOT_OK(w.close());
  }
  const std::string path = prefix + ".eigenvec";
  STRATA_ASSIGN_OR_RETURN(std::string staged, out.add_file(path));
  STRATA_ASSIGN_OR_RETURN(detail::TextWriter w, detail::TextWriter::open(staged, path));
  std::string line = id_header(samples, n);
  for (int64_t j = 0; j < k; ++j) line += "\tPC" + std::to_string(j + 1);
  line += '\n';
  STRATA_RETURN_NOT_OK(w.write(line));
  for (int64_t i = 0; i < n; ++i) {
    line.clear();
    append_ids(line, samples, ids, i);
    for (int64_t j = 0; j < k; ++j) {
      line += '\t';
      line += format_pca_value(r.projection(i, j));
    }
    line += '\n';
    STRATA_RETURN_NOT_OK(w.write(line));
  }
  return w.close();
}

void add_match(Summary& s, const ProjectMatchCounts& c) {
  s.set("matched", c.matched).set("matched_by_position", c.by_position).set("swapped", c.swapped);
  s.set("strand_flipped", c.strand_flipped).set("ambiguous_used", c.ambiguous);
  s.set("ambiguous_dropped", c.ambiguous_dropped).set("allele_mismatch", c.allele_mismatch);
  s.set("duplicate", c.duplicate).set("missing", c.missing);
}

}  // namespace

Result<ProjectCorrection> parse_project_correction(const std::string& name) {
  if (name == "none" || name.empty()) return ProjectCorrection::None;
  if (name == "oadp" || name == "OADP") return ProjectCorrection::Oadp;
  return Status::Invalid("project: --correction '", name, "' is not none or oadp");
}

const char* project_correction_name(ProjectCorrection c) { return c == ProjectCorrection::Oadp ? "oadp" : "none"; }

Status validate_project_options(const ProjectOptions& o) {
  if (o.k < 0) return Status::Invalid("project: -k ", o.k, " is negative");
  if (o.reference.empty()) return Status::Invalid("project: no reference prefix (--ref)");
  return Status::OK();
}

Result<linalg::DenseMatrix> oadp_correct(const Context& ctx, const linalg::DenseMatrix& scores,
                                         const std::vector<double>& squared_norm, const std::vector<double>& d) {
  const int64_t n = scores.rows, k = scores.cols;
  if (static_cast<int64_t>(d.size()) != k || static_cast<int64_t>(squared_norm.size()) != n)
    return Status::Invalid("oadp: ", d.size(), " singular values and ", squared_norm.size(), " norms for ", n, " x ",
                           k, " scores");
  linalg::DenseMatrix out(n, k);
  linalg::DenseMatrix gram(k + 1, k + 1);
  for (int64_t i = 0; i < n; ++i) {
    // The Gram matrix of the reference's PCs augmented with this sample.
    std::fill(gram.data.begin(), gram.data.end(), 0.0);
    for (int64_t j = 0; j < k; ++j) {
      gram(j, j) = d[static_cast<size_t>(j)] * d[static_cast<size_t>(j)];
      gram(j, k) = gram(k, j) = scores(i, j) * d[static_cast<size_t>(j)];
    }
    gram(k, k) = squared_norm[static_cast<size_t>(i)];
    STRATA_ASSIGN_OR_RETURN(linalg::EighResult e, linalg::eigh(ctx, gram));
    // Coordinates of the k + 1 rows in the augmented top-k PCs: Z·√w.
    linalg::DenseMatrix v2(k + 1, k);
    for (int64_t j = 0; j < k; ++j) {
      const double s = std::sqrt(std::max(0.0, e.w[static_cast<size_t>(j)]));
      for (int64_t r = 0; r <= k; ++r) v2(r, j) = e.z(r, j) * s;
    }
    // Procrustes of the reference rows (diag(d) · v2[0:k]) onto their PCs diag(d): rotation
    // V·Uᵀ of the SVD of diag(d)·v2[0:k], scale Σ singular values / ‖v2[0:k]‖².
    linalg::DenseMatrix a(k, k);
    double norm2 = 0.0;
    for (int64_t r = 0; r < k; ++r)
      for (int64_t j = 0; j < k; ++j) {
        a(r, j) = d[static_cast<size_t>(r)] * v2(r, j);
        norm2 += v2(r, j) * v2(r, j);
      }
    STRATA_ASSIGN_OR_RETURN(linalg::SvdDense f, linalg::svd_dense(ctx, a));
    double sum_s = 0.0;
    for (double s : f.s) sum_s += s;
    const double rho = norm2 > 0.0 ? sum_s / norm2 : 0.0;
    std::vector<double> y(static_cast<size_t>(k), 0.0);  // Vᵀ · (the sample's row of v2)
    for (int64_t l = 0; l < k; ++l)
      for (int64_t mcol = 0; mcol < k; ++mcol) y[static_cast<size_t>(l)] += f.vt(l, mcol) * v2(k, mcol);
    for (int64_t j = 0; j < k; ++j) {
      double x = 0.0;
      for (int64_t l = 0; l < k; ++l) x += f.u(j, l) * y[static_cast<size_t>(l)];
      out(i, j) = rho * x;
    }
  }
  return out;
}

Result<ProjectResult> project(const Context& ctx, const io::GenotypeViewPtr& view, const ProjectReference& ref,
                              const ProjectOptions& options) {
  STRATA_RETURN_NOT_OK(validate_project_options(options));
  const int64_t k = options.k == 0 ? ref.k : options.k;
  if (k > ref.k)
    return Status::Invalid("project: -k ", k, " but ", options.reference, ".eigenvec.var has ", ref.k, " PCs");
  STRATA_ASSIGN_OR_RETURN(ProjectMatch m, match_project_variants(ref, *view, options.drop_ambiguous));
  const ProjectMatchCounts& c = m.counts;
  if (c.matched == 0)
    return Status::InvalidData("no variant of ", view->describe(), " matches ", options.reference,
                               ".eigenvec.var (", ref.size(), " variants; ", c.allele_mismatch,
                               " with other alleles, ", c.ambiguous_dropped, " ambiguous dropped)");
  STRATA_ASSIGN_OR_RETURN(Sums s, sum_scores(ctx, *view, ref, m, k));
  ProjectResult r;
  r.k = k;
  r.match = c;
  r.scores = linalg::DenseMatrix(s.n, k);
  for (int64_t i = 0; i < s.n; ++i)
    for (int64_t j = 0; j < k; ++j) r.scores(i, j) = s.s[static_cast<size_t>(i * k + j)];
  r.allele_ct = std::move(s.ct);
  r.named_dosage_sum = std::move(s.dosage);
  r.squared_norm = std::move(s.sq);
  r.singular_values = ref.singular_values(k);
  linalg::DenseMatrix unscaled = r.scores;
  if (options.correction == ProjectCorrection::Oadp) {
    STRATA_ASSIGN_OR_RETURN(unscaled, oadp_correct(ctx, r.scores, r.squared_norm, r.singular_values));
  }
  r.projection = linalg::DenseMatrix(s.n, k);
  for (int64_t j = 0; j < k; ++j) {
    const double dj = r.singular_values[static_cast<size_t>(j)];
    for (int64_t i = 0; i < s.n; ++i) r.projection(i, j) = dj > 0.0 ? unscaled(i, j) / dj : 0.0;
  }
  return r;
}

Result<ProjectSummary> run_project_to_files(const Context& ctx, const std::string& input, const std::string& prefix,
                                           const ProjectOptions& options) {
  if (prefix.empty()) return Status::Invalid("project: no output prefix");
  STRATA_RETURN_NOT_OK(validate_project_options(options));
  Job job(ctx, "project", input, prefix);
  PhaseTimer open = job.phase("open");
  OutputRules rules;
  rules.inputs = options.selection.files();
  for (const char* ext : {".eigenvec.var", ".afreq", ".eigenval"}) rules.inputs.push_back(options.reference + ext);
  STRATA_RETURN_NOT_OK(job.declare(prefix + ".sscore", std::move(rules), nullptr));
  Result<ProjectReference> ref = read_project_reference(options.reference);
  STRATA_RETURN_NOT_OK(job.agree(ref.status()));
  auto selected = open_selected_genotypes(ctx, input, options.selection, options.open);
  STRATA_RETURN_NOT_OK(job.agree(selected.status()));
  open.stop();
  ProjectSummary s;
  s.num_samples = selected->view->num_samples();
  s.num_variants = selected->view->num_variants();
  s.selection = std::move(selected->report);
  PhaseTimer pass = job.phase("project");
  Result<ProjectResult> r = project(ctx, selected->view, *ref, options);
  STRATA_RETURN_NOT_OK(job.agree(r.status()));
  pass.stop();
  s.k = r->k;
  s.match = r->match;
  PhaseTimer write = job.phase("write");
  STRATA_RETURN_NOT_OK(job.commit(
      job.writer() ? write_outputs(*job.outputs(), prefix, selected->view->samples(), *r) : Status::OK()));
  write.stop();
  s.files = job.files();
  Summary& rep = job.summary();
  rep.set("reference", options.reference).set("correction", project_correction_name(options.correction));
  rep.set("samples", s.num_samples).set("variants", s.num_variants).set("k", s.k);
  rep.set("reference_variants", ref->size());
  add_match(rep, s.match);
  s.selection.add_to(rep);
  s.report = std::move(rep);
  return s;
}

}  // namespace strata::genomics
