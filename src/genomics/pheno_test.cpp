// Phenotype and covariate tables: what plink2 reads that strata refused or misread (a UTF-8 byte
// order mark, `##` comment lines, categorical and empty covariates).
#include "strata/genomics/pheno.hpp"

#include <cmath>
#include <limits>

#include "testing/testing.hpp"

namespace strata::genomics {
namespace {

using strata::testing::TempDir;
using strata::testing::write_file;

// Samples a, b, c and d of family f.
io::SampleInfo four_samples() {
  io::SampleInfo s;
  s.id = {"a", "b", "c", "d"};
  s.family_id = {"f", "f", "f", "f"};
  return s;
}

TEST(SampleTable, ByteOrderMarkAndCommentLines) {
  TempDir tmp;
  // Before, the BOM made the header a data row ("\xEF\xBB\xBF#FID" is not "#FID").
  write_file(tmp.str("p.txt"), "\xEF\xBB\xBF##made by a spreadsheet\n#FID IID Q\nf a 1.5\nf b 2\nf c NA\nf d 3\n");
  SampleTableOptions o;
  STRATA_ASSERT_OK_AND_ASSIGN(auto t, read_sample_table(tmp.str("p.txt"), four_samples(), o));
  ASSERT_EQ(t.columns.size(), 1u);
  EXPECT_EQ(t.columns[0].name, "Q");
  EXPECT_EQ(t.columns[0].values[0], 1.5);
  EXPECT_TRUE(std::isnan(t.columns[0].values[2]));
  write_file(tmp.str("b.txt"), "\xEF\xBB\xBF" "f a 1\nf b 2\nf c 1\nf d 2\n");  // no header: PHENO1
  STRATA_ASSERT_OK_AND_ASSIGN(auto h, read_sample_table(tmp.str("b.txt"), four_samples(), o));
  ASSERT_EQ(h.columns.size(), 1u);
  EXPECT_EQ(h.columns[0].name, "PHENO1");
  EXPECT_EQ(h.matched_rows, 4);
  o.first_number = 2;  // after a .fam phenotype, as plink2 numbers them
  STRATA_ASSERT_OK_AND_ASSIGN(auto h2, read_sample_table(tmp.str("b.txt"), four_samples(), o));
  EXPECT_EQ(h2.columns[0].name, "PHENO2");
}

TEST(SampleTable, CategoricalAndEmptyCovariates) {
  TempDir tmp;
  write_file(tmp.str("c.txt"), "#FID IID POP AGE NONE\nf a EUR 30 NA\nf b AFR 41 NA\nf c NA 50 NA\nf d EAS 29 -9\n");
  SampleTableOptions o;
  o.phenotypes = false;
  STRATA_ASSERT_OK_AND_ASSIGN(auto t, read_sample_table(tmp.str("c.txt"), four_samples(), o));
  ASSERT_EQ(t.columns.size(), 3u);  // POP=EAS, POP=EUR (AFR the reference), AGE; NONE left out
  EXPECT_EQ(t.columns[0].name, "POP=EAS");
  EXPECT_EQ(t.columns[1].name, "POP=EUR");
  EXPECT_EQ(t.columns[2].name, "AGE");
  EXPECT_EQ(t.columns[1].values[0], 1.0);
  EXPECT_EQ(t.columns[0].values[0], 0.0);
  EXPECT_EQ(t.columns[0].values[3], 1.0);
  EXPECT_TRUE(std::isnan(t.columns[0].values[2]));  // NA stays missing
  ASSERT_EQ(t.warnings.size(), 2u);
  EXPECT_NE(t.warnings[0].find("'POP' is categorical (3 categories"), std::string::npos) << t.warnings[0];
  EXPECT_NE(t.warnings[1].find("'NONE' has no value"), std::string::npos) << t.warnings[1];
  // A phenotype must still be a number.
  SampleTableOptions p;
  STRATA_EXPECT_STATUS(read_sample_table(tmp.str("c.txt"), four_samples(), p), StatusCode::Corrupt,
                       "line 2: phenotype 'POP' value 'EUR' is not a number");
}

TEST(SampleTable, RefusedAsPlink2RefusesThem) {
  TempDir tmp;
  SampleTableOptions o;
  write_file(tmp.str("h.txt"), "#FID IID Q\nf a 0x1p1\nf b 2\n");
  STRATA_EXPECT_STATUS(read_sample_table(tmp.str("h.txt"), four_samples(), o), StatusCode::Corrupt, "line 2: phenotype 'Q' value '0x1p1'");
  write_file(tmp.str("b.txt"), "#FID IID Q\nf a 1\n\nf b 2\n");
  STRATA_EXPECT_STATUS(read_sample_table(tmp.str("b.txt"), four_samples(), o), StatusCode::Corrupt, "line 3: empty line between rows");
  write_file(tmp.str("e.txt"), "#FID IID Q\nf a 1\nf b 2\n\n\n");  // trailing blank lines are fine
  STRATA_ASSERT_OK(read_sample_table(tmp.str("e.txt"), four_samples(), o));
}

// Numbers as plink2 reads them (checked with plink2 --pheno/--covar): "1e" is 1, "+2", ".5",
// NA/NaN in any case and -9 in any spelling are missing; a number with other characters after it
// is refused (not a category), also in a covariate.
TEST(SampleTable, NumbersAsPlink2ReadsThem) {
  TempDir tmp;
  SampleTableOptions o;
  write_file(tmp.str("n.txt"), "FID IID Q\nf a 1e\nf b +2\nf c NAN\nf d -9.0\n");
  STRATA_ASSERT_OK_AND_ASSIGN(SampleTable t, read_sample_table(tmp.str("n.txt"), four_samples(), o));
  EXPECT_EQ(t.columns[0].values[0], 0.0);  // case/control 1/2 recoded to 0/1
  EXPECT_EQ(t.columns[0].values[1], 1.0);
  EXPECT_TRUE(std::isnan(t.columns[0].values[2]));
  EXPECT_TRUE(std::isnan(t.columns[0].values[3]));
  write_file(tmp.str("q.txt"), "FID IID Q\nf a .5\nf b 5.\nf c 1.5e+\nf d 1e-999\n");
  STRATA_ASSERT_OK_AND_ASSIGN(SampleTable q, read_sample_table(tmp.str("q.txt"), four_samples(), o));
  EXPECT_EQ(q.columns[0].values, (std::vector<double>{0.5, 5.0, 1.5, 0.0}));
  SampleTableOptions c;
  c.phenotypes = false;
  write_file(tmp.str("c.txt"), "FID IID C\nf a 2\nf b 1.5x\n");
  STRATA_EXPECT_STATUS(read_sample_table(tmp.str("c.txt"), four_samples(), c), StatusCode::Corrupt,
                       "line 3: covariate 'C' value '1.5x' is not a number");
  write_file(tmp.str("o.txt"), "FID IID Q\nf a 1e999\nf b 2\n");
  STRATA_EXPECT_STATUS(read_sample_table(tmp.str("o.txt"), four_samples(), o), StatusCode::Corrupt,
                       "line 2: phenotype 'Q' value '1e999' is not a number");
}

// A table in memory goes through the file reader's rules: the same SampleTable as its file.
void expect_same(const SampleTable& a, const SampleTable& b) {
  ASSERT_EQ(a.columns.size(), b.columns.size());
  for (size_t c = 0; c < a.columns.size(); ++c) {
    EXPECT_EQ(a.columns[c].name, b.columns[c].name);
    EXPECT_EQ(a.columns[c].binary, b.columns[c].binary) << a.columns[c].name;
    ASSERT_EQ(a.columns[c].values.size(), b.columns[c].values.size());
    for (size_t s = 0; s < a.columns[c].values.size(); ++s) {
      const double x = a.columns[c].values[s], y = b.columns[c].values[s];
      EXPECT_TRUE(x == y || (std::isnan(x) && std::isnan(y))) << a.columns[c].name << " sample " << s;
    }
  }
  EXPECT_EQ(a.warnings, b.warnings);
}

TEST(SampleTable, InMemoryEqualsItsFile) {
  TempDir tmp;
  const double nan = std::nan("");
  // Rows of samples a..d: Q quantitative (-9 missing), B case/control 1/2 (0 missing), P a
  // categorical covariate, A numbers as a matrix column (stride 2), E empty.
  write_file(tmp.str("p.txt"), "#FID IID Q B\nf a 1.5 1\nf b -9 2\nf c 2.25 0\nf d NA 2\n");
  write_file(tmp.str("c.txt"), "#FID IID P A E\nf a EUR 30 NA\nf b AFR 41 NA\nf c NA 50 NA\nf d EAS 29 -9\n");
  const double q[] = {1.5, -9, 2.25, nan}, b[] = {1, 2, 0, 2}, e[] = {nan, nan, nan, -9};
  const double a2[] = {30, 0, 41, 0, 50, 0, 29, 0};
  SampleTableData pd;
  pd.source = "the phenotype table";
  pd.rows = 4;
  pd.columns = {{"Q", q, 1, {}}, {"B", b, 1, {}}};
  SampleTableData cd;
  cd.rows = 4;
  cd.columns = {{"P", nullptr, 1, {"EUR", "AFR", "NA", "EAS"}}, {"A", a2, 2, {}}, {"E", e, 1, {}}};
  SampleTableOptions po, co;
  co.phenotypes = false;
  STRATA_ASSERT_OK_AND_ASSIGN(auto pf, read_sample_table(tmp.str("p.txt"), four_samples(), po));
  STRATA_ASSERT_OK_AND_ASSIGN(auto pm, align_sample_table(pd, four_samples(), {}, po));
  expect_same(pm, pf);
  EXPECT_TRUE(pm.columns[1].binary);
  STRATA_ASSERT_OK_AND_ASSIGN(auto cf, read_sample_table(tmp.str("c.txt"), four_samples(), co));
  STRATA_ASSERT_OK_AND_ASSIGN(auto cm, align_sample_table(cd, four_samples(), {}, co));
  expect_same(cm, cf);
  EXPECT_EQ(cm.columns.size(), 3u);  // P=EUR, P=EAS, A; E left out

  // Selected samples b and d (rows 1 and 3): the other rows count as unknown, as in a file.
  io::SampleInfo bd;
  bd.id = {"b", "d"};
  bd.family_id = {"f", "f"};
  STRATA_ASSERT_OK_AND_ASSIGN(auto sf, read_sample_table(tmp.str("p.txt"), bd, po));
  STRATA_ASSERT_OK_AND_ASSIGN(auto sm, align_sample_table(pd, bd, {1, 3}, po));
  expect_same(sm, sf);
  EXPECT_EQ(sm.unknown_rows, sf.unknown_rows);
  EXPECT_EQ(sm.matched_rows, 2);

  // In memory 0/1 is case/control whatever --1 says; 1/2 under --1 is quantitative, as in a file.
  const double zo[] = {0, 1, nan, 1};
  SampleTableData z;
  z.rows = 4;
  z.columns = {{"Z", zo, 1, {}}, {"B", b, 1, {}}};
  SampleTableOptions one = po;
  one.zero_one_binary = true;
  STRATA_ASSERT_OK_AND_ASSIGN(auto zt, align_sample_table(z, four_samples(), {}, one));
  EXPECT_TRUE(zt.columns[0].binary);
  EXPECT_EQ(zt.columns[0].values[1], 1.0);
  EXPECT_FALSE(zt.columns[1].binary);
}

TEST(SampleTable, InMemoryErrorsNameTheTableColumnAndRow) {
  const double nan = std::nan("");
  const double q[] = {1.5, 2, nan, std::numeric_limits<double>::infinity()};
  SampleTableData d;
  d.source = "the phenotype table";
  d.rows = 4;
  d.columns = {{"Q", q, 1, {}}, {"T", nullptr, 1, {"1", "x", "2", "3"}}};
  SampleTableOptions o;
  o.names = {"NOPE"};
  auto r = align_sample_table(d, four_samples(), {}, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::InvalidData);
  EXPECT_NE(r.status().message().find("the phenotype table: no phenotype column named 'NOPE'"), std::string::npos);
  o.names = {"Q"};
  r = align_sample_table(d, four_samples(), {}, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("row 4: phenotype 'Q' value inf is not a finite number"), std::string::npos)
      << r.status().message();
  o.names = {"T"};
  r = align_sample_table(d, four_samples(), {}, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::Corrupt);  // as a file's text phenotype
  EXPECT_NE(r.status().message().find("row 2: phenotype 'T' value 'x' is not a number"), std::string::npos);
  d.rows = 3;
  r = align_sample_table(d, four_samples(), {}, SampleTableOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("one value per sample"), std::string::npos);
  d.rows = 4;
  d.columns[0].name = "A B";
  r = align_sample_table(d, four_samples(), {}, SampleTableOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("cannot be empty or hold spaces"), std::string::npos);
}

}  // namespace
}  // namespace strata::genomics
