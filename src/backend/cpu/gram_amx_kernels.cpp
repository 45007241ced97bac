// AMX forms of the int16 Gram kernels (gram_int_kernels.hpp): the same exact integer sums, so
// the same bits as the VNNI and portable kernels.
//
// AMX multiplies byte tiles: TDPB**D adds A (16 rows × 64 bytes) times B (64 × 16, stored as
// 16 rows of 4-byte groups: row r holds k = 4r..4r+3 of each of 16 columns) into 16 × 16 int32,
// 16,384 multiply-adds per instruction, ~32 times one vpdpwssd. The int16 dense operand v is
// split into limbs v = 256·hi + lo (lo unsigned, hi signed); each limb times the 2-bit codes is
// an exact int32 sum, and the two are joined in int64 (times) or int32 (t_times, whose sums the
// contract bounds).
//  - times: C (16 variants × 16 columns) = decoded codes (A, one row per variant, 64 samples)
//    · Q̃ limbs (B, packed once per pass from Qᵀ with a 16 × 16 dword transpose).
//  - t_times: C (16 columns × 16 samples) = T̃ᵀ limbs (A, 64 variants per row, packed once per
//    group from the interleaved row pairs) · codes (B, 4 variants' codes per sample, built per
//    call).
// Eight tiles: four accumulators (two row or sample blocks × two limbs), two A, two B.
// The file also holds the exact GRM's u8 × s8 tile product (gram_u8s8_amx, Backend::
// gram_panels_u8s8): the VNNI kernel's sums on TDPBSUD (its section below).
#include "backend/cpu/gram_int_kernels.hpp"
#include "backend/cpu/gram_vnni_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#if defined(__x86_64__) && defined(__linux__) && (defined(__GNUC__) || defined(__clang__))
#if defined(__GNUC__) && !defined(__clang__)
// GCC 12 flags the intrinsics' own `__Y = __Y` placeholders in the unpacks.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <cpuid.h>
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>
#define STRATA_GRAM_AMX 1
#endif

