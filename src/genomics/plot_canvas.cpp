// Canvas primitives and their SVG text (plot_internal.hpp).
#include <charconv>
#include <cmath>
#include <fstream>

#include "plot_internal.hpp"

namespace strata::genomics::plot {
namespace {

std::string escape_xml(std::string_view s) {
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

// Coordinates with one decimal (a tenth of a pixel); "-0.0" is written "0.0".
void num(std::string& out, double v) {
  if (std::fabs(v) < 0.05) v = 0;
  char b[64];
  const auto r = std::to_chars(b, b + sizeof b, v, std::chars_format::fixed, 1);
  out.append(b, r.ptr);
}

std::string n1(double v) {
  std::string s;
  num(s, v);
  return s;
}

// One marker as a path (relative moves keep it short), centred at (x, y) with radius r.
void marker_path(std::string& d, Shape shape, double x, double y, double r) {
  auto M = [&](double a, double b) { d += 'M'; num(d, a); d += ' '; num(d, b); };
  auto l = [&](double a, double b) { d += 'l'; num(d, a); d += ' '; num(d, b); };
  switch (shape) {
    case Shape::kSquare:
      M(x - r * 0.85, y - r * 0.85); l(1.7 * r, 0); l(0, 1.7 * r); l(-1.7 * r, 0); d += 'z'; break;
    case Shape::kTriangle:
      M(x, y - 1.15 * r); l(r, 1.75 * r); l(-2 * r, 0); d += 'z'; break;
    case Shape::kTriangleDown:
      M(x, y + 1.15 * r); l(r, -1.75 * r); l(-2 * r, 0); d += 'z'; break;
    case Shape::kDiamond:
      M(x, y - 1.2 * r); l(1.2 * r, 1.2 * r); l(-1.2 * r, 1.2 * r); l(-1.2 * r, -1.2 * r); d += 'z'; break;
    case Shape::kCross: {
      const double a = 0.35 * r, b = r;
      M(x - a, y - b); l(2 * a, 0); l(0, b - a); l(b - a, 0); l(0, 2 * a); l(a - b, 0); l(0, b - a);
      l(-2 * a, 0); l(0, a - b); l(a - b, 0); l(0, -2 * a); l(b - a, 0); d += 'z';
      break;
    }
    case Shape::kCircle: break;
  }
}

}  // namespace

void Canvas::rect(double x, double y, double w, double h, std::string fill, std::string stroke, double sw) {
  Item it;
  it.kind = Item::kRect;
  it.x = x, it.y = y, it.w = w, it.h = h, it.fill = std::move(fill), it.stroke = std::move(stroke), it.stroke_width = sw;
  items_.push_back(std::move(it));
}

void Canvas::line(double x1, double y1, double x2, double y2, std::string stroke, double sw, bool dashed) {
  Item it;
  it.kind = Item::kLine;
  it.x = x1, it.y = y1, it.w = x2, it.h = y2, it.stroke = std::move(stroke), it.stroke_width = sw, it.dashed = dashed;
  items_.push_back(std::move(it));
}

void Canvas::polyline(std::vector<std::pair<double, double>> pts, std::string stroke, double sw) {
  Item it;
  it.kind = Item::kPolyline;
  it.points = std::move(pts), it.stroke = std::move(stroke), it.stroke_width = sw;
  items_.push_back(std::move(it));
}

void Canvas::markers(std::vector<std::pair<double, double>> pts, Shape shape, double radius, std::string fill,
                     double opacity) {
  Item it;
  it.kind = Item::kMarkers;
  it.points = std::move(pts), it.shape = shape, it.size = radius, it.fill = std::move(fill), it.opacity = opacity;
  items_.push_back(std::move(it));
}

void Canvas::text(double x, double y, std::string s, double size, Anchor anchor, bool bold, bool vertical,
                  std::string fill) {
  Item it;
  it.kind = Item::kText;
  it.x = x, it.y = y, it.text = std::move(s), it.font_size = size, it.anchor = anchor, it.bold = bold;
  it.vertical = vertical, it.fill = std::move(fill);
  items_.push_back(std::move(it));
}

std::string Canvas::svg() const {
  std::string s = str_cat("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"",
                          fixed(width_, 0), "\" height=\"", fixed(height_, 0), "\" viewBox=\"0 0 ", fixed(width_, 0), " ",
                          fixed(height_, 0), "\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n");
  for (const Item& it : items_) {
    switch (it.kind) {
      case Item::kRect:
        s += str_cat("<rect x=\"", n1(it.x), "\" y=\"", n1(it.y), "\" width=\"", n1(it.w), "\" height=\"", n1(it.h),
                     "\" fill=\"", it.fill.empty() ? "none" : it.fill, "\"");
        if (!it.stroke.empty()) s += str_cat(" stroke=\"", it.stroke, "\" stroke-width=\"", n1(it.stroke_width), "\"");
        s += "/>\n";
        break;
      case Item::kLine:
        s += str_cat("<line x1=\"", n1(it.x), "\" y1=\"", n1(it.y), "\" x2=\"", n1(it.w), "\" y2=\"", n1(it.h),
                     "\" stroke=\"", it.stroke, "\" stroke-width=\"", n1(it.stroke_width), "\"",
                     it.dashed ? " stroke-dasharray=\"5 4\"" : "", "/>\n");
        break;
      case Item::kPolyline: {
        s += "<polyline fill=\"none\" stroke=\"" + it.stroke + "\" stroke-width=\"" + n1(it.stroke_width) + "\" points=\"";
        for (size_t i = 0; i < it.points.size(); ++i) {
          if (i) s += ' ';
          num(s, it.points[i].first);
          s += ',';
          num(s, it.points[i].second);
        }
        s += "\"/>\n";
        break;
      }
      case Item::kMarkers: {
        if (it.points.empty()) break;
        s += str_cat("<g fill=\"", it.fill, "\"", it.opacity < 1 ? str_cat(" fill-opacity=\"", fixed(it.opacity, 2), "\"") : "",
                     ">");
        if (it.shape == Shape::kCircle) {
          const std::string r = n1(it.size);
          for (const auto& [x, y] : it.points) {
            s += "<circle cx=\"";
            num(s, x);
            s += "\" cy=\"";
            num(s, y);
            s += "\" r=\"";
            s += r;
            s += "\"/>";
          }
        } else {
          std::string d;
          for (const auto& [x, y] : it.points) marker_path(d, it.shape, x, y, it.size);
          s += "<path d=\"" + d + "\"/>";
        }
        s += "</g>\n";
        break;
      }
      case Item::kText: {
        const char* anchor = it.anchor == Anchor::kMiddle ? "middle" : it.anchor == Anchor::kEnd ? "end" : "start";
        s += str_cat("<text x=\"", n1(it.x), "\" y=\"", n1(it.y), "\" font-size=\"", n1(it.font_size), "\"");
        if (it.anchor != Anchor::kStart) s += str_cat(" text-anchor=\"", anchor, "\"");
        if (it.bold) s += " font-weight=\"bold\"";
        if (it.fill != "#000000") s += str_cat(" fill=\"", it.fill, "\"");
        if (it.vertical) s += str_cat(" transform=\"rotate(-90 ", n1(it.x), " ", n1(it.y), ")\"");
        s += str_cat(">", escape_xml(it.text), "</text>\n");
        break;
      }
    }
  }
  s += "</svg>\n";
  return s;
}

Status write_canvas(const Canvas& canvas, const std::string& svg_path, const std::string& png_path) {
  if (!svg_path.empty()) {
    std::ofstream f(svg_path, std::ios::binary);
    f << canvas.svg();
    f.close();
    if (!f) return Status::IOError("cannot write ", svg_path);
  }
  if (!png_path.empty()) STRATA_RETURN_NOT_OK(write_png(canvas, png_path));
  return Status::OK();
}

}  // namespace strata::genomics::plot
