// The pair pass, KING and the genotype distances against plain loops over dosages (the oracle
// does not go through the bit planes), the --king-cutoff rule on small graphs, and the errors
// of the metric and format parsers. plink2, plink 1.9 and scipy: tests/relatedness.
#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <filesystem>
#include <random>
#include <vector>

#include "core/test_context.hpp"
#include "genomics/test_cohort.hpp"
#include "strata/genomics/distance.hpp"
#include "strata/genomics/king.hpp"
#include "strata/genomics/pair_counts.hpp"

namespace strata::genomics {
namespace {

using strata::testing::make_test_context;

// Every pair's 3 × 3 table from the pass, flattened (i, j, x, y).
std::vector<int64_t> all_tables(const Context& ctx, const io::GenotypeView& view, int64_t tile,
                                std::vector<int64_t>* order = nullptr) {
  const int64_t n = view.num_samples();
  std::vector<int64_t> out(static_cast<size_t>(n * n * 9), -1);
  PairPassOptions o;
  o.tile = tile;
  const Status st = for_each_pair_tile(ctx, view, o, [&](const PairTile& pt) -> Status {
    if (order) order->push_back(pt.row0 * n + pt.col0);
    for (int64_t r = 0; r < pt.rows; ++r)
      for (int64_t c = 0; c < pt.cols && pt.col0 + c <= pt.row0 + r; ++c) {  // j <= i
        const PairTable t = pt.table(r, c);
        for (int x = 0; x < 3; ++x)
          for (int y = 0; y < 3; ++y)
            out[static_cast<size_t>(((pt.row0 + r) * n + pt.col0 + c) * 9 + x * 3 + y)] = t.c[x][y];
      }
    return Status::OK();
  });
  EXPECT_TRUE(st.ok()) << st.to_string();
  return out;
}

TEST(PairCounts, EqualPlainLoopsForAnySampleCount) {
  for (int64_t n : {2, 7, 65, 130}) {
    const int64_t m = 203;
    const auto d = cohort_dosages(m, n, 5 + static_cast<uint64_t>(n));
    const auto view = cohort(m, n, 5 + static_cast<uint64_t>(n));
    const std::vector<int64_t> got = all_tables(make_test_context(2), *view, 0);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j <= i; ++j) {
        int64_t ref[3][3] = {};
        for (int64_t v = 0; v < m; ++v) {
          const int a = d[static_cast<size_t>(v * n + i)], b = d[static_cast<size_t>(v * n + j)];
          if (a >= 0 && b >= 0) ++ref[a][b];
        }
        for (int x = 0; x < 3; ++x)
          for (int y = 0; y < 3; ++y)
            ASSERT_EQ(got[static_cast<size_t>((i * n + j) * 9 + x * 3 + y)], ref[x][y])
                << "n " << n << " pair " << i << "," << j << " codes " << x << "," << y;
      }
  }
}

// Exact integers: the same counts for 1, 2 and 3 threads and tiles of 8 and 24 samples; tiles
// come in row-major order over the lower triangle.
TEST(PairCounts, SameBitsForAnyThreadsAndTileSize) {
  const auto view = cohort(300, 77, 11);
  std::vector<int64_t> order;
  const std::vector<int64_t> base = all_tables(make_test_context(1), *view, 8, &order);
  std::vector<int64_t> expected_order;
  for (int64_t r = 0; r < 77; r += 8)
    for (int64_t c = 0; c <= r; c += 8) expected_order.push_back(r * 77 + c);
  EXPECT_EQ(order, expected_order);
  for (int threads : {1, 2, 3})
    for (int64_t tile : {8, 24}) EXPECT_EQ(all_tables(make_test_context(threads), *view, tile), base) << threads << " threads, tile " << tile;
}

TEST(PairCounts, BitPlanesBeyondTheBudgetFailWithTheNeed) {
  const auto view = cohort(100000, 64, 1);
  const Context ctx = make_test_context(1, int64_t{1} << 20);
  const Status st = for_each_pair_tile(ctx, *view, {}, [](const PairTile&) { return Status::OK(); });
  EXPECT_EQ(st.code(), StatusCode::OutOfMemory);
  EXPECT_NE(st.message().find("raise --memory"), std::string::npos) << st.message();
}

// Metrics against the dosage vectors restricted to jointly observed variants.
TEST(Distance, EveryMetricEqualsPlainLoops) {
  const int64_t m = 150, n = 13;
  const auto d = cohort_dosages(m, n, 21);
  const auto view = cohort(m, n, 21);
  for (const char* name : {"euclidean", "sqeuclidean", "cityblock", "chebyshev", "minkowski:3", "minkowski:0.5",
                           "cosine", "correlation", "hamming", "ibs", "allele-sharing"}) {
    const DistanceSpec spec = *parse_distance_metric(name);
    const std::vector<double> got = *distance_matrix(make_test_context(2), *view, spec);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double s1 = 0, s2 = 0, mx = 0, sp = 0, sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0, diff = 0, cnt = 0;
        for (int64_t v = 0; v < m; ++v) {
          const double a = d[static_cast<size_t>(v * n + i)], b = d[static_cast<size_t>(v * n + j)];
          if (a < 0 || b < 0) continue;
          const double e = std::fabs(a - b);
          s1 += e, s2 += e * e, mx = std::max(mx, e), sp += std::pow(e, spec.p), diff += e > 0, cnt += 1;
          sa += a, sb += b, saa += a * a, sbb += b * b, sab += a * b;
        }
        double ref = 0;
        switch (spec.metric) {
          case DistanceMetric::Euclidean: ref = std::sqrt(s2); break;
          case DistanceMetric::SqEuclidean: ref = s2; break;
          case DistanceMetric::Cityblock: ref = s1; break;
          case DistanceMetric::Chebyshev: ref = mx; break;
          case DistanceMetric::Minkowski: ref = std::pow(sp, 1.0 / spec.p); break;
          case DistanceMetric::Hamming: ref = diff / cnt; break;
          case DistanceMetric::Ibs: ref = 1.0 - s1 / (2 * cnt); break;
          case DistanceMetric::AlleleSharing: ref = s1 / (2 * cnt); break;
          case DistanceMetric::Cosine: ref = std::max(0.0, 1.0 - sab / std::sqrt(saa * sbb)); break;
          case DistanceMetric::Correlation: {
            const double ma = sa / cnt, mb = sb / cnt;
            ref = std::max(0.0, 1.0 - (sab - cnt * ma * mb) /
                                          std::sqrt((saa - cnt * ma * ma) * (sbb - cnt * mb * mb)));
            break;
          }
        }
        const double v = got[static_cast<size_t>(i * n + j)];
        ASSERT_NEAR(v, ref, 1e-12 * std::max(1.0, std::fabs(ref))) << name << " pair " << i << "," << j;
      }
  }
}

