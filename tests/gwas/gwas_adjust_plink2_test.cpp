// `strata gwas --adjust` and its λ end to end against plink2 2.00a3.5 `--glm hide-covar --adjust`
// on HapMap3: phenotypes that follow the populations (inflated: λ well above 1), with and
// without covariates, with missing phenotype values and NA rows (a 60-sample subset has constant
// variants).
//
// What "equal" means: the corrections themselves are plink2's byte for byte (gwas_adjust_test
// feeds both the same P values). Here the P values are each tool's own: linear P values agree
// to plink2's printed digits but for its t tail (~1e-7 relative; gwas_plink2_test), so rows
// come in plink2's order except where two P values are that close, and the numbers agree to a
// few units in the 6th digit; λ agrees to plink2's printed digits. plink2 fits logistic models
// in single precision: there rows are matched by ID and compared to its float error.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "testing/testing.hpp"

namespace strata {
namespace {

namespace fs = std::filesystem;
using strata::testing::read_file;
using strata::testing::run_command;
using strata::testing::TempDir;

const char* kPlink2 = "/usr/bin/plink2";
using Table = std::vector<std::vector<std::string>>;

class GwasAdjustPlink2 : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(strata::testing::strata_cli_path())) GTEST_SKIP() << "strata CLI not built";
    if (!fs::exists(kPlink2)) GTEST_SKIP() << strata::testing::kSkipNoPlink2;
    const std::string data = strata::testing::shared_data_dir();
    bfile_ = data + "/hapmap3/HM3_thinned_autosomal_overlap";
    pops_ = data + "/hapmap3/relationships_w_pops_121708.txt";
    if (data.empty() || !fs::exists(bfile_ + ".bed") || !fs::exists(pops_))
      GTEST_SKIP() << strata::testing::kSkipNoSharedData;
    write_tables();
  }

  // QT: a shift for three populations + noise (NA every 31st); BT: case status that follows
  // the same populations; covariates C1 (noise) and AFR (the population indicator, which
  // removes most of the inflation).
  void write_tables() {
    std::map<std::string, std::string> pop;
    {
      std::ifstream in(pops_);
      std::string line, fid, iid, dad, mom, sex, ph, p;
      std::getline(in, line);
      while (in >> fid >> iid >> dad >> mom >> sex >> ph >> p) pop[iid] = p;
    }
    std::mt19937_64 rng(3604);
    std::normal_distribution<double> normal(0.0, 1.0);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::ofstream ph(dir_.str("ph.txt")), cv(dir_.str("cv.txt"));
    ph.precision(17);
    cv.precision(17);
    ph << "#FID IID QT BT\n";
    cv << "#FID IID C1 AFR\n";
    std::ifstream fam(bfile_ + ".fam");
    int i = 0;
    for (std::string line; std::getline(fam, line); ++i) {
      std::istringstream ls(line);
      std::string fid, iid;
      ls >> fid >> iid;
      const std::string& p = pop[iid];
      const bool afr = p == "YRI" || p == "ASW" || p == "LWK" || p == "MKK";
      const double qt = (afr ? 1.2 : 0.0) + normal(rng);
      const int bt = u(rng) < (afr ? 0.7 : 0.35) ? 2 : 1;
      ph << fid << ' ' << iid << ' ';
      if (i % 31 == 0) ph << "NA"; else ph << qt;
      ph << ' ' << bt << '\n';
      cv << fid << ' ' << iid << ' ' << normal(rng) << ' ' << (afr ? 1 : 0) << '\n';
    }
  }

  // Both tools with the same --adjust modifiers and flags; returns {plink2 log, strata stdout}.
  std::pair<std::string, std::string> run_both(const std::string& modifiers, const std::string& flags) {
    auto p = run_command(std::string(kPlink2) + " --bfile " + bfile_ + " --pheno " + dir_.str("ph.txt") +
                         " --glm hide-covar allow-no-covars --adjust " + modifiers + " --threads 2 " + flags +
                         " --out " + dir_.str("p2"));
    EXPECT_EQ(p.exit_code, 0) << p.output;
    auto s = run_command(strata::testing::strata_cli_path() + " gwas --bfile " + bfile_ + " --pheno " +
                         dir_.str("ph.txt") + " --adjust " + modifiers + " --threads 2 " + flags + " --out " +
                         dir_.str("st"));
    EXPECT_EQ(s.exit_code, 0) << s.output;
    return {read_file(dir_.str("p2.log")), s.output};
  }

  // plink2's λ lines, in phenotype order.
  static std::vector<double> plink2_lambdas(const std::string& log) {
    std::vector<double> out;
    const std::string key = "lambda (based on median chisq) = ";
    for (size_t at = log.find(key); at != std::string::npos; at = log.find(key, at + 1))
      out.push_back(std::stod(log.substr(at + key.size())));
    return out;
  }
  static double strata_lambda(const std::string& out, const std::string& pheno) {
    const size_t line = out.find(pheno + ": ");
    const size_t at = out.find("lambda_gc ", line);
    return at == std::string::npos ? std::nan("") : std::stod(out.substr(at + 10));
  }

  // Compares one phenotype's .adjusted files: header, rows (by ID) and, for linear (`in_order`),
  // the order and the numbers to `rel_tol`; logistic UNADJ to plink2's float error, on the log
  // scale (its single-precision fits move small P values by a few percent).
  void compare(const std::string& suffix, bool in_order, double rel_tol) {
    const Table st = strata::testing::read_rows(dir_.str("st." + suffix));
    const Table p2 = strata::testing::read_rows(dir_.str("p2." + suffix));
    ASSERT_FALSE(p2.empty());
    ASSERT_EQ(st.size(), p2.size()) << suffix;
    EXPECT_EQ(st[0], p2[0]) << "header";
    const auto& h = p2[0];
    const size_t id = static_cast<size_t>(std::find(h.begin(), h.end(), "ID") - h.begin());
    const size_t a1 = static_cast<size_t>(std::find(h.begin(), h.end(), "A1") - h.begin());
    ASSERT_LT(a1, h.size());
    std::map<std::string, const std::vector<std::string>*> by_id;
    for (size_t r = 1; r < p2.size(); ++r) by_id[p2[r][id]] = &p2[r];
    int64_t identical = 0, order_swaps = 0;
    double worst = 0;
    for (size_t r = 1; r < st.size(); ++r) {
      ASSERT_TRUE(by_id.count(st[r][id])) << st[r][id];
      const auto& ref = *by_id[st[r][id]];
      identical += st[r] == ref;
      for (size_t c = 0; c <= a1; ++c) EXPECT_EQ(st[r][c], ref[c]) << h[c] << " of " << st[r][id];
      for (size_t c = a1 + 1; c < (in_order ? ref.size() : a1 + 2); ++c) {  // logistic: UNADJ (the rest follows)
        const double a = std::stod(st[r][c]), b = std::stod(ref[c]);
        const double rel = in_order ? std::fabs(a - b) / std::max(std::fabs(b), 1e-300)
                                    : std::fabs(std::log(a) - std::log(b)) / (std::fabs(std::log(b)) + 0.5);
        worst = std::max(worst, rel);
        EXPECT_LE(rel, rel_tol) << st[r][id] << " column " << p2[0][c] << ": " << st[r][c] << " vs " << ref[c];
      }
      if (in_order && st[r][id] != p2[r][id]) {
        ++order_swaps;  // allowed only between P values equal to plink2's precision
        const double a = std::stod(st[r][a1 + 1]), b = std::stod(p2[r][a1 + 1]);
        EXPECT_LE(std::fabs(a - b), 1e-5 * std::fabs(b)) << "row " << r << ": " << st[r][id] << " vs " << p2[r][id];
      }
    }
    std::printf("[ adjust   ] %s: %lld of %zu rows byte-identical, %lld order swaps, worst rel %.2g\n",
                suffix.c_str(), static_cast<long long>(identical), st.size() - 1, static_cast<long long>(order_swaps),
                worst);
    if (in_order) EXPECT_GE(identical * 100, static_cast<int64_t>(st.size() - 1) * 85);
  }

  TempDir dir_;
  std::string bfile_, pops_;
};

