// Matrix product of chunked 2-d arrays. An output box is produced by streaming the contraction
// axis in chunks of `a`: each step reads the needed rows of `a` and columns of `b` for that
// k-range (so a slice of the product reads only what it needs) and accumulates with a
// cache-blocked i-k-j kernel. The k order is fixed, so results do not depend on threads or on
// how the contraction axis is chunked.
//
// Own kernel rather than BLAS: the array layer has no BLAS dependency, block kernels must stay
// single-threaded (the executor owns parallelism), and integers need exact 64-bit accumulation.
#include <algorithm>
#include <cstring>

#include "array/elementwise.hpp"
#include "array/nodes.hpp"
#include "strata/core/buffer.hpp"
#include "strata/core/context.hpp"

namespace strata {
namespace detail {
namespace {

template <class T>
void gemm_acc(const T* a, const T* b, T* c, int64_t m, int64_t k, int64_t n) {
  constexpr int64_t kBlockK = 128, kBlockN = 512;
  for (int64_t j0 = 0; j0 < n; j0 += kBlockN) {
    const int64_t nj = std::min(kBlockN, n - j0);
    for (int64_t k0 = 0; k0 < k; k0 += kBlockK) {
      const int64_t nk = std::min(kBlockK, k - k0);
      for (int64_t i = 0; i < m; ++i) {
        T* ci = c + i * n + j0;
        for (int64_t kk = k0; kk < k0 + nk; ++kk) {
          const T aik = a[i * k + kk];
          const T* bk = b + kk * n + j0;
          for (int64_t j = 0; j < nj; ++j) ci[j] += aik * bk[j];
        }
      }
    }
  }
}

}  // namespace

MatmulNode::MatmulNode(NodePtr a, NodePtr b, DType out)
    : Node(NodeKind::Matmul, {a->shape()[0], b->shape()[1]}, out, {a->chunks()[0], b->chunks()[1]}),
      a_(std::move(a)),
      b_(std::move(b)) {}

int64_t MatmulNode::working_bytes(const Box& box) const {
  const int64_t kc = a_->chunks()[1];
  const Box ab{{0, 0}, {1, 1}, {box.count[0], kc}}, bb{{0, 0}, {1, 1}, {kc, box.count[1]}};
  return 8 * (box.numel() + ab.numel() + bb.numel()) * 2 + a_->working_bytes(ab) + b_->working_bytes(bb);
}

Status MatmulNode::read_box(const Box& box, void* out, EvalContext& ctx) const {
  const int64_t m = box.count[0], n = box.count[1], kdim = a_->shape()[1], kc = a_->chunks()[1];
  const bool integer = !dtype().is_float();
  const ScalarType acc_t = integer ? ScalarType::Int64 : ScalarType::Float64;
  STRATA_ASSIGN_OR_RETURN(Buffer acc, Buffer::zeros(std::max<int64_t>(1, m * n) * 8));
  STRATA_ASSIGN_OR_RETURN(Buffer araw, Buffer::allocate(std::max<int64_t>(1, m * kc) * a_->dtype().itemsize()));
  STRATA_ASSIGN_OR_RETURN(Buffer braw, Buffer::allocate(std::max<int64_t>(1, kc * n) * b_->dtype().itemsize()));
  STRATA_ASSIGN_OR_RETURN(Buffer ac, Buffer::allocate(std::max<int64_t>(1, m * kc) * 8));
  STRATA_ASSIGN_OR_RETURN(Buffer bc, Buffer::allocate(std::max<int64_t>(1, kc * n) * 8));
  for (int64_t k0 = 0; k0 < kdim && m > 0 && n > 0; k0 += kc) {
    // A reduction reads many chunks' worth of product per block: stop between k-chunks once
    // cancelled (Ctrl-C in Python), not after seconds of arithmetic.
    if (ctx.context) STRATA_RETURN_NOT_OK(ctx.context->check_cancelled());
    const int64_t nk = std::min(kc, kdim - k0);
    STRATA_RETURN_NOT_OK(a_->read_box(Box{{box.start[0], k0}, {box.step[0], 1}, {m, nk}}, araw.data(), ctx));
    STRATA_RETURN_NOT_OK(b_->read_box(Box{{k0, box.start[1]}, {1, box.step[1]}, {nk, n}}, braw.data(), ctx));
    STRATA_RETURN_NOT_OK(ctx.be().ew_cast(a_->dtype().type, acc_t, araw.data(), ac.data(), m * nk));
    STRATA_RETURN_NOT_OK(ctx.be().ew_cast(b_->dtype().type, acc_t, braw.data(), bc.data(), nk * n));
    if (integer) {
      gemm_acc(ac.as<int64_t>(), bc.as<int64_t>(), acc.as<int64_t>(), m, nk, n);
    } else {
      gemm_acc(ac.as<double>(), bc.as<double>(), acc.as<double>(), m, nk, n);
    }
  }
  return ctx.be().ew_cast(acc_t, dtype().type, acc.data(), out, m * n);
}

}  // namespace detail

Array matmul(const Array& a, const Array& b) {
  if (!a.ok()) return a;
  if (!b.ok()) return b;
  if (a.ndim() != 2 || b.ndim() != 2) {
    return Array::from_error(Status::Invalid("matmul: need 2-d arrays, got ", shape_to_string(a.shape()), " and ",
                                             shape_to_string(b.shape())));
  }
  if (a.shape()[1] != b.shape()[0]) {
    return Array::from_error(Status::Invalid("matmul: shapes ", shape_to_string(a.shape()), " and ",
                                             shape_to_string(b.shape()), " do not align"));
  }
  auto t = promote_types(a.dtype(), false, b.dtype(), false);
  if (!t.ok()) return Array::from_error(t.status().with_context("matmul"));
  if (t->is_bool()) return Array::from_error(Status::Unsupported("matmul: bool arrays (cast to an integer type)"));
  return Array::from_node(std::make_shared<detail::MatmulNode>(a.node(), b.node(), *t));
}

}  // namespace strata
