// Nice ticks and number labels of strata's plots.
#include "genomics/plot_internal.hpp"
#include "testing/testing.hpp"

namespace strata::genomics::plot {
namespace {

TEST(PlotAxes, NiceTicks) {
  EXPECT_EQ(nice_ticks(0, 1, 5), (std::vector<double>{0, 0.2, 0.4, 0.6, 0.8, 1.0}));
  EXPECT_EQ(nice_ticks(-0.043, 0.052, 6), (std::vector<double>{-0.04, -0.02, 0, 0.02, 0.04}));
  EXPECT_EQ(nice_ticks(0, 8.5, 6), (std::vector<double>{0, 2, 4, 6, 8}));
  EXPECT_EQ(nice_ticks(0.3, 1.1, 4), (std::vector<double>{0.4, 0.6, 0.8, 1.0}));
  EXPECT_EQ(nice_ticks(0, 10, 4), (std::vector<double>{0, 2.5, 5, 7.5, 10}));
  EXPECT_TRUE(nice_ticks(1, 1).empty());
  EXPECT_TRUE(nice_ticks(0, NAN).empty());
}

TEST(PlotAxes, Labels) {
  EXPECT_EQ(tick_label(0.3, 0.1), "0.3");
  EXPECT_EQ(tick_label(-0.04, 0.02), "-0.04");
  EXPECT_EQ(tick_label(-1e-18, 0.02), "0.00");
  EXPECT_EQ(tick_label(7.5, 2.5), "7.5");
  EXPECT_EQ(tick_label(20, 10), "20");
  EXPECT_EQ(percent_label(0.123), "12.3 %");
  EXPECT_EQ(percent_label(0.00456), "0.456 %");
  EXPECT_EQ(percent_label(0.000123), "0.0123 %");
  EXPECT_EQ(percent_label(0.5), "50.0 %");
  EXPECT_EQ(percent_label(0), "0 %");
}

TEST(PlotCanvas, SvgIsEscapedAndFixed) {
  Canvas c(100, 50);
  c.text(10, 20, "a<b & \"c\"", 12, Anchor::kMiddle, true);
  c.markers({{1.04, -0.01}}, Shape::kCircle, 2, "#000000");
  const std::string svg = c.svg();
  EXPECT_THAT(svg, ::testing::HasSubstr(">a&lt;b &amp; &quot;c&quot;</text>"));
  EXPECT_THAT(svg, ::testing::HasSubstr("<circle cx=\"1.0\" cy=\"0.0\" r=\"2.0\"/>"));  // never "-0.0"
}

}  // namespace
}  // namespace strata::genomics::plot
