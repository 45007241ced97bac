// concatenate and reshape: structural nodes that map an output box onto input boxes. Concat
// splits the box at the inputs' borders along its axis; reshape reads the input slab (leading
// axis rows) that holds the box's elements and gathers them by their C-order position.
#include <algorithm>
#include <cstring>

#include "array/nodes.hpp"
#include "strata/core/buffer.hpp"

namespace strata {
namespace detail {
namespace {

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
int64_t ceil_div(int64_t a, int64_t b) { return -floor_div(-a, b); }

/// Positions k in [0, count) whose index start + k * step lies in [lo, hi).
std::pair<int64_t, int64_t> positions_in(int64_t start, int64_t step, int64_t count, int64_t lo, int64_t hi) {
  int64_t k0, k1;
  if (step > 0) {
    k0 = ceil_div(lo - start, step);
    k1 = floor_div(hi - 1 - start, step) + 1;
  } else {
    k0 = ceil_div(start - (hi - 1), -step);
    k1 = floor_div(start - lo, -step) + 1;
  }
  return {std::max<int64_t>(k0, 0), std::min(k1, count)};
}

}  // namespace

ConcatNode::ConcatNode(std::vector<NodePtr> inputs, int64_t axis, Shape shape, Shape chunks)
    : Node(NodeKind::Concat, std::move(shape), inputs[0]->dtype(), std::move(chunks)),
      inputs_(std::move(inputs)),
      axis_(axis) {
  int64_t at = 0;
  for (const NodePtr& n : inputs_) {
    offsets_.push_back(at);
    at += n->shape()[axis_];
  }
}

std::vector<const Node*> ConcatNode::inputs() const {
  std::vector<const Node*> v;
  for (const NodePtr& n : inputs_) v.push_back(n.get());
  return v;
}

int64_t ConcatNode::working_bytes(const Box& box) const {
  int64_t most = 0;
  for (const NodePtr& n : inputs_) most = std::max(most, n->working_bytes(box));
  return box.numel() * dtype().itemsize() + most;
}

Status ConcatNode::read_box(const Box& box, void* out, EvalContext& ctx) const {
  if (box.numel() == 0) return Status::OK();
  const int64_t isz = dtype().itemsize(), a = axis_;
  for (size_t i = 0; i < inputs_.size(); ++i) {
    const int64_t lo = offsets_[i], hi = lo + inputs_[i]->shape()[a];
    const auto [k0, k1] = positions_in(box.start[a], box.step[a], box.count[a], lo, hi);
    if (k1 <= k0) continue;
    Box part = box;
    part.start[a] = box.start[a] + k0 * box.step[a] - lo;
    part.count[a] = k1 - k0;
    STRATA_ASSIGN_OR_RETURN(Buffer tmp, Buffer::allocate(part.numel() * isz));
    STRATA_RETURN_NOT_OK(inputs_[i]->read_box(part, tmp.data(), ctx));
    Shape dst_off(box.ndim(), 0);
    dst_off[a] = k0;
    copy_strided(tmp.data(), part.count, Shape(box.ndim(), 0), Shape(box.ndim(), 1), out, box.count, dst_off,
                 part.count, isz);
  }
  return Status::OK();
}

std::string ConcatNode::label() const { return str_cat("concatenate(", inputs_.size(), " arrays, axis ", axis_, ")"); }

ReshapeNode::ReshapeNode(NodePtr input, Shape shape, Shape chunks)
    : Node(NodeKind::Reshape, std::move(shape), input->dtype(), std::move(chunks)), input_(std::move(input)) {}

Box ReshapeNode::cover(const Box& box) const {
  const Shape& in = input_->shape();
  if (in.empty()) return Box::whole(in);
  const Shape os = c_strides(shape());
  int64_t lo = 0, hi = 0;  // first and last C-order position of the box's elements
  for (int64_t a = 0; a < box.ndim(); ++a) {
    const int64_t first = box.start[a], last = box.start[a] + (box.count[a] - 1) * box.step[a];
    lo += std::min(first, last) * os[a];
    hi += std::max(first, last) * os[a];
  }
  const int64_t row = c_strides(in)[0];
  Shape start(in.size(), 0), count = in;
  if (row == 0 || box.numel() == 0) {  // an empty input (a zero-length axis) or box: nothing to read
    count[0] = 0;
    return Box::dense(start, count);
  }
  start[0] = lo / row;
  count[0] = hi / row - start[0] + 1;
  return Box::dense(start, count);
}

int64_t ReshapeNode::working_bytes(const Box& box) const {
  const Box c = cover(box);
  return c.numel() * dtype().itemsize() + input_->working_bytes(c);
}

Status ReshapeNode::read_box(const Box& box, void* out, EvalContext& ctx) const {
  const int64_t n = box.numel(), isz = dtype().itemsize(), nd = box.ndim();
  if (n == 0) return Status::OK();
  const Box c = cover(box);
  STRATA_ASSIGN_OR_RETURN(Buffer tmp, Buffer::allocate(c.numel() * isz));
  STRATA_RETURN_NOT_OK(input_->read_box(c, tmp.data(), ctx));
  const int64_t base = input_->shape().empty() ? 0 : c.start[0] * c_strides(input_->shape())[0];
  const Shape os = c_strides(shape());
  const auto* src = tmp.data();
  auto* dst = static_cast<uint8_t*>(out);
  if (nd == 0) {
    std::memcpy(dst, src, isz);
    return Status::OK();
  }
  // Runs along the last axis: consecutive C-order positions when its step is 1.
  const int64_t inner = box.count[nd - 1], istep = box.step[nd - 1] * os[nd - 1];
  Shape idx(nd, 0);
  for (int64_t o = 0; o < n; o += inner) {
    int64_t flat = 0;
    for (int64_t a = 0; a < nd; ++a) flat += (box.start[a] + idx[a] * box.step[a]) * os[a];
    const uint8_t* s = src + (flat - base) * isz;
    if (istep == 1) {
      std::memcpy(dst + o * isz, s, inner * isz);
    } else {
      for (int64_t k = 0; k < inner; ++k) std::memcpy(dst + (o + k) * isz, s + k * istep * isz, isz);
    }
    for (int64_t a = nd - 2; a >= 0; --a) {
      if (++idx[a] < box.count[a]) break;
      idx[a] = 0;
    }
  }
  return Status::OK();
}

}  // namespace detail

Array concatenate(const std::vector<Array>& arrays, int64_t axis) {
  if (arrays.empty()) return Array::from_error(Status::Invalid("concatenate: no arrays"));
  for (const Array& a : arrays) {
    if (!a.ok()) return a;
  }
  const Array& first = arrays[0];
  const int64_t nd = first.ndim();
  if (nd == 0) return Array::from_error(Status::Invalid("concatenate: 0-d arrays cannot be joined"));
  if (axis < 0) axis += nd;
  if (axis < 0 || axis >= nd) return Array::from_error(Status::Invalid("concatenate: axis out of range for ", nd, "-d arrays"));
  Shape shape = first.shape();
  shape[axis] = 0;
  std::vector<detail::NodePtr> nodes;
  for (const Array& a : arrays) {
    if (a.dtype().type != first.dtype().type) {
      return Array::from_error(Status::Invalid("concatenate: dtypes differ (", first.dtype().numpy_str(), " and ",
                                               a.dtype().numpy_str(), "); convert them first"));
    }
    for (int64_t d = 0; d < nd; ++d) {
      if (a.ndim() != nd || (d != axis && a.shape()[d] != first.shape()[d])) {
        return Array::from_error(Status::Invalid("concatenate: shapes ", shape_to_string(first.shape()), " and ",
                                                 shape_to_string(a.shape()), " differ off axis ", axis));
      }
    }
    shape[axis] += a.shape()[axis];
    nodes.push_back(a.node());
  }
  if (nodes.size() == 1) return first;
  Shape chunks = first.chunks();  // along the axis: the largest input chunk (a short input keeps it)
  for (const Array& a : arrays) chunks[axis] = std::max(chunks[axis], a.chunks()[axis]);
  chunks[axis] = std::max<int64_t>(1, std::min(chunks[axis], shape[axis]));
  return Array::from_node(std::make_shared<detail::ConcatNode>(std::move(nodes), axis, std::move(shape),
                                                               std::move(chunks)));
}

Array reshape(const Array& a, const Shape& shape) {
  if (!a.ok()) return a;
  auto n = shape_numel(shape);
  if (!n.ok()) return Array::from_error(n.status().with_context("reshape"));
  if (*n != shape_numel(a.shape()).value()) {
    return Array::from_error(Status::Invalid("reshape: cannot reshape ", shape_to_string(a.shape()), " into ",
                                             shape_to_string(shape)));
  }
  if (shape == a.shape()) return a;
  Shape chunks = detail::default_chunks(shape, a.dtype().itemsize());
  return Array::from_node(std::make_shared<detail::ReshapeNode>(a.node(), shape, std::move(chunks)));
}

}  // namespace strata
