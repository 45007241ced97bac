// Backend conformance: every operation of strata::backend::Backend, for every registered
// backend, against references written here with plain loops (never the CPU backend itself).
// A new backend (CUDA) adds itself to registered_backends() and must pass unchanged.
//
// Tolerances (u = unit roundoff of the type, 2⁻⁵³ or 2⁻²⁴):
//  - exact (bit for bit): decode, count_codes, the int16 products, random_fill;
//  - gemm / syrk / codes_times / codes_t_times: |got − ref| ≤ (k + 2)·u·Σ|terms| per entry
//    (the worst-case bound of any summation order, k = inner dimension);
//  - factorizations, on well-conditioned inputs of size ≤ 40, relative to the input's largest
//    entry: residuals (‖A − UᵀU‖, ‖op(A)X − αB‖, ‖A − QR‖, ‖AV − VΛ‖, ‖A − UΣVᵀ‖) and
//    orthogonality (‖QᵀQ − I‖) ≤ 1e-12; eigen/singular values against the known spectrum the
//    input was built from ≤ 1e-12·max|λ|.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "strata/backend/backend.hpp"
#include "strata/core/random.hpp"

namespace strata::backend {
namespace {

struct Registered {
  std::string name;
  std::function<Result<BackendPtr>()> make;
};

std::vector<Registered> registered_backends() {
  std::vector<Registered> r{{"cpu_best", [] { return make_cpu_backend(CpuIsa::Best); }}};
  for (CpuIsa isa : {CpuIsa::Portable, CpuIsa::Avx2, CpuIsa::Avx512, CpuIsa::Avx512Vnni}) {
    std::string name = std::string("cpu_") + cpu_isa_name(isa);
    std::erase(name, '-');
    r.push_back({name, [isa] { return make_cpu_backend(isa); }});
  }
  return r;
}

class Conformance : public ::testing::TestWithParam<Registered> {
 protected:
  void SetUp() override {
    auto be = GetParam().make();
    if (!be.ok()) GTEST_SKIP() << GetParam().name << " is not available here: " << be.status().to_string();
    be_ = *be;
  }
  BackendPtr be_;
};

constexpr double kPad = -7777.0;  // fills the padding of every view: it must come back untouched

// A dense matrix with padded leading dimension, in either layout.
template <class T>
struct Mat {
  int64_t rows, cols, ld;
  Layout layout;
  std::vector<T> buf;
  Mat(int64_t r, int64_t c, Layout l)
      : rows(r), cols(c), ld((l == Layout::RowMajor ? c : r) + 3), layout(l),
        buf(static_cast<size_t>(ld * (l == Layout::RowMajor ? r : c)) + 1, static_cast<T>(kPad)) {}
  MatrixView<T> view() { return {buf.data(), rows, cols, ld, layout}; }
  MatrixView<const T> cview() const { return {buf.data(), rows, cols, ld, layout}; }
  T& at(int64_t i, int64_t j) { return view()(i, j); }
  T at(int64_t i, int64_t j) const { return cview()(i, j); }
  bool padding_intact() const {
    Mat copy = *this;
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) copy.at(i, j) = static_cast<T>(kPad);
    return std::all_of(copy.buf.begin(), copy.buf.end(), [](T v) { return v == static_cast<T>(kPad); });
  }
};

template <class T>
Mat<T> random_mat(int64_t r, int64_t c, Layout l, std::mt19937_64& rng) {
  Mat<T> m(r, c, l);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int64_t i = 0; i < r; ++i)
    for (int64_t j = 0; j < c; ++j) m.at(i, j) = static_cast<T>(u(rng));
  return m;
}

template <class T>
double max_abs(const Mat<T>& m) {
  double x = 0;
  for (int64_t i = 0; i < m.rows; ++i)
    for (int64_t j = 0; j < m.cols; ++j) x = std::max(x, std::fabs(static_cast<double>(m.at(i, j))));
  return x;
}

// Element (i, j) of op(m).
template <class T>
double op_at(const Mat<T>& m, Trans t, int64_t i, int64_t j) {
  return t == Trans::Yes ? m.at(j, i) : m.at(i, j);
}

