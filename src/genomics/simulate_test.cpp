// Simulation: the Philox known answers, chunk/thread invariance, the model's frequencies, and
// plink2 reading the output.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "genomics/simulate_kernels_internal.hpp"
#include "genomics/simulate_rng_internal.hpp"
#include "strata/core/thread_pool.hpp"
#include "strata/genomics/simulate.hpp"
#include "strata/io/genotype_stats.hpp"
#include "strata/io/plink.hpp"
#include "testing/testing.hpp"

namespace strata::genomics {
namespace {

using strata::testing::TempDir;

TEST(SimulateRng, PhiloxKnownAnswers) {
  // Random123 KAT vectors (formats.md §9).
  using detail::Philox;
  auto a = Philox::block(0, 0, 0, 0, 0, 0);
  EXPECT_EQ(a, (std::array<uint32_t, 4>{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  auto b = Philox::block(~0u, ~0u, ~0u, ~0u, ~0u, ~0u);
  EXPECT_EQ(b, (std::array<uint32_t, 4>{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  auto c = Philox::block(0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0);
  EXPECT_EQ(c, (std::array<uint32_t, 4>{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
  auto d = Philox::block(0, 0, 0, 0, 1234, 0);
  EXPECT_EQ(d, (std::array<uint32_t, 4>{0x2090b348, 0xda7cf0ab, 0x4401906f, 0xcbca470e}));
}

TEST(SimulateRng, BatchedWordsEqualElementWise) {
  for (const char* isa : {"portable", "avx2", "avx512"}) {
    if (!detail::set_philox_isa(isa)) continue;
    SCOPED_TRACE(isa);
    // The last start puts the Philox counter across a 2^32 boundary inside one batch.
    for (uint64_t g0 : {uint64_t{0}, uint64_t{1}, uint64_t{3}, uint64_t{1} << 33, (uint64_t{1} << 33) - 5}) {
      for (int64_t count : {1, 2, 31, 32, 33, 100}) {
        std::vector<uint32_t> a(count), b(count), m(count);
        detail::allele_words(77, g0, count, a.data(), b.data());
        detail::missing_words(77, g0, count, m.data());
        for (int64_t i = 0; i < count; ++i) {
          const uint64_t g = g0 + static_cast<uint64_t>(i);
          ASSERT_EQ(a[i], detail::philox_at(77, detail::kStreamAlleles, 2 * g)[(2 * g) & 3]) << g;
          ASSERT_EQ(b[i], detail::philox_at(77, detail::kStreamAlleles, 2 * g + 1)[(2 * g + 1) & 3]) << g;
          ASSERT_EQ(m[i], detail::philox_at(77, detail::kStreamMissing, g)[g & 3]) << g;
        }
      }
    }
  }
  detail::set_philox_isa("best");
}

SimulateOptions small_options() {
  SimulateOptions o;
  o.num_samples = 203;
  o.num_variants = 157;
  o.num_pops = 3;
  o.fst = 0.1;
  o.missing = 0.05;
  o.seed = 42;
  return o;
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
  ThreadPool one(1), two(2);
  SimulateWriteOptions w1;
  w1.pool = &one;
  w1.progress = false;
  STRATA_ASSERT_OK(simulate_to_files(o, tmp.str("a"), SimulateFormat::Bed, w1));
  SimulateWriteOptions w2 = w1;
  w2.pool = &two;
  STRATA_ASSERT_OK(simulate_to_files(o, tmp.str("b"), SimulateFormat::Bed, w2));
  STRATA_ASSERT_OK_AND_ASSIGN(auto view, make_simulated_genotypes(o));
  io::PlinkWriteOptions po;
  po.block_variants = 5;
  po.pool = &two;
  STRATA_ASSERT_OK(io::write_plink(*view, tmp.str("c"), po));
  const std::string a = strata::testing::read_file(tmp.str("a.bed"));
  EXPECT_EQ(a.size(), 3u + 157u * 51u);
  EXPECT_EQ(a, strata::testing::read_file(tmp.str("b.bed")));
  EXPECT_EQ(a, strata::testing::read_file(tmp.str("c.bed")));
  EXPECT_EQ(strata::testing::read_file(tmp.str("a.fam")), strata::testing::read_file(tmp.str("c.fam")));
  // A different seed gives different data.
  auto o2 = o;
  o2.seed = 43;
  STRATA_ASSERT_OK(simulate_to_files(o2, tmp.str("d"), SimulateFormat::Bed, w1));
  EXPECT_NE(a, strata::testing::read_file(tmp.str("d.bed")));
}

TEST(Simulate, PopulationsAndModel) {
  SimulateOptions o;
  o.num_samples = 3000;
  o.num_variants = 400;
  o.num_pops = 4;
  o.fst = 0.05;
  o.missing = 0.02;
  o.seed = 7;
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
  STRATA_ASSERT_OK_AND_ASSIGN(auto counts, io::compute_variant_counts(*view));
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
  STRATA_ASSERT_OK_AND_ASSIGN(auto counts, io::compute_variant_counts(*view));
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
  EXPECT_FALSE(validate_simulate_options(o).ok());
}

TEST(Simulate, Plink2ReadsOutput) {
  if (!std::filesystem::exists("/usr/bin/plink2")) GTEST_SKIP() << "plink2 not installed";
  auto o = small_options();
  TempDir tmp;
  SimulateWriteOptions w;
  w.progress = false;
  STRATA_ASSERT_OK(simulate_to_files(o, tmp.str("sim"), SimulateFormat::Bed, w));
  auto r = strata::testing::run_command("cd " + tmp.str() + " && /usr/bin/plink2 --bfile sim --freq counts --out p2 --threads 1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, ::testing::HasSubstr("203 samples"));
  EXPECT_THAT(r.output, ::testing::HasSubstr("157 variants"));
  STRATA_ASSERT_OK_AND_ASSIGN(auto view, make_simulated_genotypes(o));
  STRATA_ASSERT_OK_AND_ASSIGN(auto counts, io::compute_variant_counts(*view));
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
