// The PCA plot: PC1 vs PC2, the other pairs up to PC4, a scree panel and a sorted legend.
#include <algorithm>
#include <cmath>
#include <map>

#include "strata/core/output.hpp"
#include "plot_internal.hpp"

namespace strata::genomics {
namespace {

using plot::Anchor;
using plot::Canvas;
using plot::Frame;

struct Group {
  std::string name;
  int64_t count = 0;
  std::string colour;
  plot::Shape shape = plot::Shape::kCircle;
  std::vector<int64_t> members;
};

// Legend order: by name, "unknown" last; colours and shapes follow that order.
std::vector<Group> groups_of(const PcaPlotData& d) {
  std::map<std::string, std::vector<int64_t>> by_name;
  std::vector<int64_t> unknown;
  for (int64_t i = 0; i < d.num_samples; ++i) {
    if (d.labels.empty() || d.labels[static_cast<size_t>(i)].empty() || d.labels[static_cast<size_t>(i)] == "unknown")
      unknown.push_back(i);
    else
      by_name[d.labels[static_cast<size_t>(i)]].push_back(i);
  }
  std::vector<Group> out;
  for (auto& [name, members] : by_name) {
    const int g = static_cast<int>(out.size());
    out.push_back({name, static_cast<int64_t>(members.size()), plot::group_colour(g), plot::group_shape(g), std::move(members)});
  }
  if (!unknown.empty())
    out.push_back({"unknown", static_cast<int64_t>(unknown.size()), plot::kUnknownColour, plot::Shape::kCircle, std::move(unknown)});
  return out;
}

// Drawing order: unknown first, then the largest groups, the smallest on top (ties by name).
std::vector<size_t> drawing_order(const std::vector<Group>& groups) {
  std::vector<size_t> order(groups.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const bool ua = groups[a].name == "unknown" && a + 1 == groups.size();
    const bool ub = groups[b].name == "unknown" && b + 1 == groups.size();
    if (ua != ub) return ua;
    return groups[a].count > groups[b].count;
  });
  return order;
}

std::string axis_title(const PcaPlotData& d, int pc) {
  std::string t = str_cat("PC", pc + 1);
  if (pc < static_cast<int>(d.variance_ratio.size()) && std::isfinite(d.variance_ratio[static_cast<size_t>(pc)]))
    t += " (" + plot::percent_label(d.variance_ratio[static_cast<size_t>(pc)]) + ")";
  return t;
}

void scatter(Canvas& c, const PcaPlotData& d, const std::vector<Group>& groups, double x, double y, double size, int px,
             int py, bool big) {
  const int64_t k = d.num_components;
  double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
  for (int64_t i = 0; i < d.num_samples; ++i) {
    const double a = d.scores[static_cast<size_t>(i * k + px)], b = d.scores[static_cast<size_t>(i * k + py)];
    if (!std::isfinite(a) || !std::isfinite(b)) continue;
    xmin = std::min(xmin, a), xmax = std::max(xmax, a), ymin = std::min(ymin, b), ymax = std::max(ymax, b);
  }
  const auto [x0, x1] = plot::padded_range(xmin, xmax);
  const auto [y0, y1] = plot::padded_range(ymin, ymax);
  const Frame f{x, y, size, size, x0, x1, y0, y1};
  const double fs = big ? 13 : 10;
  plot::draw_axes(c, f, axis_title(d, px), axis_title(d, py), fs);
  if (x0 < 0 && x1 > 0) c.line(f.px(0), f.y, f.px(0), f.y + f.h, "#c8c8c8", 0.8, true);
  if (y0 < 0 && y1 > 0) c.line(f.x, f.py(0), f.x + f.w, f.py(0), "#c8c8c8", 0.8, true);
  for (size_t g : drawing_order(groups)) {
    std::vector<std::pair<double, double>> pts;
    for (int64_t i : groups[g].members) {
      const double a = d.scores[static_cast<size_t>(i * k + px)], b = d.scores[static_cast<size_t>(i * k + py)];
      if (std::isfinite(a) && std::isfinite(b)) pts.emplace_back(f.px(a), f.py(b));
    }
    c.markers(std::move(pts), groups[g].shape, big ? 3.0 : 2.0, groups[g].colour, 0.8);
  }
}

// Bars of % variance per PC.
void scree(Canvas& c, const std::vector<double>& ratio, double x, double y, double w, double h) {
  double top = 0;
  for (double v : ratio)
    if (std::isfinite(v)) top = std::max(top, 100 * v);
  if (top <= 0) top = 1;
  const auto n = static_cast<double>(ratio.size());
  const Frame f{x, y, w, h, 0.4, n + 0.6, 0, top * 1.18};
  std::vector<double> xt;
  const int every = ratio.size() <= 12 ? 1 : static_cast<int>(std::ceil(n / 12));
  for (int i = 1; i <= static_cast<int>(ratio.size()); i += every) xt.push_back(i);
  plot::draw_axes(c, f, "principal component", "% variance", 12, xt);
  const double bw = std::min(36.0, 0.7 * w / n);
  for (size_t i = 0; i < ratio.size(); ++i) {
    if (!std::isfinite(ratio[i])) continue;
    const double cx = f.px(static_cast<double>(i + 1)), top_y = f.py(100 * ratio[i]);
    c.rect(cx - bw / 2, top_y, bw, f.y + f.h - top_y, "#0072B2");
    if (ratio.size() <= 10) {
      std::string label = plot::percent_label(ratio[i]);
      label.erase(label.size() - 2);  // the axis says "%"
      c.text(cx, top_y - 4, label, 9, Anchor::kMiddle, false, false, "#333333");
    }
  }
  c.text(x + w / 2, y - 8, "Variance explained", 13, Anchor::kMiddle, true);
}

Result<Canvas> pca_canvas(const PcaPlotData& d) {
  if (d.num_components < 2) return Status::Invalid("a PCA plot needs at least 2 components, got ", d.num_components);
  if (d.num_samples < 1) return Status::Invalid("a PCA plot needs at least one sample");
  if (static_cast<int64_t>(d.scores.size()) != d.num_samples * d.num_components)
    return Status::Invalid("PCA plot: scores has ", d.scores.size(), " values, expected ", d.num_samples, " x ",
                           d.num_components);
  if (!d.labels.empty() && static_cast<int64_t>(d.labels.size()) != d.num_samples)
    return Status::Invalid("PCA plot: ", d.labels.size(), " population labels for ", d.num_samples, " samples");
  const std::vector<Group> groups = groups_of(d);

  const int kc = static_cast<int>(std::min<int64_t>(d.num_components, 4));
  std::vector<std::pair<int, int>> pairs;
  for (int b = 2; b < kc; ++b)
    for (int a = 0; a < b; ++a) pairs.emplace_back(a, b);
  const double left = 90, top = 50, main = 460, small = 165, sgap_x = 85, sgap_y = 75;
  const bool has_scree = !d.variance_ratio.empty();
  const double scree_y = top + main + 95, scree_h = 170;
  const double grid_x = left + main + 95;
  const double grid_w = pairs.empty() ? 0 : 2 * small + sgap_x;
  const double grid_h = static_cast<double>((pairs.size() + 1) / 2) * (small + sgap_y);
  const double legend_x = (pairs.empty() ? left + main + 30 : grid_x + grid_w + 30);
  const size_t shown = std::min<size_t>(groups.size(), 45);
  const double legend_h = 40 + 19.0 * static_cast<double>(shown + (groups.size() > shown ? 1 : 0));
  const double width = legend_x + 200;
  const double height = std::max({top + main + 60, has_scree ? scree_y + scree_h + 55 : 0.0, top + grid_h + 10,
                                  top + legend_h + 10});
  Canvas c(width, height);
  c.rect(0, 0, width, height, "#ffffff");
  c.text(width / 2, 28, str_cat(d.title, " (", d.num_samples, " samples)"), 17, Anchor::kMiddle, true);
  scatter(c, d, groups, left, top, main, 0, 1, true);
  for (size_t e = 0; e < pairs.size(); ++e) {
    const double gx = grid_x + static_cast<double>(e % 2) * (small + sgap_x);
    const double gy = top + static_cast<double>(e / 2) * (small + sgap_y);
    scatter(c, d, groups, gx, gy, small, pairs[e].first, pairs[e].second, false);
  }
  if (has_scree) scree(c, d.variance_ratio, left, scree_y, main, scree_h);
  // Legend: by name with counts, markers as drawn.
  double ly = top + 4;
  c.text(legend_x, ly, "population (n)", 13, Anchor::kStart, true);
  for (size_t i = 0; i < shown; ++i) {
    ly += 19;
    c.markers({{legend_x + 7, ly - 4.5}}, groups[i].shape, 5, groups[i].colour);
    c.text(legend_x + 18, ly, str_cat(groups[i].name, " (", groups[i].count, ")"), 12);
  }
  if (groups.size() > shown) c.text(legend_x, ly + 19, str_cat("… ", groups.size() - shown, " more"), 12);
  return c;
}

}  // namespace

