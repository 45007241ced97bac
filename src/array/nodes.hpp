#pragma once
// Concrete node classes (sources and structural operations). Elementwise and reduction nodes
// have their own headers (elementwise.hpp, reduction.hpp).

#include <memory>
#include <vector>

#include "array/node.hpp"
#include "strata/array/ops.hpp"
#include "strata/core/random.hpp"
#include "strata/io/zarr.hpp"

namespace strata::detail {

/// Every element equal to one value; 0-d constants made from C++ scalars are "weak" (numpy's
/// Python-scalar promotion rule).
class ConstantNode final : public Node {
 public:
  ConstantNode(Shape shape, Shape chunks, DType dtype, double value, int64_t int_value, bool weak);
  Status read_box(const Box& box, void* out, EvalContext& ctx) const override;
  bool tileable() const override { return true; }
  std::string label() const override;
  bool weak() const { return weak_; }
  const void* value_bytes() const { return bytes_; }

 private:
  alignas(8) uint8_t bytes_[8] = {};
  bool weak_;
};

class HostNode final : public Node {
 public:
  HostNode(HostArray data, Shape chunks);
  Status read_box(const Box& box, void* out, EvalContext& ctx) const override;
  bool tileable() const override { return true; }
  std::string label() const override;

 private:
  HostArray data_;
};

class RechunkNode final : public Node {
 public:
  RechunkNode(NodePtr input, Shape chunks)
      : Node(NodeKind::Rechunk, input->shape(), input->dtype(), std::move(chunks)), input_(std::move(input)) {}
  std::vector<const Node*> inputs() const override { return {input_.get()}; }
  Status read_box(const Box& box, void* out, EvalContext& ctx) const override;
  Status stream_box(const Box& box, EvalContext& ctx, const TileSink& sink) const override;
  bool tileable() const override { return input_->tileable(); }
  int64_t working_bytes(const Box& box) const override { return input_->working_bytes(box); }
  std::string label() const override { return "rechunk"; }

 private:
  NodePtr input_;
};

/// Counter-based random source (random_source.cpp).
class RandomNode final : public Node {
 public:
  RandomNode(Shape shape, Shape chunks, random::FillParams params);
  Status read_box(const Box& box, void* out, EvalContext& ctx) const override;
  Status stream_box(const Box& box, EvalContext& ctx, const TileSink& sink) const override;
  bool tileable() const override { return true; }
  std::string label() const override;
  const random::FillParams& params() const { return params_; }

 private:
  random::FillParams params_;
  Shape strides_;
};

/// Strided slice of its input (slicing.cpp). start/step/count per input axis.
class SliceNode final : public Node {
 public:
  SliceNode(NodePtr input, Shape start, Shape step, Shape count, Shape chunks);
  std::vector<const Node*> inputs() const override { return {input_.get()}; }
  Status read_box(const Box& box, void* out, EvalContext& ctx) const override;
  Status stream_box(const Box& box, EvalContext& ctx, const TileSink& sink) const override;
  bool tileable() const override { return input_->tileable(); }
  int64_t working_bytes(const Box& box) const override { return input_->working_bytes(map(box)); }
  std::string label() const override;
  const NodePtr& input() const { return input_; }
  const Shape& start() const { return start_; }
  const Shape& step() const { return step_; }
  /// The input box holding the values of output box `box`.
  Box map(const Box& box) const;

 private:
  NodePtr input_;
  Shape start_, step_;
};

/// Axis permutation (slicing.cpp): output axis a is input axis perm[a].
class TransposeNode final : public Node {
 public:
  TransposeNode(NodePtr input, std::vector<int64_t> perm);
  std::vector<const Node*> inputs() const override { return {input_.get()}; }
  Status read_box(const Box& box, void* out, EvalContext& ctx) const override;
  bool tileable() const override { return input_->tileable(); }
  int64_t working_bytes(const Box& box) const override;
  std::string label() const override;

 private:
  NodePtr input_;
  std::vector<int64_t> perm_;
};

/// Zarr array source (zarr_source.cpp): decodes only the chunks a box touches.
class ZarrNode final : public Node {
 public:
  explicit ZarrNode(const io::ZarrArray& zarr);
  const io::ZarrArray& zarr() const { return *zarr_; }
  Status read_box(const Box& box, void* out, EvalContext& ctx) const override;
  int64_t working_bytes(const Box& box) const override;
  std::string label() const override;

 private:
  std::shared_ptr<const io::ZarrArray> zarr_;
};

/// 2-d matrix product (matmul.cpp).
class MatmulNode final : public Node {
 public:
  MatmulNode(NodePtr a, NodePtr b, DType out);
  std::vector<const Node*> inputs() const override { return {a_.get(), b_.get()}; }
  Status read_box(const Box& box, void* out, EvalContext& ctx) const override;
  int64_t working_bytes(const Box& box) const override;
  std::string label() const override { return "matmul"; }

 private:
  NodePtr a_, b_;
};

/// User block function (map_blocks.cpp).
class MapBlocksNode final : public Node {
 public:
  MapBlocksNode(std::vector<NodePtr> inputs, DType out, MapBlocksFn fn);
  std::vector<const Node*> inputs() const override;
  Status read_box(const Box& box, void* out, EvalContext& ctx) const override;
  int64_t working_bytes(const Box& box) const override;
  std::string label() const override { return "map_blocks"; }

 private:
  Status compute_block(const Shape& origin, const Shape& extent, void* out, EvalContext& ctx) const;
  std::vector<NodePtr> inputs_;
  MapBlocksFn fn_;
};

/// Arrays of one dtype joined along an axis (joining.cpp): a box is split at the inputs' borders.
class ConcatNode final : public Node {
 public:
  ConcatNode(std::vector<NodePtr> inputs, int64_t axis, Shape shape, Shape chunks);
  std::vector<const Node*> inputs() const override;
  Status read_box(const Box& box, void* out, EvalContext& ctx) const override;
  int64_t working_bytes(const Box& box) const override;
  std::string label() const override;

 private:
  std::vector<NodePtr> inputs_;
  int64_t axis_;
  Shape offsets_;  ///< where each input starts along the axis
};

/// The same elements in C order under another shape (joining.cpp): a box reads the slab of the
/// input's leading axis that holds its elements, then gathers them.
class ReshapeNode final : public Node {
 public:
  ReshapeNode(NodePtr input, Shape shape, Shape chunks);
  std::vector<const Node*> inputs() const override { return {input_.get()}; }
  Status read_box(const Box& box, void* out, EvalContext& ctx) const override;
  int64_t working_bytes(const Box& box) const override;
  std::string label() const override { return "reshape"; }

 private:
  Box cover(const Box& box) const;  ///< the input box read for an output box
  NodePtr input_;
};

/// Blocks kept in memory (persist.cpp), decoded on the fly.
class PersistedNode final : public Node {
 public:
  struct Storage;
  PersistedNode(Shape shape, Shape chunks, DType dtype, std::shared_ptr<const Storage> storage);
  Status read_box(const Box& box, void* out, EvalContext& ctx) const override;
  int64_t working_bytes(const Box& box) const override;
  std::string label() const override;
  const Storage& storage() const { return *storage_; }

 private:
  std::shared_ptr<const Storage> storage_;
};

}  // namespace strata::detail
