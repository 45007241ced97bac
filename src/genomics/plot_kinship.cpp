// KING kinship against IBS0 with the degree thresholds (plot.hpp). One pass over the .kin0
// table: pairs are kept as occupied cells of a fine grid (1/2000 of IBS0, 1/2000 of kinship),
// so memory and file size stay bounded for any number of pairs.
#include <algorithm>
#include <array>
#include <cmath>
#include <unordered_set>

#include "io/genotype/text_reader_internal.hpp"
#include "plot_internal.hpp"

namespace strata::genomics {
namespace {

using plot::Anchor;
using plot::Canvas;
using plot::Frame;

constexpr double kCell = 1.0 / 2000;
// KING's inference criteria (Manichaikul et al. 2010), as plink2 documents them: kinship above
// 2^-1.5 duplicate/MZ twin, 2^-2.5 first degree, 2^-3.5 second, 2^-4.5 third.
constexpr std::array<double, 4> kThresholds = {0.354, 0.177, 0.0884, 0.0442};
constexpr std::array<const char*, 5> kClassNames = {"duplicate/MZ", "1st degree", "2nd degree", "3rd degree",
                                                   "unrelated"};
constexpr std::array<const char*, 5> kClassColours = {"#D55E00", "#E69F00", "#009E73", "#0072B2", "#999999"};

int degree_class(double kinship) {
  for (size_t k = 0; k < kThresholds.size(); ++k)
    if (kinship > kThresholds[k]) return static_cast<int>(k);
  return 4;
}

}  // namespace

Status write_kinship_plot(const std::string& kin0_path, const std::string& title, const std::string& svg_path,
                          const std::string& png_path) {
  io::detail::LineReader f;
  STRATA_RETURN_NOT_OK(f.open(kin0_path, /*allow_pipe=*/false));
  std::string_view line;
  int c_ibs0 = -1, c_kin = -1;
  bool header = false;
  std::unordered_set<uint64_t> cells;
  std::array<int64_t, 5> counts{};
  double xmax = 0, ymin = INFINITY, ymax = -INFINITY;
  while (f.next(line)) {
    const std::vector<std::string_view> t = io::detail::split_all(line);
    if (t.empty()) continue;
    if (!header) {
      header = true;
      c_ibs0 = plot::header_column(t, "IBS0");
      c_kin = plot::header_column(t, "KINSHIP");
      if (c_ibs0 < 0 || c_kin < 0) return Status::InvalidData(kin0_path, ": a .kin0 table needs IBS0 and KINSHIP columns to plot");
      continue;
    }
    if (t.size() <= static_cast<size_t>(std::max(c_ibs0, c_kin)))
      return Status::InvalidData(kin0_path, ":", f.line_no(), ": ", t.size(), " columns, fewer than the header's");
    double ibs0 = NAN, kin = NAN;
    if (!plot::parse_number(t[static_cast<size_t>(c_ibs0)], ibs0) || !plot::parse_number(t[static_cast<size_t>(c_kin)], kin) ||
        !std::isfinite(ibs0) || !std::isfinite(kin))
      continue;  // pairs with no common variant
    kin = std::clamp(kin, -2.0, 0.5);
    ibs0 = std::clamp(ibs0, 0.0, 1.0);
    ++counts[static_cast<size_t>(degree_class(kin))];
    xmax = std::max(xmax, ibs0), ymin = std::min(ymin, kin), ymax = std::max(ymax, kin);
    const auto cx = static_cast<uint64_t>(std::lround(ibs0 / kCell));
    const auto cy = static_cast<uint64_t>(std::lround((kin + 2.0) / kCell));
    cells.insert((cx << 32) | cy);
  }
  STRATA_RETURN_NOT_OK(f.status());
  // Cells in a fixed order: the same table gives the same bytes.
  std::vector<uint64_t> sorted(cells.begin(), cells.end());
  std::sort(sorted.begin(), sorted.end());
  int64_t pairs = 0;
  for (int64_t c : counts) pairs += c;

  Canvas cv(700, 540);
  cv.rect(0, 0, cv.width(), cv.height(), "#ffffff");
  cv.text(cv.width() / 2, 28, str_cat("KING kinship: ", title, " (", pairs, " pairs)"), 16, Anchor::kMiddle, true);
  if (!std::isfinite(ymin)) ymin = 0, ymax = 0.5;
  const auto [x0, x1] = plot::padded_range(0, std::max(xmax, 0.05), 0.04);
  const double y0 = std::min(ymin, 0.0) - 0.02, y1 = std::max(ymax, 0.4) + 0.03;
  const Frame fr{85, 50, 410, 410, x0, x1, y0, y1};
  plot::draw_axes(cv, fr, "proportion of IBS0 sites", "kinship coefficient", 13);
  for (size_t k = 0; k < kThresholds.size(); ++k) {
    const double y = fr.py(kThresholds[k]);
    cv.line(fr.x, y, fr.x + fr.w, y, "#888888", 1, true);
    cv.text(fr.x + fr.w + 5, y + 4, plot::fixed(kThresholds[k], k < 2 ? 3 : 4), 10, Anchor::kStart, false, false, "#555555");
  }
  // Each class its own group, unrelated first (underneath).
  std::array<std::vector<std::pair<double, double>>, 5> pts;
  plot::PixelThinner thin;
  for (uint64_t cell : sorted) {
    const double ibs0 = static_cast<double>(cell >> 32) * kCell;
    const double kin = static_cast<double>(cell & 0xffffffffu) * kCell - 2.0;
    const double px = fr.px(ibs0), py = fr.py(kin);
    if (thin.keep(px, py)) pts[static_cast<size_t>(degree_class(kin))].emplace_back(px, py);
  }
  for (int k = 4; k >= 0; --k)
    cv.markers(std::move(pts[static_cast<size_t>(k)]), plot::Shape::kCircle, 2.6, kClassColours[static_cast<size_t>(k)], 0.85);
  // Legend: classes with their pair counts.
  double ly = fr.y + 4;
  const double lx = fr.x + fr.w + 55;
  cv.text(lx, ly, "pairs", 13, Anchor::kStart, true);
  for (size_t k = 0; k < 5; ++k) {
    ly += 19;
    cv.markers({{lx + 7, ly - 4.5}}, plot::Shape::kCircle, 5, kClassColours[k]);
    cv.text(lx + 18, ly, str_cat(kClassNames[k], " (", counts[k], ")"), 12);
  }
  return plot::write_canvas(cv, svg_path, png_path);
}

}  // namespace strata::genomics
