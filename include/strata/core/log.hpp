#pragma once
/// \file
/// Minimal leveled logging to stderr.

#include <string_view>

#include "strata/core/status.hpp"

namespace strata {

enum class LogLevel : int { Debug = 0, Info = 1, Warning = 2, Error = 3, Off = 4 };

void set_log_level(LogLevel level);
LogLevel log_level();
/// \brief Write "strata: <level>: message" to stderr if `level` is enabled (thread-safe).
void log_message(LogLevel level, std::string_view message);

template <class... A> void log_debug(A&&... a) {
  if (log_level() <= LogLevel::Debug) log_message(LogLevel::Debug, str_cat(std::forward<A>(a)...));
}
template <class... A> void log_info(A&&... a) {
  if (log_level() <= LogLevel::Info) log_message(LogLevel::Info, str_cat(std::forward<A>(a)...));
}
template <class... A> void log_warning(A&&... a) {
  if (log_level() <= LogLevel::Warning) log_message(LogLevel::Warning, str_cat(std::forward<A>(a)...));
}

}  // namespace strata
