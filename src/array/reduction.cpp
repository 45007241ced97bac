// Reduction states, per-tile accumulation (the backend's reduce_tile kernel), block-order
// merging and finalization. The association of float sums depends only on the block and tile
// boundaries, never on threads or chunks.
#include "array/reduction.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "strata/array/ops.hpp"

namespace strata::detail {
namespace {

using backend::merge_moments;
using backend::Moments;
using backend::nan_max;
using backend::nan_min;

}  // namespace

namespace {
Shape reduced_shape(const Shape& s, const std::vector<bool>& reduced, bool keepdims, bool chunks) {
  Shape out;
  for (size_t a = 0; a < s.size(); ++a) {
    if (!reduced[a]) {
      out.push_back(s[a]);
    } else if (keepdims) {
      out.push_back(chunks ? 1 : 1);
    }
  }
  return out;
}
}  // namespace

ReduceNode::ReduceNode(NodePtr input, ReduceOp op, std::vector<bool> reduced, bool keepdims, int64_t ddof, DType out)
    : Node(NodeKind::Reduce, reduced_shape(input->shape(), reduced, keepdims, false), out,
           reduced_shape(input->chunks(), reduced, keepdims, true)),
      input_(std::move(input)),
      op_(op),
      reduced_(std::move(reduced)),
      keepdims_(keepdims),
      ddof_(ddof) {
  for (int64_t a = 0; a < input_->ndim(); ++a) {
    if (reduced_[a]) {
      reduce_count_ *= input_->shape()[a];
    } else {
      kept_full_.push_back(input_->shape()[a]);
      state_numel_ *= input_->shape()[a];
    }
  }
}

int64_t ReduceNode::state_itemsize() const {
  switch (op_) {
    case ReduceOp::Var: case ReduceOp::Std: return sizeof(Moments);
    case ReduceOp::Min: case ReduceOp::Max: return input_->dtype().itemsize();
    default: return 8;
  }
}

Shape ReduceNode::kept_shape(const Box& box) const {
  Shape k;
  for (int64_t a = 0; a < box.ndim(); ++a) {
    if (!reduced_[a]) k.push_back(box.count[a]);
  }
  return k;
}

void ReduceNode::init_state(void* state, int64_t elems) const {
  const ScalarType it = input_->dtype().type;
  switch (op_) {
    case ReduceOp::Min: case ReduceOp::Max: {
      Status st = visit_scalar(it, [&](auto tag) {
        using T = decltype(tag);
        T v;
        if constexpr (std::is_floating_point_v<T>) {
          v = op_ == ReduceOp::Min ? std::numeric_limits<T>::infinity() : -std::numeric_limits<T>::infinity();
        } else {
          v = op_ == ReduceOp::Min ? std::numeric_limits<T>::max() : std::numeric_limits<T>::lowest();
        }
        T* s = static_cast<T*>(state);
        for (int64_t i = 0; i < elems; ++i) s[i] = v;
      });
      (void)st;
      return;
    }
    default:
      std::memset(state, 0, static_cast<size_t>(elems * state_itemsize()));
  }
}

Status ReduceNode::accumulate(const Box& box, EvalContext& ctx, void* state) const {
  const int64_t nd = box.ndim();
  const Shape kept = kept_shape(box);
  const Shape kstr = c_strides(kept);
  Shape ostride(nd, 0);
  for (int64_t a = 0, k = 0; a < nd; ++a) {
    if (!reduced_[a]) ostride[a] = kstr[k++];
  }
  const DType in = input_->dtype();
  backend::ReduceKind kind = backend::ReduceKind::SumF64;
  switch (op_) {
    case ReduceOp::Sum: kind = in.is_float() ? backend::ReduceKind::SumF64 : backend::ReduceKind::SumWrap; break;
    case ReduceOp::Mean: kind = backend::ReduceKind::SumF64; break;
    case ReduceOp::Var: case ReduceOp::Std: kind = backend::ReduceKind::Moments; break;
    case ReduceOp::Min: kind = backend::ReduceKind::Min; break;
    case ReduceOp::Max: kind = backend::ReduceKind::Max; break;
    case ReduceOp::CountNonzero: kind = backend::ReduceKind::CountNonzero; break;
  }
  const backend::Backend& be = ctx.be();
  Status st;
  STRATA_RETURN_NOT_OK(input_->stream_box(box, ctx, [&](const Tile& t) {
    if (!st.ok()) return;
    backend::ReduceTile rt;
    rt.data = t.data;
    rt.type = in.type;
    rt.rows = t.rows;
    rt.cols = t.cols;
    for (int64_t a = 0; a < nd; ++a) rt.base += t.offset[a] * ostride[a];
    rt.row_stride = nd >= 2 ? ostride[nd - 2] : 0;
    rt.col_stride = nd >= 1 ? ostride[nd - 1] : 0;
    st = be.reduce_tile(kind, rt, state);
  }));
  return st;
}

void ReduceNode::merge(void* total, const void* partial, const Shape& origin, const Shape& extent) const {
  const int64_t kn = static_cast<int64_t>(extent.size());
  int64_t n = 1;
  for (int64_t e : extent) n *= e;
  if (n == 0) return;
  const Shape tstr = c_strides(kept_full_);
  Shape idx(kn, 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t o = 0;
    for (int64_t a = 0; a < kn; ++a) o += (origin[a] + idx[a]) * tstr[a];
    switch (op_) {
      case ReduceOp::Var: case ReduceOp::Std:
        merge_moments(static_cast<Moments*>(total)[o], static_cast<const Moments*>(partial)[i]);
        break;
      case ReduceOp::Min: case ReduceOp::Max: {
        Status st = visit_scalar(input_->dtype().type, [&](auto tag) {
          using T = decltype(tag);
          T& s = static_cast<T*>(total)[o];
          const T v = static_cast<const T*>(partial)[i];
          s = op_ == ReduceOp::Min ? nan_min(s, v) : nan_max(s, v);
        });
        (void)st;
        break;
      }
      default:
        if (op_ == ReduceOp::Mean || (op_ == ReduceOp::Sum && input_->dtype().is_float())) {
          static_cast<double*>(total)[o] += static_cast<const double*>(partial)[i];
        } else {
          static_cast<uint64_t*>(total)[o] += static_cast<const uint64_t*>(partial)[i];
        }
    }
    for (int64_t a = kn - 1; a >= 0; --a) {
      if (++idx[a] < extent[a]) break;
      idx[a] = 0;
    }
  }
}

void ReduceNode::finalize(const void* state, void* out) const {
  const int64_t n = state_numel_;
  const ScalarType ot = dtype().type;
  auto put = [&](int64_t i, double v) {
    if (ot == ScalarType::Float32) {
      static_cast<float*>(out)[i] = static_cast<float>(v);
    } else {
      static_cast<double*>(out)[i] = v;
    }
  };
  switch (op_) {
    case ReduceOp::Sum:
      if (input_->dtype().is_float()) {
        for (int64_t i = 0; i < n; ++i) put(i, static_cast<const double*>(state)[i]);
      } else {
        std::memcpy(out, state, static_cast<size_t>(n * 8));
      }
      return;
    case ReduceOp::CountNonzero: std::memcpy(out, state, static_cast<size_t>(n * 8)); return;
    case ReduceOp::Mean:
      for (int64_t i = 0; i < n; ++i) {
        put(i, static_cast<const double*>(state)[i] / static_cast<double>(reduce_count_));
      }
      return;
    case ReduceOp::Var: case ReduceOp::Std:
      for (int64_t i = 0; i < n; ++i) {
        const Moments& m = static_cast<const Moments*>(state)[i];
        const double dof = m.n - static_cast<double>(ddof_);
        double v = dof > 0 ? m.m2 / dof : std::numeric_limits<double>::quiet_NaN();
        put(i, op_ == ReduceOp::Std ? std::sqrt(v) : v);
      }
      return;
    case ReduceOp::Min: case ReduceOp::Max:
      std::memcpy(out, state, static_cast<size_t>(n * input_->dtype().itemsize()));
      return;
  }
}

Status ReduceNode::read_box(const Box& box, void* out, EvalContext& ctx) const {
  if (!ctx.materialized) return Status::Internal("reduction read before it was evaluated");
  auto it = ctx.materialized->find(this);
  if (it == ctx.materialized->end()) return Status::Internal("reduction read before it was evaluated");
  copy_strided(it->second.raw(), shape(), box.start, box.step, out, box.count, Shape(box.ndim(), 0), box.count,
               dtype().itemsize());
  return Status::OK();
}

std::string ReduceNode::label() const {
  static const char* names[] = {"sum", "mean", "var", "std", "min", "max", "count_nonzero"};
  std::string axes;
  for (size_t a = 0; a < reduced_.size(); ++a) {
    if (reduced_[a]) axes += str_cat(axes.empty() ? "" : ",", a);
  }
  return str_cat(names[static_cast<int>(op_)], "(axes=", axes, keepdims_ ? ", keepdims" : "", ")");
}

}  // namespace strata::detail

