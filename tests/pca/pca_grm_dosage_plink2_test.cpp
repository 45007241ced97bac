// `strata pca` and `strata grm` on fractional dosages (imputed data) against Debian's plink2
// reading the same values: a VCF `DS` field imported by plink2 (`--vcf x.vcf dosage=DS
// --make-pgen`, dosages rounded to 1/16384), then `--pca`, `--make-rel` and `--make-grm-bin` on
// that .pgen by both. plink2 standardizes the dosages (d − 2f)/√(2f(1 − f)) with f from the
// dosages and leaves missing ones at the mean, which strata must match; the hard calls of
// these dosages (mostly missing: most are not within 0.1 of a call) would give other numbers.
//
// Equal means: GRM entries within one unit of plink2's 6th printed digit (or 5e-8: float32
// products); exact PCA eigenvalues within its printed digits, eigenvectors within 1e-5;
// randomized eigenvalues within 1e-3.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <sstream>
#include <vector>

#include "pca/pca_text_files.hpp"
#include "testing/testing.hpp"

namespace strata {
namespace {

namespace fs = std::filesystem;
using strata::testing::read_file;
using strata::testing::run_command;
using strata::testing::TempDir;

const char* kPlink2 = "/usr/bin/plink2";
constexpr int64_t kSamples = 240, kVariants = 600;

std::string cli() { return strata::testing::strata_cli_path(); }
using pca_files::eigenvec;
using pca_files::last_digit;
using pca_files::numbers;

class DosagePcaGrmPlink2 : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(cli())) GTEST_SKIP() << "strata CLI not built";
    if (!fs::exists(kPlink2)) GTEST_SKIP() << strata::testing::kSkipNoPlink2;
    write_vcf();
    plink2("--vcf " + dir_.str("ds.vcf") + " dosage=DS --make-pgen", "x");
  }

  // Two populations (frequencies apart by up to 0.3) so the top PCs mean something; most
  // dosages blurred by noise (3 decimals), 2 % missing on every 5th variant, one constant
  // variant (all 0) and one with a single non-1 dosage.
  void write_vcf() {
    std::mt19937_64 rng(20261129);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::normal_distribution<double> z(0.0, 1.0);
    std::ostringstream vcf;
    vcf << "##fileformat=VCFv4.2\n##contig=<ID=1>\n"
           "##FORMAT=<ID=DS,Number=A,Type=Float,Description=\"ALT dosage\">\n"
           "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT";
    for (int64_t s = 0; s < kSamples; ++s) vcf << "\ts" << s;
    vcf << '\n';
    const char* bases = "ACGT";
    for (int64_t v = 0; v < kVariants; ++v) {
      const double p = 0.05 + 0.5 * u(rng), q = std::clamp(p + 0.3 * (u(rng) - 0.5), 0.02, 0.95);
      vcf << "1\t" << 1000 + 37 * v << "\trs" << v << '\t' << bases[v % 4] << '\t' << bases[(v + 1) % 4]
          << "\t.\t.\t.\tDS";
      for (int64_t s = 0; s < kSamples; ++s) {
        const double f = s < kSamples / 3 ? q : p;
        const double call = (u(rng) < f) + (u(rng) < f);
        double d = u(rng) < 0.8 ? call + 0.3 * z(rng) : call;
        d = std::round(std::fmin(2.0, std::fmax(0.0, d)) * 1000) / 1000;
        if (v == 7) d = 0.0;
        if (v == 8) d = s == 5 ? 1.5 : 1.0;
        char buf[16];
        std::snprintf(buf, sizeof buf, "%.3f", d);
        vcf << '\t' << (v % 5 == 4 && u(rng) < 0.02 ? "." : buf);
      }
      vcf << '\n';
    }
    strata::testing::write_file(dir_.str("ds.vcf"), vcf.str());
  }

  void plink2(const std::string& args, const std::string& out) {
    auto r = run_command(std::string(kPlink2) + " " + args + " --threads 2 --out " + dir_.str(out));
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  void strata(const std::string& command, const std::string& out) {
    auto r = run_command(cli() + " " + command + " " + dir_.str("x.pgen") + " -q --out " + dir_.str(out));
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }

  TempDir dir_;
};

