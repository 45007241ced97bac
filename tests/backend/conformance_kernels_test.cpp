// Backend conformance, kernels: genotype codes, array block kernels, random fill, row-pair
// reductions (pair counts: conformance_pairs_test.cpp; the GRM tile steps:
// conformance_grm_test.cpp); and the one instantiation over every registered backend.
#include <bit>

#include "backend/conformance.hpp"
#include "testing/testing.hpp"

#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#endif

namespace strata::backend::conformance {
namespace {

// -------------------------------------------------------------------------- genotype codes

template <class T>
std::vector<T> random_luts(int64_t rows, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  std::vector<T> l(static_cast<size_t>(4 * rows));
  for (auto& x : l) x = static_cast<T>(u(rng));
  return l;
}

template <class T>
void check_decode(const Backend& be) {
  std::mt19937_64 rng(8);
  for (int64_t n : {1, 3, 16, 17, 63, 130, 1001})
    for (Layout l : kLayouts) {
      const Codes c(5, n, n % 3, rng);
      const auto luts = random_luts<T>(c.rows, rng);
      Mat<T> out(c.rows, n, l);
      ASSERT_TRUE(be.decode(c.view(), luts.data(), out.view()).ok());
      for (int64_t i = 0; i < c.rows; ++i)
        for (int64_t j = 0; j < n; ++j) ASSERT_EQ(out.at(i, j), luts[4 * i + c.code(i, j)]) << "n " << n << " " << i << "," << j;
      ASSERT_TRUE(out.padding_intact()) << "n " << n << " layout " << int(l);
    }
  const Codes c(2, 8, 0, rng);
  Mat<T> wrong(2, 9, Layout::RowMajor);
  EXPECT_FALSE(be.decode(c.view(), random_luts<T>(2, rng).data(), wrong.view()).ok());
}

TEST_P(Conformance, DecodeF32) { check_decode<float>(*be_); }
TEST_P(Conformance, DecodeF64) { check_decode<double>(*be_); }

TEST_P(Conformance, CountCodes) {
  std::mt19937_64 rng(9);
  for (int64_t n : {0, 1, 7, 31, 32, 33, 64, 129, 1000}) {
    const Codes c(4, n, 1, rng);
    std::vector<int64_t> got(static_cast<size_t>(4 * c.rows), -1), ref(got.size(), 0);
    STRATA_ASSERT_OK(be_->count_codes(c.view(), got.data()));
    for (int64_t i = 0; i < c.rows; ++i)
      for (int64_t j = 0; j < n; ++j) ++ref[static_cast<size_t>(4 * i + c.code(i, j))];
    ASSERT_EQ(got, ref) << "n " << n;
  }
}

// Float tile products: a(i, j) = luts[4i + code(i, j)]; dense entries past the real samples
// are zero, as the kernels require.
TEST_P(Conformance, CodesTimesF32) {
  std::mt19937_64 rng(10);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  const double eps = 0x1p-24;
  for (auto [rows, n, w] : {std::tuple<int64_t, int64_t, int64_t>{96, 203, 8}, {7, 33, 16}, {13, 1001, 24}}) {
    const Codes c(rows, n, 0, rng);
    const int64_t n16 = (n + 15) / 16 * 16, ldq = n16 + 16;
    const auto luts = random_luts<float>(rows, rng);
    std::vector<float> qt(static_cast<size_t>(w * ldq), 0.0f);
    for (int64_t k = 0; k < w; ++k)
      for (int64_t j = 0; j < n; ++j) qt[static_cast<size_t>(k * ldq + j)] = u(rng);
    std::vector<float> y(static_cast<size_t>(rows * w), 0.5f);
    STRATA_ASSERT_OK(be_->codes_times(c.view(), luts.data(), qt.data(), ldq, w, y.data()));
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t k = 0; k < w; ++k) {
        double ref = 0.5, mag = 0.5;
        for (int64_t j = 0; j < n; ++j) {
          const double t = double{luts[4 * i + c.code(i, j)]} * qt[k * ldq + j];
          ref += t;
          mag += std::fabs(t);
        }
        ASSERT_LE(std::fabs(y[i * w + k] - ref), (n16 + 2) * eps * mag) << rows << "x" << n << " " << i << "," << k;
      }
  }
}

TEST_P(Conformance, CodesTransposeTimesF32) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  const double eps = 0x1p-24;
  for (auto [rows, n, w] : {std::tuple<int64_t, int64_t, int64_t>{96, 203, 8}, {7, 40, 16}, {301, 100, 24}}) {
    const Codes c(rows, n, 1, rng);
    const int64_t n16 = (n + 15) / 16 * 16, ldz = n16 + 5;
    const auto luts = random_luts<float>(rows, rng);
    std::vector<float> y(static_cast<size_t>(rows * w));
    for (auto& x : y) x = u(rng);
    for (int64_t n0 : {int64_t{0}, int64_t{16}}) {
      if (n0 >= n16) continue;
      std::vector<float> zt(static_cast<size_t>(w * ldz), 0.25f);
      STRATA_ASSERT_OK(be_->codes_t_times(c.view(), luts.data(), n0, n16 - n0, y.data(), w, zt.data(), ldz));
      for (int64_t k = 0; k < w; ++k)
        for (int64_t j = 0; j < ldz; ++j) {
          if (j < n0 || j >= n) {
            if (j < n0 || j >= n16) {
              ASSERT_EQ(zt[k * ldz + j], 0.25f) << "wrote outside the samples at " << j;
            }
            continue;
          }
          double ref = 0.25, mag = 0.25;
          for (int64_t i = 0; i < rows; ++i) {
            const double t = double{luts[4 * i + c.code(i, j)]} * y[i * w + k];
            ref += t;
            mag += std::fabs(t);
          }
          ASSERT_LE(std::fabs(zt[k * ldz + j] - ref), (rows + 2) * eps * mag) << rows << "x" << n << " " << k << "," << j;
        }
    }
  }
}

