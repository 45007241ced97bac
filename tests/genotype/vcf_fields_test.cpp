// INFO/FORMAT fields in VCF → VCF Zarr: bio2zarr's dtypes, axes and sentinels on a small VCF
// whose values are written out by hand here (python/tests/test_vcf_zarr.py compares whole
// stores with bio2zarr's), and the errors a field that breaks its Number gives.
#include <cstring>
#include <filesystem>

#include "core/test_context.hpp"
#include "strata/core/config.hpp"
#include "strata/io/genotype_convert.hpp"
#include "strata/io/zarr.hpp"
#include "testing/testing.hpp"

using strata::testing::test_ctx;

namespace strata::io {
namespace {

namespace fs = std::filesystem;
using strata::testing::TempDir;
using strata::testing::write_file;

const char* kHead =
    "##fileformat=VCFv4.2\n##contig=<ID=1,length=1000>\n"
    "##INFO=<ID=NR,Number=R,Type=Float,Description=\"r\">\n"
    "##INFO=<ID=BIG,Number=1,Type=Integer,Description=\"b\">\n"
    "##INFO=<ID=MID,Number=1,Type=Integer,Description=\"m\">\n"
    "##FORMAT=<ID=GT,Number=1,Type=String,Description=\"Genotype\">\n"
    "##FORMAT=<ID=AD,Number=R,Type=Integer,Description=\"ad\">\n"
    "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\ta\tb\n";

std::shared_ptr<Store> open_store(const std::string& path) {
  auto s = LocalStore::open(path);
  EXPECT_TRUE(s.ok()) << s.status().to_string();
  return *s;
}

TEST(VcfFields, ValuesDtypesAndSentinels) {
  if (!STRATA_HAVE_HTSLIB) GTEST_SKIP() << "built without htslib";
  TempDir tmp;
  const std::string vcf = tmp.str("f.vcf"), out = tmp.str("f.vcz");
  write_file(vcf, std::string(kHead) +
                      "1\t5\t.\tA\tC\t.\t.\tNR=0.5,.;BIG=70000;MID=-129\tGT:AD\t0/1:3,4\t1/1:.\n"
                      "1\t7\t.\tA\tC,G\t.\t.\t.\tGT:AD\t0/2:1\t./.:9,8,7\n");
  auto r = convert_genotypes(test_ctx(), vcf, out, ConvertOptions());
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  auto st = open_store(out);
  auto ad = ZarrArray::open(st, "call_AD");
  ASSERT_TRUE(ad.ok()) << ad.status().to_string();
  EXPECT_EQ(ad->dtype().type, ScalarType::Int8);
  ASSERT_EQ(ad->shape(), (Shape{2, 2, 3}));  // alleles axis: up to 3 alleles
  std::vector<int8_t> a(12);
  ASSERT_TRUE(ad->read_region({0, 0, 0}, {2, 2, 3}, a.data()).ok());
  // Padding −2 (beyond the record's values and htslib's vector end), missing −1.
  EXPECT_EQ(a, (std::vector<int8_t>{3, 4, -2, -1, -2, -2, 1, -2, -2, 9, 8, 7}));
  auto big = ZarrArray::open(st, "variant_BIG");
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(big->dtype().type, ScalarType::Int32);
  std::vector<int32_t> b(2);
  ASSERT_TRUE(big->read_region({0}, {2}, b.data()).ok());
  EXPECT_EQ(b, (std::vector<int32_t>{70000, -1}));  // absent: missing
  auto mid = ZarrArray::open(st, "variant_MID");
  ASSERT_TRUE(mid.ok());
  EXPECT_EQ(mid->dtype().type, ScalarType::Int16);  // bio2zarr's smallest type holding −129
  auto nr = ZarrArray::open(st, "variant_NR");
  ASSERT_TRUE(nr.ok());
  std::vector<uint32_t> bits(6);
  ASSERT_TRUE(nr->read_region({0, 0}, {2, 3}, bits.data()).ok());
  const float half = 0.5f;
  uint32_t half_bits;
  std::memcpy(&half_bits, &half, 4);
  // 0.5, missing, fill; then absent: missing in every slot.
  EXPECT_EQ(bits, (std::vector<uint32_t>{half_bits, 0x7F800001u, 0x7F800002u, 0x7F800001u, 0x7F800001u, 0x7F800001u}));
  // No Zarr fill value on the calls (bio2zarr's), so xarray does not mask −1 to NaN.
  auto gt = ZarrArray::open(st, "call_genotype");
  ASSERT_TRUE(gt.ok());
  EXPECT_TRUE(std::holds_alternative<std::nullptr_t>(gt->fill_value().value));
  auto pos = ZarrArray::open(st, "variant_position");
  ASSERT_TRUE(pos.ok());
  EXPECT_EQ(pos->dtype().type, ScalarType::Int8);  // positions 5 and 7
}

TEST(VcfFields, TooManyValuesForNumberIsAnError) {
  if (!STRATA_HAVE_HTSLIB) GTEST_SKIP() << "built without htslib";
  TempDir tmp;
  const std::string vcf = tmp.str("r.vcf"), out = tmp.str("r.vcz");
  write_file(vcf, std::string(kHead) + "1\t5\t.\tA\tC\t.\t.\tNR=1,2,3\tGT\t0/1\t0/0\n");
  auto r = convert_genotypes(test_ctx(), vcf, out, ConvertOptions());
  STRATA_EXPECT_STATUS(r, StatusCode::InvalidData,
                       "r\\.vcf: INFO/NR has up to 3 values, more than the 2 its Number allows \\(alleles\\)");
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace
}  // namespace strata::io
