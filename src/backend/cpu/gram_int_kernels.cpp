// Integer kernels of the genotype Gram operator (see gram_int_kernels.hpp).
//
// Decoding is a broadcast qword of packed codes, `vpsrlvw` (int16 lane j of qword k shifts
// its word right by 2k) and an AND keeping 2 bits. Lane j then holds code 8·(j % 4) + j / 4 of
// the qword's 32 — a fixed shuffle of the samples that the kernels undo on the dense side.
// (`vpmultishiftqb` would decode in order, but on this class of CPU it issues on the same pipes
// as `vpdpwssd` and cost 6 of every 30 cycles; shifts and ANDs run beside it.) The decoded
// lanes feed `vpdpwssd`, which multiplies int16 pairs and adds both products to an int32 lane:
//  - codes_times_i16: lanes run along samples (32 per vector), a 6-row × 4-column block of
//    accumulators per chunk of samples against the chunk of Qᵀ shuffled the same way, reduced
//    to int64 per chunk.
//  - codes_t_times_i16: int32 lane L holds the codes of two neighbouring variants for sample
//    8·(L % 2) + L / 2 of a 16-sample strip, so each instruction adds two variants'
//    contributions; a block of columns × strips stays in registers while every row pair of the
//    group streams past, and is put back in sample order when stored.
#include "backend/cpu/gram_int_kernels.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "backend/cpu/x86_intrinsics_internal.hpp"

