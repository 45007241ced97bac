// Float kernels of the genotype Gram operator (see gram_kernels.hpp).
//
// Decoding 16 codes is three vector instructions: broadcast the 4 code bytes, shift lane j
// right by 2j, and permute the row's 4-entry table (replicated to 16 lanes) by the low 4 bits —
// the neighbouring code's bits that ride along select the same entry. Decoded vectors feed
// FMAs directly:
//  - codes_times: vectors run along samples; a 6-row × 4-column block of dot products keeps
//    24 accumulators over the whole row, reduced horizontally once at the end.
//  - codes_t_times: vectors run along samples of the output; an 8-column × 3-vector block of
//    Zᵀ stays in registers while every row of the group streams past (Y values broadcast).
#include "backend/cpu/gram_kernels.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "backend/cpu/x86_intrinsics_internal.hpp"

namespace strata::backend::cpu {
namespace {

// Samples per chunk of codes_times (a multiple of 16).
constexpr int64_t kTimesChunk = 2048;
constexpr int64_t kPrefetchRows = 32;

inline uint32_t load_u32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}


// ---------------------------------------------------------------------------- portable
// Plain loops the compiler vectorizes with the baseline's vectors (SSE2 on x86-64, NEON on
// aarch64): a row segment is decoded once into floats (a byte at a time: 4 codes), and the
// products run over fixed lanes, so no loop carries a float reduction across iterations.

// out[t] = a(row, n0 + t) for t < len; n0 a multiple of 4.
inline void decode_segment(const uint8_t* row, const float* lut, int64_t n0, int64_t len, float* out) {
  const uint8_t* p = row + n0 / 4;
  for (int64_t t = 0; t < len; t += 4, ++p) {
    const unsigned b = *p;
    out[t] = lut[b & 3];
    out[t + 1] = lut[(b >> 2) & 3];
    out[t + 2] = lut[(b >> 4) & 3];
    out[t + 3] = lut[b >> 6];
  }
}

constexpr int64_t kPortableChunk = 512;  // samples per decoded segment (a multiple of 16)
constexpr int64_t kPortableLanes = 8;    // partial sums per dot product
constexpr int64_t kPortableRows = 4;     // rows per block

void times_portable(const uint8_t* codes, int64_t stride, const float* luts, int64_t rows, int64_t n16,
                    const float* qt, int64_t ldq, int64_t w, float* y) {
  float x[kPortableRows][kPortableChunk];
  // Lane l of row r and column c sums samples ≡ l (mod 8) in order across the chunks; the lanes
  // join last, so a column's sums do not depend on w or on the other columns.
  std::vector<float> acc(static_cast<size_t>(w * kPortableRows * kPortableLanes));
  for (int64_t i0 = 0; i0 < rows; i0 += kPortableRows) {
    const int64_t nr = std::min(kPortableRows, rows - i0);
    std::fill(acc.begin(), acc.end(), 0.0f);
    for (int64_t n0 = 0; n0 < n16; n0 += kPortableChunk) {
      const int64_t len = std::min(kPortableChunk, n16 - n0);
      for (int64_t r = 0; r < kPortableRows; ++r) {
        if (r < nr) {
          decode_segment(codes + (i0 + r) * stride, luts + 4 * (i0 + r), n0, len, x[r]);
        } else {
          std::fill(x[r], x[r] + len, 0.0f);
        }
      }
      for (int64_t c = 0; c < w; ++c) {
        float a[kPortableRows][kPortableLanes];
        float* ac = acc.data() + c * kPortableRows * kPortableLanes;
        std::memcpy(a, ac, sizeof a);
        const float* q = qt + c * ldq + n0;
        for (int64_t t = 0; t < len; t += kPortableLanes)
          for (int64_t r = 0; r < kPortableRows; ++r)
            for (int64_t l = 0; l < kPortableLanes; ++l) a[r][l] += x[r][t + l] * q[t + l];
        std::memcpy(ac, a, sizeof a);
      }
    }
    for (int64_t r = 0; r < nr; ++r)
      for (int64_t c = 0; c < w; ++c) {
        const float* a = acc.data() + (c * kPortableRows + r) * kPortableLanes;
        float s = 0.0f;
        for (int64_t l = 0; l < kPortableLanes; ++l) s += a[l];
        y[(i0 + r) * w + c] += s;
      }
  }
}

// zt[c][n] over a chunk of samples: every row's decoded segment axpy'd into the w × chunk block
// of sums (in L1), rows in order, then added to zt once.
constexpr int64_t kTChunk = 128;

void t_times_portable(const uint8_t* codes, int64_t stride, const float* luts, int64_t rows, int64_t n0, int64_t len,
                      const float* y, int64_t w, float* zt, int64_t ldz) {
  std::vector<float> sums(static_cast<size_t>(w * kTChunk));
  float x[kTChunk];
  for (int64_t s0 = n0; s0 < n0 + len; s0 += kTChunk) {
    const int64_t m = std::min(kTChunk, n0 + len - s0);
    std::fill(sums.begin(), sums.end(), 0.0f);
    for (int64_t i = 0; i < rows; ++i) {
      decode_segment(codes + i * stride, luts + 4 * i, s0, m, x);
      const float* yi = y + i * w;
      for (int64_t c = 0; c < w; ++c) {
        const float b = yi[c];
        float* out = sums.data() + c * kTChunk;
        for (int64_t t = 0; t < m; ++t) out[t] += x[t] * b;
      }
    }
    for (int64_t c = 0; c < w; ++c)
      for (int64_t t = 0; t < m; ++t) zt[c * ldz + s0 + t] += sums[static_cast<size_t>(c * kTChunk + t)];
  }
}

#ifdef STRATA_X86
// ----------------------------------------------------------------------------- AVX-512
#define STRATA_AVX512 __attribute__((target("avx512f")))

STRATA_AVX512 inline __m512 decode16(const uint8_t* row, int64_t n, __m512 table, __m512i shifts) {
  const __m512i v = _mm512_set1_epi32(static_cast<int>(load_u32(row + (n >> 2))));
  return _mm512_permutexvar_ps(_mm512_srlv_epi32(v, shifts), table);
}

template <int RB, int CB>
STRATA_AVX512 void times_block(const uint8_t* codes, int64_t stride, const float* luts, int64_t n_begin,
                               int64_t n_end, const float* qt, int64_t ldq, int64_t w, int64_t c0, float* y) {
  const __m512i shifts = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  __m512 table[RB];
#pragma GCC unroll 8
  for (int r = 0; r < RB; ++r) table[r] = _mm512_broadcast_f32x4(_mm_loadu_ps(luts + 4 * r));
  __m512 acc[RB][CB];
#pragma GCC unroll 8
  for (int r = 0; r < RB; ++r)
#pragma GCC unroll 8
    for (int c = 0; c < CB; ++c) acc[r][c] = _mm512_setzero_ps();
  const float* q0 = qt + c0 * ldq;
  for (int64_t n = n_begin; n < n_end; n += 16) {
    __m512 x[RB];
#pragma GCC unroll 8
    for (int r = 0; r < RB; ++r) x[r] = decode16(codes + r * stride, n, table[r], shifts);
#pragma GCC unroll 8
    for (int c = 0; c < CB; ++c) {
      const __m512 q = _mm512_loadu_ps(q0 + c * ldq + n);
#pragma GCC unroll 8
      for (int r = 0; r < RB; ++r) acc[r][c] = _mm512_fmadd_ps(x[r], q, acc[r][c]);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < RB; ++r)
#pragma GCC unroll 8
    for (int c = 0; c < CB; ++c) y[r * w + c0 + c] += _mm512_reduce_add_ps(acc[r][c]);
}

STRATA_AVX512 void times_avx512(const uint8_t* codes, int64_t stride, const float* luts, int64_t rows, int64_t n16,
                                const float* qt, int64_t ldq, int64_t w, float* y) {
  constexpr int RB = 6, CB = 4;
  // Samples in chunks so the chunk of Qᵀ (w × kTimesChunk floats) stays in L2 while every
  // row block of the tile passes over it.
  for (int64_t n0 = 0; n0 < n16; n0 += kTimesChunk) {
    const int64_t n1 = std::min(n16, n0 + kTimesChunk);
    int64_t i = 0;
    for (; i + RB <= rows; i += RB)
      for (int64_t c0 = 0; c0 < w; c0 += CB)
        times_block<RB, CB>(codes + i * stride, stride, luts + 4 * i, n0, n1, qt, ldq, w, c0, y + i * w);
    for (; i < rows; ++i)
      for (int64_t c0 = 0; c0 < w; c0 += CB)
        times_block<1, CB>(codes + i * stride, stride, luts + 4 * i, n0, n1, qt, ldq, w, c0, y + i * w);
  }
}

template <int CB, int NV>
STRATA_AVX512 void t_times_block(const uint8_t* codes, int64_t stride, const float* luts, int64_t rows, int64_t n,
                                 const float* y, int64_t w, int64_t c0, float* zt, int64_t ldz) {
  const __m512i shifts = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  __m512 acc[CB][NV];
#pragma GCC unroll 8
  for (int c = 0; c < CB; ++c)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[c][v] = _mm512_setzero_ps();
  for (int64_t i = 0; i < rows; ++i) {
    const __m512 table = _mm512_broadcast_f32x4(_mm_loadu_ps(luts + 4 * i));
    const uint8_t* row = codes + i * stride;
    _mm_prefetch(reinterpret_cast<const char*>(row + kPrefetchRows * stride + n / 4), _MM_HINT_T0);
    __m512 x[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) x[v] = decode16(row, n + 16 * v, table, shifts);
    const float* yi = y + i * w + c0;
#pragma GCC unroll 8
    for (int c = 0; c < CB; ++c) {
      const __m512 b = _mm512_set1_ps(yi[c]);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[c][v] = _mm512_fmadd_ps(x[v], b, acc[c][v]);
    }
  }
#pragma GCC unroll 8
  for (int c = 0; c < CB; ++c)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      float* zp = zt + (c0 + c) * ldz + n + 16 * v;
      _mm512_storeu_ps(zp, _mm512_add_ps(_mm512_loadu_ps(zp), acc[c][v]));
    }
}

STRATA_AVX512 void t_times_avx512(const uint8_t* codes, int64_t stride, const float* luts, int64_t rows, int64_t n0,
                                  int64_t len, const float* y, int64_t w, float* zt, int64_t ldz) {
  constexpr int CB = 8, NV = 3;
  for (int64_t c0 = 0; c0 < w; c0 += CB) {
    int64_t n = n0;
    for (; n + 16 * NV <= n0 + len; n += 16 * NV)
      t_times_block<CB, NV>(codes, stride, luts, rows, n, y, w, c0, zt, ldz);
    for (; n < n0 + len; n += 16) t_times_block<CB, 1>(codes, stride, luts, rows, n, y, w, c0, zt, ldz);
  }
}

bool have_avx512() {
  static const bool ok = __builtin_cpu_supports("avx512f");
  return ok;
}

// ------------------------------------------------------------------------------- AVX2
// The AVX-512 kernels' scheme on 8-lane vectors: 8 codes decode by a variable shift and a
// permute of the row's table replicated to 8 lanes (vpermps reads the low 3 index bits: the
// code plus one bit of its neighbour, which selects the same entry). 16 ymm registers hold a
// row × 12 columns of codes_times accumulators, or a 4-column × 2-vector block of Zᵀ.
#define STRATA_AVX2 __attribute__((target("avx2,fma")))

STRATA_AVX2 inline __m256 decode8(const uint8_t* row, int64_t n, __m256 table, __m256i shifts) {
  const __m256i v = _mm256_set1_epi32(static_cast<int>(load_u32(row + (n >> 2))));
  return _mm256_permutevar8x32_ps(table, _mm256_srlv_epi32(v, shifts));
}

STRATA_AVX2 inline __m256 table8(const float* lut) {
  const __m128 t = _mm_loadu_ps(lut);
  return _mm256_insertf128_ps(_mm256_castps128_ps256(t), t, 1);
}

STRATA_AVX2 inline float reduce8(__m256 v) {
  const __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  const __m128 t = _mm_add_ps(s, _mm_movehl_ps(s, s));
  return _mm_cvtss_f32(_mm_add_ss(t, _mm_movehdup_ps(t)));
}

// One row against CB columns: its decoded codes feed CB accumulators (12 + the codes, the table
// and the shifts fit the 16 ymm registers; 3 rows × 4 columns spilled half its accumulators).
// Each accumulator sums the same products in the same order as any row blocking would.
template <int CB>
STRATA_AVX2 void times_row_avx2(const uint8_t* row, const float* lut, int64_t n_begin, int64_t n_end, const float* qt,
                                int64_t ldq, int64_t c0, float* y) {
  const __m256i shifts = _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14);
  const __m256 table = table8(lut);
  __m256 acc[CB];
#pragma GCC unroll 12
  for (int c = 0; c < CB; ++c) acc[c] = _mm256_setzero_ps();
  const float* q0 = qt + c0 * ldq;
  for (int64_t n = n_begin; n < n_end; n += 8) {
    const __m256 x = decode8(row, n, table, shifts);
#pragma GCC unroll 12
    for (int c = 0; c < CB; ++c) acc[c] = _mm256_fmadd_ps(x, _mm256_loadu_ps(q0 + c * ldq + n), acc[c]);
  }
#pragma GCC unroll 12
  for (int c = 0; c < CB; ++c) y[c0 + c] += reduce8(acc[c]);
}

