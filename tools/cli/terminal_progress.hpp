#pragma once
// The CLI's progress bar: a ProgressSink that draws one line on stderr (only on a terminal)
// with the fraction done, the rate and the time left.

#include <chrono>
#include <memory>
#include <string>

#include "strata/core/context.hpp"

namespace strata::cli {

class TerminalProgress final : public ProgressSink {
 public:
  void begin(std::string_view label, int64_t total, std::string_view unit) override;
  void update(int64_t done, int64_t total) override;
  void end(int64_t done, int64_t total) override;

 private:
  void draw(int64_t done, int64_t total, bool final_draw);
  std::string label_, unit_;
  std::chrono::steady_clock::time_point start_;
};

/// A TerminalProgress when stderr is a terminal and `quiet` is off; null otherwise.
std::shared_ptr<ProgressSink> make_terminal_progress(bool quiet);

}  // namespace strata::cli
