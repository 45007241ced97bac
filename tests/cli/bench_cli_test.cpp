// End-to-end test of `strata bench svd` through the built binary: the JSON record it prints
// and the sanity of the singular values it reports.
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <sstream>

#include "testing/testing.hpp"

namespace strata {
namespace {

namespace fs = std::filesystem;
using strata::testing::run_command;

std::string cli() { return strata::testing::strata_cli_path(); }

TEST(BenchCli, SvdJson) {
  if (!fs::exists(cli())) GTEST_SKIP() << "strata CLI not built";
  auto r = run_command(cli() + " bench svd --shape 2000,300 --threads 1,2 --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::istringstream lines(r.output);
  std::string line;
  int records = 0;
  std::vector<double> first_s;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] != '{') continue;
    const nlohmann::json j = nlohmann::json::parse(line);
    ++records;
    EXPECT_EQ(j.at("benchmark"), "svd");
    EXPECT_EQ(j.at("shape"), nlohmann::json::array({2000, 300}));
    EXPECT_EQ(j.at("k").get<int64_t>(), 10);
    EXPECT_EQ(j.at("products"), "host-generated rows");  // the CPU never takes the fused products
    EXPECT_GT(j.at("seconds").get<double>(), 0.0);
    EXPECT_GT(j.at("passes").get<int64_t>(), 0);
    EXPECT_GT(j.at("elements_per_second").get<double>(), 0.0);
    EXPECT_GT(j.at("gflops").get<double>(), 0.0);
    const auto s = j.at("singular_values").get<std::vector<double>>();
    ASSERT_EQ(s.size(), 10u);
    for (size_t i = 0; i < s.size(); ++i) {
      EXPECT_GT(s[i], 0.0) << i;
      if (i > 0) EXPECT_GE(s[i - 1], s[i]) << i;
    }
    // randint(0, 3) has mean 1: the leading value is about sqrt(rows · cols).
    EXPECT_NEAR(s[0], std::sqrt(2000.0 * 300.0), 0.1 * std::sqrt(2000.0 * 300.0));
    const auto err = j.at("error_estimate").get<std::vector<double>>();
    ASSERT_EQ(err.size(), 10u);
    for (double e : err) EXPECT_GE(e, 0.0);
    // Results do not depend on the thread count.
    if (first_s.empty()) {
      first_s = s;
    } else {
      EXPECT_EQ(first_s, s);
    }
  }
  EXPECT_EQ(records, 2) << r.output;
}

TEST(BenchCli, SvdRejectsBadShape) {
  if (!fs::exists(cli())) GTEST_SKIP() << "strata CLI not built";
  auto r = run_command(cli() + " bench svd --shape 2000 --json");
  STRATA_EXPECT_CLI_ERROR(r, 2, "--shape: must be two positive integers separated by a comma (e.g. 1000,2000), got '2000'");
  r = run_command(cli() + " bench svd --shape 100,20 --k 20 --json");
  STRATA_EXPECT_CLI_ERROR(r, 2, "--k must be in [1, min(rows, cols)), got 20");
}

}  // namespace
}  // namespace strata
