// Building fused elementwise expressions: numpy broadcasting and promotion, casts inserted
// where an operation computes in another type, and splicing of elementwise inputs into one
// program (shared sub-expressions and leaves are deduplicated by node identity).
#include <algorithm>
#include <map>

#include "array/elementwise.hpp"
#include "array/nodes.hpp"
#include "strata/array/ops.hpp"

namespace strata {
namespace {

using detail::EwInstr;
using detail::EwOp;
using detail::EwProgram;
using detail::NodePtr;

int kind_rank(DType t) { return t.is_bool() ? 0 : t.is_integer() ? 1 : 2; }

DType signed_of_size(int64_t size) {
  switch (size) {
    case 1: return DType(ScalarType::Int8);
    case 2: return DType(ScalarType::Int16);
    case 4: return DType(ScalarType::Int32);
    default: return DType(ScalarType::Int64);
  }
}

DType promote_strong(DType a, DType b) {
  if (a.type == b.type) return a;
  if (a.is_bool()) return b;
  if (b.is_bool()) return a;
  if (a.is_float() && b.is_float()) return a.itemsize() >= b.itemsize() ? a : b;
  if (a.is_float() || b.is_float()) {
    const DType f = a.is_float() ? a : b, i = a.is_float() ? b : a;
    if (f.type == ScalarType::Float64) return f;
    return i.itemsize() <= 2 ? f : DType(ScalarType::Float64);
  }
  if (a.is_signed_int() == b.is_signed_int()) return a.itemsize() >= b.itemsize() ? a : b;
  const DType s = a.is_signed_int() ? a : b, u = a.is_signed_int() ? b : a;
  if (s.itemsize() > u.itemsize()) return s;
  if (u.itemsize() == 8) return DType(ScalarType::Float64);
  return signed_of_size(2 * u.itemsize());
}

bool is_weak(const Array& a) {
  return a.node()->kind() == detail::NodeKind::Scalar &&
         static_cast<const detail::ConstantNode&>(*a.node()).weak();
}

Result<Shape> broadcast_shapes(const std::vector<Array>& args) {
  size_t nd = 0;
  for (const Array& a : args) nd = std::max(nd, a.shape().size());
  Shape out(nd, 1);
  for (const Array& a : args) {
    const Shape& s = a.shape();
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t& o = out[nd - s.size() + i];
      if (s[i] == o || s[i] == 1) continue;
      if (o == 1) {
        o = s[i];
        continue;
      }
      std::string shapes;
      for (const Array& x : args) shapes += (shapes.empty() ? "" : " and ") + shape_to_string(x.shape());
      return Status::Invalid("operands could not be broadcast together with shapes ", shapes);
    }
  }
  return out;
}

/// Incrementally builds one program from the operands' programs.
class Builder {
 public:
  int import(const Array& a) {
    const NodePtr& n = a.node();
    if (auto it = memo_.find(n.get()); it != memo_.end()) return it->second;
    int reg;
    if (n->kind() == detail::NodeKind::Elementwise) {
      const EwProgram& sub = static_cast<const detail::ElementwiseNode&>(*n).program();
      std::vector<int> map(sub.reg_type.size());
      for (size_t i = 0; i < sub.leaves.size(); ++i) map[i] = leaf(sub.leaves[i]);
      for (size_t i = 0; i < sub.instrs.size(); ++i) {
        EwInstr in = sub.instrs[i];
        in.a = in.a >= 0 ? map[in.a] : -1;
        in.b = in.b >= 0 ? map[in.b] : -1;
        in.c = in.c >= 0 ? map[in.c] : -1;
        map[sub.leaves.size() + i] = emit(in);
      }
      reg = map[sub.result];
    } else {
      reg = leaf(n);
    }
    memo_[n.get()] = reg;
    return reg;
  }
  int cast(int reg, ScalarType t) {
    if (type(reg) == t) return reg;
    return emit(EwInstr{EwOp::Cast, t, reg});
  }
  int emit(EwInstr in) {
    // Leaves keep their register numbers; instructions are renumbered at finish().
    instrs_.push_back(in);
    const int id = kInstrBase + static_cast<int>(instrs_.size()) - 1;
    types_[id] = in.type;
    bool c = is_const(in.a) && (in.b < 0 || is_const(in.b)) && (in.c < 0 || is_const(in.c));
    const_[id] = c;
    return id;
  }
  ScalarType type(int reg) const { return reg < kInstrBase ? p_.reg_type[reg] : types_.at(reg); }
  EwProgram finish(int result) {
    const int nl = static_cast<int>(p_.leaves.size());
    auto fix = [&](int r) { return r < 0 ? -1 : r >= kInstrBase ? nl + (r - kInstrBase) : r; };
    for (EwInstr in : instrs_) {
      in.a = fix(in.a);
      in.b = fix(in.b);
      in.c = fix(in.c);
      p_.instrs.push_back(in);
    }
    for (size_t i = 0; i < instrs_.size(); ++i) {
      p_.reg_type.push_back(instrs_[i].type);
      p_.reg_const.push_back(const_.at(kInstrBase + static_cast<int>(i)));
    }
    p_.result = fix(result);
    return std::move(p_);
  }