TEST(Distance, ParseErrorsNameTheValidChoices) {
  auto typo = parse_distance_metric("eucldean");
  ASSERT_FALSE(typo.ok());
  EXPECT_EQ(typo.status().code(), StatusCode::Invalid);
  EXPECT_NE(typo.status().message().find("euclidean, sqeuclidean, cityblock"), std::string::npos);
  EXPECT_NE(typo.status().message().find("'eucldean'"), std::string::npos);
  for (const char* bad : {"minkowski:0", "minkowski:abc", "minkowski:-1", "minkowski:"}) {
    auto r = parse_distance_metric(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), StatusCode::Invalid);
    EXPECT_NE(r.status().message().find("needs a number P > 0"), std::string::npos) << r.status().message();
  }
  EXPECT_NE(parse_distance_metric("minkowski").status().message().find("minkowski:P"), std::string::npos);
  EXPECT_EQ(parse_distance_metric("minkowski:3")->p, 3.0);
  auto fmt = parse_distance_format("csv");
  ASSERT_FALSE(fmt.ok());
  EXPECT_EQ(fmt.status().code(), StatusCode::Invalid);
  EXPECT_EQ(fmt.status().message(), "--format must be square, triangle or zarr; got 'csv'");
}

TEST(King, KinshipOfKnownTables) {
  PairTable t;
  // Identical samples: φ = ½ whatever the genotypes.
  t.c[0][0] = 10, t.c[1][1] = 7, t.c[2][2] = 5;
  EXPECT_DOUBLE_EQ(king_kinship(t), 0.5);
  // No heterozygote in either sample: 0/0 → NaN; opposite homozygotes only: −inf.
  PairTable homs;
  homs.c[0][0] = 3;
  EXPECT_TRUE(std::isnan(king_kinship(homs)));
  homs.c[0][2] = 1;
  EXPECT_EQ(king_kinship(homs), -INFINITY);
  EXPECT_EQ(format_king_value(king_kinship(homs)), "-inf");
  EXPECT_EQ(format_king_value(std::nan("")), "nan");
  EXPECT_EQ(format_king_value(-0.0031506), "-0.0031506");
}

