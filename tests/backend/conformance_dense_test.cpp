// Backend conformance, dense operations: BLAS products, LAPACK factorizations and the weighted
// Gram of observation-major rows.
#include "backend/conformance.hpp"

namespace strata::backend::conformance {
namespace {

// ------------------------------------------------------------------------------------ BLAS
// m × n results of inner dimension k, under every layout and transpose, with β = −0.5 and
// β = 0 (C holding NaN, which β = 0 must ignore).
template <class T>
void check_gemm_shape(const Backend& be, int64_t m, int64_t n, int64_t k, T beta) {
  std::mt19937_64 rng(static_cast<uint64_t>(1 + m * 131 + n * 17 + k));
  const double u = std::numeric_limits<T>::epsilon() / 2;
  for (Layout la : kLayouts)
    for (Layout lb : kLayouts)
      for (Layout lc : kLayouts)
        for (Trans ta : kTrans)
          for (Trans tb : kTrans) {
            const auto a = ta == Trans::No ? random_mat<T>(m, k, la, rng) : random_mat<T>(k, m, la, rng);
            const auto b = tb == Trans::No ? random_mat<T>(k, n, lb, rng) : random_mat<T>(n, k, lb, rng);
            auto c = random_mat<T>(m, n, lc, rng);
            if (beta == T(0))
              for (int64_t i = 0; i < m; ++i)
                for (int64_t j = 0; j < n; ++j) c.at(i, j) = std::numeric_limits<T>::quiet_NaN();
            const auto c0 = c;
            const T alpha = static_cast<T>(0.75);
            ASSERT_TRUE(be.gemm(ta, tb, alpha, a.cview(), b.cview(), beta, c.view()).ok());
            for (int64_t i = 0; i < m; ++i)
              for (int64_t j = 0; j < n; ++j) {
                double ref = beta == T(0) ? 0.0 : beta * static_cast<double>(c0.at(i, j)), mag = std::fabs(ref);
                for (int64_t p = 0; p < k; ++p) {
                  const double t = alpha * op_at(a, ta, i, p) * op_at(b, tb, p, j);
                  ref += t;
                  mag += std::fabs(t);
                }
                ASSERT_LE(std::fabs(c.at(i, j) - ref), (k + 2) * u * mag)
                    << m << " x " << n << " x " << k << " layouts " << int(la) << int(lb) << int(lc) << " trans "
                    << int(ta) << int(tb) << " beta " << beta;
              }
            ASSERT_TRUE(c.padding_intact());
          }
}

template <class T>
void check_gemm(const Backend& be) {
  check_gemm_shape<T>(be, 7, 5, 11, T(-0.5));
  // Skinny shapes (≤ 8 columns, long inner dimension: the CPU backend's own kernels), with row
  // counts that leave remainders of every row block.
  for (const auto& [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{37, 8, 130}, {29, 3, 70}, {17, 1, 64}, {5, 8, 200}})
    for (T beta : {T(-0.5), T(0)}) check_gemm_shape<T>(be, m, n, k, beta);
  std::mt19937_64 rng(1);
  // Shapes that do not fit are refused.
  auto a = random_mat<T>(3, 4, Layout::ColMajor, rng), b = random_mat<T>(3, 4, Layout::ColMajor, rng);
  auto c = random_mat<T>(3, 4, Layout::ColMajor, rng);
  EXPECT_FALSE(be.gemm(Trans::No, Trans::No, T(1), a.cview(), b.cview(), T(0), c.view()).ok());
}

TEST_P(Conformance, GemmF64) { check_gemm<double>(*be_); }
TEST_P(Conformance, GemmF32) { check_gemm<float>(*be_); }

TEST_P(Conformance, Syrk) {
  std::mt19937_64 rng(2);
  const double u = 0x1p-53;
  const int64_t n = 6, k = 9;
  for (Layout la : kLayouts)
    for (Layout lc : kLayouts)
      for (Trans ta : kTrans)
        for (Uplo uplo : {Uplo::Lower, Uplo::Upper}) {
          const auto a = ta == Trans::No ? random_mat<double>(n, k, la, rng) : random_mat<double>(k, n, la, rng);
          auto c = random_mat<double>(n, n, lc, rng);
          const auto c0 = c;
          ASSERT_TRUE(be_->syrk(uplo, ta, 2.0, a.cview(), 0.5, c.view()).ok());
          for (int64_t i = 0; i < n; ++i)
            for (int64_t j = 0; j < n; ++j) {
              if ((uplo == Uplo::Upper) != (i <= j) && i != j) {
                ASSERT_EQ(c.at(i, j), c0.at(i, j)) << "other triangle touched at " << i << "," << j;
                continue;
              }
              double ref = 0.5 * c0.at(i, j), mag = std::fabs(ref);
              for (int64_t p = 0; p < k; ++p) {
                const double t = 2.0 * op_at(a, ta, i, p) * op_at(a, ta, j, p);
                ref += t;
                mag += std::fabs(t);
              }
              ASSERT_LE(std::fabs(c.at(i, j) - ref), (k + 2) * u * mag);
            }
          ASSERT_TRUE(c.padding_intact());
        }
}

// A well-conditioned triangular matrix (dominant diagonal), the other triangle junk.
Mat<double> triangular(int64_t n, Uplo uplo, Layout l, std::mt19937_64& rng) {
  auto a = random_mat<double>(n, n, l, rng);
  for (int64_t i = 0; i < n; ++i) {
    a.at(i, i) = 3.0 + i % 3;
    for (int64_t j = 0; j < n; ++j)
      if ((uplo == Uplo::Upper) ? j < i : j > i) a.at(i, j) = 1e30;  // must never be read
  }
  return a;
}

TEST_P(Conformance, TriangularSolve) {
  std::mt19937_64 rng(3);
  const int64_t n = 8, other = 5;
  for (Layout la : kLayouts)
    for (Layout lb : kLayouts)
      for (Side side : {Side::Left, Side::Right})
        for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
          for (Trans ta : kTrans) {
            const auto a = triangular(n, uplo, la, rng);
            auto b = side == Side::Left ? random_mat<double>(n, other, lb, rng) : random_mat<double>(other, n, lb, rng);
            const auto b0 = b;
            ASSERT_TRUE(be_->trsm(side, uplo, ta, 1.5, a.cview(), b.view()).ok());
            // op(A) with the ignored triangle as zeros.
            const auto t = [&](int64_t i, int64_t j) {
              const int64_t r = ta == Trans::Yes ? j : i, c = ta == Trans::Yes ? i : j;
              return (uplo == Uplo::Upper ? c >= r : c <= r) ? a.at(r, c) : 0.0;
            };
            for (int64_t i = 0; i < b.rows; ++i)
              for (int64_t j = 0; j < b.cols; ++j) {
                double lhs = 0;
                for (int64_t p = 0; p < n; ++p) lhs += side == Side::Left ? t(i, p) * b.at(p, j) : b.at(i, p) * t(p, j);
                ASSERT_NEAR(lhs, 1.5 * b0.at(i, j), 1e-12 * 5 * (1 + max_abs(b)))
                    << "side " << int(side) << " uplo " << int(uplo) << " trans " << int(ta);
              }
            ASSERT_TRUE(b.padding_intact());
          }
}

TEST_P(Conformance, TriangularMultiply) {
  std::mt19937_64 rng(13);
  const int64_t n = 7, other = 4;
  for (Layout la : kLayouts)
    for (Layout lb : kLayouts)
      for (Side side : {Side::Left, Side::Right})
        for (Uplo uplo : {Uplo::Lower, Uplo::Upper})
          for (Trans ta : kTrans) {
            const auto a = triangular(n, uplo, la, rng);
            auto b = side == Side::Left ? random_mat<double>(n, other, lb, rng) : random_mat<double>(other, n, lb, rng);
            const auto b0 = b;
            ASSERT_TRUE(be_->trmm(side, uplo, ta, -0.5, a.cview(), b.view()).ok());
            const auto t = [&](int64_t i, int64_t j) {
              const int64_t r = ta == Trans::Yes ? j : i, c = ta == Trans::Yes ? i : j;
              return (uplo == Uplo::Upper ? c >= r : c <= r) ? a.at(r, c) : 0.0;
            };
            for (int64_t i = 0; i < b.rows; ++i)
              for (int64_t j = 0; j < b.cols; ++j) {
                double ref = 0, mag = 0;
                for (int64_t p = 0; p < n; ++p) {
                  const double x = -0.5 * (side == Side::Left ? t(i, p) * b0.at(p, j) : b0.at(i, p) * t(p, j));
                  ref += x;
                  mag += std::fabs(x);
                }
                ASSERT_LE(std::fabs(b.at(i, j) - ref), (n + 2) * 1.2e-16 * mag)
                    << "side " << int(side) << " uplo " << int(uplo) << " trans " << int(ta);
              }
            ASSERT_TRUE(b.padding_intact());
          }
  auto a = triangular(3, Uplo::Upper, Layout::ColMajor, rng);
  auto b = random_mat<double>(4, 2, Layout::ColMajor, rng);
  const Status st = be_->trmm(Side::Left, Uplo::Upper, Trans::No, 1.0, a.cview(), b.view());
  EXPECT_EQ(st.code(), StatusCode::Invalid) << st.to_string();
}

TEST_P(Conformance, TriangularConditionEstimate) {
  // diag(1, 10⁻³) is exactly 1000-conditioned in any norm; the estimate of a general triangle
  // lies within a factor n of the true 1-norm condition (here computed from the inverse).
  for (Layout l : kLayouts)
    for (Uplo uplo : {Uplo::Lower, Uplo::Upper}) {
      Mat<double> d(2, 2, l);
      d.at(0, 0) = 1.0, d.at(1, 1) = 1e-3;
      d.at(0, 1) = d.at(1, 0) = 0.0;
      auto rc = be_->trcon(uplo, d.cview());
      ASSERT_TRUE(rc.ok()) << rc.status().to_string();
      EXPECT_NEAR(*rc, 1e-3, 1e-15);
      // [[1, 4], [0, 1]] (upper) has ‖A‖₁ = 5 and ‖A⁻¹‖₁ = 5: rcond = 1/25, exact for n = 2.
      Mat<double> t(2, 2, l);
      t.at(0, 0) = t.at(1, 1) = 1.0;
      if (uplo == Uplo::Upper) {
        t.at(0, 1) = 4.0, t.at(1, 0) = 1e30;  // the other triangle is never read
      } else {
        t.at(1, 0) = 4.0, t.at(0, 1) = 1e30;
      }
      auto rt = be_->trcon(uplo, t.cview());
      ASSERT_TRUE(rt.ok()) << rt.status().to_string();
      EXPECT_NEAR(*rt, 1.0 / 25.0, 1e-15) << "layout " << int(l) << " uplo " << int(uplo);
      Mat<double> s(2, 2, l);
      s.at(0, 0) = 1.0, s.at(1, 1) = 0.0, s.at(0, 1) = s.at(1, 0) = 0.0;
      auto rs = be_->trcon(uplo, s.cview());
      ASSERT_TRUE(rs.ok());
      EXPECT_EQ(*rs, 0.0);
    }
}

// -------------------------------------------------------------------------------- LAPACK
TEST_P(Conformance, Cholesky) {
  std::mt19937_64 rng(4);
  const int64_t n = 12;
  for (Layout l : kLayouts)
    for (Uplo uplo : {Uplo::Lower, Uplo::Upper}) {
      const auto g = random_mat<double>(n, n, Layout::ColMajor, rng);
      Mat<double> a(n, n, l);
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double s = i == j ? n : 0.0;
          for (int64_t p = 0; p < n; ++p) s += g.at(i, p) * g.at(j, p);
          a.at(i, j) = s;
        }
      const auto a0 = a;
      ASSERT_TRUE(be_->potrf(uplo, a.view()).ok());
      const auto f = [&](int64_t i, int64_t j) {  // the factor L (lower) = Uᵀ
        return uplo == Uplo::Lower ? (j <= i ? a.at(i, j) : 0.0) : (j <= i ? a.at(j, i) : 0.0);
      };
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double s = 0;
          for (int64_t p = 0; p < n; ++p) s += f(i, p) * f(j, p);
          ASSERT_NEAR(s, a0.at(i, j), 1e-12 * max_abs(a0));
          if ((uplo == Uplo::Lower) ? j > i : j < i) {
            ASSERT_EQ(a.at(i, j), a0.at(i, j)) << "other triangle touched";
          }
        }
      ASSERT_TRUE(a.padding_intact());
    }
  Mat<double> bad(2, 2, Layout::ColMajor);
  bad.at(0, 0) = 1, bad.at(0, 1) = bad.at(1, 0) = 2, bad.at(1, 1) = 1;  // eigenvalues 3, −1
  const Status st = be_->potrf(Uplo::Lower, bad.view());
  EXPECT_EQ(st.code(), StatusCode::InvalidData) << st.to_string();
}

