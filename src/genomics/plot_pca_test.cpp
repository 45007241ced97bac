// The PCA plot: ticks with numbers, % variance with significant digits, a scree panel, the
// legend sorted by name, Okabe–Ito colours then marker shapes, small groups drawn on top.
#include <cmath>
#include <filesystem>
#include <regex>
#include <set>

#include "strata/genomics/plot.hpp"
#include "testing/testing.hpp"

namespace strata::genomics {
namespace {

// Groups of the given sizes, each a cluster on its own PC; labels in the order given.
PcaPlotData clusters(const std::vector<std::pair<std::string, int>>& groups, int k) {
  PcaPlotData d;
  d.num_components = k;
  int i = 0;
  for (size_t g = 0; g < groups.size(); ++g)
    for (int m = 0; m < groups[g].second; ++m, ++i) {
      for (int j = 0; j < k; ++j)
        d.scores.push_back((static_cast<int>(g) % k == j ? 0.1 : 0.0) + 0.01 * std::sin(i * 7.0 + j));
      d.labels.push_back(groups[g].first);
      ++d.num_samples;
    }
  for (int j = 0; j < k; ++j) d.variance_ratio.push_back(0.1 / std::pow(10, j));  // 10 %, 1 %, 0.1 %, 0.01 %
  return d;
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

std::vector<std::string> texts(const std::string& svg) {
  std::vector<std::string> out;
  static const std::regex re("<text[^>]*>([^<]*)</text>");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re); it != std::sregex_iterator(); ++it)
    out.push_back((*it)[1]);
  return out;
}

TEST(PcaPlot, AxesHaveTicksAndSignificantPercentages) {
  STRATA_ASSERT_OK_AND_ASSIGN(std::string svg, render_pca_svg(clusters({{"CEU", 30}, {"YRI", 30}, {"", 30}}, 4)));
  EXPECT_THAT(svg, ::testing::StartsWith("<?xml"));
  EXPECT_THAT(svg, ::testing::HasSubstr("</svg>"));
  const auto t = texts(svg);
  const std::set<std::string> ts(t.begin(), t.end());
  EXPECT_TRUE(ts.count("PC1 (10.0 %)"));
  EXPECT_TRUE(ts.count("PC2 (1.00 %)"));
  EXPECT_TRUE(ts.count("PC3 (0.100 %)"));
  EXPECT_TRUE(ts.count("PC4 (0.0100 %)"));  // never "0.0 %"
  EXPECT_TRUE(ts.count("Variance explained"));
  // Numeric tick labels on every panel: 6 scatter panels + the scree, two axes each.
  int numeric = 0;
  for (const auto& s : t)
    if (std::regex_match(s, std::regex("-?[0-9]+(\\.[0-9]+)?"))) ++numeric;
  EXPECT_GE(numeric, 7 * 2 * 3);
  EXPECT_EQ(ts.count("-0.00"), 0u);
  EXPECT_EQ(ts.count("-0.0"), 0u);
  // Same data, same bytes.
  STRATA_ASSERT_OK_AND_ASSIGN(std::string again, render_pca_svg(clusters({{"CEU", 30}, {"YRI", 30}, {"", 30}}, 4)));
  EXPECT_EQ(svg, again);
}

TEST(PcaPlot, LegendSortedByNameWithCountsUnknownLast) {
  STRATA_ASSERT_OK_AND_ASSIGN(std::string svg,
                              render_pca_svg(clusters({{"YRI & <x>", 40}, {"", 5}, {"CEU", 30}, {"ASW", 3}}, 2)));
  const size_t asw = svg.find(">ASW (3)<"), ceu = svg.find(">CEU (30)<"), yri = svg.find(">YRI &amp; &lt;x&gt; (40)<"),
               unk = svg.find(">unknown (5)<");
  ASSERT_NE(asw, std::string::npos);
  ASSERT_NE(ceu, std::string::npos);
  ASSERT_NE(yri, std::string::npos);
  ASSERT_NE(unk, std::string::npos);
  EXPECT_LT(asw, ceu);
  EXPECT_LT(ceu, yri);
  EXPECT_LT(yri, unk);
  // Drawing order in the main panel: unknown, then largest to smallest (ASW's 3 on top).
  const size_t g_unk = svg.find("<g fill=\"#999999\""), g_yri = svg.find("<g fill=\"#009E73\""),
               g_ceu = svg.find("<g fill=\"#56B4E9\""), g_asw = svg.find("<g fill=\"#E69F00\"");
  EXPECT_LT(g_unk, g_yri);
  EXPECT_LT(g_yri, g_ceu);
  EXPECT_LT(g_ceu, g_asw);
}

TEST(PcaPlot, ColoursThenShapesBeyondEight) {
  std::vector<std::pair<std::string, int>> groups;
  for (int g = 0; g < 11; ++g) groups.push_back({std::string(1, static_cast<char>('A' + g)), 5 + g});
  STRATA_ASSERT_OK_AND_ASSIGN(std::string svg, render_pca_svg(clusters(groups, 2)));
  // The first 8 groups are circles in 8 distinct colours; groups 9–11 reuse colours as squares.
  std::set<std::string> fills;
  static const std::regex re("<g fill=\"(#[0-9A-F]{6})\"");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re); it != std::sregex_iterator(); ++it)
    fills.insert((*it)[1]);
  EXPECT_EQ(fills.size(), 8u);
  EXPECT_EQ(count(svg, "<g fill=\"#E69F00\" fill-opacity=\"0.80\"><circle"), 1u);
  EXPECT_EQ(count(svg, "<g fill=\"#E69F00\" fill-opacity=\"0.80\"><path"), 1u);  // group I: same colour, square
  EXPECT_EQ(count(svg, "<g fill=\"#E69F00\"><path"), 1u);                       // and its legend marker
}

