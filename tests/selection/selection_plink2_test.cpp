// Sample and variant selection (--keep … --maf) against Debian's plink2 2.00a3.5 with the same
// flags, on HapMap3 and the PLINK edge-case file: the kept samples/variants and genotypes
// (`strata convert` vs `plink2 --make-bed`, byte for byte), each step's counts, freq, grm and
// exact-PCA eigenvalues, HWE p-values vs `--hardy`, and bad input.
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <vector>

#include "strata/genomics/qc.hpp"
#include "testing/testing.hpp"

namespace strata {
namespace {

namespace fs = std::filesystem;
using strata::testing::read_file;
using strata::testing::run_command;
using strata::testing::TempDir;
using strata::testing::write_file;

const char* kPlink2 = "/usr/bin/plink2";
std::string cli() { return strata::testing::strata_cli_path(); }
std::vector<std::vector<std::string>> table(const std::string& path) { return strata::testing::read_rows(path, ' '); }


// Column `c` of every row of a whitespace table (from row `skip`).
std::vector<std::string> column(const std::string& path, size_t c, size_t skip = 0) {
  std::vector<std::string> out;
  const auto t = table(path);
  for (size_t i = skip; i < t.size(); ++i) out.push_back(c < t[i].size() ? t[i][c] : "");
  return out;
}

class SelectionPlink2 : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(cli())) GTEST_SKIP() << "strata CLI not built";
    if (!fs::exists(kPlink2)) GTEST_SKIP() << strata::testing::kSkipNoPlink2;
    const std::string data = strata::testing::shared_data_dir();
    if (data.empty()) GTEST_SKIP() << strata::testing::kSkipNoSharedData;
    hapmap_ = data + "/hapmap3/HM3_thinned_autosomal_overlap";
    edge_ = data + "/plink/plink_sim_10s_100v_10pmiss";
    if (!fs::exists(hapmap_ + ".bed") || !fs::exists(edge_ + ".bed")) GTEST_SKIP() << strata::testing::kSkipNoSharedData;
    // Selection files used below: every third HapMap3 sample (.fam lines, so a .fam works),
    // a #FID IID file with IDs absent from the data, every 50th variant ID.
    std::ofstream keep(dir_.str("keep3.fam")), rm(dir_.str("remove.txt")), ex(dir_.str("ex50.txt"));
    const auto fam = table(hapmap_ + ".fam");
    for (size_t i = 0; i < fam.size(); ++i) {
      if (i % 3 == 2) keep << fam[i][0] << ' ' << fam[i][1] << " 0 0 1 2\n";
    }
    rm << "#FID\tIID\n" << fam[5][0] << '\t' << fam[5][1] << "\nNOFAM NOSAMPLE\n" << fam[8][0] << ' ' << fam[8][1] << '\n';
    const auto ids = column(hapmap_ + ".bim", 1);
    for (size_t i = 49; i < ids.size(); i += 50) ex << ids[i] << (i % 100 == 49 ? ' ' : '\n');
    ex << "rs_not_in_data\n";
  }
  std::string f(const std::string& name) { return dir_.str(name); }
  testing::CommandResult plink2(const std::string& bfile, const std::string& args, const std::string& out) {
    return run_command(std::string(kPlink2) + " --bfile " + bfile + " " + args + " --threads 2 --out " + f(out) +
                       " > /dev/null 2>&1");
  }
  std::string hapmap_, edge_;
  TempDir dir_;
};

// The flag sets tried on each input, alone and combined.
std::vector<std::string> flag_sets(const std::string& keep, const std::string& remove, const std::string& ex) {
  return {"--keep " + keep,
          "--remove " + remove,
          "--exclude " + ex,
          "--extract " + ex,
          "--chr 1-4,22,X",
          "--chr 3 --from-bp 1000000 --to-bp 60000000.5",
          "--maf 0.1",
          "--geno 0.02",
          "--mind 0.02",
          "--hwe 1e-3",
          "--keep " + keep + " --remove " + remove + " --exclude " + ex + " --chr 1-4,22 --mind 0.02 --geno 0.02 " +
              "--hwe 1e-4 --maf 0.05"};
}

