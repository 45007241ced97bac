// Numbers in the PLINK text files, field by field, as plink2 2.00a3.5 reads them (each row was
// checked against /usr/bin/plink2 on a one-variant .bed: .bim cM and position, .fam sex and
// phenotype), and the .bim/.fam line rules R, pandas and spreadsheet exports run into.
#include <cmath>

#include "core/test_context.hpp"
#include "io/genotype/plink_numbers_internal.hpp"
#include "strata/io/plink.hpp"
#include "testing/testing.hpp"

namespace strata::io {
namespace {

using detail::NumberScan;
using detail::PositionScan;
using strata::testing::TempDir;
using strata::testing::write_file;

TEST(PlinkNumbers, DecimalNumbersAsPlink2ReadsThem) {
  struct Row {
    const char* tok;
    NumberScan kind;
    double value;
  };
  const Row rows[] = {
      {"0", NumberScan::kNumber, 0.0},          {"1e-3", NumberScan::kNumber, 1e-3},
      {"-0", NumberScan::kNumber, 0.0},         {".5", NumberScan::kNumber, 0.5},
      {"5.", NumberScan::kNumber, 5.0},         {"+1.5", NumberScan::kNumber, 1.5},
      {"1E5", NumberScan::kNumber, 1e5},        {"1e+05", NumberScan::kNumber, 1e5},
      {"-.5", NumberScan::kNumber, -0.5},       {"00.5", NumberScan::kNumber, 0.5},
      {"5.e1", NumberScan::kNumber, 50.0},      {"1e0001", NumberScan::kNumber, 10.0},
      {"1e-00005", NumberScan::kNumber, 1e-5},  {"0.123456789", NumberScan::kNumber, 0.123456789},
      {"12345678901234567890123", NumberScan::kNumber, 1.2345678901234568e22},
      {"1e308", NumberScan::kNumber, 1e308},    {"1e-400", NumberScan::kNumber, 0.0},
      // plink2 takes an exponent marker without digits: "1e" is 1, "1.5e+" is 1.5.
      {"1e", NumberScan::kNumber, 1.0},         {"1.5e+", NumberScan::kNumber, 1.5},
      {"1E-", NumberScan::kNumber, 1.0},
      // Refused as plink2 refuses them.
      {"1e309", NumberScan::kOverflow, 0},      {"inf", NumberScan::kNotNumber, 0},
      {"-inf", NumberScan::kNotNumber, 0},      {"nan", NumberScan::kNotNumber, 0},
      {"NA", NumberScan::kNotNumber, 0},        {"-", NumberScan::kNotNumber, 0},
      {"+", NumberScan::kNotNumber, 0},         {".", NumberScan::kNotNumber, 0},
      {"e5", NumberScan::kNotNumber, 0},        {".e5", NumberScan::kNotNumber, 0},
      {"++1", NumberScan::kNotNumber, 0},       {"-+1", NumberScan::kNotNumber, 0},
      {"'1'", NumberScan::kNotNumber, 0},       {"\"1\"", NumberScan::kNotNumber, 0},
      {"", NumberScan::kNotNumber, 0},          {"0x1p3", NumberScan::kTrailing, 0},
      {"1.5x", NumberScan::kTrailing, 0},       {"1.5ee", NumberScan::kTrailing, 0},
      {"1..5", NumberScan::kTrailing, 0},       {"1,5", NumberScan::kTrailing, 0},
      {"1e2.5", NumberScan::kTrailing, 0},      {"1d5", NumberScan::kTrailing, 0},
  };
  for (const Row& r : rows) {
    const detail::ScannedNumber x = detail::scan_plink_number(r.tok);
    EXPECT_EQ(static_cast<int>(x.kind), static_cast<int>(r.kind)) << "'" << r.tok << "'";
    if (r.kind == NumberScan::kNumber) {
      EXPECT_EQ(x.value, r.value) << "'" << r.tok << "'";
      EXPECT_FALSE(std::signbit(x.value) && x.value == 0.0) << "'" << r.tok << "' reads as -0";
    }
  }
}

TEST(PlinkNumbers, PositionsPlainAndInNotation) {
  struct Row {
    const char* tok;
    PositionScan kind;
    int64_t value;
  };
  const Row rows[] = {
      {"100", PositionScan::kInteger, 100},           {"+100", PositionScan::kInteger, 100},
      {"0100", PositionScan::kInteger, 100},          {"-0", PositionScan::kInteger, 0},
      {"0", PositionScan::kInteger, 0},               {"-5", PositionScan::kInteger, -5},
      {"2147483646", PositionScan::kInteger, 2147483646},
      {"00000000000000000000100", PositionScan::kInteger, 100},
      // Written by R (1e+05) and pandas (100.0): the number they stand for (plink2: the
      // leading digits, 1 and 100).
      {"1e+05", PositionScan::kNotation, 100000},     {"1E5", PositionScan::kNotation, 100000},
      {"100.0", PositionScan::kNotation, 100},        {"100.", PositionScan::kNotation, 100},
      {"12.5e1", PositionScan::kNotation, 125},       {"-1e5", PositionScan::kNotation, -100000},
      {"2147483647", PositionScan::kOutOfRange, 0},   {"-2147483647", PositionScan::kOutOfRange, 0},
      {"99999999999", PositionScan::kOutOfRange, 0},  {"3e9", PositionScan::kOutOfRange, 0},
      {"1e999", PositionScan::kOutOfRange, 0},        {"1.5", PositionScan::kNotWhole, 0},
      {"1e-2", PositionScan::kNotWhole, 0},           {"100x", PositionScan::kNotNumber, 0},
      {"0x10", PositionScan::kNotNumber, 0},          {"", PositionScan::kNotNumber, 0},
      {"NA", PositionScan::kNotNumber, 0},            {"+-1", PositionScan::kNotNumber, 0},
  };
  for (const Row& r : rows) {
    const detail::ScannedPosition p = detail::scan_plink_position(r.tok);
    EXPECT_EQ(static_cast<int>(p.kind), static_cast<int>(r.kind)) << "'" << r.tok << "'";
    if (r.kind == PositionScan::kInteger || r.kind == PositionScan::kNotation)
      EXPECT_EQ(p.value, r.value) << "'" << r.tok << "'";
  }
  EXPECT_EQ(detail::scan_plink_position("1e+05").plink2_value, 1);
  EXPECT_EQ(detail::scan_plink_position("100.0").plink2_value, 100);
}

TEST(PlinkNumbers, SexAndMissingWords) {
  const std::pair<const char*, int> sexes[] = {{"1", 1},  {"2", 2},  {"0", 0},    {"-9", 0}, {"NA", 0},
                                               {"M", 1},  {"m", 1},  {"F", 2},    {"f", 2},  {"male", 0},
                                               {"3", 0},  {"01", 0}, {"+1", 0},   {"1.0", 0}, {"U", 0}};
  for (const auto& [tok, code] : sexes) EXPECT_EQ(detail::plink_sex_code(tok), code) << tok;
  for (const char* na : {"NA", "na", "Na", "nA", "nan", "NaN", "NAN", "nAn"})
    EXPECT_TRUE(detail::is_plink_nan_word(na)) << na;
  for (const char* not_na : {"N", "NAs", "-nan", "N/A", "", "NONE"}) EXPECT_FALSE(detail::is_plink_nan_word(not_na)) << not_na;
  // plink2's category test on a phenotype (its first sample decides the column's kind).
  for (const char* cat : {"inf", "x", "\"1\"", "N/A", ".", "-", "--1", ".x"})
    EXPECT_TRUE(detail::is_plink_category_word(cat)) << cat;
  // "-nan" is neither a category nor NA to plink2: it refuses the column.
  for (const char* num : {"1", "-9", "+2", ".5", "-.5", "NA", "nan", "1e999", "1.5x", "-nan"})
    EXPECT_FALSE(detail::is_plink_category_word(num)) << num;
}

// Whole files as R / pandas / spreadsheets write them: what plink2 reads, read the same.
TEST(PlinkNumbers, ExportedBimAndFamLines) {
  TempDir tmp;
  write_file(tmp.str("r.bim"),
             "1\tsnp1\t0\t1e+05\tA\tC\r\n"        // R's write.table, CRLF
             "chr1 \t snp2  1.5e0\t\t100.0 G T \t\n"  // mixed blanks, trailing blanks
             "01\tsnp3\t-0\t+300\tA\tG");            // no final newline
  STRATA_ASSERT_OK_AND_ASSIGN(BimTable b, read_bim(tmp.str("r.bim")));
  ASSERT_EQ(b.variants.size(), 3);
  EXPECT_EQ(b.variants.position[0], 100000);
  EXPECT_EQ(b.variants.position[1], 100);
  EXPECT_EQ(b.variants.position[2], 300);
  EXPECT_EQ(b.variants.cm[1], 1.5);
  EXPECT_EQ(b.variants.ref[1], "T");
  EXPECT_EQ(b.variants.ref[2], "G");
  // '#' lines may open a .bim (comments), one a #CHROM header naming the column order.
  write_file(tmp.str("h.bim"), "# written by a script\n#CHROM\tPOS\tID\tREF\tALT\n1\t100\tsnp\tC\tA\n");
  STRATA_ASSERT_OK_AND_ASSIGN(BimTable h, read_bim(tmp.str("h.bim")));
  ASSERT_EQ(h.variants.size(), 1);
  EXPECT_EQ(h.variants.position[0], 100);
  EXPECT_EQ(h.variants.id[0], "snp");
  EXPECT_EQ(h.variants.alt[0], "A");
  EXPECT_EQ(h.variants.ref[0], "C");
  const std::pair<const char*, const char*> refused[] = {
      {"1 v 0 1.5 A G\n", "line 1: position '1.5' is not a whole number"},
      {"1 v 0 100x A G\n", "line 1: position '100x' is not an integer"},
      {"1 v 0 2147483647 A G\n", "line 1: position '2147483647' is beyond plink2's limit"},
      {"1 v inf 100 A G\n", "line 1: cM column 'inf' is not a decimal number"},
      {"1 v 1e999 100 A G\n", "line 1: cM column '1e999' is not a finite number"},
      {"1 v 1.5x 100 A G\n", "line 1: cM column '1.5x'"},
      {"\xEF\xBB\xBF" "1 v 0 100 A G\n", "line 1: starts with a UTF-8 byte order mark"},
      {"1 v 0 100 A G\n#x\n", "line 2: a line starting with '#' after the first variant"},
      {"#CHROM ID\n1 v 0 100 A G\n", "line 1: a #CHROM header must name CHROM, POS, ID, REF and ALT"}};
  for (const auto& [text, message] : refused) {
    write_file(tmp.str("x.bim"), text);
    STRATA_EXPECT_STATUS(read_bim(tmp.str("x.bim")), StatusCode::Corrupt, message);
  }

  write_file(tmp.str("r.fam"), "# exported\nf a 0 0 M 1.5e0\r\nf b 0 0 F +2 \t\nf c 0 0 -9 NAN\nf d 0 0 male .5");
  STRATA_ASSERT_OK_AND_ASSIGN(SampleInfo s, read_fam(tmp.str("r.fam")));
  ASSERT_EQ(s.size(), 4);
  EXPECT_EQ(s.sex, (std::vector<int8_t>{1, 2, 0, 0}));
  EXPECT_EQ(s.phenotype[0], "1.5e0");
  EXPECT_EQ(s.phenotype[3], ".5");
  // Category phenotypes are kept as written.
  write_file(tmp.str("c.fam"), "f a 0 0 1 case\nf b 0 0 2 control\n");
  STRATA_ASSERT_OK(read_fam(tmp.str("c.fam")));
  const std::pair<const char*, const char*> fam_refused[] = {
      {"f a 0 0 1 1.5x\n", "line 1: phenotype '1.5x' is not a number"},
      {"f a 0 0 1 0x1p3\n", "line 1: phenotype '0x1p3' is not a number"},
      {"f a 0 0 1 -nan\nf b 0 0 1 1\n", "line 1: phenotype '-nan' is not a number"},
      {"f a 0 0 1 1e999\n", "line 1: phenotype '1e999' is not a number .too large."},
      {"f a 0 0 1 x\nf b 0 0 1 NA\n", "line 2: phenotype 'NA' is a number or NA, while line 1's 'x' is a category"},
      {"f a 0 0 1 2\nf b 0 0 1 inf\n", "line 2: phenotype 'inf' is a category name, while line 1's '2'"},
      {"f a 0 0 1 2\n#x b 0 0 1 2\n", "line 2: a line starting with '#' after the first sample"}};
  for (const auto& [text, message] : fam_refused) {
    write_file(tmp.str("x.fam"), text);
    STRATA_EXPECT_STATUS(read_fam(tmp.str("x.fam")), StatusCode::Corrupt, message);
  }
}

}  // namespace
}  // namespace strata::io