TEST(PcaPlot, TwoComponentsHasOnePanelAndRejectsBadInput) {
  STRATA_ASSERT_OK_AND_ASSIGN(std::string svg, render_pca_svg(clusters({{"A", 10}, {"B", 10}}, 2)));
  EXPECT_EQ(count(svg, "PC1 ("), 1u);  // the main panel's x axis (the scree's bars are numbered)
  EXPECT_EQ(count(svg, "PC3"), 0u);
  auto d = clusters({{"A", 10}}, 2);
  d.num_components = 1;
  STRATA_EXPECT_STATUS(render_pca_svg(d), StatusCode::Invalid, "at least 2 components");
  d = clusters({{"A", 10}}, 2);
  d.labels.pop_back();
  STRATA_EXPECT_STATUS(render_pca_svg(d), StatusCode::Invalid, "population labels");
  strata::testing::TempDir dir;
  STRATA_ASSERT_OK(write_pca_svg(dir.str("p.svg"), clusters({{"A", 10}}, 3)));
  EXPECT_THAT(strata::testing::read_file(dir.str("p.svg")), ::testing::HasSubstr("PC3"));
  // Missing parents are created (the rule for every output); a directory in the way is kept.
  STRATA_ASSERT_OK(write_pca_svg(dir.str("new/dir/p.svg"), clusters({{"A", 10}}, 3)));
  std::filesystem::create_directories(dir.str("taken.svg"));
  STRATA_EXPECT_STATUS(write_pca_svg(dir.str("taken.svg"), clusters({{"A", 10}}, 3)), StatusCode::AlreadyExists,
                       "is a directory");
}

TEST(PcaPlot, PngWhereCairoIsFound) {
  strata::testing::TempDir dir;
  const auto d = clusters({{"A", 10}, {"B", 3}}, 2);
  if (!png_supported()) {
    STRATA_EXPECT_STATUS(write_pca_plot(d, "", dir.str("p.png")), StatusCode::Unsupported, "PNG plot");
    STRATA_EXPECT_STATUS(PlotFormats::choose(true, "png"), StatusCode::Unsupported, "--plot-format svg");
    GTEST_SKIP() << "libcairo not found: the PNG refusal was checked";
  }
  STRATA_ASSERT_OK(write_pca_plot(d, dir.str("p.svg"), dir.str("p.png")));
  const std::string png = strata::testing::read_file(dir.str("p.png"));
  ASSERT_GT(png.size(), 1000u);
  EXPECT_EQ(png.substr(1, 3), "PNG");
  STRATA_ASSERT_OK(write_pca_plot(d, "", dir.str("q.png")));
  EXPECT_EQ(strata::testing::read_file(dir.str("q.png")), png);  // deterministic
}

TEST(PlotFormats, Parse) {
  STRATA_ASSERT_OK_AND_ASSIGN(PlotFormats both, PlotFormats::parse("svg,png"));
  EXPECT_TRUE(both.svg && both.png);
  STRATA_ASSERT_OK_AND_ASSIGN(PlotFormats svg, PlotFormats::parse("svg"));
  EXPECT_TRUE(svg.svg && !svg.png);
  STRATA_ASSERT_OK_AND_ASSIGN(PlotFormats none, PlotFormats::choose(false, "png"));
  EXPECT_FALSE(none.any());
  STRATA_EXPECT_STATUS(PlotFormats::parse("svg,jpg"), StatusCode::Invalid, "'jpg' is not a plot format");
}

}  // namespace
}  // namespace strata::genomics