namespace strata::backend::cpu {
namespace {

// Samples per chunk of codes_times_i16 (a multiple of 32): the int32 lanes hold at most
// 2·(4096/32)·3·32767 ≈ 2.5e7, and w × 4096 int16 of Qᵀ stay in L2.
constexpr int64_t kIntTimesChunk = 2048;


inline int code_at(const uint8_t* row, int64_t n) { return (row[n >> 2] >> (2 * (n & 3))) & 3; }

void times_portable(const uint8_t* codes, int64_t stride, int64_t rows, int64_t n32, const int16_t* qt, int64_t ldq,
                    int64_t w, int64_t* p, const uint8_t* /*packed*/) {
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
                      int64_t w, int32_t* zt, int64_t ldz, const uint8_t* /*packed*/) {
  for (int64_t c = 0; c < w; ++c) {
    for (int64_t n = 0; n < len; ++n) {
      int32_t s = 0;
      for (int64_t i = 0; i < rows; ++i) s += code_at(codes + i * stride, n) * int32_t{wpairs[(i / 2) * 2 * w + 2 * c + i % 2]};
      zt[c * ldz + n] += s;
    }
  }
}

#ifdef STRATA_X86
#define STRATA_VNNI __attribute__((target("avx512f,avx512bw,avx512vnni,avx512vbmi,bmi2")))

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

// Shift counts: int16 lane j (in qword j / 4) shifts right by 2·(j / 4).
STRATA_VNNI inline __m512i lane_shifts() {
  alignas(64) int16_t sh[32];
  for (int j = 0; j < 32; ++j) sh[j] = static_cast<int16_t>(2 * (j / 4));
  return _mm512_load_si512(sh);
}

// Sample of a 32-code qword that int16 lane j decodes to.
constexpr int lane_sample(int j) { return 8 * (j % 4) + j / 4; }

STRATA_VNNI inline __m512i decode32(const uint8_t* row, int64_t n, __m512i shifts, __m512i mask) {
  const __m512i data = _mm512_set1_epi64(static_cast<long long>(load_u64(row + (n >> 2))));
  return _mm512_and_si512(_mm512_srlv_epi16(data, shifts), mask);
}

// A block's accumulators zeroed (unrolled: they live in registers).
template <int A, int B>
STRATA_VNNI inline void zero_all(__m512i (&acc)[A][B]) {
#pragma GCC unroll 16
  for (int a = 0; a < A; ++a)
#pragma GCC unroll 16
    for (int b = 0; b < B; ++b) acc[a][b] = _mm512_setzero_si512();
}

template <int RB, int CB>
STRATA_VNNI void times_block(const uint8_t* codes, int64_t stride, int64_t n_begin, int64_t n_end, const int16_t* qs,
                             int64_t ldq, int64_t w, int64_t c0, int64_t* p) {
  const __m512i shifts = lane_shifts(), mask = _mm512_set1_epi16(3);
  __m512i acc[RB][CB];
  zero_all(acc);
  const int16_t* q0 = qs + c0 * ldq - n_begin;
  for (int64_t n = n_begin; n < n_end; n += 32) {
    __m512i x[RB];
#pragma GCC unroll 8
    for (int r = 0; r < RB; ++r) x[r] = decode32(codes + r * stride, n, shifts, mask);
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
                            int64_t ldq, int64_t w, int64_t* p, const uint8_t* /*packed*/) {
  constexpr int RB = 6, CB = 4;
  // The chunk of Qᵀ with each 32 samples in the decoder's lane order (kept per thread: a
  // fresh buffer per tile would be page-faulted anew).
  thread_local std::vector<int16_t> shuffled;
  if (static_cast<int64_t>(shuffled.size()) < w * kIntTimesChunk) shuffled.resize(static_cast<size_t>(w * kIntTimesChunk));
  alignas(64) int16_t order[32];
  for (int j = 0; j < 32; ++j) order[j] = static_cast<int16_t>(lane_sample(j));
  const __m512i perm = _mm512_load_si512(order);
  int16_t* qs = shuffled.data();
  for (int64_t n0 = 0; n0 < n32; n0 += kIntTimesChunk) {
    const int64_t n1 = std::min(n32, n0 + kIntTimesChunk);
    for (int64_t c = 0; c < w; ++c)
      for (int64_t n = n0; n < n1; n += 32)
        _mm512_storeu_si512(qs + c * kIntTimesChunk + (n - n0),
                            _mm512_permutexvar_epi16(perm, _mm512_loadu_si512(qt + c * ldq + n)));
    int64_t i = 0;
    for (; i + RB <= rows; i += RB)
      for (int64_t c0 = 0; c0 < w; c0 += CB)
        times_block<RB, CB>(codes + i * stride, stride, n0, n1, qs, kIntTimesChunk, w, c0, p + i * w);
    for (; i < rows; ++i)
      for (int64_t c0 = 0; c0 < w; c0 += CB)
        times_block<1, CB>(codes + i * stride, stride, n0, n1, qs, kIntTimesChunk, w, c0, p + i * w);
  }
}

template <int CB, int NV>
STRATA_VNNI void t_times_block(const uint8_t* codes, int64_t stride, int64_t pairs, int64_t n, const int16_t* wpairs,
                               int64_t w, int64_t c0, int32_t* zt, int64_t ldz) {
  const __m512i shifts = lane_shifts(), mask = _mm512_set1_epi16(3);
  __m512i acc[CB][NV];
  zero_all(acc);
  const uint8_t* r0 = codes + (n >> 2);
  const int32_t* wp = reinterpret_cast<const int32_t*>(wpairs) + c0;
  for (int64_t pr = 0; pr < pairs; ++pr, r0 += 2 * stride, wp += w) {
    __m512i x[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      // Words alternate between the two rows (samples 0–7, then 8–15 of the strip), so each
      // int32 lane pairs the rows' codes of one sample.
      const uint64_t d = _pdep_u64(load_u32(r0 + 4 * v), 0x0000FFFF0000FFFFULL) |
                         _pdep_u64(load_u32(r0 + stride + 4 * v), 0xFFFF0000FFFF0000ULL);
      x[v] = _mm512_and_si512(_mm512_srlv_epi16(_mm512_set1_epi64(static_cast<long long>(d)), shifts), mask);
    }
#pragma GCC unroll 16
    for (int c = 0; c < CB; ++c) {
      const __m512i b = _mm512_set1_epi32(wp[c]);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[c][v] = dpwssd(acc[c][v], x[v], b);
    }
  }
  // Sample s of the strip is in lane 2·(s % 8) + s / 8.
  const __m512i order = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
#pragma GCC unroll 16
  for (int c = 0; c < CB; ++c)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      int32_t* zp = zt + (c0 + c) * ldz + n + 16 * v;
      _mm512_storeu_si512(zp, _mm512_add_epi32(_mm512_loadu_si512(zp), _mm512_permutexvar_epi32(order, acc[c][v])));
    }
}

STRATA_VNNI void t_times_vnni(const uint8_t* codes, int64_t stride, int64_t rows, int64_t len, const int16_t* wpairs,
                              int64_t w, int32_t* zt, int64_t ldz, const uint8_t* /*packed*/) {
  const int64_t pairs = (rows + 1) / 2;
  constexpr int CB = 8, NV = 3;
  for (int64_t c0 = 0; c0 < w; c0 += CB) {
    int64_t n = 0;
    for (; n + 16 * NV <= len; n += 16 * NV) t_times_block<CB, NV>(codes, stride, pairs, n, wpairs, w, c0, zt, ldz);
    for (; n < len; n += 16) t_times_block<CB, 1>(codes, stride, pairs, n, wpairs, w, c0, zt, ldz);
  }
}

// ------------------------------------------------------------- AVX2 and AVX-VNNI (256-bit)
// Per-thread scratch, 32-byte aligned, kept across calls (a fresh buffer per call would be
// page-faulted anew).
template <class T>
class Aligned32 {
 public:
  T* get(int64_t count) {
    constexpr int64_t kPad = 32 / sizeof(T);
    if (static_cast<int64_t>(buf_.size()) < count + kPad) buf_.resize(static_cast<size_t>(count + kPad));
    const auto misalign = reinterpret_cast<uintptr_t>(buf_.data()) % 32;
    return buf_.data() + (32 - misalign) % 32 / sizeof(T);
  }

