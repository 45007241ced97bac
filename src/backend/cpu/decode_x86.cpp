// AVX2 and AVX-512 decode kernels, compiled with per-function target attributes (the library
// itself stays baseline x86-64) and selected once per CPU backend (cpu_backend.cpp).
//
// Float decode maps codes through a 4-entry table held in a register: the packed word is
// broadcast to every lane, shifted right by 2·lane, and its low bits index a table replicated
// to the permute width (vpermps reads 3 index bits for 8 lanes, 4 bits for 16), so the
// neighbouring code's bits that ride along select the same entry and no mask is needed.
#include "backend/cpu/count_words.hpp"
#include "backend/cpu/decode_kernels.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
// GCC 12's AVX-512 intrinsics initialise their pass-through operands from themselves
// (_mm512_undefined_*), which its own -Wuninitialized reports at every use.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include <cstring>

#define STRATA_X86_KERNELS 1
#endif

namespace strata::backend::cpu {

#ifdef STRATA_X86_KERNELS
namespace {

inline uint32_t load_u32(const uint8_t* p) {
  uint32_t w;
  std::memcpy(&w, p, 4);
  return w;
}

// ---------------------------------------------------------------------------------- AVX2
__attribute__((target("avx2"))) void row_f32_avx2(const uint8_t* codes, int64_t n,
                                                  const float lut[4], float* out) {
  const __m256 t = _mm256_broadcast_ps(reinterpret_cast<const __m128*>(lut));
  const __m256i sh0 = _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14);
  const __m256i sh1 = _mm256_setr_epi32(16, 18, 20, 22, 24, 26, 28, 30);
  const int64_t groups = n / 16;  // 16 codes = 4 bytes per step
  for (int64_t i = 0; i < groups; ++i) {
    const __m256i v = _mm256_set1_epi32(static_cast<int>(load_u32(codes + 4 * i)));
    _mm256_storeu_ps(out + 16 * i, _mm256_permutevar8x32_ps(t, _mm256_srlv_epi32(v, sh0)));
    _mm256_storeu_ps(out + 16 * i + 8, _mm256_permutevar8x32_ps(t, _mm256_srlv_epi32(v, sh1)));
  }
  decode_tail_f32(codes, groups * 16, n, lut, out);
}

__attribute__((target("avx2"))) void row_f64_avx2(const uint8_t* codes, int64_t n,
                                                  const double lut[4], double* out) {
  // The 4 doubles are 8 floats in one register; double k is float lanes (2c, 2c + 1).
  const __m256 t = _mm256_loadu_ps(reinterpret_cast<const float*>(lut));
  const __m256i odd = _mm256_setr_epi32(0, 1, 0, 1, 0, 1, 0, 1);
  const __m256i three = _mm256_set1_epi32(3);
  const __m256i sh[4] = {
      _mm256_setr_epi32(0, 0, 2, 2, 4, 4, 6, 6), _mm256_setr_epi32(8, 8, 10, 10, 12, 12, 14, 14),
      _mm256_setr_epi32(16, 16, 18, 18, 20, 20, 22, 22),
      _mm256_setr_epi32(24, 24, 26, 26, 28, 28, 30, 30)};
  const int64_t groups = n / 16;
  for (int64_t i = 0; i < groups; ++i) {
    const __m256i v = _mm256_set1_epi32(static_cast<int>(load_u32(codes + 4 * i)));
    for (int k = 0; k < 4; ++k) {
      const __m256i c = _mm256_and_si256(_mm256_srlv_epi32(v, sh[k]), three);
      const __m256i idx = _mm256_or_si256(_mm256_slli_epi32(c, 1), odd);
      _mm256_storeu_pd(out + 16 * i + 4 * k, _mm256_castps_pd(_mm256_permutevar8x32_ps(t, idx)));
    }
  }
  decode_tail_f64(codes, groups * 16, n, lut, out);
}

__attribute__((target("popcnt"))) void count_popcnt(const uint8_t* codes, int64_t n,
                                                    int64_t counts[4]) {
  count_codes_words(codes, n, counts);
}

// ------------------------------------------------------------------------------- AVX-512
__attribute__((target("avx512f"))) void row_f32_avx512(const uint8_t* codes, int64_t n,
                                                       const float lut[4], float* out) {
  const __m512 t = _mm512_broadcast_f32x4(_mm_loadu_ps(lut));
  const __m512i sh = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const int64_t groups = n / 16;
  int64_t i = 0;
  for (; i + 1 < groups; i += 2) {
    const __m512i v0 = _mm512_set1_epi32(static_cast<int>(load_u32(codes + 4 * i)));
    const __m512i v1 = _mm512_set1_epi32(static_cast<int>(load_u32(codes + 4 * i + 4)));
    _mm512_storeu_ps(out + 16 * i, _mm512_permutexvar_ps(_mm512_srlv_epi32(v0, sh), t));
    _mm512_storeu_ps(out + 16 * i + 16, _mm512_permutexvar_ps(_mm512_srlv_epi32(v1, sh), t));
  }
  for (; i < groups; ++i) {
    const __m512i v = _mm512_set1_epi32(static_cast<int>(load_u32(codes + 4 * i)));
    _mm512_storeu_ps(out + 16 * i, _mm512_permutexvar_ps(_mm512_srlv_epi32(v, sh), t));
  }
  const int64_t rest = n - 16 * groups;
  if (rest > 0) {
    uint32_t w = 0;
    std::memcpy(&w, codes + 4 * groups, static_cast<size_t>((rest + 3) / 4));
    const __m512i v = _mm512_set1_epi32(static_cast<int>(w));
    _mm512_mask_storeu_ps(out + 16 * groups, static_cast<__mmask16>((1u << rest) - 1),
                          _mm512_permutexvar_ps(_mm512_srlv_epi32(v, sh), t));
  }
}

__attribute__((target("avx512f"))) void row_f64_avx512(const uint8_t* codes, int64_t n,
                                                       const double lut[4], double* out) {
  const __m512d t = _mm512_broadcast_f64x4(_mm256_loadu_pd(lut));
  const __m512i sh0 = _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14);
  const __m512i sh1 = _mm512_setr_epi64(16, 18, 20, 22, 24, 26, 28, 30);
  const int64_t groups = n / 16;
  for (int64_t i = 0; i < groups; ++i) {
    const __m512i v = _mm512_set1_epi64(static_cast<long long>(load_u32(codes + 4 * i)));
    _mm512_storeu_pd(out + 16 * i, _mm512_permutexvar_pd(_mm512_srlv_epi64(v, sh0), t));
    _mm512_storeu_pd(out + 16 * i + 8, _mm512_permutexvar_pd(_mm512_srlv_epi64(v, sh1), t));
  }
  const int64_t rest = n - 16 * groups;
  if (rest > 0) {
    uint32_t w = 0;
    std::memcpy(&w, codes + 4 * groups, static_cast<size_t>((rest + 3) / 4));
    const __m512i v = _mm512_set1_epi64(static_cast<long long>(w));
    const unsigned m = (1u << rest) - 1;
    _mm512_mask_storeu_pd(out + 16 * groups, static_cast<__mmask8>(m & 0xFF),
                          _mm512_permutexvar_pd(_mm512_srlv_epi64(v, sh0), t));
    if (rest > 8)
      _mm512_mask_storeu_pd(out + 16 * groups + 8, static_cast<__mmask8>(m >> 8),
                            _mm512_permutexvar_pd(_mm512_srlv_epi64(v, sh1), t));
  }
}

