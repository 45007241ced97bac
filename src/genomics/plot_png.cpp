// PNG output of a Canvas through cairo. libcairo is opened with dlopen at the first PNG (as
// libcurl is): only its header is needed to build, strata starts without it, and a machine
// without libcairo2 still writes every SVG; a PNG there is refused with a message that says why.
#include <dlfcn.h>

#include <cmath>
#include <mutex>

#include "plot_internal.hpp"

#if STRATA_HAVE_CAIRO
#include <cairo.h>
#endif

namespace strata::genomics {

#if STRATA_HAVE_CAIRO
namespace {

struct Cairo {
#define STRATA_CAIRO_FNS(X)                                                                                        \
  X(cairo_image_surface_create) X(cairo_create) X(cairo_destroy) X(cairo_surface_destroy) X(cairo_status)          \
  X(cairo_surface_write_to_png) X(cairo_scale) X(cairo_set_source_rgba) X(cairo_rectangle) X(cairo_fill)           \
  X(cairo_fill_preserve) X(cairo_stroke) X(cairo_set_line_width) X(cairo_move_to) X(cairo_line_to) X(cairo_arc)    \
  X(cairo_close_path) X(cairo_new_path) X(cairo_select_font_face) X(cairo_set_font_size) X(cairo_text_extents)     \
  X(cairo_show_text) X(cairo_save) X(cairo_restore) X(cairo_translate) X(cairo_rotate) X(cairo_set_dash)           \
  X(cairo_new_sub_path) X(cairo_paint) X(cairo_set_antialias)
#define STRATA_CAIRO_MEMBER(f) decltype(&::f) f = nullptr;
  STRATA_CAIRO_FNS(STRATA_CAIRO_MEMBER)
  std::string error;
};

const Cairo& cairo() {
  static Cairo c;
  static std::once_flag once;
  std::call_once(once, [] {
    void* lib = nullptr;
    for (const char* name : {"libcairo.so.2", "libcairo.so"})
      if ((lib = dlopen(name, RTLD_NOW | RTLD_LOCAL)) != nullptr) break;
    if (!lib) {
      c.error = "libcairo (libcairo.so.2) was not found: install the libcairo2 package for PNG plots";
      return;
    }
#define STRATA_CAIRO_LOAD(f)                                                   \
  c.f = reinterpret_cast<decltype(&::f)>(dlsym(lib, #f));                      \
  if (!c.f && c.error.empty()) c.error = "libcairo has no symbol " #f;
    STRATA_CAIRO_FNS(STRATA_CAIRO_LOAD)
  });
  return c;
}

void set_colour(const Cairo& k, cairo_t* cr, const std::string& hex, double alpha) {
  unsigned v = 0;
  for (size_t i = 1; i < hex.size() && i <= 6; ++i) {
    const char ch = hex[i];
    v = v * 16 + static_cast<unsigned>(ch >= 'a' ? ch - 'a' + 10 : ch >= 'A' ? ch - 'A' + 10 : ch - '0');
  }
  k.cairo_set_source_rgba(cr, ((v >> 16) & 255) / 255.0, ((v >> 8) & 255) / 255.0, (v & 255) / 255.0, alpha);
}

void marker(const Cairo& k, cairo_t* cr, plot::Shape shape, double x, double y, double r) {
  using plot::Shape;
  auto poly = [&](std::initializer_list<std::pair<double, double>> rel) {
    double cx = x, cy = y;
    bool first = true;
    for (auto [dx, dy] : rel) {
      cx += dx, cy += dy;
      if (first) {
        k.cairo_move_to(cr, cx, cy);
        first = false;
      } else {
        k.cairo_line_to(cr, cx, cy);
      }
    }
    k.cairo_close_path(cr);
  };
  // The same outlines as the SVG paths (plot_canvas.cpp).
  switch (shape) {
    case Shape::kCircle:
      k.cairo_new_sub_path(cr);
      k.cairo_arc(cr, x, y, r, 0, 2 * M_PI);
      break;
    case Shape::kSquare: poly({{-0.85 * r, -0.85 * r}, {1.7 * r, 0}, {0, 1.7 * r}, {-1.7 * r, 0}}); break;
    case Shape::kTriangle: poly({{0, -1.15 * r}, {r, 1.75 * r}, {-2 * r, 0}}); break;
    case Shape::kTriangleDown: poly({{0, 1.15 * r}, {r, -1.75 * r}, {-2 * r, 0}}); break;
    case Shape::kDiamond: poly({{0, -1.2 * r}, {1.2 * r, 1.2 * r}, {-1.2 * r, 1.2 * r}, {-1.2 * r, -1.2 * r}}); break;
    case Shape::kCross: {
      const double a = 0.35 * r, b = r;
      poly({{-a, -b}, {2 * a, 0}, {0, b - a}, {b - a, 0}, {0, 2 * a}, {a - b, 0}, {0, b - a}, {-2 * a, 0}, {0, a - b},
            {a - b, 0}, {0, -2 * a}, {b - a, 0}});
      break;
    }
  }
}

}  // namespace

bool png_supported() { return cairo().error.empty(); }

namespace plot {

std::string png_missing_reason() { return cairo().error; }

Status write_png(const Canvas& canvas, const std::string& path, double scale) {
  const Cairo& k = cairo();
  if (!k.error.empty()) return Status::Unsupported("PNG plot ", path, ": ", k.error);
  const int w = static_cast<int>(std::ceil(canvas.width() * scale)), h = static_cast<int>(std::ceil(canvas.height() * scale));
  cairo_surface_t* surface = k.cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
  cairo_t* cr = k.cairo_create(surface);
  k.cairo_scale(cr, scale, scale);
  k.cairo_set_source_rgba(cr, 1, 1, 1, 1);
  k.cairo_paint(cr);
  for (const Item& it : canvas.items()) {
    switch (it.kind) {
      case Item::kRect:
        k.cairo_rectangle(cr, it.x, it.y, it.w, it.h);
        if (!it.fill.empty()) {
          set_colour(k, cr, it.fill, 1);
          k.cairo_fill_preserve(cr);
        }
        if (!it.stroke.empty()) {
          set_colour(k, cr, it.stroke, 1);
          k.cairo_set_line_width(cr, it.stroke_width);
          k.cairo_stroke(cr);
        }
        k.cairo_new_path(cr);
        break;
      case Item::kLine:
      case Item::kPolyline: {
        set_colour(k, cr, it.stroke, 1);
        k.cairo_set_line_width(cr, it.stroke_width);
        const double dash[] = {5, 4};
        k.cairo_set_dash(cr, dash, it.dashed ? 2 : 0, 0);
        if (it.kind == Item::kLine) {
          k.cairo_move_to(cr, it.x, it.y);
          k.cairo_line_to(cr, it.w, it.h);
        } else {
          for (size_t i = 0; i < it.points.size(); ++i)
            (i ? k.cairo_line_to : k.cairo_move_to)(cr, it.points[i].first, it.points[i].second);
        }
        k.cairo_stroke(cr);
        k.cairo_set_dash(cr, dash, 0, 0);
        break;
      }
      case Item::kMarkers:
        set_colour(k, cr, it.fill, it.opacity);
        // One fill per marker: overlapping markers of a group blend as the SVG's do.
        for (const auto& [x, y] : it.points) {
          marker(k, cr, it.shape, x, y, it.size);
          k.cairo_fill(cr);
        }
        break;
      case Item::kText: {
        k.cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
                                 it.bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
        k.cairo_set_font_size(cr, it.font_size);
        cairo_text_extents_t e;
        k.cairo_text_extents(cr, it.text.c_str(), &e);
        const double shift = it.anchor == Anchor::kMiddle ? e.x_advance / 2 : it.anchor == Anchor::kEnd ? e.x_advance : 0;
        k.cairo_save(cr);
        k.cairo_translate(cr, it.x, it.y);
        if (it.vertical) k.cairo_rotate(cr, -M_PI / 2);
        set_colour(k, cr, it.fill, 1);
        k.cairo_move_to(cr, -shift, 0);
        k.cairo_show_text(cr, it.text.c_str());
        k.cairo_restore(cr);
        k.cairo_new_path(cr);
        break;
      }
    }
  }
  const cairo_status_t drawn = k.cairo_status(cr);
  const cairo_status_t written = drawn == CAIRO_STATUS_SUCCESS ? k.cairo_surface_write_to_png(surface, path.c_str()) : drawn;
  k.cairo_destroy(cr);
  k.cairo_surface_destroy(surface);
  if (written != CAIRO_STATUS_SUCCESS) return Status::IOError("cannot write the PNG plot ", path, " (cairo status ", static_cast<int>(written), ")");
  return Status::OK();
}

}  // namespace plot

#else  // built without cairo's header

bool png_supported() { return false; }

namespace plot {
std::string png_missing_reason() { return "this strata was built without cairo (install libcairo2-dev and rebuild)"; }
Status write_png(const Canvas&, const std::string& path, double) {
  return Status::Unsupported("PNG plot ", path, ": this strata was built without cairo (install libcairo2-dev and rebuild); SVG plots work");
}
}  // namespace plot

#endif

}  // namespace strata::genomics