TEST_P(Conformance, ThinQr) {
  std::mt19937_64 rng(5);
  const int64_t m = 17, n = 6;
  for (Layout la : kLayouts)
    for (Layout lq : kLayouts)
      for (Layout lr : kLayouts) {
        const auto a = random_mat<double>(m, n, la, rng);
        Mat<double> q(m, n, lq), r(n, n, lr);
        ASSERT_TRUE(be_->qr(a.cview(), q.view(), r.view()).ok());
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j) {
            double s = 0;
            for (int64_t p = 0; p <= j; ++p) s += q.at(i, p) * r.at(p, j);
            ASSERT_NEAR(s, a.at(i, j), 1e-12 * max_abs(a));
          }
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = 0; j < n; ++j) {
            if (i > j) {
              ASSERT_EQ(r.at(i, j), 0.0);
            }
            double s = 0;
            for (int64_t p = 0; p < m; ++p) s += q.at(p, i) * q.at(p, j);
            ASSERT_NEAR(s, i == j ? 1.0 : 0.0, 1e-12);
          }
        ASSERT_TRUE(q.padding_intact() && r.padding_intact());
      }
}

// V·diag(λ)·Vᵀ (V column-major n × n) in the lower triangle of an n × n matrix of layout l; the
// upper triangle, which the solvers must not read, holds 1e30.
Mat<double> lower_from_spectrum(const std::vector<double>& v, const std::vector<double>& lambda, int64_t n, Layout l) {
  Mat<double> a(n, n, l);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t p = 0; p < n; ++p) s += v[i + p * n] * lambda[p] * v[j + p * n];
      a.at(i, j) = j <= i ? s : 1e30;
    }
  return a;
}

