#include <charconv>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>

#include "strata/core/output.hpp"
#include "strata/genomics/plot.hpp"

namespace strata::genomics {
namespace {

// Colour-blind-friendly qualitative palette (cycled when there are more populations).
constexpr const char* kPalette[] = {"#4477AA", "#EE6677", "#228833", "#CCBB44", "#66CCEE", "#AA3377",
                                    "#BBBBBB", "#000000", "#EE7733", "#0077BB", "#33BBEE", "#EE3377",
                                    "#CC3311", "#009988", "#882255", "#999933"};

// printf's "%.*f" text (std::to_chars promises the same digits, several times faster: a plot
// of a large cohort formats tens of thousands of coordinates).
std::string fmt(double v, int prec = 1) {
  char b[352];  // room for the longest fixed-notation double
  const auto r = std::to_chars(b, b + sizeof b, v, std::chars_format::fixed, prec);
  return std::string(b, r.ptr);
}

std::string escape_xml(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      default: o += c;
    }
  }
  return o;
}

struct Panel {
  double x, y, w, h;  // pixel box of the plotting area
};

std::string axis_title(const PcaPlotData& d, int pc) {
  std::string t = str_cat("PC", pc + 1);
  if (pc < static_cast<int>(d.variance_ratio.size()) && std::isfinite(d.variance_ratio[pc]))
    t += str_cat(" (", fmt(100.0 * d.variance_ratio[pc], 1), "%)");
  return t;
}

// One scatter panel of PC `px` against PC `py`.
void draw_panel(std::string& svg, const PcaPlotData& d, const Panel& p, int px, int py,
                const std::vector<int>& colour, bool big) {
  const int64_t n = d.num_samples, k = d.num_components;
  double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
  for (int64_t i = 0; i < n; ++i) {
    double x = d.scores[i * k + px], y = d.scores[i * k + py];
    if (!std::isfinite(x) || !std::isfinite(y)) continue;
    xmin = std::min(xmin, x); xmax = std::max(xmax, x);
    ymin = std::min(ymin, y); ymax = std::max(ymax, y);
  }
  if (!(xmax >= xmin)) xmin = -1, xmax = 1;
  if (!(ymax >= ymin)) ymin = -1, ymax = 1;
  double xpad = (xmax - xmin) * 0.05 + 1e-12, ypad = (ymax - ymin) * 0.05 + 1e-12;
  xmin -= xpad; xmax += xpad; ymin -= ypad; ymax += ypad;
  auto sx = [&](double v) { return p.x + (v - xmin) / (xmax - xmin) * p.w; };
  auto sy = [&](double v) { return p.y + p.h - (v - ymin) / (ymax - ymin) * p.h; };
  svg += str_cat("<rect x=\"", fmt(p.x), "\" y=\"", fmt(p.y), "\" width=\"", fmt(p.w), "\" height=\"", fmt(p.h),
                 "\" fill=\"#fafafa\" stroke=\"#444\" stroke-width=\"1\"/>\n");
  // Zero lines help reading signs of the components.
  if (xmin < 0 && xmax > 0)
    svg += str_cat("<line x1=\"", fmt(sx(0)), "\" y1=\"", fmt(p.y), "\" x2=\"", fmt(sx(0)), "\" y2=\"", fmt(p.y + p.h),
                   "\" stroke=\"#ddd\"/>\n");
  if (ymin < 0 && ymax > 0)
    svg += str_cat("<line x1=\"", fmt(p.x), "\" y1=\"", fmt(sy(0)), "\" x2=\"", fmt(p.x + p.w), "\" y2=\"", fmt(sy(0)),
                   "\" stroke=\"#ddd\"/>\n");
  double r = big ? 2.6 : 1.6;
  // Samples drawn in input order within one <g> per population keeps the file compact.
  std::map<int, std::string> groups;
  for (int64_t i = 0; i < n; ++i) {
    double x = d.scores[i * k + px], y = d.scores[i * k + py];
    if (!std::isfinite(x) || !std::isfinite(y)) continue;
    // Appended piece by piece: one string stream per circle cost more than the numbers.
    std::string& g = groups[colour[i]];
    g += "<circle cx=\"";
    g += fmt(sx(x));
    g += "\" cy=\"";
    g += fmt(sy(y));
    g += "\" r=\"";
    g += fmt(r);
    g += "\"/>";
  }
  for (auto& [c, circles] : groups)
    svg += str_cat("<g fill=\"", kPalette[c % std::size(kPalette)], "\" fill-opacity=\"0.75\">", circles, "</g>\n");
  int fs = big ? 13 : 10;
  svg += str_cat("<text x=\"", fmt(p.x + p.w / 2), "\" y=\"", fmt(p.y + p.h + fs + 6), "\" font-size=\"", fs,
                 "\" text-anchor=\"middle\">", escape_xml(axis_title(d, px)), "</text>\n");
  svg += str_cat("<text x=\"", fmt(p.x - 8), "\" y=\"", fmt(p.y + p.h / 2), "\" font-size=\"", fs,
                 "\" text-anchor=\"middle\" transform=\"rotate(-90 ", fmt(p.x - 8), " ", fmt(p.y + p.h / 2), ")\">",
                 escape_xml(axis_title(d, py)), "</text>\n");
}

}  // namespace

