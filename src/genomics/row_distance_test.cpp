// The row-band tiles a cluster runs (row_distance_tile) against the whole-matrix distances:
// tiles on the 64-row grid, each reading its two bands alone, assembled into the lower
// triangle, are the same bits for every metric, with and without missing coordinates.
#include <array>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/test_context.hpp"
#include "strata/genomics/row_distance.hpp"
#include "testing/testing.hpp"

namespace strata::genomics {
namespace {

std::vector<double> random_rows(int64_t n, int64_t d, double missing, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z;
  std::uniform_real_distribution<double> u;
  std::vector<double> x(static_cast<size_t>(n * d));
  for (double& v : x) v = u(rng) < missing ? std::nan("") : std::round(z(rng) * 4.0) / 2.0;
  return x;
}

// The two bands of `x` a task holds (reads outside them fail).
RowMatrix bands_of(const std::vector<double>& x, int64_t n, int64_t d, int64_t lo_a, int64_t hi_a, int64_t lo_b,
                   int64_t hi_b) {
  return *RowMatrix::of_bands(n, d, DType(ScalarType::Float64),
                              {{lo_a, hi_a - lo_a, x.data() + lo_a * d}, {lo_b, hi_b - lo_b, x.data() + lo_b * d}});
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

TEST(RowDistanceTile, TilesAssembledAreTheWholeMatrixBits) {
  const int64_t n = 200, d = 150;
  for (double missing : {0.0, 0.05}) {
    const std::vector<double> x = random_rows(n, d, missing, 7);
    const RowMatrix whole = *RowMatrix::in_memory(x.data(), n, d, DType(ScalarType::Float64));
    for (const std::string metric : {"euclidean", "sqeuclidean", "cityblock", "chebyshev", "minkowski:3", "cosine",
                                     "correlation", "hamming"}) {
      SCOPED_TRACE(metric + (missing > 0 ? " with NaN" : ""));
      STRATA_ASSERT_OK_AND_ASSIGN(DistanceSpec spec, parse_distance_metric(metric));
      STRATA_ASSERT_OK_AND_ASSIGN(auto ref, row_distance_matrix(testing::make_test_context(3), whole, spec));
      for (int64_t band : {64, 128}) {
        std::vector<double> got(static_cast<size_t>(n * n), -1.0);
        for (int64_t i0 = 0; i0 < n; i0 += band)
          for (int64_t j0 = 0; j0 <= i0; j0 += band) {
            const int64_t ri = std::min(band, n - i0), cj = std::min(band, n - j0);
            STRATA_ASSERT_OK_AND_ASSIGN(
                auto tile, row_distance_tile(testing::make_test_context(1), bands_of(x, n, d, i0, i0 + ri, j0, j0 + cj),
                                             i0, ri, j0, cj, spec));
            for (int64_t r = 0; r < ri; ++r)
              for (int64_t c = 0; c < cj && j0 + c <= i0 + r; ++c)
                got[static_cast<size_t>((i0 + r) * n + j0 + c)] = tile[static_cast<size_t>(r * cj + c)];
          }
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = 0; j <= i; ++j)
            ASSERT_TRUE(same_bits(got[static_cast<size_t>(i * n + j)], ref[static_cast<size_t>(i * n + j)]))
                << "band " << band << " pair (" << i << ", " << j << "): " << got[static_cast<size_t>(i * n + j)]
                << " vs " << ref[static_cast<size_t>(i * n + j)];
      }
    }
  }
}

TEST(RowDistanceTile, OffTheGridAndGenotypeMetricsAreRefused) {
  const int64_t n = 130, d = 5;
  const std::vector<double> x = random_rows(n, d, 0.0, 3);
  const RowMatrix m = *RowMatrix::in_memory(x.data(), n, d, DType(ScalarType::Float64));
  const Context ctx = testing::make_test_context(1);
  STRATA_ASSERT_OK_AND_ASSIGN(DistanceSpec spec, parse_distance_metric("euclidean"));
  for (auto [r0, rc, c0, cc] : {std::array<int64_t, 4>{32, 64, 0, 64}, {0, 64, 64, 64}, {64, 50, 0, 64},
                                {128, 2, 0, 64}, {128, 3, 0, 64}, {0, 64, 0, 0}}) {
    if (r0 == 128 && rc == 2) {
      EXPECT_TRUE(row_distance_tile(ctx, m, r0, rc, c0, cc, spec).ok());  // the last rows end the range
      continue;
    }
    auto t = row_distance_tile(ctx, m, r0, rc, c0, cc, spec);
    ASSERT_FALSE(t.ok());
    EXPECT_EQ(t.status().code(), StatusCode::Invalid);
    EXPECT_NE(t.status().message().find("64-row block grid"), std::string::npos) << t.status().message();
  }
  STRATA_ASSERT_OK_AND_ASSIGN(DistanceSpec ibs, parse_distance_metric("ibs"));
  auto t = row_distance_tile(ctx, m, 0, 64, 0, 64, ibs);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("needs genotype input"), std::string::npos) << t.status().message();
  // A read outside the bands held is an error naming the rows, not other values.
  auto outside = row_distance_tile(ctx, bands_of(x, n, d, 64, 128, 64, 128), 64, 64, 0, 64, spec);
  ASSERT_FALSE(outside.ok());
  EXPECT_NE(outside.status().message().find("rows [0, 64) are not in the bands"), std::string::npos)
      << outside.status().message();
}

}  // namespace
}  // namespace strata::genomics