// A column's float products do not depend on how many columns run beside it (the loadings
// pass pads k to a multiple of 4, the Gram passes to 8): widths 12 and 16 give the same bits.
TEST_P(Conformance, CodesTimesF32ColumnsIndependentOfWidth) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  const int64_t rows = 97, n = 2100, n16 = (n + 15) / 16 * 16;
  const Codes c(rows, n, 0, rng);
  const auto luts = random_luts<float>(rows, rng);
  std::vector<float> qt(static_cast<size_t>(16 * n16), 0.0f);
  for (int64_t k = 0; k < 16; ++k)
    for (int64_t j = 0; j < n; ++j) qt[static_cast<size_t>(k * n16 + j)] = u(rng);
  std::vector<float> y12(static_cast<size_t>(rows * 12), 0.0f), y16(static_cast<size_t>(rows * 16), 0.0f);
  STRATA_ASSERT_OK(be_->codes_times(c.view(), luts.data(), qt.data(), n16, 12, y12.data()));
  STRATA_ASSERT_OK(be_->codes_times(c.view(), luts.data(), qt.data(), n16, 16, y16.data()));
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t k = 0; k < 12; ++k) ASSERT_EQ(y12[i * 12 + k], y16[i * 16 + k]) << i << "," << k;
}

// Integer products of raw codes (3 = missing counts as 3): exact, at the int16 extremes.
TEST_P(Conformance, CodesTimesInt16) {
  std::mt19937_64 rng(12);
  std::uniform_int_distribution<int> val(-32767, 32767);
  // (5 x 4500: several chunks of samples in the kernels that sum per chunk)
  for (auto [rows, n, w] : {std::tuple<int64_t, int64_t, int64_t>{96, 1000, 16}, {7, 70, 8}, {13, 33, 24}, {5, 4500, 8}}) {
    const Codes c(rows, n, 0, rng);
    const int64_t n32 = (n + 31) / 32 * 32;
    std::vector<int16_t> qt(static_cast<size_t>(w * n32), 0);
    for (int64_t k = 0; k < w; ++k)
      for (int64_t j = 0; j < n; ++j) qt[static_cast<size_t>(k * n32 + j)] = static_cast<int16_t>(rng() % 2 ? 32767 : val(rng));
    std::vector<int64_t> ref(static_cast<size_t>(rows * w), 3);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t k = 0; k < w; ++k)
        for (int64_t j = 0; j < n; ++j) ref[static_cast<size_t>(i * w + k)] += c.code(i, j) * int64_t{qt[k * n32 + j]};
    // qt as it is, and in the backend's packed form (when it has one).
    STRATA_ASSERT_OK_AND_ASSIGN(const std::vector<uint8_t> packed, be_->pack_times_i16(qt.data(), n32, w, n32));
    for (const uint8_t* pk : {static_cast<const uint8_t*>(nullptr), packed.empty() ? nullptr : packed.data()}) {
      std::vector<int64_t> p(static_cast<size_t>(rows * w), 3);
      STRATA_ASSERT_OK(be_->codes_times_i16(c.view(), qt.data(), n32, w, p.data(), pk));
      ASSERT_EQ(p, ref) << rows << "x" << n << (pk ? " packed" : "");
    }
  }
}

