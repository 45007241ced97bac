// Integer Gram kernels on aarch64 with ARMv8.2's dot products: UDOT/SDOT add the four byte
// products of each 32-bit lane to it, 16 multiply-adds per instruction (plain NEON's SMLAL does
// 4). CPUs without them (Cortex-A72, Graviton 1) keep the portable kernels.
//
// int16 operands do not fit a byte, so each is split into an unsigned low byte and a signed
// high byte, q = 256·h + l (h in [−128, 127] since |q| ≤ 32767): codes (0–3) UDOT the low bytes
// and SDOT the high ones into two int32 accumulators, joined as 256·h + l once per block.
//  - times (p += codes · Qᵀ): a row's 16 codes decoded per step (one broadcast word shifted per
//    32-bit lane: byte 4k + m holds sample 4m + k, an order `pack` gives Qᵀ's bytes too) against
//    4 columns' low and high bytes, 2 rows × 4 columns × 2 accumulators, summed across lanes per
//    chunk of kChunk samples (a lane gains at most 4·3·255 per step: < 4e5 per chunk).
//  - t_times (zt += y · codes): the codes of 4 rows for one sample in one 32-bit lane (made once
//    per slice of samples for all column blocks), against the 4 rows' bytes of a column taken
//    by lane (UDOT/SDOT by element): 4 columns × 8 samples × 2 accumulators per block. With
//    rows ≤ 10,000 the low sum stays below 7.7e6 and 256·h + l is the exact int32 sum.
//  - gram_u8s8 (GRM panels): codes (u8, ≤ 128) against limb bytes (s8) as UDOT of codes and
//    limb + 128 (an XOR of the top bit), less 128 · the column's code sum; a lane over the
//    longest run (16,384 quads) reaches at most 16,384 · 4 · 128 · 254 < 2^32, exact in uint32.
//    Its packer needs no dot products (TBL, ST4).
#include "backend/cpu/gram_int_neon.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#if defined(__aarch64__) && defined(__ARM_NEON) && defined(__linux__) && defined(__GNUC__)
#include <arm_neon.h>
#include <sys/auxv.h>
#ifndef HWCAP_ASIMDDP
#define HWCAP_ASIMDDP (1 << 20)
#endif
#define STRATA_GRAM_NEON 1
#endif

