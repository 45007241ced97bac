// Strided slicing and transposition. Both only rewrite boxes: a slice maps an output box to the
// input box that holds it (so slices compose and reach the sources unchanged), a transpose reads
// the permuted box and permutes it in memory.
#include <algorithm>
#include <cstring>
#include <numeric>

#include "array/nodes.hpp"
#include "strata/core/buffer.hpp"

namespace strata {
namespace detail {

SliceNode::SliceNode(NodePtr input, Shape start, Shape step, Shape count, Shape chunks)
    : Node(NodeKind::Slice, std::move(count), input->dtype(), std::move(chunks)),
      input_(std::move(input)),
      start_(std::move(start)),
      step_(std::move(step)) {}

Box SliceNode::map(const Box& box) const {
  Box in{box.start, box.step, box.count};
  for (int64_t a = 0; a < box.ndim(); ++a) {
    in.start[a] = start_[a] + box.start[a] * step_[a];
    in.step[a] = box.step[a] * step_[a];
  }
  return in;
}

Status SliceNode::read_box(const Box& box, void* out, EvalContext& ctx) const {
  return input_->read_box(map(box), out, ctx);
}

Status SliceNode::stream_box(const Box& box, EvalContext& ctx, const TileSink& sink) const {
  return input_->stream_box(map(box), ctx, sink);
}

std::string SliceNode::label() const {
  std::string s = "slice[";
  for (size_t a = 0; a < start_.size(); ++a) {
    s += str_cat(a ? ", " : "", start_[a], ":+", shape()[a], ":", step_[a]);
  }
  return s + "]";
}

namespace {
Shape permute(const Shape& s, const std::vector<int64_t>& perm) {
  Shape out(perm.size());
  for (size_t a = 0; a < perm.size(); ++a) out[a] = s[perm[a]];
  return out;
}
}  // namespace

TransposeNode::TransposeNode(NodePtr input, std::vector<int64_t> perm)
    : Node(NodeKind::Transpose, permute(input->shape(), perm), input->dtype(), permute(input->chunks(), perm)),
      input_(std::move(input)),
      perm_(std::move(perm)) {}

int64_t TransposeNode::working_bytes(const Box& box) const {
  return box.numel() * dtype().itemsize() + input_->working_bytes(box);
}

Status TransposeNode::read_box(const Box& box, void* out, EvalContext& ctx) const {
  const int64_t nd = box.ndim();
  Box in{Shape(nd), Shape(nd), Shape(nd)};
  for (int64_t a = 0; a < nd; ++a) {
    in.start[perm_[a]] = box.start[a];
    in.step[perm_[a]] = box.step[a];
    in.count[perm_[a]] = box.count[a];
  }
  const int64_t n = box.numel(), isz = dtype().itemsize();
  if (n == 0) return Status::OK();
  STRATA_ASSIGN_OR_RETURN(Buffer tmp, Buffer::allocate(n * isz));
  STRATA_RETURN_NOT_OK(input_->read_box(in, tmp.data(), ctx));
  const Shape ts = c_strides(in.count);
  Shape st(nd);
  for (int64_t a = 0; a < nd; ++a) st[a] = ts[perm_[a]];
  const auto* src = tmp.data();
  auto* dst = static_cast<uint8_t*>(out);
  Shape idx(nd, 0);
  const int64_t inner = nd ? box.count[nd - 1] : 1, istep = nd ? st[nd - 1] : 0;
  for (int64_t o = 0; o < n; o += inner) {
    int64_t so = 0;
    for (int64_t a = 0; a + 1 < nd; ++a) so += idx[a] * st[a];
    for (int64_t k = 0; k < inner; ++k) std::memcpy(dst + (o + k) * isz, src + (so + k * istep) * isz, isz);
    for (int64_t a = nd - 2; a >= 0; --a) {
      if (++idx[a] < box.count[a]) break;
      idx[a] = 0;
    }
  }
  return Status::OK();
}

std::string TransposeNode::label() const {
  std::string s = "transpose(";
  for (size_t a = 0; a < perm_.size(); ++a) s += str_cat(a ? "," : "", perm_[a]);
  return s + ")";
}

}  // namespace detail

Array slice(const Array& a, const std::vector<Slice>& slices) {
  if (!a.ok()) return a;
  const int64_t nd = a.ndim();
  if (static_cast<int64_t>(slices.size()) > nd) {
    return Array::from_error(Status::Invalid("slice: ", slices.size(), " slices for a ", nd, "-d array"));
  }
  Shape start(nd), step(nd), count(nd), chunks(nd);
  for (int64_t ax = 0; ax < nd; ++ax) {
    const int64_t n = a.shape()[ax];
    const Slice s = ax < static_cast<int64_t>(slices.size()) ? slices[ax] : Slice::all();
    if (s.step == 0) return Array::from_error(Status::Invalid("slice: step must not be zero (axis ", ax, ")"));
    int64_t b, e, cnt;
    if (s.step > 0) {
      b = s.start.value_or(0);
      e = s.stop.value_or(n);
      if (b < 0) b += n;
      if (e < 0) e += n;
      b = std::clamp<int64_t>(b, 0, n);
      e = std::clamp<int64_t>(e, 0, n);
      cnt = e > b ? (e - b + s.step - 1) / s.step : 0;
    } else {
      b = s.start.has_value() ? *s.start : n - 1;
      e = s.stop.has_value() ? *s.stop : -1;
      if (s.start.has_value() && b < 0) b += n;
      if (s.stop.has_value() && e < 0) e += n;
      b = std::clamp<int64_t>(b, -1, n - 1);
      e = std::clamp<int64_t>(e, -1, n - 1);
      cnt = b > e ? (b - e + (-s.step) - 1) / (-s.step) : 0;
    }
    start[ax] = cnt > 0 ? b : 0;
    step[ax] = s.step;
    count[ax] = cnt;
    const int64_t abs_step = s.step > 0 ? s.step : -s.step;
    chunks[ax] = std::clamp<int64_t>(a.chunks()[ax] / abs_step, 1, std::max<int64_t>(1, cnt));
  }
  detail::NodePtr input = a.node();
  if (input->kind() == detail::NodeKind::Slice) {  // slice of a slice: one slice of the source
    const auto& inner = static_cast<const detail::SliceNode&>(*input);
    for (int64_t ax = 0; ax < nd; ++ax) {
      start[ax] = inner.start()[ax] + start[ax] * inner.step()[ax];
      step[ax] *= inner.step()[ax];
    }
    input = inner.input();
  }
  return Array::from_node(std::make_shared<detail::SliceNode>(std::move(input), std::move(start), std::move(step),
                                                              std::move(count), std::move(chunks)));
}

Array Array::slice(const std::vector<Slice>& slices) const { return strata::slice(*this, slices); }

Array transpose(const Array& a, std::vector<int64_t> perm) {
  if (!a.ok()) return a;
  const int64_t nd = a.ndim();
  if (perm.empty()) {
    perm.resize(nd);
    std::iota(perm.rbegin(), perm.rend(), 0);
  }
  std::vector<bool> seen(nd, false);
  if (static_cast<int64_t>(perm.size()) != nd) {
    return Array::from_error(Status::Invalid("transpose: permutation of ", perm.size(), " axes for a ", nd, "-d array"));
  }
  for (int64_t& p : perm) {
    if (p < 0) p += nd;
    if (p < 0 || p >= nd || seen[p]) return Array::from_error(Status::Invalid("transpose: invalid permutation"));
    seen[p] = true;
  }
  bool identity = true;
  for (int64_t i = 0; i < nd; ++i) identity = identity && perm[i] == i;
  if (identity) return a;
  return Array::from_node(std::make_shared<detail::TransposeNode>(a.node(), std::move(perm)));
}

}  // namespace strata
