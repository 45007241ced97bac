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

// Sample i as its .fam line: FID IID PAT MAT SEX PHENO.
std::string fam_line(const SampleInfo& s, int64_t i) {
  const size_t k = static_cast<size_t>(i);
  return str_cat(s.family_id[k], " ", s.id[k], " ", s.paternal_id[k], " ", s.maternal_id[k], " ", int{s.sex[k]}, " ",
                 s.phenotype[k]);
}

// `text` written as tmp's file `name` and read by `read` (read_fam or read_bim).
template <class Read>
auto read_text(const TempDir& tmp, const std::string& name, const std::string& text, Read read) {
  write_file(tmp.str(name), text);
  return read(tmp.str(name));
}

TEST(FamText, HeaderLineIsNotASample) {
  TempDir tmp;
  // Before, "#FID" became sample 1 and every ID moved onto the previous sample's genotypes.
  STRATA_ASSERT_OK_AND_ASSIGN(
      auto s, read_text(tmp, "h.fam", "#FID IID PAT MAT SEX PHENO1\nf1 a 0 0 1 2\nf2 b a c 2 -9\n", read_fam));
  ASSERT_EQ(s.size(), 2);
  EXPECT_EQ(fam_line(s, 0), "f1 a 0 0 1 2");
  EXPECT_EQ(fam_line(s, 1), "f2 b a c 2 -9");
  // .psam-style: ## comments, then #IID and any order; absent columns get plink2's defaults.
  STRATA_ASSERT_OK_AND_ASSIGN(auto p,
                              read_text(tmp, "p.fam", "##source=x\n#IID\tSEX\tQ\nx\t2\t0.5\ny\t1\tNA\n", read_fam));
  ASSERT_EQ(p.size(), 2);
  EXPECT_EQ(fam_line(p, 0), "0 x 0 0 2 0.5");
  EXPECT_EQ(p.id[1], "y");
  // Refused: a row with fewer columns than the header names; '#' anywhere else (not read as a
  // sample); a header without IID.
  const std::pair<const char*, const char*> refused[] = {
      {"#IID SEX\nx 2\ny\n", "line 3: expected 2 columns"},
      {"f a 0 0 1 2\n#FID IID\n", "line 2: a line starting with '#'"},
      {"#FID PAT\nf 0\n", "must name an IID column"}};
  for (const auto& [text, message] : refused)
    STRATA_EXPECT_STATUS(read_text(tmp, "r.fam", text, read_fam), StatusCode::Corrupt, message);
}

TEST(FamText, ExtraColumnsAndBlankLines) {
  TempDir tmp;
  write_file(tmp.str("7.fam"), "f a 0 0 1 2 extra\nf b 0 0 2 1 more\n\n");  // trailing blank lines are fine
  STRATA_ASSERT_OK_AND_ASSIGN(auto s, read_fam(tmp.str("7.fam")));
  EXPECT_EQ(s.size(), 2);
  EXPECT_EQ(s.phenotype[1], "1");
  STRATA_EXPECT_STATUS(read_text(tmp, "b.fam", "f a 0 0 1 2\n\nf b 0 0 2 1\n", read_fam), StatusCode::Corrupt,
                       "line 2: empty line between samples");
  STRATA_EXPECT_STATUS(read_text(tmp, "5.fam", "f a 0 0 1\n", read_fam), StatusCode::Corrupt, "expected 6 columns");
}

TEST(BimText, ColumnsLimitsAndRefusals) {
  TempDir tmp;
  STRATA_ASSERT_OK_AND_ASSIGN(auto five, read_text(tmp, "5.bim", "1 v1 100 A G\nchrX v2 200 C T\n", read_bim));
  ASSERT_EQ(five.variants.size(), 2);
  EXPECT_EQ(five.variants.position[1], 200);
  EXPECT_EQ(five.variants.alt[1], "C");
  EXPECT_EQ(five.variants.ref[1], "T");
  EXPECT_EQ(five.variants.cm[0], 0.0);
  STRATA_ASSERT_OK_AND_ASSIGN(auto seven, read_text(tmp, "7.bim", "1 v1 0.5 100 A G x\n", read_bim));
  EXPECT_EQ(seven.variants.cm[0], 0.5);
  EXPECT_EQ(seven.variants.ref[0], "G");
  const std::pair<const char*, const char*> refused[] = {
      {"1 v1 0 100 A G\n\n1 v2 0 200 A G\n", "line 2: empty line between variants"},
      {"1 v1 0 100 A G\n99 v2 0 200 A G\n", "line 2: chromosome code '99' is not a human"},
      {"1 v1 0 2147483647 A G\n", "beyond plink2's limit"}};
  for (const auto& [text, message] : refused)
    STRATA_EXPECT_STATUS(read_text(tmp, "r.bim", text, read_bim), StatusCode::Corrupt, message);
  write_file(tmp.str("ok.bim"), "1 v1 0 2147483646 A G\n");
  STRATA_ASSERT_OK(read_bim(tmp.str("ok.bim")));
  for (const char* cm : {"inf", "nan", "0x1p3"}) {
    STRATA_EXPECT_STATUS(read_text(tmp, "c.bim", std::string("1 v1 ") + cm + " 100 A G\n", read_bim),
                         StatusCode::Corrupt, "cM column");
  }
  STRATA_ASSERT_OK_AND_ASSIGN(auto neg, read_text(tmp, "n.bim", "1 v1 0 -5 A G\n1 v2 0 7 A G\n", read_bim));
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
  using K = ChromosomeKind;
  const std::pair<const char*, ChromosomeKind> kinds[] = {
      {"chr1", K::kAutosome}, {"22", K::kAutosome}, {"23", K::kX},     {"chrX", K::kX},           {"Y", K::kY},
      {"25", K::kXY},         {"chrM", K::kMT},     {"MT", K::kMT},    {"0", K::kOther},          {"-1", K::kOther},
      {"1e1", K::kOther},     {"chrUn_gl000220", K::kOther}, {"0X", K::kX}, {"chr0y", K::kY},
      {"0M", K::kMT},         {"0XY", K::kOther},   {"01", K::kAutosome}};
  for (const auto& [name, kind] : kinds) EXPECT_EQ(chromosome_kind(name), kind) << name;
  const std::pair<const char*, const char*> names[] = {{"chr01", "1"}, {"23", "X"},  {"chrM", "MT"},
                                                       {"M", "MT"},    {"25", "XY"}, {"scaffold_7", "scaffold_7"},
                                                       {"0X", "X"}};
  for (const auto& [name, plink] : names) EXPECT_EQ(plink_chromosome_name(name), plink) << name;
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
