// PCA and the GRM of a pedigree against Debian's plink2: allele frequencies count founders only
// (samples with no parent in the .fam), so a cohort with children standardizes with the
// founders' frequencies; `--nonfounders` counts every sample. Each mode against its plink2
// twin (`--make-rel`, `--pca meanimpute`, `--freq`), and the two modes apart, so each
// comparison can fail; fewer than 50 founders is refused as plink2 refuses it.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "pca/pca_text_files.hpp"
#include "testing/testing.hpp"

namespace strata {
namespace {

namespace fs = std::filesystem;
using pca_files::last_digit;
using strata::testing::run_command;
using strata::testing::TempDir;

const char* kPlink2 = "/usr/bin/plink2";

class PcaPedigreePlink2 : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(strata::testing::strata_cli_path())) GTEST_SKIP() << "strata CLI not built";
    if (!fs::exists(kPlink2)) GTEST_SKIP() << strata::testing::kSkipNoPlink2;
    run(cli() + " simulate --samples 300 --variants 3000 --missing 0.01 --seed 5 -q --out " + dir_.str("sim"));
  }
  static std::string cli() { return strata::testing::strata_cli_path(); }
  void run(const std::string& cmd) {
    auto r = run_command(cmd);
    ASSERT_EQ(r.exit_code, 0) << cmd << "\n" << r.output;
  }
  // A copy of the simulated cohort whose samples from `first` on are children: each names the
  // sample before it as father (one parent is enough to make a non-founder). Variants with a
  // founders' MAF below 5 % are left out (plink2 --maf counts founders), so none is
  // monomorphic among the founders only (both tools refuse those: see below).
  std::string pedigree(const std::string& name, int first) {
    write_fam(dir_.str("sim.fam"), dir_.str(name + "_all.fam"), first);
    run(std::string(kPlink2) + " --bed " + dir_.str("sim.bed") + " --bim " + dir_.str("sim.bim") + " --fam " +
        dir_.str(name + "_all.fam") + " --maf 0.05 --make-bed --out " + dir_.str(name));
    return dir_.str(name);
  }
  void write_fam(const std::string& from, const std::string& to, int first) {
    std::ifstream in(from);
    std::ofstream out(to);
    std::string line, previous_iid;
    for (int i = 0; std::getline(in, line); ++i) {
      std::istringstream ls(line);
      std::vector<std::string> f;
      for (std::string w; ls >> w;) f.push_back(w);
      if (i >= first) f[2] = previous_iid;
      previous_iid = f[1];
      for (size_t c = 0; c < f.size(); ++c) out << (c ? " " : "") << f[c];
      out << "\n";
    }
  }
  // Lower-triangle .rel values of both files equal to plink2's printed digits.
  void expect_rel_equal(const std::string& ours, const std::string& theirs, const std::string& what) {
    const auto a = pca_files::numbers(ours), b = pca_files::numbers(theirs);
    ASSERT_EQ(a.size(), b.size()) << what;
    double worst = 0;
    for (size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::fabs(a[i] - b[i]) / last_digit(b[i]));
    EXPECT_LE(worst, 1.0001) << what << ": units in plink2's last printed digit";
  }
  double max_abs_diff(const std::string& x, const std::string& y) {
    const auto a = pca_files::numbers(x), b = pca_files::numbers(y);
    double worst = 0;
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) worst = std::max(worst, std::fabs(a[i] - b[i]));
    return worst;
  }
  // The ALT_FREQS column (5th) of a .afreq file.
  std::vector<std::string> alt_freqs(const std::string& path) {
    std::vector<std::string> out;
    for (const auto& row : strata::testing::read_rows(path))
      if (row.size() > 4 && row[0][0] != '#') out.push_back(row[4]);
    return out;
  }
  TempDir dir_;
};

TEST_F(PcaPedigreePlink2, GrmUsesFoundersFrequenciesAsPlink2) {
  const std::string ped = pedigree("ped", 200);  // 200 founders, 100 children
  run(std::string(kPlink2) + " --bfile " + ped + " --threads 2 --make-rel --out " + dir_.str("p_founders"));
  run(std::string(kPlink2) + " --bfile " + ped + " --threads 2 --make-rel --nonfounders --out " + dir_.str("p_all"));
  run(cli() + " grm " + ped + " --format rel -q --out " + dir_.str("s_founders"));
  run(cli() + " grm " + ped + " --format rel --nonfounders -q --out " + dir_.str("s_all"));
  expect_rel_equal(dir_.str("s_founders.rel"), dir_.str("p_founders.rel"), "founders");
  expect_rel_equal(dir_.str("s_all.rel"), dir_.str("p_all.rel"), "--nonfounders");
  EXPECT_GT(max_abs_diff(dir_.str("p_founders.rel"), dir_.str("p_all.rel")), 1e-3)
      << "the two frequency bases gave the same GRM: the test would not see the difference";
}

