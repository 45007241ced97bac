// Box arithmetic, tiling, strided copies and chunk-wise box reads shared by all nodes.
#include "array/node.hpp"

#include <algorithm>
#include <cstring>
#include <map>

#include "strata/core/buffer.hpp"

namespace strata::detail {

int64_t Box::numel() const {
  int64_t n = 1;
  for (int64_t c : count) n *= c;
  return n;
}

Box Box::whole(const Shape& shape) { return Box{Shape(shape.size(), 0), Shape(shape.size(), 1), shape}; }

Box Box::dense(const Shape& start, const Shape& count) { return Box{start, Shape(start.size(), 1), count}; }

Box Box::sub(const Shape& offset, const Shape& cnt) const {
  Box b{start, step, cnt};
  for (size_t a = 0; a < start.size(); ++a) b.start[a] = start[a] + offset[a] * step[a];
  return b;
}

void for_each_tile(const Shape& count, int64_t max_elems,
                   const std::function<void(const Shape&, int64_t, int64_t)>& fn) {
  const int64_t nd = static_cast<int64_t>(count.size());
  for (int64_t c : count) {
    if (c == 0) return;
  }
  if (nd == 0) {
    fn({}, 1, 1);
    return;
  }
  const int64_t cols = count[nd - 1];
  const int64_t rows = nd >= 2 ? count[nd - 2] : 1;
  const int64_t tc = std::min(cols, max_elems);
  const int64_t tr = tc == cols ? std::max<int64_t>(1, std::min(rows, max_elems / cols)) : 1;
  Shape offset(nd, 0);
  const int64_t outer_nd = std::max<int64_t>(0, nd - 2);
  while (true) {
    for (int64_t r0 = 0; r0 < rows; r0 += tr) {
      for (int64_t c0 = 0; c0 < cols; c0 += tc) {
        if (nd >= 2) offset[nd - 2] = r0;
        offset[nd - 1] = c0;
        fn(offset, std::min(tr, rows - r0), std::min(tc, cols - c0));
      }
    }
    int64_t a = outer_nd - 1;
    for (; a >= 0; --a) {
      if (++offset[a] < count[a]) break;
      offset[a] = 0;
    }
    if (a < 0) return;
  }
}

namespace {
template <int64_t W>
void copy_run(const uint8_t* src, int64_t sstep, uint8_t* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * W, src + i * sstep * W, W);
}
}  // namespace

void copy_strided(const void* src, const Shape& src_shape, const Shape& src_off, const Shape& src_step,
                  void* dst, const Shape& dst_shape, const Shape& dst_off, const Shape& count,
                  int64_t itemsize) {
  const int64_t nd = static_cast<int64_t>(count.size());
  for (int64_t c : count) {
    if (c == 0) return;
  }
  const Shape ss = c_strides(src_shape), ds = c_strides(dst_shape);
  const auto* s = static_cast<const uint8_t*>(src);
  auto* d = static_cast<uint8_t*>(dst);
  if (nd == 0) {
    std::memcpy(d, s, itemsize);
    return;
  }
  const int64_t n = count[nd - 1];
  const int64_t sstep = src_step[nd - 1] * ss[nd - 1];
  Shape idx(nd, 0);
  while (true) {
    int64_t so = 0, dof = 0;
    for (int64_t a = 0; a < nd; ++a) {
      so += (src_off[a] + idx[a] * src_step[a]) * ss[a];
      dof += (dst_off[a] + idx[a]) * ds[a];
    }
    const uint8_t* sp = s + so * itemsize;
    uint8_t* dp = d + dof * itemsize;
    if (sstep == 1) {
      std::memcpy(dp, sp, n * itemsize);
    } else {
      switch (itemsize) {
        case 1: copy_run<1>(sp, sstep, dp, n); break;
        case 2: copy_run<2>(sp, sstep, dp, n); break;
        case 4: copy_run<4>(sp, sstep, dp, n); break;
        default: copy_run<8>(sp, sstep, dp, n); break;
      }
    }
    int64_t a = nd - 2;
    for (; a >= 0; --a) {
      if (++idx[a] < count[a]) break;
      idx[a] = 0;
    }
    if (a < 0) return;
  }
}

