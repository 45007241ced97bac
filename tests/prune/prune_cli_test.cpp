// `strata prune --indep-pairwise` against plink2 --indep-pairwise: the same .prune.in and
// .prune.out, byte for byte, on cohorts with LD (neighbouring variants copied with mutations),
// missing calls, non-founders, several chromosomes, kb windows, sex chromosomes and HapMap3.
#include <filesystem>

#include "testing/sex_chromosome_cohort.hpp"
#include "testing/testing.hpp"

namespace strata::testing {
namespace {

namespace fs = std::filesystem;

bool have_plink2() { return fs::exists("/usr/bin/plink2"); }

std::string hapmap() {
  const std::string d = shared_data_dir();
  const std::string p = d + "/hapmap3/HM3_thinned_autosomal_overlap";
  return !d.empty() && fs::exists(p + ".bed") ? p : std::string();
}

// A PLINK 1 cohort whose neighbouring variants are correlated: most variants copy the previous
// one and re-draw a fraction of the calls, so pruning has pairs above any threshold.
struct LdCohort {
  int64_t samples = 300;
  std::vector<std::pair<std::string, int>> chromosomes = {{"1", 400}, {"2", 250}, {"5", 300}};
  double missing = 0.03;
  bool children = true;
  int64_t bp_gap = 1000;  // mean spacing; every 60th variant jumps 200 kb
  uint64_t seed = 7;
};

void write_ld_cohort(const std::string& prefix, const LdCohort& c) {
  uint64_t state = c.seed * 0x9e3779b97f4a7c15ull + 1;
  auto next = [&]() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  auto uniform = [&]() { return static_cast<double>(next() >> 11) * 0x1.0p-53; };
  const int64_t n = c.samples;
  std::string fam;
  for (int64_t i = 0; i < n; ++i) {
    const bool child = c.children && i % 7 == 6;
    fam += "F" + std::to_string(i) + "\tI" + std::to_string(i) + (child ? "\tI0\tI1\t" : "\t0\t0\t") +
           std::to_string(1 + i % 2) + "\t-9\n";
  }
  std::string bim, bed("\x6c\x1b\x01", 3);
  static const uint8_t kBed[4] = {0b11, 0b10, 0b00, 0b01};  // ALT dosage 0, 1, 2, missing
  int64_t id = 0;
  for (const auto& [chr, count] : c.chromosomes) {
    std::vector<int> prev(static_cast<size_t>(n), 0);
    int64_t pos = 1000;
    for (int j = 0; j < count; ++j) {
      std::vector<int> g(static_cast<size_t>(n));
      const double p = 0.02 + 0.96 * uniform();
      const double u = uniform();
      const bool copy = j > 0 && u < 0.75;
      const double redraw = 0.02 + 0.5 * uniform();
      for (int64_t i = 0; i < n; ++i) {
        int x = (uniform() < p) + (uniform() < p);
        if (copy && uniform() > redraw) x = prev[static_cast<size_t>(i)];
        if (u > 0.97) x = 0;  // a few monomorphic variants
        g[static_cast<size_t>(i)] = x;
      }
      prev = g;
      std::string row(static_cast<size_t>((n + 3) / 4), '\0');
      for (int64_t i = 0; i < n; ++i) {
        const int x = uniform() < c.missing ? 3 : g[static_cast<size_t>(i)];
        row[static_cast<size_t>(i / 4)] = static_cast<char>(row[static_cast<size_t>(i / 4)] | (kBed[x] << (2 * (i % 4))));
      }
      bed += row;
      pos += j % 60 == 59 ? 200000 : 1 + static_cast<int64_t>(uniform() * 2 * c.bp_gap);
      bim += chr + "\tv" + std::to_string(id++) + "\t0\t" + std::to_string(pos) + "\tA\tG\n";
    }
  }
  write_file(prefix + ".bed", bed);
  write_file(prefix + ".bim", bim);
  write_file(prefix + ".fam", fam);
}

// Run both tools with `args` after the input and compare the lists.
void expect_same_as_plink2(const std::string& input, const std::string& window, const std::string& extra = "",
                           const std::string& strata_extra = "") {
  TempDir tmp;
  auto p = run_command("cd " + tmp.str() + " && /usr/bin/plink2 --bfile " + input + " --indep-pairwise " + window +
                       " " + extra + " --out p2 --threads 2");
  ASSERT_EQ(p.exit_code, 0) << p.output;
  for (const char* threads : {"1", "2", "3"}) {
    auto s = run_command(strata_cli_path() + " prune " + input + " --indep-pairwise " + window + " " + extra + " " +
                         strata_extra + " --out " + tmp.str("s") + " --threads " + threads);
    ASSERT_EQ(s.exit_code, 0) << s.output;
    const std::string in = read_file(tmp.str("p2.prune.in")), out = read_file(tmp.str("p2.prune.out"));
    EXPECT_FALSE(in.empty());
    EXPECT_FALSE(out.empty()) << "window " << window << ": nothing pruned, a weak test";
    EXPECT_EQ(read_file(tmp.str("s.prune.in")), in) << "window " << window << " threads " << threads;
    EXPECT_EQ(read_file(tmp.str("s.prune.out")), out) << "window " << window << " threads " << threads;
  }
}

class PruneOracle : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_plink2()) GTEST_SKIP() << kSkipNoPlink2;
  }
};