 private:
  static constexpr int kInstrBase = 1 << 24;
  bool is_const(int r) const { return r < 0 || (r < kInstrBase ? p_.reg_const[r] : const_.at(r)); }
  int leaf(const NodePtr& n) {
    for (size_t i = 0; i < p_.leaves.size(); ++i) {
      if (p_.leaves[i].get() == n.get()) return static_cast<int>(i);
    }
    p_.leaves.push_back(n);
    p_.reg_type.push_back(n->dtype().type);
    p_.reg_const.push_back(n->kind() == detail::NodeKind::Scalar && n->shape().empty());
    return static_cast<int>(p_.leaves.size()) - 1;
  }
  EwProgram p_;
  std::vector<EwInstr> instrs_;
  std::map<int, ScalarType> types_;
  std::map<int, bool> const_;
  std::map<const detail::Node*, int> memo_;
};

Shape pick_chunks(const std::vector<Array>& args, const Shape& out, DType dtype) {
  for (const Array& a : args) {
    if (a.shape() == out) return a.chunks();
  }
  return detail::default_chunks(out, dtype.itemsize());
}

/// Result / compute types of an op on operands of the given dtypes.
struct OpTypes {
  ScalarType compute, result;
};

Result<OpTypes> op_types(EwOp op, const std::vector<Array>& args) {
  const DType a = args[0].dtype();
  switch (op) {
    case EwOp::Not: case EwOp::And: case EwOp::Or:
      return OpTypes{ScalarType::Bool, ScalarType::Bool};
    case EwOp::Neg:
      if (a.is_bool()) return Status::Invalid("negative: not supported for bool arrays (use logical_not)");
      return OpTypes{a.type, a.type};
    case EwOp::Abs: return OpTypes{a.type, a.type};
    case EwOp::Sqrt: case EwOp::Exp: case EwOp::Log: {
      const ScalarType t = a.type == ScalarType::Float32 ? ScalarType::Float32 : ScalarType::Float64;
      return OpTypes{t, t};
    }
    case EwOp::Where: {
      STRATA_ASSIGN_OR_RETURN(DType t, promote_types(args[1].dtype(), is_weak(args[1]), args[2].dtype(), is_weak(args[2])));
      return OpTypes{t.type, t.type};
    }
    default: break;
  }
  STRATA_ASSIGN_OR_RETURN(DType t, promote_types(a, is_weak(args[0]), args[1].dtype(), is_weak(args[1])));
  switch (op) {
    case EwOp::Eq: case EwOp::Ne: case EwOp::Lt: case EwOp::Le: case EwOp::Gt: case EwOp::Ge:
      return OpTypes{t.type, ScalarType::Bool};
    case EwOp::Div:
      if (!t.is_float()) t = DType(ScalarType::Float64);
      return OpTypes{t.type, t.type};
    case EwOp::Add: case EwOp::Sub: case EwOp::Mul: case EwOp::Pow:
      if (t.is_bool()) t = DType(ScalarType::Int64);  // documented deviation from numpy
      return OpTypes{t.type, t.type};
    default:
      return OpTypes{t.type, t.type};
  }
}

const char* op_name(EwOp op) {
  static const char* names[] = {"add", "subtract", "multiply", "divide", "power", "maximum", "minimum",
                                "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
                                "logical_and", "logical_or", "logical_not", "negative", "abs", "sqrt",
                                "exp", "log", "where", "astype"};
  return names[static_cast<int>(op)];
}

Array make_op(EwOp op, std::vector<Array> args, std::optional<DType> cast_to = std::nullopt) {
  for (const Array& a : args) {
    if (!a.ok()) return a;
    if (a.dtype().type == ScalarType::Float16) {
      return Array::from_error(Status::Unsupported(op_name(op), ": float16 arrays cannot be computed on"));
    }
  }
  auto shape = broadcast_shapes(args);
  if (!shape.ok()) return Array::from_error(shape.status().with_context(op_name(op)));
  OpTypes types{};
  if (op == EwOp::Cast) {
    types = {cast_to->type, cast_to->type};
  } else {
    auto t = op_types(op, args);
    if (!t.ok()) return Array::from_error(t.status().with_context(op_name(op)));
    types = *t;
  }
  Builder b;
  std::vector<int> regs;
  for (const Array& a : args) regs.push_back(b.import(a));
  int result;
  if (op == EwOp::Cast) {
    result = b.cast(regs[0], types.result);
  } else if (op == EwOp::Where) {
    result = b.emit(EwInstr{op, types.result, b.cast(regs[0], ScalarType::Bool), b.cast(regs[1], types.compute),
                            b.cast(regs[2], types.compute)});
  } else if (args.size() == 1) {
    result = b.emit(EwInstr{op, types.result, b.cast(regs[0], types.compute)});
  } else {
    result = b.emit(EwInstr{op, types.result, b.cast(regs[0], types.compute), b.cast(regs[1], types.compute)});
  }
  if (op == EwOp::Cast && result == regs[0] && args[0].shape() == *shape) return args[0];
  Shape chunks = pick_chunks(args, *shape, DType(types.result));
  return Array::from_node(std::make_shared<detail::ElementwiseNode>(std::move(*shape), std::move(chunks),
                                                                     DType(types.result), b.finish(result)));
}

}  // namespace

