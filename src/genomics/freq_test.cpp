// .afreq / .vmiss against plink2 on HapMap3 and the bio2zarr PLINK files.
#include <cmath>
#include <cstdio>
#include <filesystem>

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
  // plink2's dtoa_g: decimal ties to even, though binary stores them a hair below or above
  // (printf's %.6g gives 0.497887 and 0.447187).
  EXPECT_EQ(format_plink_float(0.935 * (1.0 - 0.935 * 0.5)), "0.497888");
  EXPECT_EQ(format_plink_float(0.4471875), "0.447188");
  EXPECT_EQ(format_plink_float(0.4471865), "0.447186");
  EXPECT_EQ(format_plink_float(999999.5), "1e+06");
  EXPECT_EQ(format_plink_float(1234567.0), "1.23457e+06");
  EXPECT_EQ(format_plink_float(5.33372e-06), "5.33372e-06");
  EXPECT_EQ(format_plink_float(-0.253661), "-0.253661");
  EXPECT_EQ(format_plink_float(1e-300), "1e-300");
  // Away from ties it is %.6g.
  uint64_t x = 12345;
  for (int i = 0; i < 20000; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const double v = std::ldexp(double(x >> 11), -53) * std::pow(10.0, int(x % 40) - 20);
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.6g", v);
    ASSERT_EQ(format_plink_float(v), buf) << v;
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
