// RunReport merging and JSON output.
#include "strata/core/report.hpp"

#include <nlohmann/json.hpp>

#include "strata/core/output.hpp"

namespace strata {

void RunReport::add_phase(const std::string& name, double seconds) {
  for (auto& [n, s] : phases) {
    if (n == name) {
      s += seconds;
      return;
    }
  }
  phases.emplace_back(name, seconds);
}

RunReport& RunReport::operator+=(const RunReport& o) {
  passes += o.passes;
  blocks += o.blocks;
  elements_generated += o.elements_generated;
  chunks_read += o.chunks_read;
  bytes_read += o.bytes_read;
  bytes_decoded += o.bytes_decoded;
  threads = std::max(threads, o.threads);
  memory_budget = std::max(memory_budget, o.memory_budget);
  peak_tracked_bytes = std::max(peak_tracked_bytes, o.peak_tracked_bytes);
  peak_rss_bytes = std::max(peak_rss_bytes, o.peak_rss_bytes);
  read_ahead_blocks = std::max(read_ahead_blocks, o.read_ahead_blocks);
  read_ahead_bytes = std::max(read_ahead_bytes, o.read_ahead_bytes);
  wall_seconds += o.wall_seconds;
  if (backend.empty()) backend = o.backend;
  for (const auto& [n, s] : o.phases) add_phase(n, s);
  return *this;
}

std::string RunReport::to_json() const {
  nlohmann::json j;
  j["passes"] = passes;
  j["blocks"] = blocks;
  j["elements_generated"] = elements_generated;
  j["chunks_read"] = chunks_read;
  j["bytes_read"] = bytes_read;
  j["bytes_decoded"] = bytes_decoded;
  j["threads"] = threads;
  j["memory_budget_bytes"] = memory_budget;
  j["peak_tracked_bytes"] = peak_tracked_bytes;
  j["peak_rss_bytes"] = peak_rss_bytes;
  j["wall_seconds"] = wall_seconds;
  if (read_ahead_blocks > 0) j["read_ahead"] = {{"blocks", read_ahead_blocks}, {"bytes", read_ahead_bytes}};
  nlohmann::json ph = nlohmann::json::array();
  for (const auto& [n, s] : phases) ph.push_back({{"name", n}, {"seconds", s}});
  j["phases"] = ph;
  if (!backend.empty()) j["backend"] = backend;
  return j.dump(2);
}

Status RunReport::write_json(const std::string& path) const {
  return write_file_atomically(path, to_json() + "\n");
}

void EvalStats::add_to(RunReport& r) const {
  r.elements_generated += elements_generated.load();
  r.chunks_read += chunks_read.load();
  r.bytes_read += bytes_read.load();
  r.bytes_decoded += bytes_decoded.load();
}

}  // namespace strata
