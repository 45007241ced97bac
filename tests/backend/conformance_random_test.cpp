// Backend conformance, random operations at sizes the CUDA backend stages in several pieces
// (8 MiB each), and the benchmark source's slice sum (BenchSource::random_slice_sum) against
// sums of normal_at / uniform_at.
#include <bit>

#include "backend/conformance.hpp"
#include "strata/backend/bench_source.hpp"
#include "testing/testing.hpp"

namespace strata::backend::conformance {
namespace {

// 2.5 M float64 elements: three staging pieces, the last one partial; every transform.
TEST_P(Conformance, RandomFillLongRuns) {
  const int64_t n = 2'500'003;
  random::FillParams p;
  p.seed = 0xfeedbeefcafef00dull;
  p.stream = 1;
  p.dist = random::Dist::Normal;
  std::vector<double> d(static_cast<size_t>(n));
  STRATA_ASSERT_OK(be_->random_fill(p, 17, 1, n, d.data()));
  for (int64_t k = 0; k < n; k += 997) ASSERT_EQ(d[k], random::normal_at(p.seed, 1, 17 + k)) << k;
  ASSERT_EQ(d[n - 1], random::normal_at(p.seed, 1, 17 + n - 1));
  // A [::2] slice of a row far into the stream (element indices past 2³²).
  const int64_t e0 = (int64_t{1} << 33) + 5;
  STRATA_ASSERT_OK(be_->random_fill(p, e0, 2, n, d.data()));
  for (int64_t k = 0; k < n; k += 991) ASSERT_EQ(d[k], random::normal_at(p.seed, 1, e0 + 2 * k)) << k;
  p.dist = random::Dist::Uniform;
  p.out = ScalarType::Float32;
  std::vector<float> f(static_cast<size_t>(n));
  STRATA_ASSERT_OK(be_->random_fill(p, 3, 1, n, f.data()));
  for (int64_t k = 0; k < n; k += 983)
    ASSERT_EQ(f[k], random::uniform_f32(random::word_at(p.seed, 1, 3 + k))) << k;
  p.dist = random::Dist::Integers;
  p.out = ScalarType::Int64;
  p.low = 0;
  p.range = 3;
  std::vector<int64_t> ints(static_cast<size_t>(n));
  STRATA_ASSERT_OK(be_->random_fill(p, 0, 1, n, ints.data()));
  for (int64_t k = 0; k < n; k += 977) ASSERT_EQ(ints[k], random::integer_at(p.seed, 1, k, 0, 3)) << k;
}

// Σ over a strided slice of (x + add), against the same elements from the scalar reference
// summed row by row (another association: agreement to rounding).
double reference_slice_sum(const random::FillParams& p, int64_t ld, int64_t r0, int64_t rstep, int64_t rows,
                           int64_t c0, int64_t cstep, int64_t cols, double add) {
  double total = 0;
  for (int64_t i = 0; i < rows; ++i) {
    double row = 0;
    for (int64_t j = 0; j < cols; ++j) {
      const auto e = static_cast<uint64_t>((r0 + i * rstep) * ld + c0 + j * cstep);
      const double x = p.dist == random::Dist::Normal ? std::fma(random::normal_at(p.seed, p.stream, e), p.sd, p.mean)
                                                      : random::uniform_at(p.seed, p.stream, e);
      row += x + add;
    }
    total += row;
  }
  return total;
}

TEST_P(Conformance, RandomSliceSum) {
  random::FillParams p;
  p.seed = 7;
  p.mean = 10.0;
  p.sd = 1.0;
  struct Case {
    int64_t ld, r0, rstep, rows, c0, cstep, cols;
  };
  // (x + 1)[::2, ::2] of 1001 × 1001; an offset slice; one column; a wide row.
  for (const Case& c : {Case{1001, 0, 2, 501, 0, 2, 501}, Case{300, 3, 5, 40, 7, 3, 90}, Case{50, 0, 1, 50, 9, 1, 1},
                        Case{1 << 20, 2, 1, 1, (1 << 20) - 100, 1, 100}}) {
    for (random::Dist dist : {random::Dist::Normal, random::Dist::Uniform}) {
      p.dist = dist;
      STRATA_ASSERT_OK_AND_ASSIGN(double got, BenchSource(*be_).random_slice_sum(p, c.ld, c.r0, c.rstep, c.rows, c.c0, c.cstep, c.cols, 1.0));
      const double want = reference_slice_sum(p, c.ld, c.r0, c.rstep, c.rows, c.c0, c.cstep, c.cols, 1.0);
      EXPECT_LE(std::fabs(got - want), 1e-13 * std::fabs(want)) << c.ld << " " << c.rows << " x " << c.cols;
      // Deterministic: the same call, the same bits.
      STRATA_ASSERT_OK_AND_ASSIGN(double again, BenchSource(*be_).random_slice_sum(p, c.ld, c.r0, c.rstep, c.rows, c.c0, c.cstep, c.cols, 1.0));
      EXPECT_EQ(std::bit_cast<uint64_t>(got), std::bit_cast<uint64_t>(again));
    }
  }
  STRATA_ASSERT_OK_AND_ASSIGN(double empty, BenchSource(*be_).random_slice_sum(p, 10, 0, 1, 0, 0, 1, 10, 1.0));
  EXPECT_EQ(empty, 0.0);
  // Integers, float32 output, negative steps and index overflow are refused.
  p.dist = random::Dist::Integers;
  EXPECT_EQ(BenchSource(*be_).random_slice_sum(p, 10, 0, 1, 2, 0, 1, 2, 0.0).status().code(), StatusCode::Invalid);
  p.dist = random::Dist::Normal;
  p.out = ScalarType::Float32;
  EXPECT_EQ(BenchSource(*be_).random_slice_sum(p, 10, 0, 1, 2, 0, 1, 2, 0.0).status().code(), StatusCode::Invalid);
  p.out = ScalarType::Float64;
  EXPECT_EQ(BenchSource(*be_).random_slice_sum(p, 10, 0, -1, 2, 0, 1, 2, 0.0).status().code(), StatusCode::Invalid);
  EXPECT_EQ(BenchSource(*be_).random_slice_sum(p, int64_t{1} << 40, 0, 1, int64_t{1} << 30, 0, 1, 2, 0.0).status().code(),
            StatusCode::Invalid);
  EXPECT_EQ(BenchSource(*be_).random_slice_sum(p, 0, 0, 0, int64_t{1} << 40, 0, 0, int64_t{1} << 40, 0.0).status().code(),
            StatusCode::Invalid);  // rows × cols items overflow (every index is 0)
}

}  // namespace
}  // namespace strata::backend::conformance
