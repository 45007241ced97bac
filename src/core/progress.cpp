#include "strata/core/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace strata {
namespace {
std::atomic<bool> g_progress_enabled{true};
}

void set_progress_enabled(bool enabled) { g_progress_enabled.store(enabled); }
bool progress_enabled() { return g_progress_enabled.load(); }

ProgressBar::ProgressBar(std::string label, int64_t total)
    : label_(std::move(label)),
      total_(std::max<int64_t>(total, 0)),
      enabled_(progress_enabled() && isatty(STDERR_FILENO)),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

ProgressBar::~ProgressBar() { finish(); }

void ProgressBar::advance(int64_t n) {
  done_.fetch_add(n, std::memory_order_relaxed);
  if (!enabled_) return;
  auto now = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lk(mu_, std::try_to_lock);
  if (!lk.owns_lock() || finished_) return;
  if (now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  draw(false);
}

void ProgressBar::finish() {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lk(mu_);
  if (finished_) return;
  draw(true);
  finished_ = true;
}

void ProgressBar::draw(bool final_draw) {
  int64_t done = std::min(done_.load(), total_ ? total_ : done_.load());
  double frac = total_ > 0 ? static_cast<double>(done) / static_cast<double>(total_) : 1.0;
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  constexpr int kWidth = 30;
  int filled = static_cast<int>(frac * kWidth);
  char bar[kWidth + 1];
  for (int i = 0; i < kWidth; ++i) bar[i] = i < filled ? '#' : '-';
  bar[kWidth] = 0;
  double eta = frac > 0 && frac < 1 ? secs / frac * (1 - frac) : 0;
  std::fprintf(stderr, "\r%s [%s] %5.1f%% %lld/%lld  %.1fs", label_.c_str(), bar, frac * 100,
               static_cast<long long>(done), static_cast<long long>(total_), secs);
  if (!final_draw && eta > 0) std::fprintf(stderr, " (eta %.0fs)", eta);
  std::fprintf(stderr, final_draw ? "\n" : "   ");
  std::fflush(stderr);
}

}  // namespace strata
