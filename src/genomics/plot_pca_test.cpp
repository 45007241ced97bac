#include <filesystem>
#include <cmath>

#include "strata/genomics/plot.hpp"
#include "testing/testing.hpp"

namespace strata::genomics {
namespace {

PcaPlotData three_clusters(int k) {
  PcaPlotData d;
  d.num_samples = 90;
  d.num_components = k;
  for (int i = 0; i < 90; ++i) {
    int pop = i / 30;
    for (int j = 0; j < k; ++j) d.scores.push_back((j == pop % k ? 1.0 : 0.0) + 0.01 * std::sin(i * 7.0 + j));
    d.labels.push_back(pop == 0 ? "CEU" : pop == 1 ? "YRI & <friends>" : "");
  }
  for (int j = 0; j < k; ++j) d.variance_ratio.push_back(0.1 / (j + 1));
  return d;
}

TEST(PcaPlot, RendersPanelsLegendAndVariance) {
  STRATA_ASSERT_OK_AND_ASSIGN(std::string svg, render_pca_svg(three_clusters(4)));
  EXPECT_THAT(svg, ::testing::StartsWith("<?xml"));
  EXPECT_THAT(svg, ::testing::HasSubstr("</svg>"));
  // 1 main + 5 small panels (pairs among PC1..PC4 other than PC1-PC2).
  size_t rects = 0, pos = 0;
  while ((pos = svg.find("fill=\"#fafafa\"", pos)) != std::string::npos) ++rects, ++pos;
  EXPECT_EQ(rects, 6u);
  EXPECT_THAT(svg, ::testing::HasSubstr("PC1 (10.0%)"));
  EXPECT_THAT(svg, ::testing::HasSubstr("PC2 (5.0%)"));
  EXPECT_THAT(svg, ::testing::HasSubstr("CEU (30)"));
  EXPECT_THAT(svg, ::testing::HasSubstr("YRI &amp; &lt;friends&gt; (30)"));  // escaped
  EXPECT_THAT(svg, ::testing::HasSubstr("unknown (30)"));
  size_t circles = 0;
  pos = 0;
  while ((pos = svg.find("<circle", pos)) != std::string::npos) ++circles, ++pos;
  EXPECT_EQ(circles, 90u * 6 + 3);  // every sample in every panel, plus 3 legend markers
}

TEST(PcaPlot, TwoComponentsHasOnePanelAndRejectsBadInput) {
  STRATA_ASSERT_OK_AND_ASSIGN(std::string svg, render_pca_svg(three_clusters(2)));
  size_t rects = 0, pos = 0;
  while ((pos = svg.find("fill=\"#fafafa\"", pos)) != std::string::npos) ++rects, ++pos;
  EXPECT_EQ(rects, 1u);
  auto d = three_clusters(2);
  d.num_components = 1;
  STRATA_EXPECT_STATUS(render_pca_svg(d), StatusCode::Invalid, "at least 2 components");
  d = three_clusters(2);
  d.labels.pop_back();
  STRATA_EXPECT_STATUS(render_pca_svg(d), StatusCode::Invalid, "population labels");
  strata::testing::TempDir dir;
  STRATA_ASSERT_OK(write_pca_svg(dir.str("p.svg"), three_clusters(3)));
  EXPECT_THAT(strata::testing::read_file(dir.str("p.svg")), ::testing::HasSubstr("PC3"));
  // Missing parents are created (the rule for every output); a directory in the way is kept.
  STRATA_ASSERT_OK(write_pca_svg(dir.str("new/dir/p.svg"), three_clusters(3)));
  std::filesystem::create_directories(dir.str("taken.svg"));
  STRATA_EXPECT_STATUS(write_pca_svg(dir.str("taken.svg"), three_clusters(3)), StatusCode::AlreadyExists, "is a directory");
}

}  // namespace
}  // namespace strata::genomics
