// The float64 GRM's sparse route: variant tables, a run's row lists, the both-missing counts
// (grm_sparse.hpp).
#include "genomics/grm_sparse.hpp"

#include <algorithm>
#include <cmath>

#include "strata/io/genotype.hpp"

namespace strata::genomics::grm_sparse {

SparseVariant make_sparse_variant(double f, const double lut[4]) {
  SparseVariant v;
  if (!(f == f) || lut[0] == lut[1]) return v;  // monomorphic or unobserved: x = 0
  const bool flip = f > 0.5;                     // the minor allele is the REF allele
  const double scale = 1.0 / std::sqrt(2.0 * f * (1.0 - f));  // make_standardize_lut's
  const double d = flip ? -scale : scale, x_ref = lut[flip ? 2 : 0];
  for (int q = 0; q < 4; ++q) {
    v.y[q] = d * lut[q];
    v.xr[q] = x_ref * lut[q];
  }
  for (int g = 0; g < 3; ++g) {
    const int c = flip ? 2 - g : g;
    v.part[g] = static_cast<uint8_t>(c == 0 ? 0 : c == 1 ? 1 : 2);
  }
  v.part[3] = 4;
  v.missing_coef = flip ? 2.0 - 2.0 * f : 2.0 * f;
  return v;
}

void build_sparse_run(const SparseVariant* sv, const uint8_t* codes, int64_t stride, int64_t count, int64_t n,
                      int64_t npad, const SparseRun& run, std::vector<int32_t>* missing) {
  // Per sample a bit mask per part (words of 64 variants), set variant by variant, then read
  // out in order with ctz.
  const int64_t words = (run.slot + 63) / 64;
  thread_local std::vector<uint64_t> masks;
  masks.assign(static_cast<size_t>(kParts * words * n), 0);
  std::fill(run.counts, run.counts + kParts * npad, uint8_t{0});
  std::fill(run.u, run.u + npad, 0.0);
  for (int64_t k = 0; k < run.slot; ++k) run.coef[k] = k < count ? sv[k].missing_coef : 0.0;
  for (int64_t k = 0; k < count; ++k) {
    const SparseVariant& v = sv[k];
    const uint8_t* row = codes + k * stride;
    uint64_t bit[kParts][4];
    for (int q = 0; q < 4; ++q)
      for (int part = 0; part < kParts; ++part) bit[part][q] = uint64_t{v.part[q] == (1 << part)} << (k % 64);
    std::vector<int32_t>* missing_k = missing ? missing + k : nullptr;
    for (int64_t i = 0; i < n; ++i) {
      const int q = io::code_at(row, i);
      if (q == 3 && missing_k) missing_k->push_back(static_cast<int32_t>(i));
      run.u[i] += v.xr[q];
      uint64_t* m = masks.data() + kParts * words * i + k / 64;
      for (int part = 0; part < kParts; ++part) m[part * words] |= bit[part][q];
    }
  }
  for (int64_t i = 0; i < n; ++i) {
    uint8_t* e = run.entries + i * run.slot;
    int64_t at = 0;
    for (int part = 0; part < kParts; ++part) {
      const int64_t start = at;
      for (int64_t w = 0; w < words; ++w)
        for (uint64_t m = masks[static_cast<size_t>((kParts * i + part) * words + w)]; m != 0; m &= m - 1)
          e[at++] = static_cast<uint8_t>(64 * w + __builtin_ctzll(m));
      run.counts[kParts * i + part] = static_cast<uint8_t>(at - start);
    }
  }
}

void add_missing_pairs(const std::vector<std::vector<int32_t>>& missing, int64_t row0, int64_t rows, int64_t col0,
                       int64_t cols, double* acc) {
  const bool diagonal = row0 == col0;
  for (const std::vector<int32_t>& s : missing) {
    if (s.empty()) continue;
    const auto r0 = std::lower_bound(s.begin(), s.end(), row0), r1 = std::lower_bound(r0, s.end(), row0 + rows);
    if (r0 == r1) continue;
    const auto c0 = std::lower_bound(s.begin(), s.end(), col0), c1 = std::lower_bound(c0, s.end(), col0 + cols);
    for (auto r = r0; r != r1; ++r) {
      double* out = acc + (*r - row0) * cols - col0;
      for (auto c = c0; c != c1 && (!diagonal || *c <= *r); ++c) out[*c] += 1.0;
    }
  }
}

}  // namespace strata::genomics::grm_sparse