TEST_F(PruneOracle, LdCohortCountWindowsEqualPlink2) {
  TempDir tmp;
  write_ld_cohort(tmp.str("c"), {});
  for (const char* w : {"50 5 0.2", "20 1 0.5", "10 10 0.05", "7 3 0.9", "2 1 0.3"}) expect_same_as_plink2(tmp.str("c"), w);
}

TEST_F(PruneOracle, LdCohortKbWindowsEqualPlink2) {
  TempDir tmp;
  write_ld_cohort(tmp.str("c"), {});
  for (const char* w : {"20kb 0.2", "20 kb 1 0.2", "5kb 1 0.1", "250 kb 0.5", "0.5kb 0.2"})
    expect_same_as_plink2(tmp.str("c"), w);
}

TEST_F(PruneOracle, LongChromosomeReadAheadEqualsPlink2) {
  // One chromosome of several read-ahead batches: with 2 or 3 threads the sweep runs while the
  // next batch is read, which a cohort of short chromosomes never reaches.
  TempDir tmp;
  LdCohort c;
  c.samples = 77, c.chromosomes = {{"3", 6000}};
  write_ld_cohort(tmp.str("c"), c);
  expect_same_as_plink2(tmp.str("c"), "50 5 0.2");
  expect_same_as_plink2(tmp.str("c"), "300 40 0.1");
}

TEST_F(PruneOracle, NoMissingAllFoundersEqualPlink2) {
  TempDir tmp;
  LdCohort c;
  c.missing = 0, c.children = false, c.samples = 129;
  write_ld_cohort(tmp.str("c"), c);
  expect_same_as_plink2(tmp.str("c"), "50 5 0.2");
  expect_same_as_plink2(tmp.str("c"), "30kb 0.3");
}

TEST_F(PruneOracle, SelectionAppliedBeforePruning) {
  TempDir tmp;
  write_ld_cohort(tmp.str("c"), {});
  expect_same_as_plink2(tmp.str("c"), "50 5 0.2", "--maf 0.05 --geno 0.1");
  expect_same_as_plink2(tmp.str("c"), "50 5 0.2", "--chr 2");
}

TEST_F(PruneOracle, SexChromosomesEqualPlink2) {
  TempDir tmp;
  write_sex_chromosome_cohort(tmp.str("x"), /*children=*/true);
  // The cohort has no LD: a low threshold still removes pairs, and the monomorphic rules show.
  expect_same_as_plink2(tmp.str("x"), "20 3 0.02");
  expect_same_as_plink2(tmp.str("x"), "10kb 0.03");
}

TEST_F(PruneOracle, HapMap3EqualsPlink2) {
  if (hapmap().empty()) GTEST_SKIP() << "HapMap3 absent; " << kSkipNoSharedData;
  // The thinned set is in weak LD: low thresholds give plink2 thousands of variants to remove.
  expect_same_as_plink2(hapmap(), "50 5 0.01");
  expect_same_as_plink2(hapmap(), "100 10 0.05");
  expect_same_as_plink2(hapmap(), "1000kb 0.02");
}

