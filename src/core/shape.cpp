#include "strata/core/shape.hpp"

#include <charconv>
#include <cstring>

namespace strata {

Result<int64_t> checked_mul(int64_t a, int64_t b) {
  if (a < 0 || b < 0) return Status::Invalid("negative size in product ", a, " * ", b);
  int64_t out;
  if (__builtin_mul_overflow(a, b, &out))
    return Status::Invalid("size overflow: ", a, " * ", b, " does not fit in 64 bits");
  return out;
}

Result<int64_t> checked_add(int64_t a, int64_t b) {
  int64_t out;
  if (__builtin_add_overflow(a, b, &out))
    return Status::Invalid("size overflow: ", a, " + ", b, " does not fit in 64 bits");
  return out;
}

Result<int64_t> shape_numel(const Shape& shape) {
  int64_t n = 1;
  for (int64_t e : shape) {
    STRATA_ASSIGN_OR_RETURN(n, checked_mul(n, e));
  }
  return n;
}

std::string shape_to_string(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

Result<Shape> parse_shape(std::string_view text) {
  Shape out;
  size_t pos = 0;
  if (text.empty()) return Status::Invalid("empty shape");
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    if (comma == std::string_view::npos) comma = text.size();
    std::string_view tok = text.substr(pos, comma - pos);
    int64_t v = 0;
    auto [p, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), v);
    if (ec != std::errc() || p != tok.data() + tok.size() || tok.empty() || v <= 0)
      return Status::Invalid("bad shape '", text, "': expected positive integers separated by commas");
    out.push_back(v);
    pos = comma + 1;
  }
  return out;
}

Shape c_strides(const Shape& shape) {
  Shape s(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * shape[i + 1];
  return s;
}

Result<ChunkGrid> ChunkGrid::make(Shape shape, Shape chunk_shape) {
  if (shape.size() != chunk_shape.size())
    return Status::Invalid("chunk shape ", shape_to_string(chunk_shape), " has a different rank than shape ",
                           shape_to_string(shape));
  ChunkGrid g;
  g.grid_.resize(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0) return Status::Invalid("negative extent in shape ", shape_to_string(shape));
    if (chunk_shape[i] < 1) return Status::Invalid("chunk extents must be >= 1, got ", shape_to_string(chunk_shape));
    g.grid_[i] = ceil_div(shape[i], chunk_shape[i]);
  }
  STRATA_RETURN_NOT_OK(shape_numel(shape));
  STRATA_ASSIGN_OR_RETURN(g.num_chunks_, shape_numel(g.grid_));
  STRATA_ASSIGN_OR_RETURN(g.chunk_numel_, shape_numel(chunk_shape));
  g.shape_ = std::move(shape);
  g.chunk_ = std::move(chunk_shape);
  return g;
}

Shape ChunkGrid::chunk_origin(const Shape& index) const {
  Shape o(index.size());
  for (size_t i = 0; i < index.size(); ++i) o[i] = index[i] * chunk_[i];
  return o;
}

Shape ChunkGrid::chunk_extent(const Shape& index) const {
  Shape e(index.size());
  for (size_t i = 0; i < index.size(); ++i) e[i] = std::min(chunk_[i], shape_[i] - index[i] * chunk_[i]);
  return e;
}

int64_t ChunkGrid::ravel(const Shape& index) const {
  int64_t lin = 0;
  for (size_t i = 0; i < index.size(); ++i) lin = lin * grid_[i] + index[i];
  return lin;
}

Shape ChunkGrid::unravel(int64_t linear) const {
  Shape idx(grid_.size());
  for (int64_t i = static_cast<int64_t>(grid_.size()) - 1; i >= 0; --i) {
    idx[i] = grid_[i] ? linear % grid_[i] : 0;
    linear = grid_[i] ? linear / grid_[i] : 0;
  }
  return idx;
}

void ChunkGrid::for_each_chunk_in(const Shape& start, const Shape& count,
                                  const std::function<void(const Shape&)>& fn) const {
  const size_t nd = shape_.size();
  Shape lo(nd), hi(nd);
  for (size_t i = 0; i < nd; ++i) {
    if (count[i] <= 0) return;
    lo[i] = start[i] / chunk_[i];
    hi[i] = (start[i] + count[i] - 1) / chunk_[i];
  }
  Shape idx = lo;
  while (true) {
    fn(idx);
    int64_t d = static_cast<int64_t>(nd) - 1;
    for (; d >= 0; --d) {
      if (++idx[d] <= hi[d]) break;
      idx[d] = lo[d];
    }
    if (d < 0) break;
  }
}

std::vector<Shape> ChunkGrid::chunks_in(const Shape& start, const Shape& count) const {
  std::vector<Shape> out;
  for_each_chunk_in(start, count, [&](const Shape& s) { out.push_back(s); });
  return out;
}

void copy_box(const void* src, const Shape& src_shape, const Shape& src_start, void* dst,
              const Shape& dst_shape, const Shape& dst_start, const Shape& count, int64_t itemsize) {
  const int64_t nd = static_cast<int64_t>(count.size());
  for (int64_t c : count)
    if (c <= 0) return;
  const auto* s = static_cast<const uint8_t*>(src);
  auto* d = static_cast<uint8_t*>(dst);
  if (nd == 0) {
    std::memcpy(d, s, itemsize);
    return;
  }
  const Shape ss = c_strides(src_shape), ds = c_strides(dst_shape);
  // Trailing axes covered whole in both arrays are contiguous in both: fold them, and the
  // partial axis just outside them, into one run (a full-array copy becomes one memcpy).
  int64_t m = nd - 1;
  auto whole = [&](int64_t a) {
    return count[a] == src_shape[a] && count[a] == dst_shape[a] && src_start[a] == 0 && dst_start[a] == 0;
  };
  while (m > 0 && whole(m)) --m;
  const int64_t run = count[m] * ss[m] * itemsize;  // ss[m] == product of the folded extents
  int64_t so = 0, doff = 0;
  for (int64_t i = 0; i <= m; ++i) {
    so += src_start[i] * ss[i];
    doff += dst_start[i] * ds[i];
  }
  // Odometer over the outer axes [0, m), offsets updated incrementally.
  Shape idx(m, 0);
  while (true) {
    std::memcpy(d + doff * itemsize, s + so * itemsize, run);
    int64_t k = m - 1;
    for (; k >= 0; --k) {
      if (++idx[k] < count[k]) {
        so += ss[k];
        doff += ds[k];
        break;
      }
      so -= (count[k] - 1) * ss[k];
      doff -= (count[k] - 1) * ds[k];
      idx[k] = 0;
    }
    if (k < 0) break;
  }
}

}  // namespace strata
