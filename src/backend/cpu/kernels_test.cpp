// The CPU backend's genotype kernels at every instruction-set level against scalar loops (the
// exact ones bit for bit); a level this CPU lacks is skipped with the reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "strata/backend/backend.hpp"
#include "testing/testing.hpp"

namespace strata::backend {
namespace {

int code(const std::vector<uint8_t>& codes, int64_t stride, int64_t i, int64_t n) {
  return (codes[static_cast<size_t>(i * stride + n / 4)] >> (2 * (n % 4))) & 3;
}

struct Case {
  int64_t rows, n, w;
};

class CpuKernels : public ::testing::TestWithParam<CpuIsa> {
 protected:
  void SetUp() override {
    auto be = make_cpu_backend(GetParam());
    if (!be.ok()) GTEST_SKIP() << "this CPU lacks " << cpu_isa_name(GetParam()) << ": " << be.status().to_string();
    be_ = *be;
  }
  BackendPtr be_;
};

// Random codes (missing code 3 included) against extreme int16 operands: the kernels must
// return the exact integer sums, vectorized or not.
TEST_P(CpuKernels, ExactSums) {
  std::mt19937 rng(3);
  for (const Case c : {Case{96, 10000, 16}, Case{7, 70, 8}, Case{13, 33, 24}, Case{3072, 192, 16}, Case{1, 16, 8},
                            // chunk and tile edges of the AMX kernels: a half 64-sample block, odd
                            // row and sample blocks, widths that are not multiples of 16
                            Case{100, 2100, 24}, Case{33, 4100, 40}, Case{3073, 208, 24}, Case{10000, 48, 8}}) {
    const int64_t stride = (c.n + 3) / 4, n32 = (c.n + 31) / 32 * 32, n16 = (c.n + 15) / 16 * 16;
    std::vector<uint8_t> codes(static_cast<size_t>((c.rows + 1) * stride + 64));
    for (auto& b : codes) b = static_cast<uint8_t>(rng());
    std::uniform_int_distribution<int> val(-32767, 32767);
    std::vector<int16_t> qt(static_cast<size_t>(c.w * n32), 0);
    for (int64_t j = 0; j < c.w; ++j)
      for (int64_t s = 0; s < c.n; ++s) qt[static_cast<size_t>(j * n32 + s)] = static_cast<int16_t>(rng() % 2 ? 32767 : val(rng));
    std::vector<int16_t> wp(static_cast<size_t>((c.rows + 1) / 2 * 2 * c.w), 0);
    for (int64_t i = 0; i < c.rows; ++i)
      for (int64_t j = 0; j < c.w; ++j) wp[static_cast<size_t>((i / 2) * 2 * c.w + 2 * j + i % 2)] = static_cast<int16_t>(val(rng));

    std::vector<int64_t> p_ref(static_cast<size_t>(c.rows * c.w), 0);
    for (int64_t i = 0; i < c.rows; ++i)
      for (int64_t j = 0; j < c.w; ++j)
        for (int64_t s = 0; s < c.n; ++s) p_ref[i * c.w + j] += code(codes, stride, i, s) * int64_t{qt[j * n32 + s]};
    std::vector<int64_t> z_ref(static_cast<size_t>(c.w * n16), 0);
    for (int64_t j = 0; j < c.w; ++j)
      for (int64_t s = 0; s < c.n; ++s)
        for (int64_t i = 0; i < c.rows; ++i)
          z_ref[j * n16 + s] += code(codes, stride, i, s) * int64_t{wp[(i / 2) * 2 * c.w + 2 * j + i % 2]};

    // Both with qt as it is and with the backend's packed form of it.
    STRATA_ASSERT_OK_AND_ASSIGN(const std::vector<uint8_t> packed, be_->pack_times_i16(qt.data(), n32, c.w, n32));
    for (const uint8_t* pk : {static_cast<const uint8_t*>(nullptr), packed.empty() ? nullptr : packed.data()}) {
      std::vector<int64_t> p(static_cast<size_t>(c.rows * c.w), 0);
      STRATA_ASSERT_OK(be_->codes_times_i16({codes.data(), c.rows, n32, stride}, qt.data(), n32, c.w, p.data(), pk));
      EXPECT_EQ(p, p_ref) << "times rows " << c.rows << " n " << c.n << (pk ? " packed" : "");
    }
    STRATA_ASSERT_OK_AND_ASSIGN(const std::vector<uint8_t> tpacked, be_->pack_t_times_i16(wp.data(), c.rows, c.w));
    for (const uint8_t* pk : {static_cast<const uint8_t*>(nullptr), tpacked.empty() ? nullptr : tpacked.data()}) {
      std::vector<int32_t> zt(static_cast<size_t>(c.w * n16), 0);
      STRATA_ASSERT_OK(be_->codes_t_times_i16({codes.data(), c.rows, n16, stride}, wp.data(), c.w, zt.data(), n16, pk));
      for (int64_t j = 0; j < c.w; ++j)
        for (int64_t s = 0; s < c.n; ++s)
          ASSERT_EQ(zt[j * n16 + s], z_ref[j * n16 + s]) << "t_times rows " << c.rows << " n " << c.n << " col " << j
                                                           << " sample " << s << (pk ? " packed" : "");
    }
  }
}

// Decoders and counts against scalar loops, odd row lengths, junk bytes past each row.
std::vector<uint8_t> random_row(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> row(static_cast<size_t>((n + 3) / 4) + 8, 0xAB);
  for (int64_t j = 0; j < n; ++j) {
    const int sh = static_cast<int>(2 * (j % 4));
    row[static_cast<size_t>(j / 4)] = static_cast<uint8_t>((row[static_cast<size_t>(j / 4)] & ~(3 << sh)) | (rng() & 3) << sh);
  }
  return row;
}

TEST_P(CpuKernels, DecodeMatchesScalar) {
  const float lut[4] = {-1.25f, 0.5f, 2.75f, 0.0f};
  const double lutd[4] = {-1.25, 0.5, 2.75, 0.125};
  for (int64_t n : {0, 1, 3, 4, 5, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 257, 1001}) {
    auto row = random_row(n, static_cast<uint32_t>(n) + 7);
    std::vector<float> out(static_cast<size_t>(n) + 4, 99.0f);
    std::vector<double> outd(static_cast<size_t>(n) + 4, 99.0);
    const CodesView cv{row.data(), 1, n, static_cast<int64_t>(row.size())};
    ASSERT_TRUE(be_->decode(cv, lut, row_major(out.data(), 1, n, std::max<int64_t>(n, 1))).ok());
    ASSERT_TRUE(be_->decode(cv, lutd, row_major(outd.data(), 1, n, std::max<int64_t>(n, 1))).ok());
    for (int64_t j = 0; j < n; ++j) {
      ASSERT_EQ(out[j], lut[code(row, 0, 0, j)]) << "n=" << n << " j=" << j;
      ASSERT_EQ(outd[j], lutd[code(row, 0, 0, j)]) << "n=" << n << " j=" << j;
    }
    for (int64_t j = n; j < n + 4; ++j) {  // nothing written past n
      ASSERT_EQ(out[j], 99.0f);
      ASSERT_EQ(outd[j], 99.0);
    }
  }
}

TEST_P(CpuKernels, CountsMatchScalar) {
  // (256 codes per vector block of the vpopcnt kernel: sizes around and past it.)
  for (int64_t n : {0, 1, 7, 31, 32, 33, 64, 129, 255, 256, 257, 600, 1000, 10000}) {
    auto row = random_row(n, static_cast<uint32_t>(n) * 3 + 1);
    int64_t expect[4] = {0, 0, 0, 0};
    for (int64_t j = 0; j < n; ++j) ++expect[code(row, 0, 0, j)];
    int64_t got[4];
    STRATA_ASSERT_OK(be_->count_codes({row.data(), 1, n, static_cast<int64_t>(row.size())}, got));
    for (int c = 0; c < 4; ++c) EXPECT_EQ(got[c], expect[c]) << "n=" << n << " code " << c;
  }
}

// The skinny float64 gemm (≤ 8 columns, inner dimension ≥ 64) of the AVX2 levels sums each
// entry as the AVX-512 kernels do: the same bits, both layouts of A, every row-block remainder.
TEST(CpuKernelsSkinny, Avx2MatchesAvx512Bits) {
  auto avx2 = make_cpu_backend(CpuIsa::Avx2), avx512 = make_cpu_backend(CpuIsa::Avx512);
  if (!avx2.ok() || !avx512.ok()) GTEST_SKIP() << "needs both the avx2 and avx512 levels";
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int64_t m : {1, 2, 5, 6, 13, 37, 100})
    for (int64_t w : {1, 3, 4, 5, 8})
      for (int64_t k : {64, 131})
        for (Layout la : {Layout::RowMajor, Layout::ColMajor})
          for (double beta : {0.0, -0.5}) {
            std::vector<double> a(static_cast<size_t>(m * k)), b(static_cast<size_t>(k * w)), c0(static_cast<size_t>(m * w));
            for (auto& x : a) x = u(rng);
            for (auto& x : b) x = u(rng);
            for (auto& x : c0) x = u(rng);
            std::vector<double> c1 = c0, c2 = c0;
            const MatrixView<const double> av{a.data(), m, k, la == Layout::RowMajor ? k : m, la};
            ASSERT_TRUE((*avx2)->gemm(Trans::No, Trans::No, 0.75, av, col_major<const double>(b.data(), k, w), beta,
                                      col_major(c1.data(), m, w)).ok());
            ASSERT_TRUE((*avx512)->gemm(Trans::No, Trans::No, 0.75, av, col_major<const double>(b.data(), k, w), beta,
                                        col_major(c2.data(), m, w)).ok());
            for (size_t e = 0; e < c1.size(); ++e)
              ASSERT_EQ(c1[e], c2[e]) << "m " << m << " w " << w << " k " << k << " entry " << e;
          }
}

std::string isa_test_name(const ::testing::TestParamInfo<CpuIsa>& info) {
  std::string s = cpu_isa_name(info.param);
  std::erase(s, '-');
  return s;
}

INSTANTIATE_TEST_SUITE_P(Isa, CpuKernels,
                         ::testing::Values(CpuIsa::Portable, CpuIsa::Avx2, CpuIsa::Avx2Vnni, CpuIsa::Avx512,
                                           CpuIsa::Avx512Vnni, CpuIsa::Avx512Amx, CpuIsa::Neon),
                         isa_test_name);

}  // namespace
}  // namespace strata::backend
