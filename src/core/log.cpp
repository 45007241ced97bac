#include "strata/core/log.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <mutex>
#include <vector>

namespace strata {
namespace {
std::atomic<int> g_level{static_cast<int>(LogLevel::Warning)};
std::mutex g_log_mu;
std::atomic<int> g_captures{0};
std::vector<LogCapture*> g_capture_list;  // guarded by g_log_mu
}  // namespace

bool log_wanted(LogLevel level) {
  return static_cast<int>(level) >= g_level.load() || (level >= LogLevel::Info && g_captures.load() > 0);
}

LogCapture::LogCapture() {
  std::lock_guard<std::mutex> lk(g_log_mu);
  g_capture_list.push_back(this);
  g_captures.fetch_add(1);
}

LogCapture::~LogCapture() {
  std::lock_guard<std::mutex> lk(g_log_mu);
  g_capture_list.erase(std::remove(g_capture_list.begin(), g_capture_list.end(), this), g_capture_list.end());
  g_captures.fetch_sub(1);
}

std::vector<std::string> LogCapture::lines() const {
  std::lock_guard<std::mutex> lk(mu_);
  return lines_;
}

void LogCapture::add(std::string line) {
  std::lock_guard<std::mutex> lk(mu_);
  lines_.push_back(std::move(line));
}

void set_log_level(LogLevel level) { g_level.store(static_cast<int>(level)); }
LogLevel log_level() { return static_cast<LogLevel>(g_level.load()); }

void log_message(LogLevel level, std::string_view message) {
  if (!log_wanted(level)) return;
  const char* name = "info";
  switch (level) {
    case LogLevel::Debug: name = "debug"; break;
    case LogLevel::Info: name = "info"; break;
    case LogLevel::Warning: name = "warning"; break;
    case LogLevel::Error: name = "error"; break;
    case LogLevel::Off: return;
  }
  std::lock_guard<std::mutex> lk(g_log_mu);
  if (level >= LogLevel::Info)
    for (LogCapture* c : g_capture_list) c->add(std::string(name) + ": " + std::string(message));
  if (static_cast<int>(level) < g_level.load()) return;
  std::fprintf(stderr, "strata: %s: %.*s\n", name, static_cast<int>(message.size()), message.data());
}

}  // namespace strata