TEST_F(PcaPedigreePlink2, PcaAndItsAfreqUseFoundersFrequenciesAsPlink2) {
  const std::string ped = pedigree("ped", 200);
  const std::string p = std::string(kPlink2) + " --bfile " + ped + " --threads 2 ";
  run(p + "--pca 5 meanimpute --out " + dir_.str("p_founders"));
  run(p + "--pca 5 meanimpute --nonfounders --out " + dir_.str("p_all"));
  run(std::string(kPlink2) + " --bfile " + ped + " --threads 2 --freq --out " + dir_.str("p_freq"));
  const std::string s = cli() + " pca " + ped + " -k 5 --method exact --no-plot -q ";
  run(s + "--out " + dir_.str("s_founders"));
  run(s + "--nonfounders --out " + dir_.str("s_all"));
  for (const std::string mode : {"founders", "all"}) {
    const auto pw = pca_files::numbers(dir_.str("p_" + mode + ".eigenval"));
    const auto sw = pca_files::numbers(dir_.str("s_" + mode + ".eigenval"));
    ASSERT_EQ(sw.size(), pw.size());
    for (size_t i = 0; i < pw.size(); ++i) EXPECT_LE(std::fabs(sw[i] - pw[i]), last_digit(pw[i])) << mode << " eigenvalue " << i + 1;
  }
  EXPECT_GT(max_abs_diff(dir_.str("p_founders.eigenval"), dir_.str("p_all.eigenval")), 1e-3)
      << "the two frequency bases gave the same eigenvalues";
  // PREFIX.afreq holds the frequencies the PCA standardized with: plink2's --freq (founders).
  const auto ours = alt_freqs(dir_.str("s_founders.afreq")), theirs = alt_freqs(dir_.str("p_freq.afreq"));
  ASSERT_EQ(ours.size(), theirs.size());
  int64_t same = 0;
  for (size_t i = 0; i < ours.size(); ++i) same += ours[i] == theirs[i];
  EXPECT_EQ(same, static_cast<int64_t>(ours.size())) << "ALT_FREQS of PREFIX.afreq equal to plink2 --freq's";
}

TEST_F(PcaPedigreePlink2, FewerThanFiftyFoundersIsRefusedAsPlink2) {
  write_fam(dir_.str("sim.fam"), dir_.str("few.fam"), 40);  // 40 founders
  for (const char* ext : {".bed", ".bim"}) fs::copy_file(dir_.str(std::string("sim") + ext), dir_.str(std::string("few") + ext));
  const std::string ped = dir_.str("few");
  auto p = run_command(std::string(kPlink2) + " --bfile " + ped + " --threads 2 --make-rel --out " + dir_.str("p_few"));
  EXPECT_NE(p.exit_code, 0) << "plink2 accepted fewer than 50 founders: " << p.output;
  for (const std::string cmd : {"pca -k 3 --no-plot", "grm"}) {
    const std::string out = dir_.str(cmd == "grm" ? "s_grm" : "s_pca");
    auto r = run_command(cli() + " " + cmd + " " + ped + " -q --out " + out);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("40 of 300 samples are founders"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("--nonfounders"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(out + (cmd == "grm" ? ".rel" : ".eigenval"))) << cmd << " wrote output";
    run(cli() + " " + cmd + " " + ped + " --nonfounders -q --out " + out);
  }
}

// A variant whose minor allele only non-founders carry: plink2 refuses it ("Zero-MAF variant is
// not actually monomorphic"), and so does strata, naming it; --nonfounders counts every sample.
TEST_F(PcaPedigreePlink2, VariantMonomorphicAmongFoundersOnlyIsRefused) {
  write_fam(dir_.str("sim.fam"), dir_.str("rare.fam"), 200);
  for (const char* ext : {".bed", ".bim"}) fs::copy_file(dir_.str(std::string("sim") + ext), dir_.str(std::string("rare") + ext));
  const std::string rare = dir_.str("rare");
  auto p = run_command(std::string(kPlink2) + " --bfile " + rare + " --threads 2 --make-rel --out " + dir_.str("p_rare"));
  ASSERT_NE(p.exit_code, 0) << "the simulated cohort has no founder-monomorphic variant: " << p.output;
  EXPECT_NE(p.output.find("not actually monomorphic"), std::string::npos) << p.output;
  auto r = run_command(cli() + " grm " + rare + " -q --out " + dir_.str("s_rare"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("is monomorphic among the founders but not among every sample"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir_.str("s_rare.rel")));
  run(cli() + " grm " + rare + " --nonfounders -q --out " + dir_.str("s_rare"));
}

}  // namespace
}  // namespace strata