// Columns of an m × k matrix with orthonormal columns: a product of Householder reflections
// applied to the first k columns of the identity.
std::vector<double> orthonormal(int64_t m, int64_t k, std::mt19937_64& rng) {
  std::vector<double> q(static_cast<size_t>(m * k), 0.0);  // column-major
  for (int64_t j = 0; j < k; ++j) q[static_cast<size_t>(j + j * m)] = 1.0;
  std::normal_distribution<double> nd;
  for (int r = 0; r < 4; ++r) {
    std::vector<double> v(static_cast<size_t>(m));
    double vv = 0;
    for (auto& x : v) {
      x = nd(rng);
      vv += x * x;
    }
    for (int64_t j = 0; j < k; ++j) {
      double d = 0;
      for (int64_t i = 0; i < m; ++i) d += v[i] * q[i + j * m];
      for (int64_t i = 0; i < m; ++i) q[i + j * m] -= 2 * d / vv * v[i];
    }
  }
  return q;
}

const Layout kLayouts[] = {Layout::ColMajor, Layout::RowMajor};
const Trans kTrans[] = {Trans::No, Trans::Yes};

// ------------------------------------------------------------------------------------ BLAS
template <class T>
void check_gemm(const Backend& be) {
  std::mt19937_64 rng(1);
  const double u = std::numeric_limits<T>::epsilon() / 2;
  const int64_t m = 7, n = 5, k = 11;
  for (Layout la : kLayouts)
    for (Layout lb : kLayouts)
      for (Layout lc : kLayouts)
        for (Trans ta : kTrans)
          for (Trans tb : kTrans) {
            const auto a = ta == Trans::No ? random_mat<T>(m, k, la, rng) : random_mat<T>(k, m, la, rng);
            const auto b = tb == Trans::No ? random_mat<T>(k, n, lb, rng) : random_mat<T>(n, k, lb, rng);
            auto c = random_mat<T>(m, n, lc, rng);
            const auto c0 = c;
            const T alpha = static_cast<T>(0.75), beta = static_cast<T>(-0.5);
            ASSERT_TRUE(be.gemm(ta, tb, alpha, a.cview(), b.cview(), beta, c.view()).ok());
            for (int64_t i = 0; i < m; ++i)
              for (int64_t j = 0; j < n; ++j) {
                double ref = beta * static_cast<double>(c0.at(i, j)), mag = std::fabs(ref);
                for (int64_t p = 0; p < k; ++p) {
                  const double t = alpha * op_at(a, ta, i, p) * op_at(b, tb, p, j);
                  ref += t;
                  mag += std::fabs(t);
                }
                ASSERT_LE(std::fabs(c.at(i, j) - ref), (k + 2) * u * mag)
                    << "layouts " << int(la) << int(lb) << int(lc) << " trans " << int(ta) << int(tb);
              }
            ASSERT_TRUE(c.padding_intact());
          }
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

TEST_P(Conformance, SymmetricEigen) {
  std::mt19937_64 rng(6);
  const int64_t n = 9;
  std::vector<double> lambda = {-3.5, -1.0, 0.0, 0.25, 1.0, 2.0, 2.0000001, 7.0, 40.0};  // ascending
  const std::vector<double> v = orthonormal(n, n, rng);
  for (Layout l : kLayouts)
    for (bool vectors : {true, false}) {
      Mat<double> a(n, n, l);
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double s = 0;
          for (int64_t p = 0; p < n; ++p) s += v[i + p * n] * lambda[p] * v[j + p * n];
          a.at(i, j) = s;
        }
      for (int64_t i = 0; i < n; ++i)  // the upper triangle is never read
        for (int64_t j = i + 1; j < n; ++j) a.at(i, j) = 1e30;
      const auto a0 = a;
      std::vector<double> w(static_cast<size_t>(n));
      ASSERT_TRUE(be_->syev(a.view(), w.data(), vectors).ok());
      for (int64_t k = 0; k < n; ++k) ASSERT_NEAR(w[k], lambda[k], 1e-12 * 40) << k;
      if (!vectors) continue;
      const auto sym = [&](int64_t i, int64_t j) { return i >= j ? a0.at(i, j) : a0.at(j, i); };
      for (int64_t k = 0; k < n; ++k)
        for (int64_t i = 0; i < n; ++i) {
          double av = 0;
          for (int64_t p = 0; p < n; ++p) av += sym(i, p) * a.at(p, k);
          ASSERT_NEAR(av, w[k] * a.at(i, k), 1e-12 * 40);
        }
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double s = 0;
          for (int64_t p = 0; p < n; ++p) s += a.at(p, i) * a.at(p, j);
          ASSERT_NEAR(s, i == j ? 1.0 : 0.0, 1e-12);
        }
      ASSERT_TRUE(a.padding_intact());
    }
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