TEST_P(Conformance, CodesTransposeTimesInt16) {
  std::mt19937_64 rng(13);
  std::uniform_int_distribution<int> val(-32767, 32767);
  for (auto [rows, n, w] : {std::tuple<int64_t, int64_t, int64_t>{3072, 192, 16}, {7, 70, 8}, {1, 16, 8}, {13, 33, 24}}) {
    const Codes c(rows, n, 0, rng);
    const int64_t n16 = (n + 15) / 16 * 16, ldz = n16 + 3;
    std::vector<int16_t> wp(static_cast<size_t>((rows + 1) / 2 * 2 * w), 0);  // odd rows: last partner zero
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t k = 0; k < w; ++k) wp[static_cast<size_t>((i / 2) * 2 * w + 2 * k + i % 2)] = static_cast<int16_t>(val(rng));
    // wpairs as they are, and in the backend's packed form (when it has one).
    STRATA_ASSERT_OK_AND_ASSIGN(const std::vector<uint8_t> packed, be_->pack_t_times_i16(wp.data(), rows, w));
    for (const uint8_t* pk : {static_cast<const uint8_t*>(nullptr), packed.empty() ? nullptr : packed.data()}) {
      std::vector<int32_t> zt(static_cast<size_t>(w * ldz), 5);
      STRATA_ASSERT_OK(be_->codes_t_times_i16(c.view(n16), wp.data(), w, zt.data(), ldz, pk));
      for (int64_t k = 0; k < w; ++k)
        for (int64_t j = 0; j < ldz; ++j) {
          if (j >= n16) {
            ASSERT_EQ(zt[k * ldz + j], 5) << "wrote past the samples";
            continue;
          }
          if (j >= n) continue;
          int64_t ref = 5;
          for (int64_t i = 0; i < rows; ++i) ref += c.code(i, j) * int64_t{wp[(i / 2) * 2 * w + 2 * k + i % 2]};
          ASSERT_EQ(zt[k * ldz + j], ref) << rows << "x" << n << " " << k << "," << j << (pk ? " packed" : "");
        }
    }
  }
}

// ---------------------------------------------------------------------------------- random
// The same bits as core/random.hpp's per-element functions, for every distribution, output
// type, start and step (including backwards and in place).
// ------------------------------------------------------------------------- array kernels
TEST_P(Conformance, ElementwiseBinary) {
  // float64 with NaN and infinities; int32 near the wrap; scalars on either side.
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const std::vector<double> a = {1.5, -2.0, nan, inf, 0.0, 3.0, -0.0};
  const std::vector<double> b = {2.0, nan, 1.0, -inf, -1.0, 3.0, 0.0};
  const int64_t n = static_cast<int64_t>(a.size());
  std::vector<double> out(a.size());
  STRATA_ASSERT_OK(be_->ew_binary(EwOp::Add, ScalarType::Float64, a.data(), false, b.data(), false, out.data(), n));
  for (int64_t i = 0; i < n; ++i) {
    const double ref = a[i] + b[i];
    ASSERT_TRUE(out[i] == ref || (ref != ref && out[i] != out[i])) << i;
  }
  STRATA_ASSERT_OK(be_->ew_binary(EwOp::Max, ScalarType::Float64, a.data(), false, b.data(), false, out.data(), n));
  EXPECT_EQ(out[0], 2.0);
  EXPECT_TRUE(out[1] != out[1]) << "max propagates NaN";
  EXPECT_TRUE(out[2] != out[2]);
  EXPECT_EQ(out[3], inf);
  // float64 + scalar: the level's own vector loop (long enough for every vector width and a
  // remainder); IEEE additions, so the same bits as the plain loop.
  std::vector<double> along(1003), sum(along.size());
  for (size_t i = 0; i < along.size(); ++i) along[i] = i % 97 == 5 ? nan : std::ldexp(1.0 + i, -static_cast<int>(i % 60));
  const double c = 0.1;
  STRATA_ASSERT_OK(be_->ew_binary(EwOp::Add, ScalarType::Float64, along.data(), false, &c, true, sum.data(),
                                  static_cast<int64_t>(along.size())));
  for (size_t i = 0; i < along.size(); ++i) {
    const double ref = along[i] + c;
    ASSERT_TRUE(std::bit_cast<uint64_t>(sum[i]) == std::bit_cast<uint64_t>(ref) || (ref != ref && sum[i] != sum[i]))
        << i;
  }
  STRATA_ASSERT_OK(be_->ew_binary(EwOp::Div, ScalarType::Float64, a.data(), false, b.data(), true, out.data(), n));  // b[0] = 2 for all
  for (int64_t i = 0; i < n; ++i) ASSERT_TRUE(out[i] == a[i] / 2.0 || (a[i] != a[i] && out[i] != out[i])) << i;
  std::vector<uint8_t> cmp(a.size());
  STRATA_ASSERT_OK(be_->ew_binary(EwOp::Lt, ScalarType::Float64, a.data(), false, b.data(), false, cmp.data(), n));
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(cmp[i] != 0, a[i] < b[i]) << i;
  const std::vector<int32_t> x = {INT32_MAX, INT32_MIN, -7, 12}, y = {1, -1, 3, -5};
  std::vector<int32_t> o(4);
  STRATA_ASSERT_OK(be_->ew_binary(EwOp::Add, ScalarType::Int32, x.data(), false, y.data(), false, o.data(), 4));
  EXPECT_EQ(o, (std::vector<int32_t>{INT32_MIN, INT32_MAX, -4, 7}));  // wraps
  STRATA_ASSERT_OK(be_->ew_binary(EwOp::Mul, ScalarType::Int32, x.data(), false, y.data(), false, o.data(), 4));
  EXPECT_EQ(o, (std::vector<int32_t>{INT32_MAX, INT32_MIN, -21, -60}));
  const int32_t two = 2;
  STRATA_ASSERT_OK(be_->ew_binary(EwOp::Pow, ScalarType::Int32, &two, true, y.data(), false, o.data(), 4));
  EXPECT_EQ(o, (std::vector<int32_t>{2, 0, 8, 0}));  // negative integer exponents give 0 (1 for base 1)
}