// The first `count` columns of z are orthonormal eigenvectors of the symmetric matrix whose
// lower triangle is `lower`, for the eigenvalues w.
void expect_eigenpairs(const Mat<double>& lower, const Mat<double>& z, const std::vector<double>& w, int64_t count) {
  const int64_t n = lower.rows;
  const auto sym = [&](int64_t i, int64_t j) { return i >= j ? lower.at(i, j) : lower.at(j, i); };
  for (int64_t k = 0; k < count; ++k)
    for (int64_t i = 0; i < n; ++i) {
      double av = 0;
      for (int64_t p = 0; p < n; ++p) av += sym(i, p) * z.at(p, k);
      ASSERT_NEAR(av, w[k] * z.at(i, k), 1e-12 * 40);
    }
  for (int64_t i = 0; i < count; ++i)
    for (int64_t j = 0; j < count; ++j) {
      double s = 0;
      for (int64_t p = 0; p < n; ++p) s += z.at(p, i) * z.at(p, j);
      ASSERT_NEAR(s, i == j ? 1.0 : 0.0, 1e-12);
    }
}

TEST_P(Conformance, SymmetricEigen) {
  std::mt19937_64 rng(6);
  const int64_t n = 9;
  std::vector<double> lambda = {-3.5, -1.0, 0.0, 0.25, 1.0, 2.0, 2.0000001, 7.0, 40.0};  // ascending
  const std::vector<double> v = orthonormal(n, n, rng);
  for (Layout l : kLayouts)
    for (bool vectors : {true, false}) {
      Mat<double> a = lower_from_spectrum(v, lambda, n, l);
      const auto a0 = a;
      std::vector<double> w(static_cast<size_t>(n));
      ASSERT_TRUE(be_->syev(a.view(), w.data(), vectors).ok());
      for (int64_t k = 0; k < n; ++k) ASSERT_NEAR(w[k], lambda[k], 1e-12 * 40) << k;
      if (!vectors) continue;
      expect_eigenpairs(a0, a, w, n);  // syev leaves the eigenvectors in a
      ASSERT_TRUE(a.padding_intact());
    }
}

