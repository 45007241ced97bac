// `strata gwas` and `strata freq` on fractional dosages (imputed data) against Debian's plink2
// 2.00a3.5 reading the same values from a VCF `DS` field (`--vcf x.vcf dosage=DS`), and
// `strata gwas` on a plink2-written 8-bit BGEN against `plink2 --bgen` (last test).
//
// strata reads them as a float64 `dosage` array in a Zarr store with VCF Zarr metadata (made by
// `strata convert` of a GT-only VCF of the same sites, its calls then removed). The DS values
// have 3 decimals; plink2 rounds them to 1/16384 on import and strata's float route does the
// same (io/genotype_dosage.hpp), so the numbers are computed from the same dosages.
//
// Equal means (as tests/gwas/gwas_plink2_test.cpp): linear rows are plink2's text but P (one
// unit of its 6th digit); logistic identity columns, A1, A1_FREQ, OBS_CT, FIRTH? and ERRCODE
// are identical, OR and SE within plink2's single-precision error (1e-5, 3e-5) on variants
// without a missing dosage; on the others plink2 is off (OR up to 2 %, SE up to 15 %) and strata
// equals statsmodels' float64 fit on the complete cases to its printed digits
// (python/tests/test_gwas_dosage_statsmodels.py); `.afreq` identical.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <random>
#include <sstream>
#include <vector>

#include "strata/io/zarr.hpp"
#include "testing/testing.hpp"

