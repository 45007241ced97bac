// resolve_genotype_input: one input of plink2's flags, the path it stands for, and the errors.
#include "strata/io/genotype_input.hpp"

#include "testing/testing.hpp"

namespace strata::io {
namespace {

using strata::testing::TempDir;
using strata::testing::write_file;

TEST(GenotypeInput, EachFlagGivesThePathOpenGenotypesDetects) {
  TempDir tmp;
  write_file(tmp.str("c.pgen"), "x");
  write_file(tmp.str("c.bed"), "x");
  GenotypeOpenOptions open;
  GenotypeInputFlags f;
  f.pfile = tmp.str("c");
  EXPECT_EQ(*resolve_genotype_input(f, open), tmp.str("c.pgen"));
  f = {};
  f.bfile = tmp.str("c");
  EXPECT_EQ(*resolve_genotype_input(f, open), tmp.str("c"));
  f = {};
  f.path = "any/thing";
  EXPECT_EQ(*resolve_genotype_input(f, open), "any/thing");
  f = {};
  f.vcf = "x.vcf.gz";
  EXPECT_EQ(*resolve_genotype_input(f, open), "x.vcf.gz");
  f = {};
  f.bgen = "x.bgen";
  f.sample = "elsewhere/x.sample";
  EXPECT_EQ(*resolve_genotype_input(f, open), "x.bgen");
  EXPECT_EQ(open.bgen_sample, "elsewhere/x.sample");
}

TEST(GenotypeInput, NoneTwoOrAMissingFileAreErrors) {
  GenotypeOpenOptions open;
  GenotypeInputFlags f;
  STRATA_EXPECT_STATUS(resolve_genotype_input(f, open), StatusCode::Invalid, "^no genotype input: give INPUT or one of --bfile");
  f.path = "a";
  f.pfile = "b";
  f.bgen = "c.bgen";
  STRATA_EXPECT_STATUS(resolve_genotype_input(f, open), StatusCode::Invalid,
                       "^give one genotype input, got INPUT and --pfile and --bgen$");
  f = {};
  f.pfile = "/nonexistent/p";
  STRATA_EXPECT_STATUS(resolve_genotype_input(f, open), StatusCode::NotFound, "/nonexistent/p.pgen not found$");
  f = {};
  f.bfile = "/nonexistent/b";
  STRATA_EXPECT_STATUS(resolve_genotype_input(f, open), StatusCode::NotFound, "/nonexistent/b.bed not found$");
  f = {};
  f.vcf = "x.txt";
  STRATA_EXPECT_STATUS(resolve_genotype_input(f, open), StatusCode::Invalid, "^--vcf must name a .vcf");
  f = {};
  f.bgen = "x.vcf";
  STRATA_EXPECT_STATUS(resolve_genotype_input(f, open), StatusCode::Invalid, "^--bgen must name a .bgen file");
  f = {};
  f.vcf = "x.vcf";
  f.sample = "x.sample";
  STRATA_EXPECT_STATUS(resolve_genotype_input(f, open), StatusCode::Invalid, "--sample .* needs --bgen");
  f = {};
  f.bgen = "x.bgen";
  open.vcf_dosage = "DS";
  STRATA_EXPECT_STATUS(resolve_genotype_input(f, open), StatusCode::Invalid, "--vcf-dosage .* not --bgen$");
}

}  // namespace
}  // namespace strata::io