TEST_P(Conformance, SymmetricEigenTop) {
  std::mt19937_64 rng(16);
  const int64_t n = 9, count = 3;
  const std::vector<double> lambda = {-3.5, -1.0, 0.0, 0.25, 1.0, 2.0, 7.0, 7.5, 40.0};  // ascending
  const std::vector<double> v = orthonormal(n, n, rng);
  for (Layout l : kLayouts)
    for (Layout lz : kLayouts) {
      Mat<double> a = lower_from_spectrum(v, lambda, n, l);
      const auto a0 = a;
      Mat<double> z(n, count, lz);
      std::vector<double> w(static_cast<size_t>(count));
      ASSERT_TRUE(be_->syev_top(a.view(), count, w.data(), z.view()).ok());
      for (int64_t k = 0; k < count; ++k) ASSERT_NEAR(w[k], lambda[n - count + k], 1e-12 * 40) << k;
      expect_eigenpairs(a0, z, w, count);
      ASSERT_TRUE(z.padding_intact());
    }
  Mat<double> a(4, 4, Layout::ColMajor), z(4, 5, Layout::ColMajor);
  std::vector<double> w(5);
  const Status st = be_->syev_top(a.view(), 5, w.data(), z.view());
  EXPECT_EQ(st.code(), StatusCode::Invalid) << st.to_string();
}