namespace strata::backend::cpu {

#ifdef STRATA_GRAM_NEON
namespace {

#define STRATA_DOTPROD __attribute__((target("arch=armv8.2-a+dotprod")))

constexpr int64_t kChunk = 2048;        // samples per chunk of `times` (a multiple of 32)
constexpr int64_t kSliceSamples = 128;  // samples per slice of `t_times`
constexpr int64_t kSliceQuads = 128;    // row quads per slice: 64 KB of code bytes

inline uint32_t load_u32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// ------------------------------------------------------------------------------ times
// Packed Qᵀ: chunk k at k·w·kChunk·2 bytes; in it, column block b (4 columns) at b·8·kChunk,
// strip s (16 samples) at 128·s, column c % 4 at 32·(c % 4): 16 low bytes, then 16 high ones,
// both in the decoder's order.
STRATA_DOTPROD void pack_chunk(const int16_t* qt, int64_t ldq, int64_t w, int64_t n0, int64_t n1, uint8_t* dst) {
  // Byte 4k + m of a decoded strip is sample 4m + k (a 4 × 4 transpose, its own inverse).
  const uint8x16_t order = {0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15};
  for (int64_t c = 0; c < w; ++c)
    for (int64_t n = n0; n < n1; n += 16) {
      const uint8x16_t a = vreinterpretq_u8_s16(vld1q_s16(qt + c * ldq + n)),
                       b = vreinterpretq_u8_s16(vld1q_s16(qt + c * ldq + n + 8));
      uint8_t* d = dst + (c / 4) * 8 * kChunk + (n - n0) / 16 * 128 + (c % 4) * 32;
      vst1q_u8(d, vqtbl1q_u8(vuzp1q_u8(a, b), order));       // low bytes (little-endian int16)
      vst1q_u8(d + 16, vqtbl1q_u8(vuzp2q_u8(a, b), order));  // high bytes
    }
}

STRATA_DOTPROD std::vector<uint8_t> pack_times(const int16_t* qt, int64_t ldq, int64_t w, int64_t n32) {
  const int64_t chunks = (n32 + kChunk - 1) / kChunk;
  std::vector<uint8_t> out(static_cast<size_t>(chunks * w * kChunk * 2));
  for (int64_t k = 0; k < chunks; ++k)
    pack_chunk(qt, ldq, w, k * kChunk, std::min(n32, (k + 1) * kChunk), out.data() + k * w * kChunk * 2);
  return out;
}

// Sixteen codes of a row: byte 4k + m = sample 4m + k.
STRATA_DOTPROD inline uint8x16_t decode16(const uint8_t* p, int32x4_t shifts, uint8x16_t mask) {
  return vandq_u8(vreinterpretq_u8_u32(vshlq_u32(vdupq_n_u32(load_u32(p)), shifts)), mask);
}

// p[r·w + c] (r < R, c < 4) += rows' codes over `strips` strips times a column block of packed Qᵀ.
template <int R>
STRATA_DOTPROD void times_block(const uint8_t* row, int64_t stride, int64_t strips, const uint8_t* qb, int64_t* p,
                                int64_t w) {
  const int32x4_t shifts = {0, -2, -4, -6};
  const uint8x16_t mask = vdupq_n_u8(3);
  uint32x4_t lo[R][4];
  int32x4_t hi[R][4];
#pragma GCC unroll 2
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int c = 0; c < 4; ++c) lo[r][c] = vdupq_n_u32(0), hi[r][c] = vdupq_n_s32(0);
  for (int64_t s = 0; s < strips; ++s, qb += 128) {
    uint8x16_t x[R];
#pragma GCC unroll 2
    for (int r = 0; r < R; ++r) x[r] = decode16(row + r * stride + 4 * s, shifts, mask);
#pragma GCC unroll 4
    for (int c = 0; c < 4; ++c) {
      const uint8x16_t ql = vld1q_u8(qb + 32 * c);
      const int8x16_t qh = vreinterpretq_s8_u8(vld1q_u8(qb + 32 * c + 16));
#pragma GCC unroll 2
      for (int r = 0; r < R; ++r) {
        lo[r][c] = vdotq_u32(lo[r][c], x[r], ql);
        hi[r][c] = vdotq_s32(hi[r][c], vreinterpretq_s8_u8(x[r]), qh);
      }
    }
  }
#pragma GCC unroll 2
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int c = 0; c < 4; ++c)
      p[r * w + c] += 256 * int64_t{vaddvq_s32(hi[r][c])} + int64_t{vaddvq_u32(lo[r][c])};
}

STRATA_DOTPROD void times_neon(const uint8_t* codes, int64_t stride, int64_t rows, int64_t n32, const int16_t* qt,
                               int64_t ldq, int64_t w, int64_t* p, const uint8_t* packed) {
  thread_local std::vector<uint8_t> scratch;  // kept: a fresh buffer per tile would fault anew
  for (int64_t n0 = 0; n0 < n32; n0 += kChunk) {
    const int64_t n1 = std::min(n32, n0 + kChunk), strips = (n1 - n0) / 16;
    const uint8_t* qs = nullptr;
    if (packed) {
      qs = packed + n0 / kChunk * w * kChunk * 2;
    } else {
      if (static_cast<int64_t>(scratch.size()) < w * kChunk * 2) scratch.resize(static_cast<size_t>(w * kChunk * 2));
      pack_chunk(qt, ldq, w, n0, n1, scratch.data());
      qs = scratch.data();
    }
    int64_t i = 0;
    for (; i + 2 <= rows; i += 2)
      for (int64_t c0 = 0; c0 < w; c0 += 4)
        times_block<2>(codes + i * stride + n0 / 4, stride, strips, qs + c0 * 2 * kChunk, p + i * w + c0, w);
    for (; i < rows; ++i)
      for (int64_t c0 = 0; c0 < w; c0 += 4)
        times_block<1>(codes + i * stride + n0 / 4, stride, strips, qs + c0 * 2 * kChunk, p + i * w + c0, w);
  }
}

