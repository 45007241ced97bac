// `strata grm` end to end against Debian's plink2 (--make-rel, --make-rel bin,
// --make-grm-bin, with and without meanimpute) on HapMap3, the PLINK edge-case files and a
// simulated cohort with 1 % missing calls (also against a float64 reference read from the .bed
// here, and the same bytes for any thread count), the Zarr output read by python3-zarr, and bad
// input (exit code, message, no output).
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
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

const char* kPlink2 = "/usr/bin/plink2";
std::string cli() { return strata::testing::strata_cli_path(); }

// The lower triangle of a .rel file as text fields, row by row.
std::vector<std::vector<std::string>> rel_fields(const std::string& path) { return strata::testing::read_rows(path); }

template <class T>
std::vector<T> read_binary(const std::string& path) {
  const std::string bytes = read_file(path);
  std::vector<T> v(bytes.size() / sizeof(T));
  std::memcpy(v.data(), bytes.data(), v.size() * sizeof(T));
  return v;
}

// Float64 panels and sums, as plink2's: entries within ~1e-15 of plink2's, so a printed entry
// differs only where the two round across a 6th-digit tie (none on HapMap3).
constexpr double kAbsoluteSlack = 1e-12;

// One unit in plink2's 6th printed digit.
double last_digit(double x) { return x == 0 ? 1e-6 : std::pow(10.0, std::floor(std::log10(std::fabs(x))) - 5); }

class GrmPlink2 : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(cli())) GTEST_SKIP() << "strata CLI not built";
    if (!fs::exists(kPlink2)) GTEST_SKIP() << strata::testing::kSkipNoPlink2;
  }
  std::string input(const std::string& rel) {
    const std::string data = strata::testing::shared_data_dir();
    return data.empty() ? std::string() : data + "/" + rel;
  }
  void plink2(const std::string& bfile, const std::string& args, const std::string& out) {
    auto r = run_command(std::string(kPlink2) + " --bfile " + bfile + " " + args + " --threads 2 --bad-freqs --out " +
                         dir_.str(out));
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  void strata(const std::string& bfile, const std::string& args, const std::string& out) {
    auto r = run_command(cli() + " grm " + bfile + " " + args + " -q --out " + dir_.str(out));
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  // .rel text: same shape; every entry within one unit of plink2's last printed digit, and
  // (where the data are large enough to say) nearly all of them the same text.
  void expect_rel_equal(const std::string& mine, const std::string& theirs, double min_identical) {
    const auto a = rel_fields(dir_.str(mine)), b = rel_fields(dir_.str(theirs));
    ASSERT_EQ(a.size(), b.size());
    int64_t total = 0, identical = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      ASSERT_EQ(a[i].size(), i + 1) << "row " << i;
      ASSERT_EQ(b[i].size(), i + 1) << "row " << i;
      for (size_t j = 0; j <= i; ++j) {
        const double x = std::stod(a[i][j]), y = std::stod(b[i][j]);
        EXPECT_LE(std::fabs(x - y), std::max(last_digit(y) * 1.01, kAbsoluteSlack)) << mine << " (" << i << ", " << j << "): " << a[i][j]
                                                          << " vs plink2 " << b[i][j];
        ++total;
        identical += a[i][j] == b[i][j];
      }
    }
    EXPECT_GE(double(identical), min_identical * double(total)) << identical << " of " << total << " identical";
  }
  // .grm.bin: plink2's float32 bits in at least `min_equal` of the entries, the rest one ulp off
  // (float64 sums that straddle a float32 rounding boundary).
  static void expect_mostly_same_floats(const std::vector<float>& a, const std::vector<float>& b, double min_equal) {
    ASSERT_EQ(a.size(), b.size());
    int64_t equal = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      equal += a[i] == b[i];
      const float ulp = std::nextafter(std::fabs(b[i]), INFINITY) - std::fabs(b[i]);
      EXPECT_LE(std::fabs(a[i] - b[i]), ulp) << "entry " << i << ": " << a[i] << " vs plink2 " << b[i];
    }
    EXPECT_GE(double(equal), min_equal * double(a.size())) << equal << " of " << a.size() << " equal to plink2's";
  }
  TempDir dir_;
};