Status Node::stream_box(const Box& box, EvalContext& ctx, const TileSink& sink) const {
  const int64_t isz = dtype().itemsize();
  STRATA_ASSIGN_OR_RETURN(Buffer buf, Buffer::allocate(std::max<int64_t>(1, box.numel()) * isz));
  STRATA_RETURN_NOT_OK(read_box(box, buf.data(), ctx));
  std::vector<uint8_t> tile(static_cast<size_t>(kTileElems * isz));
  const int64_t nd = box.ndim();
  Shape ones(nd, 1);
  Status st;
  for_each_tile(box.count, kTileElems, [&](const Shape& off, int64_t rows, int64_t cols) {
    Shape cnt(nd, 1);
    if (nd >= 1) cnt[nd - 1] = cols;
    if (nd >= 2) cnt[nd - 2] = rows;
    Shape tshape = cnt;
    copy_strided(buf.data(), box.count, off, ones, tile.data(), tshape, Shape(nd, 0), cnt, isz);
    sink(Tile{off, rows, cols, tile.data()});
  });
  return st;
}

Shape default_chunks(const Shape& shape, int64_t itemsize, int64_t target_bytes) {
  Shape chunks(shape.size(), 1);
  if (shape.empty()) return chunks;
  int64_t row = itemsize;
  for (size_t a = 1; a < shape.size(); ++a) {
    chunks[a] = std::max<int64_t>(1, shape[a]);
    row = row > (int64_t{1} << 50) / chunks[a] ? (int64_t{1} << 50) : row * chunks[a];
  }
  chunks[0] = std::clamp<int64_t>(target_bytes / std::max<int64_t>(1, row), 1, std::max<int64_t>(1, shape[0]));
  return chunks;
}

Result<Shape> normalize_chunks(const Shape& shape, Shape chunks, int64_t itemsize) {
  for (int64_t s : shape) {
    if (s < 0) return Status::Invalid("negative extent in shape ", shape_to_string(shape));
  }
  STRATA_RETURN_NOT_OK(shape_numel(shape));
  if (chunks.empty() && !shape.empty()) return default_chunks(shape, itemsize);
  if (chunks.size() != shape.size()) {
    return Status::Invalid("chunks ", shape_to_string(chunks), " do not match the rank of shape ",
                           shape_to_string(shape));
  }
  for (size_t a = 0; a < shape.size(); ++a) {
    if (chunks[a] < 1) return Status::Invalid("chunk extents must be >= 1, got ", shape_to_string(chunks));
    chunks[a] = std::min(chunks[a], std::max<int64_t>(1, shape[a]));
  }
  return chunks;
}

Status read_box_from_chunks(const Shape& shape, const Shape& chunk_shape, int64_t itemsize, const Box& box,
                            void* out, const std::function<Status(const Shape&, void*)>& load) {
  const int64_t nd = box.ndim();
  if (box.numel() == 0) return Status::OK();
  // Per axis: the chunks holding wanted positions, each with (first position, local index, run).
  struct Run {
    int64_t chunk, pos0, local0, n;
  };
  std::vector<std::vector<Run>> runs(nd);
  for (int64_t a = 0; a < nd; ++a) {
    for (int64_t k = 0; k < box.count[a]; ++k) {
      const int64_t idx = box.start[a] + k * box.step[a];
      const int64_t c = idx / chunk_shape[a], local = idx % chunk_shape[a];
      if (!runs[a].empty() && runs[a].back().chunk == c) {
        ++runs[a].back().n;
      } else {
        runs[a].push_back(Run{c, k, local, 1});
      }
    }
  }
  // A chunk may appear in several runs of an axis only if the steps revisit it (never: steps are
  // monotone), so each chunk is loaded exactly once.
  STRATA_ASSIGN_OR_RETURN(int64_t chunk_numel, shape_numel(chunk_shape));
  STRATA_ASSIGN_OR_RETURN(Buffer scratch, Buffer::allocate(std::max<int64_t>(1, chunk_numel) * itemsize));
  Shape pick(nd, 0), cidx(nd), src_off(nd), cnt(nd), dst_off(nd), sstep(nd);
  while (true) {
    for (int64_t a = 0; a < nd; ++a) {
      const Run& r = runs[a][pick[a]];
      cidx[a] = r.chunk;
      src_off[a] = r.local0;
      dst_off[a] = r.pos0;
      cnt[a] = r.n;
      sstep[a] = box.step[a];
    }
    STRATA_RETURN_NOT_OK(load(cidx, scratch.data()));
    copy_strided(scratch.data(), chunk_shape, src_off, sstep, out, box.count, dst_off, cnt, itemsize);
    int64_t a = nd - 1;
    for (; a >= 0; --a) {
      if (++pick[a] < static_cast<int64_t>(runs[a].size())) break;
      pick[a] = 0;
    }
    if (a < 0) break;
  }
  (void)shape;
  return Status::OK();
}

}  // namespace strata::detail
