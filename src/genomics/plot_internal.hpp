#pragma once
// The drawing layer of strata's plots: a Canvas of primitives (rectangles, lines, markers, text)
// that serializes to SVG text (deterministic: fixed formatting, no ids, no dates) and rasterizes
// to PNG through cairo (plot_png.cpp). Axes with nice ticks, the palette and marker shapes.

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "strata/core/result.hpp"
#include "strata/genomics/plot.hpp"

namespace strata::genomics::plot {

enum class Shape : uint8_t { kCircle, kSquare, kTriangle, kDiamond, kTriangleDown, kCross };
enum class Anchor : uint8_t { kStart, kMiddle, kEnd };

/// One drawing operation, in pixels (origin top left).
struct Item {
  enum Kind : uint8_t { kRect, kLine, kMarkers, kText, kPolyline } kind = kRect;
  double x = 0, y = 0, w = 0, h = 0;  // rect box; line from (x, y) to (w, h)
  std::string fill, stroke;           // "#rrggbb" or "" for none
  double stroke_width = 1, opacity = 1;
  bool dashed = false;
  // Markers: one style, many points; polyline: its points.
  Shape shape = Shape::kCircle;
  double size = 2.5;  // marker radius
  std::vector<std::pair<double, double>> points;
  // Text.
  std::string text;
  double font_size = 12;
  Anchor anchor = Anchor::kStart;
  bool bold = false, vertical = false;  // vertical: rotated -90° about (x, y)
};

class Canvas {
 public:
  Canvas(double width, double height) : width_(width), height_(height) {}
  double width() const { return width_; }
  double height() const { return height_; }
  void rect(double x, double y, double w, double h, std::string fill, std::string stroke = "", double sw = 1);
  void line(double x1, double y1, double x2, double y2, std::string stroke, double sw = 1, bool dashed = false);
  void polyline(std::vector<std::pair<double, double>> pts, std::string stroke, double sw = 1);
  /// A group of markers of one colour and shape (drawn in the order given).
  void markers(std::vector<std::pair<double, double>> pts, Shape shape, double radius, std::string fill,
               double opacity = 1);
  void text(double x, double y, std::string s, double size, Anchor anchor = Anchor::kStart, bool bold = false,
            bool vertical = false, std::string fill = "#000000");
  const std::vector<Item>& items() const { return items_; }
  /// Self-contained SVG text; the same canvas gives the same bytes.
  std::string svg() const;

 private:
  double width_, height_;
  std::vector<Item> items_;
};

/// PNG of the canvas at `scale` pixels per unit, written to `path` (a staged path; the caller
/// commits it). NotImplemented when strata was built without cairo.
Status write_png(const Canvas& canvas, const std::string& path, double scale = 2.0);
/// Why PNG plots cannot be written here ("" when they can).
std::string png_missing_reason();

/// The canvas written as SVG to `svg_path` and as PNG to `png_path` (each skipped when empty).
Status write_canvas(const Canvas& canvas, const std::string& svg_path, const std::string& png_path);

// ---- axes ----

/// "Nice" tick values covering [lo, hi] (1, 2, 2.5 or 5 times a power of ten), about `target` of them.
std::vector<double> nice_ticks(double lo, double hi, int target = 6);
/// A tick label with the decimals the step needs ("0.05", "-0.1", "20"; never "-0").
std::string tick_label(double v, double step);
/// A share as a percentage with 3 significant digits: "12.3 %", "0.456 %", "0.0123 %"; "0 %" only for 0.
std::string percent_label(double fraction);
/// printf "%.*f" digits.
std::string fixed(double v, int decimals);

/// A rectangular plotting area with data limits; maps data to pixels.
struct Frame {
  double x, y, w, h;              // pixel box
  double xmin, xmax, ymin, ymax;  // data limits
  double px(double v) const { return x + (v - xmin) / (xmax - xmin) * w; }
  double py(double v) const { return y + h - (v - ymin) / (ymax - ymin) * h; }
};

/// Data limits widened by `pad` of the range (and made non-empty).
std::pair<double, double> padded_range(double lo, double hi, double pad = 0.05);
/// Frame box, ticks with numbers on both axes, axis titles. `xticks` / `yticks` empty: nice ticks.
/// `xlabels` (when not empty) replaces the numbers of `xticks` (chromosome names).
void draw_axes(Canvas& c, const Frame& f, const std::string& xtitle, const std::string& ytitle, double font_size,
               std::vector<double> xticks = {}, std::vector<double> yticks = {},
               const std::vector<std::string>& xlabels = {});

/// Drops markers that land on a pixel already drawn (same rounded position): the picture is
/// the same, the file much smaller.
class PixelThinner {
 public:
  bool keep(double x, double y);
 private:
  std::unordered_set<uint64_t> set_;
};

/// Columns located by header name (case-insensitive; a leading '#' ignored), -1 when absent.
int header_column(const std::vector<std::string_view>& header, std::string_view name);
/// A number field (also "nan", "inf"); false when not a number.
bool parse_number(std::string_view s, double& v);

// ---- palette ----

/// Okabe & Ito's colour-blind-safe palette (8 colours), then shapes: group g gets colour g % 8
/// and shape g / 8 (circle, square, triangle, diamond, ...).
const char* group_colour(int g);
Shape group_shape(int g);
inline constexpr const char* kUnknownColour = "#999999";

}  // namespace strata::genomics::plot
