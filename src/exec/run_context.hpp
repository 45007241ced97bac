#pragma once
// State of one top-level run (compute, persist, to_zarr, for_each_block, reduce_blocks):
// counters, the reductions evaluated for it, timing, and the report it fills.

#include <chrono>
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
  explicit RunContext(const ExecOptions& options);
  /// Evaluate every reduction inside the graphs of `roots` (inner ones first).
  Status prepare(const std::vector<Array>& roots);
  Status prepare_node(const Node* root);
  EvalContext eval_context();
  /// Options for a pass of this run (label set, report handled by the run).
  ExecOptions pass_options(const std::string& label) const;
  void finish_pass(const std::string& label, int64_t blocks, std::chrono::steady_clock::time_point t0);
  /// Fold counters, wall time and peaks into options.report (if any).
  void finish();
  const HostArray* materialized(const Node* n) const;

 private:
  Status evaluate_reduce(const ReduceNode& r);
  ExecOptions options_;
  EvalStats stats_;
  std::unordered_map<const Node*, HostArray> materialized_;
  RunReport local_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace strata::detail
