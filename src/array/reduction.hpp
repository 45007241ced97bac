#pragma once
// Reductions. A ReduceNode's values are produced by the executor (strata/exec) before the pass
// that reads them: one pass over the input's blocks computes a per-block partial state (the
// block's share of the output positions) which is merged into the full state in block order,
// then finalized into the output dtype. The node itself only reads the materialized result.

#include <vector>

#include "array/node.hpp"

namespace strata::detail {

enum class ReduceOp { Sum, Mean, Var, Std, Min, Max, CountNonzero };

/// Accumulator layout per output element, by op and input type:
///   Sum/Mean of floats: double sum; Sum of signed/bool: int64; of unsigned: uint64;
///   Var/Std: (count, mean, M2) doubles; Min/Max: the input type; CountNonzero: int64.
class ReduceNode final : public Node {
 public:
  ReduceNode(NodePtr input, ReduceOp op, std::vector<bool> reduced, bool keepdims, int64_t ddof, DType out);
  std::vector<const Node*> inputs() const override { return {input_.get()}; }
  Status read_box(const Box& box, void* out, EvalContext& ctx) const override;
  bool tileable() const override { return true; }
  std::string label() const override;

  const NodePtr& input() const { return input_; }
  ReduceOp op() const { return op_; }
  /// Output positions (reduced axes dropped, even with keepdims) = state elements.
  int64_t state_elems() const { return state_numel_; }
  /// Bytes of state per output element.
  int64_t state_itemsize() const;

  /// Fill `state` (state_elems(box) elements) with the identity of the op.
  void init_state(void* state, int64_t elems) const;
  /// Accumulate the input values of `box` (a block of the input) into `state`, whose layout is
  /// the block's projection on the kept axes (dense, C order).
  Status accumulate(const Box& box, EvalContext& ctx, void* state) const;
  /// Kept-axis extents of an input box (the partial's shape).
  Shape kept_shape(const Box& box) const;
  /// Merge a block partial (kept-axis box at `kept_origin`, extents `kept_extent`) into `total`.
  void merge(void* total, const void* partial, const Shape& kept_origin, const Shape& kept_extent) const;
  /// Convert the merged state into the output values (dtype(), shape()).
  void finalize(const void* state, void* out) const;

 private:
  NodePtr input_;
  ReduceOp op_;
  std::vector<bool> reduced_;
  bool keepdims_;
  int64_t ddof_;
  Shape kept_full_;       // kept-axis extents of the whole input
  int64_t state_numel_ = 1;
  int64_t reduce_count_ = 1;  // elements reduced into each output
};

}  // namespace strata::detail
