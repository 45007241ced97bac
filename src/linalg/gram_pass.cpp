// Y = AᵀA·Q in one pass: per block W_b = A_b·Q, then Y += A_bᵀ·W_b over fixed column slices.
#include <cblas.h>

#include <algorithm>
#include <optional>
#include <type_traits>
#include <vector>

#include "linalg/gram_pass_internal.hpp"
#include "strata/core/shape.hpp"
#include "strata/core/thread_pool.hpp"

namespace strata::linalg {
namespace {

// Columns of Y per phase-2 task: fixed (not derived from the thread count) so that the
// products, and hence the bits, do not depend on how many threads run them.
constexpr int64_t kSliceCols = 256;

template <class T>
void gemm(CBLAS_TRANSPOSE ta, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb,
          T beta, T* c, int64_t ldc) {
  if constexpr (std::is_same_v<T, float>) {
    cblas_sgemm(CblasColMajor, ta, CblasNoTrans, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), 1.0f,
                a, static_cast<int>(lda), b, static_cast<int>(ldb), beta, c, static_cast<int>(ldc));
  } else {
    cblas_dgemm(CblasColMajor, ta, CblasNoTrans, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), 1.0,
                a, static_cast<int>(lda), b, static_cast<int>(ldb), beta, c, static_cast<int>(ldc));
  }
}

template <class T>
Status gram_pass_t(const RowBlockSource& source, const BlockPlan& plan, const PassEnv& options,
                   const DenseMatrix& q, ScratchPool& scratch, DenseMatrix& y) {
  const int64_t n = source.cols(), w = q.cols;
  options.ctx->report().add_pass(plan.num_blocks);
  std::vector<T> qt(q.data.begin(), q.data.end());
  y = DenseMatrix(n, w);
  ThreadPool& pool = options.ctx->pool();
  use_single_threaded_blas();
  const int64_t group = std::max<int64_t>(2, 2 * static_cast<int64_t>(pool.size()));
  const int64_t num_slices = ceil_div(n, kSliceCols);
  const size_t slots = static_cast<size_t>(std::min(group, std::max<int64_t>(1, plan.num_blocks)));
  std::vector<std::optional<ScratchPool::Lease>> blocks(slots), ws(slots);

  for (int64_t g0 = 0; g0 < plan.num_blocks; g0 += group) {
    STRATA_RETURN_NOT_OK(options.ctx->check_cancelled());
    const int64_t ng = std::min(group, plan.num_blocks - g0);
    STRATA_RETURN_NOT_OK(pool.parallel_for(ng, [&](int64_t j) -> Status {
      const int64_t b = g0 + j, rows = plan.count(b);
      STRATA_ASSIGN_OR_RETURN(auto la, scratch.acquire(rows * n * static_cast<int64_t>(sizeof(T))));
      STRATA_ASSIGN_OR_RETURN(auto lw, scratch.acquire(rows * w * static_cast<int64_t>(sizeof(T))));
      T* a = la.template as<T>();
      T* wb = lw.template as<T>();
      STRATA_RETURN_NOT_OK(source.read_block(plan.start(b), rows, a));
      // The row-major block is Aᵀ in column-major: W = (Aᵀ)ᵀ·Q.
      gemm<T>(CblasTrans, rows, w, n, a, n, qt.data(), n, T(0), wb, rows);
      blocks[static_cast<size_t>(j)].emplace(std::move(la));
      ws[static_cast<size_t>(j)].emplace(std::move(lw));
      return Status::OK();
    }));
    STRATA_RETURN_NOT_OK(pool.parallel_for(num_slices, [&](int64_t s) -> Status {
      const int64_t c0 = s * kSliceCols, nc = std::min(kSliceCols, n - c0);
      thread_local std::vector<T> tmp;
      for (int64_t j = 0; j < ng; ++j) {
        const int64_t rows = plan.count(g0 + j);
        const T* a = blocks[static_cast<size_t>(j)]->template as<T>() + c0;
        const T* wb = ws[static_cast<size_t>(j)]->template as<T>();
        if constexpr (std::is_same_v<T, double>) {
          gemm<T>(CblasNoTrans, nc, w, rows, a, n, wb, rows, 1.0, y.data.data() + c0, n);
        } else {
          // float products, float64 accumulation across blocks.
          tmp.resize(static_cast<size_t>(nc * w));
          gemm<T>(CblasNoTrans, nc, w, rows, a, n, wb, rows, 0.0f, tmp.data(), nc);
          for (int64_t c = 0; c < w; ++c) {
            double* yc = y.col(c) + c0;
            const float* tc = tmp.data() + c * nc;
            for (int64_t i = 0; i < nc; ++i) yc[i] += static_cast<double>(tc[i]);
          }
        }
      }
      return Status::OK();
    }));
    for (int64_t j = 0; j < ng; ++j) {
      blocks[static_cast<size_t>(j)].reset();
      ws[static_cast<size_t>(j)].reset();
      options.ctx->advance_progress(plan.count(g0 + j));
    }
  }
  return Status::OK();
}

}  // namespace

Result<BlockPlan> plan_gram(const RowBlockSource& source, const PassEnv& options, int64_t elem_bytes) {
  STRATA_ASSIGN_OR_RETURN(int64_t row_bytes, checked_mul(source.cols(), elem_bytes));
  return plan_blocks(source, options, row_bytes);
}

Status gram_pass(const RowBlockSource& source, const BlockPlan& plan, const PassEnv& options,
                 const DenseMatrix& q, bool use_float, ScratchPool& scratch, DenseMatrix& y) {
  return use_float ? gram_pass_t<float>(source, plan, options, q, scratch, y)
                   : gram_pass_t<double>(source, plan, options, q, scratch, y);
}

}  // namespace strata::linalg