// The GRM in float64 from the .bed itself (SNP-major; 00 hom A1, 01 missing, 10 het, 11 hom
// A2), long double sums: plink2's definition (missing x = 0, M_ab pairs both observed).
std::vector<double> reference_rel(const std::string& bfile, int64_t n, int64_t m) {
  const std::string bed = read_file(bfile + ".bed");
  const int64_t stride = (n + 3) / 4;
  EXPECT_EQ(static_cast<int64_t>(bed.size()), 3 + stride * m);
  std::vector<long double> sum(static_cast<size_t>(n * n), 0.0L), pairs(sum.size(), 0.0L);
  std::vector<double> x(static_cast<size_t>(n));
  std::vector<char> seen(static_cast<size_t>(n));
  for (int64_t v = 0; v < m; ++v) {
    const auto* row = reinterpret_cast<const unsigned char*>(bed.data()) + 3 + v * stride;
    int64_t alt = 0, called = 0;
    for (int64_t j = 0; j < n; ++j) {
      const int c = (row[j / 4] >> (2 * (j % 4))) & 3;
      seen[static_cast<size_t>(j)] = c != 1;
      x[static_cast<size_t>(j)] = c == 0 ? 2 : c == 2 ? 1 : 0;
      if (c != 1) alt += c == 0 ? 2 : c == 2 ? 1 : 0, ++called;
    }
    const double f = called ? double(alt) / double(2 * called) : 0.0, var = 2 * f * (1 - f);
    for (int64_t j = 0; j < n; ++j)
      x[static_cast<size_t>(j)] = seen[static_cast<size_t>(j)] && var > 0 ? (x[static_cast<size_t>(j)] - 2 * f) / std::sqrt(var) : 0.0;
    for (int64_t a = 0; a < n; ++a)
      for (int64_t b = 0; b <= a; ++b) {
        sum[static_cast<size_t>(a * n + b)] += static_cast<long double>(x[static_cast<size_t>(a)]) * x[static_cast<size_t>(b)];
        pairs[static_cast<size_t>(a * n + b)] += seen[static_cast<size_t>(a)] && seen[static_cast<size_t>(b)];
      }
  }
  std::vector<double> rel(sum.size());
  for (int64_t a = 0; a < n; ++a)
    for (int64_t b = 0; b <= a; ++b) {
      const auto e = static_cast<size_t>(a * n + b);
      rel[e] = rel[static_cast<size_t>(b * n + a)] = static_cast<double>(sum[e] / pairs[e]);
    }
  return rel;
}