// ---------------------------------------------------------------------------- t_times
// Packed y: quad g (rows 4g..4g+3) and column block b at (g·w/4 + b)·32 bytes: 16 low bytes
// (column c % 4's rows in bytes 4(c % 4) .. 4(c % 4) + 3), then 16 high ones; rows past `rows`
// are zero.
std::vector<uint8_t> pack_t_times(const int16_t* wpairs, int64_t rows, int64_t w) {
  const int64_t quads = (rows + 3) / 4;
  std::vector<uint8_t> out(static_cast<size_t>(quads * w * 8), 0);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t c = 0; c < w; ++c) {
      const auto y = static_cast<uint16_t>(wpairs[(i / 2) * 2 * w + 2 * c + i % 2]);
      uint8_t* d = out.data() + ((i / 4) * (w / 4) + c / 4) * 32 + (c % 4) * 4 + i % 4;
      d[0] = static_cast<uint8_t>(y & 0xFF);
      d[16] = static_cast<uint8_t>(y >> 8);
    }
  return out;
}

// dq[(g·ns + s)·4 + j] = code of row 4g + j and sample s of the slice (0 past `rows`).
STRATA_DOTPROD void quad_bytes(const uint8_t* codes, int64_t stride, int64_t rows, int64_t g0, int64_t quads,
                               int64_t byte0, int64_t ns, uint8_t* dq) {
  const uint8x16_t spread = {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3};
  const int8x16_t shifts = {0, -2, -4, -6, 0, -2, -4, -6, 0, -2, -4, -6, 0, -2, -4, -6};
  const uint8x16_t mask = vdupq_n_u8(3);
  for (int64_t g = 0; g < quads; ++g)
    for (int64_t s = 0; s < ns; s += 16) {
      uint8x16x4_t v;
#pragma GCC unroll 4
      for (int j = 0; j < 4; ++j) {
        const int64_t r = 4 * (g0 + g) + j;
        v.val[j] = r < rows ? vandq_u8(vshlq_u8(vqtbl1q_u8(vreinterpretq_u8_u32(vdupq_n_u32(
                                                                load_u32(codes + r * stride + byte0 + s / 4))),
                                                            spread),
                                                shifts),
                                       mask)
                            : vdupq_n_u8(0);
      }
      vst4q_u8(dq + (g * ns + s) * 4, v);  // interleaved: the 4 rows' codes of a sample together
    }
}

// z (4 columns ldz apart, 8 samples) += the quads' code bytes (quad stride qs) times their
// packed y (quad stride ys).
STRATA_DOTPROD void t_block(const uint8_t* dq, int64_t quads, int64_t qs, const uint8_t* y, int64_t ys, int32_t* z,
                            int64_t ldz) {
  uint32x4_t l00 = vdupq_n_u32(0), l01 = l00, l10 = l00, l11 = l00, l20 = l00, l21 = l00, l30 = l00, l31 = l00;
  int32x4_t h00 = vdupq_n_s32(0), h01 = h00, h10 = h00, h11 = h00, h20 = h00, h21 = h00, h30 = h00, h31 = h00;
  for (int64_t g = 0; g < quads; ++g, dq += qs, y += ys) {
    const uint8x16_t x0 = vld1q_u8(dq), x1 = vld1q_u8(dq + 16);
    const int8x16_t s0 = vreinterpretq_s8_u8(x0), s1 = vreinterpretq_s8_u8(x1);
    const uint8x16_t yl = vld1q_u8(y);
    const int8x16_t yh = vreinterpretq_s8_u8(vld1q_u8(y + 16));
#define STRATA_T_STEP(c)                             \
  l##c##0 = vdotq_laneq_u32(l##c##0, x0, yl, c);     \
  l##c##1 = vdotq_laneq_u32(l##c##1, x1, yl, c);     \
  h##c##0 = vdotq_laneq_s32(h##c##0, s0, yh, c);     \
  h##c##1 = vdotq_laneq_s32(h##c##1, s1, yh, c);
    STRATA_T_STEP(0) STRATA_T_STEP(1) STRATA_T_STEP(2) STRATA_T_STEP(3)
#undef STRATA_T_STEP
  }
  const int32x4_t out[4][2][2] = {{{h00, vreinterpretq_s32_u32(l00)}, {h01, vreinterpretq_s32_u32(l01)}},
                                  {{h10, vreinterpretq_s32_u32(l10)}, {h11, vreinterpretq_s32_u32(l11)}},
                                  {{h20, vreinterpretq_s32_u32(l20)}, {h21, vreinterpretq_s32_u32(l21)}},
                                  {{h30, vreinterpretq_s32_u32(l30)}, {h31, vreinterpretq_s32_u32(l31)}}};
#pragma GCC unroll 4
  for (int c = 0; c < 4; ++c)
#pragma GCC unroll 2
    for (int v = 0; v < 2; ++v) {
      int32_t* zp = z + c * ldz + 4 * v;
      vst1q_s32(zp, vaddq_s32(vld1q_s32(zp), vaddq_s32(vshlq_n_s32(out[c][v][0], 8), out[c][v][1])));
    }
}

