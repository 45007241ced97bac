// Benchmark-source conformance on every backend: products with a generated RandInt3 matrix
// (BenchSource::randint3_product) against long-double sums of the scalar element code, within the worst-case bound of any summation
// order; the CPU's Gram against its own dgemm calls bit for bit (the float64 gram pass's route).
#include <bit>

#include "backend/conformance.hpp"
#include "strata/backend/bench_source.hpp"
#include "testing/testing.hpp"

namespace strata::backend::conformance {
namespace {

using Rows = RandInt3Rows;
using Op = RandInt3Op;
constexpr long double kU = 0x1p-53L;

double a_at(const Rows& a, int64_t i, int64_t j) {
  return random::randint3(random::byte_at(a.seed, 0, static_cast<uint64_t>((a.r0 + i) * a.cols + j)));
}

// ref = op(A)·x in long double, and per entry the bound (inner + 2)·u·Σ|terms| (+ the
// propagated bound of the intermediate for Gram).
struct Ref {
  std::vector<long double> value, bound;
};
Ref reference(const Rows& a, Op op, const std::vector<long double>& x, const std::vector<long double>& xbound,
              int64_t l) {
  const bool trans = op == Op::TransTimes;
  const int64_t out_rows = trans ? a.cols : a.rows, inner = trans ? a.rows : a.cols;
  Ref r{std::vector<long double>(static_cast<size_t>(out_rows * l)),
        std::vector<long double>(static_cast<size_t>(out_rows * l))};
  for (int64_t c = 0; c < l; ++c)
    for (int64_t o = 0; o < out_rows; ++o) {
      long double sum = 0, mag = 0, carried = 0;
      for (int64_t k = 0; k < inner; ++k) {
        const long double av = trans ? a_at(a, k, o) : a_at(a, o, k), xv = x[static_cast<size_t>(k + c * inner)];
        sum += av * xv;
        mag += std::fabs(av * xv);
        carried += av * xbound[static_cast<size_t>(k + c * inner)];
      }
      r.value[static_cast<size_t>(o + c * out_rows)] = sum;
      r.bound[static_cast<size_t>(o + c * out_rows)] =
          static_cast<long double>(inner + 2) * kU * mag + carried * (1 + 1e-6L);
    }
  return r;
}

void expect_within(const Mat<double>& got, const Ref& ref, const std::string& what) {
  for (int64_t c = 0; c < got.cols; ++c)
    for (int64_t o = 0; o < got.rows; ++o) {
      const size_t k = static_cast<size_t>(o + c * got.rows);
      ASSERT_LE(std::fabs(static_cast<long double>(got.at(o, c)) - ref.value[k]), ref.bound[k])
          << what << " entry (" << o << ", " << c << ")";
    }
  EXPECT_TRUE(got.padding_intact()) << what;
}

TEST_P(Conformance, RandInt3Products) {
  struct Case {
    int64_t cols, r0, rows, l;
  };
  // Tile edges (64/32 rows and columns), widths past 32 (several column blocks), rows fewer
  // than the slices, rows starting mid-Philox-block, element indices past 2³³.
  for (const Case& k : {Case{45, 0, 70, 3}, Case{33, 7, 5, 33}, Case{130, 3, 129, 20},
                        Case{17, (int64_t{1} << 33) / 17, 40, 2}, Case{1, 0, 9, 1}}) {
    const Rows a{0x5eedull + static_cast<uint64_t>(k.cols), k.cols, k.r0, k.rows};
    const std::string what = std::to_string(k.rows) + " x " + std::to_string(k.cols) + " from row " +
                             std::to_string(k.r0) + ", l " + std::to_string(k.l);
    std::mt19937_64 rng(static_cast<uint64_t>(k.cols * 31 + k.rows));
    std::normal_distribution<double> nd;
    for (Op op : {Op::Times, Op::TransTimes, Op::Gram}) {
      const int64_t xr = op == Op::TransTimes ? k.rows : k.cols;
      const int64_t orows = op == Op::Times ? k.rows : k.cols;
      Mat<double> x(xr, k.l, Layout::RowMajor);
      std::vector<long double> xl(static_cast<size_t>(xr * k.l)), zero(xl.size(), 0.0L);
      for (int64_t c = 0; c < k.l; ++c)
        for (int64_t i = 0; i < xr; ++i) xl[static_cast<size_t>(i + c * xr)] = x.at(i, c) = nd(rng);
      Mat<double> out(orows, k.l, Layout::ColMajor);
      STRATA_ASSERT_OK(BenchSource(*be_).randint3_product(a, op, x.cview(), out.view()));
      Ref ref;
      if (op != Op::Gram) {
        ref = reference(a, op, xl, zero, k.l);
      } else {  // A·x (rounded to float64, within its bound) then Aᵀ·that
        const Ref y = reference(a, Op::Times, xl, zero, k.l);
        std::vector<long double> yb(y.bound.size());
        for (size_t i = 0; i < yb.size(); ++i) yb[i] = y.bound[i] + kU * std::fabs(y.value[i]);
        ref = reference(a, Op::TransTimes, y.value, yb, k.l);
      }
      expect_within(out, ref, what + " op " + std::to_string(static_cast<int>(op)));
      // Deterministic: the same call, the same bits.
      Mat<double> again(orows, k.l, Layout::ColMajor);
      STRATA_ASSERT_OK(BenchSource(*be_).randint3_product(a, op, x.cview(), again.view()));
      for (int64_t c = 0; c < k.l; ++c)
        for (int64_t o = 0; o < orows; ++o)
          ASSERT_EQ(std::bit_cast<uint64_t>(out.at(o, c)), std::bit_cast<uint64_t>(again.at(o, c))) << what;
      // The reference implementation is the dense route's bits: the block generated as the
      // RandInt3 source reads it (scalar code here), then this backend's own dgemm.
      if (BenchSource(*be_).fused_randint3() || op != Op::Gram) continue;
      std::vector<double> block(static_cast<size_t>(k.rows * k.cols)), y(static_cast<size_t>(k.rows * k.l));
      for (int64_t i = 0; i < k.rows; ++i)
        for (int64_t j = 0; j < k.cols; ++j) block[static_cast<size_t>(i * k.cols + j)] = a_at(a, i, j);
      const auto av = row_major<const double>(block.data(), k.rows, k.cols);
      STRATA_ASSERT_OK(be_->gemm(Trans::No, Trans::No, 1.0, av, x.cview(), 0.0, col_major(y.data(), k.rows, k.l)));
      Mat<double> z(orows, k.l, Layout::ColMajor);
      STRATA_ASSERT_OK(
          be_->gemm(Trans::Yes, Trans::No, 1.0, av, col_major<const double>(y.data(), k.rows, k.l), 0.0, z.view()));
      for (int64_t c = 0; c < k.l; ++c)
        for (int64_t o = 0; o < orows; ++o)
          ASSERT_EQ(std::bit_cast<uint64_t>(out.at(o, c)), std::bit_cast<uint64_t>(z.at(o, c))) << what;
    }
  }
}

TEST_P(Conformance, RandInt3ProductsEdges) {
  // Which backends generate where they multiply: the CUDA ones, not the CPU reference.
  EXPECT_EQ(BenchSource(*be_).fused_randint3(), GetParam().name.rfind("cuda", 0) == 0);
  // Empty sums are zero; empty outputs are fine.
  Mat<double> x(4, 2, Layout::ColMajor), out(0, 2, Layout::ColMajor), z(4, 2, Layout::ColMajor);
  for (int64_t c = 0; c < 2; ++c)
    for (int64_t i = 0; i < 4; ++i) x.at(i, c) = 1.0, z.at(i, c) = 5.0;
  STRATA_ASSERT_OK(BenchSource(*be_).randint3_product({1, 4, 0, 0}, Op::Times, x.cview(), out.view()));
  STRATA_ASSERT_OK(BenchSource(*be_).randint3_product({1, 4, 0, 0}, Op::Gram, x.cview(), z.view()));
  for (int64_t c = 0; c < 2; ++c)
    for (int64_t i = 0; i < 4; ++i) EXPECT_EQ(z.at(i, c), 0.0);
  // Shapes that do not fit, negative blocks and element indices past 2⁶³ are refused.
  Mat<double> bad(3, 2, Layout::ColMajor);
  EXPECT_EQ(BenchSource(*be_).randint3_product({1, 4, 0, 5}, Op::Times, x.cview(), bad.view()).code(), StatusCode::Invalid);
  EXPECT_EQ(BenchSource(*be_).randint3_product({1, 4, 0, 5}, Op::TransTimes, x.cview(), z.view()).code(), StatusCode::Invalid);
  EXPECT_EQ(BenchSource(*be_).randint3_product({1, 4, -1, 3}, Op::Times, x.cview(), bad.view()).code(), StatusCode::Invalid);
  EXPECT_EQ(BenchSource(*be_).randint3_product({1, 4, int64_t{1} << 62, 3}, Op::Times, x.cview(), bad.view()).code(),
            StatusCode::Invalid);
}

}  // namespace
}  // namespace strata::backend::conformance
