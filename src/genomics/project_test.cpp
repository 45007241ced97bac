// project(): variant matching (ID, CHROM:POS, swapped, strand-flipped, ambiguous), the sums
// against a direct float64 oracle, sign handling of swapped targets, thread-count invariance,
// errors, and OADP on a spiked model where the truth is known. plink2 equality and the
// held-aside property on whole cohorts are tests/project/project_cli_test.cpp.
#include <cmath>
#include <filesystem>

#include "core/test_context.hpp"
#include "genomics/test_cohort.hpp"
#include "strata/genomics/project.hpp"
#include "testing/testing.hpp"

namespace strata::genomics {
namespace {

using strata::testing::make_test_context;
using strata::testing::test_ctx;

// A reference of `m` rows v0.. (A>C) with k = 2 deterministic weights and frequencies.
ProjectReference small_reference(int64_t m) {
  ProjectReference r;
  r.k = 2;
  for (int64_t v = 0; v < m; ++v) {
    r.chrom.push_back("1");
    r.id.push_back("v" + std::to_string(v));
    r.ref.push_back("A");
    r.alt.push_back("C");
    r.weights.push_back(std::sin(double(v) + 1.0));
    r.weights.push_back(std::cos(3.0 * double(v)));
    r.alt_freq.push_back(0.1 + 0.8 * double(v % 7) / 7.0);
  }
  r.eigenvalues = {4.0, 2.0};
  r.grm_variants = m;
  return r;
}

io::GenotypeViewPtr view_of(const std::vector<int8_t>& d, int64_t m, int64_t n, io::VariantInfo vi) {
  const int64_t stride = io::packed_row_bytes(n);
  std::vector<uint8_t> codes(static_cast<size_t>(m * stride), 0xFF);
  for (int64_t v = 0; v < m; ++v)
    for (int64_t j = 0; j < n; ++j) {
      const int8_t c = d[static_cast<size_t>(v * n + j)];
      io::set_code(codes.data() + v * stride, j, c < 0 ? uint8_t{io::kCodeMissing} : static_cast<uint8_t>(c));
    }
  auto view = io::make_memory_genotypes(std::move(codes), m, n, numbered_samples(n), {"1"}, std::move(vi));
  return view.ok() ? *view : nullptr;
}

TEST(ProjectOptions, ParsesCorrection) {
  STRATA_ASSERT_OK_AND_ASSIGN(ProjectCorrection c, parse_project_correction("oadp"));
  EXPECT_EQ(c, ProjectCorrection::Oadp);
  STRATA_EXPECT_STATUS(parse_project_correction("procrustes"), StatusCode::Invalid, "procrustes");
}

TEST(ProjectMatch, IdPositionSwapFlipAmbiguousMismatch) {
  ProjectReference r = small_reference(7);
  r.id[1] = "1:500:A:C";            // matched by position
  r.ref[3] = "A", r.alt[3] = "T";   // ambiguous
  io::VariantInfo vi = numbered_variants(7);
  vi.id[1] = "rs1";
  vi.position[1] = 500;
  std::swap(vi.ref[2], vi.alt[2]);  // swapped
  vi.ref[4] = "T", vi.alt[4] = "G"; // strand flip of A/C
  vi.ref[3] = "A", vi.alt[3] = "T";
  vi.ref[5] = "A", vi.alt[5] = "G"; // mismatch
  vi.id[6] = "other";               // not in the reference
  const std::vector<int8_t> d(7 * 4, 1);
  auto view = view_of(d, 7, 4, vi);
  ASSERT_NE(view, nullptr);
  STRATA_ASSERT_OK_AND_ASSIGN(ProjectMatch m, match_project_variants(r, *view, false));
  EXPECT_EQ(m.target, (std::vector<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(m.sign, (std::vector<int8_t>{1, 1, -1, 1, 1}));
  EXPECT_EQ(m.counts.matched, 5);
  EXPECT_EQ(m.counts.by_position, 1);
  EXPECT_EQ(m.counts.swapped, 1);
  EXPECT_EQ(m.counts.strand_flipped, 1);
  EXPECT_EQ(m.counts.ambiguous, 1);
  EXPECT_EQ(m.counts.allele_mismatch, 1);
  EXPECT_EQ(m.counts.missing, 2);
  STRATA_ASSERT_OK_AND_ASSIGN(ProjectMatch dropped, match_project_variants(r, *view, true));
  EXPECT_EQ(dropped.counts.ambiguous_dropped, 1);
  EXPECT_EQ(dropped.counts.matched, 4);
}

// The sums equal a direct float64 loop, a target with REF/ALT swapped projects the same, and the
// bits do not depend on the thread count.
TEST(Project, SumsMatchOracleSwapsAndThreads) {
  const int64_t m = 300, n = 600;  // several sample chunks
  const ProjectReference r = small_reference(m);
  const std::vector<int8_t> d = cohort_dosages(m, n, 5);
  auto view = view_of(d, m, n, numbered_variants(m));
  ProjectOptions o;
  o.reference = "ref";
  STRATA_ASSERT_OK_AND_ASSIGN(ProjectResult a, project(test_ctx(), view, r, o));
  for (int64_t i = 0; i < n; i += 97) {
    double s0 = 0, s1 = 0, sq = 0;
    int64_t ct = 0;
    for (int64_t v = 0; v < m; ++v) {
      const int8_t c = d[static_cast<size_t>(v * n + i)];
      if (c < 0) continue;
      const double p = r.alt_freq[static_cast<size_t>(v)];
      const double z = (c - 2 * p) / std::sqrt(2 * p * (1 - p));
      s0 += z * r.weights[static_cast<size_t>(2 * v)];
      s1 += z * r.weights[static_cast<size_t>(2 * v + 1)];
      sq += z * z;
      ct += 2;
    }
    EXPECT_NEAR(a.scores(i, 0), s0, 1e-9);
    EXPECT_NEAR(a.scores(i, 1), s1, 1e-9);
    EXPECT_NEAR(a.squared_norm[static_cast<size_t>(i)], sq, 1e-9);
    EXPECT_EQ(a.allele_ct[static_cast<size_t>(i)], ct);
    EXPECT_NEAR(a.projection(i, 0), s0 / std::sqrt(4.0 * m), 1e-12);
  }
  std::vector<int8_t> flipped = d;
  for (int8_t& c : flipped)
    if (c >= 0) c = static_cast<int8_t>(2 - c);
  io::VariantInfo vi = numbered_variants(m);
  std::swap(vi.ref, vi.alt);
  STRATA_ASSERT_OK_AND_ASSIGN(ProjectResult b, project(test_ctx(), view_of(flipped, m, n, vi), r, o));
  EXPECT_EQ(b.match.swapped, m);
  for (int64_t i = 0; i < n; ++i) EXPECT_NEAR(b.scores(i, 1), a.scores(i, 1), 1e-9);
  for (int threads : {1, 3}) {
    const Context ctx = make_test_context(threads);
    STRATA_ASSERT_OK_AND_ASSIGN(ProjectResult t, project(ctx, view, r, o));
    EXPECT_EQ(t.scores.data, a.scores.data) << threads << " threads";
  }
}

TEST(Project, Errors) {
  const ProjectReference r = small_reference(10);
  ProjectOptions o;
  o.reference = "P";
  o.k = 3;
  auto view = cohort(10, 8, 1);
  STRATA_EXPECT_STATUS(project(test_ctx(), view, r, o), StatusCode::Invalid, "has 2 PCs");
  o.k = 0;
  io::VariantInfo vi = numbered_variants(10);
  for (auto& id : vi.id) id = "x" + id;
  auto other = view_of(std::vector<int8_t>(100, 0), 10, 10, vi);
  STRATA_EXPECT_STATUS(project(test_ctx(), other, r, o), StatusCode::InvalidData, "matches P.eigenvec.var");
  STRATA_EXPECT_STATUS(read_project_reference("/nonexistent/P"), StatusCode::NotFound, "/nonexistent/P.eigenvec.var");
}

// A reference written as strata pca writes it, then damaged: every damage is Corrupt (or the
// reader's own error) naming the file, the line and the field.
TEST(ProjectReference, TruncatedOrGarbledFilesNameFileLineAndField) {
  strata::testing::TempDir tmp;
  const std::string p = tmp.str("p");
  const std::string var = "#CHROM\tID\tREF\tALT\tPC1\tPC2\n1\tv0\tA\tC\t0.5\t-0.25\n1\tv1\tG\tT\t0.125\t0.75\n";
  const std::string afreq = "#CHROM\tID\tREF\tALT\tALT_FREQS\tOBS_CT\n1\tv0\tA\tC\t0.25\t100\n1\tv1\tG\tT\t0.5\t100\n";
  const std::string eigenval = "4.5\n2.25\n";
  auto write = [&](const std::string& v, const std::string& a, const std::string& e) {
    strata::testing::write_file(p + ".eigenvec.var", v);
    strata::testing::write_file(p + ".afreq", a);
    strata::testing::write_file(p + ".eigenval", e);
  };
  write(var, afreq, eigenval);
  auto good = read_project_reference(p);
  ASSERT_TRUE(good.ok()) << good.status().to_string();
  EXPECT_EQ(good->k, 2);
  EXPECT_EQ(good->alt_freq, (std::vector<double>{0.25, 0.5}));
  EXPECT_EQ(good->eigenvalues, (std::vector<double>{4.5, 2.25}));
  EXPECT_EQ(good->weights, (std::vector<double>{0.5, -0.25, 0.125, 0.75}));
  // Cut in the middle of the last line: too few fields on line 3.
  write(var.substr(0, var.size() - 6), afreq, eigenval);
  STRATA_EXPECT_STATUS(read_project_reference(p), StatusCode::Corrupt, p + ".eigenvec.var line 3: 5 fields, the header has 6");
  // Cut inside the last field: the values read are valid, the missing line end is not.
  write(var.substr(0, var.size() - 2), afreq, eigenval);
  STRATA_EXPECT_STATUS(read_project_reference(p), StatusCode::Corrupt, p + ".eigenvec.var line 3: no line end; the file is cut short");
  write(var, afreq, "4.5\n2.2");
  STRATA_EXPECT_STATUS(read_project_reference(p), StatusCode::Corrupt, p + ".eigenval line 2: no line end");
  // A weight that is not a number names its column; one that overflows is not finite.
  write("#CHROM\tID\tREF\tALT\tPC1\tPC2\n1\tv0\tA\tC\t0.5\tx1\n", afreq, eigenval);
  STRATA_EXPECT_STATUS(read_project_reference(p), StatusCode::Corrupt, p + ".eigenvec.var line 2: PC2 'x1' is not a number");
  write("#CHROM\tID\tREF\tALT\tPC1\tPC2\n1\tv0\tA\tC\tinf\t0\n", afreq, eigenval);
  STRATA_EXPECT_STATUS(read_project_reference(p), StatusCode::Corrupt, "line 2: PC1 of variant v0 is not finite");
  // Empty, headerless and binary files.
  write("", afreq, eigenval);
  STRATA_EXPECT_STATUS(read_project_reference(p), StatusCode::Corrupt, p + ".eigenvec.var: empty file");
  write(std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16), afreq, eigenval);
  STRATA_EXPECT_STATUS(read_project_reference(p), StatusCode::Corrupt, p + ".eigenvec.var line 1: header is not");
  // .afreq: truncated (a PC variant without its frequency), garbled frequency, alleles that disagree.
  write(var, afreq.substr(0, afreq.find("1\tv1")), eigenval);
  STRATA_EXPECT_STATUS(read_project_reference(p), StatusCode::Corrupt, p + ".afreq: variant v1 of the .eigenvec.var has no frequency");
  write(var, afreq.substr(0, afreq.size() - 9), eigenval);
  STRATA_EXPECT_STATUS(read_project_reference(p), StatusCode::Corrupt, p + ".afreq line 3: 4 fields, the header needs 5");
  write(var, "#CHROM\tID\tREF\tALT\tALT_FREQS\n1\tv0\tA\tC\t0.25\n1\tv1\tG\tT\t0.5e\n", eigenval);
  STRATA_EXPECT_STATUS(read_project_reference(p), StatusCode::Corrupt, p + ".afreq line 3: ALT_FREQS '0.5e' is not a number");
  write(var, "#CHROM\tID\tREF\tALT\tALT_FREQS\n1\tv0\tA\tG\t0.25\n", eigenval);
  STRATA_EXPECT_STATUS(read_project_reference(p), StatusCode::Corrupt, p + ".afreq line 2: variant v0 has alleles A/G");
  // .eigenval: cut short, or not a number.
  write(var, afreq, "4.5\n");
  STRATA_EXPECT_STATUS(read_project_reference(p), StatusCode::Corrupt, p + ".eigenval: 1 eigenvalues for 2 PCs");
  write(var, afreq, "4.5\n2.2x\n");
  STRATA_EXPECT_STATUS(read_project_reference(p), StatusCode::Corrupt, p + ".eigenval line 2: eigenvalue '2.2x' is not a number");
  // Not a regular file: the text readers' check.
  write(var, afreq, eigenval);
  std::filesystem::remove(p + ".eigenval");
  std::filesystem::create_directory(p + ".eigenval");
  STRATA_EXPECT_STATUS(read_project_reference(p), StatusCode::InvalidData, p + ".eigenval is a directory");
}

// A sample inside the span of the reference PCs (no residual: ‖z‖² = ‖s‖²) changes nothing
// when augmented: the augmented PCs are a rotation of the reference's, Procrustes undoes it,
// and OADP returns the simple projection. Off the span it moves the scores outwards (a sample
// the decomposition did not see is shrunk towards 0).
TEST(Project, OadpKeepsInSpanSamplesAndExpandsOthers) {
  const std::vector<double> d = {30.0, 20.0, 12.0};
  linalg::DenseMatrix s(4, 3);
  std::vector<double> in_span, off_span;
  const double rows[4][3] = {{1.5, -2.0, 0.5}, {-0.3, 0.1, 2.2}, {4.0, 1.0, -1.0}, {0.0, 0.0, 0.7}};
  for (int64_t i = 0; i < 4; ++i) {
    double n2 = 0;
    for (int64_t j = 0; j < 3; ++j) s(i, j) = rows[i][j], n2 += rows[i][j] * rows[i][j];
    in_span.push_back(n2);
    off_span.push_back(n2 + 300.0);
  }
  STRATA_ASSERT_OK_AND_ASSIGN(linalg::DenseMatrix a, oadp_correct(test_ctx(), s, in_span, d));
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 3; ++j) EXPECT_NEAR(a(i, j), s(i, j), 1e-9) << i << "," << j;
  STRATA_ASSERT_OK_AND_ASSIGN(linalg::DenseMatrix b, oadp_correct(test_ctx(), s, off_span, d));
  for (int64_t i = 0; i < 3; ++i) EXPECT_GT(std::abs(b(i, 2)), std::abs(s(i, 2))) << i;
  STRATA_EXPECT_STATUS(oadp_correct(test_ctx(), s, in_span, {1.0}), StatusCode::Invalid, "singular values");
}

}  // namespace
}  // namespace strata::genomics