STRATA_AVX2 void times_avx2(const uint8_t* codes, int64_t stride, const float* luts, int64_t rows, int64_t n16,
                            const float* qt, int64_t ldq, int64_t w, float* y) {
  for (int64_t n0 = 0; n0 < n16; n0 += kTimesChunk) {
    const int64_t n1 = std::min(n16, n0 + kTimesChunk), bytes = (n1 - n0) / 4;
    for (int64_t i = 0; i < rows; ++i) {
      // Rows lie `stride` apart (a jump the line prefetchers do not follow): fetch the chunk of
      // the row after next meanwhile.
      const char* ahead = reinterpret_cast<const char*>(codes + (i + 2) * stride + n0 / 4);
      for (int64_t b = 0; b < bytes; b += 64) _mm_prefetch(ahead + b, _MM_HINT_T0);
      _mm_prefetch(ahead + bytes - 1, _MM_HINT_T0);
      const uint8_t* row = codes + i * stride;
      int64_t c0 = 0;
      for (; c0 + 12 <= w; c0 += 12) times_row_avx2<12>(row, luts + 4 * i, n0, n1, qt, ldq, c0, y + i * w);
      if (c0 + 8 <= w) times_row_avx2<8>(row, luts + 4 * i, n0, n1, qt, ldq, c0, y + i * w), c0 += 8;
      if (c0 < w) times_row_avx2<4>(row, luts + 4 * i, n0, n1, qt, ldq, c0, y + i * w);
    }
  }
}

