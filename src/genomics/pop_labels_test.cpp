// --pop-file: populations taken by column name from a sample sheet (HapMap's 7-column
// relationships file was read by position: FID as the sample, IID as the population).
#include "strata/genomics/pca_output.hpp"
#include "testing/testing.hpp"

namespace strata::genomics {
namespace {

using strata::testing::TempDir;
using strata::testing::write_file;

// Samples NA1, NA2 and NA3 (no families).
io::SampleInfo three() {
  io::SampleInfo s;
  s.id = {"NA1", "NA2", "NA3"};
  return s;
}

TEST(PopLabels, SheetColumnsByName) {
  TempDir tmp;
  write_file(tmp.str("r.txt"), "FID\tIID\tdad\tmom\tsex\tpheno\tpopulation\n1\tNA1\t0\t0\t1\t0\tYRI\n2\tNA2\t0\t0\t2\t0\tCEU\n"
                               "3\tNA3\t0\t0\t2\t0\tCEU\n");
  STRATA_ASSERT_OK_AND_ASSIGN(auto labels, pca_population_labels(three(), tmp.str("r.txt")));
  EXPECT_EQ(labels, (std::vector<std::string>{"YRI", "CEU", "CEU"}));
  write_file(tmp.str("h.txt"), "#IID POP\nNA2 X\nNA3 Y\n");  // NA1 unknown (a warning)
  STRATA_ASSERT_OK_AND_ASSIGN(auto h, pca_population_labels(three(), tmp.str("h.txt")));
  EXPECT_EQ(h, (std::vector<std::string>{"", "X", "Y"}));
  write_file(tmp.str("p.txt"), "NA1 A\nNA2 B\nNA3 A\n");
  STRATA_ASSERT_OK_AND_ASSIGN(auto p, pca_population_labels(three(), tmp.str("p.txt")));
  EXPECT_EQ(p, (std::vector<std::string>{"A", "B", "A"}));
}

TEST(PopLabels, RefusedRatherThanMisread) {
  TempDir tmp;
  write_file(tmp.str("w.txt"), "1 NA1 0 0 1 0 YRI\n");  // no header: which column is the population?
  STRATA_EXPECT_STATUS(pca_population_labels(three(), tmp.str("w.txt")), StatusCode::InvalidData, "w.txt:1: 7 columns, expected 2");
  write_file(tmp.str("n.txt"), "FID IID sex\n1 NA1 1\n");
  STRATA_EXPECT_STATUS(pca_population_labels(three(), tmp.str("n.txt")), StatusCode::InvalidData,
                       "header .FID IID sex. names no population column");
  write_file(tmp.str("x.txt"), "#IID POP\nZZ1 A\n");
  STRATA_EXPECT_STATUS(pca_population_labels(three(), tmp.str("x.txt")), StatusCode::InvalidData,
                       "none of its 1 IDs names a sample");
}

// 40 samples S0..S39 in families F0..F39.
io::SampleInfo forty() {
  io::SampleInfo s;
  for (int i = 0; i < 40; ++i) s.id.push_back("S" + std::to_string(i)), s.family_id.push_back("F" + std::to_string(i));
  return s;
}

TEST(PopLabels, PopColumnFamiliesAndWhatMatched) {
  TempDir tmp;
  std::string sheet = "sample\tpop\tsuper_pop\tgender\n";
  for (int i = 0; i < 40; ++i) sheet += "S" + std::to_string(i) + (i % 2 ? "\tCEU\tEUR\tmale\n" : "\tYRI\tAFR\tfemale\n");
  write_file(tmp.str("panel"), sheet);
  std::string note;
  STRATA_ASSERT_OK_AND_ASSIGN(auto pop, pca_population_labels(forty(), tmp.str("panel"), "", &note));
  EXPECT_EQ(pop[0], "YRI");
  EXPECT_THAT(note, ::testing::HasSubstr("IID from column 1 (sample), population from column 2 (pop); 40 of 40 samples labelled, 2 populations"));
  STRATA_ASSERT_OK_AND_ASSIGN(auto sup, pca_population_labels(forty(), tmp.str("panel"), "SUPER_POP"));
  EXPECT_EQ(sup[1], "EUR");
  STRATA_EXPECT_STATUS(pca_population_labels(forty(), tmp.str("panel"), "region"), StatusCode::InvalidData,
                       "names no column 'region' .--pop-col.");
  // FID + IID: the same IID in two families gets each family's label.
  write_file(tmp.str("fam"), "FID IID POP\nF0 S0 A\nF1 S0 B\n" + std::string("F1 S1 B\n"));
  io::SampleInfo two;
  two.id = {"S0", "S0", "S1"};
  two.family_id = {"F0", "F1", "F1"};
  STRATA_ASSERT_OK_AND_ASSIGN(auto fam, pca_population_labels(two, tmp.str("fam"), "", &note));
  EXPECT_EQ(fam, (std::vector<std::string>{"A", "B", "B"}));
  EXPECT_THAT(note, ::testing::HasSubstr("(3 by FID+IID)"));
}

TEST(PopLabels, RefusesSheetsThatLabelAlmostNothingOrNameASamplePerPopulation) {
  TempDir tmp;
  // Read by the wrong columns (FID as IID, IID as population): one "population" per sample.
  std::string wrong;
  for (int i = 0; i < 40; ++i) wrong += "S" + std::to_string(i) + " NA" + std::to_string(i) + "\n";
  write_file(tmp.str("wrong"), wrong);
  STRATA_EXPECT_STATUS(pca_population_labels(forty(), tmp.str("wrong")), StatusCode::InvalidData,
                       "wrong: 40 populations for 40 labelled samples .columns 1 .IID. and 2 .population., no header.");
  // One of 40 samples labelled: the wrong file.
  write_file(tmp.str("one"), "S1 A\nQ2 A\nQ3 B\n");
  STRATA_EXPECT_STATUS(pca_population_labels(forty(), tmp.str("one")), StatusCode::InvalidData,
                       "one: only 1 of 40 samples have a population there");
  write_file(tmp.str("nohead"), "S1 A\n");
  STRATA_EXPECT_STATUS(pca_population_labels(forty(), tmp.str("nohead"), "POP"), StatusCode::InvalidData,
                       "--pop-col POP needs a header line");
}

}  // namespace
}  // namespace strata::genomics