TEST_P(Conformance, AccumulateF32) {
  // Lengths with vector remainders; values spanning float32's range, subnormals and zeros.
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int64_t n : {0, 1, 7, 8, 9, 100}) {
    std::vector<float> x(static_cast<size_t>(n));
    std::vector<double> acc(static_cast<size_t>(n) + 1, kPad), ref;
    for (int64_t i = 0; i < n; ++i) {
      x[i] = static_cast<float>(u(rng) * std::ldexp(1.0, static_cast<int>(i % 40) - 20));
      if (i % 13 == 5) x[i] = std::numeric_limits<float>::denorm_min();
      acc[i] = u(rng) * 1e3;
    }
    ref = acc;
    for (int64_t i = 0; i < n; ++i) ref[i] += static_cast<double>(x[i]);
    STRATA_ASSERT_OK(be_->accumulate_f32(x.data(), acc.data(), n));
    for (int64_t i = 0; i <= n; ++i) ASSERT_EQ(acc[i], ref[i]) << "n " << n << " i " << i;  // bits; padding untouched
  }
}

TEST_P(Conformance, ElementwiseUnaryCastWhere) {
  const std::vector<double> a = {4.0, -2.5, 0.0, std::numeric_limits<double>::quiet_NaN(), 1e300, -1e300};
  const int64_t n = static_cast<int64_t>(a.size());
  std::vector<double> out(a.size());
  STRATA_ASSERT_OK(be_->ew_unary(EwOp::Abs, ScalarType::Float64, a.data(), out.data(), n));
  for (int64_t i = 0; i < n; ++i) ASSERT_TRUE(out[i] == std::fabs(a[i]) || a[i] != a[i]) << i;
  STRATA_ASSERT_OK(be_->ew_unary(EwOp::Sqrt, ScalarType::Float64, a.data(), out.data(), 1));
  EXPECT_EQ(out[0], 2.0);
  std::vector<int16_t> c(a.size());
  STRATA_ASSERT_OK(be_->ew_cast(ScalarType::Float64, ScalarType::Int16, a.data(), c.data(), n));
  EXPECT_EQ(c, (std::vector<int16_t>{4, -2, 0, 0, INT16_MAX, INT16_MIN}));  // truncates, saturates, NaN → 0
  std::vector<uint8_t> bools(a.size());
  STRATA_ASSERT_OK(be_->ew_cast(ScalarType::Float64, ScalarType::Bool, a.data(), bools.data(), n));
  EXPECT_EQ(bools, (std::vector<uint8_t>{1, 1, 0, 1, 1, 1}));
  const std::vector<uint8_t> cond = {1, 0, 1, 0, 1, 0};
  const double other = -1.0;
  STRATA_ASSERT_OK(be_->ew_where(ScalarType::Float64, cond.data(), false, a.data(), false, &other, true, out.data(), n));
  for (int64_t i = 0; i < n; ++i) {
    const double ref = cond[i] ? a[i] : -1.0;
    ASSERT_TRUE(out[i] == ref || (ref != ref && out[i] != out[i])) << i;
  }
}

TEST_P(Conformance, ReduceTile) {
  // A 5 × 7 tile reduced over rows (col stride 1), over columns (row stride 1) and entirely.
  std::mt19937_64 rng(21);
  std::normal_distribution<double> nd(3.0, 2.0);
  const int64_t rows = 5, cols = 7;
  std::vector<double> x(static_cast<size_t>(rows * cols));
  for (double& v : x) v = nd(rng);
  const auto at = [&](int64_t r, int64_t c) { return x[static_cast<size_t>(r * cols + c)]; };
  ReduceTile t;
  t.data = x.data();
  t.rows = rows;
  t.cols = cols;
  {  // column sums into 7 states starting at 2
    std::vector<double> s(10, 1.0);
    t.base = 2, t.row_stride = 0, t.col_stride = 1;
    STRATA_ASSERT_OK(be_->reduce_tile(ReduceKind::SumF64, t, s.data()));
    for (int64_t c = 0; c < cols; ++c) {
      double ref = 1.0, mag = 1.0;
      for (int64_t r = 0; r < rows; ++r) ref += at(r, c), mag += std::fabs(at(r, c));
      ASSERT_NEAR(s[static_cast<size_t>(2 + c)], ref, 8 * 1.2e-16 * mag) << c;
    }
    EXPECT_EQ(s[0], 1.0);
    EXPECT_EQ(s[9], 1.0);
  }
  {  // row moments
    std::vector<Moments> s(static_cast<size_t>(rows));
    t.base = 0, t.row_stride = 1, t.col_stride = 0;
    STRATA_ASSERT_OK(be_->reduce_tile(ReduceKind::Moments, t, s.data()));
    for (int64_t r = 0; r < rows; ++r) {
      double mean = 0, m2 = 0;
      for (int64_t c = 0; c < cols; ++c) mean += at(r, c) / cols;
      for (int64_t c = 0; c < cols; ++c) m2 += (at(r, c) - mean) * (at(r, c) - mean);
      ASSERT_EQ(s[static_cast<size_t>(r)].n, cols);
      ASSERT_NEAR(s[static_cast<size_t>(r)].mean, mean, 1e-13);
      ASSERT_NEAR(s[static_cast<size_t>(r)].m2, m2, 1e-12);
    }
  }
  {  // everything: max, and counts of nonzero int8
    double mx = -std::numeric_limits<double>::infinity();
    t.base = 0, t.row_stride = 0, t.col_stride = 0;
    STRATA_ASSERT_OK(be_->reduce_tile(ReduceKind::Max, t, &mx));
    EXPECT_EQ(mx, *std::max_element(x.begin(), x.end()));
    std::vector<int8_t> codes(static_cast<size_t>(rows * cols));
    int64_t nonzero = 0;
    for (size_t i = 0; i < codes.size(); ++i) nonzero += (codes[i] = static_cast<int8_t>(i % 3 == 0 ? 0 : -100)) != 0;
    ReduceTile ti = t;
    ti.data = codes.data();
    ti.type = ScalarType::Int8;
    int64_t count = 0;
    STRATA_ASSERT_OK(be_->reduce_tile(ReduceKind::CountNonzero, ti, &count));
    EXPECT_EQ(count, nonzero);
    uint64_t wrapped = 0;
    STRATA_ASSERT_OK(be_->reduce_tile(ReduceKind::SumWrap, ti, &wrapped));
    EXPECT_EQ(static_cast<int64_t>(wrapped), -100 * nonzero);
  }
}

