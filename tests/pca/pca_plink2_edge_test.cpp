// `strata pca` against plink2 where a probe found silent disagreement: monomorphic variants
// (plink2 divides the GRM by every variant passing its filters, monomorphic ones included) and
// exact PCA of cohorts with fewer variants than samples. Skips visibly without plink2.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "testing/testing.hpp"

namespace strata {
namespace {

namespace fs = std::filesystem;
using strata::testing::read_file;
using strata::testing::run_command;
using strata::testing::TempDir;

const char* kPlink2 = "/usr/bin/plink2";

std::string cli() { return strata::testing::strata_cli_path(); }

std::vector<double> read_eigenval(const std::string& path) {
  std::vector<double> out;
  std::istringstream ss(read_file(path));
  for (std::string l; std::getline(ss, l);) out.push_back(std::stod(l));
  return out;
}

// plink2 prints 6 significant digits: half a unit in the last printed place, plus rounding.
void expect_eigenvalues_match(const std::vector<double>& strata_vals, const std::vector<double>& plink_vals,
                              double rel = 1e-7) {
  ASSERT_EQ(strata_vals.size(), plink_vals.size());
  for (size_t i = 0; i < plink_vals.size(); ++i) {
    const double slack = 0.5 * std::pow(10.0, std::floor(std::log10(std::fabs(plink_vals[i]))) - 5);
    EXPECT_NEAR(strata_vals[i], plink_vals[i], slack + rel * std::fabs(plink_vals[i])) << "PC" << i + 1;
  }
}

// Overwrite every `every`-th variant row of PREFIX.bed with hom A2 (0 ALT): monomorphic.
void make_monomorphic(const std::string& prefix, int64_t samples, int64_t variants, int64_t every) {
  const int64_t row = (samples + 3) / 4;
  std::fstream f(prefix + ".bed", std::ios::in | std::ios::out | std::ios::binary);
  ASSERT_TRUE(f.good());
  const std::string ones(static_cast<size_t>(row), '\xFF');
  for (int64_t v = 0; v < variants; v += every) {
    f.seekp(3 + v * row);
    f.write(ones.data(), row);
  }
  ASSERT_TRUE(f.good());
}

class PcaPlink2Edge : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(cli())) GTEST_SKIP() << "strata CLI not built";
    if (!fs::exists(kPlink2)) GTEST_SKIP() << strata::testing::kSkipNoPlink2;
  }
  TempDir dir_;
};

// Before: strata 10.90, 10.28, … vs plink2 9.81, 9.25, … (a factor M_total / M_used).
TEST_F(PcaPlink2Edge, MonomorphicVariantsCountInMLikePlink2) {
  auto r = run_command(cli() + " simulate -q --samples 300 --variants 3000 --pops 3 --fst 0.05 --seed 2 --out " +
                       dir_.str("x"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  make_monomorphic(dir_.str("x"), 300, 3000, 10);
  int run = 0;
  for (const std::string filters : {"", " --maf 0.01", " --geno 0.05"}) {
    SCOPED_TRACE(filters);
    const std::string out = dir_.str("s" + std::to_string(run++));
    r = run_command(std::string(kPlink2) + " --bfile " + dir_.str("x") + filters + " --pca 5 meanimpute --out " +
                    dir_.str("p") + " > /dev/null 2>&1");
    ASSERT_EQ(r.exit_code, 0) << read_file(dir_.str("p.log"));
    r = run_command(cli() + " pca " + dir_.str("x") + " -k 5 --method exact" + filters + " -q --out " + out);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    expect_eigenvalues_match(read_eigenval(out + ".eigenval"), read_eigenval(dir_.str("p.eigenval")));
  }
}

// Before: exact PCA failed ("this source cannot be read transposed") when variants < samples.
TEST_F(PcaPlink2Edge, ExactPcaWithFewerVariantsThanSamples) {
  auto r = run_command(cli() + " simulate -q --samples 300 --variants 100 --pops 3 --fst 0.1 --seed 4 --out " +
                       dir_.str("x"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run_command(std::string(kPlink2) + " --bfile " + dir_.str("x") + " --pca 3 meanimpute --out " + dir_.str("p") +
                  " > /dev/null 2>&1");
  ASSERT_EQ(r.exit_code, 0) << read_file(dir_.str("p.log"));
  for (const std::string method : {"exact", "auto", "randomized"}) {
    SCOPED_TRACE(method);
    const std::string out = dir_.str("s_" + method);
    r = run_command(cli() + " pca " + dir_.str("x") + " -k 3 --method " + method + " -q --out " + out);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    // Randomized (complete search space, int16 products): exact up to the products' ~1e-5.
    expect_eigenvalues_match(read_eigenval(out + ".eigenval"), read_eigenval(dir_.str("p.eigenval")),
                             method == "randomized" ? 2e-5 : 1e-7);
  }
}

}  // namespace
}  // namespace strata
