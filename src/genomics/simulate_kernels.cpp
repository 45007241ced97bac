// Batched Philox draws for the simulator: 16 counters at a time, with AVX-512 / AVX2 versions
// picked at run time and a portable fallback; all give the same words as Philox::block.
#include "genomics/simulate_kernels_internal.hpp"

#include "genomics/simulate_rng_internal.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define STRATA_SIM_X86 1
#endif

namespace strata::genomics::detail {
namespace {

constexpr int kLanes = 16;
using Block16 = uint32_t[4][kLanes];

// Philox4x32-10 of counters {lo(q0 + i), hi(q0 + i), stream, 0}, i < 16, key = seed.
void philox16_portable(uint64_t q0, uint32_t stream, uint64_t seed, Block16& out) {
  for (int i = 0; i < kLanes; ++i) {
    const uint64_t q = q0 + static_cast<uint64_t>(i);
    const auto w = Philox::block(static_cast<uint32_t>(q), static_cast<uint32_t>(q >> 32), stream, 0,
                                 static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
    for (int k = 0; k < 4; ++k) out[k][i] = w[k];
  }
}

#ifdef STRATA_SIM_X86
// 16 lanes in one register: vpmuludq multiplies the even 32-bit lanes; the odd lanes are
// shifted down and multiplied separately, and the 64-bit products are split back into
// lo/hi 32-bit halves with blends.
__attribute__((target("avx512f"))) void philox16_avx512(uint64_t q0, uint32_t stream, uint64_t seed, Block16& out) {
  const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  // q0 + i may carry into the high word only when lo(q0) is within 16 of wrapping.
  const uint32_t lo0 = static_cast<uint32_t>(q0);
  __m512i c0 = _mm512_add_epi32(_mm512_set1_epi32(static_cast<int>(lo0)), lane);
  __m512i c1 = _mm512_set1_epi32(static_cast<int>(q0 >> 32));
  const __mmask16 carry = _mm512_cmplt_epu32_mask(c0, _mm512_set1_epi32(static_cast<int>(lo0)));
  c1 = _mm512_mask_add_epi32(c1, carry, c1, _mm512_set1_epi32(1));
  __m512i c2 = _mm512_set1_epi32(static_cast<int>(stream));
  __m512i c3 = _mm512_setzero_si512();
  const __m512i m0 = _mm512_set1_epi32(static_cast<int>(Philox::kM0));
  const __m512i m1 = _mm512_set1_epi32(static_cast<int>(Philox::kM1));
  uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
  const __mmask16 odd = 0xAAAA;
  for (int r = 0; r < 10; ++r) {
    const __m512i p0e = _mm512_mul_epu32(c0, m0), p0o = _mm512_mul_epu32(_mm512_srli_epi64(c0, 32), m0);
    const __m512i p1e = _mm512_mul_epu32(c2, m1), p1o = _mm512_mul_epu32(_mm512_srli_epi64(c2, 32), m1);
    const __m512i lo0v = _mm512_mask_blend_epi32(odd, p0e, _mm512_slli_epi64(p0o, 32));
    const __m512i hi0v = _mm512_mask_blend_epi32(odd, _mm512_srli_epi64(p0e, 32), p0o);
    const __m512i lo1v = _mm512_mask_blend_epi32(odd, p1e, _mm512_slli_epi64(p1o, 32));
    const __m512i hi1v = _mm512_mask_blend_epi32(odd, _mm512_srli_epi64(p1e, 32), p1o);
    const __m512i n0 = _mm512_xor_si512(_mm512_xor_si512(hi1v, c1), _mm512_set1_epi32(static_cast<int>(k0)));
    const __m512i n2 = _mm512_xor_si512(_mm512_xor_si512(hi0v, c3), _mm512_set1_epi32(static_cast<int>(k1)));
    c1 = lo1v;
    c3 = lo0v;
    c0 = n0;
    c2 = n2;
    k0 += Philox::kW0;
    k1 += Philox::kW1;
  }
  _mm512_storeu_si512(out[0], c0);
  _mm512_storeu_si512(out[1], c1);
  _mm512_storeu_si512(out[2], c2);
  _mm512_storeu_si512(out[3], c3);
}

__attribute__((target("avx2"))) void philox16_avx2(uint64_t q0, uint32_t stream, uint64_t seed, Block16& out) {
  const __m256i m0 = _mm256_set1_epi32(static_cast<int>(Philox::kM0));
  const __m256i m1 = _mm256_set1_epi32(static_cast<int>(Philox::kM1));
  for (int half = 0; half < 2; ++half) {
    alignas(32) uint32_t lo[8], hi[8];
    for (int i = 0; i < 8; ++i) {
      const uint64_t q = q0 + static_cast<uint64_t>(8 * half + i);
      lo[i] = static_cast<uint32_t>(q);
      hi[i] = static_cast<uint32_t>(q >> 32);
    }
    __m256i c0 = _mm256_load_si256(reinterpret_cast<const __m256i*>(lo));
    __m256i c1 = _mm256_load_si256(reinterpret_cast<const __m256i*>(hi));
    __m256i c2 = _mm256_set1_epi32(static_cast<int>(stream));
    __m256i c3 = _mm256_setzero_si256();
    uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
    for (int r = 0; r < 10; ++r) {
      const __m256i p0e = _mm256_mul_epu32(c0, m0), p0o = _mm256_mul_epu32(_mm256_srli_epi64(c0, 32), m0);
      const __m256i p1e = _mm256_mul_epu32(c2, m1), p1o = _mm256_mul_epu32(_mm256_srli_epi64(c2, 32), m1);
      const __m256i lo0v = _mm256_blend_epi32(p0e, _mm256_slli_epi64(p0o, 32), 0xAA);
      const __m256i hi0v = _mm256_blend_epi32(_mm256_srli_epi64(p0e, 32), p0o, 0xAA);
      const __m256i lo1v = _mm256_blend_epi32(p1e, _mm256_slli_epi64(p1o, 32), 0xAA);
      const __m256i hi1v = _mm256_blend_epi32(_mm256_srli_epi64(p1e, 32), p1o, 0xAA);
      const __m256i n0 = _mm256_xor_si256(_mm256_xor_si256(hi1v, c1), _mm256_set1_epi32(static_cast<int>(k0)));
      const __m256i n2 = _mm256_xor_si256(_mm256_xor_si256(hi0v, c3), _mm256_set1_epi32(static_cast<int>(k1)));
      c1 = lo1v;
      c3 = lo0v;
      c0 = n0;
      c2 = n2;
      k0 += Philox::kW0;
      k1 += Philox::kW1;
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out[0] + 8 * half), c0);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out[1] + 8 * half), c1);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out[2] + 8 * half), c2);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out[3] + 8 * half), c3);
  }
}
#endif

