// `strata pca --pca-missing pairwise` against Debian's plink2 `--pca` without `meanimpute`
// (each GRM entry over the variants both samples observe), and the default against
// `--pca meanimpute`, on a simulated 1 %-missing cohort and on HapMap3. Equal means:
// eigenvalues to plink2's six printed digits (one unit of slack), eigenvector entries
// (sign-aligned) within 1e-6 (meanimpute's integer/float32 products leave ~5e-7); pairwise
// (float64 GRM and eigensolve), rounded to plink2's six digits, equal to its text in ≥ 99.9 %
// of entries (an exact tie in strata's longer text admits either neighbour), the rest one
// unit in the last digit; and the two modes give
// eigenvalues apart by more than that, so each comparison can fail.
#include <algorithm>
#include <cmath>
#include <cstdio>
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

// x as plink2 prints it (six significant digits), read back.
double printed(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return std::stod(buf);
}

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
      int64_t same_text = 0, entries = 0;
      for (int c = 0; c < kK; ++c) {
        double dot = 0;
        for (size_t j = 0; j < pv.size(); ++j) dot += pv[j].at(c) * sv[j].at(c);
        const double sign = dot < 0 ? -1.0 : 1.0;
        double worst = 0, worst_digits = 0;
        for (size_t j = 0; j < pv.size(); ++j) {
          const double d = std::fabs(sign * sv[j][c] - pv[j][c]);
          worst = std::max(worst, d);
          const double shown = printed(sign * sv[j][c]);  // strata prints more digits
          worst_digits = std::max(worst_digits, std::fabs(shown - pv[j][c]) / last_digit(pv[j][c]));
          // strata's own text (10 digits) may end in an exact tie at the 6th: either neighbour
          // is then a correct rounding of it.
          const bool tie = std::fabs(std::fabs(sign * sv[j][c] - pv[j][c]) - 0.5 * last_digit(pv[j][c])) <
                           1e-6 * last_digit(pv[j][c]);
          same_text += shown == pv[j][c] || tie;
          ++entries;
        }
        EXPECT_LE(worst, 1e-6) << mode << " eigenvector " << c + 1;
        // Printed to six digits: at most one unit off plink2's last digit (slack for the
        // binary rounding of the comparison itself).
        if (mode == "pairwise") {
          EXPECT_LE(worst_digits, 1.0001) << mode << " eigenvector " << c + 1;
        }
      }
      const double share = double(same_text) / double(entries);
      std::printf("[ %s ] eigenvector entries printed as plink2's: %lld / %lld (%.4f %%)\n", mode.c_str(),
                  static_cast<long long>(same_text), static_cast<long long>(entries), 100 * share);
      if (mode == "pairwise") {
        EXPECT_GE(share, 0.999) << mode << ": eigenvector entries printed as plink2's";
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