TEST_F(GrmPlink2, HapMap3AllFormatsMatchPlink2) {
  const std::string bfile = input("hapmap3/HM3_thinned_autosomal_overlap");
  if (bfile.empty() || !fs::exists(bfile + ".bed")) GTEST_SKIP() << strata::testing::kSkipNoSharedData;
  // HapMap3 has 0.15 % missing calls: the pairwise counts differ from M.
  plink2(bfile, "--make-rel", "p");
  plink2(bfile, "--make-rel meanimpute", "pm");
  plink2(bfile, "--make-rel bin", "pb");
  plink2(bfile, "--make-grm-bin", "pg");
  strata(bfile, "--report " + dir_.str("run.json"), "s");
  strata(bfile, "--meanimpute", "sm");
  strata(bfile, "--format rel-bin", "sb");
  strata(bfile, "--format grm-bin", "sg");
  expect_rel_equal("s.rel", "p.rel", 0.9999);
  expect_rel_equal("sm.rel", "pm.rel", 0.9999);
  EXPECT_EQ(read_file(dir_.str("s.rel.id")), read_file(dir_.str("p.rel.id")));
  EXPECT_EQ(read_file(dir_.str("sb.rel.id")), read_file(dir_.str("pb.rel.id")));
  EXPECT_EQ(read_file(dir_.str("sg.grm.id")), read_file(dir_.str("pg.grm.id")));

  const auto sb = read_binary<double>(dir_.str("sb.rel.bin")), pb = read_binary<double>(dir_.str("pb.rel.bin"));
  ASSERT_EQ(sb.size(), 957u * 957u);
  ASSERT_EQ(sb.size(), pb.size());
  double worst = 0;
  for (size_t i = 0; i < sb.size(); ++i) worst = std::max(worst, std::fabs(sb[i] - pb[i]));
  EXPECT_LT(worst, 1e-12) << "rel-bin vs plink2 (both float64)";

  const auto sg = read_binary<float>(dir_.str("sg.grm.bin")), pg = read_binary<float>(dir_.str("pg.grm.bin"));
  ASSERT_EQ(sg.size(), 957u * 958u / 2);
  expect_mostly_same_floats(sg, pg, 0.9999);
  // Pair counts: exactly plink2's (variants both samples observe).
  EXPECT_EQ(read_file(dir_.str("sg.grm.N.bin")), read_file(dir_.str("pg.grm.N.bin")));

  const auto rep = nlohmann::json::parse(read_file(dir_.str("run.json")));
  EXPECT_EQ(rep.at("command"), "grm");
  EXPECT_EQ(rep.at("grm_variants"), 14079);
  EXPECT_EQ(rep.at("pairwise_counts"), true);
  EXPECT_EQ(rep.at("bands"), 1);

  // Zarr: python3-zarr reads the matrix (plink2's square bin values) and the sample IDs.
  if (strata::testing::python_with_zarr().empty()) GTEST_SKIP() << strata::testing::kSkipNoPythonZarr;
  strata(bfile, "--format zarr", "sz");
  auto py = strata::testing::run_python(
      "import zarr, numpy as np\n"
      "g = zarr.open_group('" + dir_.str("sz.zarr") + "', mode='r')\n"
      "m = g['grm'][:]\n"
      "ref = np.fromfile('" + dir_.str("pb.rel.bin") + "').reshape(957, 957)\n"
      "ids = [l.split('\\t')[1].strip() for l in open('" + dir_.str("pb.rel.id") + "').readlines()[1:]]\n"
      "print(m.shape, m.dtype, float(np.abs(m - ref).max()) < 1e-7, list(g['sample_id'][:]) == ids,\n"
      "      g['grm'].chunks, g.attrs['pairwise_counts'], 'pair_count' in g)\n");
  EXPECT_EQ(py.output, "(957, 957) float64 True True (128, 128) True True\n") << py.output;
}

TEST_F(GrmPlink2, EdgeCaseFilesWithMissingCallsMatchPlink2) {
  for (const std::string name : {"plink/plink_sim_10s_100v_10pmiss", "plink/example"}) {
    const std::string bfile = input(name);
    if (bfile.empty() || !fs::exists(bfile + ".bed")) GTEST_SKIP() << strata::testing::kSkipNoSharedData;
    SCOPED_TRACE(name);
    plink2(bfile, "--make-rel", "p");
    plink2(bfile, "--make-rel meanimpute", "pm");
    plink2(bfile, "--make-grm-bin", "pg");
    strata(bfile, "", "s");
    strata(bfile, "--meanimpute", "sm");
    strata(bfile, "--format grm-bin", "sg");
    expect_rel_equal("s.rel", "p.rel", 0.8);
    expect_rel_equal("sm.rel", "pm.rel", 0.8);
    EXPECT_EQ(read_file(dir_.str("s.rel.id")), read_file(dir_.str("p.rel.id")));
    EXPECT_EQ(read_file(dir_.str("sg.grm.N.bin")), read_file(dir_.str("pg.grm.N.bin")));
    EXPECT_EQ(read_file(dir_.str("sg.grm.id")), read_file(dir_.str("pg.grm.id")));
  }
}

