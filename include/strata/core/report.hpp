#pragma once
/// \file
/// RunReport: what a computation did — passes, blocks, elements generated, chunks and bytes
/// read/decoded, time per phase, peak memory, backend and threads — writable as JSON
/// (`--report run.json`). Every Context carries one (Context::report()); algorithms add to it.

#include <atomic>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "strata/core/status.hpp"

namespace strata {

/// \brief Counters of one run (one or more passes). Plain data; merge with `+=`.
///
/// \code
/// Context ctx;
/// STRATA_ASSIGN_OR_RETURN(auto r, compute(ctx, sum(x)));
/// STRATA_RETURN_NOT_OK(ctx.report().write_json("run.json"));
/// \endcode
struct RunReport {
  int64_t passes = 0;              ///< passes over blocks (including nested reductions)
  int64_t blocks = 0;              ///< blocks processed
  int64_t elements_generated = 0;  ///< random elements produced
  int64_t chunks_read = 0;         ///< stored chunks decoded (Zarr, persisted)
  int64_t bytes_read = 0;          ///< stored (encoded) bytes consumed
  int64_t bytes_decoded = 0;       ///< decoded chunk bytes
  int64_t threads = 0;             ///< worker threads of the pool used
  int64_t memory_budget = 0;       ///< bytes allowed for blocks in flight
  int64_t peak_tracked_bytes = 0;  ///< high-water mark of tracked allocations during the run
  int64_t peak_rss_bytes = 0;      ///< process peak resident set size at the end
  int64_t read_ahead_blocks = 0;   ///< largest read-ahead window of a pass (blocks; 0 = none)
  int64_t read_ahead_bytes = 0;    ///< and the bytes it reserved from the budget
  double wall_seconds = 0.0;
  std::string backend;             ///< "cpu" (later "cuda")
  /// (phase name, seconds), in the order phases ran; repeated names are summed.
  std::vector<std::pair<std::string, double>> phases;

  /// \brief Add `seconds` to phase `name`.
  void add_phase(const std::string& name, double seconds);
  /// \brief Merge counters of another report (phases summed by name, peaks maxed).
  RunReport& operator+=(const RunReport& other);
  /// \brief The report as a JSON object (text).
  std::string to_json() const;
  /// \brief Write to_json() to `path` (atomically: temporary name, then rename).
  Status write_json(const std::string& path) const;
};

/// \brief Thread-safe counters the kernels bump while a pass runs; folded into a RunReport.
struct EvalStats {
  std::atomic<int64_t> elements_generated{0};
  std::atomic<int64_t> chunks_read{0};
  std::atomic<int64_t> bytes_read{0};
  std::atomic<int64_t> bytes_decoded{0};
  void add_to(RunReport& report) const;
};

}  // namespace strata
