// Axes with nice ticks, number formatting and the palette of strata's plots (plot_internal.hpp).
#include <algorithm>
#include <charconv>
#include <cmath>

#include "plot_internal.hpp"

namespace strata::genomics::plot {

std::string fixed(double v, int decimals) {
  char b[352];  // room for the longest fixed-notation double
  const auto r = std::to_chars(b, b + sizeof b, v, std::chars_format::fixed, decimals);
  return std::string(b, r.ptr);
}

std::vector<double> nice_ticks(double lo, double hi, int target) {
  if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi)) return {};
  const double raw = (hi - lo) / std::max(target, 2);
  const int e = static_cast<int>(std::floor(std::log10(raw)));
  const double mag = std::pow(10.0, e);
  double m = 10;
  for (double c : {1.0, 2.0, 2.5, 5.0})
    if (c * mag >= raw) {
      m = c;
      break;
    }
  const double step = m * mag;
  std::vector<double> out;
  // i·m·10^e computed as i·m / 10^-e for small steps: the nearest double to the decimal
  // ("0.6", not "0.6000000000000001").
  const double inv = std::pow(10.0, -e);
  for (auto i = static_cast<int64_t>(std::ceil(lo / step - 1e-9)); static_cast<double>(i) * step <= hi + step * 1e-9; ++i)
    out.push_back(e < 0 ? static_cast<double>(i) * m / inv : static_cast<double>(i) * m * mag);
  return out;
}

std::string tick_label(double v, double step) {
  int dec = 0;
  if (step > 0 && std::isfinite(step)) {
    dec = std::max(0, static_cast<int>(std::ceil(-std::log10(step) - 1e-9)));
    // 2.5 × 10^k needs one more digit than its power of ten.
    const double scaled = step * std::pow(10.0, dec);
    if (std::fabs(scaled - std::round(scaled)) > 1e-6) ++dec;
  }
  dec = std::min(dec, 12);
  if (std::fabs(v) < step * 1e-6) v = 0;
  std::string s = fixed(v, dec);
  if (s.find_first_not_of("-0.") == std::string::npos) s = fixed(0.0, dec);  // never "-0.0"
  return s;
}

std::string percent_label(double fraction) {
  const double p = 100.0 * fraction;
  if (!std::isfinite(p)) return "n/a";
  if (p == 0) return "0 %";
  // 3 significant digits, at least one decimal: 12.3 %, 1.23 %, 0.123 %, 0.00123 %.
  const int dec = std::clamp(2 - static_cast<int>(std::floor(std::log10(std::fabs(p)))), 1, 12);
  return fixed(p, dec) + " %";
}

std::pair<double, double> padded_range(double lo, double hi, double pad) {
  if (!std::isfinite(lo) || !std::isfinite(hi) || hi < lo) return {-1, 1};
  if (hi == lo) {
    const double d = lo == 0 ? 1 : std::fabs(lo) * 0.1;
    return {lo - d, hi + d};
  }
  const double d = (hi - lo) * pad;
  return {lo - d, hi + d};
}

void draw_axes(Canvas& c, const Frame& f, const std::string& xtitle, const std::string& ytitle, double fs,
               std::vector<double> xticks, std::vector<double> yticks, const std::vector<std::string>& xlabels) {
  const int target = f.w < 250 ? 4 : 6;
  if (xticks.empty()) xticks = nice_ticks(f.xmin, f.xmax, target);
  if (yticks.empty()) yticks = nice_ticks(f.ymin, f.ymax, target);
  const double xstep = xticks.size() > 1 ? xticks[1] - xticks[0] : 1;
  const double ystep = yticks.size() > 1 ? yticks[1] - yticks[0] : 1;
  const double tick = 4, tfs = fs - 2;
  for (size_t i = 0; i < xticks.size(); ++i) {
    const double v = xticks[i];
    if (v < f.xmin || v > f.xmax) continue;
    const double x = f.px(v);
    if (xlabels.empty()) c.line(x, f.y, x, f.y + f.h, "#ececec", 0.8);  // light grid
    c.line(x, f.y + f.h, x, f.y + f.h + tick, "#333333", 1);
    c.text(x, f.y + f.h + tick + tfs, i < xlabels.size() ? xlabels[i] : tick_label(v, xstep), tfs, Anchor::kMiddle,
           false, false, "#333333");
  }
  for (double v : yticks) {
    if (v < f.ymin || v > f.ymax) continue;
    const double y = f.py(v);
    c.line(f.x, y, f.x + f.w, y, "#ececec", 0.8);
    c.line(f.x - tick, y, f.x, y, "#333333", 1);
    c.text(f.x - tick - 2, y + tfs * 0.35, tick_label(v, ystep), tfs, Anchor::kEnd, false, false, "#333333");
  }
  c.rect(f.x, f.y, f.w, f.h, "", "#333333", 1);
  if (!xtitle.empty()) c.text(f.x + f.w / 2, f.y + f.h + tick + tfs + fs + 6, xtitle, fs, Anchor::kMiddle);
  if (!ytitle.empty()) {
    // Left of the widest tick label (about 0.6 em per character).
    size_t widest = 0;
    for (double v : yticks) widest = std::max(widest, tick_label(v, ystep).size());
    const double x = f.x - tick - 8 - 0.6 * tfs * static_cast<double>(widest) - 4;
    c.text(x, f.y + f.h / 2, ytitle, fs, Anchor::kMiddle, false, true);
  }
}

bool PixelThinner::keep(double x, double y) {
  const auto key = (static_cast<uint64_t>(static_cast<uint32_t>(std::lround(x * 2))) << 32) |
                   static_cast<uint32_t>(std::lround(y * 2));  // half-pixel cells
  return set_.insert(key).second;
}

int header_column(const std::vector<std::string_view>& header, std::string_view name) {
  for (size_t k = 0; k < header.size(); ++k) {
    std::string_view h = header[k];
    if (!h.empty() && h[0] == '#') h.remove_prefix(1);
    if (h.size() == name.size() &&
        std::equal(h.begin(), h.end(), name.begin(), [](char a, char b) { return std::tolower(a) == std::tolower(b); }))
      return static_cast<int>(k);
  }
  return -1;
}

bool parse_number(std::string_view s, double& v) {
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

namespace {
// Okabe, M. & Ito, K. (2008) Color Universal Design: distinguishable for the common colour-vision deficiencies.
constexpr const char* kOkabeIto[] = {"#E69F00", "#56B4E9", "#009E73", "#F0E442",
                                     "#0072B2", "#D55E00", "#CC79A7", "#000000"};
constexpr Shape kShapes[] = {Shape::kCircle, Shape::kSquare, Shape::kTriangle, Shape::kDiamond, Shape::kTriangleDown,
                             Shape::kCross};
}  // namespace

const char* group_colour(int g) { return kOkabeIto[static_cast<size_t>(g) % std::size(kOkabeIto)]; }
Shape group_shape(int g) { return kShapes[static_cast<size_t>(g) / std::size(kOkabeIto) % std::size(kShapes)]; }

}  // namespace strata::genomics::plot