// 1 % missing calls: pairwise counts everywhere. .rel.bin within 1e-12 of the float64
// reference and of plink2's, .grm.bin plink2's float32 bits, .grm.N.bin plink2's counts, and
// the same bytes for 1, 2 and 3 threads.
TEST_F(GrmPlink2, SimulatedMissingCohortMatchesFloat64AndPlink2Bits) {
  const int64_t n = 300, m = 3000;
  auto r = run_command(cli() + " simulate --samples 300 --variants 3000 --missing 0.01 --seed 7 -q --out " +
                       dir_.str("miss"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string bfile = dir_.str("miss");
  plink2(bfile, "--make-rel bin", "pb");
  plink2(bfile, "--make-grm-bin", "pg");
  strata(bfile, "--format rel-bin --threads 1", "sb1");
  strata(bfile, "--format rel-bin --threads 2", "sb2");
  strata(bfile, "--format rel-bin --threads 3", "sb3");
  strata(bfile, "--format grm-bin --threads 2", "sg");
  const auto sb = read_binary<double>(dir_.str("sb1.rel.bin")), pb = read_binary<double>(dir_.str("pb.rel.bin"));
  ASSERT_EQ(sb.size(), size_t(n * n));
  ASSERT_EQ(pb.size(), sb.size());
  const auto ref = reference_rel(bfile, n, m);
  double worst_ref = 0, worst_plink2 = 0;
  for (size_t i = 0; i < sb.size(); ++i) {
    worst_ref = std::max(worst_ref, std::fabs(sb[i] - ref[i]));
    worst_plink2 = std::max(worst_plink2, std::fabs(sb[i] - pb[i]));
  }
  EXPECT_LT(worst_ref, 1e-12) << "rel-bin vs the float64 reference";
  EXPECT_LT(worst_plink2, 1e-12) << "rel-bin vs plink2";
  EXPECT_EQ(read_file(dir_.str("sb1.rel.bin")), read_file(dir_.str("sb2.rel.bin")));
  EXPECT_EQ(read_file(dir_.str("sb1.rel.bin")), read_file(dir_.str("sb3.rel.bin")));
  expect_mostly_same_floats(read_binary<float>(dir_.str("sg.grm.bin")), read_binary<float>(dir_.str("pg.grm.bin")),
                            0.9999);
  EXPECT_EQ(read_file(dir_.str("sg.grm.N.bin")), read_file(dir_.str("pg.grm.N.bin")));
}

TEST_F(GrmPlink2, BadInputFailsClearlyAndWritesNothing) {
  auto r = run_command(cli() + " simulate --samples 30 --variants 200 -q --out " + dir_.str("sim"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run_command(cli() + " grm " + dir_.str("sim") + " --format square --out " + dir_.str("o1"));
  STRATA_EXPECT_CLI_ERROR(r, 2, "--format: must be rel, rel-bin, grm-bin or zarr, got 'square'");
  r = run_command(cli() + " grm " + dir_.str("sim") + " --maf 0.5 --out " + dir_.str("o2"));
  STRATA_EXPECT_CLI_ERROR(r, 1, "no variants left after --maf");
  r = run_command(cli() + " simulate --samples 1 --variants 20 --pops 1 -q --out " + dir_.str("one"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run_command(cli() + " grm " + dir_.str("one") + " --format grm-bin --out " + dir_.str("o3"));
  STRATA_EXPECT_CLI_ERROR(r, 1, "a relationship matrix needs at least 2 samples, got 1");
  r = run_command(cli() + " grm " + dir_.str("missing_input") + " --out " + dir_.str("o4"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  // A rerun replaces its own Zarr store (files always are, as plink2 does); a store strata did
  // not write needs --overwrite.
  r = run_command(cli() + " grm " + dir_.str("sim") + " --format zarr -q --out " + dir_.str("sim_grm"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run_command(cli() + " grm " + dir_.str("sim") + " --format zarr -q --out " + dir_.str("sim_grm"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  fs::remove(dir_.path() / "sim_grm.zarr" / ".strata-output");
  r = run_command(cli() + " grm " + dir_.str("sim") + " --format zarr -q --out " + dir_.str("sim_grm"));
  STRATA_EXPECT_CLI_ERROR(r, 1, "sim_grm.zarr already exists and was not written by strata (use --overwrite to replace it)");
  r = run_command(cli() + " grm " + dir_.str("sim") + " --format zarr -q --overwrite --out " + dir_.str("sim_grm"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  r = run_command(cli() + " grm " + dir_.str("sim") + " -q --out " + dir_.str("sim_grm"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run_command(cli() + " grm " + dir_.str("sim") + " -q --out " + dir_.str("sim_grm"));
  EXPECT_EQ(r.exit_code, 0) << "text outputs are replaced without a flag: " << r.output;
  for (const auto& e : fs::directory_iterator(dir_.path())) {
    const std::string f = e.path().filename().string();
    if (f.ends_with(".log")) continue;  // failed runs leave their log, with the error
    EXPECT_TRUE(f.rfind("sim", 0) == 0 || f.rfind("one", 0) == 0) << "left behind: " << f;
  }
}

}  // namespace
}  // namespace strata
