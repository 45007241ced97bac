// Manhattan and QQ plots of a gwas result table, with genomic control λ (plot.hpp).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

#include "io/genotype/text_reader_internal.hpp"
#include "plot_internal.hpp"
#include "strata/core/output.hpp"
#include "strata/linalg/stats.hpp"

namespace strata::genomics {
namespace {

using plot::Anchor;
using plot::Canvas;
using plot::Frame;

constexpr double kChi2Median = 0.4549364;  // median of χ²(1)

// χ²(1) statistic whose upper tail is p.
double chi2_of_p(double p) {
  const double z = linalg::normal_quantile(std::clamp(p, 1e-300, 1.0) / 2);
  return z * z;
}

// Sort key of a chromosome: 1..22 numerically, then X, Y, XY, MT, then others by name.
std::pair<int, std::string> chrom_key(std::string_view c) {
  std::string s(c);
  if (s.size() > 3 && (s.compare(0, 3, "chr") == 0 || s.compare(0, 3, "CHR") == 0)) s.erase(0, 3);
  char* end = nullptr;
  const long num = std::strtol(s.c_str(), &end, 10);
  if (!s.empty() && end && *end == '\0' && num > 0) return {static_cast<int>(num), s};
  if (s == "X") return {1000, s};
  if (s == "Y") return {1001, s};
  if (s == "XY") return {1002, s};
  if (s == "MT" || s == "M") return {1003, "MT"};
  return {2000, s};
}

struct Hit {
  int chrom;  // index into the chromosome list
  int64_t pos;
  double p;
};

struct GwasTable {
  std::vector<std::string> chroms;  // sorted
  std::vector<Hit> hits;
};

Result<GwasTable> read_gwas(const std::string& path) {
  io::detail::LineReader f;
  STRATA_RETURN_NOT_OK(f.open(path, /*allow_pipe=*/false));
  std::string_view line;
  int c_chrom = -1, c_pos = -1, c_test = -1, c_p = -1, c_logp = -1;
  bool header = false;
  std::map<std::pair<int, std::string>, int> chrom_index;
  struct Raw {
    std::pair<int, std::string> key;
    int64_t pos;
    double p;
  };
  std::vector<Raw> raw;
  while (f.next(line)) {
    // Tab-separated: a source without variant IDs or alleles leaves fields empty.
    const std::vector<std::string_view> t = io::detail::split_on(line, '\t');
    if (t.empty()) continue;
    if (!header) {
      header = true;
      c_chrom = plot::header_column(t, "CHROM");
      c_pos = plot::header_column(t, "POS");
      c_test = plot::header_column(t, "TEST");
      c_p = plot::header_column(t, "P");
      c_logp = plot::header_column(t, "LOG10_P");
      if (c_chrom < 0 || c_pos < 0 || (c_p < 0 && c_logp < 0))
        return Status::InvalidData(path, ": a gwas table needs #CHROM, POS and P (or LOG10_P) columns to plot");
      continue;
    }
    const auto need = static_cast<size_t>(std::max({c_chrom, c_pos, c_test, c_p, c_logp}));
    if (t.size() <= need) return Status::InvalidData(path, ":", f.line_no(), ": ", t.size(), " columns, fewer than the header's");
    if (c_test >= 0 && t[static_cast<size_t>(c_test)] != "ADD") continue;  // covariate rows
    double p = NAN, pos = 0;
    if (c_p >= 0) {
      if (!plot::parse_number(t[static_cast<size_t>(c_p)], p)) continue;  // NA
    } else {
      double lp = 0;
      if (!plot::parse_number(t[static_cast<size_t>(c_logp)], lp)) continue;
      p = std::pow(10.0, -lp);
    }
    if (!(p >= 0 && p <= 1) || !plot::parse_number(t[static_cast<size_t>(c_pos)], pos)) continue;
    raw.push_back({chrom_key(t[static_cast<size_t>(c_chrom)]), static_cast<int64_t>(pos), std::max(p, 1e-300)});
  }
  STRATA_RETURN_NOT_OK(f.status());
  GwasTable out;
  for (const Raw& r : raw) chrom_index.emplace(r.key, 0);
  for (auto& [key, idx] : chrom_index) {
    idx = static_cast<int>(out.chroms.size());
    out.chroms.push_back(key.second);
  }
  out.hits.reserve(raw.size());
  for (const Raw& r : raw) out.hits.push_back({chrom_index[r.key], r.pos, r.p});
  return out;
}

double max_log10(const std::vector<Hit>& hits) {
  double m = 0;
  for (const Hit& h : hits) m = std::max(m, -std::log10(h.p));
  return m;
}

Canvas manhattan(const GwasTable& g, const std::string& title) {
  const size_t nc = g.chroms.size();
  std::vector<int64_t> lo(nc, INT64_MAX), hi(nc, INT64_MIN);
  for (const Hit& h : g.hits) lo[h.chrom] = std::min(lo[h.chrom], h.pos), hi[h.chrom] = std::max(hi[h.chrom], h.pos);
  // Chromosomes side by side, each its own span plus a gap of 1 % of the genome.
  double total = 0;
  for (size_t c = 0; c < nc; ++c) total += static_cast<double>(hi[c] - lo[c]) + 1;
  const double gap = total * 0.01;
  std::vector<double> offset(nc);
  std::vector<double> centres;
  std::vector<std::string> names;
  double x = 0;
  for (size_t c = 0; c < nc; ++c) {
    offset[c] = x - static_cast<double>(lo[c]);
    const double span = static_cast<double>(hi[c] - lo[c]) + 1;
    centres.push_back(x + span / 2);
    names.push_back(g.chroms[c]);
    x += span + gap;
  }
  const double ytop = std::max(8.0, max_log10(g.hits)) * 1.06;
  Canvas cv(1000, 430);
  cv.rect(0, 0, cv.width(), cv.height(), "#ffffff");
  cv.text(cv.width() / 2, 28, str_cat(title, " (", g.hits.size(), " variants)"), 16, Anchor::kMiddle, true);
  const Frame f{80, 45, 890, 310, -gap, std::max(x - gap, 1.0) + gap, 0, ytop};
  // Chromosome names: all when few, else every other one beyond chromosome 9 (they crowd).
  std::vector<std::string> shown = names;
  if (nc > 12)
    for (size_t c = 0; c < nc; ++c)
      if (c >= 9 && c % 2 == 0 && c + 1 != nc) shown[c] = "";
  plot::draw_axes(cv, f, "chromosome", "-log10(P)", 13, centres, {}, shown);
  std::vector<std::vector<std::pair<double, double>>> pts(2);
  plot::PixelThinner thin;
  for (const Hit& h : g.hits) {
    const double px = f.px(static_cast<double>(h.pos) + offset[h.chrom]), py = f.py(-std::log10(h.p));
    if (h.p > 0.01 && !thin.keep(px, py)) continue;
    pts[h.chrom % 2].emplace_back(px, py);
  }
  cv.markers(std::move(pts[0]), plot::Shape::kCircle, 2.2, "#0072B2", 0.9);
  cv.markers(std::move(pts[1]), plot::Shape::kCircle, 2.2, "#6E6E6E", 0.9);
  const double gw = -std::log10(5e-8), sug = -std::log10(1e-5);
  cv.line(f.x, f.py(gw), f.x + f.w, f.py(gw), "#D55E00", 1.2, true);
  cv.line(f.x, f.py(sug), f.x + f.w, f.py(sug), "#999999", 1, true);
  cv.text(f.x + f.w - 4, f.py(gw) - 4, "P = 5e-8", 10, Anchor::kEnd, false, false, "#D55E00");
  cv.text(f.x + f.w - 4, f.py(sug) - 4, "P = 1e-5", 10, Anchor::kEnd, false, false, "#666666");
  return cv;
}

Canvas qq(const GwasTable& g, const std::string& title, double lambda) {
  std::vector<double> p(g.hits.size());
  for (size_t i = 0; i < p.size(); ++i) p[i] = g.hits[i].p;
  std::sort(p.begin(), p.end());
  const auto n = static_cast<double>(p.size());
  const double emax = n > 0 ? -std::log10(0.5 / n) : 1;
  const double omax = p.empty() ? 1 : -std::log10(p.front());
  const double top = std::max({emax, omax, 1.0}) * 1.05;
  Canvas cv(520, 540);
  cv.rect(0, 0, cv.width(), cv.height(), "#ffffff");
  cv.text(cv.width() / 2, 28, str_cat("QQ plot: ", title), 16, Anchor::kMiddle, true);
  const Frame f{80, 50, 410, 410, 0, emax * 1.05, 0, top};
  plot::draw_axes(cv, f, "expected -log10(P)", "observed -log10(P)", 13);
  cv.line(f.px(0), f.py(0), f.px(std::min(f.xmax, f.ymax)), f.py(std::min(f.xmax, f.ymax)), "#D55E00", 1.2);
  std::vector<std::pair<double, double>> pts;
  plot::PixelThinner thin;
  for (size_t i = 0; i < p.size(); ++i) {
    const double e = -std::log10((static_cast<double>(i) + 0.5) / n), o = -std::log10(p[i]);
    const double px = f.px(e), py = f.py(o);
    if (p[i] > 0.01 && !thin.keep(px, py)) continue;
    pts.emplace_back(px, py);
  }
  cv.markers(std::move(pts), plot::Shape::kCircle, 2.4, "#0072B2", 0.9);
  cv.text(f.x + 12, f.y + 24, std::isfinite(lambda) ? "λ_GC = " + plot::fixed(lambda, 3) : "λ_GC = n/a", 15,
          Anchor::kStart, true);
  cv.text(f.x + 12, f.y + 44, str_cat(p.size(), " variants"), 12, Anchor::kStart, false, false, "#333333");
  return cv;
}

}  // namespace

double lambda_gc(std::vector<double> p) {
  std::erase_if(p, [](double v) { return !(v >= 0 && v <= 1); });
  if (p.empty()) return NAN;
  const size_t mid = p.size() / 2;
  std::nth_element(p.begin(), p.begin() + static_cast<std::ptrdiff_t>(mid), p.end());
  double chi = chi2_of_p(p[mid]);
  if (p.size() % 2 == 0) {
    const double below = *std::max_element(p.begin(), p.begin() + static_cast<std::ptrdiff_t>(mid));
    chi = (chi + chi2_of_p(below)) / 2;
  }
  return chi / kChi2Median;
}

Status declare_gwas_plots(OutputSet& out, const std::string& stem, const PlotFormats& formats, GwasPlotPaths& paths) {
  if (formats.svg) {
    STRATA_ASSIGN_OR_RETURN(paths.manhattan_svg, out.add_file(stem + ".manhattan.svg"));
    STRATA_ASSIGN_OR_RETURN(paths.qq_svg, out.add_file(stem + ".qq.svg"));
  }
  if (formats.png) {
    STRATA_ASSIGN_OR_RETURN(paths.manhattan_png, out.add_file(stem + ".manhattan.png"));
    STRATA_ASSIGN_OR_RETURN(paths.qq_png, out.add_file(stem + ".qq.png"));
  }
  return Status::OK();
}

Status write_gwas_plots(const std::string& result_path, const std::string& title, const GwasPlotPaths& paths) {
  if (paths.manhattan_svg.empty() && paths.manhattan_png.empty() && paths.qq_svg.empty() && paths.qq_png.empty())
    return Status::OK();  // --no-plot
  STRATA_ASSIGN_OR_RETURN(GwasTable g, read_gwas(result_path));
  std::vector<double> p(g.hits.size());
  for (size_t i = 0; i < p.size(); ++i) p[i] = g.hits[i].p;
  const double lambda = lambda_gc(std::move(p));
  STRATA_RETURN_NOT_OK(plot::write_canvas(manhattan(g, title), paths.manhattan_svg, paths.manhattan_png));
  return plot::write_canvas(qq(g, title, lambda), paths.qq_svg, paths.qq_png);
}

}  // namespace strata::genomics
