// The random module: Philox known answers, the transforms' ranges, every kernel path against
// the element-wise reference, and portable == AVX-512 bit for bit. Arrays and linalg drawing
// the same bits are tested in linalg/random_paths_test.cpp (that binary links both).
#include "strata/core/random.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <vector>

#include "core/random_hd.hpp"
#include "testing/testing.hpp"

namespace strata::random {
namespace {

TEST(Philox, KnownAnswers) {
  // Random123 KAT vectors (formats.md §9); the last one is cuRAND's first 4 outputs for seed 1234.
  EXPECT_EQ(philox4x32_10({0, 0, 0, 0}, {0, 0}), (Words{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(philox4x32_10({~0u, ~0u, ~0u, ~0u}, {~0u, ~0u}), (Words{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(philox4x32_10({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}),
            (Words{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
  EXPECT_EQ(philox4x32_10({0, 0, 0, 0}, {1234, 0}), (Words{0x2090b348, 0xda7cf0ab, 0x4401906f, 0xcbca470e}));
  static_assert(philox_block(1234, 0, 0)[0] == 0x2090b348u);
  static_assert(word_at(1234, 0, 3) == 0xcbca470eu);
  // The keying: block b of stream s is counter {lo b, hi b, lo s, hi s}, key = seed.
  const uint64_t seed = 0x0123456789abcdefull, stream = 0xfedcba9876543210ull, block = 0x1111222233334444ull;
  EXPECT_EQ(philox_block(seed, stream, block),
            philox4x32_10({0x33334444, 0x11112222, 0x76543210, 0xfedcba98}, {0x89abcdef, 0x01234567}));
}

TEST(RandomTransforms, UniformNeverReachesOne) {
  // Contract [0, 1): 0 from all-zero bits, the largest value 1 − 2⁻⁵³ from the 53 bits all set
  // (x = ~0, y = ~0 << 11). (1 − 2⁻⁵³) + 2⁻⁵⁴ rounds to 1.0, which is why no offset is added.
  EXPECT_EQ(uniform_f64(0, 0), 0.0);
  EXPECT_EQ(uniform_f64(0xFFFFFFFFu, 0xFFFFF800u), 1.0 - 0x1p-53);
  EXPECT_EQ((1.0 - 0x1p-53) + 0x1p-54, 1.0);
  for (uint32_t x : {0u, 1u, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFEu, 0xFFFFFFFFu}) {
    for (uint32_t y : {0u, 1u, 0x7FFu, 0x800u, 0x7FFFFFFFu, 0xFFFFF800u, 0xFFFFFFFEu, 0xFFFFFFFFu}) {
      const double u = uniform_f64(x, y);
      EXPECT_GE(u, 0.0) << x << " " << y;
      EXPECT_LT(u, 1.0) << x << " " << y;
    }
  }
  EXPECT_LT(uniform_f64(0xFFFFFFFFu, 0xFFFFFFFFu), 1.0);
  EXPECT_EQ(uniform_f32(0), 0.0f);
  EXPECT_EQ(uniform_f32(0xFFFFFFFFu), 1.0f - 0x1p-24f);
}

TEST(RandomTransforms, NormalFiniteAtExtremeWords) {
  for (uint32_t x : {0u, 1u, 0x80000000u, 0xFFFFFFFEu, 0xFFFFFFFFu}) {
    for (uint32_t y : {0u, 0x3FFFFFFFu, 0x40000000u, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu}) {
      const double z = normal_f64(x, y);
      EXPECT_TRUE(std::isfinite(z)) << x << " " << y;
      EXPECT_NE(z, 0.0) << x << " " << y;  // r > 0 and θ never a multiple of π
    }
  }
  // The largest radius, u = 2⁻³³: √(66 ln 2).
  EXPECT_NEAR(std::fabs(normal_f64(0, 0x40000000u - 1)), std::sqrt(66 * std::log(2.0)), 1e-12);
}

TEST(RandomTransforms, NormalPairMatchesLibmBoxMuller) {
  double worst = 0;
  for (uint64_t b = 0; b < 50000; ++b) {
    const Words w = philox_block(42, 0, b);
    const double u = (w[0] + 0.5) * 0x1p-32, th = (w[1] + 0.5) * 0x1p-32 * 2 * M_PI;
    const double r = std::sqrt(-2 * std::log(u));
    worst = std::max(worst, std::fabs(normal_f64(w[0], w[1]) - r * std::sin(th)));
    worst = std::max(worst, std::fabs(normal_f64(w[0], w[1] + (1u << 30)) - r * std::cos(th)));
  }
  EXPECT_LT(worst, 1e-11);
}

// The ziggurat written again from Marsaglia & Tsang's description with libm's exp and log and
// tables built here, keyed as random.hpp says (word e; retry a of e is block 2^63 | a << 56 | e,
// its words 0 and 1 the uniforms, word 2 the next candidate).
double libm_ziggurat(uint64_t seed, uint64_t stream, uint64_t e) {
  static const std::vector<double> x = [] {
    const double r = 3.442619855899, v = 9.91256303526217e-3;
    std::vector<double> t(129);
    t[0] = v / std::exp(-0.5 * r * r);
    t[1] = r;
    for (int i = 1; i < 127; ++i) t[i + 1] = std::sqrt(-2 * std::log(v / t[i] + std::exp(-0.5 * t[i] * t[i])));
    t[128] = 0;
    return t;
  }();
  auto f = [](double z) { return std::exp(-0.5 * z * z); };
  auto uniform = [](uint32_t word) { return (word + 0.5) * 0x1p-32; };
  uint32_t w = word_at(seed, stream, e);
  for (uint32_t a = 1;; ++a) {
    const int i = static_cast<int>(w & 127);
    const double sign = (w & 128) ? -1.0 : 1.0;
    const double z = ((w >> 8) + 0.5) * 0x1p-24 * x[i];
    if (z < x[i + 1]) return sign * z;
    if (a == 128) return sign * z;
    const Words b = philox_block(seed, stream, (uint64_t{1} << 63) | (uint64_t{a} << 56) | e);
    if (i == 0) {
      const double t = -std::log(uniform(b[0])) / x[1], y = -std::log(uniform(b[1]));
      if (2 * y >= t * t) return sign * (x[1] + t);
    } else if (f(x[i]) + uniform(b[0]) * (f(x[i + 1]) - f(x[i])) < f(z)) {
      return sign * z;
    }
    w = b[2];
  }
}

TEST(RandomTransforms, NormalElementsFollowTheZiggurat) {
  // The same values as the independent implementation (the fast path exactly; a slow-path value
  // may differ in the last bits through the table log), and the slow paths were taken.
  int64_t slow = 0, tail = 0;
  double worst = 0;
  for (uint64_t e = 0; e < 400000; ++e) {
    const uint32_t w = word_at(42, 3, e);
    const bool fast = (w >> 8) < detail::kZigK[w & 127];
    slow += !fast;
    tail += !fast && (w & 127) == 0;
    const double got = normal_at(42, 3, e), want = libm_ziggurat(42, 3, e);
    if (fast) ASSERT_EQ(got, want) << e;
    worst = std::max(worst, std::fabs(got - want));
  }
  EXPECT_LT(worst, 1e-12);
  EXPECT_NEAR(static_cast<double>(slow) / 400000, 0.0276, 0.002);
  EXPECT_GT(tail, 50);
}

TEST(RandomTransforms, NormalElementsAreStandardNormal) {
  // 2^21 elements: Kolmogorov–Smirnov distance to Φ (0.1 % critical value 1.95/√n = 0.00135),
  // the moments, and the tail beyond the ziggurat's r = 3.4426 (P = 2Φ(−r) = 5.76e-4).
  const int64_t n = int64_t{1} << 21;
  std::vector<double> z(static_cast<size_t>(n));
  FillParams p;
  p.seed = 2024;
  fill(p, 0, 1, n, z.data());
  double sum = 0, sum2 = 0, sum4 = 0;
  int64_t beyond = 0;
  for (double v : z) {
    sum += v;
    sum2 += v * v;
    sum4 += v * v * v * v;
    beyond += std::fabs(v) > 3.442619855899;
  }
  EXPECT_NEAR(sum / n, 0.0, 4.0 / std::sqrt(static_cast<double>(n)));
  EXPECT_NEAR(sum2 / n, 1.0, 4.0 * std::sqrt(2.0 / n));
  EXPECT_NEAR(sum4 / n, 3.0, 4.0 * std::sqrt(96.0 / n));
  EXPECT_NEAR(static_cast<double>(beyond) / n, 5.76e-4, 4.0 * std::sqrt(5.76e-4 / n));
  std::sort(z.begin(), z.end());
  double d = 0;
  for (int64_t k = 0; k < n; ++k) {
    const double cdf = 0.5 * std::erfc(-z[k] / std::sqrt(2.0));
    d = std::max({d, std::fabs(cdf - static_cast<double>(k) / n), std::fabs(cdf - static_cast<double>(k + 1) / n)});
  }
  EXPECT_LT(d, 1.95 / std::sqrt(static_cast<double>(n)));
}

TEST(RandomTransforms, IntegersInRange) {
  EXPECT_EQ(integer_i64(0, 0, -5, 11), -5);
  EXPECT_EQ(integer_i64(~0u, ~0u, -5, 11), 5);
  EXPECT_EQ(integer_u32(0, 3), 0u);
  EXPECT_EQ(integer_u32(~0u, 3), 2u);
  EXPECT_EQ(randint3(0), 0);
  EXPECT_EQ(randint3(85), 0);
  EXPECT_EQ(randint3(86), 1);
  EXPECT_EQ(randint3(171), 2);
  EXPECT_EQ(randint3(255), 2);
}

// Element e of each kind, from its own Philox block (the keying in random.hpp).
uint64_t reference_bits(const FillParams& p, uint64_t e) {
  uint64_t bits = 0;
  if (p.dist == Dist::Normal) {
    const double v = std::fma(normal_at(p.seed, p.stream, e), p.sd, p.mean);
    if (p.out == ScalarType::Float64) return std::bit_cast<uint64_t>(v);
    return std::bit_cast<uint32_t>(static_cast<float>(v));
  }
  if (p.dist == Dist::Integers) return std::bit_cast<uint64_t>(integer_at(p.seed, p.stream, e, p.low, p.range));
  if (p.out == ScalarType::Float64) return std::bit_cast<uint64_t>(uniform_at(p.seed, p.stream, e));
  bits = std::bit_cast<uint32_t>(uniform_f32(word_at(p.seed, p.stream, e)));
  return bits;
}

// Every kernel path (contiguous, step 2, strided, reversed, broadcast, odd offsets) of each Isa
// gives the element-wise reference bits.
void check_fill(Isa isa) {
  for (Dist dist : {Dist::Normal, Dist::Uniform, Dist::Integers}) {
    for (ScalarType out : {ScalarType::Float64, ScalarType::Float32}) {
      FillParams p;
      p.dist = dist;
      p.seed = 0x123456789abcdefull;
      p.stream = 7;
      p.mean = 10;
      p.sd = 2;
      p.low = -5;
      p.range = 11;
      p.out = dist == Dist::Integers ? ScalarType::Int64 : out;
      const int64_t size = DType(p.out).itemsize();
      for (int64_t step : {1, 2, 3, 5, 8, 1000, 100000, 0, -1, -2, -7}) {
        for (int64_t e0 : {0, 1, 2, 3, 4, 5, 6, 7, 1001, 123456789}) {
          for (int64_t n : {1, 3, 8, 9, 33, 257}) {
            const int64_t first = step < 0 ? e0 + (n - 1) * -step : e0;
            std::vector<uint8_t> got(static_cast<size_t>(n * size));
            fill(p, first, step, n, got.data(), isa);
            for (int64_t k = 0; k < n; ++k) {
              uint64_t bits = 0;
              std::memcpy(&bits, got.data() + k * size, static_cast<size_t>(size));
              ASSERT_EQ(bits, reference_bits(p, static_cast<uint64_t>(first + k * step)))
                  << isa_name(isa) << " dist " << static_cast<int>(dist) << " step " << step << " e0 " << e0
                  << " n " << n << " k " << k;
            }
          }
        }
      }
    }
  }
}

void check_words(Isa isa) {
  // The last start crosses a 2³² block boundary inside one run.
  for (uint64_t w0 : {uint64_t{0}, uint64_t{1}, uint64_t{3}, uint64_t{1} << 35, (uint64_t{1} << 34) - 21}) {
    for (int64_t n : {1, 2, 5, 31, 32, 33, 1029, 5000}) {
      std::vector<uint32_t> got(static_cast<size_t>(n));
      fill_words(77, 5, w0, n, got.data(), isa);
      for (int64_t k = 0; k < n; ++k) ASSERT_EQ(got[k], word_at(77, 5, w0 + k)) << isa_name(isa) << " " << w0 << " " << k;
    }
  }
}

// Runs longer than fill_randint3's chunk of words, starting at every byte of a word.
TEST(RandomKernels, RandInt3MatchesElementWise) {
  for (int64_t e0 : {int64_t{0}, int64_t{1}, int64_t{2}, int64_t{3}, (int64_t{1} << 36) + 7}) {
    for (int64_t n : {1, 5, 4093, 4096, 9000}) {
      std::vector<uint8_t> got(static_cast<size_t>(n));
      fill_randint3(91, 0, e0, n, got.data());
      for (int64_t k = 0; k < n; ++k)
        ASSERT_EQ(got[k], randint3(byte_at(91, 0, static_cast<uint64_t>(e0 + k)))) << e0 << " " << k;
    }
  }
}

TEST(RandomKernels, PortableMatchesElementWise) {
  check_fill(Isa::Portable);
  check_words(Isa::Portable);
}

TEST(RandomKernels, Avx512MatchesElementWise) {
  if (!isa_available(Isa::Avx512)) GTEST_SKIP() << "this CPU lacks AVX-512 F/DQ/VL/BW: only the portable kernels ran";
  check_fill(Isa::Avx512);
  check_words(Isa::Avx512);
}

TEST(RandomKernels, Avx2MatchesElementWise) {
  if (!isa_available(Isa::Avx2)) GTEST_SKIP() << "this CPU lacks AVX2 + FMA: only the portable kernels ran";
  check_fill(Isa::Avx2);
  check_words(Isa::Avx2);
}

// Long runs (every stage and tail of the vector loops) of both parities and both word pairs.
TEST(RandomKernels, VectorKernelsSameBitsOnLongRuns) {
  FillParams p;
  p.seed = 99;
  const int64_t n = 1 << 16;
  std::vector<double> a(n), b(n);
  int compared = 0;
  for (Isa isa : {Isa::Avx2, Isa::Avx512}) {
    if (!isa_available(isa)) continue;
    for (int64_t step : {1, 2, 3}) {
      for (int64_t e0 : {5, 6}) {
        fill(p, e0, step, n - e0, a.data(), Isa::Portable);
        fill(p, e0, step, n - e0, b.data(), isa);
        EXPECT_EQ(std::memcmp(a.data(), b.data(), sizeof(double) * (n - e0)), 0) << isa_name(isa) << " " << step << " " << e0;
        ++compared;
      }
    }
  }
  if (compared == 0) GTEST_SKIP() << "this CPU has neither AVX2 + FMA nor AVX-512: nothing to compare";
}

// The AVX2 ziggurat (the magic-constant conversion, the gathers, the slow lanes) against the
// scalar reference on 2^20 contiguous values from four streams, far from element 0.
TEST(RandomKernels, Avx2TransformsOverTheWordRange) {
  if (!isa_available(Isa::Avx2)) GTEST_SKIP() << "this CPU lacks AVX2 + FMA";
  FillParams p;
  p.seed = 3;
  const int64_t n = 1 << 18;
  std::vector<double> a(n), b(n);
  for (uint64_t stream : {0, 1, 2, 3}) {
    p.stream = stream;
    fill(p, int64_t{1} << 40, 1, n, a.data(), Isa::Portable);
    fill(p, int64_t{1} << 40, 1, n, b.data(), Isa::Avx2);
    ASSERT_EQ(std::memcmp(a.data(), b.data(), sizeof(double) * n), 0) << stream;
  }
}

// The AVX2 slow lanes: rejected candidates are recorded, resolved in rounds (attempt a on every
// pending lane, the pending ones packed for a + 1) and written through their destinations. A
// run long enough for several resolves, with elements that need a second and a third attempt,
// gives the element-wise bits at steps 1, 2 and 3.
TEST(RandomKernels, Avx2SlowLanesOverSeveralRoundsAndResolves) {
  if (!isa_available(Isa::Avx2)) GTEST_SKIP() << "this CPU lacks AVX2 + FMA";
  FillParams p;
  p.seed = 18;  // three elements of the first n take a third attempt
  p.stream = 1;
  p.mean = -3;
  p.sd = 0.5;
  const int64_t e0 = (int64_t{1} << 50) + 3, n = 3 << 16;
  // Attempts the elements of the step-1 run take in the scalar reference.
  int64_t slow = 0, second = 0, third = 0;
  for (int64_t k = 0; k < n; ++k) {
    const uint64_t e = static_cast<uint64_t>(e0 + k);
    uint32_t w = word_at(p.seed, p.stream, e);
    if (detail::zig_fast(w)) continue;
    ++slow;
    double z = 0;
    uint32_t a = 1;
    while (a < 128 && !detail::zig_attempt(w, philox_block(p.seed, p.stream, detail::zig_retry_block(e, a)), z)) ++a;
    second += a >= 2;
    third += a >= 3;
  }
  EXPECT_GT(slow, 5000);  // more than one resolve's worth of records
  EXPECT_GT(second, 20);
  EXPECT_GT(third, 0);
  for (int64_t step : {1, 2, 3}) {
    std::vector<double> got(static_cast<size_t>(n));
    fill(p, e0, step, n, got.data(), Isa::Avx2);
    for (int64_t k = 0; k < n; ++k) {
      const double want = std::fma(normal_at(p.seed, p.stream, static_cast<uint64_t>(e0 + k * step)), p.sd, p.mean);
      ASSERT_EQ(std::bit_cast<uint64_t>(got[k]), std::bit_cast<uint64_t>(want)) << step << " " << k;
    }
  }
}

TEST(RandomKernels, IsaReporting) {
  EXPECT_TRUE(isa_available(Isa::Portable));
  EXPECT_TRUE(isa_available(best_isa()));
  EXPECT_STREQ(isa_name(Isa::Portable), "portable");
  EXPECT_STREQ(isa_name(Isa::Avx512), "avx512");
  EXPECT_STREQ(isa_name(Isa::Avx2), "avx2");
  if (isa_available(Isa::Avx512)) {
    EXPECT_TRUE(isa_available(Isa::Avx2));
  }
}

TEST(RandomSequence, BlocksKeyedByIndexAndStream) {
  // Block j of the sequence of (seed, stream, index) is philox_block(seed, stream + (j << 32), index).
  Sequence d(11, 2, 12345);
  for (uint64_t j = 0; j < 3; ++j) {
    const Words w = philox_block(11, 2 | (j << 32), 12345);
    for (int i = 0; i < 4; ++i) ASSERT_EQ(d.next_word(), w[i]) << j << " " << i;
  }
  Sequence u(11, 2, 7);
  const Words w = philox_block(11, 2, 7);
  EXPECT_EQ(u.uniform(), uniform_f64(w[0], w[1]));
  EXPECT_EQ(u.normal(), normal_f64(w[2], w[3]));
}

}  // namespace
}  // namespace strata::random
