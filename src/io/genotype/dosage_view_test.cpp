// Dosage matrices packed into genotype views: codes, strides, missing values, bad values.
#include <cmath>
#include <limits>
#include <vector>

#include "strata/io/genotype_dosage.hpp"
#include "testing/testing.hpp"

namespace strata::io {
namespace {

std::vector<int> codes_of(const GenotypeView& view, int64_t v) {
  auto block = read_genotype_block(view, v, 1);
  EXPECT_TRUE(block.ok());
  std::vector<int> out;
  for (int64_t j = 0; j < view.num_samples(); ++j) out.push_back(code_at(block->row(0), j));
  return out;
}

TEST(DosageView, PacksInt8RowsWithMissing) {
  const std::vector<int8_t> d = {0, 1, 2, -1, 2,  //
                                 2, 2, 0, 0, -9};
  DosageMatrix m{d.data(), DosageType::Int8, 2, 5, 5, 1};
  STRATA_ASSERT_OK_AND_ASSIGN(auto view, make_dosage_genotypes(m));
  EXPECT_EQ(view->num_variants(), 2);
  EXPECT_EQ(view->num_samples(), 5);
  EXPECT_EQ(codes_of(*view, 0), (std::vector<int>{0, 1, 2, 3, 2}));
  EXPECT_EQ(codes_of(*view, 1), (std::vector<int>{2, 2, 0, 0, 3}));
  EXPECT_EQ(view->samples().id.front(), "0");
  EXPECT_EQ(view->samples().id.back(), "4");
  STRATA_ASSERT_OK_AND_ASSIGN(auto info, view->variants(1, 1));
  EXPECT_EQ(info.position[0], 2);
  // The trailing pairs of the last byte are missing, as in every view.
  std::vector<uint8_t> raw(2 * packed_row_bytes(5));
  ASSERT_TRUE(pack_dosages(m, raw.data(), packed_row_bytes(5)).ok());
  EXPECT_EQ(raw[1] & 0xFC, 0xFC);
}

TEST(DosageView, ReadsFortranOrderFloatsWithNaN) {
  // 3 variants x 2 samples stored column-major: element (v, s) at v + 3 s.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> d = {0, 1, nan, 2, -1, 1};
  DosageMatrix m{d.data(), DosageType::Float64, 3, 2, 1, 3};
  STRATA_ASSERT_OK_AND_ASSIGN(auto view, make_dosage_genotypes(m));
  EXPECT_EQ(codes_of(*view, 0), (std::vector<int>{0, 2}));
  EXPECT_EQ(codes_of(*view, 1), (std::vector<int>{1, 3}));
  EXPECT_EQ(codes_of(*view, 2), (std::vector<int>{3, 1}));
}

TEST(DosageView, RefusesValuesThatAreNotDosages) {
  const std::vector<float> d = {0, 1, 2.5f, 2};
  DosageMatrix m{d.data(), DosageType::Float32, 2, 2, 2, 1};
  auto r = make_dosage_genotypes(m);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::InvalidData);
  EXPECT_EQ(r.status().message(), "dosage 2.5 at variant 1, sample 0 is outside [0, 2] (negative or NaN for missing)");
  const std::vector<uint8_t> u = {3};
  auto r8 = make_dosage_genotypes({u.data(), DosageType::UInt8, 1, 1, 1, 1});
  ASSERT_FALSE(r8.ok());
  EXPECT_EQ(r8.status().message(), "dosage 3 at variant 0, sample 0 is outside [0, 2] (negative or NaN for missing)");
  // Packed codes alone cannot keep a fractional dosage.
  const std::vector<float> f = {0.5f};
  std::vector<uint8_t> out(1);
  EXPECT_EQ(pack_dosages({f.data(), DosageType::Float32, 1, 1, 1, 1}, out.data(), 1).message(),
            "dosage 0.5 at variant 0, sample 0 is not a genotype dosage (0, 1, 2, or negative / NaN for missing)");
}

// Fractional rows keep plink2's dosages (1/16384 units) and its hard calls (within 0.1);
// integer rows read their dosages from the codes; subsets of samples and variants forward them.
TEST(DosageView, KeepsFractionalDosagesAsPlink2Does) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> d = {0.0, 1.0, 2.0, nan, 1.0,     //
                                 0.05, 0.5, 1.93, -1, 1.2345,  //
                                 2.0, 0.0, 1.0, 1.0, 0.0};
  STRATA_ASSERT_OK_AND_ASSIGN(auto view, make_dosage_genotypes({d.data(), DosageType::Float64, 3, 5, 5, 1}));
  ASSERT_TRUE(view->has_dosages());
  EXPECT_EQ(codes_of(*view, 0), (std::vector<int>{0, 1, 2, 3, 1}));
  EXPECT_EQ(codes_of(*view, 1), (std::vector<int>{0, 3, 2, 3, 3}));
  std::vector<float> got(15);
  STRATA_ASSERT_OK(view->read_dosages(0, 3, 0, 5, got.data(), 5));
  for (int i = 0; i < 15; ++i) {
    const double q = std::isnan(d[i]) || d[i] < 0 ? nan : std::nearbyint(d[i] * 16384) / 16384;
    if (std::isnan(q)) EXPECT_TRUE(std::isnan(got[i])) << i;
    else EXPECT_EQ(got[i], q) << i;
  }
  EXPECT_NE(got[9], 1.2345f);  // rounded to 1/16384, as plink2 imports DS
  STRATA_ASSERT_OK_AND_ASSIGN(auto sub, make_genotype_subset(view, {1, 2, 4}, {1, 2}));
  ASSERT_TRUE(sub->has_dosages());
  std::vector<float> s(6);
  STRATA_ASSERT_OK(sub->read_dosages(0, 2, 0, 3, s.data(), 3));
  EXPECT_EQ(s, (std::vector<float>{got[6], got[7], got[9], got[11], got[12], got[14]}));
  // A view of hard calls only has no dosages.
  const std::vector<double> calls = {0, 1, 2, nan};
  STRATA_ASSERT_OK_AND_ASSIGN(auto hard, make_dosage_genotypes({calls.data(), DosageType::Float64, 1, 4, 4, 1}));
  EXPECT_FALSE(hard->has_dosages());
}