Result<std::string> render_pca_svg(const PcaPlotData& d) {
  if (d.num_components < 2) return Status::Invalid("a PCA plot needs at least 2 components, got ", d.num_components);
  if (d.num_samples < 1) return Status::Invalid("a PCA plot needs at least one sample");
  if (static_cast<int64_t>(d.scores.size()) != d.num_samples * d.num_components)
    return Status::Invalid("PCA plot: scores has ", d.scores.size(), " values, expected ", d.num_samples, " x ",
                           d.num_components);
  if (!d.labels.empty() && static_cast<int64_t>(d.labels.size()) != d.num_samples)
    return Status::Invalid("PCA plot: ", d.labels.size(), " population labels for ", d.num_samples, " samples");

  // Populations ordered by size (largest first), then name, so colours are stable.
  std::map<std::string, int64_t> counts;
  for (int64_t i = 0; i < d.num_samples; ++i) counts[d.labels.empty() || d.labels[i].empty() ? "unknown" : d.labels[i]]++;
  std::vector<std::pair<std::string, int64_t>> pops(counts.begin(), counts.end());
  std::stable_sort(pops.begin(), pops.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::map<std::string, int> index;
  for (size_t i = 0; i < pops.size(); ++i) index[pops[i].first] = static_cast<int>(i);
  std::vector<int> colour(static_cast<size_t>(d.num_samples));
  for (int64_t i = 0; i < d.num_samples; ++i)
    colour[i] = index[d.labels.empty() || d.labels[i].empty() ? "unknown" : d.labels[i]];

  const int kc = static_cast<int>(std::min<int64_t>(d.num_components, 4));
  std::vector<std::pair<int, int>> extra;
  for (int b = 2; b < kc; ++b)
    for (int a = 0; a < b; ++a) extra.emplace_back(a, b);
  const double main_size = 460, small = 150, gap = 52;
  const int grid_cols = extra.empty() ? 0 : 2;
  const int grid_rows = static_cast<int>((extra.size() + 1) / 2);
  const double legend_w = 170;
  double width = 60 + main_size + (grid_cols ? gap + grid_cols * (small + gap) : 20) + legend_w;
  double grid_h = grid_rows * (small + gap);
  double height = 50 + std::max(main_size + 50, grid_h) + 10;
  double legend_h = 30 + 18.0 * static_cast<double>(std::min<size_t>(pops.size(), 40));
  height = std::max(height, 60 + legend_h);

  std::string svg = str_cat("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"",
                            fmt(width, 0), "\" height=\"", fmt(height, 0), "\" viewBox=\"0 0 ", fmt(width, 0), " ",
                            fmt(height, 0), "\" font-family=\"Helvetica, Arial, sans-serif\">\n");
  svg += str_cat("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
  svg += str_cat("<text x=\"", fmt(width / 2, 0), "\" y=\"26\" font-size=\"17\" text-anchor=\"middle\" font-weight=\"bold\">",
                 escape_xml(d.title), " (", d.num_samples, " samples)</text>\n");
  draw_panel(svg, d, {60, 45, main_size, main_size}, 0, 1, colour, true);
  double gx0 = 60 + main_size + gap + 10;
  for (size_t e = 0; e < extra.size(); ++e) {
    double gx = gx0 + static_cast<double>(e % 2) * (small + gap);
    double gy = 45 + static_cast<double>(e / 2) * (small + gap);
    draw_panel(svg, d, {gx, gy, small, small}, extra[e].first, extra[e].second, colour, false);
  }
  double lx = width - legend_w + 10, ly = 50;
  svg += str_cat("<text x=\"", fmt(lx), "\" y=\"", fmt(ly), "\" font-size=\"13\" font-weight=\"bold\">population</text>\n");
  for (size_t i = 0; i < pops.size() && i < 40; ++i) {
    double y = ly + 18.0 * static_cast<double>(i + 1);
    svg += str_cat("<circle cx=\"", fmt(lx + 6), "\" cy=\"", fmt(y - 4), "\" r=\"5\" fill=\"", kPalette[i % std::size(kPalette)],
                   "\"/><text x=\"", fmt(lx + 16), "\" y=\"", fmt(y), "\" font-size=\"12\">", escape_xml(pops[i].first),
                   " (", pops[i].second, ")</text>\n");
  }
  if (pops.size() > 40)
    svg += str_cat("<text x=\"", fmt(lx), "\" y=\"", fmt(ly + 18.0 * 41), "\" font-size=\"12\">… ", pops.size() - 40,
                   " more</text>\n");
  svg += "</svg>\n";
  return svg;
}

Status write_pca_svg(const std::string& path, const PcaPlotData& data) {
  STRATA_ASSIGN_OR_RETURN(std::string svg, render_pca_svg(data));
  return write_file_atomically(path, svg);
}

}  // namespace strata::genomics