TEST_P(Conformance, RandomFill) {
  for (auto [e0, step, n] : {std::tuple<int64_t, int64_t, int64_t>{0, 1, 1000}, {5, 3, 77}, {999, -1, 1000}, {7, 0, 9}}) {
    random::FillParams p;
    p.seed = 42;
    p.stream = 3;
    const auto e = [&](int64_t k) { return static_cast<uint64_t>(e0 + k * step); };
    p.dist = random::Dist::Normal;
    p.mean = 1.5;
    p.sd = 0.25;
    std::vector<double> d(static_cast<size_t>(n));
    STRATA_ASSERT_OK(be_->random_fill(p, e0, step, n, d.data()));
    for (int64_t k = 0; k < n; ++k) ASSERT_EQ(d[k], std::fma(random::normal_at(42, 3, e(k)), 0.25, 1.5)) << k;
    p.out = ScalarType::Float32;
    std::vector<float> f(static_cast<size_t>(n));
    STRATA_ASSERT_OK(be_->random_fill(p, e0, step, n, f.data()));
    for (int64_t k = 0; k < n; ++k)
      ASSERT_EQ(f[k], static_cast<float>(std::fma(random::normal_at(42, 3, e(k)), 0.25, 1.5))) << k;
    p.dist = random::Dist::Uniform;
    p.out = ScalarType::Float64;
    STRATA_ASSERT_OK(be_->random_fill(p, e0, step, n, d.data()));
    for (int64_t k = 0; k < n; ++k) ASSERT_EQ(d[k], random::uniform_at(42, 3, e(k))) << k;
    p.dist = random::Dist::Integers;
    p.out = ScalarType::Int64;
    p.low = -5;
    p.range = 11;
    std::vector<int64_t> ints(static_cast<size_t>(n));
    STRATA_ASSERT_OK(be_->random_fill(p, e0, step, n, ints.data()));
    for (int64_t k = 0; k < n; ++k) ASSERT_EQ(ints[k], random::integer_at(42, 3, e(k), -5, 11)) << k;
  }
}

