#pragma once
// Internal node protocol of the lazy array graph.
//
// Every node can produce any *strided box* of its values: per axis a start, a step (possibly
// negative) and a count. Slices, transposes and broadcasts only rewrite the box and pass it to
// their inputs, so a slice reaches the sources by construction (a random source generates only
// the elements asked for, a chunked source decodes only the chunks the box touches).
//
// Two ways to read a box:
//   read_box   — write all values densely (C order) into `out`;
//   stream_box — hand the values to a sink tile by tile (row segments of at most kTileElems),
//                so reductions over generated or fused data never hold a whole block.

#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "strata/array/host_array.hpp"
#include "strata/backend/backend.hpp"
#include "strata/core/dtype.hpp"
#include "strata/core/result.hpp"
#include "strata/core/shape.hpp"
#include "strata/core/report.hpp"

namespace strata {
class ThreadPool;
}

namespace strata::detail {

/// Elements per tile: big enough to amortize per-tile work, small enough to stay in L1/L2.
inline constexpr int64_t kTileElems = 8192;

/// Element k along axis a is start[a] + k * step[a], for k < count[a].
struct Box {
  Shape start, step, count;
  int64_t ndim() const { return static_cast<int64_t>(count.size()); }
  int64_t numel() const;
  /// The whole array of `shape`.
  static Box whole(const Shape& shape);
  /// Unit-step box [start, start + count).
  static Box dense(const Shape& start, const Shape& count);
  /// The sub-box of `offset`/`count` positions of this box (positions, not array indices).
  Box sub(const Shape& offset, const Shape& count) const;
};

class Node;

/// Per-run state threaded through reads: counters, the pool (for nested region reads) and
/// reductions already evaluated in this run.
struct EvalContext {
  EvalStats* stats = nullptr;
  ThreadPool* pool = nullptr;
  const backend::Backend* backend = nullptr;  ///< block kernels run here (null: the CPU backend)
  const backend::Backend& be() const { return backend ? *backend : *backend::cpu_backend(); }
  const std::unordered_map<const Node*, HostArray>* materialized = nullptr;
  const Context* context = nullptr;  ///< its cancel() stops long node kernels (matmul) between steps
};

/// A tile: rows x cols values (dense, the node's dtype) at `offset` (positions within the box).
/// Tiles vary only along the last two axes; all other axes have extent 1 in a tile.
struct Tile {
  Shape offset;
  int64_t rows = 1, cols = 1;
  const void* data = nullptr;
};
using TileSink = std::function<void(const Tile&)>;

/// Calls fn(offset, rows, cols) over the box positions in C order, tiles of <= max_elems.
void for_each_tile(const Shape& count, int64_t max_elems,
                   const std::function<void(const Shape& offset, int64_t rows, int64_t cols)>& fn);

/// Strided copy of the `count` box from a dense C-order source `src` (shape src_shape) at
/// positions src_off with per-axis position steps src_step (0 = broadcast), into dense `dst`
/// (shape dst_shape) at dst_off. itemsize bytes per element.
void copy_strided(const void* src, const Shape& src_shape, const Shape& src_off, const Shape& src_step,
                  void* dst, const Shape& dst_shape, const Shape& dst_off, const Shape& count,
                  int64_t itemsize);

enum class NodeKind {
  Scalar, Host, Random, Zarr, Persisted, Elementwise, Slice, Transpose, Rechunk, Reduce,
  Matmul, MapBlocks, Concat, Reshape,
};

class Node {
 public:
  Node(NodeKind kind, Shape shape, DType dtype, Shape chunks)
      : kind_(kind), shape_(std::move(shape)), dtype_(dtype), chunks_(std::move(chunks)) {}
  virtual ~Node() = default;

  NodeKind kind() const { return kind_; }
  const Shape& shape() const { return shape_; }
  DType dtype() const { return dtype_; }
  const Shape& chunks() const { return chunks_; }
  int64_t ndim() const { return static_cast<int64_t>(shape_.size()); }

  virtual std::vector<const Node*> inputs() const { return {}; }
  /// Dense C-order values of `box` into `out` (box.numel() * itemsize bytes).
  virtual Status read_box(const Box& box, void* out, EvalContext& ctx) const = 0;
  /// Values of `box` tile by tile. Default: read_box into a temporary, then tiles of it.
  virtual Status stream_box(const Box& box, EvalContext& ctx, const TileSink& sink) const;
  /// True when reading a small box is cheap (no chunk decode / block computation), so fused
  /// kernels read such inputs tile by tile instead of block by block.
  virtual bool tileable() const { return false; }
  /// Bytes a read of `box` holds at once beyond `out` (for the memory budget).
  virtual int64_t working_bytes(const Box& box) const { return 0; }
  /// One-line description for Array::describe().
  virtual std::string label() const = 0;

 private:
  NodeKind kind_;
  Shape shape_;
  DType dtype_;
  Shape chunks_;
};

using NodePtr = std::shared_ptr<const Node>;

/// Default chunks for a shape: rows of about `target_bytes` (whole trailing axes).
Shape default_chunks(const Shape& shape, int64_t itemsize, int64_t target_bytes = 16 << 20);
/// Validate shape/chunks (same rank, chunks >= 1 clipped to shape; empty chunks = default).
Result<Shape> normalize_chunks(const Shape& shape, Shape chunks, int64_t itemsize);

/// Stats helpers (stats may be null).
inline void count_generated(EvalContext& ctx, int64_t n) {
  if (ctx.stats) ctx.stats->elements_generated.fetch_add(n, std::memory_order_relaxed);
}
inline void count_chunk(EvalContext& ctx, int64_t encoded, int64_t decoded) {
  if (!ctx.stats) return;
  ctx.stats->chunks_read.fetch_add(1, std::memory_order_relaxed);
  ctx.stats->bytes_read.fetch_add(encoded, std::memory_order_relaxed);
  ctx.stats->bytes_decoded.fetch_add(decoded, std::memory_order_relaxed);
}

/// Reads `box` of a chunked store: for every chunk holding a wanted element, `load(chunk_index,
/// buffer)` fills the full chunk (chunk_shape, C order) and the wanted elements are copied out.
/// Used by the Zarr and persisted sources; only chunks that hold an element are loaded.
Status read_box_from_chunks(const Shape& shape, const Shape& chunk_shape, int64_t itemsize, const Box& box,
                            void* out, const std::function<Status(const Shape&, void*)>& load);

}  // namespace strata::detail
