// PCA cases that must never answer wrong in silence: fewer variants than samples (exact by the
// transposed source), plink2's eigenvalue scale with monomorphic variants, small randomized
// runs (complete search space: exact), and fractional dosages (rejected, not read as missing).
// Reference: LAPACK dsyev of the GRM XᵀX/M of the generator's dosages, standardized in the test
// (test_grm_reference.hpp), not through the library's counts or tables.
#include <algorithm>
#include <utility>
#include <cmath>
#include <limits>

#include "core/test_context.hpp"
#include "genomics/test_cohort.hpp"
#include "genomics/test_grm_reference.hpp"
#include "strata/genomics/pca.hpp"
#include "strata/genomics/qc.hpp"
#include "strata/genomics/selection.hpp"
#include "strata/io/store.hpp"
#include "strata/io/zarr.hpp"
#include "testing/testing.hpp"

using strata::testing::test_ctx;

namespace strata::genomics {
namespace {

void expect_matches(const PcaResult& r, const GrmEig& ref, int64_t n, double tol) {
  for (size_t i = 0; i < r.eigenvalues.size(); ++i) {
    EXPECT_NEAR(r.eigenvalues[i] / ref.w[i], 1.0, tol) << i;
    double dot = 0;
    for (int64_t j = 0; j < n; ++j) dot += r.eigenvectors(j, static_cast<int64_t>(i)) * ref.z[i * n + j];
    EXPECT_NEAR(std::abs(dot), 1.0, std::sqrt(tol)) << i;
  }
}

// Was: "this source cannot be read transposed" for exact PCA with variants < samples.
TEST(PcaEdge, ExactWithFewerVariantsThanSamples) {
  const int64_t m = 40, n = 130;
  auto view = cohort(m, n, 4);
  ASSERT_TRUE(view);
  const GrmEig ref = reference_grm(cohort_dosages(m, n, 4), m, n, static_cast<double>(m));
  PcaParams o;
  o.k = 3;
  o.method = linalg::SvdMethod::Exact;
  STRATA_ASSERT_OK_AND_ASSIGN(PcaResult r, pca(test_ctx(), view, o));
  ASSERT_EQ(r.eigenvalues.size(), 3u);
  expect_matches(r, ref, n, 1e-11);
  EXPECT_EQ(r.loadings.rows, m - 1);
  EXPECT_EQ(r.loadings.cols, 3);
  EXPECT_LT(linalg::orthogonality_error(r.loadings), 1e-12);
  EXPECT_TRUE(r.converged);
  EXPECT_EQ(r.stop, "exact");
}

// plink2 --pca divides by every variant passing its filters, monomorphic ones included
// (tests/pca checks the same against plink2 itself); a --maf selection removes them from M.
TEST(PcaEdge, EigenvalueScaleCountsMonomorphicVariantsLikePlink2) {
  const int64_t m = 300, n = 60;
  auto view = cohort(m, n, 6);  // variant 3 is monomorphic
  const std::vector<int8_t> dosages = cohort_dosages(m, n, 6);
  // Both exact routes: TSQR (float64 throughout) and the GRM pass (float32 products summed in
  // float64: ~1e-8 relative).
  for (auto [route, tol] : {std::pair{PcaRoute::Tsqr, 1e-11}, std::pair{PcaRoute::Grm, 1e-7}})
  for (double maf : {0.0, 0.01}) {
    PcaParams o;
    o.k = 3;
    o.method = linalg::SvdMethod::Exact;
    o.exact_route = route;
    SelectionOptions s;
    if (maf > 0) s.maf = maf;
    STRATA_ASSERT_OK_AND_ASSIGN(Selection sel, select_genotypes(test_ctx(), view, s));
    STRATA_ASSERT_OK_AND_ASSIGN(PcaResult r, pca(test_ctx(), sel.view, o));
    for (int64_t& v : r.variants_used) v = sel.variants[static_cast<size_t>(v)];
    // The variants plink2 keeps: polymorphic, and min(f, 1 − f) ≥ --maf.
    std::vector<int64_t> kept;
    for (int64_t v = 0; v < m; ++v) {
      const RefFreq rf = reference_freq(dosages, n, v);
      if (rf.polymorphic && std::min(rf.f, 1.0 - rf.f) >= maf) kept.push_back(v);
    }
    EXPECT_EQ(r.variants_used, kept) << maf;
    const int64_t expect_m = maf > 0 ? static_cast<int64_t>(kept.size()) : m;
    EXPECT_EQ(r.grm_variants, expect_m) << maf;
    EXPECT_EQ(r.filter.dropped_monomorphic, maf > 0 ? 0 : 1);
    if (maf == 0.0) EXPECT_EQ(static_cast<int64_t>(kept.size()), m - 1);
    EXPECT_EQ(r.route, pca_route_name(route));
    expect_matches(r, reference_grm(dosages, m, n, static_cast<double>(expect_m), &kept), n, tol);
  }
}

// 30 variants × 10 samples, randomized with a tolerance. Before: exit 0 with its own error
// estimates 0.74 and 1.15 (a partial search space). Now the space spans all samples: exact to
// the products' rounding, and `converged` tells the truth about the tolerance either way.
TEST(PcaEdge, SmallRandomizedIsExactAndHonest) {
  for (auto [m, n] : {std::pair<int64_t, int64_t>{30, 10}, {12, 40}}) {
    auto view = cohort(m, n, 8);
    const GrmEig ref = reference_grm(cohort_dosages(m, n, 8), m, n, static_cast<double>(m));
    for (auto arith : {Precision::Float32, Precision::Mixed, Precision::Int16}) {
      SCOPED_TRACE(::testing::Message() << m << " x " << n << " " << precision_name(arith));
      PcaParams o;
      o.k = 2;
      o.method = linalg::SvdMethod::Randomized;
      o.tolerance = 1e-8;
      o.precision = arith;
      STRATA_ASSERT_OK_AND_ASSIGN(PcaResult r, pca(test_ctx(), view, o));
      EXPECT_EQ(r.stop, "complete");
      expect_matches(r, ref, n, 1e-5);
      EXPECT_EQ(r.converged, r.max_error_estimate <= 1e-8) << r.max_error_estimate;
      EXPECT_LT(r.max_error_estimate, 1e-4);
      // A tolerance the products can meet.
      o.tolerance = 1e-3;
      STRATA_ASSERT_OK_AND_ASSIGN(r, pca(test_ctx(), view, o));
      EXPECT_TRUE(r.converged) << r.max_error_estimate;
    }
  }
}

template <class T>
void write_dosages(const std::string& dir, int64_t m, int64_t n, const std::vector<T>& values) {
  auto store = io::LocalStore::open(dir, true);
  ASSERT_TRUE(store.ok());
  io::ZarrCreateOptions co;
  co.shape = {m, n};
  co.chunks = {8, n};
  co.dtype = dtype_of<T>();
  co.overwrite = true;
  auto a = io::ZarrArray::create(*store, "", co);
  ASSERT_TRUE(a.ok()) << a.status().to_string();
  STRATA_ASSERT_OK(a->write_region({0, 0}, {m, n}, values.data()));
}

// A float dosage array with fractional values was read as all-missing except exact integers
// (PCA λ₁ 2.17 instead of 9.10). Now: hard calls (0/1/2, NaN or −1 missing) decode; fractional
// dosages are plink2's hard calls (the nearest call within 0.1, else missing) for the code
// readers; anything outside [0, 2] is InvalidData naming the array and the first value.
TEST(PcaEdge, FractionalDosagesAreHardCalledOutOfRangeRejected) {
  testing::TempDir tmp;
  const int64_t m = 20, n = 12;
  std::vector<double> hard(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m * n; ++i) hard[static_cast<size_t>(i)] = static_cast<double>((i * 7 + i / n) % 3);
  hard[5] = std::numeric_limits<double>::quiet_NaN();
  hard[17] = -1;
  write_dosages(tmp.str("hard.zarr"), m, n, hard);
  STRATA_ASSERT_OK_AND_ASSIGN(auto view, io::open_genotypes(tmp.str("hard.zarr")));
  STRATA_ASSERT_OK_AND_ASSIGN(auto counts, genomics::compute_variant_counts(test_ctx(), *view));
  EXPECT_EQ(counts[0].missing, 1);  // NaN
  EXPECT_EQ(counts[1].missing, 1);  // −1
  int64_t calls = 0;
  for (const auto& c : counts) calls += c.hom_ref + c.het + c.hom_alt;
  EXPECT_EQ(calls, m * n - 2);

  std::vector<double> frac = hard;
  frac[2 * n + 5] = 0.37;                              // no call within 0.1: missing
  frac[7 * n + 1] = 1.5;                               // missing
  frac[9 * n + 2] = hard[9 * n + 2] == 2 ? 1.93 : hard[9 * n + 2] + 0.08;  // the same call
  write_dosages(tmp.str("frac.zarr"), m, n, frac);
  STRATA_ASSERT_OK_AND_ASSIGN(view, io::open_genotypes(tmp.str("frac.zarr")));
  EXPECT_TRUE(view->has_dosages());
  STRATA_ASSERT_OK_AND_ASSIGN(auto frac_counts, genomics::compute_variant_counts(test_ctx(), *view));
  EXPECT_EQ(frac_counts[2].missing, 1);
  EXPECT_EQ(frac_counts[7].missing, 1);
  EXPECT_EQ(frac_counts[9].missing, 0);
  EXPECT_EQ(frac_counts[9].hom_alt, counts[9].hom_alt);
  std::vector<float> d(static_cast<size_t>(n));
  STRATA_ASSERT_OK(view->read_dosages(2, 1, 0, n, d.data(), n));
  EXPECT_EQ(d[5], std::round(0.37 * 16384) / 16384);  // plink2's 1/16384 units
  PcaParams o;
  o.k = 2;
  STRATA_EXPECT_OK(pca(test_ctx(), view, o).status());
  std::vector<float> frac32(frac.begin(), frac.end());
  frac32[4 * n + 6] = 2.5f;
  write_dosages(tmp.str("frac32.zarr"), m, n, frac32);
  STRATA_ASSERT_OK_AND_ASSIGN(view, io::open_genotypes(tmp.str("frac32.zarr")));
  STRATA_EXPECT_STATUS(genomics::compute_variant_counts(test_ctx(), *view), StatusCode::InvalidData,
                       "frac32.zarr.*: dosage 2.5 at variant 4, sample 6 is not a dosage");
  std::vector<double> inf = hard;
  inf[3 * n] = std::numeric_limits<double>::infinity();
  write_dosages(tmp.str("inf.zarr"), m, n, inf);
  STRATA_ASSERT_OK_AND_ASSIGN(view, io::open_genotypes(tmp.str("inf.zarr")));
  STRATA_EXPECT_STATUS(genomics::compute_variant_counts(test_ctx(), *view), StatusCode::InvalidData, "dosage inf at variant 3, sample 0");
  // An integer above 2 is not a call either (it used to be read as missing).
  std::vector<double> three = hard;
  three[1 * n + 1] = 3;
  write_dosages(tmp.str("three.zarr"), m, n, three);
  STRATA_ASSERT_OK_AND_ASSIGN(view, io::open_genotypes(tmp.str("three.zarr")));
  STRATA_EXPECT_STATUS(genomics::compute_variant_counts(test_ctx(), *view), StatusCode::InvalidData, "dosage 3 at variant 1, sample 1");
  std::vector<int8_t> three8(three.size());
  for (size_t i = 0; i < three.size(); ++i) three8[i] = std::isnan(three[i]) ? int8_t{-1} : static_cast<int8_t>(three[i]);
  write_dosages(tmp.str("three8.zarr"), m, n, three8);
  STRATA_ASSERT_OK_AND_ASSIGN(view, io::open_genotypes(tmp.str("three8.zarr")));
  STRATA_EXPECT_STATUS(genomics::compute_variant_counts(test_ctx(), *view), StatusCode::InvalidData, "dosage 3 at variant 1, sample 1");
}

}  // namespace
}  // namespace strata::genomics
