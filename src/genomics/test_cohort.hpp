#pragma once
// Test helper shared by the genomics unit tests: a small in-memory structured cohort.
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "strata/io/genotype.hpp"

namespace strata::genomics {

// A memory view of M variants × N samples: two populations with different frequencies, a few
// missing calls, and one monomorphic variant.
inline io::GenotypeViewPtr cohort(int64_t m, int64_t n, uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(0, 1);
  const int64_t stride = io::packed_row_bytes(n);
  std::vector<uint8_t> codes(static_cast<size_t>(m * stride), 0xFF);
  for (int64_t v = 0; v < m; ++v) {
    const double p0 = 0.05 + 0.9 * u(g), p1 = std::clamp(p0 + 0.3 * (u(g) - 0.5), 0.02, 0.98);
    for (int64_t j = 0; j < n; ++j) {
      const double p = j < n / 2 ? p0 : p1;
      uint8_t c = static_cast<uint8_t>((u(g) < p) + (u(g) < p));
      if (u(g) < 0.01) c = io::kCodeMissing;
      if (v == 3) c = 0;  // monomorphic
      io::set_code(codes.data() + v * stride, j, c);
    }
  }
  io::SampleInfo samples;
  for (int64_t j = 0; j < n; ++j) samples.id.push_back("s" + std::to_string(j));
  io::VariantInfo vi;
  for (int64_t v = 0; v < m; ++v) {
    vi.contig.push_back(0);
    vi.position.push_back(v + 1);
    vi.id.push_back("v" + std::to_string(v));
    vi.ref.push_back("A");
    vi.alt.push_back("C");
    vi.cm.push_back(0);
  }
  auto view = io::make_memory_genotypes(std::move(codes), m, n, std::move(samples), {"1"}, std::move(vi));
  return view.ok() ? *view : nullptr;
}

}  // namespace strata::genomics