TEST_P(Conformance, ThinSvd) {
  std::mt19937_64 rng(7);
  for (auto [m, n] : {std::pair<int64_t, int64_t>{13, 5}, {4, 10}}) {
    const int64_t k = std::min(m, n);
    std::vector<double> sigma(static_cast<size_t>(k));
    for (int64_t i = 0; i < k; ++i) sigma[i] = 10.0 / (i + 1);  // descending
    const auto uu = orthonormal(m, k, rng), vv = orthonormal(n, k, rng);
    for (Layout la : kLayouts)
      for (Layout lo : kLayouts) {
        Mat<double> a(m, n, la);
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j) {
            double s = 0;
            for (int64_t p = 0; p < k; ++p) s += uu[i + p * m] * sigma[p] * vv[j + p * n];
            a.at(i, j) = s;
          }
        const auto a0 = a;
        Mat<double> u(m, k, lo), vt(k, n, lo);
        std::vector<double> s(static_cast<size_t>(k));
        ASSERT_TRUE(be_->svd(a.cview(), u.view(), s.data(), vt.view()).ok());
        ASSERT_EQ(a.buf, a0.buf) << "svd changed its input";
        for (int64_t p = 0; p < k; ++p) ASSERT_NEAR(s[p], sigma[p], 1e-12 * 10);
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j) {
            double r = 0;
            for (int64_t p = 0; p < k; ++p) r += u.at(i, p) * s[p] * vt.at(p, j);
            ASSERT_NEAR(r, a.at(i, j), 1e-12 * 10);
          }
        for (int64_t i = 0; i < k; ++i)
          for (int64_t j = 0; j < k; ++j) {
            double su = 0, sv = 0;
            for (int64_t p = 0; p < m; ++p) su += u.at(p, i) * u.at(p, j);
            for (int64_t p = 0; p < n; ++p) sv += vt.at(i, p) * vt.at(j, p);
            ASSERT_NEAR(su, i == j ? 1.0 : 0.0, 1e-12);
            ASSERT_NEAR(sv, i == j ? 1.0 : 0.0, 1e-12);
          }
        ASSERT_TRUE(u.padding_intact() && vt.padding_intact());
      }
  }
}