Result<DType> promote_types(DType a, bool a_weak, DType b, bool b_weak) {
  if (a.type == ScalarType::Float16 || b.type == ScalarType::Float16) {
    return Status::Unsupported("float16 arrays cannot be computed on");
  }
  a = a.native();
  b = b.native();
  if (a_weak != b_weak) {  // a Python scalar adopts the array's type unless its kind is higher
    const DType w = a_weak ? a : b, s = a_weak ? b : a;
    if (kind_rank(w) <= kind_rank(s)) return s;
    return w.is_float() ? DType(ScalarType::Float64) : DType(ScalarType::Int64);
  }
  return promote_strong(a, b);
}

Array add(const Array& a, const Array& b) { return make_op(EwOp::Add, {a, b}); }
Array subtract(const Array& a, const Array& b) { return make_op(EwOp::Sub, {a, b}); }
Array multiply(const Array& a, const Array& b) { return make_op(EwOp::Mul, {a, b}); }
Array divide(const Array& a, const Array& b) { return make_op(EwOp::Div, {a, b}); }
Array power(const Array& a, const Array& b) { return make_op(EwOp::Pow, {a, b}); }
Array maximum(const Array& a, const Array& b) { return make_op(EwOp::Max, {a, b}); }
Array minimum(const Array& a, const Array& b) { return make_op(EwOp::Min, {a, b}); }
Array equal(const Array& a, const Array& b) { return make_op(EwOp::Eq, {a, b}); }
Array not_equal(const Array& a, const Array& b) { return make_op(EwOp::Ne, {a, b}); }
Array less(const Array& a, const Array& b) { return make_op(EwOp::Lt, {a, b}); }
Array less_equal(const Array& a, const Array& b) { return make_op(EwOp::Le, {a, b}); }
Array greater(const Array& a, const Array& b) { return make_op(EwOp::Gt, {a, b}); }
Array greater_equal(const Array& a, const Array& b) { return make_op(EwOp::Ge, {a, b}); }
Array logical_and(const Array& a, const Array& b) { return make_op(EwOp::And, {a, b}); }
Array logical_or(const Array& a, const Array& b) { return make_op(EwOp::Or, {a, b}); }
Array logical_not(const Array& a) { return make_op(EwOp::Not, {a}); }
Array where(const Array& c, const Array& a, const Array& b) { return make_op(EwOp::Where, {c, a, b}); }
Array abs(const Array& a) { return make_op(EwOp::Abs, {a}); }
Array negative(const Array& a) { return make_op(EwOp::Neg, {a}); }
Array sqrt(const Array& a) { return make_op(EwOp::Sqrt, {a}); }
Array exp(const Array& a) { return make_op(EwOp::Exp, {a}); }
Array log(const Array& a) { return make_op(EwOp::Log, {a}); }
Array clip(const Array& a, const Array& lo, const Array& hi) { return minimum(maximum(a, lo), hi); }

Array astype(const Array& a, DType dtype) {
  if (dtype.type == ScalarType::Float16) return Array::from_error(Status::Unsupported("astype: float16"));
  return make_op(EwOp::Cast, {a}, dtype.native());
}

Array Array::astype(DType dtype) const { return strata::astype(*this, dtype); }

}  // namespace strata
