#include "terminal_progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace strata::cli {

std::shared_ptr<ProgressSink> make_terminal_progress(bool quiet) {
  if (quiet || !isatty(STDERR_FILENO)) return nullptr;
  return std::make_shared<TerminalProgress>();
}

void TerminalProgress::begin(std::string_view label, int64_t total, std::string_view unit) {
  label_ = label;
  unit_ = unit;
  start_ = std::chrono::steady_clock::now();
  draw(0, total, false);
}

void TerminalProgress::update(int64_t done, int64_t total) { draw(done, total, false); }

void TerminalProgress::end(int64_t done, int64_t total) { draw(done, total, true); }

// Rates print in the unit's own terms ("1.2M variants/s"); counts above a million shorten.
static std::string short_count(double v) {
  char buf[32];
  if (v >= 1e9) {
    std::snprintf(buf, sizeof buf, "%.1fG", v / 1e9);
  } else if (v >= 1e6) {
    std::snprintf(buf, sizeof buf, "%.1fM", v / 1e6);
  } else if (v >= 1e4) {
    std::snprintf(buf, sizeof buf, "%.1fk", v / 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  }
  return buf;
}

void TerminalProgress::draw(int64_t done, int64_t total, bool final_draw) {
  if (final_draw && done < total && done > 0) total = done;  // stopped early (tolerance met)
  const int64_t shown = total > 0 ? std::min(done, total) : done;
  const double frac = total > 0 ? static_cast<double>(shown) / static_cast<double>(total) : (final_draw ? 1.0 : 0.0);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  constexpr int kWidth = 30;
  const int filled = static_cast<int>(frac * kWidth);
  char bar[kWidth + 1];
  for (int i = 0; i < kWidth; ++i) bar[i] = i < filled ? '#' : '-';
  bar[kWidth] = 0;
  std::fprintf(stderr, "\r%s [%s] %5.1f%%  %.1fs", label_.c_str(), bar, frac * 100, secs);
  if (secs > 0 && shown > 0) std::fprintf(stderr, "  %s %s/s", short_count(shown / secs).c_str(), unit_.c_str());
  const double eta = frac > 0 && frac < 1 ? secs / frac * (1 - frac) : 0;
  if (!final_draw && eta > 0) std::fprintf(stderr, "  eta %.0fs", eta);
  std::fprintf(stderr, final_draw ? "\n" : "   ");
  std::fflush(stderr);
}

}  // namespace strata::cli
