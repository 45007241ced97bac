// The selection layer on small in-memory cohorts: the subset view against a direct gather,
// ID files, --chr lists, the order of the counting filters, the HWE test's known values.
#include <random>

#include "core/test_context.hpp"
#include "strata/genomics/selection.hpp"
#include "strata/genomics/qc.hpp"
#include "testing/testing.hpp"

using strata::testing::test_ctx;

namespace strata::genomics {
namespace {

using namespace strata::io;

// m × n random codes (about 10 % missing), contigs 1 and X, positions 100·(v + 1).
GenotypeViewPtr random_view(int64_t m, int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> codes(static_cast<size_t>(m * packed_row_bytes(n)), 0xFF);
  VariantInfo info;
  for (int64_t v = 0; v < m; ++v) {
    for (int64_t s = 0; s < n; ++s) set_code(codes.data() + v * packed_row_bytes(n), s, rng() % 10 == 0 ? 3 : rng() % 3);
    info.contig.push_back(v < m / 2 ? 0 : 1);
    info.position.push_back(100 * (v + 1));
    info.id.push_back("v" + std::to_string(v));
    info.ref.emplace_back("A");
    info.alt.emplace_back("C");
    info.cm.push_back(0);
  }
  SampleInfo si;
  for (int64_t s = 0; s < n; ++s) {
    si.id.push_back("s" + std::to_string(s));
    si.family_id.push_back(s % 2 ? "F" : "0");
    si.paternal_id.push_back(s == 3 ? "s0" : "0");
    si.maternal_id.push_back("0");
  }
  auto view = make_memory_genotypes(std::move(codes), m, n, std::move(si), {"1", "chrX"}, std::move(info));
  EXPECT_TRUE(view.ok());
  return *view;
}

TEST(Selection, SubsetViewReadsTheKeptCodesForAnyBox) {
  const auto base = random_view(37, 53, 1);
  const std::vector<int64_t> samples = {0, 2, 3, 4, 5, 9, 17, 18, 19, 20, 31, 44, 52};
  const std::vector<int64_t> variants = {1, 2, 3, 10, 20, 36};
  STRATA_ASSERT_OK_AND_ASSIGN(auto sub, make_genotype_subset(base, samples, variants));
  ASSERT_EQ(sub->num_samples(), 13);
  ASSERT_EQ(sub->num_variants(), 6);
  EXPECT_EQ(sub->samples().id[5], "s9");
  STRATA_ASSERT_OK_AND_ASSIGN(auto full, read_genotype_block(*base, 0, base->num_variants()));
  for (int64_t s0 : {0, 1, 5})
    for (int64_t ns : {1, 4, 7}) {
      if (s0 + ns > 13) continue;
      STRATA_ASSERT_OK_AND_ASSIGN(auto b, read_genotype_block(*sub, 1, 4, s0, ns));
      for (int64_t v = 0; v < 4; ++v) {
        for (int64_t j = 0; j < ns; ++j)
          EXPECT_EQ(code_at(b.row(v), j), code_at(full.row(variants[v + 1]), samples[s0 + j])) << v << "," << j;
        for (int64_t j = ns; j < 4 * b.stride; ++j) EXPECT_EQ(code_at(b.row(v), j), 3) << "padding";
      }
    }
  EXPECT_FALSE(make_genotype_subset(base, {3, 2}, {}).ok());
  EXPECT_FALSE(make_genotype_subset(base, {0}, {37}).ok());
}

// A subset of a subset (the selection counts males among the samples --mind left) reads the
// same codes as the composed subset. Both levels gather through one function, which shared a
// thread's buffer with the level below it (the inner read reallocated the rows the outer one
// was about to gather).
TEST(Selection, SubsetOfASubsetReadsTheComposedSamples) {
  const auto base = random_view(300, 41, 3);  // 300 variants, 41 samples
  const std::vector<int64_t> outer = {1, 3, 4, 8, 13, 14, 20, 27, 33, 39, 40};
  const std::vector<int64_t> inner = {0, 2, 5, 9, 10};  // positions within `outer`
  std::vector<int64_t> all(300);
  for (int64_t v = 0; v < 300; ++v) all[static_cast<size_t>(v)] = v;
  STRATA_ASSERT_OK_AND_ASSIGN(auto a, make_genotype_subset(base, outer, all));
  STRATA_ASSERT_OK_AND_ASSIGN(auto ab, make_genotype_subset(a, inner, all));
  std::vector<int64_t> composed;
  for (int64_t i : inner) composed.push_back(outer[static_cast<size_t>(i)]);
  STRATA_ASSERT_OK_AND_ASSIGN(auto direct, make_genotype_subset(base, composed, all));
  STRATA_ASSERT_OK_AND_ASSIGN(auto x, read_genotype_block(*ab, 0, 300));
  STRATA_ASSERT_OK_AND_ASSIGN(auto y, read_genotype_block(*direct, 0, 300));
  for (int64_t v = 0; v < 300; ++v)
    for (int64_t j = 0; j < 5; ++j) ASSERT_EQ(code_at(x.row(v), j), code_at(y.row(v), j)) << v << "," << j;
}

TEST(Selection, ChromosomeLists) {
  STRATA_ASSERT_OK_AND_ASSIGN(auto set, ChromosomeSet::parse("1-4, 22,X chrMT"));
  for (const char* yes : {"1", "chr3", "4", "22", "X", "chrX", "23", "MT", "26", "chrM"}) EXPECT_TRUE(set.contains(yes)) << yes;
  for (const char* no : {"5", "21", "Y", "XY", "scaffold_1"}) EXPECT_FALSE(set.contains(no)) << no;
  EXPECT_EQ(set.size(), 7);
  STRATA_ASSERT_OK_AND_ASSIGN(auto one, ChromosomeSet::parse("chr7"));
  EXPECT_EQ(one.size(), 1);
  EXPECT_FALSE(ChromosomeSet::parse("4-2").ok());
  EXPECT_FALSE(ChromosomeSet::parse("1-X2").ok());
  EXPECT_FALSE(ChromosomeSet::parse(" , ").ok());
}

TEST(Selection, IdFilesAndOrder) {
  testing::TempDir dir;
  testing::write_file(dir.str("k.txt"), "#IID\ts\n s0 x\n\ns2\n# comment\nnobody\n");
  testing::write_file(dir.str("r.txt"), "F s1\nF s3 0 0 1 2\n0 s2\n");
  testing::write_file(dir.str("e.txt"), "v3 v4\nv5\tv99\n");
  STRATA_ASSERT_OK_AND_ASSIGN(auto keys, read_sample_id_file(dir.str("k.txt")));
  EXPECT_EQ(keys, (std::vector<std::string>{"0\ts0", "0\ts2", "0\tnobody"}));
  const auto base = random_view(40, 8, 2);
  SelectionOptions o;
  o.remove = {dir.str("r.txt")};
  o.exclude = {dir.str("e.txt")};
  o.chr = "X";
  STRATA_ASSERT_OK_AND_ASSIGN(auto sel, select_genotypes(test_ctx(), base, o));
  EXPECT_EQ(sel.samples, (std::vector<int64_t>{0, 4, 5, 6, 7}));
  EXPECT_EQ(sel.variants.front(), 20);
  EXPECT_EQ(sel.variants.size(), 20u);
  EXPECT_EQ(sel.report.exclude_unmatched, 1);
  o.chr = "1";
  o.from_bp = 350;
  o.to_bp = 1000.7;
  STRATA_ASSERT_OK_AND_ASSIGN(sel, select_genotypes(test_ctx(), base, o));
  EXPECT_EQ(sel.variants, (std::vector<int64_t>{6, 7, 8, 9}));  // 400..1000 less v3, v4, v5
  // --keep before --remove: {s0, s2}, then s2 removed; "F s1" is in the data, so not unmatched.
  o.keep = {dir.str("k.txt")};
  STRATA_ASSERT_OK_AND_ASSIGN(sel, select_genotypes(test_ctx(), base, o));
  EXPECT_EQ(sel.samples, (std::vector<int64_t>{0}));
  EXPECT_EQ(sel.report.keep_unmatched, 1);
  EXPECT_EQ(sel.report.remove_unmatched, 0);
  o.remove.push_back(dir.str("k.txt"));
  EXPECT_EQ(select_genotypes(test_ctx(), base, o).status().code(), StatusCode::InvalidData);
}

TEST(Selection, CountingFiltersMatchADirectComputation) {
  const auto base = random_view(200, 30, 3);
  STRATA_ASSERT_OK_AND_ASSIGN(auto counts, compute_variant_counts(test_ctx(), *base));
  SelectionOptions o;
  o.geno = 0.1;
  o.maf = 0.3;
  STRATA_ASSERT_OK_AND_ASSIGN(auto sel, select_genotypes(test_ctx(), base, o));
  std::vector<int64_t> expect;
  for (int64_t v = 0; v < 200; ++v) {
    const auto& c = counts[static_cast<size_t>(v)];
    if (double(c.missing) / 30.0 > 0.1) continue;
    // MAF over founders: every sample but s3 (its father is listed).
    STRATA_ASSERT_OK_AND_ASSIGN(auto row, read_genotype_block(*base, v, 1));
    int64_t alt = 0, obs = 0;
    for (int64_t s = 0; s < 30; ++s) {
      const int g = code_at(row.row(0), s);
      if (s == 3 || g == 3) continue;
      alt += g;
      obs += 2;
    }
    if (obs > 0 && double(std::min(alt, obs - alt)) / double(obs) < 0.3) continue;
    expect.push_back(v);
  }
  EXPECT_EQ(sel.variants, expect);
  EXPECT_EQ(sel.report.removed_geno + sel.report.removed_maf + static_cast<int64_t>(expect.size()), 200);
}

TEST(Selection, HweExactKnownValues) {
  EXPECT_DOUBLE_EQ(hwe_exact_p(0, 0, 0), 1.0);
  // Ties with the observed count are in the tail (plink2: 1 for both).
  EXPECT_DOUBLE_EQ(hwe_exact_p(3, 1, 5), 1.0);
  EXPECT_DOUBLE_EQ(hwe_exact_p(2, 3, 1), 1.0);
  // Direct sum over the het-count distribution (n = 10 genotypes, 6 rare alleles).
  EXPECT_NEAR(hwe_exact_p(0, 7, 3), 0.0030959752321981426, 1e-15);
  EXPECT_LT(hwe_exact_p(0, 500, 500), 1e-200);
}

}  // namespace
}  // namespace strata::genomics
