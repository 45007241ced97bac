#pragma once
// Code counting on 64-bit words (32 codes each) with popcount; shared by the portable and the
// ISA-specific builds (included into functions compiled with different target attributes).

#include <bit>
#include <cstdint>
#include <cstring>

namespace strata::backend::cpu {

inline void count_word(uint64_t w, int64_t& c1, int64_t& c2, int64_t& c3) {
  const uint64_t lo = w & 0x5555555555555555ull;
  const uint64_t hi = (w >> 1) & 0x5555555555555555ull;
  c1 += std::popcount(lo & ~hi);
  c2 += std::popcount(hi & ~lo);
  c3 += std::popcount(lo & hi);
}

/// counts[c] = number of codes equal to c among the first n codes of a packed row. Bits past
/// n are ignored whatever they hold.
inline void count_codes_words(const uint8_t* codes, int64_t n, int64_t counts[4]) {
  int64_t c1 = 0, c2 = 0, c3 = 0;
  const int64_t words = n / 32;
  for (int64_t i = 0; i < words; ++i) {
    uint64_t w;
    std::memcpy(&w, codes + 8 * i, 8);
    count_word(w, c1, c2, c3);
  }
  const int64_t rest = n - 32 * words;
  if (rest > 0) {
    uint64_t w = 0;
    std::memcpy(&w, codes + 8 * words, static_cast<size_t>((rest + 3) / 4));
    w &= (uint64_t{1} << (2 * rest)) - 1;  // rest < 32, so the shift is < 64
    count_word(w, c1, c2, c3);
  }
  counts[1] = c1;
  counts[2] = c2;
  counts[3] = c3;
  counts[0] = n - c1 - c2 - c3;
}

}  // namespace strata::backend::cpu