TEST(PruneCli, BadWindowsExitTwoWithoutOutput) {
  TempDir tmp;
  write_ld_cohort(tmp.str("c"), {});
  for (const char* w : {"0 1 0.2", "50 0 0.2", "50 5 0", "50 5 1.5", "50 5 -0.1", "10 20 0.2", "20kb 2 0.2", "x 5 0.2"}) {
    auto r = run_command(strata_cli_path() + " prune " + tmp.str("c") + " --indep-pairwise " + w + " --out " +
                         tmp.str("o"));
    STRATA_EXPECT_CLI_ERROR(r, 2, "--indep-pairwise");
    EXPECT_FALSE(fs::exists(tmp.str("o.prune.in"))) << w;
    EXPECT_FALSE(fs::exists(tmp.str("o.prune.out"))) << w;
  }
}

TEST(PruneCli, DuplicateIdsAreRefused) {
  TempDir tmp;
  LdCohort c;
  c.chromosomes = {{"1", 30}};
  write_ld_cohort(tmp.str("c"), c);
  std::string bim = read_file(tmp.str("c.bim"));
  bim.replace(bim.find("\tv1\t"), 4, "\tv0\t");
  write_file(tmp.str("c.bim"), bim);
  auto r = run_command(strata_cli_path() + " prune " + tmp.str("c") + " --indep-pairwise 10 1 0.2 --out " + tmp.str("o"));
  STRATA_EXPECT_CLI_ERROR(r, 2, "variant ID 'v0' appears more than once");
  EXPECT_FALSE(fs::exists(tmp.str("o.prune.in")));
}

// --prune on pca, king and grm is `strata prune` with the same selection and then --extract of
// its .prune.in: the same output bytes, with the selection applied before the pruning.
TEST(PruneCli, PruneFlagEqualsExtractingTheList) {
  TempDir tmp;
  write_ld_cohort(tmp.str("c"), {});
  const std::string bin = strata_cli_path() + " ", in = tmp.str("c") + " ";
  const std::string select = " --maf 0.05 --geno 0.1";
  auto ok = [](const std::string& cmd) {
    auto r = run_command(cmd);
    ASSERT_EQ(r.exit_code, 0) << cmd << "\n" << r.output;
  };
  ok(bin + "prune " + in + "--indep-pairwise 20 3 0.3" + select + " --out " + tmp.str("p"));
  const int64_t kept = static_cast<int64_t>(read_rows(tmp.str("p.prune.in")).size());
  ASSERT_GT(kept, 0);
  ASSERT_GT(static_cast<int64_t>(read_rows(tmp.str("p.prune.out")).size()), 0);  // pruning had work
  struct Case {
    std::string command, file;
  };
  for (const Case& c : {Case{"pca -k 3 --method exact", ".eigenvec"}, Case{"king", ".king"}, Case{"grm", ".rel"}}) {
    SCOPED_TRACE(c.command);
    ok(bin + c.command + " " + in + select + " --extract " + tmp.str("p.prune.in") + " --out " + tmp.str("a") + " -q");
    ok(bin + c.command + " " + in + select + " --prune 20 3 0.3 --out " + tmp.str("b") + " -q");
    EXPECT_EQ(read_file(tmp.str("b" + c.file)), read_file(tmp.str("a" + c.file)));
    EXPECT_NE(read_file(tmp.str("b.log")).find("--prune 20 3 0.3: "), std::string::npos);
  }
}

TEST(PruneCli, BadPruneFlagExitsTwoWithoutOutput) {
  TempDir tmp;
  write_ld_cohort(tmp.str("c"), {});
  for (const char* w : {"50 0 0.2", "50 5 1.5", "x 5 0.2"}) {
    auto r = run_command(strata_cli_path() + " pca " + tmp.str("c") + " -k 2 --prune " + w + " --out " + tmp.str("o"));
    STRATA_EXPECT_CLI_ERROR(r, 2, "--prune");
    EXPECT_FALSE(fs::exists(tmp.str("o.eigenvec"))) << w;
  }
}

}  // namespace
}  // namespace strata::testing
