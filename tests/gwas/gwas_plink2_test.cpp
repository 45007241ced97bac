// `strata gwas` end to end against Debian's plink2 2.00a3.5 `--glm hide-covar` on HapMap3:
// simulated quantitative and case/control phenotypes (fixed seed, missing values), 3 covariates
// + 4 PCs, the calls' own missing genotypes; a 60-sample subset for constant variants; Firth
// modes; bad input (exit code, message, nothing written).
//
// What "equal" means (NOTES.md, issue 15): linear rows are plink2's text in every column but P,
// which may differ by one unit in its 6th digit (plink2's t tail is ~1e-7 off; strata's is the
// accurate one). plink2 2.00a3.5 fits logistic and Firth models in single precision, so those
// numbers are compared within its float error, and its SE is biased for variants with missing
// calls (padding lanes of its float vectors; fixed upstream in 2024): looser there. ERRCODE,
// FIRTH?, A1, OBS_CT and the NA rows are always identical.
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
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

using Table = std::vector<std::vector<std::string>>;
Table read_table(const std::string& path) { return strata::testing::read_rows(path); }


// One unit in the 6th significant digit of a printed value.
double last_digit(double x) { return x == 0 ? 1e-300 : std::pow(10.0, std::floor(std::log10(std::fabs(x))) - 5); }

// Variants (by row) with at least one missing call among all samples of a .bed.
std::vector<bool> variants_with_missing(const std::string& bfile) {
  int64_t n = 0;
  {
    std::ifstream fam(bfile + ".fam");
    for (std::string l; std::getline(fam, l);) ++n;
  }
  const std::string bed = read_file(bfile + ".bed");
  const int64_t row = (n + 3) / 4;
  std::vector<bool> out;
  for (size_t off = 3; off + row <= bed.size(); off += static_cast<size_t>(row)) {
    bool miss = false;
    for (int64_t j = 0; j < n && !miss; ++j)
      miss = ((static_cast<uint8_t>(bed[off + j / 4]) >> (2 * (j % 4))) & 3) == 1;
    out.push_back(miss);
  }
  return out;
}

// Worst deviations seen in a comparison, printed for the notes.
struct Worst {
  double or_rel = 0, se_rel = 0, z_abs = 0, p_rel = 0;
  int64_t p_last_digit = 0, rows = 0, unfinished = 0;
};

