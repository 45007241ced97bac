#pragma once
// Row-level helpers shared by the genotype sources: copying a sample range out of a packed row
// (with an optional byte remap), padding, and packing per-sample codes.

#include <cstdint>
#include <cstring>

#include "strata/io/genotype.hpp"

namespace strata::io::detail {

/// Set the unused trailing pairs of a packed row of n codes to kCodeMissing.
inline void pad_row(uint8_t* row, int64_t n) {
  const int rem = static_cast<int>(n & 3);
  if (rem != 0) row[n >> 2] = static_cast<uint8_t>(row[n >> 2] | (0xFFu << (2 * rem)));
}

/// Copy codes [s0, s0 + n) of packed row `src` to the packed row `dst` (sample s0 → bit 0),
/// mapping every source byte through `table` (nullptr = identity), then pad.
inline void extract_row(const uint8_t* src, int64_t s0, int64_t n, const uint8_t* table,
                        uint8_t* dst) {
  if (n <= 0) return;
  const int64_t nbytes = packed_row_bytes(n);
  const uint8_t* s = src + (s0 >> 2);
  const int shift = static_cast<int>(2 * (s0 & 3));
  // Bytes of src that hold the range (the last one may not exist past the row end).
  const int64_t src_bytes = packed_row_bytes((s0 & 3) + n);
  if (shift == 0) {
    if (table) {
      for (int64_t i = 0; i < nbytes; ++i) dst[i] = table[s[i]];
    } else {
      std::memcpy(dst, s, static_cast<size_t>(nbytes));
    }
  } else {
    for (int64_t i = 0; i < nbytes; ++i) {
      uint32_t lo = s[i];
      uint32_t hi = (i + 1 < src_bytes) ? s[i + 1] : 0;
      if (table) {
        lo = table[lo];
        hi = table[hi];
      }
      dst[i] = static_cast<uint8_t>((lo >> shift) | (hi << (8 - shift)));
    }
  }
  pad_row(dst, n);
}

/// The code of one call given its allele indices (VCF Zarr: −1 missing, −2 fill, k = k-th
/// allele). Haploid calls count as homozygous; a missing allele makes the call missing; calls
/// with more than two alleles are missing and flagged through `polyploid`.
template <class T>
inline uint8_t call_to_code(const T* alleles, int64_t ploidy, bool& polyploid) {
  int present = 0, alt = 0;
  bool missing = false;
  for (int64_t k = 0; k < ploidy; ++k) {
    const T a = alleles[k];
    if (a == T(-2)) continue;  // fill: shorter ploidy
    ++present;
    if (a < 0) missing = true;
    else if (a > 0) ++alt;
  }
  if (present > 2) {
    polyploid = true;
    return kCodeMissing;
  }
  if (missing || present == 0) return kCodeMissing;
  if (present == 1) return alt ? kCodeHomAlt : kCodeHomRef;
  return static_cast<uint8_t>(alt);
}

/// Expand codes to diploid VCF Zarr calls: 0 → (0,0), 1 → (0,1), 2 → (1,1), 3 → (−1,−1).
inline void code_to_call(uint8_t code, int8_t* out) {
  static constexpr int8_t kCalls[4][2] = {{0, 0}, {0, 1}, {1, 1}, {-1, -1}};
  out[0] = kCalls[code][0];
  out[1] = kCalls[code][1];
}

}  // namespace strata::io::detail
