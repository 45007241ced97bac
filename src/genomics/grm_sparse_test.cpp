// The sparse GRM route's pieces against brute force: a variant's tables reproduce its
// standardized values (x = x_ref + c·d), a run's lists, counts and centring sums are those of
// the codes, and the both-missing pairs of a tile are counted once each.
#include "genomics/grm_sparse.hpp"

#include <cmath>
#include <random>

#include "strata/genomics/qc.hpp"
#include "strata/io/genotype.hpp"
#include "testing/testing.hpp"

namespace strata::genomics::grm_sparse {
namespace {

int copies(const SparseVariant& v, int code) {  // c of a called code from its list part
  return v.part[code] == 0 ? 0 : v.part[code] == 1 ? 1 : 2;
}

TEST(GrmSparse, VariantTablesReproduceTheStandardizedValues) {
  for (double f : {0.01, 0.2, 1.0 / 3.0, 0.5, 0.6, 0.95, 0.999}) {
    double lut[4];
    make_standardize_lut_for_freq(f, Standardization::Binom2, lut);
    const SparseVariant v = make_sparse_variant(f, lut);
    // x_ref is the commonest homozygote's value (c = 0) and d the step per minor-allele copy.
    const int ref = f > 0.5 ? 2 : 0;
    EXPECT_EQ(copies(v, ref), 0) << f;
    const double x_ref = lut[ref], d = (f > 0.5 ? -1.0 : 1.0) / std::sqrt(2.0 * f * (1.0 - f));
    for (int g = 0; g < 3; ++g) {
      EXPECT_NEAR(x_ref + copies(v, g) * d, lut[g], 1e-14 * std::max(1.0, std::fabs(lut[g]))) << f << " g " << g;
      EXPECT_DOUBLE_EQ(v.xr[g], x_ref * lut[g]);
      EXPECT_DOUBLE_EQ(v.y[g], d * lut[g]);
    }
    EXPECT_EQ(v.part[3], 4);  // missing calls: the third part, x = x_ref + coef·d = 0
    EXPECT_NEAR(x_ref + v.missing_coef * d, 0.0, 1e-14) << f;
    EXPECT_EQ(v.y[3], 0.0);
    EXPECT_EQ(v.xr[3], 0.0);
    // The minor allele's copies: p ≤ 1/2 of the calls' alleles.
    EXPECT_EQ(copies(v, f > 0.5 ? 0 : 2), 2) << f;
  }
  for (double f : {0.0, 1.0, std::nan("")}) {
    double lut[4];
    make_standardize_lut_for_freq(f, Standardization::Binom2, lut);
    const SparseVariant v = make_sparse_variant(f, lut);
    for (int q = 0; q < 4; ++q) {
      EXPECT_EQ(v.part[q], 0) << f;
      EXPECT_EQ(v.y[q], 0.0) << f;
      EXPECT_EQ(v.xr[q], 0.0) << f;
    }
  }
}

TEST(GrmSparse, RunListsAreTheCodesInPartAndVariantOrder) {
  std::mt19937_64 rng(5);
  const int64_t n = 70, npad = 96, stride = io::packed_row_bytes(n), slot = 128;
  for (int64_t count : {int64_t{1}, int64_t{63}, int64_t{64}, int64_t{100}, slot}) {
    std::vector<SparseVariant> sv(static_cast<size_t>(count));
    std::vector<uint8_t> codes(static_cast<size_t>(count * stride), 0);
    for (int64_t k = 0; k < count; ++k) {
      const double f = k % 7 == 0 ? 0.0 : 0.05 + 0.9 * double(rng() % 1000) / 1000.0;  // some monomorphic
      double lut[4];
      make_standardize_lut_for_freq(f, Standardization::Binom2, lut);
      sv[static_cast<size_t>(k)] = make_sparse_variant(f, lut);
      for (int64_t i = 0; i < n; ++i)
        io::set_code(codes.data() + k * stride, i, static_cast<uint8_t>(rng() % 9 == 0 ? 3 : rng() % 3));
    }
    std::vector<uint8_t> entries(static_cast<size_t>(npad * slot), 0xEE), counts(static_cast<size_t>(kParts * npad), 9);
    std::vector<double> u(static_cast<size_t>(npad), -1.0), coef(static_cast<size_t>(slot), -1.0);
    std::vector<std::vector<int32_t>> missing(static_cast<size_t>(count));
    SparseRun run{entries.data(), counts.data(), u.data(), coef.data(), slot};
    build_sparse_run(sv.data(), codes.data(), stride, count, n, npad, run, missing.data());
    for (int64_t k = 0; k < slot; ++k)
      EXPECT_EQ(coef[static_cast<size_t>(k)], k < count ? sv[static_cast<size_t>(k)].missing_coef : 0.0);
    for (int64_t i = 0; i < npad; ++i) {
      std::vector<uint8_t> want[kParts];
      double want_u = 0.0;
      for (int64_t k = 0; k < count && i < n; ++k) {
        const SparseVariant& v = sv[static_cast<size_t>(k)];
        const int q = io::code_at(codes.data() + k * stride, i);
        want_u += v.xr[q];
        for (int part = 0; part < kParts; ++part)
          if (v.part[q] == (1 << part)) want[part].push_back(static_cast<uint8_t>(k));
      }
      EXPECT_EQ(u[static_cast<size_t>(i)], want_u) << "count " << count << " sample " << i;
      int64_t at = 0;
      for (int part = 0; part < kParts; ++part) {
        ASSERT_EQ(counts[static_cast<size_t>(kParts * i + part)], want[part].size()) << i << " part " << part;
        for (uint8_t k : want[part]) EXPECT_EQ(entries[static_cast<size_t>(i * slot + at++)], k) << i << " " << part;
      }
    }
    for (int64_t k = 0; k < count; ++k) {
      std::vector<int32_t> want;
      for (int64_t i = 0; i < n; ++i)
        if (io::code_at(codes.data() + k * stride, i) == 3) want.push_back(static_cast<int32_t>(i));
      EXPECT_EQ(missing[static_cast<size_t>(k)], want) << k;
    }
  }
}

TEST(GrmSparse, MissingPairsOfATileAreCountedOnce) {
  std::mt19937_64 rng(8);
  const int64_t n = 90;
  std::vector<std::vector<int32_t>> missing(40);
  for (auto& s : missing)
    for (int32_t i = 0; i < n; ++i)
      if (rng() % 6 == 0) s.push_back(i);
  for (auto [row0, rows, col0, cols] : {std::array<int64_t, 4>{32, 32, 32, 32}, {64, 26, 0, 32}, {0, 90, 0, 90},
                                        {32, 32, 0, 32}}) {
    std::vector<double> acc(static_cast<size_t>(rows * cols), 0.5);
    add_missing_pairs(missing, row0, rows, col0, cols, acc.data());
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        double want = 0.5;
        if (row0 != col0 || j <= i)
          for (const auto& s : missing) {
            const bool a = std::binary_search(s.begin(), s.end(), int32_t(row0 + i));
            const bool b = std::binary_search(s.begin(), s.end(), int32_t(col0 + j));
            want += a && b;
          }
        EXPECT_EQ(acc[static_cast<size_t>(i * cols + j)], want) << row0 << "," << col0 << " " << i << "," << j;
      }
  }
}

}  // namespace
}  // namespace strata::genomics::grm_sparse