using Philox16Fn = void (*)(uint64_t, uint32_t, uint64_t, Block16&);

Philox16Fn pick_philox16() {
#ifdef STRATA_SIM_X86
  if (__builtin_cpu_supports("avx512f")) return philox16_avx512;
  if (__builtin_cpu_supports("avx2")) return philox16_avx2;
#endif
  return philox16_portable;
}

Philox16Fn philox16 = pick_philox16();

}  // namespace

void allele_words(uint64_t seed, uint64_t g_begin, int64_t count, uint32_t* a, uint32_t* b) {
  // Call g owns elements 2g, 2g + 1 of the allele stream: words 2(g & 1), +1 of block g / 2.
  Block16 w;
  int64_t done = 0;
  while (done < count) {
    const uint64_t g = g_begin + static_cast<uint64_t>(done);
    const uint64_t q0 = g >> 1;
    philox16(q0, kStreamAlleles, seed, w);
    // Calls covered by this batch: 2·q0 .. 2·q0 + 31.
    const uint64_t first = 2 * q0;
    for (uint64_t c = g; c < first + 2 * kLanes && done < count; ++c, ++done) {
      const uint64_t lane = (c - first) >> 1, half = (c & 1) * 2;
      a[done] = w[half][lane];
      b[done] = w[half + 1][lane];
    }
  }
}

bool set_philox_isa(const std::string& isa) {
  if (isa == "portable") {
    philox16 = philox16_portable;
    return true;
  }
#ifdef STRATA_SIM_X86
  if (isa == "avx512" && __builtin_cpu_supports("avx512f")) {
    philox16 = philox16_avx512;
    return true;
  }
  if (isa == "avx2" && __builtin_cpu_supports("avx2")) {
    philox16 = philox16_avx2;
    return true;
  }
#endif
  if (isa == "best") {
    philox16 = pick_philox16();
    return true;
  }
  return false;
}

void missing_words(uint64_t seed, uint64_t g_begin, int64_t count, uint32_t* m) {
  // Call g owns element g of the missingness stream: word g & 3 of block g / 4.
  Block16 w;
  int64_t done = 0;
  while (done < count) {
    const uint64_t g = g_begin + static_cast<uint64_t>(done);
    const uint64_t q0 = g >> 2;
    philox16(q0, kStreamMissing, seed, w);
    const uint64_t first = 4 * q0;
    for (uint64_t c = g; c < first + 4 * kLanes && done < count; ++c, ++done) m[done] = w[c & 3][(c - first) >> 2];
  }
}

}  // namespace strata::genomics::detail