namespace strata {
namespace {

namespace fs = std::filesystem;
using strata::testing::read_file;
using strata::testing::run_command;
using strata::testing::TempDir;
using Table = std::vector<std::vector<std::string>>;

const char* kPlink2 = "/usr/bin/plink2";
constexpr int64_t kSamples = 400, kVariants = 80;

double last_digit(double x) { return x == 0 ? 1e-300 : std::pow(10.0, std::floor(std::log10(std::fabs(x))) - 5); }

class GwasDosagePlink2 : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(strata::testing::strata_cli_path())) GTEST_SKIP() << "strata CLI not built";
    if (!fs::exists(kPlink2)) GTEST_SKIP() << strata::testing::kSkipNoPlink2;
    make_data();
  }

  // Dosages (3 decimals, NaN missing) of variants with frequencies 0.02..0.6: most samples
  // uncertain (a call blurred by noise), some exact calls; 3 % missing on every 4th variant;
  // variant 5 constant (all 0), variant 6 all 1.000 but one sample.
  void make_data() {
    std::mt19937_64 rng(20261129);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::normal_distribution<double> z(0.0, 1.0);
    ds_.assign(static_cast<size_t>(kVariants * kSamples), 0.0);
    for (int64_t v = 0; v < kVariants; ++v) {
      const double p = 0.02 + 0.58 * u(rng);
      for (int64_t s = 0; s < kSamples; ++s) {
        double& d = ds_[static_cast<size_t>(v * kSamples + s)];
        const double call = (u(rng) < p) + (u(rng) < p);
        d = u(rng) < 0.7 ? call + 0.35 * z(rng) : call;
        d = std::round(std::fmin(2.0, std::fmax(0.0, d)) * 1000) / 1000;
        if (v % 4 == 3 && u(rng) < 0.03) d = std::nan("");
        if (v == 5) d = 0.0;
        if (v == 6) d = s == 17 ? 1.5 : 1.0;
      }
    }
    // Phenotypes from the dosages of variants 0 and 1 and two covariates; a missing value each.
    std::ostringstream ph, cv, ds_vcf, gt_vcf;
    ph << "#IID\tQT\tBT\n";
    cv << "#IID\tC1\tC2\n";
    for (int64_t s = 0; s < kSamples; ++s) {
      const double c1 = z(rng), c2 = u(rng) < 0.5 ? 1 : 0;
      const double d0 = std::isnan(ds_[s]) ? 0 : ds_[s], d1 = ds_[kSamples + s];
      const double qt = 0.4 * d0 + 0.3 * c1 - 0.5 * c2 + z(rng);
      const double eta = -0.5 + 0.6 * d1 + 0.4 * c1;
      const int bt = u(rng) < 1 / (1 + std::exp(-eta)) ? 2 : 1;
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.6f", qt);
      ph << 's' << s << '\t' << (s == 3 ? "NA" : buf) << '\t' << (s == 8 ? "NA" : std::to_string(bt)) << '\n';
      std::snprintf(buf, sizeof buf, "%.6f\t%d", c1, static_cast<int>(c2));
      cv << 's' << s << '\t' << buf << '\n';
    }
    // The same sites twice: DS for plink2, GT (the metadata strata converts) for strata.
    const std::string head =
        "##fileformat=VCFv4.2\n##contig=<ID=1>\n##contig=<ID=2>\n"
        "##FORMAT=<ID=DS,Number=A,Type=Float,Description=\"ALT dosage\">\n"
        "##FORMAT=<ID=GT,Number=1,Type=String,Description=\"Genotype\">\n#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT";
    ds_vcf << head;
    gt_vcf << head;
    for (int64_t s = 0; s < kSamples; ++s) ds_vcf << "\ts" << s, gt_vcf << "\ts" << s;
    ds_vcf << '\n';
    gt_vcf << '\n';
    const char* bases = "ACGT";
    for (int64_t v = 0; v < kVariants; ++v) {
      const std::string site = std::string(v < 60 ? "1" : "2") + '\t' + std::to_string(1000 + 37 * v) + "\trs" +
                               std::to_string(v) + '\t' + bases[v % 4] + '\t' + bases[(v + 1) % 4] + "\t.\t.\t.\t";
      ds_vcf << site << "DS";
      gt_vcf << site << "GT";
      for (int64_t s = 0; s < kSamples; ++s) {
        const double d = ds_[static_cast<size_t>(v * kSamples + s)];
        char buf[16];
        std::snprintf(buf, sizeof buf, "%.3f", d);
        ds_vcf << '\t' << (std::isnan(d) ? "." : buf);
        gt_vcf << "\t0/0";
      }
      ds_vcf << '\n';
      gt_vcf << '\n';
    }
    strata::testing::write_file(dir_.str("pheno.txt"), ph.str());
    strata::testing::write_file(dir_.str("covar.txt"), cv.str());
    strata::testing::write_file(dir_.str("ds.vcf"), ds_vcf.str());
    strata::testing::write_file(dir_.str("gt.vcf"), gt_vcf.str());
  }

  // x.vcz: the GT VCF's metadata, its calls replaced by a float64 `dosage` array.
  void write_dosage_store() {
    const std::string store = dir_.str("x.vcz");
    auto r = run_command(strata::testing::strata_cli_path() + " convert " + dir_.str("gt.vcf") + " " + store + " -q");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    for (const char* calls : {"call_genotype", "call_genotype_mask", "call_genotype_phased"})
      fs::remove_all(fs::path(store) / calls);
    auto st = io::LocalStore::open(store, false);
    ASSERT_TRUE(st.ok()) << st.status().to_string();
    io::ZarrCreateOptions co;
    co.shape = {kVariants, kSamples};
    co.chunks = {16, kSamples};
    co.dtype = dtype_of<double>();
    co.fill_value = "NaN";
    auto a = io::ZarrArray::create(*st, "dosage", co);
    ASSERT_TRUE(a.ok()) << a.status().to_string();
    STRATA_ASSERT_OK(a->write_region({0, 0}, {kVariants, kSamples}, ds_.data()));
  }

  void run_ok(const std::string& command) {
    auto r = run_command(command);
    ASSERT_EQ(r.exit_code, 0) << command << "\n" << r.output;
  }

  Table table(const std::string& name) { return strata::testing::read_rows(dir_.str(name)); }

  std::vector<double> ds_;
  TempDir dir_;
};

