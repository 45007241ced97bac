// BGEN reader on files written by hand (bgen_test_writer.hpp): every layout / compression /
// bit depth, ploidy 1, missing and phased calls, multi-allelic sites, sample IDs, bad input.
// The plink2-written files are tested in tests/genotype/bgen_plink2_test.cpp.
#include <cfenv>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "io/genotype/bgen_test_writer.hpp"
#include "strata/io/genotype.hpp"
#include "testing/testing.hpp"

namespace strata::io {
namespace {

namespace fs = std::filesystem;
using namespace strata::io::bgen_test;
using strata::testing::TempDir;
using strata::testing::write_file;

void write_bytes(const std::string& path, const std::vector<uint8_t>& b) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

// Expected ALT dosage (×16384) of a diploid unphased layout-2 call as plink2 imports it: the REF
// dosage 2·P(AA) + P(AB) rounded up from 2^(bits−1)/mask of a unit (exact at one bit), ALT = 2 − it.
int64_t expected_diploid(uint64_t aa, uint64_t ab, int bits) {
  const long double mask = std::ldexp(1.0L, bits) - 1;
  const long double half = bits == 1 ? 0 : std::ldexp(1.0L, bits - 1);
  return 32768 - static_cast<int64_t>(std::floor(((2.0L * aa + ab) * 16384 + half) / mask));
}

struct Read {
  std::vector<std::vector<int>> codes;     // [variant][sample], 3 = missing
  std::vector<std::vector<float>> dosage;  // NaN = missing
};

Read read_all(const GenotypeView& view) {
  Read r;
  const int64_t m = view.num_variants(), n = view.num_samples();
  auto block = read_genotype_block(view, 0, m);
  EXPECT_TRUE(block.ok()) << block.status().to_string();
  std::vector<float> d(static_cast<size_t>(std::max<int64_t>(1, m * n)));
  const Status s = view.read_dosages(0, m, 0, n, d.data(), n);
  EXPECT_TRUE(s.ok()) << s.to_string();
  if (!block.ok() || !s.ok()) return r;
  for (int64_t v = 0; v < m; ++v) {
    r.codes.emplace_back();
    r.dosage.emplace_back();
    for (int64_t j = 0; j < n; ++j) {
      r.codes.back().push_back(code_at(block->row(v), j));
      r.dosage.back().push_back(d[static_cast<size_t>(v * n + j)]);
    }
  }
  return r;
}

Result<GenotypeViewPtr> open_bytes(const TempDir& tmp, const std::vector<uint8_t>& bytes,
                                   const std::string& name = "x.bgen", const GenotypeOpenOptions& o = {}) {
  write_bytes(tmp.str(name), bytes);
  return open_genotypes(tmp.str(name), o);
}

TEST(BgenReader, Layout1UncompressedAndZlibRoundAsPlink2) {
  // p(AA), p(AB), p(BB) of 32768; the dosage counts B (the second allele: ALT).
  const std::vector<std::array<uint16_t, 3>> probs = {
      {32768, 0, 0}, {0, 32768, 0}, {0, 0, 32768}, {0, 0, 0},          // 0, 1, 2, missing
      {16384, 16384, 0},                                                // 0.5: no hard call
      {1000, 30000, 1768},                                              // sum 32768
      {3, 0, 1},                                                        // sum 4: normalized, 0.5
      {1, 1, 0},                                                        // 16384·1/2 = 8192 exactly
      {32000, 700, 69},                                                 // near 0: hard call 0
      {32767, 1, 0}, {32764, 3, 1}, {32766, 1, 1},                      // ties (0.5, 2.5, 1.5 units): to even
  };
  for (int compression : {kNone, kZlib}) {
    SCOPED_TRACE(compression);
    TempDir tmp;
    Variant v;
    v.block = layout1_block(probs);
    STRATA_ASSERT_OK_AND_ASSIGN(auto view, open_bytes(tmp, write_bgen(1, compression, probs.size(), {}, {v, v})));
    ASSERT_EQ(view->num_samples(), static_cast<int64_t>(probs.size()));
    ASSERT_EQ(view->num_variants(), 2);
    EXPECT_TRUE(view->has_dosages());
    EXPECT_EQ(view->samples().id[0], "0");  // no IDs anywhere: 0..n-1
    EXPECT_EQ(view->samples().id[8], "8");
    const Read r = read_all(*view);
    ASSERT_EQ(r.codes.size(), 2u);
    std::fesetround(FE_TONEAREST);
    for (size_t j = 0; j < probs.size(); ++j) {
      SCOPED_TRACE(j);
      const auto& p = probs[j];
      const double sum = p[0] + p[1] + p[2];
      if (sum == 0) {
        EXPECT_TRUE(std::isnan(r.dosage[1][j]));
        EXPECT_EQ(r.codes[1][j], 3);
        continue;
      }
      // Half to even, as plink2 rounds layout-1 dosages.
      const double want = std::nearbyint((p[1] + 2.0 * p[2]) * 16384.0 / sum);
      EXPECT_EQ(r.dosage[1][j] * 16384.0f, static_cast<float>(want));
      const double dist = std::fabs(want / 16384.0 - std::round(want / 16384.0));
      EXPECT_EQ(r.codes[1][j], dist <= 0.1 ? static_cast<int>(std::round(want / 16384.0)) : 3);
    }
    EXPECT_EQ(r.codes[0][0], 0);
    EXPECT_EQ(r.codes[0][1], 1);
    EXPECT_EQ(r.codes[0][2], 2);
    EXPECT_EQ(r.codes[0][4], 3);
    EXPECT_EQ(r.codes[0][8], 0);
  }
}

TEST(BgenReader, OneBitZstdHaploidMissingAndEmbeddedIds) {
  // 1-bit probabilities: each value 0 or 1. Diploid (P(AA), P(AB)); haploid (P(A)).
  std::vector<Call> calls = {
      {2, false, {1, 0}},  // AA → 0
      {2, false, {0, 1}},  // AB → 1
      {2, false, {0, 0}},  // BB → 2
      {2, true, {0, 0}},   // missing (values still stored)
      {1, false, {1}},     // haploid A → 0
      {1, false, {0}},     // haploid B → 2 (counts as homozygous)
      {1, true, {0}},      // haploid missing
      {0, false, {}},      // ploidy 0: missing
  };
  const std::vector<std::string> ids = {"a", "b", "c", "d", "e", "f", "g", "h"};
  Variant v;
  v.rsid = "rs1";
  v.chr = "22";
  v.pos = 16050075;
  v.block = layout2_block(calls, 2, false, 1);
  TempDir tmp;
  STRATA_ASSERT_OK_AND_ASSIGN(auto view, open_bytes(tmp, write_bgen(2, kZstd, calls.size(), ids, {v})));
  EXPECT_EQ(view->samples().id, ids);
  STRATA_ASSERT_OK_AND_ASSIGN(auto info, view->variants(0, 1));
  EXPECT_EQ(info.id[0], "rs1");
  EXPECT_EQ(view->contigs()[static_cast<size_t>(info.contig[0])], "22");
  EXPECT_EQ(info.position[0], 16050075);
  EXPECT_EQ(info.ref[0], "A");
  EXPECT_EQ(info.alt[0], "G");
  const Read r = read_all(*view);
  ASSERT_EQ(r.codes.size(), 1u);
  EXPECT_EQ(r.codes[0], (std::vector<int>{0, 1, 2, 3, 0, 2, 3, 3}));
  EXPECT_EQ(r.dosage[0][1], 1.0f);
  EXPECT_EQ(r.dosage[0][5], 2.0f);
  EXPECT_TRUE(std::isnan(r.dosage[0][6]));

  // A sample range reads the same calls.
  std::vector<uint8_t> row(1);
  STRATA_ASSERT_OK(view->read_codes(0, 1, 1, 3, row.data(), 1));
  EXPECT_EQ(row[0], 1 | (2 << 2) | (3 << 4) | (3 << 6));
}

TEST(BgenReader, ThirtyTwoBitAndOddDepthsRoundAsPlink2) {
  for (int bits : {3, 8, 16, 17, 24, 32}) {
    SCOPED_TRACE(bits);
    const uint64_t mask = (uint64_t{1} << bits) - 1;
    std::vector<std::pair<uint64_t, uint64_t>> pairs = {
        {mask, 0}, {0, mask}, {0, 0}, {mask / 3, mask / 3}, {mask / 7, mask / 2}, {1, 0}, {0, 1}, {mask - 1, 1}, {(mask - 3) / 2, 1}};
    std::vector<Call> calls;
    for (auto [aa, ab] : pairs) calls.push_back({2, false, {aa, ab}});
    Variant v;
    v.block = layout2_block(calls, 2, false, bits);
    TempDir tmp;
    STRATA_ASSERT_OK_AND_ASSIGN(auto view, open_bytes(tmp, write_bgen(2, kZlib, calls.size(), {}, {v})));
    const Read r = read_all(*view);
    ASSERT_EQ(r.dosage.size(), 1u);
    for (size_t j = 0; j < pairs.size(); ++j) {
      SCOPED_TRACE(j);
      const int64_t want = expected_diploid(pairs[j].first, pairs[j].second, bits);
      EXPECT_EQ(static_cast<int64_t>(r.dosage[0][j] * 16384.0f), want);
    }
  }
}

// 8-bit unphased diploid blocks take a branch-free decoder of their own: every (P(AA), P(AB))
// pair with a sum of at most 1, missing calls between them, rounds as plink2's import.
TEST(BgenReader, EveryEightBitPairRoundsAsPlink2) {
  std::vector<Call> calls;
  std::vector<std::pair<uint64_t, uint64_t>> pairs;
  for (uint64_t aa = 0; aa <= 255; ++aa)
    for (uint64_t ab = 0; aa + ab <= 255; ab += 1 + (aa % 3)) {
      pairs.push_back({aa, ab});
      calls.push_back({2, pairs.size() % 7 == 3, {aa, ab}});  // every 7th missing
    }
  Variant v;
  v.block = layout2_block(calls, 2, false, 8);
  TempDir tmp;
  STRATA_ASSERT_OK_AND_ASSIGN(auto view, open_bytes(tmp, write_bgen(2, kZlib, calls.size(), {}, {v})));
  const Read r = read_all(*view);
  ASSERT_EQ(r.dosage.size(), 1u);
  int64_t wrong = 0;
  for (size_t j = 0; j < pairs.size(); ++j) {
    const float d = r.dosage[0][j];
    if (calls[j].missing) {
      wrong += !std::isnan(d);
      continue;
    }
    wrong += static_cast<int64_t>(d * 16384.0f) != expected_diploid(pairs[j].first, pairs[j].second, 8);
  }
  EXPECT_EQ(wrong, 0) << "of " << pairs.size() << " calls";
  EXPECT_GT(pairs.size(), 10000u);
}

TEST(BgenReader, PhasedAndMultiallelic) {
  // Phased: per haplotype, P(first allele). 8 bits.
  std::vector<Call> phased = {
      {2, false, {255, 0}},   // A|B → 1
      {2, false, {0, 0}},     // B|B → 2
      {2, false, {128, 128}}, // ~0.5|0.5 → REF dosage 256/255 → ALT ≈ 0.996
      {1, false, {255}},      // haploid A → 0
  };
  // Tri-allelic, unphased diploid, 8 bits: genotypes AA, AB, BB, AC, BC, (CC implied).
  // Non-REF dosage = 2 − (2·P(AA) + P(AB) + P(AC)).
  std::vector<Call> tri = {
      {2, false, {0, 0, 0, 255, 0}},   // AC → 1
      {2, false, {0, 0, 0, 0, 255}},   // BC → 2
      {2, false, {255, 0, 0, 0, 0}},   // AA → 0
      {2, false, {0, 0, 0, 0, 0}},     // CC → 2
      {1, false, {0, 255}},            // haploid B → 2
  };
  Variant a;
  a.rsid = "ph";
  Variant b;
  b.rsid = "tri";
  b.alleles = {"A", "C", "T"};
  b.block = layout2_block(tri, 3, false, 8);
  // Same sample count for both blocks: pad the phased variant with a missing sample.
  a.block = layout2_block({phased[0], phased[1], phased[2], phased[3], {2, true, {0, 0}}}, 2, true, 8);
  TempDir tmp;
  const auto bytes = write_bgen(2, kZlib, 5, {}, {a, b});
  STRATA_ASSERT_OK_AND_ASSIGN(auto view, open_bytes(tmp, bytes));
  EXPECT_EQ(view->report().multiallelic_sites, 1);
  STRATA_ASSERT_OK_AND_ASSIGN(auto info, view->variants(0, 2));
  EXPECT_EQ(info.alt[1], "C,T");
  const Read r = read_all(*view);
  ASSERT_EQ(r.codes.size(), 2u);
  EXPECT_EQ(r.codes[0], (std::vector<int>{1, 2, 1, 0, 3}));
  EXPECT_EQ(static_cast<int64_t>(r.dosage[0][2] * 16384.0f), 32768 - (256 * 16384 + 128) / 255);
  EXPECT_EQ(r.codes[1], (std::vector<int>{1, 2, 0, 2, 2}));

  GenotypeOpenOptions skip;
  skip.multiallelic = MultiallelicMode::Skip;
  STRATA_ASSERT_OK_AND_ASSIGN(auto kept, open_bytes(tmp, bytes, "y.bgen", skip));
  EXPECT_EQ(kept->num_variants(), 1);
  EXPECT_EQ(kept->report().skipped_sites, 1);
}

TEST(BgenReader, SampleFileBesideTheBgenWins) {
  std::vector<Call> calls = {{2, false, {255, 0}}, {2, false, {0, 255}}};
  Variant v;
  v.block = layout2_block(calls, 2, false, 8);
  TempDir tmp;
  write_file(tmp.str("x.sample"), "ID_1 ID_2 missing sex\n0 0 0 D\nf1 i1 0 1\nf2 i2 0 2\n");
  STRATA_ASSERT_OK_AND_ASSIGN(auto view, open_bytes(tmp, write_bgen(2, kNone, 2, {"e1", "e2"}, {v})));
  EXPECT_EQ(view->samples().id, (std::vector<std::string>{"i1", "i2"}));
  EXPECT_EQ(view->samples().family_id, (std::vector<std::string>{"f1", "f2"}));
  EXPECT_EQ(view->samples().sex, (std::vector<int8_t>{1, 2}));
  write_file(tmp.str("x.sample"), "ID_1 ID_2 missing sex\n0 0 0 D\nf1 i1 0 1\n");
  STRATA_EXPECT_STATUS(open_genotypes(tmp.str("x.bgen")), StatusCode::Corrupt, "x.sample: lists 1 samples but .*x.bgen holds 2");
}

// ---- bad input: Corrupt naming the file, the variant and (where one is at fault) the sample.

std::vector<uint8_t> good_file(int compression, std::vector<Call> calls = {{2, false, {255, 0}}, {2, false, {0, 255}}}) {
  Variant v1, v2;
  v1.rsid = "rs_ok";
  v1.block = layout2_block(calls, 2, false, 8);
  v2.rsid = "rs_two";
  v2.block = v1.block;
  return write_bgen(2, compression, static_cast<uint32_t>(calls.size()), {"s1", "s2"}, {v1, v2});
}

Status read_everything(const TempDir& tmp, const std::vector<uint8_t>& bytes) {
  STRATA_ASSIGN_OR_RETURN(auto view, open_bytes(tmp, bytes));
  return read_genotype_block(*view, 0, view->num_variants()).status();
}

TEST(BgenReader, TruncatedFileIsCorruptAtOpen) {
  TempDir tmp;
  auto bytes = good_file(kZlib);
  bytes.resize(bytes.size() - 3);
  STRATA_EXPECT_STATUS(read_everything(tmp, bytes), StatusCode::Corrupt,
                       "x.bgen: variant 1 \\(rs_two\\): its [0-9]+-byte genotype block .* runs past the end");
  bytes.resize(60);  // inside the first variant's identifying data
  STRATA_EXPECT_STATUS(read_everything(tmp, bytes), StatusCode::Corrupt, "x.bgen: .*variant 0");
  STRATA_EXPECT_STATUS(read_everything(tmp, {1, 2, 3}), StatusCode::Corrupt, "x.bgen: .*end of the file");
}

TEST(BgenReader, CorruptStreamsNameTheVariant) {
  for (int compression : {kZlib, kZstd}) {
    SCOPED_TRACE(compression);
    TempDir tmp;
    auto bytes = good_file(compression);
    // Break the last compressed block's stream header (zlib CMF/FLG, zstd magic).
    const auto block = layout2_block({{2, false, {255, 0}}, {2, false, {0, 255}}}, 2, false, 8);
    const size_t start = bytes.size() - compress(block, compression).size();
    bytes[start] ^= 0xFF;
    bytes[start + 1] ^= 0xFF;
    STRATA_EXPECT_STATUS(read_everything(tmp, bytes), StatusCode::Corrupt,
                         std::string("x.bgen: variant 1 \\(rs_two\\): ") + (compression == kZlib ? "zlib" : "zstd"));
  }
}

TEST(BgenReader, ProbabilitiesAboveOneAndBadBitDepths) {
  TempDir tmp;
  STRATA_EXPECT_STATUS(read_everything(tmp, good_file(kNone, {{2, false, {255, 0}}, {2, false, {200, 100}}})),
                       StatusCode::Corrupt, "x.bgen: variant 0 \\(rs_ok\\): sample 1 \\(s2\\): probabilities sum to");
  // Layout 1: three probabilities summing to 1.5.
  Variant v;
  v.block = layout1_block({{32768, 0, 0}, {16384, 16384, 16384}});
  STRATA_EXPECT_STATUS(read_everything(tmp, write_bgen(1, kZlib, 2, {}, {v})), StatusCode::Corrupt,
                       "variant 0 \\(rs\\): sample 1: probabilities sum to 1.5");
  for (int bits : {0, 33}) {
    auto block = layout2_block({{2, false, {}}, {2, false, {}}}, 2, false, 8);
    block[4 + 2 + 2 + 2 + 1] = static_cast<uint8_t>(bits);  // after N(4) K(2) min/max(2) ploidy(2) phased(1)
    Variant w;
    w.block = block;
    STRATA_EXPECT_STATUS(read_everything(tmp, write_bgen(2, kNone, 2, {}, {w})), StatusCode::Corrupt,
                         "variant 0 \\(rs\\): probabilities have " + std::to_string(bits) + " bits \\(expected 1 to 32\\)");
  }
  // Ploidy 3 is valid BGEN that strata refuses.
  Variant p;
  p.block = layout2_block({{3, false, {0, 0, 0}}, {2, false, {0, 0}}}, 2, false, 8);
  STRATA_EXPECT_STATUS(read_everything(tmp, write_bgen(2, kNone, 2, {}, {p})), StatusCode::Unsupported,
                       "sample 0: ploidy 3; strata reads ploidy 1 and 2 only");
  // A block shorter than its probabilities.
  Variant s;
  s.block = layout2_block({{2, false, {1, 2}}, {2, false, {3, 4}}}, 2, false, 8);
  s.block.pop_back();
  STRATA_EXPECT_STATUS(read_everything(tmp, write_bgen(2, kZlib, 2, {}, {s})), StatusCode::Corrupt,
                       "probability block holds 15 bytes, expected 16");
}

}  // namespace
}  // namespace strata::io
