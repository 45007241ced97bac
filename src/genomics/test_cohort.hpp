#pragma once
// Test helper shared by the genomics unit tests: a small in-memory structured cohort.
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "strata/io/genotype.hpp"

namespace strata::genomics {

// Samples s0, s1, … s(n−1).
inline io::SampleInfo numbered_samples(int64_t n) {
  io::SampleInfo samples;
  for (int64_t j = 0; j < n; ++j) samples.id.push_back("s" + std::to_string(j));
  return samples;
}

// Variants v0, v1, … v(m−1) on contig 0 at positions 1, 2, …: A>C, 0 cM.
inline io::VariantInfo numbered_variants(int64_t m) {
  io::VariantInfo vi;
  for (int64_t v = 0; v < m; ++v) {
    vi.contig.push_back(0);
    vi.position.push_back(v + 1);
    vi.id.push_back("v" + std::to_string(v));
    vi.ref.push_back("A");
    vi.alt.push_back("C");
    vi.cm.push_back(0);
  }
  return vi;
}

// The ALT dosages of cohort(m, n, seed), variant-major (m × n), −1 = missing: two populations
// with different frequencies, a few missing calls, and one monomorphic variant (3). Tests use
// them as an oracle that does not go through the genotype view.
inline std::vector<int8_t> cohort_dosages(int64_t m, int64_t n, uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<int8_t> d(static_cast<size_t>(m * n));
  for (int64_t v = 0; v < m; ++v) {
    const double p0 = 0.05 + 0.9 * u(g), p1 = std::clamp(p0 + 0.3 * (u(g) - 0.5), 0.02, 0.98);
    for (int64_t j = 0; j < n; ++j) {
      const double p = j < n / 2 ? p0 : p1;
      int8_t c = static_cast<int8_t>((u(g) < p) + (u(g) < p));
      if (u(g) < 0.01) c = -1;
      if (v == 3) c = 0;  // monomorphic
      d[static_cast<size_t>(v * n + j)] = c;
    }
  }
  return d;
}

// A memory view of cohort_dosages(m, n, seed).
inline io::GenotypeViewPtr cohort(int64_t m, int64_t n, uint64_t seed) {
  const std::vector<int8_t> d = cohort_dosages(m, n, seed);
  const int64_t stride = io::packed_row_bytes(n);
  std::vector<uint8_t> codes(static_cast<size_t>(m * stride), 0xFF);
  for (int64_t v = 0; v < m; ++v) {
    for (int64_t j = 0; j < n; ++j) {
      const int8_t c = d[static_cast<size_t>(v * n + j)];
      io::set_code(codes.data() + v * stride, j, c < 0 ? uint8_t{io::kCodeMissing} : static_cast<uint8_t>(c));
    }
  }
  auto view = io::make_memory_genotypes(std::move(codes), m, n, numbered_samples(n), {"1"}, numbered_variants(m));
  return view.ok() ? *view : nullptr;
}

}  // namespace strata::genomics
