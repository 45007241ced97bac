// plink2's input flags on every genotype command: `--bfile P`, `--pfile P`, `--vcf F`, `--bcf F`
// and `--bgen F [--sample S]` write the same bytes as the positional INPUT they stand for (the
// filesets are written by plink2 from a simulated cohort); none or two inputs, and a --pfile
// prefix without its .pgen, are errors; `--memory 4000` is plink2's 4000 MiB.
#include <filesystem>
#include <memory>

#include <nlohmann/json.hpp>

#include "strata/core/config.hpp"
#include "testing/testing.hpp"

namespace strata {
namespace {

namespace fs = std::filesystem;
using strata::testing::read_file;
using strata::testing::run_command;
using strata::testing::TempDir;
using strata::testing::write_file;

std::string cli() { return strata::testing::strata_cli_path(); }
bool have_plink2() { return fs::exists("/usr/bin/plink2"); }

class InputFlags : public ::testing::Test {
 protected:
  // One cohort (bed) for the suite; the plink2 conversions beside it when plink2 is there.
  static void SetUpTestSuite() {
    dir_ = std::make_unique<TempDir>();
    if (!fs::exists(cli())) return;
    const std::string c = dir_->str("c");
    ok_ = run_command(cli() + " simulate -q --samples 40 --variants 300 --missing 0.02 --seed 7 --out " + c).exit_code == 0;
    // FID 0 (simulate writes the population there), so that "#IID" phenotypes match every format.
    std::string fam;
    for (const auto& row : strata::testing::read_rows(c + ".fam")) fam += "0\t" + row.at(1) + "\t0\t0\t0\t-9\n";
    write_file(c + ".fam", fam);
    std::string pheno = "#IID\ty\n";
    for (int i = 0; i < 40; ++i) pheno += "s" + std::to_string(i) + "\t" + std::to_string((i * 37) % 11 * 0.5) + "\n";
    write_file(dir_->str("pheno.txt"), pheno);
    if (!ok_ || !have_plink2()) return;
    const std::string p2 = "/usr/bin/plink2 --silent --bfile " + c + " --out " + c + " ";
    for (const std::string ex : {"--make-pgen", "--export bgen-1.2 bits=8 id-paste=iid", "--export vcf bgz id-paste=iid",
                                 "--export bcf id-paste=iid"}) {
      auto r = run_command(p2 + ex);
      if (r.exit_code != 0) {
        plink2_error_ = ex + ": " + r.output;
        return;
      }
    }
    converted_ = true;
  }
  static void TearDownTestSuite() { dir_.reset(); }
  void SetUp() override {
    if (!fs::exists(cli())) GTEST_SKIP() << "strata CLI not built";
    ASSERT_TRUE(ok_) << "strata simulate failed";
  }
  void need_plink2() {
    if (!have_plink2()) GTEST_SKIP() << strata::testing::kSkipNoPlink2;
    ASSERT_TRUE(converted_) << plink2_error_;
  }
  static std::string c(const std::string& ext = "") { return dir_->str("c" + ext); }
  void run_ok(const std::string& args) {
    auto r = run_command(cli() + " " + args);
    ASSERT_EQ(r.exit_code, 0) << args << "\n" << r.output;
  }
  static std::unique_ptr<TempDir> dir_;
  static bool ok_, converted_;
  static std::string plink2_error_;
  TempDir tmp_;
};
std::unique_ptr<TempDir> InputFlags::dir_;
bool InputFlags::ok_ = false, InputFlags::converted_ = false;
std::string InputFlags::plink2_error_;

struct Command {
  std::string cmd, opts;
  std::vector<std::string> files;
};

std::vector<Command> commands(const std::string& pheno) {
  return {
      {"freq", "", {".afreq", ".vmiss"}},
      {"pca", "-k 2 --threads 2", {".eigenvec", ".eigenval", ".eigenvec.var"}},
      {"grm", "", {".rel", ".rel.id"}},
      {"king", "", {".king", ".king.id"}},
      {"distance", "--metric euclidean", {".dist", ".dist.id"}},
      {"gwas", "--pheno " + pheno, {".y.glm.linear"}},
  };
}

TEST_F(InputFlags, EveryCommandWritesTheSameBytesFromAFlagAsFromItsPositionalForm) {
  need_plink2();
  if (!STRATA_HAVE_HTSLIB) GTEST_SKIP() << "built without htslib (VCF/BCF)";
  fs::create_directories(tmp_.str("lone"));
  fs::copy_file(c(".bgen"), tmp_.str("lone/d.bgen"));  // no d.sample beside it: --sample names it
  const std::vector<std::pair<std::string, std::string>> forms = {
      {"--bfile " + c(), c()},
      {"--pfile " + c(), c(".pgen")},
      {"--vcf " + c(".vcf.gz"), c(".vcf.gz")},
      {"--bcf " + c(".bcf"), c(".bcf")},
      {"--bgen " + c(".bgen"), c(".bgen")},
      {"--bgen " + tmp_.str("lone/d.bgen") + " --sample " + c(".sample"), c(".bgen")},
  };
  for (const Command& k : commands(dir_->str("pheno.txt"))) {
    for (const auto& [flag, positional] : forms) {
      SCOPED_TRACE(k.cmd + " " + flag);
      run_ok(k.cmd + " -q " + flag + " " + k.opts + " --out " + tmp_.str("f"));
      run_ok(k.cmd + " -q " + positional + " " + k.opts + " --out " + tmp_.str("p"));
      for (const std::string& ext : k.files) {
        SCOPED_TRACE(ext);
        const std::string f = read_file(tmp_.str("f" + ext));
        EXPECT_FALSE(f.empty());
        EXPECT_EQ(f, read_file(tmp_.str("p" + ext)));
        fs::remove(tmp_.str("f" + ext));
        fs::remove(tmp_.str("p" + ext));
      }
    }
  }
  // convert: OUTPUT alone after the flag.
  for (const auto& [flag, positional] : forms) {
    SCOPED_TRACE("convert " + flag);
    run_ok("convert -q " + flag + " " + tmp_.str("f.bed"));
    run_ok("convert -q " + positional + " " + tmp_.str("p.bed"));
    for (const std::string ext : {".bed", ".bim", ".fam"}) EXPECT_EQ(read_file(tmp_.str("f" + ext)), read_file(tmp_.str("p" + ext)));
  }
  // The bfile and pfile forms read the same genotypes: the same frequencies.
  run_ok("freq -q --bfile " + c() + " --out " + tmp_.str("b"));
  run_ok("freq -q --pfile " + c() + " --out " + tmp_.str("g"));
  EXPECT_EQ(read_file(tmp_.str("b.afreq")), read_file(tmp_.str("g.afreq")));
}

TEST_F(InputFlags, SampleFileNamesTheBgenSamples) {
  need_plink2();
  // The same samples renamed: the IDs written are --sample's.
  std::string renamed = "ID_1 ID_2 missing sex\n0 0 0 D\n";
  for (int i = 0; i < 40; ++i) renamed += "f" + std::to_string(i) + " r" + std::to_string(i) + " 0 NA\n";
  write_file(tmp_.str("renamed.sample"), renamed);
  run_ok("king -q --bgen " + c(".bgen") + " --sample " + tmp_.str("renamed.sample") + " --out " + tmp_.str("k"));
  const std::string ids = read_file(tmp_.str("k.king.id"));
  EXPECT_NE(ids.find("r39"), std::string::npos) << ids;
  EXPECT_EQ(ids.find("s39"), std::string::npos) << ids;
  // --sample without a BGEN is a usage error.
  auto r = run_command(cli() + " freq -q --bfile " + c() + " --sample " + tmp_.str("renamed.sample") + " --out " + tmp_.str("x"));
  STRATA_EXPECT_CLI_ERROR(r, 2, "--sample names a BGEN's sample file: it needs --bgen");
}

TEST_F(InputFlags, VcfDosageModifierEqualsTheVcfDosageFlag) {
  if (!STRATA_HAVE_HTSLIB) GTEST_SKIP() << "built without htslib (VCF/BCF)";
  write_file(tmp_.str("ds.vcf"),
             "##fileformat=VCFv4.2\n##contig=<ID=1>\n##FORMAT=<ID=GT,Number=1,Type=String,Description=\"g\">\n"
             "##FORMAT=<ID=DS,Number=A,Type=Float,Description=\"d\">\n"
             "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\ts1\ts2\ts3\n"
             "1\t10\tv1\tA\tG\t.\t.\t.\tGT:DS\t0/1:0.6\t1/1:1.9\t0/0:0.2\n"
             "1\t20\tv2\tC\tT\t.\t.\t.\tGT:DS\t0/0:0.1\t0/1:1.2\t0/1:0.7\n");
  const std::string vcf = tmp_.str("ds.vcf");
  run_ok("freq -q --vcf " + vcf + " dosage=DS --out " + tmp_.str("m"));
  run_ok("freq -q " + vcf + " --vcf-dosage DS --out " + tmp_.str("f"));
  run_ok("freq -q --vcf " + vcf + " --out " + tmp_.str("g"));
  const std::string m = read_file(tmp_.str("m.afreq"));
  EXPECT_EQ(m, read_file(tmp_.str("f.afreq")));
  EXPECT_NE(m, read_file(tmp_.str("g.afreq")));  // the dosages were read
  // Dosages only come from a VCF/BCF.
  auto r = run_command(cli() + " freq -q --bfile " + c() + " --vcf-dosage DS --out " + tmp_.str("x"));
  STRATA_EXPECT_CLI_ERROR(r, 2, "--vcf-dosage reads a VCF/BCF FORMAT field: it needs --vcf or --bcf, not --bfile");
}

TEST_F(InputFlags, NoneOrTwoInputsAndAMissingPgenAreErrors) {
  for (const Command& k : commands(dir_->str("pheno.txt"))) {
    SCOPED_TRACE(k.cmd);
    const std::string out = " --out " + tmp_.str("e");
    auto r = run_command(cli() + " " + k.cmd + " -q " + k.opts + out);
    STRATA_EXPECT_CLI_ERROR(r, 2, "no genotype input: give INPUT or one of --bfile, --pfile, --vcf, --bcf, --bgen");
    r = run_command(cli() + " " + k.cmd + " -q " + c() + " --bfile " + c() + " " + k.opts + out);
    STRATA_EXPECT_CLI_ERROR(r, 2, "give one genotype input, got INPUT and --bfile");
    r = run_command(cli() + " " + k.cmd + " -q --bfile " + c() + " --vcf " + c(".vcf.gz") + " " + k.opts + out);
    STRATA_EXPECT_CLI_ERROR(r, 2, "give one genotype input, got --bfile and --vcf");
    r = run_command(cli() + " " + k.cmd + " -q --pfile " + tmp_.str("nope") + " " + k.opts + out);
    STRATA_EXPECT_CLI_ERROR(r, 1, tmp_.str("nope") + ".pgen not found");
    for (const std::string& ext : k.files) EXPECT_FALSE(fs::exists(tmp_.str("e" + ext))) << ext;
  }
  auto r = run_command(cli() + " convert -q " + tmp_.str("o.bed"));
  STRATA_EXPECT_CLI_ERROR(r, 2, "no genotype input");
  r = run_command(cli() + " convert -q --pfile " + tmp_.str("nope") + " " + tmp_.str("o.bed"));
  STRATA_EXPECT_CLI_ERROR(r, 1, tmp_.str("nope") + ".pgen not found");
  EXPECT_FALSE(fs::exists(tmp_.str("o.bed")));
}

TEST_F(InputFlags, MemoryTakesPlink2sMebibytes) {
  for (const Command& k : commands(dir_->str("pheno.txt"))) {
    SCOPED_TRACE(k.cmd);
    const std::string report = tmp_.str(k.cmd + ".json");
    run_ok(k.cmd + " -q --bfile " + c() + " " + k.opts + " --memory 4000 --report " + report + " --out " + tmp_.str("m"));
    const auto j = nlohmann::json::parse(read_file(report));
    EXPECT_EQ(j.at("memory_budget_bytes").get<int64_t>(), int64_t{4000} << 20);
    // Left out: the library's default, the same for every command.
    run_ok(k.cmd + " -q --bfile " + c() + " " + k.opts + " --report " + report + " --out " + tmp_.str("m"));
    const auto d = nlohmann::json::parse(read_file(report));
    EXPECT_GT(d.at("memory_budget_bytes").get<int64_t>(), int64_t{4000} << 20);
  }
  auto r = run_command(cli() + " pca -q --bfile " + c() + " -k 2 --memory 1K --out " + tmp_.str("m"));
  STRATA_EXPECT_CLI_ERROR(r, 2, "--memory: must be a memory size such as 2G");
}

}  // namespace
}  // namespace strata
