// The RandInt3 product kernels' phases (randint3_tile.hpp) run on the host over every thread of
// every block, as the GPU runs them between barriers: each output must be the bits of a plain
// sequential sum in the documented order over the scalar element code. Needs no GPU.
#include "backend/cuda/randint3_tile.hpp"

#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <limits>
#include <memory>
#include <random>
#include <vector>

namespace strata::backend::cuda::tile {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double a_at(const RandInt3Rows& a, int64_t i, int64_t j) {
  return random::randint3(random::byte_at(a.seed, 0, static_cast<uint64_t>((a.r0 + i) * a.cols + j)));
}
int64_t blocks(int64_t n, int64_t per) { return (n + per - 1) / per; }
using Acc = std::vector<std::array<double, kPer>>;

// The grid of times_kernel, thread by thread; the tiles start as NaN each step, so an entry the
// load phase missed would show.
std::vector<double> run_times(const RandInt3Rows& a, const std::vector<double>& x, int64_t l) {
  std::vector<double> y(static_cast<size_t>(a.rows * l), kNaN);
  auto sh = std::make_unique<TimesShared>();
  for (int64_t bx = 0; bx < blocks(a.rows, kOut); ++bx)
    for (int64_t by = 0; by < blocks(l, kL); ++by) {
      Acc acc(kThreads, std::array<double, kPer>{});
      for (int64_t k0 = 0; k0 < a.cols; k0 += kStep) {
        std::fill(&sh->as[0][0], &sh->as[0][0] + kOut * kStep, kNaN);
        std::fill(&sh->xs[0][0], &sh->xs[0][0] + kStep * kL, kNaN);
        for (int t = 0; t < kThreads; ++t) times_load(a, x.data(), l, bx, by, k0, *sh, t);
        for (int t = 0; t < kThreads; ++t) times_accumulate(*sh, t, acc[t].data());
      }
      for (int t = 0; t < kThreads; ++t) times_store(a, l, bx, by, t, acc[t].data(), y.data());
    }
  return y;
}

// trans_times_kernel's grid and the slice sum after it.
std::vector<double> run_trans(const RandInt3Rows& a, const std::vector<double>& w, int64_t l) {
  std::vector<double> zp(static_cast<size_t>(kRandInt3Slices * a.cols * l), kNaN),
      z(static_cast<size_t>(a.cols * l));
  auto sh = std::make_unique<TransShared>();
  for (int64_t s = 0; s < kRandInt3Slices; ++s)
    for (int64_t bx = 0; bx < blocks(a.cols, kOut); ++bx)
      for (int64_t by = 0; by < blocks(l, kL); ++by) {
        int64_t lo = 0, hi = 0;
        slice_rows(a.rows, s, &lo, &hi);
        Acc acc(kThreads, std::array<double, kPer>{});
        for (int64_t i0 = lo; i0 < hi; i0 += kStep) {
          std::fill(&sh->as[0][0], &sh->as[0][0] + kStep * kOut, kNaN);
          std::fill(&sh->ws[0][0], &sh->ws[0][0] + kStep * kL, kNaN);
          for (int t = 0; t < kThreads; ++t) trans_load(a, w.data(), l, bx, by, hi, i0, *sh, t);
          for (int t = 0; t < kThreads; ++t) trans_accumulate(*sh, t, acc[t].data());
        }
        for (int t = 0; t < kThreads; ++t) trans_store(a, l, bx, by, s, t, acc[t].data(), zp.data());
      }
  for (int64_t k = 0; k < a.cols * l; ++k) z[static_cast<size_t>(k)] = add_slices(zp.data(), a.cols * l, k);
  return z;
}

bool same(double x, double y) { return std::bit_cast<uint64_t>(x) == std::bit_cast<uint64_t>(y); }

TEST(CudaRandInt3Tiles, KernelsAreTheDocumentedSums) {
  struct Case {
    int64_t cols, r0, rows, l;
  };
  for (const Case& k : {Case{45, 0, 70, 3}, Case{33, 7, 5, 33}, Case{130, 3, 129, 20},
                        Case{17, (int64_t{1} << 33) / 17, 40, 2}, Case{1, 0, 9, 1}, Case{64, 1, 64, 32}}) {
    const RandInt3Rows a{0x5eedull + static_cast<uint64_t>(k.cols), k.cols, k.r0, k.rows};
    std::mt19937_64 rng(static_cast<uint64_t>(k.rows));
    std::normal_distribution<double> nd;
    std::vector<double> x(static_cast<size_t>(k.cols * k.l)), w(static_cast<size_t>(k.rows * k.l));
    for (double& v : x) v = nd(rng);
    for (double& v : w) v = nd(rng);
    const std::vector<double> y = run_times(a, x, k.l);
    for (int64_t c = 0; c < k.l; ++c)
      for (int64_t i = 0; i < k.rows; ++i) {
        double s = 0;
        for (int64_t j = 0; j < k.cols; ++j) s += a_at(a, i, j) * x[static_cast<size_t>(j + c * k.cols)];
        ASSERT_TRUE(same(y[static_cast<size_t>(i + c * k.rows)], s))
            << k.rows << " x " << k.cols << " (" << i << ", " << c << ")";
      }
    const std::vector<double> z = run_trans(a, w, k.l);
    for (int64_t c = 0; c < k.l; ++c)
      for (int64_t j = 0; j < k.cols; ++j) {
        double total = 0;
        for (int64_t s = 0; s < kRandInt3Slices; ++s) {
          const int64_t lo = s * k.rows / kRandInt3Slices, hi = (s + 1) * k.rows / kRandInt3Slices;
          double part = 0;
          for (int64_t i = lo; i < hi; ++i) part += a_at(a, i, j) * w[static_cast<size_t>(i + c * k.rows)];
          total = s == 0 ? part : total + part;
        }
        ASSERT_TRUE(same(z[static_cast<size_t>(j + c * k.cols)], total))
            << k.rows << " x " << k.cols << " (" << j << ", " << c << ")";
      }
  }
}

}  // namespace
}  // namespace strata::backend::cuda::tile