// count_codes_words eight words at a time (vpopcntq): the counts pass reads a row once at ~4×
// the scalar rate, so that pass is bound by the read again.
__attribute__((target("avx512f,avx512vpopcntdq"))) void count_vpopcnt(const uint8_t* codes, int64_t n,
                                                                      int64_t counts[4]) {
  const __m512i lo_bits = _mm512_set1_epi64(0x5555555555555555ll);
  __m512i a1 = _mm512_setzero_si512(), a2 = a1, a3 = a1;
  const int64_t blocks = n / 256;  // 8 words of 32 codes
  for (int64_t i = 0; i < blocks; ++i) {
    const __m512i w = _mm512_loadu_si512(codes + 64 * i);
    const __m512i lo = _mm512_and_si512(w, lo_bits), hi = _mm512_and_si512(_mm512_srli_epi64(w, 1), lo_bits);
    a1 = _mm512_add_epi64(a1, _mm512_popcnt_epi64(_mm512_andnot_si512(hi, lo)));
    a2 = _mm512_add_epi64(a2, _mm512_popcnt_epi64(_mm512_andnot_si512(lo, hi)));
    a3 = _mm512_add_epi64(a3, _mm512_popcnt_epi64(_mm512_and_si512(lo, hi)));
  }
  int64_t rest[4];
  count_codes_words(codes + 64 * blocks, n - 256 * blocks, rest);
  counts[1] = _mm512_reduce_add_epi64(a1) + rest[1];
  counts[2] = _mm512_reduce_add_epi64(a2) + rest[2];
  counts[3] = _mm512_reduce_add_epi64(a3) + rest[3];
  counts[0] = n - counts[1] - counts[2] - counts[3];
}

void count_avx512(const uint8_t* codes, int64_t n, int64_t counts[4]) {
  static const bool vpopcnt = __builtin_cpu_supports("avx512vpopcntdq");
  if (vpopcnt) count_vpopcnt(codes, n, counts);
  else count_popcnt(codes, n, counts);
}

const DecodeKernels kAvx2 = {"avx2", row_f32_avx2, row_f64_avx2, count_popcnt};
const DecodeKernels kAvx512 = {"avx512", row_f32_avx512, row_f64_avx512, count_avx512};

}  // namespace

const DecodeKernels* decode_avx2() {
  static const bool ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt");
  return ok ? &kAvx2 : nullptr;
}
const DecodeKernels* decode_avx512() {
  static const bool ok = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("popcnt");
  return ok ? &kAvx512 : nullptr;
}

#else

const DecodeKernels* decode_avx2() { return nullptr; }
const DecodeKernels* decode_avx512() { return nullptr; }

#endif

}  // namespace strata::backend::cpu