TEST_F(GwasDosagePlink2, LinearLogisticAndFreqMatchPlink2OnDsDosages) {
  write_dosage_store();
  if (HasFatalFailure()) return;
  const std::string common = " --pheno " + dir_.str("pheno.txt") + " --pheno-name QT,BT --covar " + dir_.str("covar.txt");
  run_ok(std::string(kPlink2) + " --vcf " + dir_.str("ds.vcf") + " dosage=DS" + common +
         " --glm hide-covar cols=+a1freq --freq --threads 2 --out " + dir_.str("p"));
  run_ok(strata::testing::strata_cli_path() + " gwas " + dir_.str("x.vcz") + common + " --cols a1freq -q --out " +
         dir_.str("s"));
  run_ok(strata::testing::strata_cli_path() + " freq " + dir_.str("x.vcz") + " -q --out " + dir_.str("s"));

  // .afreq: plink2's text (frequencies from the dosages, OBS_CT 2 × samples with a dosage).
  EXPECT_EQ(read_file(dir_.str("s.afreq")), read_file(dir_.str("p.afreq")));

  // Linear: plink2's text but P's last digit.
  const Table a = table("s.QT.glm.linear"), b = table("p.QT.glm.linear");
  ASSERT_EQ(a.size(), b.size());
  ASSERT_EQ(a.size(), static_cast<size_t>(kVariants + 1));
  EXPECT_EQ(a[0], b[0]);
  int64_t p_digit = 0, fractional_obs = 0;
  for (size_t i = 1; i < a.size(); ++i) {
    ASSERT_EQ(a[i].size(), b[i].size()) << i;
    for (size_t c = 0; c < a[i].size(); ++c) {
      if (a[0][c] == "P" && a[i][c] != b[i][c] && a[i][c] != "NA") {
        EXPECT_LE(std::fabs(std::stod(a[i][c]) - std::stod(b[i][c])), 1.01 * last_digit(std::stod(b[i][c]))) << i;
        ++p_digit;
        continue;
      }
      EXPECT_EQ(a[i][c], b[i][c]) << "linear row " << i << " column " << a[0][c];
    }
    fractional_obs += a[i][a[0].size() - 1] == ".";
  }
  EXPECT_LE(p_digit, kVariants / 10);
  EXPECT_EQ(a[6].back(), "CONST_OMITTED_ALLELE");  // variant 5: every dosage 0
  EXPECT_EQ(a[7].back(), ".");                     // variant 6: one dosage differs
  EXPECT_GE(fractional_obs, kVariants - 2);

  // Logistic (hybrid): identical decisions and columns to OBS_CT; OR within plink2's float error.
  const Table la = table("s.BT.glm.logistic.hybrid"), lb = table("p.BT.glm.logistic.hybrid");
  ASSERT_EQ(la.size(), lb.size());
  EXPECT_EQ(la[0], lb[0]);
  std::map<std::string, size_t> col;
  for (size_t c = 0; c < la[0].size(); ++c) col[la[0][c]] = c;
  double worst_or = 0, worst_se = 0;
  for (size_t i = 1; i < la.size(); ++i) {
    ASSERT_EQ(la[i].size(), lb[i].size()) << i;
    for (size_t c = 0; c < col.at("OR"); ++c) EXPECT_EQ(la[i][c], lb[i][c]) << "logistic row " << i << " " << la[0][c];
    EXPECT_EQ(la[i].back(), lb[i].back()) << "logistic row " << i;
    if (lb[i][col.at("OR")] == "NA") {
      EXPECT_EQ(la[i][col.at("OR")], "NA");
      continue;
    }
    const bool missing = (i - 1) % 4 == 3;
    const double rel = std::fabs(std::stod(la[i][col.at("OR")]) / std::stod(lb[i][col.at("OR")]) - 1);
    const double se_rel =
        std::fabs(std::stod(la[i][col.at("LOG(OR)_SE")]) / std::stod(lb[i][col.at("LOG(OR)_SE")]) - 1);
    if (!missing) worst_or = std::fmax(worst_or, rel), worst_se = std::fmax(worst_se, se_rel);
    EXPECT_LE(se_rel, missing ? 0.15 : 3e-5) << "logistic row " << i << " SE";
    EXPECT_LE(rel, missing ? 2e-2 : 1e-5) << "logistic row " << i << " OR " << la[i][col.at("OR")] << " vs "
                                           << lb[i][col.at("OR")];
  }
  std::printf("dosage gwas: P last digit differs in %lld of %lld linear rows; logistic OR within %.2g, SE %.2g\n",
              static_cast<long long>(p_digit), static_cast<long long>(kVariants), worst_or, worst_se);

  // Firth on every variant: the same decisions; plink2's float Firth iteration within 1.5e-3.
  const std::string bt = " --pheno " + dir_.str("pheno.txt") + " --pheno-name BT --covar " + dir_.str("covar.txt");
  run_ok(std::string(kPlink2) + " --vcf " + dir_.str("ds.vcf") + " dosage=DS" + bt +
         " --glm hide-covar firth --threads 2 --out " + dir_.str("pf"));
  run_ok(strata::testing::strata_cli_path() + " gwas " + dir_.str("x.vcz") + bt + " --firth always -q --out " +
         dir_.str("sf"));
  const Table fa = table("sf.BT.glm.firth"), fb = table("pf.BT.glm.firth");
  ASSERT_EQ(fa.size(), fb.size());
  EXPECT_EQ(fa[0], fb[0]);
  std::map<std::string, size_t> fcol;
  for (size_t c = 0; c < fa[0].size(); ++c) fcol[fa[0][c]] = c;
  const size_t f_or = fcol.at("OR");
  for (size_t i = 1; i < fa.size(); ++i) {
    ASSERT_EQ(fa[i].size(), fb[i].size()) << i;
    for (size_t c = 0; c < f_or; ++c) EXPECT_EQ(fa[i][c], fb[i][c]) << "firth row " << i << " " << fa[0][c];
    EXPECT_EQ(fa[i].back(), fb[i].back()) << "firth row " << i;
    if (fb[i][f_or] == "NA") continue;
    const bool missing = (i - 1) % 4 == 3;
    EXPECT_LE(std::fabs(std::stod(fa[i][f_or]) / std::stod(fb[i][f_or]) - 1), missing ? 2e-2 : 1.5e-3) << "firth row " << i;
  }
}

