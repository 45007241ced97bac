#pragma once
// The CLI's progress bar: a ProgressSink that draws one line on stderr (only on a terminal)
// with the phase, the fraction done, the time so far and the time left; the finished line
// replaces the bar with "done in X s".

#include <chrono>
#include <memory>
#include <string>

#include "strata/core/context.hpp"

namespace strata::cli {

class TerminalProgress final : public ProgressSink {
 public:
  /// Draws on `out` (stderr for the CLI; a memory stream in tests).
  explicit TerminalProgress(std::FILE* out = stderr) : out_(out) {}
  void begin(std::string_view label, int64_t total, std::string_view unit) override;
  void update(int64_t done, int64_t total) override;
  void end(int64_t done, int64_t total) override;
  void phase(std::string_view name) override;

  /// The line for `done` of `total` after `seconds` (no carriage return): what draw() prints.
  std::string render(int64_t done, int64_t total, double seconds, bool final_draw) const;

 private:
  void draw(int64_t done, int64_t total, bool final_draw);
  std::FILE* out_;
  std::string label_, unit_, phase_;
  std::chrono::steady_clock::time_point start_;
};

/// A TerminalProgress when stderr is a terminal and `quiet` is off; null otherwise.
std::shared_ptr<ProgressSink> make_terminal_progress(bool quiet);

}  // namespace strata::cli