// Weighted Gram products of a reweighted least-squares step against plain long-double loops,
// predictor counts around the 4-row sweep and observation counts around the lane width. Every
// CPU level must equal the portable kernel bit for bit.
TEST_P(Conformance, WeightedGram) {
  std::mt19937_64 rng(33);
  std::normal_distribution<double> normal(0.0, 2.0);
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  auto portable = *make_cpu_backend(CpuIsa::Portable);
  // Past 4-row blocks (edge tiles of 1–3 rows) and past the 256-observation chunks.
  for (auto [p, n] : {std::pair<int64_t, int64_t>{1, 1}, {3, 7}, {5, 8}, {12, 65}, {9, 300}, {12, 256}, {12, 1031},
                      {7, 777}, {13, 520}}) {
    const int64_t ldx = n + 3;
    std::vector<double> x(static_cast<size_t>(p * ldx)), w(static_cast<size_t>(n)), v(static_cast<size_t>(n));
    for (double& e : x) e = u01(rng) < 0.3 ? 2.0 : normal(rng);
    for (double& e : w) e = u01(rng);
    for (double& e : v) e = normal(rng);
    const MatrixView<const double> xv{x.data(), p, n, ldx, Layout::RowMajor};
    std::vector<double> h(static_cast<size_t>(p * (p + 1)), -7.0), hr(h), g(static_cast<size_t>(p)), gr(g);
    ASSERT_TRUE(be_->weighted_gram(xv, w.data(), v.data(), {h.data(), p, p, p + 1, Layout::RowMajor}, g.data()).ok());
    ASSERT_TRUE(portable->weighted_gram(xv, w.data(), v.data(), {hr.data(), p, p, p + 1, Layout::RowMajor}, gr.data()).ok());
    for (int64_t i = 0; i < p; ++i) {
      long double gi = 0;
      for (int64_t s = 0; s < n; ++s) gi += (long double)v[s] * x[i * ldx + s];
      ASSERT_EQ(g[i], gr[i]) << "g " << i << " p " << p << " n " << n;
      ASSERT_NEAR(g[i], double(gi), 1e-12 * (1.0 + std::fabs(double(gi))));
      for (int64_t j = 0; j < p; ++j) {
        const size_t at = static_cast<size_t>(i * (p + 1) + j);
        if (j > i) {
          ASSERT_EQ(h[at], -7.0) << "upper triangle left alone";
          continue;
        }
        long double e = 0;
        for (int64_t s = 0; s < n; ++s) e += (long double)w[s] * x[i * ldx + s] * x[j * ldx + s];
        ASSERT_EQ(h[at], hr[at]) << "h " << i << "," << j << " p " << p << " n " << n;
        ASSERT_NEAR(h[at], double(e), 1e-12 * (1.0 + std::fabs(double(e))));
      }
    }
    // Without the gradient the products are the same.
    std::vector<double> h2(h.size(), -7.0);
    ASSERT_TRUE(be_->weighted_gram(xv, w.data(), nullptr, {h2.data(), p, p, p + 1, Layout::RowMajor}, nullptr).ok());
    ASSERT_EQ(h2, h);
  }
  std::vector<double> x(6), w(3), h(4);
  EXPECT_EQ(be_->weighted_gram({x.data(), 2, 3, 3, Layout::ColMajor}, w.data(), nullptr,
                               {h.data(), 2, 2, 2, Layout::RowMajor}, nullptr)
                .code(),
            StatusCode::Invalid);
}

// The linear predictor (and its logistic form) against long-double loops, predictor counts
// 1–13 and observation counts around the lane width; every CPU level equals the portable kernel
// bit for bit. Arguments far out, NaN and ±0 go through the logistic form too.
TEST_P(Conformance, LinearPredictor) {
  std::mt19937_64 rng(41);
  std::normal_distribution<double> normal(0.0, 1.5);
  auto portable = *make_cpu_backend(CpuIsa::Portable);
  for (auto [p, n] : {std::pair<int64_t, int64_t>{1, 1}, {2, 7}, {5, 8}, {12, 65}, {13, 300}}) {
    const int64_t ldx = n + 5;
    std::vector<double> x(static_cast<size_t>(p * ldx)), c(static_cast<size_t>(p));
    for (double& e : x) e = normal(rng);
    for (double& e : c) e = normal(rng);
    const MatrixView<const double> xv{x.data(), p, n, ldx, Layout::RowMajor};
    for (bool logistic : {false, true}) {
      std::vector<double> out(static_cast<size_t>(n) + 1, -7.0), ref(out);
      ASSERT_TRUE(be_->linear_predictor(xv, c.data(), logistic, out.data()).ok());
      ASSERT_TRUE(portable->linear_predictor(xv, c.data(), logistic, ref.data()).ok());
      ASSERT_EQ(out[n], -7.0) << "past the end left alone";
      for (int64_t s = 0; s < n; ++s) {
        long double eta = 0;
        for (int64_t i = 0; i < p; ++i) eta += (long double)c[i] * x[i * ldx + s];
        const long double want = logistic ? 1.0L / (1.0L + std::exp(-eta)) : eta;
        ASSERT_EQ(out[s], ref[s]) << "p " << p << " n " << n << " s " << s << " logistic " << logistic;
        ASSERT_NEAR(out[s], double(want), 1e-13 * (1.0 + std::fabs(double(want))));
      }
    }
  }
  // exp: within 2 ulp of the long-double value over its whole range, overflow to 0 / 1 at the ends.
  std::vector<double> t;
  for (double v = -745.0; v <= 745.0; v += 0.37) t.push_back(v);
  for (double v : {0.0, -0.0, 1e-300, -1e-300, 0.5, -0.5, 36.7, 37.5, 708.5, 709.7, 709.8, 800.0, -800.0, 1e308,
                   -1e308, std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()})
    t.push_back(v);
  t.push_back(std::nan(""));
  const int64_t n = static_cast<int64_t>(t.size());
  const double one = 1.0;
  std::vector<double> out(static_cast<size_t>(n)), ref(out);
  // p = 1, c = −1: out = 1 / (1 + exp(t)).
  const double minus_one = -1.0;
  ASSERT_TRUE(be_->linear_predictor({t.data(), 1, n, n, Layout::RowMajor}, &minus_one, true, out.data()).ok());
  ASSERT_TRUE(portable->linear_predictor({t.data(), 1, n, n, Layout::RowMajor}, &minus_one, true, ref.data()).ok());
  for (int64_t s = 0; s < n; ++s) {
    const double v = t[static_cast<size_t>(s)];
    if (std::isnan(v)) {
      ASSERT_TRUE(std::isnan(out[s]) && std::isnan(ref[s]));
      continue;
    }
    ASSERT_EQ(out[s], ref[s]) << v;
    const long double e = std::exp((long double)v);
    const double want = double(one / (1.0L + e));
    if (v > 708.0 || v < -37.0) {
      // exp's clamp below −708 only matters where 1 + e^v is 1 either way.
      ASSERT_NEAR(out[s], want, 1e-300 + 1e-15 * want) << v;
      continue;
    }
    ASSERT_NEAR(out[s], want, 4 * std::numeric_limits<double>::epsilon() * want) << v;
  }
  EXPECT_EQ(be_->linear_predictor({t.data(), 1, n, n, Layout::ColMajor}, &one, false, out.data()).code(),
            StatusCode::Invalid);
}

