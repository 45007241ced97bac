// `.fam` and `.bim` parsing as plink2 reads them: headers, comment lines, 5- and 7-column
// files, and what plink2 refuses (blank lines between records, chromosome 99, positions
// above 2^31 - 2, non-finite cM); the chromosome model; IDs a `.fam` cannot hold.
#include <filesystem>

#include "core/test_context.hpp"
#include "strata/io/chromosome.hpp"
#include "strata/io/genotype.hpp"
#include "strata/io/plink.hpp"
#include "testing/testing.hpp"

namespace strata::io {
namespace {

using strata::testing::TempDir;
using strata::testing::write_file;

TEST(FamText, HeaderLineIsNotASample) {
  TempDir tmp;
  // Before, "#FID" became sample 1 and every ID moved onto the previous sample's genotypes.
  write_file(tmp.str("h.fam"), "#FID IID PAT MAT SEX PHENO1\nf1 a 0 0 1 2\nf2 b a c 2 -9\n");
  STRATA_ASSERT_OK_AND_ASSIGN(auto s, read_fam(tmp.str("h.fam")));
  ASSERT_EQ(s.size(), 2);
  EXPECT_EQ(s.id[0], "a");
  EXPECT_EQ(s.family_id[1], "f2");
  EXPECT_EQ(s.paternal_id[1], "a");
  EXPECT_EQ(s.sex[0], 1);
  EXPECT_EQ(s.phenotype[0], "2");
  // .psam-style: ## comments, then #IID and any order; absent columns get plink2's defaults.
  write_file(tmp.str("p.fam"), "##source=x\n#IID\tSEX\tQ\nx\t2\t0.5\ny\t1\tNA\n");
  STRATA_ASSERT_OK_AND_ASSIGN(auto p, read_fam(tmp.str("p.fam")));
  ASSERT_EQ(p.size(), 2);
  EXPECT_EQ(p.id[1], "y");
  EXPECT_EQ(p.family_id[0], "0");
  EXPECT_EQ(p.paternal_id[0], "0");
  EXPECT_EQ(p.sex[0], 2);
  EXPECT_EQ(p.phenotype[0], "0.5");
  // A row with fewer columns than the header names.
  write_file(tmp.str("s.fam"), "#IID SEX\nx 2\ny\n");
  STRATA_EXPECT_STATUS(read_fam(tmp.str("s.fam")), StatusCode::Corrupt, "line 3: expected 2 columns");
  // '#' anywhere else is refused, not read as a sample.
  write_file(tmp.str("l.fam"), "f a 0 0 1 2\n#FID IID\n");
  STRATA_EXPECT_STATUS(read_fam(tmp.str("l.fam")), StatusCode::Corrupt, "line 2: a line starting with '#'");
  write_file(tmp.str("c.fam"), "#comment\nf a 0 0 1 2\n");
  STRATA_EXPECT_STATUS(read_fam(tmp.str("c.fam")), StatusCode::Corrupt, "line 1: a line starting with '#'");
  write_file(tmp.str("n.fam"), "#FID PAT\nf 0\n");
  STRATA_EXPECT_STATUS(read_fam(tmp.str("n.fam")), StatusCode::Corrupt, "must name an IID column");
}

TEST(FamText, ExtraColumnsAndBlankLines) {
  TempDir tmp;
  write_file(tmp.str("7.fam"), "f a 0 0 1 2 extra\nf b 0 0 2 1 more\n\n");  // trailing blank lines are fine
  STRATA_ASSERT_OK_AND_ASSIGN(auto s, read_fam(tmp.str("7.fam")));
  EXPECT_EQ(s.size(), 2);
  EXPECT_EQ(s.phenotype[1], "1");
  write_file(tmp.str("b.fam"), "f a 0 0 1 2\n\nf b 0 0 2 1\n");
  STRATA_EXPECT_STATUS(read_fam(tmp.str("b.fam")), StatusCode::Corrupt, "line 2: empty line between samples");
  write_file(tmp.str("5.fam"), "f a 0 0 1\n");
  STRATA_EXPECT_STATUS(read_fam(tmp.str("5.fam")), StatusCode::Corrupt, "expected 6 columns");
}

TEST(BimText, ColumnsLimitsAndRefusals) {
  TempDir tmp;
  write_file(tmp.str("5.bim"), "1 v1 100 A G\nchrX v2 200 C T\n");
  STRATA_ASSERT_OK_AND_ASSIGN(auto five, read_bim(tmp.str("5.bim")));
  ASSERT_EQ(five.variants.size(), 2);
  EXPECT_EQ(five.variants.position[1], 200);
  EXPECT_EQ(five.variants.alt[1], "C");
  EXPECT_EQ(five.variants.ref[1], "T");
  EXPECT_EQ(five.variants.cm[0], 0.0);
  write_file(tmp.str("7.bim"), "1 v1 0.5 100 A G x\n");
  STRATA_ASSERT_OK_AND_ASSIGN(auto seven, read_bim(tmp.str("7.bim")));
  EXPECT_EQ(seven.variants.cm[0], 0.5);
  EXPECT_EQ(seven.variants.ref[0], "G");
  write_file(tmp.str("b.bim"), "1 v1 0 100 A G\n\n1 v2 0 200 A G\n");
  STRATA_EXPECT_STATUS(read_bim(tmp.str("b.bim")), StatusCode::Corrupt, "line 2: empty line between variants");
  write_file(tmp.str("99.bim"), "1 v1 0 100 A G\n99 v2 0 200 A G\n");
  STRATA_EXPECT_STATUS(read_bim(tmp.str("99.bim")), StatusCode::Corrupt, "line 2: chromosome code '99' is not a human");
  write_file(tmp.str("p.bim"), "1 v1 0 2147483647 A G\n");
  STRATA_EXPECT_STATUS(read_bim(tmp.str("p.bim")), StatusCode::Corrupt, "above plink2's limit");
  write_file(tmp.str("ok.bim"), "1 v1 0 2147483646 A G\n");
  STRATA_ASSERT_OK(read_bim(tmp.str("ok.bim")));
  for (const char* cm : {"inf", "nan", "0x1p3"}) {
    write_file(tmp.str("c.bim"), std::string("1 v1 ") + cm + " 100 A G\n");
    STRATA_EXPECT_STATUS(read_bim(tmp.str("c.bim")), StatusCode::Corrupt, "is not a finite number");
  }
  write_file(tmp.str("n.bim"), "1 v1 0 -5 A G\n1 v2 0 7 A G\n");
  STRATA_ASSERT_OK_AND_ASSIGN(auto neg, read_bim(tmp.str("n.bim")));
  EXPECT_EQ(neg.negative_positions, 1);
}

TEST(BimText, NegativePositionsAreSkippedAsPlink2Does) {
  TempDir tmp;
  write_file(tmp.str("n.fam"), "f a 0 0 1 2\nf b 0 0 2 1\n");
  write_file(tmp.str("n.bim"), "1 v1 0 10 A G\n1 v2 0 -5 A G\n1 v3 0 30 A G\n");
  // Rows: hom ALT/het, missing/missing, het/hom REF (2 samples per byte, low bits first).
  write_file(tmp.str("n.bed"), std::string("\x6c\x1b\x01\x08\x05\x0e", 6));
  STRATA_ASSERT_OK_AND_ASSIGN(auto view, open_genotypes(tmp.str("n")));
  ASSERT_EQ(view->num_variants(), 2);
  STRATA_ASSERT_OK_AND_ASSIGN(auto info, view->variants(0, 2));
  EXPECT_EQ(info.id[0], "v1");
  EXPECT_EQ(info.id[1], "v3");
  uint8_t codes[2] = {0, 0};
  STRATA_ASSERT_OK(view->read_codes(1, 1, 0, 2, codes, 1));
  EXPECT_EQ(codes[0] & 0xf, 1 | (0 << 2));  // v3: het, hom REF
}

TEST(Chromosome, Plink2Model) {
  EXPECT_EQ(chromosome_kind("chr1"), ChromosomeKind::kAutosome);
  EXPECT_EQ(chromosome_kind("22"), ChromosomeKind::kAutosome);
  EXPECT_EQ(chromosome_kind("23"), ChromosomeKind::kX);
  EXPECT_EQ(chromosome_kind("chrX"), ChromosomeKind::kX);
  EXPECT_EQ(chromosome_kind("Y"), ChromosomeKind::kY);
  EXPECT_EQ(chromosome_kind("25"), ChromosomeKind::kXY);
  EXPECT_EQ(chromosome_kind("chrM"), ChromosomeKind::kMT);
  EXPECT_EQ(chromosome_kind("MT"), ChromosomeKind::kMT);
  EXPECT_EQ(chromosome_kind("0"), ChromosomeKind::kOther);
  EXPECT_EQ(chromosome_kind("chrUn_gl000220"), ChromosomeKind::kOther);
  EXPECT_EQ(chromosome_kind("-1"), ChromosomeKind::kOther);
  EXPECT_EQ(chromosome_kind("1e1"), ChromosomeKind::kOther);
  EXPECT_EQ(plink_chromosome_name("chr01"), "1");
  EXPECT_EQ(plink_chromosome_name("23"), "X");
  EXPECT_EQ(plink_chromosome_name("chrM"), "MT");
  EXPECT_EQ(plink_chromosome_name("M"), "MT");
  EXPECT_EQ(plink_chromosome_name("25"), "XY");
  EXPECT_EQ(plink_chromosome_name("scaffold_7"), "scaffold_7");
}

TEST(FamText, WriterRefusesIdsAFamCannotHold) {
  TempDir tmp;
  SampleInfo s;
  s.id = {"a b", "c"};
  STRATA_EXPECT_STATUS(BedWriter::create(tmp.str("o"), s), StatusCode::InvalidData, "sample 1 has the ID 'a b'");
  s.id = {"#x", "c"};
  STRATA_EXPECT_STATUS(BedWriter::create(tmp.str("o"), s), StatusCode::InvalidData, "starts with '#'");
  EXPECT_FALSE(std::filesystem::exists(tmp.str("o.fam")));
}

}  // namespace
}  // namespace strata::io