// -------------------------------------------------------------------------- genotype codes
// Random packed codes (all four, so missing calls too), `rows` rows of n codes `stride` bytes
// apart, plus one spare row and 64 bytes of slack (the kernels' contract).
struct Codes {
  int64_t rows, n, stride;
  std::vector<uint8_t> buf;
  Codes(int64_t r, int64_t samples, int64_t extra, std::mt19937_64& rng)
      : rows(r), n(samples), stride((samples + 3) / 4 + extra), buf(static_cast<size_t>((r + 1) * stride + 64)) {
    for (auto& b : buf) b = static_cast<uint8_t>(rng());
  }
  int code(int64_t i, int64_t j) const { return (buf[static_cast<size_t>(i * stride + j / 4)] >> (2 * (j % 4))) & 3; }
  CodesView view(int64_t samples) const { return {buf.data(), rows, samples, stride}; }
  CodesView view() const { return view(n); }
};

template <class T>
std::vector<T> random_luts(int64_t rows, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  std::vector<T> l(static_cast<size_t>(4 * rows));
  for (auto& x : l) x = static_cast<T>(u(rng));
  return l;
}

template <class T>
void check_decode(const Backend& be) {
  std::mt19937_64 rng(8);
  for (int64_t n : {1, 3, 16, 17, 63, 130, 1001})
    for (Layout l : kLayouts) {
      const Codes c(5, n, n % 3, rng);
      const auto luts = random_luts<T>(c.rows, rng);
      Mat<T> out(c.rows, n, l);
      ASSERT_TRUE(be.decode(c.view(), luts.data(), out.view()).ok());
      for (int64_t i = 0; i < c.rows; ++i)
        for (int64_t j = 0; j < n; ++j) ASSERT_EQ(out.at(i, j), luts[4 * i + c.code(i, j)]) << "n " << n << " " << i << "," << j;
      ASSERT_TRUE(out.padding_intact()) << "n " << n << " layout " << int(l);
    }
  const Codes c(2, 8, 0, rng);
  Mat<T> wrong(2, 9, Layout::RowMajor);
  EXPECT_FALSE(be.decode(c.view(), random_luts<T>(2, rng).data(), wrong.view()).ok());
}

TEST_P(Conformance, DecodeF32) { check_decode<float>(*be_); }
TEST_P(Conformance, DecodeF64) { check_decode<double>(*be_); }

TEST_P(Conformance, CountCodes) {
  std::mt19937_64 rng(9);
  for (int64_t n : {0, 1, 7, 31, 32, 33, 64, 129, 1000}) {
    const Codes c(4, n, 1, rng);
    std::vector<int64_t> got(static_cast<size_t>(4 * c.rows), -1), ref(got.size(), 0);
    be_->count_codes(c.view(), got.data());
    for (int64_t i = 0; i < c.rows; ++i)
      for (int64_t j = 0; j < n; ++j) ++ref[static_cast<size_t>(4 * i + c.code(i, j))];
    ASSERT_EQ(got, ref) << "n " << n;
  }
}