// The kept samples, variants and genotypes equal plink2's (.bed bytes, .bim IDs, .fam IDs),
// and each step removes what plink2's log says it removed.
TEST_F(SelectionPlink2, ConvertEqualsPlink2MakeBedForEveryFlag) {
  int run = 0;
  for (const std::string& flags : flag_sets(f("keep3.fam"), f("remove.txt"), f("ex50.txt"))) {
    SCOPED_TRACE(flags);
    const std::string s = "s" + std::to_string(run), p = "p" + std::to_string(run++);
    auto r = plink2(hapmap_, flags + " --make-bed", p);
    ASSERT_EQ(r.exit_code, 0) << read_file(f(p + ".log"));
    r = run_command(cli() + " convert " + hapmap_ + " " + f(s + ".bed") + " " + flags + " --report " + f(s + ".json"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(column(f(s + ".bim"), 1), column(f(p + ".bim"), 1));
    EXPECT_EQ(column(f(s + ".fam"), 1), column(f(p + ".fam"), 1));
    EXPECT_TRUE(read_file(f(s + ".bed")) == read_file(f(p + ".bed"))) << ".bed bytes differ";
    // Step counts as plink2 logs them.
    const std::string log = read_file(f(p + ".log"));
    const auto rep = nlohmann::json::parse(read_file(f(s + ".json")))["selection"];
    auto count_before = [&](const std::string& what) -> int64_t {
      std::smatch m;
      if (!std::regex_search(log, m, std::regex("([0-9]+) " + what))) return -1;
      return std::stoll(m[1]);
    };
    if (flags.find("--geno") != std::string::npos)
      EXPECT_EQ(rep["removed_geno"].get<int64_t>(), count_before("variants? removed due to missing genotype data"));
    if (flags.find("--hwe") != std::string::npos)
      EXPECT_EQ(rep["removed_hwe"].get<int64_t>(), count_before("variants? removed due to Hardy-Weinberg"));
    if (flags.find("--maf") != std::string::npos)
      EXPECT_EQ(rep["removed_maf"].get<int64_t>(), count_before("variants? removed due to allele frequency"));
    if (flags.find("--mind") != std::string::npos)
      EXPECT_EQ(rep["removed_mind"].get<int64_t>(), count_before("samples? removed due to missing genotype data"));
  }
}

// The edge-case file (10 samples, FID 0, 10 % missing calls): IID-only and #IID keep files,
// rates that hit thresholds exactly (1 of 10 missing with --geno 0.1 is kept), a range.
TEST_F(SelectionPlink2, EdgeFileThresholdsAndIdFormats) {
  write_file(f("iid.txt"), "000\n003\n004\n007\n008\n009\n");
  write_file(f("hdr.txt"), "#IID\tSEX\n001 1\n003 2\n");
  int run = 0;
  for (const std::string& flags : std::vector<std::string>{"--keep " + f("iid.txt"), "--remove " + f("hdr.txt"), "--geno 0.1", "--geno 0.2", "--mind 0.1",
        "--mind 0.1 --geno 0.1", "--maf 0.2", "--maf 0.3 --hwe 0.05", "--hwe 0.2", "--chr 1 --from-bp 10 --to-bp 50",
        "--keep " + f("iid.txt") + " --mind 0.13 --geno 0.1 --hwe 0.01 --maf 0.1"}) {
    SCOPED_TRACE(flags);
    const std::string s = "e" + std::to_string(run), p = "q" + std::to_string(run++);
    auto r = plink2(edge_, flags + " --make-bed", p);
    ASSERT_EQ(r.exit_code, 0) << read_file(f(p + ".log"));
    r = run_command(cli() + " convert " + edge_ + " " + f(s + ".bed") + " " + flags + " -q");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(column(f(s + ".bim"), 1), column(f(p + ".bim"), 1));
    EXPECT_EQ(column(f(s + ".fam"), 1), column(f(p + ".fam"), 1));
    EXPECT_TRUE(read_file(f(s + ".bed")) == read_file(f(p + ".bed"))) << ".bed bytes differ";
  }
}

// `strata freq` with selection flags = plink2 --freq / --missing on plink2's selected fileset
// (plink2 writes --freq before its --geno/--hwe/--maf step, so the flags go to --make-bed).
TEST_F(SelectionPlink2, FreqEqualsPlink2OnTheSelection) {
  const std::string flags = "--keep " + f("keep3.fam") + " --exclude " + f("ex50.txt") + " --geno 0.01 --maf 0.02";
  auto r = plink2(hapmap_, flags + " --make-bed", "p");
  ASSERT_EQ(r.exit_code, 0) << read_file(f("p.log"));
  r = plink2(f("p"), "--freq --missing variant-only", "pf");
  ASSERT_EQ(r.exit_code, 0) << read_file(f("pf.log"));
  r = run_command(cli() + " freq " + hapmap_ + " " + flags + " -q --out " + f("sf"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(read_file(f("sf.afreq")), read_file(f("pf.afreq")));
  EXPECT_EQ(read_file(f("sf.vmiss")), read_file(f("pf.vmiss")));
}

// `strata grm` vs plink2 --make-rel bin (square float64) with the same flags.
TEST_F(SelectionPlink2, GrmEqualsPlink2MakeRel) {
  const std::string flags = "--remove " + f("remove.txt") + " --chr 1-6 --maf 0.05 --hwe 1e-6 --geno 0.05";
  auto r = plink2(hapmap_, flags + " --make-rel bin", "p");
  ASSERT_EQ(r.exit_code, 0) << read_file(f("p.log"));
  r = run_command(cli() + " grm " + hapmap_ + " " + flags + " --format rel-bin -q --out " + f("s"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(read_file(f("s.rel.id")), read_file(f("p.rel.id")));
  const std::string a = read_file(f("s.rel.bin")), b = read_file(f("p.rel.bin"));
  ASSERT_EQ(a.size(), b.size());
  double worst = 0;
  for (size_t i = 0; i < a.size() / 8; ++i) {
    double x, y;
    std::memcpy(&x, a.data() + 8 * i, 8);
    std::memcpy(&y, b.data() + 8 * i, 8);
    worst = std::max(worst, std::fabs(x - y));
  }
  EXPECT_LT(worst, 5e-8);  // the GRM's float32 panels (tests/grm)
}

// Exact PCA eigenvalues vs plink2 --pca meanimpute (strata mean-imputes) with the same flags, to
// plink2's printed digits.
TEST_F(SelectionPlink2, ExactPcaEigenvaluesEqualPlink2) {
  const std::string flags = "--keep " + f("keep3.fam") + " --chr 1-11 --mind 0.05 --geno 0.02 --maf 0.05 --hwe 1e-5";
  auto r = plink2(hapmap_, flags + " --pca 6 meanimpute", "p");
  ASSERT_EQ(r.exit_code, 0) << read_file(f("p.log"));
  r = run_command(cli() + " pca " + hapmap_ + " -k 6 --method exact " + flags + " -q --out " + f("s"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto mine = column(f("s.eigenval"), 0), theirs = column(f("p.eigenval"), 0);
  ASSERT_EQ(mine.size(), theirs.size());
  for (size_t i = 0; i < mine.size(); ++i) {
    const double x = std::stod(mine[i]), y = std::stod(theirs[i]);
    EXPECT_NEAR(x, y, 1e-5 * y) << "PC" << i + 1;
  }
  EXPECT_EQ(column(f("s.eigenvec"), 1, 1), column(f("p.eigenvec"), 1, 1));
}

// KING with a selection vs plink2 --make-king-table on the same samples and variants.
TEST_F(SelectionPlink2, KingTableEqualsPlink2) {
  const std::string flags = "--keep " + f("keep3.fam") + " --chr 2,5 --geno 0.01";
  auto r = plink2(hapmap_, flags + " --make-king-table", "p");
  ASSERT_EQ(r.exit_code, 0) << read_file(f("p.log"));
  r = run_command(cli() + " king " + hapmap_ + " --table " + flags + " -q --out " + f("s"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto a = table(f("s.kin0")), b = table(f("p.kin0"));
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 1; i < a.size(); ++i) {
    ASSERT_EQ(a[i].size(), b[i].size());
    for (size_t c = 0; c < 6; ++c) EXPECT_EQ(a[i][c], b[i][c]) << "row " << i;  // IDs, NSNP, HETHET
    EXPECT_NEAR(std::stod(a[i][7]), std::stod(b[i][7]), 1.5e-6) << "row " << i;  // printed digits (NOTES: near-ties)
  }
}

// Every HWE p-value prints as plink2 --hardy prints it (HapMap3 and the edge file: ties,
// missing calls, small counts).
TEST_F(SelectionPlink2, HweExactPEqualsPlink2Hardy) {
  for (const std::string& bfile : {hapmap_, edge_}) {
    auto r = plink2(bfile, "--hardy", "h");
    ASSERT_EQ(r.exit_code, 0) << read_file(f("h.log"));
    const auto t = table(f("h.hardy"));
    ASSERT_GT(t.size(), 1u);
    for (size_t i = 1; i < t.size(); ++i) {
      const double p = genomics::hwe_exact_p(std::stoll(t[i][5]), std::stoll(t[i][4]), std::stoll(t[i][6]));
      char buf[32];
      std::snprintf(buf, sizeof buf, "%g", p);
      EXPECT_EQ(buf, t[i][9]) << t[i][1];
    }
  }
}

// Bad input: exit code, message, no output left.
TEST_F(SelectionPlink2, BadInputFailsClearly) {
  const std::string freq = cli() + " freq " + hapmap_ + " --out " + f("o");
  write_file(f("none.txt"), "NOFAM NOSAMPLE\n");
  write_file(f("nohdr.txt"), "#FID SEX\n1 2\n");
  write_file(f("short.txt"), "#FID IID\n2431\n");
  struct Case {
    std::string args, message;
    int code;
  };
  const std::vector<Case> cases = {
      {"--keep " + f("none.txt"), "no samples left after --keep (957 in the input)", 1},
      {"--maf 0.6", "no variants left after --maf", 2},
      {"--chr 7 --from-bp 5 --to-bp 10", "no variants left after --from-bp/--to-bp", 1},
      {"--chr X", "no variants left after --chr", 1},
      {"--from-bp 10 --to-bp 20", "--from-bp/--to-bp need --chr naming exactly one chromosome", 2},
      {"--chr 1,2 --from-bp 10", "--from-bp/--to-bp need --chr naming exactly one chromosome, got --chr '1,2'", 2},
      {"--chr 1 --from-bp 20 --to-bp 10", "--to-bp (10) must not be below --from-bp (20)", 2},
      {"--chr 1 --from-bp 1e3x", "--from-bp: must be a number, got '1e3x'", 2},
      {"--geno 1.5", "--geno: must be a number from 0 to 1, got 1.5", 2},
      {"--mind abc", "--mind: must be a number from 0 to 1, got 'abc'", 2},
      {"--hwe 0", "--hwe: must be a p-value above 0 and below 1, got 0", 2},
      {"--chr 4-2", "--chr: range '4-2' ends before it starts", 2},
      {"--keep " + f("missing.txt"), "missing.txt: no such file", 1},
      {"--remove " + f("nohdr.txt"), "nohdr.txt line 1: the header names no IID column", 1},
      {"--keep " + f("short.txt"), "short.txt line 2: expected at least 2 columns", 1},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.args);
    auto r = run_command(freq + " " + c.args);
    if (c.args == "--maf 0.6") {
      STRATA_EXPECT_CLI_ERROR(r, 2, "--maf: must be a number from 0 to 0.5, got 0.6");
    } else {
      STRATA_EXPECT_CLI_ERROR(r, c.code, c.message);
    }
    EXPECT_FALSE(fs::exists(f("o.afreq")));
    EXPECT_FALSE(fs::exists(f("o.vmiss")));
  }
  // IDs that match nothing are ignored with a warning, as plink2 ignores them.
  auto r = run_command(freq + " --remove " + f("remove.txt") + " -q --report " + f("r.json"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, ::testing::HasSubstr("--remove: 1 ID not in the data (ignored)"));
  const auto rep = nlohmann::json::parse(read_file(f("r.json")))["selection"];
  EXPECT_EQ(rep["samples"].get<int64_t>(), 955);
  EXPECT_EQ(rep["remove_unmatched"].get<int64_t>(), 1);
}

}  // namespace
}  // namespace strata