TEST_F(DosagePcaGrmPlink2, GrmMatchesPlink2OnDosages) {
  for (const std::string mode : {"", "meanimpute"}) {
    plink2("--pfile " + dir_.str("x") + " --make-rel " + mode, "p" + mode);
    strata("grm" + std::string(mode.empty() ? "" : " --meanimpute"), "s" + mode);
    const auto a = numbers(dir_.str("s" + mode + ".rel")), b = numbers(dir_.str("p" + mode + ".rel"));
    ASSERT_EQ(a.size(), b.size());
    ASSERT_EQ(a.size(), static_cast<size_t>(kSamples * (kSamples + 1) / 2));
    for (size_t i = 0; i < a.size(); ++i)
      ASSERT_LE(std::fabs(a[i] - b[i]), std::max(last_digit(b[i]) * 1.01, 5e-8)) << mode << " entry " << i << ": " << a[i]
                                                                                 << " vs plink2 " << b[i];
  }
  // --make-grm-bin: float32 entries (within float32 rounding) and float32 pair counts (M_ab).
  plink2("--pfile " + dir_.str("x") + " --make-grm-bin", "pg");
  strata("grm --format grm-bin", "sg");
  for (const char* ext : {".grm.bin", ".grm.N.bin"}) {
    const std::string x = read_file(dir_.str(std::string("sg") + ext)), y = read_file(dir_.str(std::string("pg") + ext));
    ASSERT_EQ(x.size(), y.size()) << ext;
    std::vector<float> fx(x.size() / 4), fy(y.size() / 4);
    std::memcpy(fx.data(), x.data(), x.size());
    std::memcpy(fy.data(), y.data(), y.size());
    for (size_t i = 0; i < fx.size(); ++i)
      ASSERT_NEAR(fx[i], fy[i], 2e-6 * std::fabs(fy[i]) + 5e-8) << ext << " entry " << i;
  }
}

TEST_F(DosagePcaGrmPlink2, PcaMatchesPlink2OnDosages) {
  plink2("--pfile " + dir_.str("x") + " --pca 5 meanimpute", "p");
  strata("pca -k 5 --method exact", "exact");
  strata("pca -k 5 --method randomized", "rand");
  const auto ref = numbers(dir_.str("p.eigenval"));
  const auto ex = numbers(dir_.str("exact.eigenval"));
  const auto rd = numbers(dir_.str("rand.eigenval"));
  ASSERT_EQ(ref.size(), 5u);
  ASSERT_EQ(ex.size(), 5u);
  ASSERT_EQ(rd.size(), 5u);
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_NEAR(ex[i], ref[i], 1e-6 * ref[i] + 0.5 * last_digit(ref[i])) << "PC" << i + 1;
    EXPECT_NEAR(rd[i], ref[i], 1e-3 * ref[i]) << "randomized PC" << i + 1;
  }
  const auto pv = eigenvec(dir_.str("p.eigenvec")), sv = eigenvec(dir_.str("exact.eigenvec"));
  ASSERT_EQ(pv.size(), sv.size());
  // The top two components (the populations and the next): their gap is wide enough that the
  // vectors are well defined; sign free.
  for (size_t j = 0; j < 2; ++j) {
    double dot = 0, diff = 0;
    for (size_t i = 0; i < pv.size(); ++i) dot += pv[i].at(j) * sv[i].at(j);
    const double sign = dot < 0 ? -1.0 : 1.0;
    for (size_t i = 0; i < pv.size(); ++i) diff = std::max(diff, std::fabs(pv[i][j] - sign * sv[i][j]));
    EXPECT_LT(diff, 1e-5) << "PC" << j + 1;
  }
}

}  // namespace
}  // namespace strata
