// Tile-by-tile evaluation of a fused elementwise program. Cheap inputs (random, host, constants,
// slices of them) are read per tile; inputs that must be decoded or computed a block at a time
// (Zarr, persisted, matmul, map_blocks) are read once per block and sliced per tile.
#include <algorithm>
#include <cstring>

#include "array/elementwise.hpp"
#include "array/nodes.hpp"
#include "strata/core/buffer.hpp"

namespace strata::detail {

ElementwiseNode::ElementwiseNode(Shape shape, Shape chunks, DType dtype, EwProgram program)
    : Node(NodeKind::Elementwise, std::move(shape), dtype, std::move(chunks)), program_(std::move(program)) {}

std::vector<const Node*> ElementwiseNode::inputs() const {
  std::vector<const Node*> v;
  for (const NodePtr& l : program_.leaves) v.push_back(l.get());
  return v;
}

bool ElementwiseNode::tileable() const {
  return std::all_of(program_.leaves.begin(), program_.leaves.end(), [](const NodePtr& l) { return l->tileable(); });
}

namespace {

/// The box of `leaf` feeding output box `box` (numpy right-aligned broadcasting); bcast[a] is
/// set for output axes the leaf repeats along.
Box leaf_box(const Node& leaf, const Shape& out_shape, const Box& box, std::vector<bool>* bcast) {
  const int64_t nd = box.ndim(), lnd = leaf.ndim();
  Box lb{Shape(lnd), Shape(lnd), Shape(lnd)};
  if (bcast) bcast->assign(nd, true);
  for (int64_t la = 0; la < lnd; ++la) {
    const int64_t a = la + nd - lnd;
    if (leaf.shape()[la] == 1 && out_shape[a] != 1) {
      lb.start[la] = 0;
      lb.step[la] = 1;
      lb.count[la] = 1;
    } else {
      lb.start[la] = box.start[a];
      lb.step[la] = box.step[a];
      lb.count[la] = box.count[a];
      if (bcast) (*bcast)[a] = false;
    }
  }
  return lb;
}

/// `count` of rank lnd padded with leading ones to rank nd.
Shape pad_to(const Shape& count, int64_t nd) {
  Shape s(nd, 1);
  std::copy(count.begin(), count.end(), s.begin() + (nd - static_cast<int64_t>(count.size())));
  return s;
}

}  // namespace

int64_t ElementwiseNode::working_bytes(const Box& box) const {
  int64_t bytes = static_cast<int64_t>(program_.reg_type.size() + 1) * kTileElems * 8;
  for (const NodePtr& l : program_.leaves) {
    if (l->tileable()) continue;
    const Box lb = leaf_box(*l, shape(), box, nullptr);
    bytes += lb.numel() * l->dtype().itemsize() + l->working_bytes(lb);
  }
  return bytes;
}

std::string ElementwiseNode::label() const {
  static const char* names[] = {"add", "sub", "mul", "div", "pow", "max", "min", "eq", "ne", "lt", "le", "gt",
                                "ge", "and", "or", "not", "neg", "abs", "sqrt", "exp", "log", "where", "cast"};
  std::string s = "fused(";
  for (size_t i = 0; i < program_.instrs.size(); ++i) {
    s += str_cat(i ? " " : "", names[static_cast<int>(program_.instrs[i].op)]);
  }
  return s + ")";
}

Status ElementwiseNode::stream_box(const Box& box, EvalContext& ctx, const TileSink& sink) const {
  const int64_t nd = box.ndim();
  const size_t nl = program_.leaves.size(), nregs = program_.reg_type.size();
  const backend::Backend& be = ctx.be();
  constexpr int64_t kSlot = kTileElems * 8;
  STRATA_ASSIGN_OR_RETURN(Buffer regs, Buffer::allocate(static_cast<int64_t>(nregs + 2) * kSlot));
  auto reg = [&](size_t r) { return regs.data() + r * kSlot; };
  uint8_t* temp = reg(nregs);
  uint8_t* expanded = reg(nregs + 1);

  struct LeafPlan {
    std::vector<bool> bcast;
    bool any_bcast = false;
    Buffer block;  // non-tileable leaves: the whole block
    Shape block_shape;
  };
  std::vector<LeafPlan> plans(nl);
  for (size_t i = 0; i < nl; ++i) {
    const Node& leaf = *program_.leaves[i];
    if (program_.reg_const[i]) {  // 0-d constant: its single value, once
      EvalContext tmp_ctx = ctx;
      STRATA_RETURN_NOT_OK(leaf.read_box(Box::whole({}), reg(i), tmp_ctx));
      continue;
    }
    const Box lb = leaf_box(leaf, shape(), box, &plans[i].bcast);
    plans[i].any_bcast = std::any_of(plans[i].bcast.begin(), plans[i].bcast.end(), [](bool b) { return b; });
    if (!leaf.tileable()) {
      STRATA_ASSIGN_OR_RETURN(plans[i].block, Buffer::allocate(std::max<int64_t>(1, lb.numel()) * leaf.dtype().itemsize()));
      STRATA_RETURN_NOT_OK(leaf.read_box(lb, plans[i].block.data(), ctx));
      plans[i].block_shape = pad_to(lb.count, nd);
    }
  }

  Status st;
  for_each_tile(box.count, kTileElems, [&](const Shape& off, int64_t rows, int64_t cols) {
    if (!st.ok()) return;
    const int64_t n = rows * cols;
    Shape cnt(nd, 1);
    if (nd >= 1) cnt[nd - 1] = cols;
    if (nd >= 2) cnt[nd - 2] = rows;
    const Shape zeros(nd, 0);
    for (size_t i = 0; i < nl && st.ok(); ++i) {
      if (program_.reg_const[i]) continue;
      const Node& leaf = *program_.leaves[i];
      const LeafPlan& p = plans[i];
      const int64_t isz = leaf.dtype().itemsize();
      Shape step(nd);
      for (int64_t a = 0; a < nd; ++a) step[a] = p.bcast[a] ? 0 : 1;
      if (leaf.tileable()) {
        const Box tb = box.sub(off, cnt);
        const Box lt = leaf_box(leaf, shape(), tb, nullptr);
        if (!p.any_bcast) {
          st = leaf.read_box(lt, reg(i), ctx);
        } else {
          st = leaf.read_box(lt, temp, ctx);
          copy_strided(temp, pad_to(lt.count, nd), zeros, step, reg(i), cnt, zeros, cnt, isz);
        }
      } else {
        Shape src_off(nd);
        for (int64_t a = 0; a < nd; ++a) src_off[a] = p.bcast[a] ? 0 : off[a];
        copy_strided(p.block.data(), p.block_shape, src_off, step, reg(i), cnt, zeros, cnt, isz);
      }
    }
    if (!st.ok()) return;
    for (size_t k = 0; k < program_.instrs.size(); ++k) {
      const EwInstr& in = program_.instrs[k];
      const size_t r = nl + k;
      const int64_t m = program_.reg_const[r] ? 1 : n;
      auto is_c = [&](int x) { return x >= 0 && program_.reg_const[x]; };
      switch (in.op) {
        case EwOp::Cast: st = be.ew_cast(program_.reg_type[in.a], in.type, reg(in.a), reg(r), m); break;
        case EwOp::Where:
          st = be.ew_where(in.type, reg(in.a), is_c(in.a), reg(in.b), is_c(in.b), reg(in.c), is_c(in.c), reg(r), m);
          break;
        case EwOp::Not: case EwOp::Neg: case EwOp::Abs: case EwOp::Sqrt: case EwOp::Exp: case EwOp::Log:
          st = be.ew_unary(in.op, program_.reg_type[in.a], reg(in.a), reg(r), m);
          break;
        default:
          st = be.ew_binary(in.op, program_.reg_type[in.a], reg(in.a), is_c(in.a), reg(in.b), is_c(in.b), reg(r), m);
          break;
      }
      if (!st.ok()) return;
    }
    const uint8_t* res = reg(program_.result);
    if (program_.reg_const[program_.result] && n > 1) {
      const int64_t isz = dtype().itemsize();
      for (int64_t j = 0; j < n; ++j) std::memcpy(expanded + j * isz, res, isz);
      res = expanded;
    }
    sink(Tile{off, rows, cols, res});
  });
  return st;
}

Status ElementwiseNode::read_box(const Box& box, void* out, EvalContext& ctx) const {
  const int64_t nd = box.ndim(), isz = dtype().itemsize();
  return stream_box(box, ctx, [&](const Tile& t) {
    Shape cnt(nd, 1);
    if (nd >= 1) cnt[nd - 1] = t.cols;
    if (nd >= 2) cnt[nd - 2] = t.rows;
    copy_strided(t.data, cnt, Shape(nd, 0), Shape(nd, 1), out, box.count, t.offset, cnt, isz);
  });
}

}  // namespace strata::detail
