// Run bookkeeping and the evaluation of reductions: one pass over the reduced input's blocks
// (a grid fixed by its shape, not its chunks), per-block partial states (bounded by the window)
// merged in block order.
#include "exec/run_context.hpp"

#include <algorithm>
#include <unordered_set>

#include "strata/core/buffer.hpp"
#include "strata/core/thread_pool.hpp"

namespace strata::detail {
namespace {

// Input bytes of one block of a reduction pass.
constexpr int64_t kReduceBlockBytes = int64_t{8} << 20;

// The blocks a reduction's partials are taken over: fixed by the input's shape and item size
// (about kReduceBlockBytes, whole trailing axes first), never by its chunking, so float sums
// associate the same way — the same bits — however the input is chunked, stored or held.
Shape reduce_block_shape(const Shape& shape, int64_t itemsize) {
  Shape b(shape.size(), 1);
  int64_t room = std::max<int64_t>(1, kReduceBlockBytes / std::max<int64_t>(1, itemsize));
  for (size_t d = shape.size(); d-- > 0;) {
    const int64_t extent = std::max<int64_t>(1, shape[d]);
    if (extent <= room) {
      b[d] = extent;
      room /= extent;
    } else {
      b[d] = room;
      break;
    }
  }
  return b;
}

}  // namespace

Result<PassGrid> PassGrid::make(const std::vector<Array>& arrays, Shape block_shape) {
  if (arrays.empty()) return Status::Invalid("a pass needs at least one array");
  for (const Array& a : arrays) {
    STRATA_RETURN_NOT_OK(a.status());
    if (a.shape() != arrays[0].shape()) {
      return Status::Invalid("arrays of a pass must have the same shape: ", shape_to_string(arrays[0].shape()),
                             " vs ", shape_to_string(a.shape()));
    }
  }
  if (block_shape.empty()) block_shape = arrays[0].chunks();
  STRATA_ASSIGN_OR_RETURN(Shape bs, normalize_chunks(arrays[0].shape(), std::move(block_shape), 8));
  STRATA_ASSIGN_OR_RETURN(ChunkGrid g, ChunkGrid::make(arrays[0].shape(), bs));
  return PassGrid{std::move(g)};
}

BlockInfo PassGrid::info(int64_t i) const {
  BlockInfo b;
  b.index = i;
  b.grid_index = grid.unravel(i);
  b.origin = grid.chunk_origin(b.grid_index);
  b.extent = grid.chunk_extent(b.grid_index);
  return b;
}

int64_t PassGrid::block_bytes(const std::vector<Array>& arrays) const {
  int64_t bytes = 0;
  const Box box = Box::dense(Shape(grid.ndim(), 0), grid.chunk_shape());
  for (const Array& a : arrays) bytes += grid.chunk_numel() * a.dtype().itemsize() + a.node()->working_bytes(box);
  return bytes;
}

RunContext::RunContext(const Context& ctx, const PassOptions& options)
    : ctx_(ctx),
      options_(options),
      progress_(ctx, options.label.empty() ? "compute" : options.label, 0, "blocks"),
      start_(std::chrono::steady_clock::now()) {}

EvalContext RunContext::eval_context() {
  EvalContext c;
  c.stats = &stats_;
  c.pool = &ctx_.pool();
  c.backend = &backend::of(ctx_);
  c.materialized = &materialized_;
  c.context = &ctx_;
  return c;
}

PassOptions RunContext::pass_options(const std::string& label) const {
  PassOptions o = options_;
  o.label = label;
  return o;
}

void RunContext::finish_pass(const std::string& label, std::chrono::steady_clock::time_point t0) {
  local_.add_phase(label, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}

Status RunContext::run_pass(int64_t blocks, int64_t bytes_per_block, const std::function<Status(int64_t)>& work,
                            const std::function<Status(int64_t)>& commit, const PassOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  start_pass(blocks);
  Status st = run_blocks(ctx_, blocks, bytes_per_block, work, commit, o);
  finish_pass(o.label, t0);
  return st;
}

Result<Buffer> RunContext::read_block(const Node& n, const BlockInfo& info, int64_t itemsize) {
  const Box box = Box::dense(info.origin, info.extent);
  STRATA_ASSIGN_OR_RETURN(Buffer b, Buffer::allocate(std::max<int64_t>(1, box.numel()) * itemsize));
  EvalContext ctx = eval_context();
  STRATA_RETURN_NOT_OK(n.read_box(box, b.data(), ctx));
  return b;
}

void RunContext::finish() {
  RunReport r = local_;
  stats_.add_to(r);
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  ctx_.report().merge(r);
}

const HostArray* RunContext::materialized(const Node* n) const {
  auto it = materialized_.find(n);
  return it == materialized_.end() ? nullptr : &it->second;
}

Status RunContext::prepare(const std::vector<Array>& roots) {
  for (const Array& a : roots) {
    STRATA_RETURN_NOT_OK(a.status());
    STRATA_RETURN_NOT_OK(prepare_node(a.node().get()));
  }
  return Status::OK();
}

Status RunContext::prepare_node(const Node* root) {
  // Post-order walk: inputs first, so a reduction's input never reads an unevaluated reduction.
  std::unordered_set<const Node*> seen;
  std::vector<std::pair<const Node*, bool>> stack{{root, false}};
  while (!stack.empty()) {
    auto [n, expanded] = stack.back();
    stack.pop_back();
    if (expanded) {
      if (n->kind() == NodeKind::Reduce && !materialized_.count(n)) {
        STRATA_RETURN_NOT_OK(evaluate_reduce(static_cast<const ReduceNode&>(*n)));
      }
      continue;
    }
    if (!seen.insert(n).second) continue;
    stack.push_back({n, true});
    for (const Node* c : n->inputs()) stack.push_back({c, false});
  }
  return Status::OK();
}

Status RunContext::evaluate_reduce(const ReduceNode& r) {
  const Node& in = *r.input();
  STRATA_ASSIGN_OR_RETURN(ChunkGrid grid,
                          ChunkGrid::make(in.shape(), reduce_block_shape(in.shape(), in.dtype().itemsize())));
  const int64_t isz = r.state_itemsize();
  STRATA_ASSIGN_OR_RETURN(Buffer total, Buffer::allocate(std::max<int64_t>(1, r.state_elems()) * isz));
  r.init_state(total.data(), r.state_elems());
  const std::string label = r.label();
  PassOptions o = pass_options(label);
  const int64_t slots = std::max<int64_t>(1, pass_window(ctx_, o));
  std::vector<Buffer> parts(slots);
  std::vector<Shape> origins(slots), extents(slots);
  const Box full = Box::dense(Shape(grid.ndim(), 0), grid.chunk_shape());
  int64_t kept_numel = 1;
  for (int64_t e : r.kept_shape(full)) kept_numel *= e;
  const int64_t bytes = (in.tileable() ? 0 : grid.chunk_numel() * in.dtype().itemsize()) + in.working_bytes(full) +
                        kept_numel * isz;
  Status st = run_pass(
      grid.num_chunks(), bytes,
      [&](int64_t i) -> Status {
        const Shape idx = grid.unravel(i);
        const Box box = Box::dense(grid.chunk_origin(idx), grid.chunk_extent(idx));
        const Shape kept = r.kept_shape(box);
        int64_t kn = 1;
        for (int64_t e : kept) kn *= e;
        STRATA_ASSIGN_OR_RETURN(Buffer part, Buffer::allocate(std::max<int64_t>(1, kn) * isz));
        r.init_state(part.data(), kn);
        EvalContext ctx = eval_context();
        STRATA_RETURN_NOT_OK(r.accumulate(box, ctx, part.data()));
        const int64_t s = i % slots;
        parts[s] = std::move(part);
        origins[s] = r.kept_shape(Box{box.start, box.step, box.start});
        extents[s] = kept;
        return Status::OK();
      },
      [&](int64_t i) -> Status {
        const int64_t s = i % slots;
        r.merge(total.data(), parts[s].data(), origins[s], extents[s]);
        parts[s] = Buffer();
        return Status::OK();
      },
      o);
  STRATA_RETURN_NOT_OK(st);
  STRATA_ASSIGN_OR_RETURN(HostArray out, HostArray::allocate(r.shape(), r.dtype()));
  r.finalize(total.data(), out.raw());
  materialized_[&r] = std::move(out);
  return Status::OK();
}

}  // namespace strata::detail