// Float tile products: a(i, j) = luts[4i + code(i, j)]; dense entries past the real samples
// are zero, as the kernels require.
TEST_P(Conformance, CodesTimesF32) {
  std::mt19937_64 rng(10);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  const double eps = 0x1p-24;
  for (auto [rows, n, w] : {std::tuple<int64_t, int64_t, int64_t>{96, 203, 8}, {7, 33, 16}, {13, 1001, 24}}) {
    const Codes c(rows, n, 0, rng);
    const int64_t n16 = (n + 15) / 16 * 16, ldq = n16 + 16;
    const auto luts = random_luts<float>(rows, rng);
    std::vector<float> qt(static_cast<size_t>(w * ldq), 0.0f);
    for (int64_t k = 0; k < w; ++k)
      for (int64_t j = 0; j < n; ++j) qt[static_cast<size_t>(k * ldq + j)] = u(rng);
    std::vector<float> y(static_cast<size_t>(rows * w), 0.5f);
    be_->codes_times(c.view(), luts.data(), qt.data(), ldq, w, y.data());
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t k = 0; k < w; ++k) {
        double ref = 0.5, mag = 0.5;
        for (int64_t j = 0; j < n; ++j) {
          const double t = double{luts[4 * i + c.code(i, j)]} * qt[k * ldq + j];
          ref += t;
          mag += std::fabs(t);
        }
        ASSERT_LE(std::fabs(y[i * w + k] - ref), (n16 + 2) * eps * mag) << rows << "x" << n << " " << i << "," << k;
      }
  }
}

TEST_P(Conformance, CodesTransposeTimesF32) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  const double eps = 0x1p-24;
  for (auto [rows, n, w] : {std::tuple<int64_t, int64_t, int64_t>{96, 203, 8}, {7, 40, 16}, {301, 100, 24}}) {
    const Codes c(rows, n, 1, rng);
    const int64_t n16 = (n + 15) / 16 * 16, ldz = n16 + 5;
    const auto luts = random_luts<float>(rows, rng);
    std::vector<float> y(static_cast<size_t>(rows * w));
    for (auto& x : y) x = u(rng);
    for (int64_t n0 : {int64_t{0}, int64_t{16}}) {
      if (n0 >= n16) continue;
      std::vector<float> zt(static_cast<size_t>(w * ldz), 0.25f);
      be_->codes_t_times(c.view(), luts.data(), n0, n16 - n0, y.data(), w, zt.data(), ldz);
      for (int64_t k = 0; k < w; ++k)
        for (int64_t j = 0; j < ldz; ++j) {
          if (j < n0 || j >= n) {
            if (j < n0 || j >= n16) {
              ASSERT_EQ(zt[k * ldz + j], 0.25f) << "wrote outside the samples at " << j;
            }
            continue;
          }
          double ref = 0.25, mag = 0.25;
          for (int64_t i = 0; i < rows; ++i) {
            const double t = double{luts[4 * i + c.code(i, j)]} * y[i * w + k];
            ref += t;
            mag += std::fabs(t);
          }
          ASSERT_LE(std::fabs(zt[k * ldz + j] - ref), (rows + 2) * eps * mag) << rows << "x" << n << " " << k << "," << j;
        }
    }
  }
}

// Integer products of raw codes (3 = missing counts as 3): exact, at the int16 extremes.
TEST_P(Conformance, CodesTimesInt16) {
  std::mt19937_64 rng(12);
  std::uniform_int_distribution<int> val(-32767, 32767);
  for (auto [rows, n, w] : {std::tuple<int64_t, int64_t, int64_t>{96, 1000, 16}, {7, 70, 8}, {13, 33, 24}}) {
    const Codes c(rows, n, 0, rng);
    const int64_t n32 = (n + 31) / 32 * 32;
    std::vector<int16_t> qt(static_cast<size_t>(w * n32), 0);
    for (int64_t k = 0; k < w; ++k)
      for (int64_t j = 0; j < n; ++j) qt[static_cast<size_t>(k * n32 + j)] = static_cast<int16_t>(rng() % 2 ? 32767 : val(rng));
    std::vector<int64_t> p(static_cast<size_t>(rows * w), 3), ref(p.size(), 3);
    be_->codes_times_i16(c.view(), qt.data(), n32, w, p.data());
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t k = 0; k < w; ++k)
        for (int64_t j = 0; j < n; ++j) ref[static_cast<size_t>(i * w + k)] += c.code(i, j) * int64_t{qt[k * n32 + j]};
    ASSERT_EQ(p, ref) << rows << "x" << n;
  }
}