Result<std::string> render_pca_svg(const PcaPlotData& data) {
  STRATA_ASSIGN_OR_RETURN(Canvas c, pca_canvas(data));
  return c.svg();
}

Status write_pca_plot(const PcaPlotData& data, const std::string& svg_path, const std::string& png_path) {
  STRATA_ASSIGN_OR_RETURN(Canvas c, pca_canvas(data));
  return plot::write_canvas(c, svg_path, png_path);
}

Status write_pca_svg(const std::string& path, const PcaPlotData& data) {
  STRATA_ASSIGN_OR_RETURN(std::string svg, render_pca_svg(data));
  return write_file_atomically(path, svg);
}

Result<PlotFormats> PlotFormats::parse(const std::string& list) {
  PlotFormats f{false, false};
  size_t start = 0;
  while (start <= list.size()) {
    const size_t end = std::min(list.find(',', start), list.size());
    const std::string item = list.substr(start, end - start);
    if (item == "svg") {
      f.svg = true;
    } else if (item == "png") {
      f.png = true;
    } else if (item != "none") {
      return Status::Invalid("--plot-format: '", item, "' is not a plot format (svg, png, svg,png or none)");
    }
    start = end + 1;
  }
  return f;
}

Result<PlotFormats> PlotFormats::choose(bool write_plot, const std::string& list) {
  if (!write_plot) return PlotFormats{false, false};
  STRATA_ASSIGN_OR_RETURN(PlotFormats f, list.empty() ? defaults() : parse(list));
  STRATA_RETURN_NOT_OK(check_plot_formats(f));
  return f;
}

PlotFormats PlotFormats::defaults() { return PlotFormats{true, png_supported()}; }

Status check_plot_formats(const PlotFormats& formats) {
  if (formats.png && !png_supported())
    return Status::Unsupported("PNG plots: ", plot::png_missing_reason(), " (--plot-format svg writes the SVG only)");
  return Status::OK();
}

}  // namespace strata::genomics
