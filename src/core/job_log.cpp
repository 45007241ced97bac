// PREFIX.log: the text a Job writes beside its outputs (strata/core/job.hpp), and the logs of
// failed runs.
#include <fcntl.h>
#include <unistd.h>

#include <sys/stat.h>

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <vector>

#include "strata/core/config.hpp"
#include "strata/core/context.hpp"
#include "strata/core/job.hpp"
#include "strata/core/log.hpp"
#include "strata/core/output.hpp"
#include "strata/core/report.hpp"

namespace strata {

std::string utc_now_text() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buf;
}

namespace {

// The log of a Job that ended without committing, waiting for the error (write_failed_job_logs).
struct FailedLog {
  std::string path, text;
  std::vector<std::string> inputs;
};
std::mutex g_failed_mu;
std::vector<FailedLog> g_failed;  // the latest few (a library user may never ask for them)
constexpr size_t kMaxFailedLogs = 8;

std::string gib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  return buf;
}

// A field's value in a line: text as it is, the rest as compact JSON, long values cut.
std::string field_text(const Summary::Value& v) {
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  Summary one;
  one.set("v", v);
  std::string json = one.to_json();  // {"v":...}
  json = json.substr(5, json.size() - 6);
  constexpr size_t kMax = 400;
  if (json.size() > kMax) json = json.substr(0, kMax) + " ...";
  return json;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() > tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

std::string log_path_for(const std::string& prefix) {
  if (prefix.empty()) return "";
  std::string p = prefix;
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  for (const char* ext : {".vcf.gz", ".zarr", ".vcz", ".bed", ".pgen", ".vcf", ".bcf", ".npy"}) {
    if (ends_with(p, ext)) {
      p.resize(p.size() - std::string(ext).size());
      break;
    }
  }
  return p + ".log";
}

std::vector<std::string> stale_plots(const std::string& log_path, const std::string& command,
                                     const std::vector<std::string>& written) {
  namespace fs = std::filesystem;
  std::vector<std::string> stale;
  struct stat st;
  if (log_path.empty() || ::lstat(log_path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return stale;
  std::ifstream in(log_path, std::ios::binary);
  std::string line;
  // Only a log of the same command: another command sharing the prefix keeps its plots.
  if (!std::getline(in, line) || line.rfind("strata ", 0) != 0 || !ends_with(line, " " + command)) return stale;
  const fs::path dir = fs::path(log_path).parent_path();
  const std::string stem = fs::path(log_path).filename().string();
  const std::string base = stem.substr(0, stem.size() - 4) + ".";  // "P." of "P.log"
  std::vector<std::string> names;
  for (const std::string& w : written) names.push_back(fs::path(w).filename().string());
  bool listing = false;
  for (int lines = 0; std::getline(in, line) && lines < 100000; ++lines) {
    if (!listing) {
      listing = line == "Written:";
      continue;
    }
    if (line.rfind("  ", 0) != 0) break;
    const std::string name = fs::path(line.substr(2)).filename().string();
    if (name.rfind(base, 0) != 0 || !(ends_with(name, ".svg") || ends_with(name, ".png"))) continue;
    bool again = false;
    for (const std::string& n : names) again = again || n == name;
    const fs::path at = dir / name;
    if (!again && ::lstat(at.c_str(), &st) == 0 && S_ISREG(st.st_mode)) stale.push_back(at.string());
  }
  return stale;
}

std::string Job::log_head() const {
  std::string t = "strata " STRATA_VERSION_STRING " " + command_ + "\n";
  if (!ctx_->command_line().empty()) t += "Command line: " + ctx_->command_line() + "\n";
  t += "Start: " + started_at_ + "\n";
  std::string machine;
  char host[256] = {0};
  if (::gethostname(host, sizeof host - 1) == 0 && host[0]) machine += std::string(host) + "; ";
  if (!ctx_->machine().empty()) machine += ctx_->machine() + "; ";
  machine += std::to_string(ctx_->threads()) + " threads; memory budget " +
             gib(static_cast<double>(ctx_->memory_budget()));
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) machine += "; " + gib(static_cast<double>(pages) * static_cast<double>(page)) + " RAM";
  if (ctx_->communicator().size() > 1) machine += "; " + std::to_string(ctx_->communicator().size()) + " MPI ranks";
  t += "Machine: " + machine + "\n";
  if (!input_.empty()) t += "Input: " + input_ + "\n";
  t += "Output prefix: " + prefix_ + "\n";
  return t;
}

std::string Job::log_warnings(size_t from) const {
  std::string t;
  if (!capture_) return t;
  const std::vector<std::string> lines = capture_->lines();
  for (size_t i = from; i < lines.size(); ++i) t += lines[i] + "\n";
  return t;
}

std::string Job::log_tail() const {
  std::string t;
  bool first = true;
  for (const auto& [key, value] : summary_.fields()) {
    if (key == "command" || key == "input" || key == "output_prefix" || key == "files" || key == "wall_seconds")
      continue;
    if (first) t += "Results:\n";
    first = false;
    t += "  " + key + ": " + field_text(value) + "\n";
  }
  const RunReport run = ctx_->report().snapshot();
  if (!run.phases.empty()) {
    t += "Phases:";
    char buf[64];
    for (const auto& [name, secs] : run.phases) {
      std::snprintf(buf, sizeof buf, " %.3f s", secs);
      t += " " + name + buf + ";";
    }
    t.back() = '\n';
  }
  char peak[64];
  std::snprintf(peak, sizeof peak, "Peak memory: %.1f MiB resident\n",
                static_cast<double>(run.peak_rss_bytes) / (1024.0 * 1024.0));
  t += peak;
  t += "End: " + utc_now_text() + "\n";
  char wall[64];
  std::snprintf(wall, sizeof wall, "Wall time: %.3f s\n", seconds_since(start_));
  return t + wall;
}

Job::~Job() {
  if (!writer_ || log_path_.empty()) return;
  if (committed_) {
    // Append the counts set after the commit; a failure here loses only the log's last lines.
    const std::string tail = log_warnings(warnings_written_) + log_tail();
    const int fd = ::open(log_path_.c_str(), O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return;
    const ssize_t n = ::write(fd, tail.data(), tail.size());
    (void)n;
    ::close(fd);
    return;
  }
  if (declare_failed_) return;
  FailedLog f{log_path_, log_head() + log_warnings(0), protected_};
  if (f.inputs.empty() && !input_.empty()) f.inputs = input_paths(input_);
  const RunReport run = ctx_->report().snapshot();
  for (const auto& [name, secs] : run.phases) {
    char buf[64];
    std::snprintf(buf, sizeof buf, " %.3f s\n", secs);
    f.text += "Phase " + name + buf;
  }
  std::lock_guard<std::mutex> lk(g_failed_mu);
  if (g_failed.size() == kMaxFailedLogs) g_failed.erase(g_failed.begin());
  g_failed.push_back(std::move(f));
}

Status write_failed_job_logs(const Status& error) {
  std::vector<FailedLog> logs;
  {
    std::lock_guard<std::mutex> lk(g_failed_mu);
    logs.swap(g_failed);
  }
  Status first;
  for (FailedLog& f : logs) {
    f.text += "Error: " + error.message() + "\n";
    f.text += "End: " + utc_now_text() + " (failed; no output was written)\n";
    OutputRules rules;
    rules.inputs = f.inputs;
    const Status st = write_file_atomically(f.path, f.text, rules);
    if (first.ok() && !st.ok()) first = st;
  }
  return first;
}

}  // namespace strata
