#pragma once
/// \file
/// Minimal leveled logging to stderr; a LogCapture also receives every message (at any
/// level from Info up, whatever the terminal's level): a Job's PREFIX.log gets its warnings.

#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "strata/core/status.hpp"

namespace strata {

enum class LogLevel : int { Debug = 0, Info = 1, Warning = 2, Error = 3, Off = 4 };

void set_log_level(LogLevel level);
LogLevel log_level();
/// \brief Whether a message at `level` goes anywhere (stderr or an open LogCapture).
bool log_wanted(LogLevel level);
/// \brief Write "strata: <level>: message" to stderr if `level` is enabled, and "<level>:
/// message" to every open LogCapture when `level` is Info or above (thread-safe).
void log_message(LogLevel level, std::string_view message);

template <class... A> void log_debug(A&&... a) {
  if (log_wanted(LogLevel::Debug)) log_message(LogLevel::Debug, str_cat(std::forward<A>(a)...));
}
template <class... A> void log_info(A&&... a) {
  if (log_wanted(LogLevel::Info)) log_message(LogLevel::Info, str_cat(std::forward<A>(a)...));
}
template <class... A> void log_warning(A&&... a) {
  if (log_wanted(LogLevel::Warning)) log_message(LogLevel::Warning, str_cat(std::forward<A>(a)...));
}

/// \brief Collects the messages logged while it is alive (from any thread), one line each
/// ("warning: ..."), for a run's log file. Captures nest; each gets every message.
class LogCapture {
 public:
  LogCapture();
  ~LogCapture();
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;
  /// \brief The lines captured so far.
  std::vector<std::string> lines() const;
  void add(std::string line);

 private:
  mutable std::mutex mu_;
  std::vector<std::string> lines_;
};

}  // namespace strata
