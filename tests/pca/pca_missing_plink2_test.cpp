// `strata pca --pca-missing pairwise` against Debian's plink2 `--pca` without `meanimpute`
// (each GRM entry over the variants both samples observe), and the default against
// `--pca meanimpute`, on a simulated 1 %-missing cohort and on HapMap3. Equal means:
// eigenvalues to plink2's six printed digits (one unit of slack), eigenvector entries
// (sign-aligned) within 1e-6 (the GRM route's float32 products leave ~5e-7); and the two
// modes give eigenvalues apart by more than that, so each comparison can fail.
#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "pca/pca_text_files.hpp"
#include "testing/testing.hpp"

namespace strata {
namespace {

namespace fs = std::filesystem;
using strata::testing::run_command;
using strata::testing::TempDir;

const char* kPlink2 = "/usr/bin/plink2";
constexpr int kK = 6;

using pca_files::last_digit;
class PcaMissingPlink2 : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(strata::testing::strata_cli_path())) GTEST_SKIP() << "strata CLI not built";
    if (!fs::exists(kPlink2)) GTEST_SKIP() << strata::testing::kSkipNoPlink2;
  }
  void run(const std::string& cmd) {
    auto r = run_command(cmd);
    ASSERT_EQ(r.exit_code, 0) << cmd << "\n" << r.output;
  }
  // Both modes of both tools on `bfile`; each strata mode checked against its plink2 twin.
  void compare(const std::string& bfile) {
    const std::string s = strata::testing::strata_cli_path() + " pca " + bfile + " -k " + std::to_string(kK) + " -q";
    const std::string p = std::string(kPlink2) + " --bfile " + bfile + " --threads 2 --pca " + std::to_string(kK);
    run(p + " --out " + dir_.str("p_pairwise"));
    run(p + " meanimpute --out " + dir_.str("p_mean"));
    run(s + " --pca-missing pairwise --out " + dir_.str("s_pairwise"));
    run(s + " --out " + dir_.str("s_mean"));
    for (const std::string mode : {"pairwise", "mean"}) {
      const auto pw = pca_files::numbers(dir_.str("p_" + mode + ".eigenval")), sw = pca_files::numbers(dir_.str("s_" + mode + ".eigenval"));
      const auto other = pca_files::numbers(dir_.str(std::string(mode == "mean" ? "p_pairwise" : "p_mean") + ".eigenval"));
      ASSERT_EQ(pw.size(), static_cast<size_t>(kK));
      ASSERT_EQ(sw.size(), pw.size());
      bool apart = false;
      for (int i = 0; i < kK; ++i) {
        EXPECT_LE(std::fabs(sw[i] - pw[i]), last_digit(pw[i])) << mode << " eigenvalue " << i + 1;
        apart = apart || std::fabs(other[i] - pw[i]) > 2 * last_digit(pw[i]);
      }
      EXPECT_TRUE(apart) << mode << ": the two missing-call modes gave the same eigenvalues (no missing calls?)";
      const auto pv = pca_files::eigenvec(dir_.str("p_" + mode + ".eigenvec")), sv = pca_files::eigenvec(dir_.str("s_" + mode + ".eigenvec"));
      ASSERT_EQ(pv.size(), sv.size());
      for (int c = 0; c < kK; ++c) {
        double dot = 0;
        for (size_t j = 0; j < pv.size(); ++j) dot += pv[j].at(c) * sv[j].at(c);
        const double sign = dot < 0 ? -1.0 : 1.0;
        double worst = 0;
        for (size_t j = 0; j < pv.size(); ++j) worst = std::max(worst, std::fabs(sign * sv[j][c] - pv[j][c]));
        EXPECT_LE(worst, 1e-6) << mode << " eigenvector " << c + 1;
      }
    }
  }
  TempDir dir_;
};

TEST_F(PcaMissingPlink2, SimulatedOnePercentMissing) {
  run(strata::testing::strata_cli_path() + " simulate --samples 400 --variants 4000 --missing 0.01 --seed 3 -q --out " +
      dir_.str("sim"));
  compare(dir_.str("sim"));
}

TEST_F(PcaMissingPlink2, HapMap3) {
  const std::string data = strata::testing::shared_data_dir();
  if (data.empty()) GTEST_SKIP() << strata::testing::kSkipNoSharedData;
  compare(data + "/hapmap3/HM3_thinned_autosomal_overlap");
}

// The pairwise GRM exists only on the exact GRM route: asking for the randomized method is a
// usage error (exit 2) that writes nothing.
TEST_F(PcaMissingPlink2, PairwiseRefusesRandomized) {
  run(strata::testing::strata_cli_path() + " simulate --samples 50 --variants 200 --missing 0.01 -q --out " +
      dir_.str("small"));
  auto r = run_command(strata::testing::strata_cli_path() + " pca " + dir_.str("small") +
                       " -k 2 --pca-missing pairwise --method randomized -q --out " + dir_.str("bad"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("only the exact GRM route"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir_.str("bad.eigenval")));
}

}  // namespace
}  // namespace strata
