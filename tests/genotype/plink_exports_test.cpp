// .bim/.fam files as R (write.table), pandas (to_csv) and spreadsheets write them: strata reads
// what plink2 reads, with the same allele frequencies and the same .bim written back.
#include <filesystem>

#include "testing/testing.hpp"

namespace strata {
namespace {

namespace fs = std::filesystem;
using strata::testing::read_file;
using strata::testing::run_command;
using strata::testing::TempDir;
using strata::testing::write_file;

std::string cli() { return strata::testing::strata_cli_path(); }

// Fields split at runs of blanks.
std::vector<std::vector<std::string>> rows_of(const std::string& text) { return strata::testing::split_rows(text, ' '); }

class PlinkExports : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(cli())) GTEST_SKIP() << "strata CLI not built";
    if (!fs::exists("/usr/bin/plink2")) GTEST_SKIP() << strata::testing::kSkipNoPlink2;
    auto r = run_command(cli() + " simulate -q --samples 40 --variants 12 --missing 0.05 --seed 3 --out " + tmp_.str("base"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    bim_ = rows_of(read_file(tmp_.str("base.bim")));
    fam_ = rows_of(read_file(tmp_.str("base.fam")));
    ASSERT_EQ(bim_.size(), 12u);
    ASSERT_EQ(fam_.size(), 40u);
  }
  // `name`.bed/.bim/.fam: the simulated genotypes with the given .bim and .fam text.
  void write_set(const std::string& name, const std::string& bim, const std::string& fam) {
    fs::copy_file(tmp_.str("base.bed"), tmp_.str(name + ".bed"), fs::copy_options::overwrite_existing);
    write_file(tmp_.str(name + ".bim"), bim);
    write_file(tmp_.str(name + ".fam"), fam);
  }
  // plink2 --freq and strata freq on `name`: the .afreq files must be byte-identical.
  void expect_same_freq(const std::string& name) {
    auto p = run_command("cd " + tmp_.str() + " && /usr/bin/plink2 --bfile " + name + " --freq --out p_" + name +
                         " --threads 1");
    ASSERT_EQ(p.exit_code, 0) << p.output;
    auto s = run_command(cli() + " freq -q " + tmp_.str(name) + " --out " + tmp_.str("s_" + name));
    ASSERT_EQ(s.exit_code, 0) << s.output;
    EXPECT_EQ(read_file(tmp_.str("s_" + name + ".afreq")), read_file(tmp_.str("p_" + name + ".afreq"))) << name;
  }
  TempDir tmp_;
  std::vector<std::vector<std::string>> bim_, fam_;
};

// R: write.table(..., quote = FALSE, sep = "\t") with positions in a double column prints
// 100000 as 1e+05; cM as 1e-03; Windows line ends; sex as M/F (plink2 reads them).
TEST_F(PlinkExports, RWriteTableFiles) {
  std::string bim, fam;
  for (size_t i = 0; i < bim_.size(); ++i) {
    const bool round = i % 2 == 0;  // R writes round positions in exponent notation
    bim += "chr" + bim_[i][0] + "\t" + bim_[i][1] + "\t" + (i == 1 ? "1e-03" : "0") + "\t" +
           (round ? std::to_string(i + 1) + "e+05" : std::to_string((i + 1) * 100000 + 7)) + "\t" + bim_[i][4] +
           "\t" + bim_[i][5] + "\r\n";
  }
  for (size_t i = 0; i < fam_.size(); ++i)
    fam += fam_[i][0] + "\t" + fam_[i][1] + "\t0\t0\t" + (i % 3 == 0 ? "M" : i % 3 == 1 ? "F" : "NA") + "\t" +
           (i % 4 == 0 ? "NA" : std::to_string(i % 4) + ".5e0") + "\r\n";
  write_set("r", bim, fam);
  expect_same_freq("r");
  // The positions are read as the numbers R meant (plink2 reads only "1" of "1e+05"), with a
  // warning that says so.
  auto c = run_command(cli() + " convert " + tmp_.str("r.bed") + " " + tmp_.str("r2.bed"));
  ASSERT_EQ(c.exit_code, 0) << c.output;
  EXPECT_THAT(c.output, ::testing::HasSubstr("6 positions are written in decimal or exponent notation (first '1e+05'"));
  const auto out = rows_of(read_file(tmp_.str("r2.bim")));
  ASSERT_EQ(out.size(), 12u);
  EXPECT_EQ(out[0][3], "100000");
  EXPECT_EQ(out[1][3], "200007");
  EXPECT_EQ(out[2][3], "300000");
  EXPECT_EQ(out[1][2], "0.001");
  const auto fam_out = rows_of(read_file(tmp_.str("r2.fam")));
  EXPECT_EQ(fam_out[0][4], "1");  // M
  EXPECT_EQ(fam_out[1][4], "2");  // F
  EXPECT_EQ(fam_out[2][4], "0");  // NA
}

// pandas: a position column that had a gap is float ("100.0"), cM "0.0"; spaces and tabs mixed,
// trailing blanks, no newline after the last line. The .bim strata writes back equals plink2's.
TEST_F(PlinkExports, PandasFloatColumnsRoundTripAsPlink2) {
  std::string bim, fam;
  for (size_t i = 0; i < bim_.size(); ++i) {
    bim += bim_[i][0] + " \t" + bim_[i][1] + "  " + (i == 2 ? ".5" : i == 3 ? "+1.5" : "0.0") + "\t" +
           std::to_string((i + 1) * 1000) + ".0\t" + bim_[i][4] + " " + bim_[i][5] + " \t";
    if (i + 1 < bim_.size()) bim += "\n";
  }
  for (size_t i = 0; i < fam_.size(); ++i)
    fam += fam_[i][0] + " " + fam_[i][1] + " 0 0 " + (i % 2 ? "2" : "1") + " " + (i % 2 ? "2.0" : "1.0") + "\n";
  write_set("pd", bim, fam);
  expect_same_freq("pd");
  auto c = run_command(cli() + " convert -q " + tmp_.str("pd.bed") + " " + tmp_.str("pd2.bed"));
  ASSERT_EQ(c.exit_code, 0) << c.output;
  auto p = run_command("cd " + tmp_.str() + " && /usr/bin/plink2 --bfile pd --make-bed --out ppd --threads 1");
  ASSERT_EQ(p.exit_code, 0) << p.output;
  EXPECT_EQ(read_file(tmp_.str("pd2.bim")), read_file(tmp_.str("ppd.bim")));
  EXPECT_EQ(read_file(tmp_.str("pd2.bed")), read_file(tmp_.str("ppd.bed")));
}

// What plink2 refuses, strata refuses, naming the file, line and field.
TEST_F(PlinkExports, RefusedWherePlink2Refuses) {
  std::string bim;
  for (size_t i = 0; i < bim_.size(); ++i)
    bim += bim_[i][0] + "\t" + bim_[i][1] + "\t" + (i == 4 ? "Inf" : "0") + "\t" + bim_[i][3] + "\t" + bim_[i][4] +
           "\t" + bim_[i][5] + "\n";
  write_set("bad", bim, read_file(tmp_.str("base.fam")));
  auto p = run_command("cd " + tmp_.str() + " && /usr/bin/plink2 --bfile bad --freq --out pbad --threads 1");
  EXPECT_NE(p.exit_code, 0);
  EXPECT_THAT(p.output, ::testing::HasSubstr("Invalid centimorgan position on line 5"));
  auto s = run_command(cli() + " freq -q " + tmp_.str("bad") + " --out " + tmp_.str("sbad"));
  STRATA_EXPECT_CLI_ERROR(s, 1, "bad.bim line 5: cM column 'Inf' is not a decimal number");
  EXPECT_FALSE(fs::exists(tmp_.str("sbad.afreq")));
}

}  // namespace
}  // namespace strata
