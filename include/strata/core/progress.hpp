#pragma once
/// \file
/// A progress bar that draws on a terminal and stays silent otherwise.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

namespace strata {

/// \brief Thread-safe progress bar on stderr. Draws only when stderr is a terminal and
/// progress is not globally disabled (`--quiet`, or `set_progress_enabled(false)`).
class ProgressBar {
 public:
  ProgressBar(std::string label, int64_t total);
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  /// \brief Add `n` units of work done; redraws at most ~10 times a second.
  void advance(int64_t n = 1);
  /// \brief Draw the final state and end the line (idempotent; also done by the destructor).
  void finish();
  int64_t done() const { return done_.load(); }
  bool drawing() const { return enabled_; }

 private:
  void draw(bool final_draw);
  std::string label_;
  int64_t total_;
  std::atomic<int64_t> done_{0};
  bool enabled_;
  bool finished_ = false;
  std::mutex mu_;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

/// \brief Globally enable/disable progress bars (the CLI's --quiet).
void set_progress_enabled(bool enabled);
bool progress_enabled();

}  // namespace strata