// ------------------------------------------------------------- weighted Gram, observation-major
// h += Σ_s (w·x_i)·x_j over observation-major rows, against long-double sums: column counts
// around the 8-column vectors and the 8 × 24 tiles, row counts 1–300, h starting from values
// (the sums continue from them) with its upper triangle left alone. Every CPU level equals the
// portable kernel bit for bit; each sum of n terms in order is within (n + 2)·2⁻⁵³ of
// |h₀| + Σ|terms| of the exact value.
TEST_P(Conformance, WeightedGramRows) {
  std::mt19937_64 rng(57);
  std::normal_distribution<double> normal(0.0, 2.0);
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  auto portable = *make_cpu_backend(CpuIsa::Portable);
  for (auto [n, p] : {std::pair<int64_t, int64_t>{1, 1}, {7, 3}, {8, 5}, {65, 8}, {300, 9}, {33, 24}, {40, 25},
                      {19, 33}, {257, 100}, {50, 17}}) {
    const int64_t ldx = p + 3, ldh = p + 1;
    std::vector<double> x(static_cast<size_t>(n * ldx)), w(static_cast<size_t>(n)), h0(static_cast<size_t>(p * ldh));
    for (double& e : x) e = u01(rng) < 0.3 ? 2.0 : normal(rng);
    for (double& e : w) e = u01(rng);
    for (int64_t i = 0; i < p; ++i)
      for (int64_t j = 0; j < ldh; ++j) h0[static_cast<size_t>(i * ldh + j)] = j <= i ? normal(rng) : -7.0;
    const MatrixView<const double> xv{x.data(), n, p, ldx, Layout::RowMajor};
    std::vector<double> h(h0), hr(h0);
    ASSERT_TRUE(be_->weighted_gram_rows(xv, w.data(), {h.data(), p, p, ldh, Layout::RowMajor}).ok());
    ASSERT_TRUE(portable->weighted_gram_rows(xv, w.data(), {hr.data(), p, p, ldh, Layout::RowMajor}).ok());
    for (int64_t i = 0; i < p; ++i)
      for (int64_t j = 0; j < ldh; ++j) {
        const size_t at = static_cast<size_t>(i * ldh + j);
        if (j > i) {
          ASSERT_EQ(h[at], -7.0) << "upper triangle and padding left alone";
          continue;
        }
        long double e = h0[at], mag = std::fabs(h0[at]);
        for (int64_t s = 0; s < n; ++s) {
          const long double t = (long double)w[s] * x[s * ldx + i] * x[s * ldx + j];
          e += t, mag += std::fabs(t);
        }
        ASSERT_EQ(h[at], hr[at]) << "h " << i << "," << j << " p " << p << " n " << n;
        ASSERT_NEAR(h[at], double(e), double(n + 2) * 0x1p-53 * double(mag)) << i << "," << j;
      }
  }
  std::vector<double> x(6), w(3), h(4);
  EXPECT_EQ(be_->weighted_gram_rows({x.data(), 3, 2, 2, Layout::ColMajor}, w.data(), {h.data(), 2, 2, 2, Layout::RowMajor})
                .code(),
            StatusCode::Invalid);
  EXPECT_EQ(be_->weighted_gram_rows({x.data(), 3, 2, 2, Layout::RowMajor}, w.data(), {h.data(), 1, 1, 1, Layout::RowMajor})
                .code(),
            StatusCode::Invalid);
}

}  // namespace
}  // namespace strata::backend::conformance
