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
  phase_.clear();
  start_ = std::chrono::steady_clock::now();
  draw(0, total, false);
}

void TerminalProgress::update(int64_t done, int64_t total) { draw(done, total, false); }

void TerminalProgress::end(int64_t done, int64_t total) { draw(done, total, true); }

void TerminalProgress::phase(std::string_view name) { phase_ = name == label_ ? std::string() : std::string(name); }

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

std::string TerminalProgress::render(int64_t done, int64_t total, double secs, bool final_draw) const {
  char buf[160];
  if (final_draw) {
    std::snprintf(buf, sizeof buf, "%s: done in %.1fs", label_.c_str(), secs);
    return buf;
  }
  const int64_t shown = total > 0 ? std::min(done, total) : done;
  const double frac = total > 0 ? static_cast<double>(shown) / static_cast<double>(total) : 0.0;
  constexpr int kWidth = 30;
  const int filled = static_cast<int>(frac * kWidth);
  std::string line = label_;
  if (!phase_.empty()) line += " (" + phase_ + ")";
  line += " [" + std::string(static_cast<size_t>(filled), '#') + std::string(static_cast<size_t>(kWidth - filled), '-') + "]";
  std::snprintf(buf, sizeof buf, " %5.1f%%  %.1fs", frac * 100, secs);
  line += buf;
  // A rate only where the units are things a person counts (weighted work units are not).
  if (secs > 0 && shown > 0 && !unit_.empty() && unit_ != "work")
    line += "  " + short_count(static_cast<double>(shown) / secs) + " " + unit_ + "/s";
  if (frac > 0 && frac < 1) {
    const double eta = secs / frac * (1 - frac);
    std::snprintf(buf, sizeof buf, eta < 10 ? "  eta %.1fs" : "  eta %.0fs", eta);
    line += buf;
  }
  return line;
}

void TerminalProgress::draw(int64_t done, int64_t total, bool final_draw) {
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  // "\r" then the line, then erase what a longer earlier line left ("\033[K").
  std::fprintf(out_, "\r%s\033[K%s", render(done, total, secs, final_draw).c_str(), final_draw ? "\n" : "");
  std::fflush(out_);
}

}  // namespace strata::cli
