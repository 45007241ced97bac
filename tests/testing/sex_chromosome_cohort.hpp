#pragma once
// A PLINK 1 cohort with every chromosome kind plink2 models: 22 autosomes (spelt `chr1`, `2`, …),
// X (as `chrX` and `23`), Y (`chrY`), XY (`25`) and MT (`chrM`, `M`); males haploid on X and Y
// with a few heterozygous haploid calls (genotyping errors), females with noise calls on Y,
// unknown-sex samples, non-founders, 2 % missing calls and N mod 4 ≠ 0. Deterministic.
#include <cstdint>
#include <string>
#include <vector>

#include "testing/testing.hpp"

namespace strata::testing {

struct SexChromosomeCohort {
  int64_t samples = 0, variants = 0;
  int64_t non_autosomal = 0;  ///< variants on X, Y and MT (what relatedness and PCA skip)
  int64_t xy = 0;             ///< variants on XY
};

// `children`: every fifth sample names parents (plink2 then counts frequencies over founders only).
inline SexChromosomeCohort write_sex_chromosome_cohort(const std::string& prefix, bool children, int64_t n = 203) {
  uint64_t state = 0x9e3779b97f4a7c15ull;
  auto next = [&]() {  // splitmix64
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  auto uniform = [&]() { return static_cast<double>(next() >> 11) * 0x1.0p-53; };
  auto binom = [&](int k, double p) {
    int s = 0;
    for (int i = 0; i < k; ++i) s += uniform() < p;
    return s;
  };
  std::vector<int> sex(static_cast<size_t>(n));
  std::string fam;
  for (int64_t i = 0; i < n; ++i) {
    const double u = uniform();
    sex[static_cast<size_t>(i)] = u < 0.48 ? 1 : u < 0.96 ? 2 : 0;
    const bool child = children && i % 5 == 4;
    fam += "F" + std::to_string(i) + "\tI" + std::to_string(i) + (child ? "\tI0\tI1\t" : "\t0\t0\t") +
           std::to_string(sex[static_cast<size_t>(i)]) + "\t" + (uniform() < 0.5 ? "1" : "2") + "\n";
  }
  struct Block {
    std::string kind;
    int count;
  };
  std::vector<Block> blocks;
  for (int c = 1; c <= 22; ++c) blocks.push_back({std::to_string(c), 40});
  blocks.push_back({"X", 200});
  blocks.push_back({"Y", 60});
  blocks.push_back({"XY", 40});
  blocks.push_back({"MT", 40});
  SexChromosomeCohort info;
  info.samples = n;
  std::string bim, bed("\x6c\x1b\x01", 3);
  const int64_t row_bytes = (n + 3) / 4;
  static const uint8_t kBed[4] = {0b11, 0b10, 0b00, 0b01};  // ALT dosage 0, 1, 2, missing
  for (const Block& b : blocks) {
    for (int j = 0; j < b.count; ++j) {
      const double p = 0.05 + 0.9 * uniform();
      std::string row(static_cast<size_t>(row_bytes), '\0');
      for (int64_t i = 0; i < n; ++i) {
        const int s = sex[static_cast<size_t>(i)];
        int g = binom(2, p);
        if (b.kind == "X" && s == 1) g = uniform() < 0.01 ? 1 : 2 * binom(1, p);
        if (b.kind == "Y") g = s == 1 ? 2 * binom(1, p) : (s == 2 && uniform() < 0.2 ? binom(2, 0.5) : 3);
        if (b.kind == "MT") g = uniform() < 0.01 ? 1 : 2 * binom(1, p);
        if (uniform() < 0.02) g = 3;
        row[static_cast<size_t>(i / 4)] = static_cast<char>(row[static_cast<size_t>(i / 4)] | (kBed[g] << (2 * (i % 4))));
      }
      bed += row;
      std::string name = b.kind;
      if (b.kind == "1") name = "chr1";
      if (b.kind == "X") name = j % 2 ? "23" : "chrX";
      if (b.kind == "Y") name = "chrY";
      if (b.kind == "XY") name = "25";
      if (b.kind == "MT") name = j % 2 ? "M" : "chrM";
      bim += name + "\tv" + std::to_string(info.variants) + "\t0\t" + std::to_string(1000 * (j + 1)) + "\tA\tG\n";
      ++info.variants;
      if (b.kind == "X" || b.kind == "Y" || b.kind == "MT") ++info.non_autosomal;
      if (b.kind == "XY") ++info.xy;
    }
  }
  write_file(prefix + ".bed", bed);
  write_file(prefix + ".bim", bim);
  write_file(prefix + ".fam", fam);
  return info;
}

}  // namespace strata::testing
