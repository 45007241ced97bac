#pragma once
// Backend conformance (shared by conformance_*_test.cpp): every operation of strata::backend::Backend, for every registered
// backend, against references written here with plain loops (never the CPU backend itself).
// Every backend (CPU levels, CUDA) is in registered_backends() and passes unchanged.
//
// Tolerances (u = unit roundoff of the type, 2⁻⁵³ or 2⁻²⁴):
//  - exact (bit for bit): decode, count_codes, the int16 products, random_fill;
//  - BenchSource::random_slice_sum: the generated values are exact, their sum within 1e-13 relative of a
//    reference summed in another order (positive terms);
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
#include <ostream>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "strata/backend/backend.hpp"
#include "strata/core/random.hpp"

namespace strata::backend::conformance {

struct Registered {
  std::string name;
  std::function<Result<BackendPtr>()> make;
  // Test names and ctest listings show the backend's name, not the struct's bytes.
  friend void PrintTo(const Registered& r, std::ostream* os) { *os << r.name; }
};

inline std::vector<Registered> registered_backends() {
  std::vector<Registered> r{{"cpu_best", [] { return make_cpu_backend(CpuIsa::Best); }}};
  for (CpuIsa isa : {CpuIsa::Portable, CpuIsa::Avx2, CpuIsa::Avx2Vnni, CpuIsa::Avx512, CpuIsa::Avx512Vnni,
                     CpuIsa::Avx512Amx, CpuIsa::Neon}) {
    std::string name = std::string("cpu_") + cpu_isa_name(isa);
    std::erase(name, '-');
    r.push_back({name, [isa] { return make_cpu_backend(isa); }});
  }
  // CUDA device 0 as programs get it (small dense operations on the host), and with every dense
  // operation on the device. Without the module, driver or device these skip with the reason.
  r.push_back({"cuda", [] { return make_cuda_backend(0); }});
  r.push_back({"cuda_dense_on_device", [] { return make_cuda_backend(0, /*small_dense_on_host=*/false); }});
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
inline std::vector<double> orthonormal(int64_t m, int64_t k, std::mt19937_64& rng) {
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

inline const Layout kLayouts[] = {Layout::ColMajor, Layout::RowMajor};
inline const Trans kTrans[] = {Trans::No, Trans::Yes};


}  // namespace strata::backend::conformance