namespace strata {
namespace {

Array make_reduce(const char* name, detail::ReduceOp op, const Array& a, Axes axes, bool keepdims, int64_t ddof) {
  if (!a.ok()) return a;
  const DType in = a.dtype();
  if (in.type == ScalarType::Float16) return Array::from_error(Status::Unsupported(name, ": float16"));
  const int64_t nd = a.ndim();
  std::vector<bool> reduced(nd, axes.empty());
  for (int64_t ax : axes) {
    const int64_t norm = ax < 0 ? ax + nd : ax;
    if (norm < 0 || norm >= nd) {
      return Array::from_error(Status::Invalid(name, ": axis ", ax, " is out of bounds for a ", nd, "-d array"));
    }
    if (reduced[norm]) return Array::from_error(Status::Invalid(name, ": duplicate axis ", ax));
    reduced[norm] = true;
  }
  int64_t count = 1;
  for (int64_t i = 0; i < nd; ++i) {
    if (reduced[i]) count *= a.shape()[i];
  }
  DType out;
  switch (op) {
    case detail::ReduceOp::Sum:
      out = in.is_float() ? in : in.is_unsigned_int() ? DType(ScalarType::UInt64) : DType(ScalarType::Int64);
      break;
    case detail::ReduceOp::Mean: case detail::ReduceOp::Var: case detail::ReduceOp::Std:
      out = in.type == ScalarType::Float32 ? in : DType(ScalarType::Float64);
      break;
    case detail::ReduceOp::Min: case detail::ReduceOp::Max:
      if (count == 0) {
        return Array::from_error(Status::Invalid(name, ": zero-size reduction has no identity"));
      }
      out = in;
      break;
    case detail::ReduceOp::CountNonzero: out = DType(ScalarType::Int64); break;
  }
  if (ddof < 0) return Array::from_error(Status::Invalid(name, ": ddof must be >= 0"));
  return Array::from_node(std::make_shared<detail::ReduceNode>(a.node(), op, std::move(reduced), keepdims, ddof, out));
}

}  // namespace

Array sum(const Array& a, Axes axes, bool keepdims) {
  return make_reduce("sum", detail::ReduceOp::Sum, a, std::move(axes), keepdims, 0);
}
Array mean(const Array& a, Axes axes, bool keepdims) {
  return make_reduce("mean", detail::ReduceOp::Mean, a, std::move(axes), keepdims, 0);
}
Array var(const Array& a, Axes axes, int64_t ddof, bool keepdims) {
  return make_reduce("var", detail::ReduceOp::Var, a, std::move(axes), keepdims, ddof);
}
Array stddev(const Array& a, Axes axes, int64_t ddof, bool keepdims) {
  return make_reduce("stddev", detail::ReduceOp::Std, a, std::move(axes), keepdims, ddof);
}
Array min(const Array& a, Axes axes, bool keepdims) {
  return make_reduce("min", detail::ReduceOp::Min, a, std::move(axes), keepdims, 0);
}
Array max(const Array& a, Axes axes, bool keepdims) {
  return make_reduce("max", detail::ReduceOp::Max, a, std::move(axes), keepdims, 0);
}
Array count_nonzero(const Array& a, Axes axes, bool keepdims) {
  return make_reduce("count_nonzero", detail::ReduceOp::CountNonzero, a, std::move(axes), keepdims, 0);
}

}  // namespace strata