template <int CB, int NV>
STRATA_AVX2 void t_times_block_avx2(const uint8_t* codes, int64_t stride, const float* luts, int64_t rows, int64_t n,
                                    const float* y, int64_t w, int64_t c0, float* zt, int64_t ldz) {
  const __m256i shifts = _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14);
  __m256 acc[CB][NV];
#pragma GCC unroll 4
  for (int c = 0; c < CB; ++c)
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) acc[c][v] = _mm256_setzero_ps();
  for (int64_t i = 0; i < rows; ++i) {
    const __m256 table = table8(luts + 4 * i);
    const uint8_t* row = codes + i * stride;
    _mm_prefetch(reinterpret_cast<const char*>(row + kPrefetchRows * stride + n / 4), _MM_HINT_T0);
    __m256 x[NV];
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) x[v] = decode8(row, n + 8 * v, table, shifts);
    const float* yi = y + i * w + c0;
#pragma GCC unroll 4
    for (int c = 0; c < CB; ++c) {
      const __m256 b = _mm256_broadcast_ss(yi + c);
#pragma GCC unroll 2
      for (int v = 0; v < NV; ++v) acc[c][v] = _mm256_fmadd_ps(x[v], b, acc[c][v]);
    }
  }
#pragma GCC unroll 4
  for (int c = 0; c < CB; ++c)
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) {
      float* zp = zt + (c0 + c) * ldz + n + 8 * v;
      _mm256_storeu_ps(zp, _mm256_add_ps(_mm256_loadu_ps(zp), acc[c][v]));
    }
}