// The fused logistic step equals its parts (linear_predictor, then weighted_gram) bit for bit on
// every CPU level, past the 4-row blocks and the observation chunks.
TEST_P(Conformance, LogisticGram) {
  std::mt19937_64 rng(57);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  auto portable = *make_cpu_backend(CpuIsa::Portable);
  for (auto [p, n] : {std::pair<int64_t, int64_t>{1, 1}, {3, 9}, {12, 255}, {12, 1031}, {7, 600}, {13, 64}}) {
    const int64_t ldx = n + 1;
    std::vector<double> x(static_cast<size_t>(p * ldx)), c(static_cast<size_t>(p)), y(static_cast<size_t>(n));
    for (double& e : x) e = u01(rng) < 0.2 ? 1.0 : normal(rng);
    for (double& e : c) e = 0.5 * normal(rng);
    for (double& e : y) e = u01(rng) < 0.3 ? 1.0 : 0.0;
    const MatrixView<const double> xv{x.data(), p, n, ldx, Layout::RowMajor};
    std::vector<double> pi(static_cast<size_t>(n)), w(pi), r(pi);
    ASSERT_TRUE(portable->linear_predictor(xv, c.data(), true, pi.data()).ok());
    for (int64_t s = 0; s < n; ++s) {
      w[s] = pi[s] * (1.0 - pi[s]);
      r[s] = pi[s] - y[s];
    }
    std::vector<double> h(static_cast<size_t>(p * p), -7.0), hr(h), g(static_cast<size_t>(p)), gr(g);
    ASSERT_TRUE(portable->weighted_gram(xv, w.data(), r.data(), {hr.data(), p, p, p, Layout::RowMajor}, gr.data()).ok());
    ASSERT_TRUE(be_->logistic_gram(xv, c.data(), y.data(), {h.data(), p, p, p, Layout::RowMajor}, g.data()).ok());
    ASSERT_EQ(h, hr) << "p " << p << " n " << n;
    ASSERT_EQ(g, gr) << "p " << p << " n " << n;
  }
  std::vector<double> x(6), c(2), y(3), h(4), g(2);
  EXPECT_EQ(be_->logistic_gram({x.data(), 2, 3, 3, Layout::ColMajor}, c.data(), y.data(),
                               {h.data(), 2, 2, 2, Layout::RowMajor}, g.data())
                .code(),
            StatusCode::Invalid);
}

