// .afreq / .vmiss against plink2 on HapMap3 and the bio2zarr PLINK files.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <random>
#include <vector>

#include "core/test_context.hpp"
#include "strata/genomics/freq.hpp"
#include "strata/io/plink.hpp"
#include "testing/testing.hpp"

using strata::testing::test_ctx;

namespace strata::genomics {
namespace {

using strata::testing::read_file;
using strata::testing::TempDir;
namespace fs = std::filesystem;

TEST(Freq, FormatsLikePlink2) {
  EXPECT_EQ(format_plink_float(0.335423197), "0.335423");
  EXPECT_EQ(format_plink_float(0.0799373), "0.0799373");
  EXPECT_EQ(format_plink_float(0.0), "0");
  EXPECT_EQ(format_plink_float(1.0), "1");
  EXPECT_EQ(format_plink_float(1.0 / 957), "0.00104493");
  EXPECT_EQ(format_plink_float(std::nan("")), "nan");
}

// The same digits as printf's %.6g (plink2's) across magnitudes, exponents and rounding ties.
TEST(Freq, FormatsAsPrintfG6) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> mantissa(0.0, 10.0);
  std::uniform_int_distribution<int> exponent(-12, 8);
  std::vector<double> values = {1e-5, 1.5e-7, 123456.5, 1234567.0, 0.5, 2.0 / 3, 1e-300, 0.1234565, 9.999995};
  for (int i = 0; i < 20000; ++i) values.push_back(mantissa(rng) * std::pow(10.0, exponent(rng)));
  for (double v : values) {
    char want[64];
    std::snprintf(want, sizeof(want), "%.6g", v);
    ASSERT_EQ(format_plink_float(v), want) << v;
  }
}

// Our files must equal plink2's byte for byte.
void compare_with_plink2(const std::string& prefix) {
  TempDir tmp;
  auto r = strata::testing::run_command("cd " + tmp.str() + " && /usr/bin/plink2 --bfile " + prefix +
                                        " --freq --missing variant-only --out p2 --threads 1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  STRATA_ASSERT_OK_AND_ASSIGN(auto view, io::open_genotypes(prefix));
  FreqOptions o;
  STRATA_ASSERT_OK(write_freq_files(test_ctx(), view, tmp.str("ours"), o));
  const std::string ours = read_file(tmp.str("ours.afreq")), theirs = read_file(tmp.str("p2.afreq"));
  ASSERT_FALSE(theirs.empty());
  EXPECT_EQ(ours, theirs);
  EXPECT_EQ(read_file(tmp.str("ours.vmiss")), read_file(tmp.str("p2.vmiss")));
}

TEST(Freq, MatchesPlink2OnSharedData) {
  if (!fs::exists("/usr/bin/plink2")) GTEST_SKIP() << strata::testing::kSkipNoPlink2;
  const std::string d = strata::testing::shared_data_dir();
  if (d.empty()) GTEST_SKIP() << strata::testing::kSkipNoSharedData;
  std::string absent;
  for (const std::string& p : {d + "/hapmap3/HM3_thinned_autosomal_overlap", d + "/plink/example",
                              d + "/plink/plink_sim_10s_100v_10pmiss"}) {
    SCOPED_TRACE(p);
    if (!fs::exists(p + ".bed")) {
      absent += " " + p + ".bed";
      continue;
    }
    compare_with_plink2(p);
  }
  // The files present were compared; a missing one must not pass unseen.
  if (!absent.empty()) GTEST_SKIP() << "not compared, absent from the shared data:" << absent;
}

TEST(Freq, AllMissingVariantAndAtomicOutput) {
  TempDir tmp;
  strata::testing::write_file(tmp.str("m.fam"), "a a 0 0 0 -9\nb b 0 0 0 -9\n");
  strata::testing::write_file(tmp.str("m.bim"), "1\tx\t0\t1\tC\tA\n");
  strata::testing::write_file(tmp.str("m.bed"), std::string("\x6c\x1b\x01\x05", 4));  // both missing
  STRATA_ASSERT_OK_AND_ASSIGN(auto view, io::open_genotypes(tmp.str("m")));
  FreqOptions o;
  STRATA_ASSERT_OK(write_freq_files(test_ctx(), view, tmp.str("out"), o));
  EXPECT_EQ(read_file(tmp.str("out.afreq")), "#CHROM\tID\tREF\tALT\tALT_FREQS\tOBS_CT\n1\tx\tA\tC\tnan\t0\n");
  EXPECT_EQ(read_file(tmp.str("out.vmiss")), "#CHROM\tID\tMISSING_CT\tOBS_CT\tF_MISS\n1\tx\t2\t2\t1\n");
  // A directory where an output goes fails before anything is written and is left alone; the
  // other output does not appear either.
  std::filesystem::create_directories(tmp.str("d.vmiss"));
  STRATA_EXPECT_STATUS(write_freq_files(test_ctx(), view, tmp.str("d"), o), StatusCode::AlreadyExists, "d.vmiss is a directory");
  EXPECT_FALSE(std::filesystem::exists(tmp.str("d.afreq")));
  EXPECT_TRUE(std::filesystem::is_directory(tmp.str("d.vmiss")));

}

}  // namespace
}  // namespace strata::genomics