TEST_F(GwasAdjustPlink2, InflatedScanWithoutCovariates) {
  const auto [log, out] = run_both("", "--pheno-name QT,BT");
  const std::vector<double> lambdas = plink2_lambdas(log);
  ASSERT_EQ(lambdas.size(), 2u) << log;
  EXPECT_GT(lambdas[0], 1.5);  // the populations inflate the scan
  EXPECT_NEAR(strata_lambda(out, "QT"), lambdas[0], 1e-5 * lambdas[0]) << out;
  EXPECT_NEAR(strata_lambda(out, "BT"), lambdas[1], 2e-4 * lambdas[1]) << out;
  compare("QT.glm.linear.adjusted", true, 3e-5);
  compare("BT.glm.logistic.hybrid.adjusted", false, 0.03);  // plink2 2.00a3.5: float fits, biased SE with missing calls
}

TEST_F(GwasAdjustPlink2, CovariatesSubsetAndModifiers) {
  // 60 samples: constant variants give NA rows, left out of the corrections as plink2 does.
  {
    std::ofstream keep(dir_.str("keep.txt"));
    std::ifstream fam(bfile_ + ".fam");
    int i = 0;
    for (std::string line; std::getline(fam, line) && i < 60; ++i) {
      std::istringstream ls(line);
      std::string fid, iid;
      ls >> fid >> iid;
      keep << fid << ' ' << iid << '\n';
    }
  }
  const std::string common = " --covar " + dir_.str("cv.txt") + " --keep " + dir_.str("keep.txt");
  const auto [log, out] = run_both("gc log10 cols=+qq,+pos,+ref,+alt1,+alt", common + " --pheno-name QT");
  const std::vector<double> lambdas = plink2_lambdas(log);
  ASSERT_EQ(lambdas.size(), 1u) << log;
  EXPECT_NEAR(strata_lambda(out, "QT"), lambdas[0], 1e-5 * lambdas[0]) << out;
  const Table glm = strata::testing::read_rows(dir_.str("st.QT.glm.linear"));
  int64_t na = 0;
  for (const auto& row : glm) na += row.back() != "." && row.back() != "ERRCODE";
  EXPECT_GT(na, 0) << "the subset should have NA rows";
  const Table adj = strata::testing::read_rows(dir_.str("st.QT.glm.linear.adjusted"));
  EXPECT_EQ(static_cast<int64_t>(adj.size()), static_cast<int64_t>(glm.size()) - na);
  compare("QT.glm.linear.adjusted", true, 3e-5);
}

TEST_F(GwasAdjustPlink2, BadModifierFailsBeforeAnyOutput) {
  auto s = run_command(strata::testing::strata_cli_path() + " gwas --bfile " + bfile_ + " --pheno " +
                       dir_.str("ph.txt") + " --adjust cols=+bogus --out " + dir_.str("bad"));
  EXPECT_EQ(s.exit_code, 2) << s.output;  // invalid arguments
  EXPECT_NE(s.output.find("unknown column 'bogus'"), std::string::npos) << s.output;
  EXPECT_FALSE(fs::exists(dir_.str("bad.QT.glm.linear")));
  EXPECT_FALSE(fs::exists(dir_.str("bad.QT.glm.linear.adjusted")));
}

}  // namespace
}  // namespace strata
