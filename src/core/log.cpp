#include "strata/core/log.hpp"

#include <atomic>
#include <cstdio>
#include <mutex>

namespace strata {
namespace {
std::atomic<int> g_level{static_cast<int>(LogLevel::Warning)};
std::mutex g_log_mu;
}  // namespace

void set_log_level(LogLevel level) { g_level.store(static_cast<int>(level)); }
LogLevel log_level() { return static_cast<LogLevel>(g_level.load()); }

void log_message(LogLevel level, std::string_view message) {
  if (static_cast<int>(level) < g_level.load()) return;
  const char* name = "info";
  switch (level) {
    case LogLevel::Debug: name = "debug"; break;
    case LogLevel::Info: name = "info"; break;
    case LogLevel::Warning: name = "warning"; break;
    case LogLevel::Error: name = "error"; break;
    case LogLevel::Off: return;
  }
  std::lock_guard<std::mutex> lk(g_log_mu);
  std::fprintf(stderr, "strata: %s: %.*s\n", name, static_cast<int>(message.size()), message.data());
}

}  // namespace strata
