// KING-robust kinship outputs (strata/genomics/king.hpp): the pair pass, with each tile row's
// pairs written as soon as the row is complete, in plink2's order (sample i, then j < i).
#include "strata/genomics/king.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <set>

#include "genomics/relatedness_internal.hpp"
#include "genomics/row_spool.hpp"
#include "strata/core/job.hpp"
#include "strata/genomics/plot.hpp"
#include "strata/io/genotype.hpp"

namespace strata::genomics {
namespace {

using detail::SampleIds;
using detail::TextWriter;

// %g with 6 significant digits for |v| in [1e-4, 1e6) (fixed notation there), without the
// exact conversion to_chars makes: the digits are v · 10^(5 − e) rounded to nearest, where the
// product's error (< 2^-33) cannot change the rounding unless the exact value lies within 1e-6
// of a tie; those, values whose exponent the bounds (doubles, not powers of ten) misjudge,
// and values outside the range return false for to_chars. A kinship triangle is ~all such
// values, and this is ~5x faster than to_chars (10 % of `strata king` on AVX2 otherwise).
bool append_g6_fixed(std::string& out, double v) {
  static constexpr double kPow10[] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};
  static constexpr double kBounds[] = {1e-3, 1e-2, 1e-1, 1, 1e1, 1e2, 1e3, 1e4, 1e5};
  const double a = std::fabs(v);
  if (!(a >= 1e-4 && a < 1e6)) return false;
  int e = -4;  // 10^e ≤ a < 10^(e+1), up to the bounds' rounding (then d is off range below)
  while (e < 5 && a >= kBounds[e + 4]) ++e;
  const double scaled = a * kPow10[5 - e];
  const double whole = std::floor(scaled), frac = scaled - whole;
  if (std::fabs(frac - 0.5) < 1e-6) return false;
  int64_t d = static_cast<int64_t>(whole) + (frac > 0.5 ? 1 : 0);
  if (d < 100000 || d >= 1000000) return false;
  char digits[6];
  for (int k = 5; k >= 0; --k, d /= 10) digits[k] = static_cast<char>('0' + d % 10);
  int last = 5;  // the last digit printed: %g drops trailing zeros of the fraction
  const int point = e >= 0 ? e : -1;  // digits[0..point] before the decimal point
  while (last > point && digits[last] == '0') --last;
  if (v < 0) out += '-';
  if (e >= 0) {
    out.append(digits, static_cast<size_t>(e + 1));
    if (last > e) {
      out += '.';
      out.append(digits + e + 1, static_cast<size_t>(last - e));
    }
  } else {
    out += "0.";
    out.append(static_cast<size_t>(-e - 1), '0');
    out.append(digits, static_cast<size_t>(last + 1));
  }
  return true;
}

// plink2's %g (6 significant digits), appended.
void append_king_value(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "nan";
    return;
  }
  if (append_g6_fixed(out, v)) return;
  // to_chars with a precision formats exactly as printf's %g, several times faster.
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 6);
  out.append(buf, end);
}

Status write_id_file(const std::string& path, const SampleIds& ids, const std::vector<int64_t>& samples) {
  STRATA_ASSIGN_OR_RETURN(TextWriter w, TextWriter::open(path));
  w.put(ids.has_fid ? "#FID\tIID\n" : "#IID\n");
  for (int64_t i : samples) {
    w.put(ids.columns(i));
    w.put('\n');
    STRATA_RETURN_NOT_OK(w.maybe_flush());
  }
  return w.close();
}

}  // namespace

double king_kinship(const PairTable& t) {
  const int64_t hethet = t.c[1][1], ibs0 = t.differ2();
  const int64_t het1_hom2 = t.c[1][0] + t.c[1][2], het2_hom1 = t.c[0][1] + t.c[2][1];
  const double smaller_het = static_cast<double>(hethet + std::min(het1_hom2, het2_hom1));
  return 0.5 - static_cast<double>(4 * ibs0 + het1_hom2 + het2_hom1) / (4.0 * smaller_het);
}