TEST(DosageView, BuilderBlocksEqualOneMatrix) {
  const int64_t m = 7, n = 9;
  std::vector<int16_t> d(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m * n; ++i) d[i] = static_cast<int16_t>((i * 7) % 4 == 3 ? -1 : (i * 7) % 4);
  STRATA_ASSERT_OK_AND_ASSIGN(auto whole, make_dosage_genotypes({d.data(), DosageType::Int16, m, n, n, 1}));
  STRATA_ASSERT_OK_AND_ASSIGN(auto b, DosageViewBuilder::make(m, n));
  ASSERT_TRUE(b.add_rows(4, {d.data() + 4 * n, DosageType::Int16, 3, n, n, 1}).ok());
  ASSERT_TRUE(b.add_rows(0, {d.data(), DosageType::Int16, 4, n, n, 1}).ok());
  STRATA_ASSERT_OK_AND_ASSIGN(auto blocks, std::move(b).finish({}, {}));
  for (int64_t v = 0; v < m; ++v) EXPECT_EQ(codes_of(*blocks, v), codes_of(*whole, v)) << v;

  // Rows packed elsewhere and copied in give the same view.
  STRATA_ASSERT_OK_AND_ASSIGN(auto p, DosageViewBuilder::make(m, n));
  std::vector<uint8_t> packed(static_cast<size_t>(m * packed_row_bytes(n)));
  ASSERT_TRUE(pack_dosages({d.data(), DosageType::Int16, m, n, n, 1}, packed.data(), packed_row_bytes(n)).ok());
  ASSERT_TRUE(p.add_codes(0, m, packed.data()).ok());
  EXPECT_EQ(p.add_codes(1, m, packed.data()), Status::Invalid("dosage block rows [1, 8) outside 0..7"));
  STRATA_ASSERT_OK_AND_ASSIGN(auto copied, std::move(p).finish({}, {}));
  for (int64_t v = 0; v < m; ++v) EXPECT_EQ(codes_of(*copied, v), codes_of(*whole, v)) << v;

  STRATA_ASSERT_OK_AND_ASSIGN(auto c, DosageViewBuilder::make(m, n));
  Status outside = c.add_rows(5, {d.data(), DosageType::Int16, 3, n, n, 1});
  EXPECT_EQ(outside, Status::Invalid("dosage block rows [5, 8) outside 0..7"));
  Status narrow = c.add_rows(0, {d.data(), DosageType::Int16, 1, n - 1, n, 1});
  EXPECT_EQ(narrow, Status::Invalid("dosage block has 8 samples, expected 9"));
}

}  // namespace
}  // namespace strata::io