STRATA_AVX2 void t_times_avx2(const uint8_t* codes, int64_t stride, const float* luts, int64_t rows, int64_t n0,
                              int64_t len, const float* y, int64_t w, float* zt, int64_t ldz) {
  constexpr int CB = 4, NV = 2;  // len is a multiple of 16: whole 2-vector blocks
  for (int64_t c0 = 0; c0 < w; c0 += CB)
    for (int64_t n = n0; n < n0 + len; n += 8 * NV)
      t_times_block_avx2<CB, NV>(codes, stride, luts, rows, n, y, w, c0, zt, ldz);
}

bool have_avx2() {
  static const bool ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return ok;
}
#endif

}  // namespace

const GramF32Kernels& gram_f32_portable() {
  static const GramF32Kernels k{times_portable, t_times_portable};
  return k;
}

const GramF32Kernels* gram_f32_avx2() {
#ifdef STRATA_X86
  static const GramF32Kernels k{times_avx2, t_times_avx2};
  return have_avx2() ? &k : nullptr;
#else
  return nullptr;
#endif
}

const GramF32Kernels* gram_f32_avx512() {
#ifdef STRATA_X86
  static const GramF32Kernels k{times_avx512, t_times_avx512};
  return have_avx512() ? &k : nullptr;
#else
  return nullptr;
#endif
}

}  // namespace strata::backend::cpu