STRATA_DOTPROD void t_times_neon(const uint8_t* codes, int64_t stride, int64_t rows, int64_t len,
                                 const int16_t* wpairs, int64_t w, int32_t* zt, int64_t ldz, const uint8_t* packed) {
  thread_local std::vector<uint8_t> dq_buf, y_buf;
  if (dq_buf.size() < static_cast<size_t>(kSliceQuads * kSliceSamples * 4))
    dq_buf.resize(static_cast<size_t>(kSliceQuads * kSliceSamples * 4));
  const uint8_t* y = packed;
  if (!y) {
    y_buf = pack_t_times(wpairs, rows, w);
    y = y_buf.data();
  }
  const int64_t quads = (rows + 3) / 4, ys = w * 8;
  for (int64_t n0 = 0; n0 < len; n0 += kSliceSamples) {
    const int64_t ns = std::min(kSliceSamples, len - n0);
    for (int64_t g0 = 0; g0 < quads; g0 += kSliceQuads) {
      const int64_t ng = std::min(kSliceQuads, quads - g0);
      quad_bytes(codes, stride, rows, g0, ng, n0 / 4, ns, dq_buf.data());
      for (int64_t b = 0; b < w / 4; ++b)
        for (int64_t v = 0; v < ns; v += 8)
          t_block(dq_buf.data() + v * 4, ng, ns * 4, y + g0 * ys + b * 32, ys, zt + 4 * b * ldz + n0 + v, ldz);
    }
  }
}

// ------------------------------------------------------------------------------ GRM panels
constexpr int64_t kCodeQuad = kVnniGroup * 4;          // bytes of one quad of a codes group
constexpr int64_t kLimbQuad = kVnniLimbs * kCodeQuad;  // bytes of one quad of a limbs group

inline int64_t column_limit(int mode, int64_t i, int64_t cols) { return mode == 0 ? cols : std::min(cols, i + 1); }