// The kinship printer (a fast path for fixed-notation values) equals printf's %g with 6
// significant digits, as to_chars gives it: kinship-like ratios, values at every decimal
// exponent and sign, around the notation's bounds, near rounding ties and exact ties.
TEST(King, ValuesPrintAsPercentG) {
  auto g6 = [](double v) {
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 6);
    return std::string(buf, end);
  };
  std::mt19937_64 rng(31);
  std::vector<double> values = {0.5, -0.5, 0.25, 1e-4, 9.99999e-5, 0.0001, 0.000999999, 0.00099999949,
                                0.0009999995, 0.001, 0.1, 0.999999, 0.9999995, 0.99999949, 1, 1.5, 10,
                                99999.95, 999999, 999999.5, 1e6, 123456.5, 0.1234565, 1.234565, 0.0,
                                -0.0, -1e-4, 0.0078125, 0.00048828125, 2.5e-5, -0.03125};
  std::uniform_int_distribution<int64_t> count(0, 200000), digits(100000, 999999);
  for (int k = 0; k < 200000; ++k) {
    // Kinship values: 0.5 - (4·ibs0 + h1 + h2) / (4·het).
    const int64_t het = count(rng) + 1, num = count(rng) % (8 * het);
    values.push_back(0.5 - static_cast<double>(num) / (4.0 * static_cast<double>(het)));
    // Random magnitudes over the whole fixed range and beyond.
    const double u = std::ldexp(static_cast<double>(rng() >> 11), -53);
    values.push_back((rng() & 1 ? -1 : 1) * std::pow(10.0, -6.0 + 14.0 * u));
    // Six digits and a 5: ties in decimal, near ties in binary, at each exponent.
    const double d = static_cast<double>(digits(rng)) + 0.5;
    values.push_back(d * std::pow(10.0, static_cast<double>(count(rng) % 11) - 10.0));
    values.push_back(std::nextafter(values.back(), 0.0));
  }
  for (double v : values) ASSERT_EQ(format_king_value(v), g6(v)) << std::hexfloat << v;
}

TEST(King, CutoffRuleRemovesAsPlink2Does) {
  // A path 0-1-2: sample 0 has one edge, so its partner 1 goes.
  EXPECT_EQ(king_cutoff_removed(4, {{1, 0}, {2, 1}}), (std::vector<int64_t>{1}));
  // A triangle: no sample with one edge, the first with the most (0) goes, then 1 has one
  // edge left and its partner 2 goes.
  EXPECT_EQ(king_cutoff_removed(3, {{1, 0}, {2, 0}, {2, 1}}), (std::vector<int64_t>{0, 2}));
  // A star around 3 plus a pair 4-5: 0 has one edge, so 3 goes; then 4 has one, so 5 goes.
  EXPECT_EQ(king_cutoff_removed(6, {{3, 0}, {3, 1}, {3, 2}, {5, 4}}), (std::vector<int64_t>{3, 5}));
  EXPECT_TRUE(king_cutoff_removed(3, {}).empty());
}

TEST(King, OneSampleAndNegativeCutoffFailWithNoOutput) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("strata_king_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  // A one-sample .bed fileset.
  const std::string in = (dir / "one").string();
  {
    std::FILE* f = std::fopen((in + ".bed").c_str(), "wb");
    const unsigned char bed[] = {0x6c, 0x1b, 0x01, 0x02, 0x03};
    std::fwrite(bed, 1, sizeof bed, f);
    std::fclose(f);
    f = std::fopen((in + ".bim").c_str(), "wb");
    std::fputs("1\tv1\t0\t1\tA\tG\n1\tv2\t0\t2\tA\tG\n", f);
    std::fclose(f);
    f = std::fopen((in + ".fam").c_str(), "wb");
    std::fputs("f1 s1 0 0 0 -9\n", f);
    std::fclose(f);
  }
  const Context ctx = make_test_context(1);
  auto r = run_king_to_files(ctx, in, (dir / "out").string(), {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::InvalidData);
  EXPECT_NE(r.status().message().find("1 sample: kinship needs at least two samples"), std::string::npos)
      << r.status().message();
  DistanceOptions dopt;
  auto d = run_distance_to_files(ctx, in, (dir / "out").string(), dopt);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), StatusCode::InvalidData);
  EXPECT_NE(d.status().message().find("distances need at least two samples"), std::string::npos);
  KingOptions neg;
  neg.cutoff = -0.1;
  auto c = run_king_to_files(ctx, in, (dir / "out").string(), neg);
  EXPECT_EQ(c.status().code(), StatusCode::Invalid);
  EXPECT_NE(c.status().message().find("--cutoff must be a kinship of 0 or more"), std::string::npos);
  for (const char* ext : {".king", ".king.id", ".dist", ".dist.id", ".kin0", ".king.cutoff.in.id"})
    EXPECT_FALSE(fs::exists(dir / ("out" + std::string(ext)))) << ext;
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++entries;
  EXPECT_EQ(entries, 3u);  // the input fileset only: no staging left behind
  fs::remove_all(dir);
}

}  // namespace
}  // namespace strata::genomics
