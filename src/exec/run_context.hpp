#pragma once
// State of one top-level run (compute, persist, to_zarr, for_each_block, reduce_blocks):
// counters, the reductions evaluated for it, timing, and the report it fills.

#include <chrono>
#include <functional>
#include <unordered_map>
#include <vector>

#include "array/node.hpp"
#include "array/reduction.hpp"
#include "strata/exec/pass.hpp"

namespace strata::detail {

/// The block grid of a pass over aligned arrays.
struct PassGrid {
  ChunkGrid grid;
  static Result<PassGrid> make(const std::vector<Array>& arrays, Shape block_shape);
  BlockInfo info(int64_t i) const;
  /// Memory one block of the pass holds: the dense blocks plus the nodes' working bytes.
  int64_t block_bytes(const std::vector<Array>& arrays) const;
};

class RunContext {
 public:
  RunContext(const Context& ctx, const PassOptions& options);
  /// Evaluate every reduction inside the graphs of `roots` (inner ones first).
  Status prepare(const std::vector<Array>& roots);
  Status prepare_node(const Node* root);
  EvalContext eval_context();
  /// Options for a pass of this run (label set).
  PassOptions pass_options(const std::string& label) const;
  /// A pass of `blocks` blocks is about to run (grows the run's progress total).
  void start_pass(int64_t blocks) { progress_.add_total(blocks); }
  void finish_pass(const std::string& label, std::chrono::steady_clock::time_point t0);
  /// One timed pass: run_blocks(work, commit) over `blocks` blocks on the run's context, its
  /// wall time recorded as phase o.label.
  Status run_pass(int64_t blocks, int64_t bytes_per_block, const std::function<Status(int64_t)>& work,
                  const std::function<Status(int64_t)>& commit, const PassOptions& o);
  /// Block `info` of `n` read densely into a new buffer of `itemsize`-byte elements.
  Result<Buffer> read_block(const Node& n, const BlockInfo& info, int64_t itemsize);
  /// Fold counters and wall time into the context's report.
  void finish();
  const HostArray* materialized(const Node* n) const;

 private:
  Status evaluate_reduce(const ReduceNode& r);
  const Context& ctx_;
  PassOptions options_;
  ProgressScope progress_;
  EvalStats stats_;
  std::unordered_map<const Node*, HostArray> materialized_;
  RunReport local_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace strata::detail
