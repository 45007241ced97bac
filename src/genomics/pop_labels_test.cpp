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
                       "header names no population");
  write_file(tmp.str("x.txt"), "#IID POP\nZZ1 A\n");
  STRATA_EXPECT_STATUS(pca_population_labels(three(), tmp.str("x.txt")), StatusCode::InvalidData,
                       "none of its 1 IDs names a sample");
}

}  // namespace
}  // namespace strata::genomics
