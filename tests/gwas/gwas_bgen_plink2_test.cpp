// `strata gwas` straight from a BGEN of 8-bit dosages (plink2's `--export bgen-1.2 bits=8`)
// against `plink2 --bgen F ref-first --glm` on the same file: the route of the issue-35 speed
// goal. plink2's `--dummy` leaves many dosages missing (up to a third of a variant's samples),
// so most rows take the missing-sample correction; one phenotype misses a few samples (the
// group's sums are the row's less its outside samples'), another a third of them (summed over
// the group), and the covariates are random. Rows are plink2's text but P (one unit of its 6th
// digit); the files are the same bytes for 1 and 3 threads.
#include <cmath>
#include <cstdio>
#include <filesystem>
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

double last_digit(double x) { return x == 0 ? 1e-300 : std::pow(10.0, std::floor(std::log10(std::fabs(x))) - 5); }

void run_ok(const std::string& command) {
  auto r = run_command(command);
  ASSERT_EQ(r.exit_code, 0) << command << "\n" << r.output;
}

TEST(GwasBgenPlink2, LinearOnEightBitDosagesMatchesPlink2) {
  if (!fs::exists(strata::testing::strata_cli_path())) GTEST_SKIP() << "strata CLI not built";
  if (!fs::exists(kPlink2)) GTEST_SKIP() << strata::testing::kSkipNoPlink2;
  TempDir dir;
  run_ok("cd " + dir.str() + " && " + kPlink2 +
         " --dummy 600 150 0.05 dosage-freq=0.3 --seed 11 --threads 1 --export bgen-1.2 bits=8 ref-first --out d");
  // IDs from the .sample file (ID_2).
  std::istringstream sample(read_file(dir.str("d.sample")));
  std::string line;
  std::vector<std::string> ids;
  for (int i = 0; std::getline(sample, line); ++i)
    if (i >= 2) {
      std::istringstream ls(line);
      std::string id1, id2;
      ls >> id1 >> id2;
      ids.push_back(id2);
    }
  ASSERT_EQ(ids.size(), 600u);
  std::mt19937_64 rng(35);
  std::normal_distribution<double> z(0.0, 1.0);
  std::ostringstream ph, cv;
  ph << "#IID\tFEW\tMANY\n";
  cv << "#IID\tC1\tC2\tC3\n";
  for (size_t s = 0; s < ids.size(); ++s) {
    double c[3];
    for (double& x : c) x = z(rng);
    char buf[96];
    std::snprintf(buf, sizeof buf, "%.6f\t%.6f", 0.3 * c[0] + z(rng), z(rng) - 0.2 * c[2]);
    std::string few = buf, many = few.substr(few.find('\t') + 1);
    few = few.substr(0, few.find('\t'));
    ph << ids[s] << '\t' << (s % 29 == 3 ? "NA" : few) << '\t' << (s % 3 == 1 ? "NA" : many) << '\n';
    std::snprintf(buf, sizeof buf, "%.6f\t%.6f\t%.6f", c[0], c[1], c[2]);
    cv << ids[s] << '\t' << buf << '\n';
  }
  strata::testing::write_file(dir.str("pheno.txt"), ph.str());
  strata::testing::write_file(dir.str("covar.txt"), cv.str());
  const std::string common =
      " --pheno " + dir.str("pheno.txt") + " --pheno-name FEW,MANY --covar " + dir.str("covar.txt");
  run_ok(std::string(kPlink2) + " --bgen " + dir.str("d.bgen") + " ref-first --sample " + dir.str("d.sample") + common +
         " --glm hide-covar --threads 2 --out " + dir.str("p"));
  for (const char* threads : {"1", "3"})
    run_ok(strata::testing::strata_cli_path() + " gwas " + dir.str("d.bgen") + common + " --threads " + threads +
           " -q --out " + dir.str(std::string("s") + threads));

  for (const char* pheno : {"FEW", "MANY"}) {
    const std::string file = std::string(".") + pheno + ".glm.linear";
    EXPECT_EQ(read_file(dir.str("s1" + file)), read_file(dir.str("s3" + file))) << pheno << ": 1 vs 3 threads";
    const auto a = strata::testing::read_rows(dir.str("s1" + file));
    const auto b = strata::testing::read_rows(dir.str("p" + file));
    ASSERT_EQ(a.size(), b.size()) << pheno;
    ASSERT_EQ(a.size(), 151u) << pheno;
    EXPECT_EQ(a[0], b[0]);
    int64_t with_missing = 0, p_digit = 0;
    const int64_t tested = std::string(pheno) == "FEW" ? 579 : 400;
    for (size_t i = 1; i < a.size(); ++i) {
      ASSERT_EQ(a[i].size(), b[i].size()) << pheno << " row " << i;
      for (size_t c = 0; c < a[i].size(); ++c) {
        if (a[0][c] == "P" && a[i][c] != b[i][c] && a[i][c] != "NA") {
          EXPECT_LE(std::fabs(std::stod(a[i][c]) - std::stod(b[i][c])), 1.01 * last_digit(std::stod(b[i][c])))
              << pheno << " row " << i;
          ++p_digit;
          continue;
        }
        EXPECT_EQ(a[i][c], b[i][c]) << pheno << " row " << i << " column " << a[0][c];
      }
      if (a[0][7] == "OBS_CT") with_missing += std::stoll(a[i][7]) < tested;
    }
    EXPECT_LE(p_digit, 15) << pheno;
    EXPECT_GE(with_missing, 100) << pheno << ": rows with a missing dosage (the correction's path)";
  }
}

}  // namespace
}  // namespace strata
