// `strata qc --check-sex` against PLINK 1.9's `--check-sex` (plink2 2.00a3.5 has none) on
// HapMap3 with chromosomes 21-22 relabelled X: males' heterozygous calls there made
// homozygous (haploid-looking) but for five males (mislabelled: F near 0), five females made
// haploid-looking, two samples of unknown sex, one sample with no X call. `.sexcheck` byte for
// byte, default and custom thresholds; asked with the other tables it rides the same pass; no
// X variants: exit 1, nothing written.
#include <cstdio>
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

const char* kPlink19 = "/usr/bin/plink1.9";

class CheckSexPlink19 : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(strata::testing::strata_cli_path())) GTEST_SKIP() << "strata CLI not built";
    if (!fs::exists(kPlink19)) GTEST_SKIP() << "no oracle: PLINK 1.9 not installed (/usr/bin/plink1.9)";
    const std::string data = strata::testing::shared_data_dir();
    src_ = data + "/hapmap3/HM3_thinned_autosomal_overlap";
    if (data.empty() || !fs::exists(src_ + ".bed")) GTEST_SKIP() << strata::testing::kSkipNoSharedData;
    make_x_cohort();
  }

  // The X cohort described above, as dir_/x.{bed,bim,fam}.
  void make_x_cohort() {
    std::vector<std::vector<std::string>> fam, bim;
    auto rows = [](const std::string& path) {
      std::vector<std::vector<std::string>> out;
      std::ifstream in(path);
      for (std::string line; std::getline(in, line);) {
        std::istringstream ls(line);
        std::vector<std::string> f;
        for (std::string t; ls >> t;) f.push_back(t);
        out.push_back(f);
      }
      return out;
    };
    fam = rows(src_ + ".fam");
    bim = rows(src_ + ".bim");
    const size_t n = fam.size(), row = (n + 3) / 4;
    std::string bed = read_file(src_ + ".bed");
    std::vector<int> role(n, 0);  // 1: haploid-looking on X
    int males = 0, females = 0;
    for (size_t i = 0; i < n; ++i) {
      if (fam[i][4] == "1") role[i] = males++ >= 5;  // the first five males keep their hets
      if (fam[i][4] == "2") role[i] = females++ < 5;
    }
    fam[7][4] = fam[8][4] = "0";
    const size_t no_calls = 11;  // every X call missing
    for (size_t v = 0; v < bim.size(); ++v) {
      if (bim[v][0] != "21" && bim[v][0] != "22") continue;
      bim[v][0] = "23";
      for (size_t i = 0; i < n; ++i) {
        uint8_t& byte = reinterpret_cast<uint8_t&>(bed[3 + v * row + i / 4]);
        const int shift = 2 * static_cast<int>(i % 4);
        const int code = (byte >> shift) & 3;  // .bed: 0 hom A1, 1 missing, 2 het, 3 hom A2
        int next = code;
        if (i == no_calls) next = 1;
        else if (role[i] && code == 2) next = (v + i) % 2 ? 0 : 3;
        byte = static_cast<uint8_t>((byte & ~(3 << shift)) | (next << shift));
      }
    }
    auto write = [&](const std::string& path, const std::vector<std::vector<std::string>>& t, char sep) {
      std::ofstream out(path);
      for (const auto& r : t) {
        for (size_t c = 0; c < r.size(); ++c) out << (c ? std::string(1, sep) : "") << r[c];
        out << '\n';
      }
    };
    write(dir_.str("x.fam"), fam, ' ');
    write(dir_.str("x.bim"), bim, '\t');
    std::ofstream(dir_.str("x.bed"), std::ios::binary) << bed;
    x_ = dir_.str("x");
  }

  std::string plink19(const std::string& flags, const std::string& out) {
    auto r = run_command(std::string(kPlink19) + " --bfile " + x_ + " " + flags + " --out " + dir_.str(out));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return read_file(dir_.str(out + ".sexcheck"));
  }
  strata::testing::CommandResult strata(const std::string& bfile, const std::string& flags, const std::string& out) {
    return run_command(strata::testing::strata_cli_path() + " qc --bfile " + bfile + " " + flags + " --threads 2 --out " +
                       dir_.str(out));
  }

  TempDir dir_;
  std::string src_, x_;
};

TEST_F(CheckSexPlink19, DefaultThresholdsByteForByte) {
  const std::string ref = plink19("--check-sex", "p1");
  auto r = strata(x_, "--check-sex", "st");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(read_file(dir_.str("st.sexcheck")), ref);
  // The fixture's cases are there: mislabelled males, haploid-looking females, unknown sex, no X call.
  EXPECT_NE(ref.find("1            2      PROBLEM"), std::string::npos);
  EXPECT_NE(ref.find("2            1      PROBLEM"), std::string::npos);
  EXPECT_NE(ref.find("0            1      PROBLEM"), std::string::npos);
  EXPECT_NE(ref.find("PROBLEM          nan"), std::string::npos);
  EXPECT_NE(ref.find("           OK "), std::string::npos);
}

TEST_F(CheckSexPlink19, CustomThresholdsByteForByte) {
  const std::string ref = plink19("--check-sex 0.5 0.95", "p1");
  auto r = strata(x_, "--check-sex --max-female-xf 0.5 --min-male-xf 0.95", "st");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(read_file(dir_.str("st.sexcheck")), ref);
}

TEST_F(CheckSexPlink19, WithTheOtherTablesInOnePass) {
  auto alone = strata(x_, "--check-sex", "alone");
  ASSERT_EQ(alone.exit_code, 0) << alone.output;
  auto other = strata(x_, "--missing --hardy", "other");
  ASSERT_EQ(other.exit_code, 0) << other.output;
  auto all = strata(x_, "--missing --hardy --check-sex --report " + dir_.str("all.json"), "all");
  ASSERT_EQ(all.exit_code, 0) << all.output;
  EXPECT_EQ(read_file(dir_.str("all.sexcheck")), read_file(dir_.str("alone.sexcheck")));
  for (const char* ext : {".smiss", ".vmiss", ".hardy", ".hardy.x"})
    EXPECT_EQ(read_file(dir_.str(std::string("all") + ext)), read_file(dir_.str(std::string("other") + ext))) << ext;
  const std::string report = read_file(dir_.str("all.json"));
  EXPECT_NE(report.find("\"sexcheck_x_variants\""), std::string::npos) << report;
}

TEST_F(CheckSexPlink19, NoXVariantsExitsOneAndWritesNothing) {
  auto r = strata(src_, "--missing --check-sex", "nox");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("--check-sex needs X chromosome variants"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(src_), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir_.str("nox.sexcheck")));
  EXPECT_FALSE(fs::exists(dir_.str("nox.smiss")));
}

TEST_F(CheckSexPlink19, ThresholdsOutOfOrderAreRefused) {
  auto r = strata(x_, "--check-sex --max-female-xf 0.9 --min-male-xf 0.1", "bad");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("max-female-xf"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir_.str("bad.sexcheck")));
}

}  // namespace
}  // namespace strata