// Register blocks of 4 rows (one limb vector, a row a lane) × 8 columns (two code vectors) × 3
// limbs: 24 uint32 accumulators of Σ code · (limb + 128).
STRATA_DOTPROD void gram_u8s8_neon_impl(const uint8_t* a, const int8_t* b, int64_t quads, int64_t rows, int64_t cols,
                                        int mode, double scale, double* acc, int64_t ldacc) {
  const uint8x16_t ones = vdupq_n_u8(1), top = vdupq_n_u8(0x80);
  for (int64_t j0 = 0; j0 < cols; j0 += 8) {
    const uint8_t* ap = a + (j0 / kVnniGroup) * quads * kCodeQuad + (j0 % kVnniGroup) * 4;
    // Σ codes of each column (the +128 of every limb byte counts it once per limb).
    uint32x4_t cs0 = vdupq_n_u32(0), cs1 = cs0;
    for (int64_t q = 0; q < quads; ++q) {
      cs0 = vdotq_u32(cs0, vld1q_u8(ap + q * kCodeQuad), ones);
      cs1 = vdotq_u32(cs1, vld1q_u8(ap + q * kCodeQuad + 16), ones);
    }
    alignas(16) uint32_t csum[8];
    vst1q_u32(csum, cs0);
    vst1q_u32(csum + 4, cs1);
    for (int64_t i0 = mode == 0 ? 0 : j0; i0 < rows; i0 += 4) {
      // Rows i0 .. i0 + 3 lie in one 32-sample group, inside the padded panel.
      const int8_t* bp = b + (i0 / kVnniGroup) * quads * kLimbQuad + (i0 % kVnniGroup) * 4;
      uint32x4_t c00 = vdupq_n_u32(0), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00, c30 = c00, c31 = c00;
      uint32x4_t d00 = c00, d01 = c00, d10 = c00, d11 = c00, d20 = c00, d21 = c00, d30 = c00, d31 = c00;
      uint32x4_t e00 = c00, e01 = c00, e10 = c00, e11 = c00, e20 = c00, e21 = c00, e30 = c00, e31 = c00;
      for (int64_t q = 0; q < quads; ++q) {
        const uint8x16_t g0 = vld1q_u8(ap + q * kCodeQuad), g1 = vld1q_u8(ap + q * kCodeQuad + 16);
        const auto* bq = reinterpret_cast<const uint8_t*>(bp + q * kLimbQuad);
        const uint8x16_t w0 = veorq_u8(vld1q_u8(bq), top), w1 = veorq_u8(vld1q_u8(bq + kCodeQuad), top),
                         w2 = veorq_u8(vld1q_u8(bq + 2 * kCodeQuad), top);
#define STRATA_U8S8_ROW(r)                          \
  c##r##0 = vdotq_laneq_u32(c##r##0, g0, w0, r);    \
  c##r##1 = vdotq_laneq_u32(c##r##1, g1, w0, r);    \
  d##r##0 = vdotq_laneq_u32(d##r##0, g0, w1, r);    \
  d##r##1 = vdotq_laneq_u32(d##r##1, g1, w1, r);    \
  e##r##0 = vdotq_laneq_u32(e##r##0, g0, w2, r);    \
  e##r##1 = vdotq_laneq_u32(e##r##1, g1, w2, r);
        STRATA_U8S8_ROW(0) STRATA_U8S8_ROW(1) STRATA_U8S8_ROW(2) STRATA_U8S8_ROW(3)
#undef STRATA_U8S8_ROW
      }
      // [row][limb][column]
      alignas(16) uint32_t s[4][3][8];
#define STRATA_U8S8_OUT(r)                                          \
  vst1q_u32(s[r][0], c##r##0), vst1q_u32(s[r][0] + 4, c##r##1);     \
  vst1q_u32(s[r][1], d##r##0), vst1q_u32(s[r][1] + 4, d##r##1);     \
  vst1q_u32(s[r][2], e##r##0), vst1q_u32(s[r][2] + 4, e##r##1);
      STRATA_U8S8_OUT(0) STRATA_U8S8_OUT(1) STRATA_U8S8_OUT(2) STRATA_U8S8_OUT(3)
#undef STRATA_U8S8_OUT
      for (int64_t r = 0; r < 4 && i0 + r < rows; ++r) {
        const int64_t lim = std::min<int64_t>(column_limit(mode, i0 + r, cols) - j0, 8);
        double* out = acc + (i0 + r) * ldacc + j0;
        for (int64_t t = 0; t < lim; ++t) {
          const int64_t c = 128 * int64_t{csum[t]};
          const int64_t sum = (int64_t{s[r][0][t]} - c) + (int64_t{s[r][1][t]} - c) * 128 +
                              (int64_t{s[r][2][t]} - c) * 16384;  // < 2^46: exact as a double
          out[t] += scale * static_cast<double>(sum);
        }
      }
    }
  }
}

// The GRM packer (gram_vnni_kernels.hpp's layout) 16 samples at a time: each of a quad's four
// rows decoded to 16 codes in order, 4t + code looked up in the quad's 16-byte tables (TBL;
// samples past n index out of range and read 0), and ST4 interleaves the four variants' bytes,
// which is the panels' [sample][variant] order. The centring sums per limb in int32 (|code ·
// limb| ≤ 255 · 64 over at most 65,536 products: < 2^31), joined in int64 at the end.
void pack_u8s8_neon_impl(const uint8_t* const* rows, const uint8_t* tables, int64_t quads, int64_t n, uint8_t* codes,
                         int8_t* limbs, int64_t* rsum) {
  const uint8x16_t spread = {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3};
  const int8x16_t shifts = {0, -2, -4, -6, 0, -2, -4, -6, 0, -2, -4, -6, 0, -2, -4, -6};
  const uint8x16_t three = vdupq_n_u8(3), lane = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  const int64_t bytes = (n + 3) / 4, npad = (n + kVnniGroup - 1) / kVnniGroup * kVnniGroup;
  for (int64_t s = 0; s < npad; s += 16) {
    // Lanes of samples at or past n: top bit set, so every lookup reads 0.
    const uint8x16_t invalid = vandq_u8(vcgeq_u8(lane, vdupq_n_u8(static_cast<uint8_t>(std::clamp<int64_t>(n - s, 0, 16)))),
                                        vdupq_n_u8(0x80));
    uint8_t* cd = codes + (s / kVnniGroup) * quads * kCodeQuad + (s % kVnniGroup) * 4;
    int8_t* lb = limbs + (s / kVnniGroup) * quads * kLimbQuad + (s % kVnniGroup) * 4;
    int32x4_t r[3][4];
    for (auto& l : r)
      for (auto& v : l) v = vdupq_n_s32(0);
    for (int64_t q = 0; q < quads; ++q) {
      const uint8_t* tab = tables + q * kVnniTableBytes;
      const uint8x16_t tcode = vld1q_u8(tab), t0 = vld1q_u8(tab + 16), t1 = vld1q_u8(tab + 32), t2 = vld1q_u8(tab + 48);
      uint8x16x4_t u, l0, l1, l2;
#pragma GCC unroll 4
      for (int t = 0; t < 4; ++t) {
        const uint8_t* row = rows[4 * q + t] + s / 4;
        uint32_t word = 0;
        std::memcpy(&word, row, static_cast<size_t>(std::clamp<int64_t>(bytes - s / 4, 0, 4)));
        const uint8x16_t code = vandq_u8(vshlq_u8(vqtbl1q_u8(vreinterpretq_u8_u32(vdupq_n_u32(word)), spread), shifts), three);
        const uint8x16_t idx = vorrq_u8(vaddq_u8(code, vdupq_n_u8(static_cast<uint8_t>(4 * t))), invalid);
        u.val[t] = vqtbl1q_u8(tcode, idx);
        l0.val[t] = vqtbl1q_u8(t0, idx);
        l1.val[t] = vqtbl1q_u8(t1, idx);
        l2.val[t] = vqtbl1q_u8(t2, idx);
        const int16x8_t lo = vreinterpretq_s16_u16(vmovl_u8(vget_low_u8(u.val[t]))),
                        hi = vreinterpretq_s16_u16(vmovl_high_u8(u.val[t]));
#pragma GCC unroll 3
        for (int l = 0; l < 3; ++l) {
          const auto a = static_cast<int16_t>(static_cast<int8_t>(tab[64 + 4 * l + t]));
          r[l][0] = vmlal_n_s16(r[l][0], vget_low_s16(lo), a);
          r[l][1] = vmlal_high_n_s16(r[l][1], lo, a);
          r[l][2] = vmlal_n_s16(r[l][2], vget_low_s16(hi), a);
          r[l][3] = vmlal_high_n_s16(r[l][3], hi, a);
        }
      }
      vst4q_u8(cd + q * kCodeQuad, u);  // [sample][variant]
      vst4q_u8(reinterpret_cast<uint8_t*>(lb + q * kLimbQuad), l0);
      vst4q_u8(reinterpret_cast<uint8_t*>(lb + q * kLimbQuad + kCodeQuad), l1);
      vst4q_u8(reinterpret_cast<uint8_t*>(lb + q * kLimbQuad + 2 * kCodeQuad), l2);
    }
    alignas(16) int32_t v[3][16];
    for (int l = 0; l < 3; ++l)
      for (int k = 0; k < 4; ++k) vst1q_s32(v[l] + 4 * k, r[l][k]);
    for (int k = 0; k < 16; ++k) rsum[s + k] = int64_t{v[0][k]} + 128 * int64_t{v[1][k]} + 16384 * int64_t{v[2][k]};
  }
}

}  // namespace

bool neon_dotprod() {
  static const bool ok = (getauxval(AT_HWCAP) & HWCAP_ASIMDDP) != 0;
  return ok;
}

const GramI16Kernels* gram_i16_neon() {
  static const GramI16Kernels k{times_neon, t_times_neon, pack_times, pack_t_times};
  return neon_dotprod() ? &k : nullptr;
}

GramU8S8Fn gram_u8s8_neon() { return neon_dotprod() ? gram_u8s8_neon_impl : nullptr; }

PackU8S8Fn pack_u8s8_neon() { return pack_u8s8_neon_impl; }

#else
bool neon_dotprod() { return false; }
const GramI16Kernels* gram_i16_neon() { return nullptr; }
GramU8S8Fn gram_u8s8_neon() { return nullptr; }
PackU8S8Fn pack_u8s8_neon() { return nullptr; }
#endif

}  // namespace strata::backend::cpu
