// The pruning kernels this CPU (or STRATA_CPU's level) picks, against sums taken sample by
// sample from the codes: the plane fills and counts at every row length around the SIMD block
// sizes, the pair sums with and without missing calls, and the cross-product-only test
// (bound_r2), which must never answer other than the exact comparison.
#include <random>
#include <vector>

#include "genomics/prune_internal.hpp"
#include "genomics/prune_kernels.hpp"
#include "strata/io/genotype.hpp"
#include "testing/testing.hpp"

namespace strata::genomics::detail {
namespace {

// x of a code: +1 hom REF, 0 het, -1 hom ALT (missing has none).
int value(uint8_t c) { return c == io::kCodeHomRef ? 1 : c == io::kCodeHomAlt ? -1 : 0; }

std::vector<uint8_t> pack(const std::vector<uint8_t>& codes) {
  std::vector<uint8_t> row(static_cast<size_t>(io::packed_row_bytes(static_cast<int64_t>(codes.size()))), 0xff);
  for (size_t s = 0; s < codes.size(); ++s) {
    uint8_t& b = row[s / 4];
    b = static_cast<uint8_t>((b & ~(3u << (2 * (s % 4)))) | (codes[s] << (2 * (s % 4))));
  }
  return row;
}

// Codes correlated with `like`: each copied with probability `keep`, else drawn; missing at
// rate `missing`.
std::vector<uint8_t> draw(std::mt19937_64& rng, int64_t n, const std::vector<uint8_t>* like, double keep,
                          double missing) {
  std::uniform_real_distribution<double> u(0, 1);
  const double p = 0.05 + 0.9 * u(rng);
  std::vector<uint8_t> c(static_cast<size_t>(n));
  for (int64_t s = 0; s < n; ++s) {
    uint8_t g = static_cast<uint8_t>((u(rng) < p) + (u(rng) < p));
    if (like && u(rng) < keep && (*like)[static_cast<size_t>(s)] != io::kCodeMissing) g = (*like)[static_cast<size_t>(s)];
    c[static_cast<size_t>(s)] = u(rng) < missing ? uint8_t{io::kCodeMissing} : g;
  }
  return c;
}

struct Variant {
  std::vector<uint8_t> codes;
  std::vector<uint64_t> planes;
  GroupStats stats;
};

Variant make_variant(std::vector<uint8_t> codes) {
  const auto n = static_cast<int64_t>(codes.size());
  const int64_t w = plane_words(n);
  Variant v{std::move(codes), std::vector<uint64_t>(static_cast<size_t>(3 * w), ~uint64_t{0}), {}};
  const std::vector<uint8_t> row = pack(v.codes);
  pick_fill_all()(row.data(), static_cast<int64_t>(row.size()), w, v.planes.data(), v.planes.data() + w,
                  v.planes.data() + 2 * w);
  int64_t hom = 0, ref = 0, called = 0;
  pick_count()(v.planes.data(), w, &hom, &ref, &called);
  v.stats = {called, 2 * ref - hom, hom, ref, hom - ref, called == n};
  return v;
}

PairParts naive(const Variant& a, const Variant& b) {
  PairParts r{0, 0, 0, 0, 0, 0};
  for (size_t s = 0; s < a.codes.size(); ++s) {
    if (a.codes[s] == io::kCodeMissing || b.codes[s] == io::kCodeMissing) continue;
    const int x = value(a.codes[s]), y = value(b.codes[s]);
    ++r.n, r.dot += x * y, r.sa += x, r.qa += x * x, r.sb += y, r.qb += y * y;
  }
  return r;
}

bool exceeds(const PairParts& t, double thresh) {
  const double cov = static_cast<double>(t.dot * t.n - t.sa * t.sb);
  const double va = static_cast<double>(t.qa * t.n - t.sa * t.sa);
  const double vb = static_cast<double>(t.qb * t.n - t.sb * t.sb);
  return cov * cov > thresh * va * vb;
}

TEST(PruneKernels, PlanesAndCountsMatchTheCodesAtEveryRowLength) {
  std::mt19937_64 rng(5);
  for (int64_t n : {1, 3, 4, 63, 64, 65, 255, 256, 257, 511, 512, 513, 1000, 1023, 1024, 1025, 4099}) {
    const Variant v = make_variant(draw(rng, n, nullptr, 0, 0.1));
    int64_t hom = 0, ref = 0, called = 0;
    for (uint8_t c : v.codes) hom += c == io::kCodeHomRef || c == io::kCodeHomAlt, ref += c == io::kCodeHomRef,
                                 called += c != io::kCodeMissing;
    EXPECT_EQ(v.stats.ssq, hom) << n;
    EXPECT_EQ(v.stats.hom_ref, ref) << n;
    EXPECT_EQ(v.stats.n, called) << n;
    // Nothing past the samples: the words the fill leaves are zero in every plane.
    const int64_t w = plane_words(n);
    int64_t set = 0;
    for (int64_t t = 0; t < w; ++t) set += std::popcount(v.planes[static_cast<size_t>(2 * w + t)]);
    EXPECT_EQ(set, called) << n;
  }
}

TEST(PruneKernels, PairSumsMatchTheCodesForEveryBatchSize) {
  std::mt19937_64 rng(11);
  for (int64_t n : {5, 256, 513, 2000}) {
    for (double missing : {0.0, 0.02, 0.3}) {
      std::vector<Variant> vs;
      vs.push_back(make_variant(draw(rng, n, nullptr, 0, missing)));
      for (int j = 0; j < kMaxBatch; ++j) vs.push_back(make_variant(draw(rng, n, &vs[0].codes, 0.7, missing)));
      const int64_t w = plane_words(n);
      for (int count = 1; count <= kMaxBatch; ++count) {
        const uint64_t* b[kMaxBatch];
        const GroupStats* sb[kMaxBatch];
        for (int j = 0; j < count; ++j) b[j] = vs[static_cast<size_t>(j + 1)].planes.data(), sb[j] = &vs[static_cast<size_t>(j + 1)].stats;
        PairParts out[kMaxBatch];
        pick_pair_fn()(vs[0].planes.data(), b, count, w, vs[0].stats, sb, out);
        for (int j = 0; j < count; ++j) {
          const PairParts want = naive(vs[0], vs[static_cast<size_t>(j + 1)]);
          EXPECT_EQ(out[j].n, want.n);
          EXPECT_EQ(out[j].dot, want.dot);
          EXPECT_EQ(out[j].sa, want.sa);
          EXPECT_EQ(out[j].qa, want.qa);
          EXPECT_EQ(out[j].sb, want.sb);
          EXPECT_EQ(out[j].qb, want.qb);
        }
      }
    }
  }
}

// Every answer bound_r2 gives is the exact comparison's, over pairs from unlinked to copies,
// missing rates from none to a third, and thresholds around the pairs' own r²; with 1 %
// missing calls it decides most pairs (what makes it worth asking).
TEST(PruneKernels, CrossProductBoundNeverContradictsTheExactTest) {
  std::mt19937_64 rng(23);
  std::uniform_real_distribution<double> u(0, 1);
  int64_t decided = 0, far_asked = 0, far_decided = 0;  // far: 1 % missing, r² not within 20 % of the threshold
  for (int trial = 0; trial < 3000; ++trial) {
    const int64_t n = trial % 3 == 0 ? 40 : 400;
    const double missing = trial % 4 == 0 ? 0.0 : trial % 4 == 1 ? 0.01 : trial % 4 == 2 ? 0.05 : 0.3;
    const std::vector<uint8_t> a = draw(rng, n, nullptr, 0, missing);
    const std::vector<uint8_t> b = draw(rng, n, &a, u(rng), missing);
    const Variant va{a, {}, {}}, vb{b, {}, {}};
    const PairParts t = naive(va, vb);
    auto sums = [&](const std::vector<uint8_t>& c) {
      CallSums s;
      for (uint8_t x : c) {
        if (x == io::kCodeMissing) continue;
        ++s.n, s.sum += value(x), s.ssq += value(x) * value(x);
        s.hom_ref += x == io::kCodeHomRef, s.hom_alt += x == io::kCodeHomAlt;
      }
      return s;
    };
    const CallSums ca = sums(a), cb = sums(b);
    const double cov = static_cast<double>(t.dot * t.n - t.sa * t.sb);
    const double var = static_cast<double>(t.qa * t.n - t.sa * t.sa) * static_cast<double>(t.qb * t.n - t.sb * t.sb);
    const double r2 = var > 0 ? cov * cov / var : 0.0;
    for (double thresh : {0.05, 0.2, 0.5, 0.99, r2 * (1 + 1e-12), r2 * (1 - 1e-12), r2 * 0.9, r2 * 1.1}) {
      if (!(thresh > 0)) continue;
      const R2Bound got = bound_r2(t.dot, ca, cb, n, thresh);
      const bool far = missing == 0.01 && n == 400 && (r2 > thresh * 1.2 || r2 < thresh / 1.2);
      far_asked += far;
      if (got == R2Bound::kUnknown) continue;
      ++decided, far_decided += far;
      ASSERT_EQ(got == R2Bound::kAbove, exceeds(t, thresh))
          << "trial " << trial << " n " << n << " missing " << missing << " thresh " << thresh << " r2 " << r2;
    }
  }
  EXPECT_GT(decided, 1000);
  EXPECT_GT(far_decided, far_asked * 9 / 10) << far_decided << " of " << far_asked;
}

// The batch test this CPU picks answers as bound_r2 lane by lane, for every batch size.
TEST(PruneKernels, BatchBoundAnswersAsTheScalarOne) {
  std::mt19937_64 rng(31);
  std::uniform_real_distribution<double> u(0, 1);
  int64_t decided = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const int64_t n = trial % 2 ? 64 : 700;
    const double missing = trial % 3 == 0 ? 0.0 : trial % 3 == 1 ? 0.01 : 0.1;
    std::vector<Variant> vs;
    vs.push_back(make_variant(draw(rng, n, nullptr, 0, missing)));
    for (int j = 0; j < kMaxBatch; ++j) vs.push_back(make_variant(draw(rng, n, &vs[0].codes, u(rng), missing)));
    const int count = 1 + trial % kMaxBatch;
    const double thresh = trial % 4 == 0 ? 0.2 : 0.05 + 0.9 * u(rng);
    int64_t dot[kMaxBatch];
    const GroupStats* sb[kMaxBatch];
    for (int j = 0; j < count; ++j) dot[j] = naive(vs[0], vs[static_cast<size_t>(j + 1)]).dot, sb[j] = &vs[static_cast<size_t>(j + 1)].stats;
    uint32_t above = 0, below = 0;
    pick_bound_fn()(dot, vs[0].stats, sb, count, n, thresh, &above, &below);
    EXPECT_EQ(above & below, 0u);
    EXPECT_EQ((above | below) >> count, 0u);
    const GroupStats& a = vs[0].stats;
    for (int j = 0; j < count; ++j) {
      const R2Bound want = bound_r2(dot[j], CallSums{a.n, a.sum, a.ssq, a.hom_ref, a.hom_alt},
                                    CallSums{sb[j]->n, sb[j]->sum, sb[j]->ssq, sb[j]->hom_ref, sb[j]->hom_alt}, n, thresh);
      const R2Bound got = above >> j & 1 ? R2Bound::kAbove : below >> j & 1 ? R2Bound::kBelow : R2Bound::kUnknown;
      ASSERT_EQ(static_cast<int>(got), static_cast<int>(want)) << "trial " << trial << " lane " << j;
      if (got != R2Bound::kUnknown) {
        ++decided;
        EXPECT_EQ(got == R2Bound::kAbove, exceeds(naive(vs[0], vs[static_cast<size_t>(j + 1)]), thresh));
      }
    }
  }
  EXPECT_GT(decided, 2000);
}

}  // namespace
}  // namespace strata::genomics::detail
