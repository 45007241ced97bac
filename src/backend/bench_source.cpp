// The benchmark data sources: the argument checks every runner shares, and the host runner —
// the reference — on the backend's own random_fill and gemm.
#include "strata/backend/bench_source.hpp"

#include <algorithm>
#include <vector>

#include "backend/checks.hpp"

namespace strata::backend {

Result<double> BenchSource::random_slice_sum(const random::FillParams& p, int64_t ld, int64_t r0, int64_t rstep,
                                             int64_t rows, int64_t c0, int64_t cstep, int64_t cols,
                                             double add) const {
  STRATA_RETURN_NOT_OK(detail::check_random_slice(p, ld, r0, rstep, rows, c0, cstep, cols));
  if (rows == 0 || cols == 0) return 0.0;
  if (device_) return device_->random_slice_sum(p, ld, r0, rstep, rows, c0, cstep, cols, add);
  // Row by row in runs of 4096: each row summed in order, the row sums added in order.
  constexpr int64_t kRun = 4096;
  std::vector<double> buf(static_cast<size_t>(std::min(cols, kRun)));
  double total = 0;
  for (int64_t i = 0; i < rows; ++i) {
    const int64_t row0 = (r0 + i * rstep) * ld + c0;
    double row = 0;
    for (int64_t j = 0; j < cols; j += kRun) {
      const int64_t n = std::min(kRun, cols - j);
      STRATA_RETURN_NOT_OK(be_.random_fill(p, row0 + j * cstep, cstep, n, buf.data()));
      for (int64_t k = 0; k < n; ++k) row += buf[static_cast<size_t>(k)] + add;
    }
    total += row;
  }
  return total;
}

// On the host: the block generated as linalg's RandInt3 source reads it (row-major float64),
// then the backend's own dgemm calls, as the float64 gram pass makes them.
Status BenchSource::randint3_product(const RandInt3Rows& a, RandInt3Op op, MatrixView<const double> x,
                                     MatrixView<double> out) const {
  int64_t inner = 0, l = 0;
  STRATA_RETURN_NOT_OK(detail::check_randint3(a, op, x, out, &inner, &l));
  if (detail::randint3_trivial(a, op, inner, l, out)) return Status::OK();
  if (device_) return device_->randint3_product(a, op, x, out);
  const int64_t n = a.rows * a.cols;
  std::vector<uint8_t> codes(static_cast<size_t>(n));
  random::fill_randint3(a.seed, 0, a.r0 * a.cols, n, codes.data());
  std::vector<double> block(codes.begin(), codes.end());
  const auto av = row_major<const double>(block.data(), a.rows, a.cols);
  if (op == RandInt3Op::Times) return be_.gemm(Trans::No, Trans::No, 1.0, av, x, 0.0, out);
  if (op == RandInt3Op::TransTimes) return be_.gemm(Trans::Yes, Trans::No, 1.0, av, x, 0.0, out);
  std::vector<double> y(static_cast<size_t>(a.rows * l));
  const auto yv = col_major(y.data(), a.rows, l);
  STRATA_RETURN_NOT_OK(be_.gemm(Trans::No, Trans::No, 1.0, av, x, 0.0, yv));
  return be_.gemm(Trans::Yes, Trans::No, 1.0, av, MatrixView<const double>(yv), 0.0, out);
}

}  // namespace strata::backend
