// Simulation: what each draw is keyed by, chunk/thread invariance, the model's frequencies,
// and plink2 reading the output.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "core/test_context.hpp"
#include "strata/core/random.hpp"
#include "strata/core/thread_pool.hpp"
#include "strata/genomics/simulate.hpp"
#include "strata/genomics/qc.hpp"
#include "strata/io/plink.hpp"
#include "testing/testing.hpp"

using strata::testing::test_ctx;

namespace strata::genomics {
namespace {

using strata::testing::TempDir;

// n samples and m variants in `pops` populations at Fst `fst`, a fraction `missing` of calls missing.
SimulateOptions options(int64_t n, int64_t m, int64_t pops, double fst, double missing, uint64_t seed) {
  SimulateOptions o;
  o.num_samples = n, o.num_variants = m, o.num_pops = pops;
  o.fst = fst, o.missing = missing, o.seed = seed;
  return o;
}

SimulateOptions small_options() { return options(203, 157, 3, 0.1, 0.05, 42); }

// Without structure every call is keyed element-wise: threshold t_v from the variant's draw
// sequence (stream 2), alleles = words 2g and 2g + 1 of stream 0, missingness = word g of
// stream 1, g = v·N + s. Recomputed here one word at a time, apart from the bulk kernels.
TEST(Simulate, CallsKeyedByCallIndex) {
  SimulateOptions o = small_options();
  o.fst = 0.0;
  o.num_pops = 1;
  STRATA_ASSERT_OK_AND_ASSIGN(auto view, make_simulated_genotypes(o));
  STRATA_ASSERT_OK_AND_ASSIGN(auto block, io::read_genotype_block(*view, 0, o.num_variants));
  const uint64_t mt = static_cast<uint64_t>(std::ldexp(o.missing, 32));
  int64_t missing = 0;
  for (int64_t v = 0; v < o.num_variants; ++v) {
    random::Sequence d(o.seed, 2, static_cast<uint64_t>(v));
    const auto t = static_cast<uint64_t>(std::ldexp(0.05 + 0.9 * d.uniform(), 32));
    for (int64_t s = 0; s < o.num_samples; ++s) {
      const uint64_t g = static_cast<uint64_t>(v * o.num_samples + s);
      int code = (random::word_at(o.seed, 0, 2 * g) < t) + (random::word_at(o.seed, 0, 2 * g + 1) < t);
      if (random::word_at(o.seed, 1, g) < mt) code = io::kCodeMissing;
      missing += code == io::kCodeMissing;
      ASSERT_EQ(io::code_at(block.row(v), s), code) << v << " " << s;
    }
  }
  EXPECT_GT(missing, 0);
}

TEST(Simulate, BlocksAndSampleRangesAgree) {
  const auto o = small_options();
  STRATA_ASSERT_OK_AND_ASSIGN(auto view, make_simulated_genotypes(o));
  STRATA_ASSERT_OK_AND_ASSIGN(auto full, io::read_genotype_block(*view, 0, o.num_variants));
  // Odd block shapes and unaligned sample ranges must give the same codes.
  for (int64_t v0 : {0, 13, 100}) {
    for (int64_t s0 : {0, 1, 3, 50}) {
      STRATA_ASSERT_OK_AND_ASSIGN(auto part, io::read_genotype_block(*view, v0, 31, s0, 77));
      for (int64_t v = 0; v < 31; ++v)
        for (int64_t s = 0; s < 77; ++s)
          ASSERT_EQ(io::code_at(part.row(v), s), io::code_at(full.row(v0 + v), s0 + s));
    }
  }
}

TEST(Simulate, FilesIdenticalForAnyThreadsAndBlocks) {
  const auto o = small_options();
  TempDir tmp;
  const Context one = strata::testing::make_test_context(1), two = strata::testing::make_test_context(2);
  STRATA_ASSERT_OK(simulate_to_files(one, o, tmp.str("a"), SimulateFormat::Bed));
  STRATA_ASSERT_OK(simulate_to_files(two, o, tmp.str("b"), SimulateFormat::Bed));
  STRATA_ASSERT_OK_AND_ASSIGN(auto view, make_simulated_genotypes(o));
  io::PlinkWriteOptions po;
  po.block_variants = 5;
  STRATA_ASSERT_OK(io::write_plink(two, *view, tmp.str("c"), po));
  const std::string a = strata::testing::read_file(tmp.str("a.bed"));
  EXPECT_EQ(a.size(), 3u + 157u * 51u);
  EXPECT_EQ(a, strata::testing::read_file(tmp.str("b.bed")));
  EXPECT_EQ(a, strata::testing::read_file(tmp.str("c.bed")));
  EXPECT_EQ(strata::testing::read_file(tmp.str("a.fam")), strata::testing::read_file(tmp.str("c.fam")));
  // A different seed gives different data.
  auto o2 = o;
  o2.seed = 43;
  STRATA_ASSERT_OK(simulate_to_files(test_ctx(), o2, tmp.str("d"), SimulateFormat::Bed));
  EXPECT_NE(a, strata::testing::read_file(tmp.str("d.bed")));
}

TEST(Simulate, PopulationsAndModel) {
  const SimulateOptions o = options(3000, 400, 4, 0.05, 0.02, 7);
  const auto pops = simulated_populations(o);
  ASSERT_EQ(pops.size(), 3000u);
  EXPECT_TRUE(std::is_sorted(pops.begin(), pops.end()));
  for (int k = 0; k < 4; ++k) {
    const auto n = std::count(pops.begin(), pops.end(), k);
    EXPECT_NEAR(n, 750, 100) << k;
  }
  STRATA_ASSERT_OK_AND_ASSIGN(auto view, make_simulated_genotypes(o));
  EXPECT_EQ(view->samples().family_id[0], "pop0");
  EXPECT_EQ(view->samples().family_id[2999], "pop3");
  STRATA_ASSERT_OK_AND_ASSIGN(auto counts, genomics::compute_variant_counts(test_ctx(), *view));
  double miss = 0, mean_f = 0, het = 0, het_expected = 0;
  for (const auto& c : counts) {
    miss += c.missing_rate();
    mean_f += c.alt_freq();
    het += double(c.het) / double(c.observed());
    const double f = c.alt_freq();
    het_expected += 2 * f * (1 - f);
  }
  EXPECT_NEAR(miss / 400, 0.02, 0.002);
  EXPECT_NEAR(mean_f / 400, 0.5, 0.03);  // ancestral p ~ U(0.05, 0.95)
  // Population structure lowers pooled heterozygosity by about F_ST (Wahlund effect).
  EXPECT_NEAR(1 - het / het_expected, 0.05, 0.02);
}

TEST(Simulate, NoStructureWhenFstIsZero) {
  SimulateOptions o;
  o.num_samples = 4000;
  o.num_variants = 200;
  o.fst = 0.0;
  STRATA_ASSERT_OK_AND_ASSIGN(auto view, make_simulated_genotypes(o));
  STRATA_ASSERT_OK_AND_ASSIGN(auto counts, genomics::compute_variant_counts(test_ctx(), *view));
  double het = 0, het_expected = 0;
  for (const auto& c : counts) {
    het += double(c.het) / double(c.observed());
    het_expected += 2 * c.alt_freq() * (1 - c.alt_freq());
  }
  EXPECT_NEAR(1 - het / het_expected, 0.0, 0.01);
  EXPECT_EQ(counts[0].missing, 0);
}

TEST(Simulate, RejectsBadOptions) {
  SimulateOptions o;
  o.fst = 1.0;
  STRATA_EXPECT_STATUS(validate_simulate_options(o), StatusCode::Invalid, "--fst");
  o = {};
  o.missing = -0.1;
  STRATA_EXPECT_STATUS(validate_simulate_options(o), StatusCode::Invalid, "--missing");
  o = {};
  o.num_pops = 0;
  STRATA_EXPECT_STATUS(validate_simulate_options(o), StatusCode::Invalid, "--pops");
  o = {};
  o.num_samples = int64_t{1} << 40;
  o.num_variants = int64_t{1} << 40;
  STRATA_EXPECT_STATUS(validate_simulate_options(o), StatusCode::Invalid,
                       "^--variants 1099511627776 x --samples 1099511627776 genotypes do not fit in 64-bit sizes$");
}

TEST(Simulate, Plink2ReadsOutput) {
  if (!std::filesystem::exists("/usr/bin/plink2")) GTEST_SKIP() << strata::testing::kSkipNoPlink2;
  auto o = small_options();
  TempDir tmp;
  SimulateWriteOptions w;
  STRATA_ASSERT_OK(simulate_to_files(test_ctx(), o, tmp.str("sim"), SimulateFormat::Bed, w));
  auto r = strata::testing::run_command("cd " + tmp.str() + " && /usr/bin/plink2 --bfile sim --freq counts --out p2 --threads 1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, ::testing::HasSubstr("203 samples"));
  EXPECT_THAT(r.output, ::testing::HasSubstr("157 variants"));
  STRATA_ASSERT_OK_AND_ASSIGN(auto view, make_simulated_genotypes(o));
  STRATA_ASSERT_OK_AND_ASSIGN(auto counts, genomics::compute_variant_counts(test_ctx(), *view));
  // plink2's ALT_CTS (ALT = .bim column 5) equals our ALT allele count.
  std::istringstream acount(strata::testing::read_file(tmp.str("p2.acount")));
  std::string line;
  std::getline(acount, line);
  EXPECT_EQ(line, "#CHROM\tID\tREF\tALT\tALT_CTS\tOBS_CT");
  for (const auto& c : counts) {
    ASSERT_TRUE(std::getline(acount, line));
    std::istringstream ls(line);
    std::string chrom, id, ref, alt;
    int64_t alt_ct = -1, obs = -1;
    ls >> chrom >> id >> ref >> alt >> alt_ct >> obs;
    EXPECT_EQ(ref, "G");
    EXPECT_EQ(alt, "A");
    EXPECT_EQ(alt_ct, c.alt_alleles()) << id;
    EXPECT_EQ(obs, c.allele_count()) << id;
  }
}

}  // namespace
}  // namespace strata::genomics
