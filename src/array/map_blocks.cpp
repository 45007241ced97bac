// map_blocks: a user function applied to whole chunks. The function sees chunk boundaries, so
// any box is produced from the full chunks it touches (computed, then the wanted elements
// copied out); a chunk-aligned box is computed straight into the output.
#include <algorithm>

#include "array/nodes.hpp"
#include "strata/core/buffer.hpp"

namespace strata {
namespace detail {

MapBlocksNode::MapBlocksNode(std::vector<NodePtr> inputs, DType out, MapBlocksFn fn)
    : Node(NodeKind::MapBlocks, inputs[0]->shape(), out, inputs[0]->chunks()),
      inputs_(std::move(inputs)),
      fn_(std::move(fn)) {}

std::vector<const Node*> MapBlocksNode::inputs() const {
  std::vector<const Node*> v;
  for (const NodePtr& n : inputs_) v.push_back(n.get());
  return v;
}

int64_t MapBlocksNode::working_bytes(const Box& box) const {
  int64_t chunk = 1;
  for (int64_t c : chunks()) chunk *= c;
  int64_t bytes = 2 * chunk * dtype().itemsize();
  for (const NodePtr& n : inputs_) bytes += chunk * n->dtype().itemsize() + n->working_bytes(box);
  return bytes;
}

Status MapBlocksNode::compute_block(const Shape& origin, const Shape& extent, void* out, EvalContext& ctx) const {
  const Box box = Box::dense(origin, extent);
  std::vector<Buffer> bufs;
  std::vector<MapBlockInput> ins;
  for (const NodePtr& n : inputs_) {
    STRATA_ASSIGN_OR_RETURN(Buffer b, Buffer::allocate(std::max<int64_t>(1, box.numel()) * n->dtype().itemsize()));
    STRATA_RETURN_NOT_OK(n->read_box(box, b.data(), ctx));
    ins.push_back(MapBlockInput{b.data(), n->dtype(), extent});
    bufs.push_back(std::move(b));
  }
  return fn_(ins, MapBlockOutput{out, dtype(), extent, origin}).with_context("map_blocks");
}

Status MapBlocksNode::read_box(const Box& box, void* out, EvalContext& ctx) const {
  const Shape& ch = chunks();
  bool aligned = true;
  for (int64_t a = 0; a < box.ndim(); ++a) {
    const bool full_or_edge = box.count[a] == ch[a] || box.start[a] + box.count[a] == shape()[a];
    aligned = aligned && box.step[a] == 1 && box.start[a] % ch[a] == 0 && full_or_edge;
  }
  if (aligned) return compute_block(box.start, box.count, out, ctx);
  STRATA_ASSIGN_OR_RETURN(ChunkGrid grid, ChunkGrid::make(shape(), ch));
  const int64_t isz = dtype().itemsize();
  return read_box_from_chunks(shape(), ch, isz, box, out, [&](const Shape& idx, void* chunk_buf) -> Status {
    const Shape origin = grid.chunk_origin(idx), extent = grid.chunk_extent(idx);
    int64_t n = 1;
    for (int64_t e : extent) n *= e;
    STRATA_ASSIGN_OR_RETURN(Buffer tmp, Buffer::allocate(std::max<int64_t>(1, n) * isz));
    STRATA_RETURN_NOT_OK(compute_block(origin, extent, tmp.data(), ctx));
    copy_box(tmp.data(), extent, Shape(extent.size(), 0), chunk_buf, ch, Shape(ch.size(), 0), extent, isz);
    return Status::OK();
  });
}

}  // namespace detail

Array map_blocks(const std::vector<Array>& inputs, DType out_dtype, MapBlocksFn fn) {
  if (inputs.empty()) return Array::from_error(Status::Invalid("map_blocks: no inputs"));
  std::vector<detail::NodePtr> nodes;
  for (const Array& a : inputs) {
    if (!a.ok()) return a;
    if (a.shape() != inputs[0].shape()) {
      return Array::from_error(Status::Invalid("map_blocks: inputs must have the same shape, got ",
                                               shape_to_string(inputs[0].shape()), " and ", shape_to_string(a.shape())));
    }
    nodes.push_back(a.node());
  }
  if (out_dtype.type == ScalarType::Float16) return Array::from_error(Status::Unsupported("map_blocks: float16"));
  if (!fn) return Array::from_error(Status::Invalid("map_blocks: empty function"));
  return Array::from_node(std::make_shared<detail::MapBlocksNode>(std::move(nodes), out_dtype.native(), std::move(fn)));
}

}  // namespace strata
