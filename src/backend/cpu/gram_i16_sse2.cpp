// The portable level's int16 Gram kernels on x86-64's baseline, SSE2 (`pmaddwd`: 8 exact
// int16 multiply-adds per instruction). The same exact integer sums as every other level, so the
// portable level takes the int16 route of the randomized PCA as AVX2 does (the float32 kernels
// left it 10× behind AVX2 once those doubled). Contracts: gram_int_kernels.hpp.
#include "backend/cpu/gram_int_kernels.hpp"

#if defined(__SSE2__) && defined(__x86_64__)
#include <emmintrin.h>

#include <algorithm>
#include <cstring>

namespace strata::backend::cpu {
namespace {

// Four codes of a byte as four int16 (low bits first), one 64-bit word per byte value.
struct CodeWords {
  uint64_t w[256];
  CodeWords() {
    for (int b = 0; b < 256; ++b) {
      uint64_t v = 0;
      for (int k = 0; k < 4; ++k) v |= uint64_t((b >> (2 * k)) & 3) << (16 * k);
      w[b] = v;
    }
  }
};
const CodeWords& code_words() {
  static const CodeWords t;
  return t;
}

// Samples per decoded chunk of `times`: int32 lanes sum at most chunk/4 · 2 · 3 · 32767 ≈ 1e8.
constexpr int64_t kChunk = 2048;
constexpr int kRows = 4;  // rows per block of `times`

inline int64_t hsum(__m128i v) {
  alignas(16) int32_t a[4];
  _mm_store_si128(reinterpret_cast<__m128i*>(a), v);
  return int64_t{a[0]} + a[1] + a[2] + a[3];
}

// p[i][c] += Σ_n code(i, n)·qt[c][n]: four rows decoded a chunk at a time, every column
// streamed past them (one load of qt per 32 multiply-adds).
void times_sse2(const uint8_t* codes, int64_t stride, int64_t rows, int64_t n32, const int16_t* qt, int64_t ldq,
                int64_t w, int64_t* p, const uint8_t* /*packed*/) {
  const uint64_t* words = code_words().w;
  alignas(16) int16_t x[kRows][kChunk];
  for (int64_t i0 = 0; i0 < rows; i0 += kRows) {
    const int nr = static_cast<int>(std::min<int64_t>(kRows, rows - i0));
    for (int64_t n0 = 0; n0 < n32; n0 += kChunk) {
      const int64_t len = std::min(kChunk, n32 - n0);  // a multiple of 32
      for (int r = 0; r < kRows; ++r) {
        if (r >= nr) {
          std::memset(x[r], 0, static_cast<size_t>(len) * sizeof(int16_t));
          continue;
        }
        const uint8_t* row = codes + (i0 + r) * stride + n0 / 4;
        for (int64_t b = 0; b < len / 4; ++b) std::memcpy(&x[r][4 * b], &words[row[b]], 8);
      }
      for (int64_t c = 0; c < w; ++c) {
        const int16_t* q = qt + c * ldq + n0;
        __m128i a0 = _mm_setzero_si128(), a1 = a0, a2 = a0, a3 = a0;
        for (int64_t n = 0; n < len; n += 8) {
          const __m128i qv = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q + n));
          a0 = _mm_add_epi32(a0, _mm_madd_epi16(_mm_load_si128(reinterpret_cast<const __m128i*>(&x[0][n])), qv));
          a1 = _mm_add_epi32(a1, _mm_madd_epi16(_mm_load_si128(reinterpret_cast<const __m128i*>(&x[1][n])), qv));
          a2 = _mm_add_epi32(a2, _mm_madd_epi16(_mm_load_si128(reinterpret_cast<const __m128i*>(&x[2][n])), qv));
          a3 = _mm_add_epi32(a3, _mm_madd_epi16(_mm_load_si128(reinterpret_cast<const __m128i*>(&x[3][n])), qv));
        }
        const __m128i acc[kRows] = {a0, a1, a2, a3};
        for (int r = 0; r < nr; ++r) p[(i0 + r) * w + c] += hsum(acc[r]);
      }
    }
  }
}

// Each (row pair, column) weight pair (y_even, y_odd) broadcast to a whole register, so that
// `pmaddwd` takes it from memory: rows/2 × w × 16 bytes, made once per group.
std::vector<uint8_t> pack_t_sse2(const int16_t* wpairs, int64_t rows, int64_t w) {
  const int64_t pairs = (rows + 1) / 2;
  std::vector<uint8_t> out(static_cast<size_t>(pairs * w * 16));
  for (int64_t q = 0; q < pairs; ++q)
    for (int64_t c = 0; c < w; ++c) {
      int32_t v;
      std::memcpy(&v, wpairs + q * 2 * w + 2 * c, 4);
      const int32_t four[4] = {v, v, v, v};
      std::memcpy(out.data() + (q * w + c) * 16, four, 16);
    }
  return out;
}

// zt[c][n] += Σ_i code(i, n)·y(i, c): per four samples, the two rows of a pair interleaved
// (sample n's two codes side by side) meet eight columns' weight pairs, the eight sums held in
// registers while every pair streams past.
void t_times_sse2(const uint8_t* codes, int64_t stride, int64_t rows, int64_t len, const int16_t* wpairs,
                  int64_t w, int32_t* zt, int64_t ldz, const uint8_t* packed) {
  std::vector<uint8_t> own;
  if (!packed) own = pack_t_sse2(wpairs, rows, w), packed = own.data();
  const __m128i* y = reinterpret_cast<const __m128i*>(packed);
  const uint64_t* words = code_words().w;
  const int64_t pairs = (rows + 1) / 2;
  for (int64_t c0 = 0; c0 < w; c0 += 8) {  // w: a multiple of 8
    for (int64_t n = 0; n < len; n += 4) {
      __m128i a[8];
      for (auto& v : a) v = _mm_setzero_si128();
      const uint8_t* col = codes + n / 4;
      for (int64_t q = 0; q < pairs; ++q) {
        const uint8_t* even = col + 2 * q * stride;
        // For odd `rows` the row after the last is readable and its weights are zero.
        const __m128i e = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(&words[even[0]]));
        const __m128i o = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(&words[even[stride]]));
        const __m128i x = _mm_unpacklo_epi16(e, o);
        const __m128i* yq = y + q * w + c0;
        for (int k = 0; k < 8; ++k) a[k] = _mm_add_epi32(a[k], _mm_madd_epi16(x, _mm_load_si128(yq + k)));
      }
      for (int k = 0; k < 8; ++k) {
        int32_t* z = zt + (c0 + k) * ldz + n;
        _mm_storeu_si128(reinterpret_cast<__m128i*>(z),
                         _mm_add_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(z)), a[k]));
      }
    }
  }
}

}  // namespace

const GramI16Kernels* gram_i16_sse2() {
  static const GramI16Kernels k{times_sse2, t_times_sse2, nullptr, pack_t_sse2};
  return &k;
}

}  // namespace strata::backend::cpu

#else

namespace strata::backend::cpu {
const GramI16Kernels* gram_i16_sse2() { return nullptr; }
}  // namespace strata::backend::cpu

#endif