// --maf uses the dosages' frequencies (plink2 removes the same variants); --geno the hard calls'
// missingness (dosages further than 0.1 from a call are missing hard calls, as in plink2).
TEST_F(GwasDosagePlink2, MafAndGenoFilterAsPlink2) {
  write_dosage_store();
  if (HasFatalFailure()) return;
  for (const std::string filter : {"--maf 0.15", "--geno 0.35"}) {
    // plink2's .afreq is taken before its filters: the variants kept are its --write-snplist.
    run_ok(std::string(kPlink2) + " --vcf " + dir_.str("ds.vcf") + " dosage=DS " + filter +
           " --write-snplist --threads 2 --out " + dir_.str("pf"));
    run_ok(strata::testing::strata_cli_path() + " freq " + dir_.str("x.vcz") + " " + filter + " -q --out " +
           dir_.str("sf"));
    std::string kept;
    for (const auto& row : table("sf.afreq"))
      if (row[0][0] != '#') kept += row[1] + "\n";
    EXPECT_EQ(kept, read_file(dir_.str("pf.snplist"))) << filter;
    const auto rows = std::count(kept.begin(), kept.end(), '\n');
    EXPECT_GT(rows, 5) << filter;
    EXPECT_LT(rows, kVariants) << filter << " removes some variants";
  }
}

// `strata gwas` straight from a BGEN of 8-bit dosages (plink2's `--export bgen-1.2 bits=8`)
// against `plink2 --bgen F ref-first --glm` on the same file: the route of the issue-35 speed
// goal. plink2's `--dummy` leaves many dosages missing (up to a third of a variant's samples),
// so most rows take the missing-sample correction; one phenotype misses a few samples (the
// group's sums are the row's less its outside samples'), another a third of them (summed over
// the group), and the covariates are random. Rows are plink2's text but P (one unit of its 6th
// digit); the files are the same bytes for 1 and 3 threads.
void run_or_fail(const std::string& command) {
  auto r = run_command(command);
  ASSERT_EQ(r.exit_code, 0) << command << "\n" << r.output;
}

TEST(GwasDosagePlink2Bgen, LinearOnEightBitDosagesMatchesPlink2) {
  if (!fs::exists(strata::testing::strata_cli_path())) GTEST_SKIP() << "strata CLI not built";
  if (!fs::exists(kPlink2)) GTEST_SKIP() << strata::testing::kSkipNoPlink2;
  TempDir dir;
  run_or_fail("cd " + dir.str() + " && " + kPlink2 +
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
  run_or_fail(std::string(kPlink2) + " --bgen " + dir.str("d.bgen") + " ref-first --sample " + dir.str("d.sample") + common +
         " --glm hide-covar --threads 2 --out " + dir.str("p"));
  for (const char* threads : {"1", "3"})
    run_or_fail(strata::testing::strata_cli_path() + " gwas " + dir.str("d.bgen") + common + " --threads " + threads +
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
