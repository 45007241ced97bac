// Code and bit counts with the POPCNT instruction where the CPU has it (every x86-64 since
// 2008; the generic build of strata targets plain x86-64, where a popcount is a library call).
#include "io/genotype/code_counts_internal.hpp"

#include <cstring>

#include "strata/core/cpu_pin.hpp"

namespace strata::io::detail {
namespace {

constexpr uint64_t kLow = 0x5555555555555555ull;

// The bodies, inlined into a POPCNT build and a generic one.
[[gnu::always_inline]] inline void add_codes_word(uint64_t x, int64_t& lo, int64_t& hi, int64_t& both) {
  const uint64_t l = x & kLow, h = (x >> 1) & kLow;
  lo += __builtin_popcountll(l);
  hi += __builtin_popcountll(h);
  both += __builtin_popcountll(l & h);
}

[[gnu::always_inline]] inline void add_code_counts_body(const uint8_t* row, int64_t n, int64_t counts[4]) {
  const int64_t full = n / 32;  // 64-bit words of 32 whole codes
  int64_t lo = 0, hi = 0, both = 0;
  for (int64_t w = 0; w < full; ++w) {
    uint64_t x;
    std::memcpy(&x, row + 8 * w, 8);
    add_codes_word(x, lo, hi, both);
  }
  if (const int64_t rest = n - 32 * full; rest > 0) {  // 1-31 codes, pairs past them masked
    uint64_t x = 0;
    std::memcpy(&x, row + 8 * full, static_cast<size_t>((rest + 3) / 4));
    add_codes_word(x & ((uint64_t{1} << (2 * rest)) - 1), lo, hi, both);
  }
  counts[0] += n - lo - hi + both;
  counts[1] += lo - both;
  counts[2] += hi - both;
  counts[3] += both;
}

[[gnu::always_inline]] inline int64_t count_set_bits_body(const uint8_t* p, int64_t bits) {
  const int64_t full = bits / 64;
  int64_t s = 0;
  for (int64_t w = 0; w < full; ++w) {
    uint64_t x;
    std::memcpy(&x, p + 8 * w, 8);
    s += __builtin_popcountll(x);
  }
  if (const int64_t rest = bits - 64 * full; rest > 0) {
    uint64_t x = 0;
    std::memcpy(&x, p + 8 * full, static_cast<size_t>((rest + 7) / 8));
    s += __builtin_popcountll(x & ((uint64_t{1} << rest) - 1));
  }
  return s;
}

void add_code_counts_generic(const uint8_t* row, int64_t n, int64_t counts[4]) { add_code_counts_body(row, n, counts); }
int64_t count_set_bits_generic(const uint8_t* p, int64_t bits) { return count_set_bits_body(p, bits); }

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
[[gnu::target("popcnt")]] void add_code_counts_popcnt(const uint8_t* row, int64_t n, int64_t counts[4]) {
  add_code_counts_body(row, n, counts);
}
[[gnu::target("popcnt")]] int64_t count_set_bits_popcnt(const uint8_t* p, int64_t bits) {
  return count_set_bits_body(p, bits);
}
// STRATA_CPU caps these as every kernel table (cpu_pin(): a portable or misspelt pin takes
// the generic bodies).
bool have_popcnt() {
  static const bool have = [] {
    __builtin_cpu_init();
    return cpu_pin().max_level >= kCpuLevelAvx2 && __builtin_cpu_supports("popcnt") != 0;
  }();
  return have;
}
#else
constexpr bool have_popcnt() { return false; }
void add_code_counts_popcnt(const uint8_t* row, int64_t n, int64_t counts[4]) { add_code_counts_generic(row, n, counts); }
int64_t count_set_bits_popcnt(const uint8_t* p, int64_t bits) { return count_set_bits_generic(p, bits); }
#endif

}  // namespace

void add_code_counts(const uint8_t* row, int64_t n, int64_t counts[4]) {
  if (have_popcnt()) add_code_counts_popcnt(row, n, counts);
  else add_code_counts_generic(row, n, counts);
}

int64_t count_set_bits(const uint8_t* p, int64_t bits) {
  return have_popcnt() ? count_set_bits_popcnt(p, bits) : count_set_bits_generic(p, bits);
}

}  // namespace strata::io::detail