 private:
  std::vector<T> buf_;
};
using AlignedI16 = Aligned32<int16_t>;

// A packed buffer's first 32-byte boundary (pack_256 allocates 32 bytes more).
inline const int32_t* align32(const uint8_t* p) {
  return reinterpret_cast<const int32_t*>(p + (32 - reinterpret_cast<uintptr_t>(p) % 32) % 32);
}
inline int32_t* align32(uint8_t* p) { return const_cast<int32_t*>(align32(static_cast<const uint8_t*>(p))); }

#define STRATA_I16_NS avx2
#define STRATA_I16_TARGET __attribute__((target("avx2")))
#define STRATA_I16_DECODE_AHEAD true
#define STRATA_I16_MDOT(acc, x, q)                                                              \
  do {                                                                                          \
    __m256i t_;                                                                                 \
    __asm__("vpmaddwd %2, %3, %1\n\tvpaddd %1, %0, %0" : "+x"(acc), "=&x"(t_) : "xm"(q), "x"(x)); \
  } while (0)
#define STRATA_I16_BDOT(acc, src, x)                                                            \
  do {                                                                                          \
    __m256i t_;                                                                                 \
    __asm__("vpbroadcastd %2, %1\n\tvpmaddwd %3, %1, %1\n\tvpaddd %1, %0, %0"                  \
            : "+x"(acc), "=&x"(t_)                                                              \
            : "m"(src), "x"(x));                                                                \
  } while (0)
#include "backend/cpu/gram_i16_256.inc"

#define STRATA_I16_NS avx_vnni
#define STRATA_I16_TARGET __attribute__((target("avx2,avxvnni")))
#define STRATA_I16_DECODE_AHEAD false
#define STRATA_I16_MDOT(acc, x, q) __asm__("%{vex%} vpdpwssd %1, %2, %0" : "+x"(acc) : "xm"(q), "x"(x))
#define STRATA_I16_BDOT(acc, src, x)                                                                      \
  do {                                                                                                    \
    __m256i t_;                                                                                           \
    __asm__("vpbroadcastd %2, %1\n\t%{vex%} vpdpwssd %3, %1, %0" : "+x"(acc), "=&x"(t_) : "m"(src), "x"(x)); \
  } while (0)
#include "backend/cpu/gram_i16_256.inc"

bool have_avx2() {
  static const bool ok = __builtin_cpu_supports("avx2");
  return ok;
}

bool have_avx_vnni() {
  static const bool ok = have_avx2() && __builtin_cpu_supports("avxvnni");
  return ok;
}

bool have_vnni() {
  static const bool ok = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                         __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512vbmi") &&
                         __builtin_cpu_supports("bmi2");
  return ok;
}
#endif

}  // namespace

const GramI16Kernels& gram_i16_portable() {
  static const GramI16Kernels k{times_portable, t_times_portable};
  return k;
}

#ifdef STRATA_X86
constexpr GramI16Kernels kAvx2{avx2::times_256, avx2::t_times_256, avx2::pack_256};
constexpr GramI16Kernels kAvxVnni{avx_vnni::times_256, avx_vnni::t_times_256, avx_vnni::pack_256};
constexpr GramI16Kernels kVnni{times_vnni, t_times_vnni};

const GramI16Kernels* gram_i16_avx2() { return have_avx2() ? &kAvx2 : nullptr; }
const GramI16Kernels* gram_i16_avx_vnni() { return have_avx_vnni() ? &kAvxVnni : nullptr; }
const GramI16Kernels* gram_i16_vnni() { return have_vnni() ? &kVnni : nullptr; }
#else
const GramI16Kernels* gram_i16_avx2() { return nullptr; }
const GramI16Kernels* gram_i16_avx_vnni() { return nullptr; }
const GramI16Kernels* gram_i16_vnni() { return nullptr; }
#endif

}  // namespace strata::backend::cpu
