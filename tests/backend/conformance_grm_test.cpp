// Backend conformance, the GRM's tile steps: the float32/float64 panel products, the sparse
// float64 step and the exact-integer products with their packer, against plain loops, bit for
// bit, at every registered level (instantiated in conformance_kernels_test.cpp).
#include "backend/conformance.hpp"
#include "backend/cpu/gram_panel_kernels.hpp"
#include "testing/testing.hpp"

namespace strata::backend::conformance {
namespace {

// Group-packed panels (groups of 32 samples, kk × 32 each); tiles with partial groups and row
// blocks; the three modes. Every entry: one FMA per k in order in T, then one add to the
// float64 accumulator (the portable level built without an FMA unit: a rounded product and a
// rounded sum per k). `panels` is the backend's gram_panels_f32 or gram_panels_f64.
template <class T, class Panels>
void check_gram_panels(bool fused, uint64_t seed, Panels panels) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<T> u(T(-2), T(2));
  for (int64_t kk : {1, 5, 128}) {
    for (auto [rows, cols] : {std::pair<int64_t, int64_t>{1, 1}, {8, 8}, {37, 37}, {64, 64}, {70, 45}, {128, 128}}) {
      for (int mode : {0, 1, 2}) {
        if (mode != 0 && rows != cols) continue;
        const int64_t ga = (rows + 31) / 32, gb = (cols + 31) / 32;
        std::vector<T> a(static_cast<size_t>(ga * kk * 32), T(0)), b(static_cast<size_t>(gb * kk * 32), T(0));
        auto at = [&](std::vector<T>& p, int64_t k, int64_t i) -> T& {
          return p[static_cast<size_t>((i / 32) * kk * 32 + k * 32 + i % 32)];
        };
        for (int64_t k = 0; k < kk; ++k) {
          for (int64_t i = 0; i < rows; ++i) at(a, k, i) = u(rng);
          for (int64_t j = 0; j < cols; ++j) at(b, k, j) = mode == 0 ? u(rng) : at(a, k, j);
        }
        const int64_t ld = cols + 3;
        std::vector<double> acc(static_cast<size_t>(rows * ld), kPad), ref;
        for (int64_t i = 0; i < rows; ++i)
          for (int64_t j = 0; j < cols; ++j) acc[static_cast<size_t>(i * ld + j)] = double(u(rng)) * 10.0;
        ref = acc;
        for (int64_t i = 0; i < rows; ++i)
          for (int64_t j = 0; j < cols; ++j) {
            if ((mode == 1 && j > i) || (mode == 2 && j >= i)) continue;
            T s = T(0);
            for (int64_t k = 0; k < kk; ++k)
              s = fused ? std::fma(at(a, k, i), at(b, k, j), s) : s + at(a, k, i) * at(b, k, j);
            ref[static_cast<size_t>(i * ld + j)] += static_cast<double>(s);
          }
        STRATA_ASSERT_OK(panels(a.data(), mode == 0 ? b.data() : a.data(), kk, rows, cols, mode, acc.data(), ld));
        for (size_t e = 0; e < acc.size(); ++e)
          ASSERT_EQ(acc[e], ref[e]) << "kk " << kk << " " << rows << "x" << cols << " mode " << mode << " entry " << e;
      }
    }
  }
}

TEST_P(Conformance, GramPanelsF32) {
  const bool fused = be_->name() != "cpu-portable" || cpu::kPortablePanelsFused;
  check_gram_panels<float>(fused, 11, [&](auto... x) { return be_->gram_panels_f32(x...); });
}

TEST_P(Conformance, GramPanelsF64) {
  const bool fused = be_->name() != "cpu-portable" || cpu::kPortablePanelsFused;
  check_gram_panels<double>(fused, 13, [&](auto... x) { return be_->gram_panels_f64(x...); });
}

// The GRM's sparse float64 step: each entry's chain (u, then the row's c = 1 adds, c = 2 adds of
// 2y, missing-call FMAs) against a scalar chain, bit for bit, for full, empty and 64-long
// lists, partial column groups and both modes.
TEST_P(Conformance, GramSparseF64) {
  std::mt19937_64 rng(14);
  std::uniform_real_distribution<double> u01(-2.0, 2.0);
  for (int64_t kk : {int64_t{1}, int64_t{7}, backend::kSparseRun}) {
    for (auto [rows, cols] : {std::pair<int64_t, int64_t>{1, 1}, {8, 8}, {37, 37}, {64, 64}, {70, 45}, {96, 96},
                              {128, 128}, {40, 100}}) {
      for (int mode : {0, 1}) {
        if (mode != 0 && rows != cols) continue;
        const int64_t gc = (cols + 31) / 32, stride = backend::kSparseRun + 3;
        std::vector<double> y(static_cast<size_t>(gc * kk * 32), 0.0), u(static_cast<size_t>(gc * 32), 0.0);
        for (int64_t j = 0; j < cols; ++j) {
          u[static_cast<size_t>(j)] = u01(rng) * 10.0;
          for (int64_t k = 0; k < kk; ++k) y[static_cast<size_t>((j / 32) * kk * 32 + k * 32 + j % 32)] = u01(rng);
        }
        std::vector<double> coef(static_cast<size_t>(backend::kSparseRun), 0.0);
        for (auto& c : coef) c = std::fabs(u01(rng)) * 0.7;
        std::vector<uint8_t> entries(static_cast<size_t>(rows * stride), 0xEE), counts(static_cast<size_t>(3 * rows));
        for (int64_t i = 0; i < rows; ++i) {
          // Row 0 empty, row 1 every variant (c = 1, then c = 2, then missing), others random.
          std::vector<uint8_t> part[3];
          for (int64_t k = 0; k < kk; ++k) {
            const uint64_t r = rng() % 8;
            const int which = i == 0 ? -1 : i == 1 ? int(k % 3) : r < 3 ? 0 : r < 5 ? 1 : r == 5 ? 2 : -1;
            if (which >= 0) part[which].push_back(static_cast<uint8_t>(k));
          }
          int64_t at = 0;
          for (int q = 0; q < 3; ++q) {
            counts[static_cast<size_t>(3 * i + q)] = static_cast<uint8_t>(part[q].size());
            for (uint8_t k : part[q]) entries[static_cast<size_t>(i * stride + at++)] = k;
          }
        }
        const int64_t ld = cols + 3;
        std::vector<double> acc(static_cast<size_t>(rows * ld), kPad);
        for (int64_t i = 0; i < rows; ++i)
          for (int64_t j = 0; j < cols; ++j) acc[static_cast<size_t>(i * ld + j)] = u01(rng) * 10.0;
        std::vector<double> ref = acc;
        for (int64_t i = 0; i < rows; ++i)
          for (int64_t j = 0; j < cols; ++j) {
            if (mode == 1 && j > i) continue;
            double s = u[static_cast<size_t>(j)];
            const int64_t ones = counts[static_cast<size_t>(3 * i)], twos = ones + counts[static_cast<size_t>(3 * i + 1)],
                          all = twos + counts[static_cast<size_t>(3 * i + 2)];
            for (int64_t t = 0; t < all; ++t) {
              const uint8_t k = entries[static_cast<size_t>(i * stride + t)];
              const double yk = y[static_cast<size_t>((j / 32) * kk * 32 + k * 32 + j % 32)];
              s = t < ones ? s + yk : t < twos ? s + 2.0 * yk : std::fma(coef[k], yk, s);
            }
            ref[static_cast<size_t>(i * ld + j)] += s;
          }
        backend::SparseRowLists l;
        l.entries = entries.data();
        l.counts = counts.data();
        l.stride = stride;
        l.coef = coef.data();
        STRATA_ASSERT_OK(be_->gram_sparse_f64(l, y.data(), u.data(), kk, rows, cols, mode, acc.data(), ld));
        for (size_t e = 0; e < acc.size(); ++e)
          ASSERT_EQ(acc[e], ref[e]) << "kk " << kk << " " << rows << "x" << cols << " mode " << mode << " entry " << e;
      }
    }
  }
}

// The integer GRM product: exact sums per entry (scale · Σ codes · (l⁰ + 128 l¹ + 16384 l²)) at the
// extremes of the byte ranges, and its packer: the panels' bytes and the centring sums, bit for bit.
TEST_P(Conformance, GramPanelsU8S8) {
  std::mt19937_64 rng(12);
  for (int64_t quads : {1, 5, 32, 300}) {  // (AMX: 16-quad blocks, a partial last block or none)
    for (auto [rows, cols] : {std::pair<int64_t, int64_t>{1, 1}, {8, 8}, {37, 37}, {64, 64}, {70, 45}, {128, 128}}) {
      for (int mode : {0, 1}) {
        if (mode != 0 && rows != cols) continue;
        const int64_t ga = (cols + 31) / 32, gb = (rows + 31) / 32;
        std::vector<uint8_t> codes(static_cast<size_t>(ga * quads * 128));
        std::vector<int8_t> limbs(static_cast<size_t>(gb * quads * 384));
        // The GRM's ranges: codes g·2^s ≤ 128, limb bytes g·l with l in [−64, 63] (so [−128, 126]).
        for (auto& c : codes) c = static_cast<uint8_t>(rng() % 4 == 0 ? 128 : rng() % 3 << (rng() % 7));
        for (auto& l : limbs)
          l = static_cast<int8_t>(rng() % 4 == 0 ? (rng() % 2 ? -128 : 126) : int(rng() % 3) * (int(rng() % 128) - 64));
        const int64_t ld = cols + 3;
        std::vector<double> acc(static_cast<size_t>(rows * ld), kPad);
        for (int64_t e = 0; e < rows * ld; ++e)
          if (e % ld < cols) acc[static_cast<size_t>(e)] = double(rng() % 1000) * 0.37;
        std::vector<double> ref = acc;
        const double scale = std::ldexp(1.0, -13);
        for (int64_t i = 0; i < rows; ++i)
          for (int64_t j = 0; j < cols; ++j) {
            if (mode == 1 && j > i) continue;
            int64_t s = 0;
            for (int64_t q = 0; q < quads; ++q)
              for (int64_t l = 0; l < 3; ++l)
                for (int64_t t = 0; t < 4; ++t)
                  s += int64_t{codes[static_cast<size_t>((j / 32) * quads * 128 + q * 128 + (j % 32) * 4 + t)]} *
                       limbs[static_cast<size_t>((i / 32) * quads * 384 + q * 384 + l * 128 + (i % 32) * 4 + t)] *
                       (int64_t{1} << (7 * l));
            ref[static_cast<size_t>(i * ld + j)] += scale * static_cast<double>(s);
          }
        STRATA_ASSERT_OK(
            be_->gram_panels_u8s8(codes.data(), limbs.data(), quads, rows, cols, mode, scale, acc.data(), ld));
        for (size_t e = 0; e < acc.size(); ++e)
          ASSERT_EQ(acc[e], ref[e]) << "quads " << quads << " " << rows << "x" << cols << " mode " << mode << " " << e;
      }
    }
  }
  // The longest run at the ranges' extremes: every product 128 · (−128) (a `vpmaddubsw` pair at
  // −32768 exactly) or 128 · 126, summed over 65,536 variants.
  for (int8_t extreme : {int8_t(-128), int8_t(126)}) {
    const int64_t quads = 16384, rows = 3, cols = 40;
    std::vector<uint8_t> codes(static_cast<size_t>(2 * quads * 128), 128);
    std::vector<int8_t> limbs(static_cast<size_t>(quads * 384), extreme);
    std::vector<double> acc(static_cast<size_t>(rows * cols), 1.0);
    STRATA_ASSERT_OK(be_->gram_panels_u8s8(codes.data(), limbs.data(), quads, rows, cols, 0, 0.5, acc.data(), cols));
    const double want = 1.0 + 0.5 * 128.0 * extreme * (1 + 128 + 16384) * 4 * quads;
    for (size_t e = 0; e < acc.size(); ++e) ASSERT_EQ(acc[e], want) << int(extreme) << " " << e;
  }
  for (int64_t n : {1, 17, 32, 63, 65, 130, 1001}) {
    const int64_t quads = 9, npad = (n + 31) / 32 * 32;
    const Codes c(4 * quads, n, n % 3, rng);
    std::vector<const uint8_t*> rows(static_cast<size_t>(4 * quads));
    for (int64_t r = 0; r < 4 * quads; ++r) rows[static_cast<size_t>(r)] = c.buf.data() + ((5 * r) % c.rows) * c.stride;
    std::vector<uint8_t> tables(static_cast<size_t>(quads * 80));
    for (size_t e = 0; e < tables.size(); ++e)
      tables[e] = static_cast<uint8_t>(e % 80 < 16 ? rng() % 3 << (rng() % 7) : e % 80 < 64 ? rng() : rng() % 128 - 64);
    std::vector<uint8_t> codes(static_cast<size_t>(npad * quads * 4), 0xAB);
    std::vector<int8_t> limbs(static_cast<size_t>(3 * npad * quads * 4), 0x55);
    std::vector<int64_t> rsum(static_cast<size_t>(npad), 7);
    STRATA_ASSERT_OK(be_->pack_u8s8(rows.data(), tables.data(), quads, n, codes.data(), limbs.data(), rsum.data()));
    for (int64_t j = 0; j < npad; ++j) {
      int64_t want = 0;
      for (int64_t q = 0; q < quads; ++q) {
        const uint8_t* tab = tables.data() + q * 80;
        for (int64_t t = 0; t < 4; ++t) {
          const int64_t r = (5 * (4 * q + t)) % c.rows;
          const int idx = j < n ? int(4 * t) + c.code(r, j) : -1;
          const size_t at = static_cast<size_t>((j / 32) * quads * 128 + q * 128 + (j % 32) * 4 + t);
          ASSERT_EQ(codes[at], idx < 0 ? 0 : tab[idx]) << n << " " << j;
          for (int64_t l = 0; l < 3; ++l)
            ASSERT_EQ(limbs[static_cast<size_t>((j / 32) * quads * 384 + q * 384 + l * 128 + (j % 32) * 4 + t)],
                      idx < 0 ? 0 : static_cast<int8_t>(tab[16 + 16 * l + idx]))
                << n << " " << j;
          for (int64_t l = 0; l < 3; ++l)
            want += int64_t{codes[at]} * static_cast<int8_t>(tab[64 + 4 * l + t]) * (int64_t{1} << (7 * l));
        }
      }
      ASSERT_EQ(rsum[static_cast<size_t>(j)], want) << n << " " << j;
    }
  }
}

}  // namespace
}  // namespace strata::backend::conformance