namespace strata::backend::cpu {

#ifdef STRATA_GRAM_AMX
namespace {

#define STRATA_AMX __attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi,amx-tile,amx-int8")))

// Samples per chunk of times_amx: a 96-row tile's decoded codes (48 KB) and the chunk's Q̃
// blocks (2 limbs × 512 samples × 16 columns per column tile) are read from L1/L2 by every
// row and column block.
constexpr int64_t kChunk = 512;

struct alignas(64) TileConfig {
  uint8_t palette = 1;
  uint8_t start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t colsb[16] = {};
  uint8_t rows[16] = {};
};

// Tiles 0–3 accumulate, 4–5 hold A, 6–7 hold B; all 64 bytes wide, B 16 rows, A and the
// accumulators `m` rows (a TDP's time grows with its rows: t_times runs a last column tile of
// 8 columns as 8 rows instead of 16 with 8 zero).
STRATA_AMX inline void configure_tiles(int m = 16) {
  TileConfig cfg;
  for (int t = 0; t < 8; ++t) cfg.colsb[t] = 64, cfg.rows[t] = static_cast<uint8_t>(t < 6 ? m : 16);
  _tile_loadconfig(&cfg);
}

// Tile rows at 64-byte boundaries never straddle cache lines.
template <class T>
T* align64(T* p) {
  return p + (64 - reinterpret_cast<uintptr_t>(p) % 64) % 64;
}
// A 64-byte-aligned scratch buffer per thread.
uint8_t* scratch(std::vector<uint8_t>& v, int64_t bytes) {
  if (static_cast<int64_t>(v.size()) < bytes + 64) v.resize(static_cast<size_t>(bytes + 64));
  return align64(v.data());
}

// 16 × 16 dword transpose in registers: x[r] becomes what column r was.
STRATA_AMX inline void transpose4_dwords(__m512i& a0, __m512i& a1, __m512i& a2, __m512i& a3) {
  const __m512i t0 = _mm512_unpacklo_epi32(a0, a1), t1 = _mm512_unpackhi_epi32(a0, a1);
  const __m512i t2 = _mm512_unpacklo_epi32(a2, a3), t3 = _mm512_unpackhi_epi32(a2, a3);
  a0 = _mm512_unpacklo_epi64(t0, t2);
  a1 = _mm512_unpackhi_epi64(t0, t2);
  a2 = _mm512_unpacklo_epi64(t1, t3);
  a3 = _mm512_unpackhi_epi64(t1, t3);
}
STRATA_AMX inline void transpose4_lanes(__m512i& b0, __m512i& b1, __m512i& b2, __m512i& b3) {
  const __m512i t0 = _mm512_shuffle_i32x4(b0, b1, 0x44), t1 = _mm512_shuffle_i32x4(b0, b1, 0xEE);
  const __m512i t2 = _mm512_shuffle_i32x4(b2, b3, 0x44), t3 = _mm512_shuffle_i32x4(b2, b3, 0xEE);
  b0 = _mm512_shuffle_i32x4(t0, t2, 0x88);
  b1 = _mm512_shuffle_i32x4(t0, t2, 0xDD);
  b2 = _mm512_shuffle_i32x4(t1, t3, 0x88);
  b3 = _mm512_shuffle_i32x4(t1, t3, 0xDD);
}
STRATA_AMX inline void transpose16_dwords(__m512i x[16]) {
  for (int g = 0; g < 4; ++g) transpose4_dwords(x[4 * g], x[4 * g + 1], x[4 * g + 2], x[4 * g + 3]);
  for (int j = 0; j < 4; ++j) transpose4_lanes(x[j], x[4 + j], x[8 + j], x[12 + j]);
}

// Byte k of the limbs of 64 int16 held in (a, b): lo = byte 2k, hi = byte 2k + 1.
STRATA_AMX inline __m512i limb_index(int limb) {
  alignas(64) uint8_t idx[64];
  for (int k = 0; k < 64; ++k) idx[k] = static_cast<uint8_t>(2 * k + limb);
  return _mm512_load_si512(idx);
}

// Codes to bytes: vpermb puts in each output byte a source byte holding its code, within the
// output byte's qword; the multishift brings the code's two bits to the bottom; the AND keeps
// them. `layout(j)` gives output byte j's source byte and bit offset in its qword.
struct CodeSpreader {
  __m512i perm, shift, mask;
  template <class Layout>
  STRATA_AMX explicit CodeSpreader(Layout layout) {
    alignas(64) uint8_t p[64], s[64];
    for (int j = 0; j < 64; ++j) {
      const auto [source, offset] = layout(j);
      p[j] = static_cast<uint8_t>(source);
      s[j] = static_cast<uint8_t>(offset);
    }
    perm = _mm512_load_si512(p);
    shift = _mm512_load_si512(s);
    mask = _mm512_set1_epi8(3);
  }
  STRATA_AMX __m512i operator()(__m128i packed) const {
    const __m512i spread = _mm512_permutexvar_epi8(perm, _mm512_castsi128_si512(packed));
    return _mm512_and_si512(_mm512_multishift_epi64_epi8(shift, spread), mask);
  }
};
struct SourceBit {
  int source, offset;
};

// 16 packed bytes (64 codes) → 64 code bytes, byte j = code j (source byte j / 4, which the
// spread puts at byte j % 8 of the qword).
STRATA_AMX inline CodeSpreader row_expander() {
  return CodeSpreader([](int j) { return SourceBit{j / 4, 8 * (j % 8) + 2 * (j % 4)}; });
}
// 4 dwords (16 codes each, of variants v = 0..3) → 64 bytes, byte 4n + v = code n of variant v:
// the B layout of t_times. Output byte j = 8q + t is sample n = 2q + t / 4 of variant t % 4,
// whose code is in byte q / 2 of that dword, at bit 2·(n % 4).
STRATA_AMX inline CodeSpreader quad_expander() {
  return CodeSpreader([](int j) {
    const int q = j / 8, t = j % 8;
    return SourceBit{4 * (t % 4) + q / 2, 8 * t + 4 * (q % 2) + 2 * (t / 4)};
  });
}

STRATA_AMX inline __mmask64 byte_mask(int64_t n) { return n >= 64 ? ~__mmask64{0} : (__mmask64{1} << n) - 1; }
STRATA_AMX inline __mmask32 word_mask(int64_t n) {
  return n >= 32 ? ~__mmask32{0} : n <= 0 ? 0 : static_cast<__mmask32>((uint64_t{1} << n) - 1);
}

// B tiles of times for samples [n0, n0 + len): [t][kb][limb] 1 KB each, row r = samples
// 4r..4r+3 of the block as 4 bytes per column 16t + c; columns ≥ w and samples ≥ len are zero.
STRATA_AMX void pack_q(const int16_t* qt, int64_t ldq, int64_t w, int64_t n0, int64_t len, int64_t kbs,
                       uint8_t* out) {
  const int64_t ct = (w + 15) / 16;
  for (int limb = 0; limb < 2; ++limb) {
    const __m512i idx = limb_index(limb);
    for (int64_t t = 0; t < ct; ++t)
      for (int64_t kb = 0; kb < kbs; ++kb) {
        const int64_t s0 = n0 + 64 * kb, left = len - 64 * kb;
        __m512i x[16];
        for (int c = 0; c < 16; ++c) {
          const int64_t col = 16 * t + c;
          if (col >= w) {
            x[c] = _mm512_setzero_si512();
            continue;
          }
          const int16_t* src = qt + col * ldq + s0;
          const __m512i a = _mm512_maskz_loadu_epi16(word_mask(left), src);
          const __m512i b = _mm512_maskz_loadu_epi16(word_mask(left - 32), src + 32);
          x[c] = _mm512_permutex2var_epi8(a, idx, b);
        }
        transpose16_dwords(x);
        uint8_t* dst = out + ((t * kbs + kb) * 2 + limb) * 1024;
        for (int r = 0; r < 16; ++r) _mm512_store_si512(dst + 64 * r, x[r]);
      }
  }
}

// A tiles of times: [rb][kb] 1 KB each, row i = the 64 codes of variant 16·rb + i (zero rows
// past `rows`, zero codes past len).
STRATA_AMX void decode_rows(const uint8_t* codes, int64_t stride, int64_t rows, int64_t n0, int64_t len, int64_t kbs,
                            uint8_t* out) {
  const CodeSpreader expand = row_expander();
  const int64_t rbs = (rows + 15) / 16;
  // The next chunk of every row (a separate stream per row: more than the prefetchers track).
  for (int64_t row = 0; row < rows; ++row) {
    const uint8_t* r = codes + row * stride + (n0 + len) / 4;
    _mm_prefetch(reinterpret_cast<const char*>(r), _MM_HINT_T1);
    _mm_prefetch(reinterpret_cast<const char*>(r + 64), _MM_HINT_T1);
  }
  for (int64_t rb = 0; rb < rbs; ++rb)
    for (int64_t kb = 0; kb < kbs; ++kb) {
      uint8_t* dst = out + (rb * kbs + kb) * 1024;
      const __mmask16 m = static_cast<__mmask16>(byte_mask((len - 64 * kb) / 4));
      for (int64_t i = 0; i < 16; ++i) {
        const int64_t row = 16 * rb + i;
        const __m512i v = row < rows ? expand(_mm_maskz_loadu_epi8(m, codes + row * stride + (n0 + 64 * kb) / 4))
                                     : _mm512_setzero_si512();
        _mm512_store_si512(dst + 64 * i, v);
      }
    }
}

// p rows [16·rb, +16) of column tile t += lo + 256·hi from two stored accumulators.
void add_times_tile(const int32_t* lo, const int32_t* hi, int64_t rows, int64_t rb, int64_t t, int64_t w, int64_t* p) {
  const int64_t nr = std::min<int64_t>(16, rows - 16 * rb), nc = std::min<int64_t>(16, w - 16 * t);
  for (int64_t i = 0; i < nr; ++i)
    for (int64_t c = 0; c < nc; ++c)
      p[(16 * rb + i) * w + 16 * t + c] += int64_t{lo[16 * i + c]} + 256 * int64_t{hi[16 * i + c]};
}

// Q̃ packed for every tile of a pass: [t][kb][limb] over all of n32 (pack_q's layout).
STRATA_AMX std::vector<uint8_t> pack_times_amx(const int16_t* qt, int64_t ldq, int64_t w, int64_t n32) {
  const int64_t ct = (w + 15) / 16, kbs = (n32 + 63) / 64;
  std::vector<uint8_t> out(static_cast<size_t>(ct * kbs * 2048 + 64));
  pack_q(qt, ldq, w, 0, n32, kbs, align64(out.data()));
  return out;
}

// The accumulators live in `acc` ([rb][t][limb], 1 KB each) between chunks, so a chunk's
// decoded codes and Q̃ blocks stay in L1 while every row and column block passes over them;
// they are added to p when the int32 sums could next overflow (every kFlush samples) and at
// the end.
constexpr int64_t kFlush = int64_t{1} << 20;  // 3·255·2²⁰ < 2³¹

// One column tile of a row block (two with kPair) over kbs 64-sample blocks: accumulators
// c0/c1 ([limb] 1 KB each) loaded, advanced by decoded codes a0/a1 times the Q̃ limbs b
// ([kb][limb]), stored back.
template <bool kPair>
STRATA_AMX inline void times_blocks(uint8_t* c0, uint8_t* c1, const uint8_t* a0, const uint8_t* a1, const uint8_t* b,
                                    int64_t kbs) {
  _tile_loadd(0, c0, 64);
  _tile_loadd(1, c0 + 1024, 64);
  if constexpr (kPair) {
    _tile_loadd(2, c1, 64);
    _tile_loadd(3, c1 + 1024, 64);
  }
  for (int64_t kb = 0; kb < kbs; ++kb) {
    _tile_loadd(4, a0 + kb * 1024, 64);
    _tile_loadd(6, b + kb * 2048, 64);
    _tile_loadd(7, b + kb * 2048 + 1024, 64);
    _tile_dpbuud(0, 4, 6);
    _tile_dpbusd(1, 4, 7);
    if constexpr (kPair) {
      _tile_loadd(5, a1 + kb * 1024, 64);
      _tile_dpbuud(2, 5, 6);
      _tile_dpbusd(3, 5, 7);
    }
  }
  _tile_stored(0, c0, 64);
  _tile_stored(1, c0 + 1024, 64);
  if constexpr (kPair) {
    _tile_stored(2, c1, 64);
    _tile_stored(3, c1 + 1024, 64);
  }
}

STRATA_AMX void times_amx(const uint8_t* codes, int64_t stride, int64_t rows, int64_t n32, const int16_t* qt,
                          int64_t ldq, int64_t w, int64_t* p, const uint8_t* packed) {
  thread_local std::vector<uint8_t> qbuf, abuf, cbuf;
  const int64_t ct = (w + 15) / 16, rbs = (rows + 15) / 16, all_kbs = (n32 + 63) / 64;
  uint8_t* acc = scratch(cbuf, rbs * ct * 2048);
  std::memset(acc, 0, static_cast<size_t>(rbs * ct * 2048));
  const auto flush = [&] {
    for (int64_t rb = 0; rb < rbs; ++rb)
      for (int64_t t = 0; t < ct; ++t) {
        auto* c = reinterpret_cast<int32_t*>(acc + (rb * ct + t) * 2048);
        add_times_tile(c, c + 256, rows, rb, t, w, p);
      }
    std::memset(acc, 0, static_cast<size_t>(rbs * ct * 2048));
  };
  configure_tiles();
  int64_t since_flush = 0;
  for (int64_t n0 = 0; n0 < n32; n0 += kChunk) {
    const int64_t len = std::min(kChunk, n32 - n0), kbs = (len + 63) / 64;
    // B blocks of this chunk: column tile t at qb + t·qstride.
    const uint8_t* qb;
    int64_t qstride;
    if (packed) {
      qb = align64(packed) + (n0 / 64) * 2048;
      qstride = all_kbs * 2048;
    } else {
      uint8_t* q = scratch(qbuf, ct * kbs * 2048);
      pack_q(qt, ldq, w, n0, len, kbs, q);
      qb = q;
      qstride = kbs * 2048;
    }
    uint8_t* a = scratch(abuf, rbs * kbs * 1024);
    decode_rows(codes, stride, rows, n0, len, kbs, a);
    for (int64_t t = 0; t < ct; ++t) {
      int64_t rb = 0;
      for (; rb + 2 <= rbs; rb += 2)
        times_blocks<true>(acc + (rb * ct + t) * 2048, acc + ((rb + 1) * ct + t) * 2048, a + rb * kbs * 1024,
                           a + (rb + 1) * kbs * 1024, qb + t * qstride, kbs);
      if (rb < rbs)
        times_blocks<false>(acc + (rb * ct + t) * 2048, nullptr, a + rb * kbs * 1024, nullptr, qb + t * qstride, kbs);
    }
    since_flush += len;
    if (since_flush >= kFlush) flush(), since_flush = 0;
  }
  _tile_release();
  flush();
}

// A tiles of t_times: [t][kb][limb] 1 KB each, row c = limb of y(64·kb + k, 16t + c) for the
// 64 variants k of the block (zero past `rows` and past w). Pair row p of wpairs is w dwords,
// dword c = (y(2p, c), y(2p + 1, c)); a 16 × 16 dword transpose of 16 pair rows gives 32
// variants of 16 columns.
STRATA_AMX void pack_t(const int16_t* wpairs, int64_t rows, int64_t w, int64_t kbs, uint8_t* out) {
  const int64_t ct = (w + 15) / 16, pairs = (rows + 1) / 2;
  const auto* pw = reinterpret_cast<const int32_t*>(wpairs);
  const __m512i lo_idx = limb_index(0), hi_idx = limb_index(1);
  alignas(64) int32_t half[2][16][16];
  for (int64_t t = 0; t < ct; ++t) {
    const __mmask16 cm = static_cast<__mmask16>(byte_mask(std::min<int64_t>(16, w - 16 * t)));
    for (int64_t kb = 0; kb < kbs; ++kb) {
      for (int h = 0; h < 2; ++h) {
        __m512i x[16];
        for (int m = 0; m < 16; ++m) {
          const int64_t pr = 32 * kb + 16 * h + m;
          x[m] = pr < pairs ? _mm512_maskz_loadu_epi32(cm, pw + pr * w + 16 * t) : _mm512_setzero_si512();
        }
        transpose16_dwords(x);
        for (int c = 0; c < 16; ++c) _mm512_store_si512(half[h][c], x[c]);
      }
      uint8_t* dst = out + (t * kbs + kb) * 2048;
      for (int c = 0; c < 16; ++c) {
        const __m512i a = _mm512_load_si512(half[0][c]), b = _mm512_load_si512(half[1][c]);
        _mm512_store_si512(dst + 64 * c, _mm512_permutex2var_epi8(a, lo_idx, b));
        _mm512_store_si512(dst + 1024 + 64 * c, _mm512_permutex2var_epi8(a, hi_idx, b));
      }
    }
  }
}

// B rows of t_times: quad q (variants 4q..4q+3) and sample block sb at out + (q·sbs + sb)·64,
// byte 4n + j = code of variant 4q + j at sample 16·sb + n; variants past `rows` are zero.
STRATA_AMX void build_quads(const uint8_t* codes, int64_t stride, int64_t rows, int64_t sbs, int64_t quads,
                            uint8_t* out) {
  const CodeSpreader expand = quad_expander();
  const int64_t bytes = 4 * sbs;  // packed bytes of the slice per variant
  // Rows are `stride` apart (a page or more for large cohorts), beyond what the hardware
  // prefetchers follow: fetch the rows of a quad kAhead quads early.
  constexpr int64_t kAhead = 8;
  for (int64_t q = 0; q < quads; ++q) {
    for (int64_t row = 4 * (q + kAhead); row < std::min(rows, 4 * (q + kAhead + 1)); ++row) {
      const uint8_t* r = codes + row * stride;
      for (int64_t b = 0; b < bytes; b += 64) _mm_prefetch(reinterpret_cast<const char*>(r + b), _MM_HINT_T0);
      _mm_prefetch(reinterpret_cast<const char*>(r + bytes - 1), _MM_HINT_T0);
    }
    for (int64_t b0 = 0; b0 < bytes; b0 += 16) {
      const __mmask16 m = static_cast<__mmask16>(byte_mask(std::min<int64_t>(16, bytes - b0)));
      __m128i v[4];
      for (int j = 0; j < 4; ++j) {
        const int64_t row = 4 * q + j;
        v[j] = row < rows ? _mm_maskz_loadu_epi8(m, codes + row * stride + b0) : _mm_setzero_si128();
      }
      // 4 × 4 dword transpose: s[k] = dword k (samples 16k..16k+15 of this run) of each variant.
      const __m128i t0 = _mm_unpacklo_epi32(v[0], v[1]), t1 = _mm_unpackhi_epi32(v[0], v[1]);
      const __m128i t2 = _mm_unpacklo_epi32(v[2], v[3]), t3 = _mm_unpackhi_epi32(v[2], v[3]);
      const __m128i s[4] = {_mm_unpacklo_epi64(t0, t2), _mm_unpackhi_epi64(t0, t2), _mm_unpacklo_epi64(t1, t3),
                            _mm_unpackhi_epi64(t1, t3)};
      const int64_t sb0 = b0 / 4;
      for (int64_t k = 0; k < 4 && sb0 + k < sbs; ++k)
        _mm512_store_si512(out + (q * sbs + sb0 + k) * 64, expand(s[k]));
    }
  }
}

// zt columns [16t, +16) at sample block sb += lo + 256·hi.
void add_t_tile(const int32_t* lo, const int32_t* hi, int64_t t, int64_t sb, int64_t w, int32_t* zt, int64_t ldz) {
  const int64_t nc = std::min<int64_t>(16, w - 16 * t);
  for (int64_t c = 0; c < nc; ++c) {
    int32_t* z = zt + (16 * t + c) * ldz + 16 * sb;
    for (int n = 0; n < 16; ++n) z[n] += lo[16 * c + n] + 256 * hi[16 * c + n];
  }
}

// T̃ packed once for every slice of a group: [t][kb][limb] (pack_t's layout).
STRATA_AMX std::vector<uint8_t> pack_t_times_amx(const int16_t* wpairs, int64_t rows, int64_t w) {
  const int64_t ct = (w + 15) / 16, kbs = (rows + 63) / 64;
  std::vector<uint8_t> out(static_cast<size_t>(ct * kbs * 2048 + 64));
  pack_t(wpairs, rows, w, kbs, align64(out.data()));
  return out;
}

// Column tile `at` ([kb][limb]) times sample block sb (and sb + 1 with kPair) of the quads `b`
// over kbs 64-variant blocks, added to zt.
template <bool kPair>
STRATA_AMX inline void t_times_blocks(const uint8_t* at, const uint8_t* b, int64_t sbs, int64_t kbs, int64_t t,
                                      int64_t sb, int64_t w, int32_t* zt, int64_t ldz) {
  const int64_t bstride = sbs * 64;  // bytes between B tile rows (consecutive quads)
  alignas(64) int32_t c[4][256];
  _tile_zero(0);
  _tile_zero(1);
  if constexpr (kPair) {
    _tile_zero(2);
    _tile_zero(3);
  }
  for (int64_t kb = 0; kb < kbs; ++kb) {
    const uint8_t* bt = b + (16 * kb * sbs + sb) * 64;
    _tile_loadd(4, at + kb * 2048, 64);
    _tile_loadd(5, at + kb * 2048 + 1024, 64);
    _tile_loadd(6, bt, bstride);
    _tile_dpbuud(0, 4, 6);
    _tile_dpbsud(1, 5, 6);
    if constexpr (kPair) {
      _tile_loadd(7, bt + 64, bstride);
      _tile_dpbuud(2, 4, 7);
      _tile_dpbsud(3, 5, 7);
    }
  }
  _tile_stored(0, c[0], 64);
  _tile_stored(1, c[1], 64);
  add_t_tile(c[0], c[1], t, sb, w, zt, ldz);
  if constexpr (kPair) {
    _tile_stored(2, c[2], 64);
    _tile_stored(3, c[3], 64);
    add_t_tile(c[2], c[3], t, sb + 1, w, zt, ldz);
  }
}

STRATA_AMX void t_times_amx(const uint8_t* codes, int64_t stride, int64_t rows, int64_t len, const int16_t* wpairs,
                            int64_t w, int32_t* zt, int64_t ldz, const uint8_t* packed) {
  thread_local std::vector<uint8_t> tbuf, bbuf;
  const int64_t ct = (w + 15) / 16, kbs = (rows + 63) / 64, sbs = len / 16, quads = 16 * kbs;
  if (rows <= 0 || sbs <= 0) return;
  const uint8_t* a = packed ? align64(packed) : nullptr;
  if (!a) {
    uint8_t* t = scratch(tbuf, ct * kbs * 2048);
    pack_t(wpairs, rows, w, kbs, t);
    a = t;
  }
  uint8_t* b = scratch(bbuf, quads * sbs * 64);
  build_quads(codes, stride, rows, sbs, quads, b);
  configure_tiles();
  for (int64_t t = 0; t < ct; ++t) {
    if (w - 16 * t <= 8) configure_tiles(8);  // only the last column tile can be this narrow
    const uint8_t* at = a + t * kbs * 2048;
    int64_t sb = 0;
    for (; sb + 2 <= sbs; sb += 2) t_times_blocks<true>(at, b, sbs, kbs, t, sb, w, zt, ldz);
    if (sb < sbs) t_times_blocks<false>(at, b, sbs, kbs, t, sb, w, zt, ldz);
  }
  _tile_release();
}

// ---- The GRM's exact-integer tile product (Backend::gram_panels_u8s8) ------------------------
// C (16 row samples i × 16 column samples j, one tile per limb) += limbs (A: s8, row = sample i,
// 64 bytes = 16 quads × 4 variants) · codes (B: u8, row = quad, 16 samples × 4 variants, read
// straight from the codes panel at its 128-byte quad stride) with TDPBSUD. The limbs panel is
// quad-major, so the A tiles of each pair of row blocks are transposed once per call. Three
// limb accumulators for each of two row blocks, one A and one B tile: all eight tiles. C's rows
// are acc's, so the join needs no transpose. The int32 sums are the VNNI kernel's (the same
// bound: at most kVnniMaxRun variants per call), joined and added to acc the same way.

constexpr int64_t kGrmGroup = 32;                   // samples per panel group (kVnniGroup)
constexpr int64_t kGrmCodeQuad = 4 * kGrmGroup;     // bytes of one quad of a codes group
constexpr int64_t kGrmLimbQuad = 3 * kGrmCodeQuad;  // bytes of one quad of a limbs group

// A tiles of row samples [i0, i0 + 16): [kb][limb] 1 KB each, row s = limb l of sample i0 + s for
// quads 16·kb … 16·kb + 15 (zero past `quads`).
STRATA_AMX void transpose_limbs(const uint8_t* b, int64_t quads, int64_t i0, int64_t kbs, uint8_t* out) {
  const uint8_t* g = b + (i0 / kGrmGroup) * quads * kGrmLimbQuad + (i0 % kGrmGroup) * 4;
  for (int64_t kb = 0; kb < kbs; ++kb)
    for (int l = 0; l < 3; ++l) {
      __m512i x[16];
      for (int r = 0; r < 16; ++r) {
        const int64_t q = 16 * kb + r;
        x[r] = q < quads ? _mm512_loadu_si512(g + q * kGrmLimbQuad + l * kGrmCodeQuad) : _mm512_setzero_si512();
      }
      transpose16_dwords(x);
      for (int r = 0; r < 16; ++r) _mm512_store_si512(out + (3 * kb + l) * 1024 + 64 * r, x[r]);
    }
}

// acc[i·ldacc + j] += scale · (l0 + 128·l1 + 16384·l2) for the stored tiles c[l] (C[i][j]) of
// row block i0 and column block j0, within rows × cols (mode 1: j ≤ i only): joined exactly in
// float64 and added with one fused multiply-add per entry, as the VNNI kernel's flush (scale is
// a power of two: the product is exact).
STRATA_AMX void add_grm_tile(const int32_t (*c)[256], int64_t i0, int64_t j0, int64_t rows, int64_t cols, int mode,
                             double scale, double* acc, int64_t ldacc) {
  const __m512d sc = _mm512_set1_pd(scale), k128 = _mm512_set1_pd(128.0), k16384 = _mm512_set1_pd(16384.0);
  for (int64_t si = 0; si < 16 && i0 + si < rows; ++si) {
    const int64_t i = i0 + si, jend = std::min<int64_t>(16, (mode == 0 ? cols : std::min(cols, i + 1)) - j0);
    if (jend <= 0) continue;
    double* out = acc + i * ldacc + j0;
    for (int h = 0; h < 2 && 8 * h < jend; ++h) {
      __m512d v[3];
      for (int l = 0; l < 3; ++l)
        v[l] = _mm512_cvtepi32_pd(_mm256_load_si256(reinterpret_cast<const __m256i*>(c[l] + 16 * si + 8 * h)));
      const __m512d d = _mm512_fmadd_pd(v[2], k16384, _mm512_fmadd_pd(v[1], k128, v[0]));
      const int64_t n = std::min<int64_t>(8, jend - 8 * h);
      const __mmask8 m = static_cast<__mmask8>((1u << n) - 1);
      _mm512_mask_storeu_pd(out + 8 * h, m, _mm512_fmadd_pd(d, sc, _mm512_maskz_loadu_pd(m, out + 8 * h)));
    }
  }
}

// Accumulators a0, a1, a2 += the three limbs' A tiles at a (1 KB apart), each through tile 6,
// times B (tile 7). A macro: GCC's tile intrinsics paste the tile number into the instruction
// text, so it must be a literal.
#define STRATA_GRM_LIMBS(a, a0, a1, a2) \
  do {                                   \
    _tile_loadd(6, (a), 64);             \
    _tile_dpbsud(a0, 6, 7);              \
    _tile_loadd(6, (a) + 1024, 64);      \
    _tile_dpbsud(a1, 6, 7);              \
    _tile_loadd(6, (a) + 2048, 64);      \
    _tile_dpbsud(a2, 6, 7);              \
  } while (0)

// Row blocks with A tiles at0 (and at1 with kPair; [kb][limb]) against the column block whose B
// tiles start at `bj` (quads 128 bytes apart) over kbs quad blocks; the last, partial block
// (from `full` on) takes its B tile from `tail`.
template <bool kPair>
STRATA_AMX void grm_blocks(const uint8_t* at0, const uint8_t* at1, const uint8_t* bj, const uint8_t* tail,
                           int64_t full, int64_t kbs, int32_t (*c)[256]) {
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  if constexpr (kPair) {
    _tile_zero(3);
    _tile_zero(4);
    _tile_zero(5);
  }
  for (int64_t kb = 0; kb < kbs; ++kb) {
    if (kb < full) _tile_loadd(7, bj + kb * 16 * kGrmCodeQuad, kGrmCodeQuad);
    else _tile_loadd(7, tail, 64);
    STRATA_GRM_LIMBS(at0 + kb * 3072, 0, 1, 2);
    if constexpr (kPair) STRATA_GRM_LIMBS(at1 + kb * 3072, 3, 4, 5);
  }
  _tile_stored(0, c[0], 64);
  _tile_stored(1, c[1], 64);
  _tile_stored(2, c[2], 64);
  if constexpr (kPair) {
    _tile_stored(3, c[3], 64);
    _tile_stored(4, c[4], 64);
    _tile_stored(5, c[5], 64);
  }
}

#undef STRATA_GRM_LIMBS

STRATA_AMX void gram_u8s8_amx_impl(const uint8_t* a, const int8_t* b, int64_t quads, int64_t rows, int64_t cols,
                                   int mode, double scale, double* acc, int64_t ldacc) {
  if (quads <= 0 || rows <= 0 || cols <= 0) return;
  thread_local std::vector<uint8_t> abuf, tbuf;
  const int64_t kbs = (quads + 15) / 16, full = quads / 16, jbs = (cols + 15) / 16, ibs = (rows + 15) / 16;
  uint8_t* at = scratch(abuf, 2 * kbs * 3072);  // A tiles of the current pair of row blocks
  // The last, partial quad block of every column block's codes, copied into zero-padded B
  // tiles (1 KB each), so no tile load reads past the panel.
  uint8_t* tails = scratch(tbuf, jbs * 1024);
  if (full < kbs) {
    std::memset(tails, 0, static_cast<size_t>(jbs * 1024));
    for (int64_t jb = 0; jb < jbs; ++jb) {
      const int64_t j0 = 16 * jb;
      const uint8_t* g = a + (j0 / kGrmGroup) * quads * kGrmCodeQuad + (j0 % kGrmGroup) * 4;
      for (int64_t q = 16 * full; q < quads; ++q)
        std::memcpy(tails + jb * 1024 + (q - 16 * full) * 64, g + q * kGrmCodeQuad, 64);
    }
  }
  const auto* limbs = reinterpret_cast<const uint8_t*>(b);
  configure_tiles();
  alignas(64) int32_t c[6][256];
  for (int64_t ib = 0; ib < ibs; ib += 2) {
    const bool pair = ib + 1 < ibs;
    transpose_limbs(limbs, quads, 16 * ib, kbs, at);
    if (pair) transpose_limbs(limbs, quads, 16 * (ib + 1), kbs, at + kbs * 3072);
    const int64_t i_last = std::min(rows, 16 * (ib + 2)) - 1;
    for (int64_t jb = 0; jb < jbs; ++jb) {
      if (mode == 1 && 16 * jb > i_last) break;  // every j of this block and beyond is past every i
      const int64_t j0 = 16 * jb;
      const uint8_t* bj = a + (j0 / kGrmGroup) * quads * kGrmCodeQuad + (j0 % kGrmGroup) * 4;
      if (pair) grm_blocks<true>(at, at + kbs * 3072, bj, tails + jb * 1024, full, kbs, c);
      else grm_blocks<false>(at, nullptr, bj, tails + jb * 1024, full, kbs, c);
      add_grm_tile(c, 16 * ib, j0, rows, cols, mode, scale, acc, ldacc);
      if (pair) add_grm_tile(c + 3, 16 * (ib + 1), j0, rows, cols, mode, scale, acc, ldacc);
    }
  }
  _tile_release();
}

// AMX needs the CPU's tile and int8 units, the OS saving tile state (XCR0 bits 17–18), and on
// Linux this process's permission to use tile data (granted once, for every thread).
bool have_amx() {
  static const bool ok = [] {
    if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512bw") ||
        !__builtin_cpu_supports("avx512vl") || !__builtin_cpu_supports("avx512vbmi"))
      return false;
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
    if (!(d & (1u << 24)) || !(d & (1u << 25))) return false;  // AMX-TILE, AMX-INT8
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 27))) return false;  // OSXSAVE
    uint32_t lo = 0, hi = 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    if ((lo & (3u << 17)) != (3u << 17)) return false;
    constexpr long kReqXcompPerm = 0x1023, kXfeatureXtiledata = 18;
    return syscall(SYS_arch_prctl, kReqXcompPerm, kXfeatureXtiledata) == 0;
  }();
  return ok;
}

}  // namespace
#endif

GramU8S8Fn gram_u8s8_amx() {
#ifdef STRATA_GRAM_AMX
  return have_amx() ? gram_u8s8_amx_impl : nullptr;
#else
  return nullptr;
#endif
}

const GramI16Kernels* gram_i16_amx() {
#ifdef STRATA_GRAM_AMX
  static const GramI16Kernels k{times_amx, t_times_amx, pack_times_amx, pack_t_times_amx};
  return have_amx() ? &k : nullptr;
#else
  return nullptr;
#endif
}

}  // namespace strata::backend::cpu
