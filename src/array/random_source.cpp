// Counter-based random sources: a box is generated row by row (innermost axis) from the global
// C-order element index, so values never depend on chunking, tiling, threads or slicing.
#include <algorithm>
#include <cmath>
#include <limits>

#include "array/nodes.hpp"
#include "strata/array/array.hpp"

namespace strata {
namespace detail {

RandomNode::RandomNode(Shape shape, Shape chunks, random::FillParams params)
    : Node(NodeKind::Random, shape, DType(params.out), std::move(chunks)), params_(params), strides_(c_strides(shape)) {}

Status RandomNode::read_box(const Box& box, void* out, EvalContext& ctx) const {
  const int64_t nd = box.ndim(), n = box.numel();
  if (n == 0) return Status::OK();
  const int64_t isz = dtype().itemsize();
  auto* o = static_cast<uint8_t*>(out);
  if (nd == 0) {
    random::fill(params_, 0, 1, 1, o);
    count_generated(ctx, 1);
    return Status::OK();
  }
  const int64_t len = box.count[nd - 1];
  const int64_t step = box.step[nd - 1] * strides_[nd - 1];
  Shape idx(nd, 0);
  int64_t row = 0;
  while (true) {
    int64_t e = 0;
    for (int64_t a = 0; a < nd; ++a) e += (box.start[a] + idx[a] * box.step[a]) * strides_[a];
    random::fill(params_, e, step, len, o + row * len * isz);
    ++row;
    int64_t a = nd - 2;
    for (; a >= 0; --a) {
      if (++idx[a] < box.count[a]) break;
      idx[a] = 0;
    }
    if (a < 0) break;
  }
  count_generated(ctx, n);
  return Status::OK();
}

Status RandomNode::stream_box(const Box& box, EvalContext& ctx, const TileSink& sink) const {
  std::vector<uint64_t> tile(static_cast<size_t>(kTileElems));  // 8-byte aligned scratch
  const int64_t nd = box.ndim();
  Status st;
  for_each_tile(box.count, kTileElems, [&](const Shape& off, int64_t rows, int64_t cols) {
    Shape cnt(nd, 1);
    if (nd >= 1) cnt[nd - 1] = cols;
    if (nd >= 2) cnt[nd - 2] = rows;
    Status s = read_box(box.sub(off, cnt), tile.data(), ctx);
    if (!s.ok() && st.ok()) st = s;
    sink(Tile{off, rows, cols, tile.data()});
  });
  return st;
}

std::string RandomNode::label() const {
  switch (params_.dist) {
    case random::Dist::Uniform: return str_cat("random_uniform(seed=", params_.seed, ")");
    case random::Dist::Normal:
      return str_cat("random_normal(", params_.mean, ", ", params_.sd, ", seed=", params_.seed, ")");
    case random::Dist::Integers:
      return str_cat("random_integers(", params_.low, ", +", params_.range, ", seed=", params_.seed, ")");
  }
  return "random";
}

namespace {
Array make_random(const char* what, Shape shape, Shape chunks, random::FillParams p) {
  auto c = normalize_chunks(shape, std::move(chunks), DType(p.out).itemsize());
  if (!c.ok()) return Array::from_error(c.status().with_context(what));
  return Array::from_node(std::make_shared<RandomNode>(std::move(shape), std::move(*c), p));
}
}  // namespace

}  // namespace detail

Array Array::random_uniform(Shape shape, Shape chunks, uint64_t seed, DType dtype, uint64_t stream) {
  if (dtype.type != ScalarType::Float64 && dtype.type != ScalarType::Float32) {
    return from_error(Status::Invalid("random_uniform: dtype must be float32 or float64, got ", dtype.name()));
  }
  random::FillParams p;
  p.dist = random::Dist::Uniform;
  p.seed = seed;
  p.stream = stream;
  p.out = dtype.type;
  return detail::make_random("random_uniform", std::move(shape), std::move(chunks), p);
}

Array Array::random_normal(Shape shape, Shape chunks, double mean, double sd, uint64_t seed, DType dtype,
                           uint64_t stream) {
  if (dtype.type != ScalarType::Float64 && dtype.type != ScalarType::Float32) {
    return from_error(Status::Invalid("random_normal: dtype must be float32 or float64, got ", dtype.name()));
  }
  if (!(sd >= 0) || !std::isfinite(sd) || !std::isfinite(mean)) {
    return from_error(Status::Invalid("random_normal: need finite mean and sd >= 0, got ", mean, ", ", sd));
  }
  random::FillParams p;
  p.dist = random::Dist::Normal;
  p.seed = seed;
  p.stream = stream;
  p.mean = mean;
  p.sd = sd;
  p.out = dtype.type;
  return detail::make_random("random_normal", std::move(shape), std::move(chunks), p);
}

Array Array::random_integers(Shape shape, Shape chunks, int64_t low, int64_t high, uint64_t seed, uint64_t stream) {
  if (high <= low) return from_error(Status::Invalid("random_integers: need low < high, got [", low, ", ", high, ")"));
  random::FillParams p;
  p.dist = random::Dist::Integers;
  p.seed = seed;
  p.stream = stream;
  p.low = low;
  p.range = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
  p.out = ScalarType::Int64;
  return detail::make_random("random_integers", std::move(shape), std::move(chunks), p);
}

}  // namespace strata