std::string format_king_value(double v) {
  std::string s;
  append_king_value(s, v);
  return s;
}

std::vector<int64_t> king_cutoff_removed(int64_t n, const std::vector<std::pair<int64_t, int64_t>>& edges) {
  std::vector<std::vector<int64_t>> adj(static_cast<size_t>(n));
  for (auto [a, b] : edges) {
    adj[static_cast<size_t>(a)].push_back(b);
    adj[static_cast<size_t>(b)].push_back(a);
  }
  std::vector<int64_t> degree(static_cast<size_t>(n));
  std::set<int64_t> with_edges, degree_one;
  for (int64_t i = 0; i < n; ++i) {
    auto& nb = adj[static_cast<size_t>(i)];
    std::sort(nb.begin(), nb.end());
    nb.erase(std::unique(nb.begin(), nb.end()), nb.end());
    degree[static_cast<size_t>(i)] = static_cast<int64_t>(nb.size());
    if (!nb.empty()) with_edges.insert(i);
    if (nb.size() == 1) degree_one.insert(i);
  }
  std::vector<bool> removed(static_cast<size_t>(n), false);
  std::vector<int64_t> out;
  while (!with_edges.empty()) {
    int64_t prune = -1;
    if (!degree_one.empty()) {
      // The partner of the first sample with one edge left: its one neighbour not removed.
      for (int64_t nb : adj[static_cast<size_t>(*degree_one.begin())])
        if (!removed[static_cast<size_t>(nb)]) {
          prune = nb;
          break;
        }
    } else {
      int64_t best = -1;
      for (int64_t i : with_edges)
        if (degree[static_cast<size_t>(i)] > best) best = degree[static_cast<size_t>(i)], prune = i;
    }
    removed[static_cast<size_t>(prune)] = true;
    out.push_back(prune);
    with_edges.erase(prune);
    degree_one.erase(prune);
    for (int64_t nb : adj[static_cast<size_t>(prune)]) {
      auto& d = degree[static_cast<size_t>(nb)];
      if (removed[static_cast<size_t>(nb)] || d == 0) continue;
      --d;
      if (d == 1) degree_one.insert(nb);
      if (d == 0) {
        degree_one.erase(nb);
        with_edges.erase(nb);
      }
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

Result<std::vector<double>> king_matrix(const Context& ctx, const io::GenotypeView& view, const PairPassOptions& pass) {
  const int64_t n = view.num_samples();
  if (n < 2) return Status::InvalidData(view.describe(), ": ", n, " samples: kinship needs at least two (there is no pair)");
  PairPassOptions o = pass;
  o.king_only = true;
  std::vector<double> k(static_cast<size_t>(n * n));
  STRATA_RETURN_NOT_OK(for_each_pair_tile(ctx, view, o, [&](const PairTile& pt) -> Status {
    for (int64_t r = 0; r < pt.rows; ++r)
      for (int64_t c = 0; c < pt.cols; ++c) {
        const int64_t i = pt.row0 + r, j = pt.col0 + c;
        if (j > i) continue;
        const double v = king_kinship(pt.table(r, c));
        k[static_cast<size_t>(i * n + j)] = v;
        k[static_cast<size_t>(j * n + i)] = v;
      }
    return Status::OK();
  }));
  return k;
}

std::vector<double> king_matrix_from_counts(int64_t n, const int32_t* counts) {
  const int64_t pairs = n * (n + 1) / 2;
  std::vector<double> k(static_cast<size_t>(n * n));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j <= i; ++j) {
      const double v = king_kinship(pair_table_of(counts, pairs, i * (i + 1) / 2 + j, true));
      k[static_cast<size_t>(i * n + j)] = v;
      k[static_cast<size_t>(j * n + i)] = v;
    }
  return k;
}

Result<KingSummary> run_king_to_files(const Context& ctx, const std::string& input, const std::string& prefix,
                                      const KingOptions& options) {
  if (prefix.empty()) return Status::Invalid("king: no output prefix");
  if (options.cutoff && !(*options.cutoff >= 0.0))
    return Status::Invalid("king: --cutoff must be a kinship of 0 or more, got ", *options.cutoff);
  const bool table = options.table || options.filter.has_value();
  const bool triangle = !table && !options.cutoff;
  // Under MPI every rank computes and formats its share of the tiles; rank 0 alone declares,
  // writes and commits the outputs, after every rank agrees.
  Job job(ctx, "king", input, prefix);
  PhaseTimer open = job.phase("open");
  std::string king_path, id_path, kin0_path, in_path, out_path, plot_svg, plot_png;
  OutputRules rules;
  rules.inputs = options.selection.files();
  const std::string first = triangle ? prefix + ".king" : table ? prefix + ".kin0" : prefix + ".king.cutoff.in.id";
  STRATA_RETURN_NOT_OK(job.declare(first, std::move(rules), [&](OutputSet& out) -> Status {
    if (triangle) {
      STRATA_ASSIGN_OR_RETURN(king_path, out.add_file(prefix + ".king"));
      STRATA_ASSIGN_OR_RETURN(id_path, out.add_file(prefix + ".king.id"));
    }
    if (table) {
      STRATA_ASSIGN_OR_RETURN(kin0_path, out.add_file(prefix + ".kin0"));
      STRATA_ASSIGN_OR_RETURN(const PlotFormats plot, PlotFormats::choose(options.write_plot, options.plot_format));
      if (plot.svg) {
        STRATA_ASSIGN_OR_RETURN(plot_svg, out.add_file(prefix + ".kin0.svg"));
      }
      if (plot.png) {
        STRATA_ASSIGN_OR_RETURN(plot_png, out.add_file(prefix + ".kin0.png"));
      }
    }
    if (options.cutoff) {
      STRATA_ASSIGN_OR_RETURN(in_path, out.add_file(prefix + ".king.cutoff.in.id"));
      STRATA_ASSIGN_OR_RETURN(out_path, out.add_file(prefix + ".king.cutoff.out.id"));
    }
    return Status::OK();
  }));
  KingSummary s;
  auto opened = detail::open_pairwise_genotypes(ctx, input, options.selection, "kinship needs", "KING-robust calculation",
                                               &s.selection);
  STRATA_RETURN_NOT_OK(job.agree(opened.status()));
  const io::GenotypeViewPtr view = std::move(*opened);
  s.num_samples = view->num_samples();
  s.num_variants = view->num_variants();
  const int64_t n = s.num_samples;
  const SampleIds ids = SampleIds::of(view->samples(), n);
  open.stop();

  const bool writer = job.writer();
  TextWriter tri, kin0;
  if (writer && triangle) {
    STRATA_ASSIGN_OR_RETURN(tri, TextWriter::open(king_path));
  }
  if (writer && table) {
    STRATA_ASSIGN_OR_RETURN(kin0, TextWriter::open(kin0_path));
    kin0.put(ids.has_fid ? "#FID1\tIID1\tFID2\tIID2" : "#IID1\tIID2");
    kin0.put("\tNSNP\tHETHET\tIBS0\tKINSHIP\n");
  }
  std::vector<std::pair<int64_t, int64_t>> edges;
  PairPassOptions pass = options.pass;
  pass.king_only = true;  // kinship reads five of the nine counts
  // Rows of a tile row (of a band of them, with several bands) wait for the row's last tile.
  const int64_t spool_cap = options.spool_bytes > 0 ? options.spool_bytes : ctx.memory_budget() / 4;
  if (triangle || table) pass.reserve_bytes += spool_cap;
  std::optional<detail::RowSpool> spool;  // rank 0's (the staging directory is its)
  if (writer) spool.emplace(job.staging_dir(), spool_cap);
  STRATA_ASSIGN_OR_RETURN(const PairPassPlan plan, plan_pair_pass(ctx, *view, pass));
  s.sample_bands = plan.bands;
  TextWriter& text_out = triangle ? tri : kin0;
  // Tiles are formatted on the workers (prepare); the in-order commit only queues the bytes.
  auto prepare = [&](const PairTile& pt, PreparedTile& out) -> Status {
    std::string& text = out.text;
    std::string id1;
    for (int64_t r = 0; r < pt.rows; ++r) {
      const int64_t i = pt.row0 + r;
      const int64_t cols = std::min(pt.cols, i - pt.col0);  // pairs j < i only
      bool have_id = false;
      for (int64_t c = 0; c < cols; ++c) {
        const int64_t j = pt.col0 + c;
        const PairTable tab = pt.table(r, c);
        const double phi = king_kinship(tab);
        if (options.cutoff && phi > *options.cutoff) out.pairs.emplace_back(i, j);
        if (triangle) {
          if (j > 0) text += '\t';
          append_king_value(text, phi);
          ++out.count;
        } else if (table && (!options.filter || phi >= *options.filter)) {
          if (!have_id) id1 = ids.columns(i), have_id = true;
          const int64_t nsnp = tab.both();
          const auto both = static_cast<double>(nsnp);
          text += id1;
          text += '\t';
          text += ids.columns(j);
          text += '\t';
          text += std::to_string(nsnp);
          text += '\t';
          append_king_value(text, static_cast<double>(tab.c[1][1]) / both);
          text += '\t';
          append_king_value(text, static_cast<double>(tab.differ2()) / both);
          text += '\t';
          append_king_value(text, phi);
          text += '\n';
          ++out.count;
        }
      }
      if (triangle && pt.last_in_row && i > 0) text += '\n';
      out.ends.push_back(static_cast<uint32_t>(text.size()));
    }
    return Status::OK();
  };
  auto commit = [&](const PairTile& pt, PreparedTile& done) -> Status {
    edges.insert(edges.end(), done.pairs.begin(), done.pairs.end());
    s.pairs_written += done.count;
    if (!triangle && !table) return Status::OK();
    STRATA_RETURN_NOT_OK(spool->add(pt.tile_row, std::move(done.text), std::move(done.ends)));
    return pt.last_in_row ? spool->emit(pt.tile_row, text_out) : Status::OK();
  };
  STRATA_RETURN_NOT_OK(for_each_pair_tile(ctx, *view, pass, prepare, commit));
  s.spilled_bytes = spool ? spool->spilled_bytes() : 0;

  PhaseTimer write = job.phase("write");
  auto finish = [&]() -> Status {
    if (triangle) {
      STRATA_RETURN_NOT_OK(tri.close());
      std::vector<int64_t> all(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) all[static_cast<size_t>(i)] = i;
      STRATA_RETURN_NOT_OK(write_id_file(id_path, ids, all));
    }
    if (table) STRATA_RETURN_NOT_OK(kin0.close());
    if (!plot_svg.empty() || !plot_png.empty())
      STRATA_RETURN_NOT_OK(write_kinship_plot(kin0_path, std::filesystem::path(input).filename().string(), plot_svg, plot_png));
    if (options.cutoff) {
      const std::vector<int64_t> removed = king_cutoff_removed(n, edges);
      std::vector<int64_t> kept;
      size_t k = 0;
      for (int64_t i = 0; i < n; ++i) {
        if (k < removed.size() && removed[k] == i) {
          ++k;
        } else {
          kept.push_back(i);
        }
      }
      s.cutoff_removed = static_cast<int64_t>(removed.size());
      STRATA_RETURN_NOT_OK(write_id_file(in_path, ids, kept));
      STRATA_RETURN_NOT_OK(write_id_file(out_path, ids, removed));
    }
    return Status::OK();
  };
  STRATA_RETURN_NOT_OK(job.commit(writer ? finish() : Status::OK()));
  write.stop();
  s.files = job.files();
  Summary& r = job.summary();
  r.set("samples", s.num_samples).set("variants", s.num_variants).set("pairs_written", s.pairs_written);
  r.set("sample_bands", s.sample_bands).set("spilled_bytes", s.spilled_bytes);
  if (options.cutoff) r.set("cutoff_removed", s.cutoff_removed);
  s.selection.add_to(r);
  s.report = r;  // a copy: the Job logs its summary when it ends
  return s;
}

}  // namespace strata::genomics
