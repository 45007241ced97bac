// ld_prune's pieces: the --indep-pairwise arguments, plink2's windows and stretches, the pair
// rule on hand-made variants, and thread-count invariance across batch boundaries. The
// comparison with plink2 itself is tests/prune/prune_cli_test.cpp.
#include <random>

#include "core/test_context.hpp"
#include "genomics/prune_internal.hpp"
#include "genomics/test_cohort.hpp"
#include "strata/genomics/prune.hpp"
#include "testing/testing.hpp"

namespace strata::genomics {
namespace {

using detail::prune_stretches;
using detail::prune_windows;
using strata::testing::make_test_context;
using strata::testing::test_ctx;
using Pairs = std::vector<std::pair<int64_t, int64_t>>;

TEST(PruneArgs, ParsesPlink2Spellings) {
  STRATA_ASSERT_OK_AND_ASSIGN(PruneWindow a, parse_indep_pairwise({"50", "5", "0.2"}));
  EXPECT_EQ(a.size, 50);
  EXPECT_FALSE(a.in_bp);
  EXPECT_EQ(a.step, 5);
  EXPECT_DOUBLE_EQ(a.r2, 0.2);
  STRATA_ASSERT_OK_AND_ASSIGN(PruneWindow b, parse_indep_pairwise({"20kb", "0.5"}));
  EXPECT_TRUE(b.in_bp);
  EXPECT_EQ(b.size, 20000);
  EXPECT_EQ(b.step, 1);
  STRATA_ASSERT_OK_AND_ASSIGN(PruneWindow c, parse_indep_pairwise({"0.5", "KB", "1", "0.1"}));
  EXPECT_EQ(c.size, 500);
  STRATA_ASSERT_OK_AND_ASSIGN(PruneWindow d, parse_indep_pairwise({"10", "0.3"}));
  EXPECT_EQ(d.step, 1);
  EXPECT_EQ(d.size, 10);
}

TEST(PruneArgs, RejectsBadWindows) {
  for (const auto& args : std::vector<std::vector<std::string>>{{"0", "1", "0.2"},
                                                                 {"50", "0", "0.2"},
                                                                 {"50", "5", "0"},
                                                                 {"50", "5", "1.01"},
                                                                 {"10", "20", "0.2"},
                                                                 {"20kb", "2", "0.2"},
                                                                 {"abc", "5", "0.2"},
                                                                 {"50", "2.5", "0.2"},
                                                                 {"50"},
                                                                 {"50", "kb", "1", "1", "0.2"}})
    STRATA_EXPECT_STATUS(parse_indep_pairwise(args), StatusCode::Invalid, "--indep-pairwise");
  PruneWindow w;
  w.r2 = 1.0;
  STRATA_EXPECT_OK(validate_prune_window(w));
}

TEST(PruneWindows, CountWindowsStepAndClipAtTheEnd) {
  PruneWindow w;
  w.size = 5, w.step = 2;
  EXPECT_EQ(prune_windows({}, 9, w), (Pairs{{0, 5}, {2, 7}, {4, 9}}));
  EXPECT_EQ(prune_windows({}, 3, w), (Pairs{{0, 3}}));
  w.size = 4, w.step = 4;
  EXPECT_EQ(prune_windows({}, 10, w), (Pairs{{0, 4}, {4, 8}, {8, 10}}));
}

TEST(PruneWindows, KbWindowsFollowPositions) {
  PruneWindow w;
  w.in_bp = true, w.size = 100, w.step = 1;
  // Window from 10 covers positions up to 110; the next starts at the first variant within
  // 100 bp before the first one left out.
  const std::vector<int64_t> pos = {10, 50, 110, 111, 150, 400};
  EXPECT_EQ(prune_windows(pos, 6, w), (Pairs{{0, 3}, {1, 5}, {5, 6}}));
  // Stretches split where a variant is more than the window past its neighbour.
  EXPECT_EQ(prune_stretches(pos, 6, w), (Pairs{{0, 5}}));
  EXPECT_EQ(prune_stretches({10, 300, 301, 600}, 4, w), (Pairs{{1, 2}}));
  PruneWindow c;
  EXPECT_EQ(prune_stretches({}, 1, c), Pairs{});
  EXPECT_EQ(prune_stretches({}, 7, c), (Pairs{{0, 7}}));
}

// A memory view of ALT dosages (variant-major, −1 missing) on chromosome 1.
io::GenotypeViewPtr dosage_view(const std::vector<std::vector<int>>& d) {
  const auto m = static_cast<int64_t>(d.size()), n = static_cast<int64_t>(d[0].size());
  const int64_t stride = io::packed_row_bytes(n);
  std::vector<uint8_t> codes(static_cast<size_t>(m * stride), 0xFF);
  for (int64_t v = 0; v < m; ++v)
    for (int64_t j = 0; j < n; ++j) {
      const int c = d[static_cast<size_t>(v)][static_cast<size_t>(j)];
      io::set_code(codes.data() + v * stride, j, c < 0 ? uint8_t{io::kCodeMissing} : static_cast<uint8_t>(c));
    }
  auto view = io::make_memory_genotypes(std::move(codes), m, n, numbered_samples(n), {"1"}, numbered_variants(m));
  return view.ok() ? *view : nullptr;
}

TEST(LdPrune, RemovesTheLaterOfEqualFrequencyTwinsAndTheCommonerOfAPair) {
  PruneWindow w;
  w.size = 10, w.step = 1, w.r2 = 0.5;
  // v1 copies v0 (same frequency: the later goes); v3 is v2 with more REF calls (v2's major
  // allele is commoner: it goes); v4 has no variance (removed as it enters).
  const std::vector<std::vector<int>> d = {{0, 1, 2, 0, 1, 2, 0, 0}, {0, 1, 2, 0, 1, 2, 0, 0},
                                           {2, 2, 2, 2, 2, 0, 0, 1}, {2, 2, 2, 2, 1, 0, 0, 1},
                                           {1, 1, 1, 1, 1, 1, 1, -1}, {0, 2, 1, 1, 0, 2, 1, 0}};
  STRATA_ASSERT_OK_AND_ASSIGN(PruneResult r, ld_prune(test_ctx(), dosage_view(d), w));
  EXPECT_EQ(r.removed, (std::vector<uint8_t>{0, 1, 1, 0, 1, 0}));
  EXPECT_EQ(r.founders, 8);
}

TEST(LdPrune, NeedsTwoFounders) {
  PruneWindow w;
  STRATA_EXPECT_STATUS(ld_prune(test_ctx(), dosage_view({{0}, {1}}), w), StatusCode::Invalid, "at least two");
}

TEST(LdPrune, SameResultForAnyThreadCountAcrossBatches) {
  // 6000 variants with LD (copies with re-drawn calls) and missing calls: windows cross the
  // batches of pair tests, and some founders are complete at one variant but not the next.
  std::mt19937_64 g(5);
  std::uniform_real_distribution<double> u(0, 1);
  const int64_t m = 6000, n = 150;
  std::vector<std::vector<int>> d(m, std::vector<int>(n));
  for (int64_t v = 0; v < m; ++v) {
    const double p = 0.05 + 0.9 * u(g), redraw = 0.05 + 0.6 * u(g);
    const bool copy = v > 0 && u(g) < 0.7;
    const bool any_missing = u(g) < 0.5;
    for (int64_t j = 0; j < n; ++j) {
      int x = (u(g) < p) + (u(g) < p);
      if (copy && u(g) > redraw) x = std::max(0, d[v - 1][j]);
      if (any_missing && u(g) < 0.05) x = -1;
      d[v][j] = x;
    }
  }
  auto view = dosage_view(d);
  for (const char* spec : {"50 5 0.2", "300 7 0.1", "0.1kb 0.3"}) {
    std::vector<std::string> args;
    for (std::string s = spec; !s.empty();) {
      const size_t sp = s.find(' ');
      args.push_back(s.substr(0, sp));
      s = sp == std::string::npos ? "" : s.substr(sp + 1);
    }
    STRATA_ASSERT_OK_AND_ASSIGN(PruneWindow w, parse_indep_pairwise(args));
    const Context one = make_test_context(1), four = make_test_context(4);
    STRATA_ASSERT_OK_AND_ASSIGN(PruneResult a, ld_prune(one, view, w));
    STRATA_ASSERT_OK_AND_ASSIGN(PruneResult b, ld_prune(four, view, w));
    EXPECT_EQ(a.removed, b.removed) << spec;
    const auto removed = std::count(a.removed.begin(), a.removed.end(), uint8_t{1});
    EXPECT_GT(removed, m / 10) << spec;
    EXPECT_LT(removed, m) << spec;
  }
}

}  // namespace
}  // namespace strata::genomics