// Row-pair reductions against plain loops, with NaN coordinates skipped pairwise, row counts
// around the vector block (4 × 2) and coordinate counts around the lane width (8). Every CPU
// level must equal the portable kernel bit for bit (same partial sums, same tree).
TEST_P(Conformance, RowPairReduce) {
  std::mt19937_64 rng(21);
  std::normal_distribution<double> normal(0.0, 3.0);
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  auto portable = *make_cpu_backend(CpuIsa::Portable);
  for (auto [ra, rb, d] : {std::tuple<int64_t, int64_t, int64_t>{1, 1, 1}, {5, 3, 7}, {9, 5, 8}, {4, 2, 65}, {7, 6, 300}}) {
    for (double nan_rate : {0.0, 0.2}) {
      std::vector<double> a(static_cast<size_t>(ra * (d + 3))), b(static_cast<size_t>(rb * (d + 1)));
      for (auto* v : {&a, &b})
        for (double& x : *v) x = u01(rng) < nan_rate ? std::nan("") : (u01(rng) < 0.3 ? 1.0 : normal(rng));
      const MatrixView<const double> av{a.data(), ra, d, d + 3, Layout::RowMajor};
      const MatrixView<const double> bv{b.data(), rb, d, d + 1, Layout::RowMajor};
      for (RowReduce op : {RowReduce::Cityblock, RowReduce::SqEuclidean, RowReduce::Chebyshev, RowReduce::Minkowski,
                           RowReduce::Mismatch}) {
        const double p = 1.5;
        std::vector<double> got(static_cast<size_t>(ra * (rb + 2)), -1.0), ref(got);
        std::vector<int64_t> obs(got.size(), -1), ref_obs(got.size(), -1);
        ASSERT_TRUE(be_->row_pair_reduce(op, p, av, bv, {got.data(), ra, rb, rb + 2, Layout::RowMajor}, obs.data()).ok());
        ASSERT_TRUE(portable->row_pair_reduce(op, p, av, bv, {ref.data(), ra, rb, rb + 2, Layout::RowMajor},
                                              ref_obs.data()).ok());
        for (int64_t i = 0; i < ra; ++i)
          for (int64_t j = 0; j < rb; ++j) {
            double plain = 0.0;
            int64_t n = 0;
            for (int64_t k = 0; k < d; ++k) {
              const double x = a[static_cast<size_t>(i * (d + 3) + k)], y = b[static_cast<size_t>(j * (d + 1) + k)];
              if (std::isnan(x) || std::isnan(y)) continue;
              ++n;
              const double t = op == RowReduce::SqEuclidean ? (x - y) * (x - y)
                               : op == RowReduce::Minkowski ? std::pow(std::fabs(x - y), p)
                               : op == RowReduce::Mismatch  ? (x != y ? 1.0 : 0.0)
                                                            : std::fabs(x - y);
              plain = op == RowReduce::Chebyshev ? std::max(plain, t) : plain + t;
            }
            const size_t at = static_cast<size_t>(i * (rb + 2) + j);
            ASSERT_EQ(got[at], ref[at]) << "op " << int(op) << " pair " << i << "," << j << " d " << d;
            ASSERT_EQ(obs[at], n) << "op " << int(op) << " pair " << i << "," << j;
            ASSERT_EQ(ref_obs[at], n);
            ASSERT_NEAR(got[at], plain, 1e-12 * std::max(1.0, plain)) << "op " << int(op) << " pair " << i << "," << j;
          }
        // Without the observed counts the values are the same.
        std::vector<double> again(got.size(), -1.0);
        ASSERT_TRUE(be_->row_pair_reduce(op, p, av, bv, {again.data(), ra, rb, rb + 2, Layout::RowMajor}, nullptr).ok());
        for (int64_t i = 0; i < ra; ++i)
          for (int64_t j = 0; j < rb; ++j)
            ASSERT_EQ(again[static_cast<size_t>(i * (rb + 2) + j)], got[static_cast<size_t>(i * (rb + 2) + j)]);
      }
    }
  }
  // Shapes that do not fit are refused.
  std::vector<double> x(16, 0.0), out(4, 0.0);
  const Status st = be_->row_pair_reduce(RowReduce::Cityblock, 1.0, {x.data(), 2, 4, 4, Layout::RowMajor},
                                         {x.data(), 2, 3, 3, Layout::RowMajor}, {out.data(), 2, 2, 2, Layout::RowMajor},
                                         nullptr);
  EXPECT_EQ(st.code(), StatusCode::Invalid);
  EXPECT_NE(st.message().find("same coordinates"), std::string::npos) << st.message();
}

TEST(Backend, DefaultIsTheBestCpu) {
  EXPECT_EQ(cpu_backend()->name(), std::string("cpu-") + cpu_isa_name(best_cpu_isa()));
  EXPECT_TRUE(cpu_isa_available(CpuIsa::Portable));
  EXPECT_EQ((*make_cpu_backend(CpuIsa::Portable))->name(), "cpu-portable");
}

// Whether this aarch64 CPU has the dot-product instructions (read here, not from the backend).
bool cpu_has_dotprod() {
#if defined(__aarch64__) && defined(__linux__)
  return (getauxval(AT_HWCAP) & (1UL << 20)) != 0;  // HWCAP_ASIMDDP
#else
  return false;
#endif
}

// fast_int16() is a property of the level, whatever CPU runs it: the int16 Gram kernels are
// vectorized at avx2, avx2-vnni, avx512-vnni and avx512-amx, and at neon where the CPU has the
// dot products (UDOT/SDOT; the exact-integer GRM product goes with them there); portable and
// avx512 (no VNNI: its float32 kernels win there) report false.
TEST(Backend, FastInt16FollowsTheLevel) {
  for (CpuIsa isa : {CpuIsa::Portable, CpuIsa::Avx2, CpuIsa::Avx2Vnni, CpuIsa::Avx512, CpuIsa::Avx512Vnni,
                     CpuIsa::Avx512Amx, CpuIsa::Neon}) {
    if (!cpu_isa_available(isa)) continue;
#if defined(__x86_64__)
    const bool portable_fast = true;  // SSE2's pmaddwd, x86-64's baseline
#else
    const bool portable_fast = false;
#endif
    const bool want = isa == CpuIsa::Portable ? portable_fast
                      : isa == CpuIsa::Neon   ? cpu_has_dotprod()
                                              : isa != CpuIsa::Avx512;
    EXPECT_EQ((*make_cpu_backend(isa))->fast_int16(), want) << cpu_isa_name(isa);
    if (isa == CpuIsa::Neon) {
      EXPECT_EQ((*make_cpu_backend(isa))->fast_u8s8(), want);
    }
  }
  EXPECT_EQ(cpu_backend()->fast_int16(), (*make_cpu_backend(best_cpu_isa()))->fast_int16());
}

INSTANTIATE_TEST_SUITE_P(Registered, Conformance, ::testing::ValuesIn(registered_backends()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace strata::backend::conformance
