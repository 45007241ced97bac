// Integer kernels of the genotype Gram operator (see gram_int_kernels.hpp).
//
// Decoding is two instructions: `vpmultishiftqb` pulls the 2-bit code of every int16 lane out
// of a broadcast qword of packed codes (each lane's control byte names the code's bit offset),
// and an AND keeps those 2 bits. The decoded lanes feed `vpdpwssd`, which multiplies int16
// pairs and adds both products to an int32 lane:
//  - codes_times_i16: lanes run along samples (32 per vector, pairs of neighbours), a 3-row ×
//    8-column block of accumulators per chunk of samples, reduced to int64 per chunk.
//  - codes_t_times_i16: lane s holds the codes of two neighbouring variants for sample s, so
//    each instruction adds two variants' contributions; a block of columns × 16-sample strips
//    stays in registers while every row pair of the group streams past.
#include "backend/cpu/gram_int_kernels.hpp"

#include <algorithm>
#include <cstring>


#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#define STRATA_GRAM_INT_X86 1
#endif

namespace strata::backend::cpu {
namespace {

// Samples per chunk of codes_times_i16 (a multiple of 32): the int32 lanes hold at most
// 2·(4096/32)·3·32767 ≈ 2.5e7, and w × 4096 int16 of Qᵀ stay in L2.
constexpr int64_t kIntTimesChunk = 2048;


inline int code_at(const uint8_t* row, int64_t n) { return (row[n >> 2] >> (2 * (n & 3))) & 3; }

void times_portable(const uint8_t* codes, int64_t stride, int64_t rows, int64_t n32, const int16_t* qt, int64_t ldq,
                    int64_t w, int64_t* p) {
  for (int64_t i = 0; i < rows; ++i) {
    const uint8_t* row = codes + i * stride;
    for (int64_t c = 0; c < w; ++c) {
      int64_t s = 0;
      for (int64_t n = 0; n < n32; ++n) s += code_at(row, n) * int64_t{qt[c * ldq + n]};
      p[i * w + c] += s;
    }
  }
}

void t_times_portable(const uint8_t* codes, int64_t stride, int64_t rows, int64_t len, const int16_t* wpairs,
                      int64_t w, int32_t* zt, int64_t ldz) {
  for (int64_t c = 0; c < w; ++c) {
    for (int64_t n = 0; n < len; ++n) {
      int32_t s = 0;
      for (int64_t i = 0; i < rows; ++i) s += code_at(codes + i * stride, n) * int32_t{wpairs[(i / 2) * 2 * w + 2 * c + i % 2]};
      zt[c * ldz + n] += s;
    }
  }
}

#ifdef STRATA_GRAM_INT_X86
#define STRATA_VNNI __attribute__((target("avx512f,avx512bw,avx512vnni,avx512vbmi")))

// acc += pairwise products of a and b. Inline assembly for phase 2: there GCC 12 copies every
// accumulator in and out of another register around the intrinsic (a third of the rate lost).
// Phase 1 keeps the intrinsic, whose Qᵀ operand folds into the instruction as a memory load.
STRATA_VNNI inline __m512i dpwssd(__m512i acc, __m512i a, __m512i b) {
  __asm__("vpdpwssd %2, %1, %0" : "+v"(acc) : "v"(a), "v"(b));
  return acc;
}


inline uint64_t load_u64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
inline uint32_t load_u32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// Control bytes selecting, for int16 lane j of qword k, the bit offset of its code.
// Phase 1: lane 4k + m is sample 4k + m of one row: offset 2(4k + m).
STRATA_VNNI inline __m512i times_control() {
  alignas(64) uint64_t ctl[8];
  for (uint64_t k = 0; k < 8; ++k) ctl[k] = (8 * k) | (8 * k + 2) << 16 | (8 * k + 4) << 32 | (8 * k + 6) << 48;
  return _mm512_load_si512(ctl);
}
// Phase 2: qword k holds samples 2k and 2k + 1 of rows r0 (low dword of the data) and r1
// (high dword): lanes (r0, 2k), (r1, 2k), (r0, 2k+1), (r1, 2k+1).
STRATA_VNNI inline __m512i t_times_control() {
  alignas(64) uint64_t ctl[8];
  for (uint64_t k = 0; k < 8; ++k)
    ctl[k] = (4 * k) | (32 + 4 * k) << 16 | (4 * k + 2) << 32 | (34 + 4 * k) << 48;
  return _mm512_load_si512(ctl);
}

STRATA_VNNI inline __m512i decode32(const uint8_t* row, int64_t n, __m512i ctl, __m512i mask) {
  const __m512i data = _mm512_set1_epi64(static_cast<long long>(load_u64(row + (n >> 2))));
  return _mm512_and_si512(_mm512_multishift_epi64_epi8(ctl, data), mask);
}

STRATA_VNNI inline __m512i decode_pair16(const uint8_t* r0, const uint8_t* r1, int64_t n, __m512i ctl, __m512i mask) {
  const uint64_t d = uint64_t{load_u32(r0 + (n >> 2))} | uint64_t{load_u32(r1 + (n >> 2))} << 32;
  return _mm512_and_si512(_mm512_multishift_epi64_epi8(ctl, _mm512_set1_epi64(static_cast<long long>(d))), mask);
}

template <int RB, int CB>
STRATA_VNNI void times_block(const uint8_t* codes, int64_t stride, int64_t n_begin, int64_t n_end, const int16_t* qt,
                             int64_t ldq, int64_t w, int64_t c0, int64_t* p) {
  const __m512i ctl = times_control(), mask = _mm512_set1_epi16(3);
  __m512i acc[RB][CB];
#pragma GCC unroll 8
  for (int r = 0; r < RB; ++r)
#pragma GCC unroll 8
    for (int c = 0; c < CB; ++c) acc[r][c] = _mm512_setzero_si512();
  const int16_t* q0 = qt + c0 * ldq;
  for (int64_t n = n_begin; n < n_end; n += 32) {
    __m512i x[RB];
#pragma GCC unroll 8
    for (int r = 0; r < RB; ++r) x[r] = decode32(codes + r * stride, n, ctl, mask);
#pragma GCC unroll 8
    for (int c = 0; c < CB; ++c) {
      const __m512i q = _mm512_loadu_si512(q0 + c * ldq + n);
#pragma GCC unroll 8
      for (int r = 0; r < RB; ++r) acc[r][c] = _mm512_dpwssd_epi32(acc[r][c], x[r], q);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < RB; ++r)
#pragma GCC unroll 8
    for (int c = 0; c < CB; ++c) p[r * w + c0 + c] += _mm512_reduce_add_epi32(acc[r][c]);
}

STRATA_VNNI void times_vnni(const uint8_t* codes, int64_t stride, int64_t rows, int64_t n32, const int16_t* qt,
                            int64_t ldq, int64_t w, int64_t* p) {
  constexpr int RB = 6, CB = 4;
  for (int64_t n0 = 0; n0 < n32; n0 += kIntTimesChunk) {
    const int64_t n1 = std::min(n32, n0 + kIntTimesChunk);
    int64_t i = 0;
    for (; i + RB <= rows; i += RB)
      for (int64_t c0 = 0; c0 < w; c0 += CB)
        times_block<RB, CB>(codes + i * stride, stride, n0, n1, qt, ldq, w, c0, p + i * w);
    for (; i < rows; ++i)
      for (int64_t c0 = 0; c0 < w; c0 += CB) times_block<1, CB>(codes + i * stride, stride, n0, n1, qt, ldq, w, c0, p + i * w);
  }
}

template <int CB, int NV>
STRATA_VNNI void t_times_block(const uint8_t* codes, int64_t stride, int64_t pairs, int64_t n, const int16_t* wpairs,
                               int64_t w, int64_t c0, int32_t* zt, int64_t ldz) {
  const __m512i ctl = t_times_control(), mask = _mm512_set1_epi16(3);
  __m512i acc[CB][NV];
#pragma GCC unroll 16
  for (int c = 0; c < CB; ++c)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[c][v] = _mm512_setzero_si512();
  const uint8_t* r0 = codes + (n >> 2);
  const int32_t* wp = reinterpret_cast<const int32_t*>(wpairs) + c0;
  for (int64_t pr = 0; pr < pairs; ++pr, r0 += 2 * stride, wp += w) {
    __m512i x[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      const uint64_t d = uint64_t{load_u32(r0 + 4 * v)} | uint64_t{load_u32(r0 + stride + 4 * v)} << 32;
      x[v] = _mm512_and_si512(_mm512_multishift_epi64_epi8(ctl, _mm512_set1_epi64(static_cast<long long>(d))), mask);
    }
#pragma GCC unroll 16
    for (int c = 0; c < CB; ++c) {
      const __m512i b = _mm512_set1_epi32(wp[c]);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[c][v] = dpwssd(acc[c][v], x[v], b);
    }
  }
#pragma GCC unroll 16
  for (int c = 0; c < CB; ++c)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      int32_t* zp = zt + (c0 + c) * ldz + n + 16 * v;
      _mm512_storeu_si512(zp, _mm512_add_epi32(_mm512_loadu_si512(zp), acc[c][v]));
    }
}

STRATA_VNNI void t_times_vnni(const uint8_t* codes, int64_t stride, int64_t rows, int64_t len, const int16_t* wpairs,
                              int64_t w, int32_t* zt, int64_t ldz) {
  const int64_t pairs = (rows + 1) / 2;
  constexpr int CB = 8, NV = 3;
  for (int64_t c0 = 0; c0 < w; c0 += CB) {
    int64_t n = 0;
    for (; n + 16 * NV <= len; n += 16 * NV) t_times_block<CB, NV>(codes, stride, pairs, n, wpairs, w, c0, zt, ldz);
    for (; n < len; n += 16) t_times_block<CB, 1>(codes, stride, pairs, n, wpairs, w, c0, zt, ldz);
  }
}

bool have_vnni() {
  static const bool ok = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                         __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512vbmi");
  return ok;
}
#endif

}  // namespace

const GramI16Kernels& gram_i16_portable() {
  static const GramI16Kernels k{times_portable, t_times_portable};
  return k;
}

const GramI16Kernels* gram_i16_vnni() {
#ifdef STRATA_GRAM_INT_X86
  static const GramI16Kernels k{times_vnni, t_times_vnni};
  return have_vnni() ? &k : nullptr;
#else
  return nullptr;
#endif
}

}  // namespace strata::backend::cpu