TEST_P(Conformance, CodesTransposeTimesInt16) {
  std::mt19937_64 rng(13);
  std::uniform_int_distribution<int> val(-32767, 32767);
  for (auto [rows, n, w] : {std::tuple<int64_t, int64_t, int64_t>{3072, 192, 16}, {7, 70, 8}, {1, 16, 8}, {13, 33, 24}}) {
    const Codes c(rows, n, 0, rng);
    const int64_t n16 = (n + 15) / 16 * 16, ldz = n16 + 3;
    std::vector<int16_t> wp(static_cast<size_t>((rows + 1) / 2 * 2 * w), 0);  // odd rows: last partner zero
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t k = 0; k < w; ++k) wp[static_cast<size_t>((i / 2) * 2 * w + 2 * k + i % 2)] = static_cast<int16_t>(val(rng));
    std::vector<int32_t> zt(static_cast<size_t>(w * ldz), 5);
    be_->codes_t_times_i16(c.view(n16), wp.data(), w, zt.data(), ldz);
    for (int64_t k = 0; k < w; ++k)
      for (int64_t j = 0; j < ldz; ++j) {
        if (j >= n16) {
          ASSERT_EQ(zt[k * ldz + j], 5) << "wrote past the samples";
          continue;
        }
        if (j >= n) continue;
        int64_t ref = 5;
        for (int64_t i = 0; i < rows; ++i) ref += c.code(i, j) * int64_t{wp[(i / 2) * 2 * w + 2 * k + i % 2]};
        ASSERT_EQ(zt[k * ldz + j], ref) << rows << "x" << n << " " << k << "," << j;
      }
  }
}

// ---------------------------------------------------------------------------------- random
// The same bits as core/random.hpp's per-element functions, for every distribution, output
// type, start and step (including backwards and in place).
TEST_P(Conformance, RandomFill) {
  for (auto [e0, step, n] : {std::tuple<int64_t, int64_t, int64_t>{0, 1, 1000}, {5, 3, 77}, {999, -1, 1000}, {7, 0, 9}}) {
    random::FillParams p;
    p.seed = 42;
    p.stream = 3;
    const auto e = [&](int64_t k) { return static_cast<uint64_t>(e0 + k * step); };
    p.dist = random::Dist::Normal;
    p.mean = 1.5;
    p.sd = 0.25;
    std::vector<double> d(static_cast<size_t>(n));
    be_->random_fill(p, e0, step, n, d.data());
    for (int64_t k = 0; k < n; ++k) ASSERT_EQ(d[k], std::fma(random::normal_at(42, 3, e(k)), 0.25, 1.5)) << k;
    p.out = ScalarType::Float32;
    std::vector<float> f(static_cast<size_t>(n));
    be_->random_fill(p, e0, step, n, f.data());
    for (int64_t k = 0; k < n; ++k)
      ASSERT_EQ(f[k], static_cast<float>(std::fma(random::normal_at(42, 3, e(k)), 0.25, 1.5))) << k;
    p.dist = random::Dist::Uniform;
    p.out = ScalarType::Float64;
    be_->random_fill(p, e0, step, n, d.data());
    for (int64_t k = 0; k < n; ++k) ASSERT_EQ(d[k], random::uniform_at(42, 3, e(k))) << k;
    p.dist = random::Dist::Integers;
    p.out = ScalarType::Int64;
    p.low = -5;
    p.range = 11;
    std::vector<int64_t> ints(static_cast<size_t>(n));
    be_->random_fill(p, e0, step, n, ints.data());
    for (int64_t k = 0; k < n; ++k) ASSERT_EQ(ints[k], random::integer_at(42, 3, e(k), -5, 11)) << k;
  }
}