class GwasPlink2 : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(cli())) GTEST_SKIP() << "strata CLI not built";
    if (!fs::exists(kPlink2)) GTEST_SKIP() << strata::testing::kSkipNoPlink2;
    const std::string data = strata::testing::shared_data_dir();
    bfile_ = data.empty() ? std::string() : data + "/hapmap3/HM3_thinned_autosomal_overlap";
    if (bfile_.empty() || !fs::exists(bfile_ + ".bed")) GTEST_SKIP() << strata::testing::kSkipNoSharedData;
  }

  // Phenotypes and covariates for the samples of `fam` (fixed seed): QT1/QT2 quantitative
  // (different missing samples, so two sample sets), BT case/control ~45 % cases with 0/-9/NA
  // missing, RARE ~4 % cases (separation → Firth); covariates C1..C3 (one NA) + PC1..PC4.
  void write_tables(const std::string& bfile) {
    auto r = run_command(std::string(kPlink2) + " --bfile " + bfile + " --pca 4 --threads 2 --out " + dir_.str("pca"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::map<std::string, std::vector<double>> pcs;
    {
      std::istringstream ss(read_file(dir_.str("pca.eigenvec")));
      std::string line;
      std::getline(ss, line);
      while (std::getline(ss, line)) {
        std::istringstream ls(line);
        std::string fid, iid;
        ls >> fid >> iid;
        std::vector<double> v(4);
        for (double& x : v) ls >> x;
        pcs[fid + " " + iid] = v;
      }
    }
    std::mt19937_64 rng(20240915);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    auto normal = [&] { return std::sqrt(-2.0 * std::log(1.0 - u(rng))) * std::cos(2 * M_PI * u(rng)); };
    std::ostringstream ph, cv;
    ph.precision(17);
    cv.precision(17);
    ph << "#FID IID QT1 QT2 BT RARE\n";
    cv << "#FID IID C1 C2 C3 PC1 PC2 PC3 PC4\n";
    std::ifstream fam(bfile + ".fam");
    int i = 0;
    for (std::string line; std::getline(fam, line); ++i) {
      std::istringstream ls(line);
      std::string fid, iid;
      ls >> fid >> iid;
      const auto& pc = pcs.at(fid + " " + iid);
      const double c1 = normal(), c2 = normal(), c3 = normal();
      const double qt1 = 0.3 * c1 - 0.2 * c2 + 8.0 * pc[0] + normal();
      const double qt2 = 5.0 + 0.1 * c3 - 4.0 * pc[1] + 2.0 * normal();
      const double eta = -0.2 + 0.5 * c1 + 6.0 * pc[0];
      const int bt = u(rng) < 1.0 / (1.0 + std::exp(-eta)) ? 2 : 1;
      const int rare = u(rng) < 0.04 ? 2 : 1;
      ph << fid << ' ' << iid << ' ';
      if (i % 37 == 0) {
        ph << "NA";
      } else {
        ph << qt1;
      }
      ph << ' ';
      if (i % 23 == 0) {
        ph << "-9";
      } else {
        ph << qt2;
      }
      ph << ' ' << (i % 41 == 0 ? "0" : i % 43 == 0 ? "NA" : i % 47 == 0 ? "-9" : std::to_string(bt));
      ph << ' ' << (i % 50 == 0 ? std::string("NA") : std::to_string(rare)) << '\n';
      cv << fid << ' ' << iid << ' ' << c1 << ' ' << c2 << ' ';
      if (i == 101) {
        cv << "NA";
      } else {
        cv << c3;
      }
      for (double x : pc) cv << ' ' << x;
      cv << '\n';
    }
    strata::testing::write_file(dir_.str("pheno.txt"), ph.str());
    strata::testing::write_file(dir_.str("covar.txt"), cv.str());
  }

  void plink2(const std::string& bfile, const std::string& glm, const std::string& out,
              const std::string& extra = "") {
    auto r = run_command(std::string(kPlink2) + " --bfile " + bfile + " --pheno " + dir_.str("pheno.txt") +
                         " --pheno-name QT1,QT2,BT,RARE --covar " + dir_.str("covar.txt") + " --glm hide-covar " + glm +
                         " " + extra + " --threads 2 --out " + dir_.str(out));
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  void strata(const std::string& bfile, const std::string& args, const std::string& out) {
    auto r = run_command(cli() + " gwas " + bfile + " --pheno " + dir_.str("pheno.txt") + " --covar " +
                         dir_.str("covar.txt") + " " + args + " -q --out " + dir_.str(out));
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }

  // Linear: every column plink2's text but P (one unit of its last digit at most).
  Worst expect_linear_equal(const std::string& mine, const std::string& theirs) {
    const Table a = read_table(dir_.str(mine)), b = read_table(dir_.str(theirs));
    Worst w;
    EXPECT_EQ(a.size(), b.size());
    if (a.empty() || a.size() != b.size()) return w;
    EXPECT_EQ(a[0], b[0]);
    // P and the CI bounds may differ in their last digit (plink2's t tail and normal quantile).
    auto last_digit_ok = [&](size_t c) {
      return a[0][c] == "P" || a[0][c] == "L95" || a[0][c] == "U95";
    };
    for (size_t i = 1; i < a.size(); ++i) {
      ++w.rows;
      EXPECT_EQ(a[i].size(), b[i].size()) << mine << " row " << i;
      if (a[i].size() != b[i].size()) return w;
      for (size_t c = 0; c < a[i].size(); ++c) {
        if (last_digit_ok(c) && a[i][c] != b[i][c] && a[i][c] != "NA" && b[i][c] != "NA") {
          const double x = std::stod(a[i][c]), y = std::stod(b[i][c]);
          EXPECT_LE(std::fabs(x - y), 1.01 * last_digit(y))
              << mine << " row " << i << ": " << a[0][c] << " " << a[i][c] << " vs " << b[i][c];
          ++w.p_last_digit;
          continue;
        }
        EXPECT_EQ(a[i][c], b[i][c]) << mine << " row " << i << " column " << a[0][c];
      }
    }
    EXPECT_LE(w.p_last_digit, w.rows / 50) << "P or a CI bound differs in its last digit too often";
    return w;
  }

  // Logistic: identical identity columns, FIRTH?, OBS_CT, ERRCODE and NA rows; numbers within
  // plink2's float error (looser where plink2's SE is biased: variants with missing calls).
  Worst expect_logistic_close(const std::string& mine, const std::string& theirs, const std::vector<bool>& missing) {
    const Table a = read_table(dir_.str(mine)), b = read_table(dir_.str(theirs));
    Worst w;
    EXPECT_EQ(a.size(), b.size());
    if (a.empty() || a.size() != b.size()) return w;
    EXPECT_EQ(a[0], b[0]);
    std::map<std::string, size_t> col;
    for (size_t c = 0; c < a[0].size(); ++c) col[a[0][c]] = c;
    const size_t c_or = col.at("OR"), c_se = col.at("LOG(OR)_SE"), c_z = col.at("Z_STAT"), c_p = col.at("P");
    const size_t firth_col = col.count("FIRTH?") ? col.at("FIRTH?") : 0;
    for (size_t i = 1; i < a.size(); ++i) {
      EXPECT_EQ(a[i].size(), b[i].size()) << mine << " row " << i;
      if (a[i].size() != b[i].size()) return w;
      // plink2's float Firth iteration can stop at its limit (UNFINISHED, values printed) where
      // strata's converges: counted, compared loosely.
      const bool unfinished = b[i].back() == "UNFINISHED" && a[i].back() == ".";
      w.unfinished += unfinished;
      for (size_t c = 0; c < a[i].size(); ++c) {
        if (c < c_or || (c == a[i].size() - 1 && !unfinished)) {
          EXPECT_EQ(a[i][c], b[i][c]) << mine << " row " << i << " " << a[0][c];
        }
      }
      if (b[i][c_or] == "NA") {
        EXPECT_EQ(a[i][c_or], "NA");
        continue;
      }
      ++w.rows;
      const bool firth = (firth_col && a[i][firth_col] == "Y") || mine.find("firth") != std::string::npos;
      const bool miss = missing[i - 1];
      const double or_rel = std::fabs(std::stod(a[i][c_or]) / std::stod(b[i][c_or]) - 1);
      const double se_rel = std::fabs(std::stod(a[i][c_se]) / std::stod(b[i][c_se]) - 1);
      const double z_abs = std::fabs(std::stod(a[i][c_z]) - std::stod(b[i][c_z]));
      const double p_rel = std::fabs(std::stod(a[i][c_p]) / std::stod(b[i][c_p]) - 1);
      if (!miss) {
        w.or_rel = std::max(w.or_rel, or_rel);
        w.se_rel = std::max(w.se_rel, se_rel);
        w.z_abs = std::max(w.z_abs, z_abs);
        w.p_rel = std::max(w.p_rel, p_rel);
      }
      // Complete variants: plink2's float32 error (3e-5); its Firth fits of separated rare
      // variants sit up to ~7e-4 from the penalized optimum (strata's is checked against an
      // independent solver in NOTES.md); variants with missing calls: its biased SE (and the
      // Firth fits that use it) — only the decisions are exact there.
      const double or_tol = miss || unfinished ? 2e-2 : firth ? 1.5e-3 : 3e-5;
      const double se_tol = miss || unfinished ? 0.15 : firth ? 1.5e-3 : 3e-5;
      EXPECT_LE(or_rel, or_tol) << mine << " row " << i << " OR " << a[i][c_or] << " vs " << b[i][c_or];
      EXPECT_LE(se_rel, se_tol) << mine << " row " << i << " SE " << a[i][c_se] << " vs " << b[i][c_se];
      if (!miss && !unfinished) {
        EXPECT_LE(z_abs, firth ? 2e-3 : 1e-4) << mine << " row " << i << " Z " << a[i][c_z] << " vs " << b[i][c_z];
      }
    }
    EXPECT_LE(w.unfinished, 5) << mine;
    return w;
  }

  std::string bfile_;
  TempDir dir_;
};

TEST_F(GwasPlink2, HapMap3LinearLogisticAndFirthFallbackMatchPlink2) {
  write_tables(bfile_);
  plink2(bfile_, "", "p");
  strata(bfile_, "--pheno-name QT1,QT2,BT,RARE --report " + dir_.str("run.json"), "s");
  const auto missing = variants_with_missing(bfile_);
  ASSERT_EQ(missing.size(), 14079u);
  const Worst q1 = expect_linear_equal("s.QT1.glm.linear", "p.QT1.glm.linear");
  const Worst q2 = expect_linear_equal("s.QT2.glm.linear", "p.QT2.glm.linear");
  const Worst bt = expect_logistic_close("s.BT.glm.logistic.hybrid", "p.BT.glm.logistic.hybrid", missing);
  const Worst rare = expect_logistic_close("s.RARE.glm.logistic.hybrid", "p.RARE.glm.logistic.hybrid", missing);
  std::printf("linear: P last digit differs in %lld + %lld of %lld rows\n", static_cast<long long>(q1.p_last_digit),
              static_cast<long long>(q2.p_last_digit), static_cast<long long>(q1.rows + q2.rows));
  for (const auto& [name, w] : {std::pair<const char*, Worst>{"BT", bt}, {"RARE", rare}})
    std::printf("%s complete variants: OR %.2g SE %.2g (relative), Z %.2g (absolute), P %.2g (relative)\n", name,
                w.or_rel, w.se_rel, w.z_abs, w.p_rel);
  // Firth fallback happened and agrees row by row (FIRTH? compared above).
  EXPECT_NE(read_file(dir_.str("s.RARE.glm.logistic.hybrid")).find("\tY\tADD\t"), std::string::npos);

  const auto rep = nlohmann::json::parse(read_file(dir_.str("run.json")));
  EXPECT_EQ(rep.at("command"), "gwas");
  EXPECT_EQ(rep.at("linear_groups"), 2) << "QT1 and QT2 have different missing samples";
  EXPECT_EQ(rep.at("phenotypes").size(), 4u);

  // The same bits for any thread count, and the same linear results when phenotypes run alone.
  auto r = run_command(cli() + " gwas " + bfile_ + " --pheno " + dir_.str("pheno.txt") + " --pheno-name QT1,BT --covar " +
                       dir_.str("covar.txt") + " --threads 1 -q --out " + dir_.str("t1"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(read_file(dir_.str("t1.QT1.glm.linear")), read_file(dir_.str("s.QT1.glm.linear")));
  EXPECT_EQ(read_file(dir_.str("t1.BT.glm.logistic.hybrid")), read_file(dir_.str("s.BT.glm.logistic.hybrid")));
}

TEST_F(GwasPlink2, FirthModesAndConfidenceIntervalsMatchPlink2) {
  write_tables(bfile_);
  const auto missing = variants_with_missing(bfile_);
  // With A1_FREQ (over each variant's regression samples: plink2's text exactly) and L95/U95.
  plink2(bfile_, "no-firth cols=+a1freq", "pn", "--ci 0.95");
  strata(bfile_, "--pheno-name QT1,RARE --firth never --ci 0.95 --cols a1freq", "sn");
  expect_linear_equal("sn.QT1.glm.linear", "pn.QT1.glm.linear");
  expect_logistic_close("sn.RARE.glm.logistic", "pn.RARE.glm.logistic", missing);
  EXPECT_NE(read_file(dir_.str("sn.RARE.glm.logistic")).find("SEPARATION,"), std::string::npos);
  plink2(bfile_, "firth", "pf");
  strata(bfile_, "--pheno-name RARE --firth always", "sf");
  expect_logistic_close("sf.RARE.glm.firth", "pf.RARE.glm.firth", missing);
}

TEST_F(GwasPlink2, ConstantVariantsInASubsetMatchPlink2) {
  // 60 samples: some variants are monomorphic there (CONST_OMITTED_ALLELE rows).
  {
    std::ifstream fam(bfile_ + ".fam");
    std::ostringstream keep;
    int i = 0;
    for (std::string line; i < 60 && std::getline(fam, line); ++i) {
      std::istringstream ls(line);
      std::string fid, iid;
      ls >> fid >> iid;
      keep << fid << ' ' << iid << '\n';
    }
    strata::testing::write_file(dir_.str("keep.txt"), keep.str());
  }
  auto r = run_command(std::string(kPlink2) + " --bfile " + bfile_ + " --keep " + dir_.str("keep.txt") +
                       " --make-bed --out " + dir_.str("small"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string small = dir_.str("small");
  write_tables(small);
  plink2(small, "", "p");
  strata(small, "--pheno-name QT1,QT2,BT", "s");
  expect_linear_equal("s.QT1.glm.linear", "p.QT1.glm.linear");
  expect_linear_equal("s.QT2.glm.linear", "p.QT2.glm.linear");
  expect_logistic_close("s.BT.glm.logistic.hybrid", "p.BT.glm.logistic.hybrid", variants_with_missing(small));
  EXPECT_NE(read_file(dir_.str("s.QT1.glm.linear")).find("\tNA\tNA\tNA\tNA\tCONST_OMITTED_ALLELE\n"), std::string::npos);
}

TEST_F(GwasPlink2, SelectionFlagsMatchPlink2) {
  // --keep every other of the first 400 samples, then --geno and --maf on them: the same
  // variants, A1 from the kept samples' frequencies, plink2's rows.
  write_tables(bfile_);
  {
    std::ifstream fam(bfile_ + ".fam");
    std::ostringstream keep;
    int i = 0;
    for (std::string line; i < 400 && std::getline(fam, line); ++i) {
      if (i % 2 == 0) continue;
      std::istringstream ls(line);
      std::string fid, iid;
      ls >> fid >> iid;
      keep << fid << ' ' << iid << '\n';
    }
    strata::testing::write_file(dir_.str("keep.txt"), keep.str());
  }
  const std::string flags = " --keep " + dir_.str("keep.txt") + " --geno 0.01 --maf 0.05";
  plink2(bfile_, "", "p", flags);
  strata(bfile_, "--pheno-name QT1,QT2,BT" + flags, "s");
  const Worst q = expect_linear_equal("s.QT1.glm.linear", "p.QT1.glm.linear");
  EXPECT_LT(q.rows, 14079) << "the filters removed variants";
  expect_linear_equal("s.QT2.glm.linear", "p.QT2.glm.linear");
  std::vector<bool> missing;  // per remaining variant: compare loosely where calls are missing
  {
    const Table t = read_table(dir_.str("s.BT.glm.logistic.hybrid"));
    missing.assign(t.size(), true);
  }
  expect_logistic_close("s.BT.glm.logistic.hybrid", "p.BT.glm.logistic.hybrid", missing);
}

TEST_F(GwasPlink2, PedigreeA1ComesFromFoundersAsPlink2) {
  // HapMap3 with 199 children (each names the sample before it as father): plink2 picks A1 by
  // its founders' frequencies, so A1 (and BETA's sign) must follow the founders; with
  // --nonfounders plink2's A1 differs on some rows, so the comparison can fail.
  const std::string ped = dir_.str("ped");
  for (const char* ext : {".bed", ".bim"}) fs::copy_file(bfile_ + ext, ped + ext);
  {
    std::ifstream fam(bfile_ + ".fam");
    std::ostringstream out;
    std::string previous;
    int i = 0;
    for (std::string line; std::getline(fam, line); ++i) {
      std::istringstream ls(line);
      std::vector<std::string> f;
      for (std::string w; ls >> w;) f.push_back(w);
      if (i >= 1 && i < 200) f[2] = previous;
      previous = f[1];
      for (size_t c = 0; c < f.size(); ++c) out << (c ? " " : "") << f[c];
      out << '\n';
    }
    strata::testing::write_file(ped + ".fam", out.str());
  }
  write_tables(ped);
  plink2(ped, "", "p");
  plink2(ped, "", "pn", "--nonfounders");
  strata(ped, "--pheno-name QT1,QT2", "s");
  strata(ped, "--pheno-name QT1 --nonfounders", "sn");
  expect_linear_equal("s.QT1.glm.linear", "p.QT1.glm.linear");
  expect_linear_equal("s.QT2.glm.linear", "p.QT2.glm.linear");
  expect_linear_equal("sn.QT1.glm.linear", "pn.QT1.glm.linear");
  const Table founders = read_table(dir_.str("p.QT1.glm.linear")), all = read_table(dir_.str("pn.QT1.glm.linear"));
  ASSERT_EQ(founders.size(), all.size());
  int64_t other_a1 = 0;
  for (size_t i = 1; i < founders.size(); ++i) other_a1 += founders[i][5] != all[i][5];
  EXPECT_GT(other_a1, 100) << "plink2's A1 did not depend on the founders here";
}

TEST_F(GwasPlink2, BadInputFailsClearlyAndWritesNothing) {
  write_tables(bfile_);
  const std::string base = cli() + " gwas " + bfile_ + " --covar " + dir_.str("covar.txt") + " -q";
  auto with_pheno = [&](const std::string& text) {
    strata::testing::write_file(dir_.str("bad_pheno.txt"), text);
    return " --pheno " + dir_.str("bad_pheno.txt");
  };
  // Rows naming unknown samples are skipped (plink2 too): results unchanged.
  const std::string ph = read_file(dir_.str("pheno.txt"));
  auto r = run_command(base + with_pheno(ph + "XX YY 1.5 2.5 1 1\n") + " --pheno-name QT1 --out " + dir_.str("u"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run_command(base + " --pheno " + dir_.str("pheno.txt") + " --pheno-name QT1 --out " + dir_.str("k"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(read_file(dir_.str("u.QT1.glm.linear")), read_file(dir_.str("k.QT1.glm.linear")));
  // Only unknown samples.
  r = run_command(base + with_pheno("#FID IID Q\nXX YY 1.5\nXX ZZ 2\n") + " --out " + dir_.str("o1"));
  STRATA_EXPECT_CLI_ERROR(r, 1, "none of its 2 rows names a sample of the genotype input");
  // All missing.
  r = run_command(base + with_pheno("#FID IID Q\n2431 NA19916 NA\n2424 NA19835 -9\n") + " --out " + dir_.str("o2"));
  STRATA_EXPECT_CLI_ERROR(r, 1, "phenotype 'Q' has no sample with a value and every covariate present");
  // Non-binary values with --model logistic.
  r = run_command(base + " --pheno " + dir_.str("pheno.txt") + " --pheno-name QT1 --model logistic --out " + dir_.str("o3"));
  STRATA_EXPECT_CLI_ERROR(r, 1, "phenotype 'QT1' is not case/control (1/2 with missing values), but --model logistic");
  // Collinear covariates: plink2 refuses the phenotype (VIF_TOO_HIGH); so does strata.
  {
    std::istringstream ss(read_file(dir_.str("covar.txt")));
    std::ostringstream out;
    std::string line;
    std::getline(ss, line);
    out << line << " S K\n";
    while (std::getline(ss, line)) {
      std::istringstream ls(line);
      std::string fid, iid, c1, c2;
      ls >> fid >> iid >> c1 >> c2;
      out << line << ' ' << (std::stod(c1) + std::stod(c2)) << " 1\n";
    }
    strata::testing::write_file(dir_.str("covar_bad.txt"), out.str());
  }
  r = run_command(cli() + " gwas " + bfile_ + " --pheno " + dir_.str("pheno.txt") + " --pheno-name QT1 --covar " +
                  dir_.str("covar_bad.txt") + " -q --out " + dir_.str("o4"));
  STRATA_EXPECT_CLI_ERROR(r, 1, "cannot run phenotype 'QT1': its covariates (C1, C2, C3, PC1, PC2, PC3, PC4, S) are collinear");
  // A constant covariate is left out with a warning, as plink2 does: same results as without it.
  r = run_command(cli() + " gwas " + bfile_ + " --pheno " + dir_.str("pheno.txt") + " --pheno-name QT1 --covar " +
                  dir_.str("covar_bad.txt") + " --covar-name C1,C2,C3,PC1,PC2,PC3,PC4,K -q --out " + dir_.str("c"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("warning: covariate 'K' is constant and left out"), std::string::npos) << r.output;
  EXPECT_EQ(read_file(dir_.str("c.QT1.glm.linear")), read_file(dir_.str("k.QT1.glm.linear")));
  // Usage errors.
  r = run_command(base + " --pheno " + dir_.str("pheno.txt") + " --model probit --out " + dir_.str("o5"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  r = run_command(base + " --pheno " + dir_.str("pheno.txt") + " --pheno-name NOPE --out " + dir_.str("o6"));
  STRATA_EXPECT_CLI_ERROR(r, 1, "no phenotype column named 'NOPE'");
  for (const auto& e : fs::directory_iterator(dir_.path())) {
    const std::string f = e.path().filename().string();
    if (f.ends_with(".log")) continue;  // failed runs leave their log, with the error
    EXPECT_EQ(f.rfind("o", 0), std::string::npos) << "left behind: " << f;
  }
}

}  // namespace
}  // namespace strata