// Pair counts: planes built by the backend from random codes (trailing pairs of a row's last
// byte random too: they are past the samples and must count nothing), then joint counts of a
// tile against plain loops over the codes. Exact.
TEST_P(Conformance, CodePlanesAndPairCounts) {
  std::mt19937_64 rng(12);
  for (auto [n, m] : {std::pair<int64_t, int64_t>{1, 5}, {2, 64}, {7, 65}, {65, 200}, {130, 129}, {17, 1000}}) {
    const Codes c(m, n, 1, rng);
    const int64_t words = (m + 63) / 64;
    std::vector<uint64_t> planes(static_cast<size_t>(CodePlanesView::buffer_words(n, words)), ~uint64_t{0});
    for (int64_t w = 0; w < words; ++w) {
      const CodesView block{c.buf.data() + w * 64 * c.stride, std::min<int64_t>(64, m - w * 64), n, c.stride};
      be_->code_planes(block, planes.data(), words, w);
    }
    auto plane_bit = [&](int64_t s, int64_t v, int p) {
      const uint64_t word = planes[static_cast<size_t>((((s / 8) * words + v / 64) * 3 + p) * 8 + s % 8)];
      return static_cast<int>((word >> (v % 64)) & 1);
    };
    for (int64_t s = 0; s < (n + 7) / 8 * 8; ++s)
      for (int64_t v = 0; v < words * 64; ++v) {
        const int code = s < n && v < m ? c.code(v, s) : 3;
        ASSERT_EQ(plane_bit(s, v, 0), code == 1 ? 1 : 0) << "n " << n << " sample " << s << " variant " << v;
        ASSERT_EQ(plane_bit(s, v, 1), code == 2 ? 1 : 0) << "n " << n << " sample " << s << " variant " << v;
        ASSERT_EQ(plane_bit(s, v, 2), code != 3 ? 1 : 0) << "n " << n << " sample " << s << " variant " << v;
      }
    const CodePlanesView pv{planes.data(), n, words};
    // Tiles: the whole square, and an offset one (rows from 1, columns from the second group).
    for (auto [row0, rows, col0, cols] : {std::tuple<int64_t, int64_t, int64_t, int64_t>{0, n, 0, n},
                                          {std::min<int64_t>(1, n - 1), n - std::min<int64_t>(1, n - 1),
                                           n > 8 ? 8 : 0, n > 8 ? n - 8 : n}}) {
      const int64_t ldc = (cols + 7) / 8 * 8;
      std::vector<int64_t> got(static_cast<size_t>(kPairCountFields * rows * ldc), 5);
      ASSERT_TRUE(be_->pair_code_counts(pv, row0, rows, col0, cols, got.data()).ok());
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < ldc; ++j) {
          int64_t ref[kPairCountFields] = {};
          for (int64_t v = 0; v < m && col0 + j < n; ++v) {
            const int a = c.code(v, row0 + i), b = c.code(v, col0 + j);
            const bool ao = a != 3, bo = b != 3;
            ref[kPairBoth] += ao && bo;
            ref[kPairHetHet] += a == 1 && b == 1;
            ref[kPairHetAlt] += a == 1 && b == 2;
            ref[kPairAltHet] += a == 2 && b == 1;
            ref[kPairAltAlt] += a == 2 && b == 2;
            ref[kPairHetObs] += a == 1 && bo;
            ref[kPairAltObs] += a == 2 && bo;
            ref[kPairObsHet] += ao && b == 1;
            ref[kPairObsAlt] += ao && b == 2;
          }
          for (int f = 0; f < kPairCountFields; ++f)
            ASSERT_EQ(got[static_cast<size_t>((f * rows + i) * ldc + j)], ref[f] + 5)
                << "n " << n << " m " << m << " field " << f << " pair " << row0 + i << "," << col0 + j;
        }
    }
  }
  // A tile outside the planes is refused, not read.
  std::vector<uint64_t> planes(static_cast<size_t>(CodePlanesView::buffer_words(9, 1)), 0);
  std::vector<int64_t> out(1024, 0);
  const Status st = be_->pair_code_counts({planes.data(), 9, 1}, 0, 9, 4, 5, out.data());
  EXPECT_EQ(st.code(), StatusCode::Invalid);
  EXPECT_NE(st.message().find("multiple of 8"), std::string::npos) << st.message();
}

TEST(Backend, DefaultIsTheBestCpu) {
  EXPECT_EQ(cpu_backend()->name(), std::string("cpu-") + cpu_isa_name(best_cpu_isa()));
  EXPECT_TRUE(cpu_isa_available(CpuIsa::Portable));
  EXPECT_EQ((*make_cpu_backend(CpuIsa::Portable))->name(), "cpu-portable");
  EXPECT_FALSE(cpu_backend()->fast_int16() && !cpu_isa_available(CpuIsa::Avx512Vnni));
}

INSTANTIATE_TEST_SUITE_P(Registered, Conformance, ::testing::ValuesIn(registered_backends()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace strata::backend
