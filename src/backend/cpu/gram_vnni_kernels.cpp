// Exact-integer GRM tile kernels: register blocks of 4 rows × 32 columns × 3 limbs of int32
// sums (vpdpbusd: 4 variants of u8 codes against 4 of s8 limb values per lane), joined in
// float64 (exact: the call's run is at most kVnniMaxRun variants) and added to the float64
// accumulators as scale · sum. Panels are packed by sample groups of 32:
//   codes (columns):  group g at g·quads·128 bytes, [quad][sample 0..31][variant 0..3] (u8)
//   limbs (rows):     group g at g·quads·384 bytes, [quad][limb 0..2][sample 0..31][variant 0..3]
// with limb l of sample i and variant v = g_iv · l_l(W_v), W_v = Σ_l l_l·128^l.
#include "backend/cpu/gram_vnni_kernels.hpp"
#include "backend/cpu/x86_intrinsics_internal.hpp"

#include <algorithm>

namespace strata::backend::cpu {
namespace {

constexpr int64_t kRows = 4;                            // rows per register block
constexpr int64_t kCodeQuad = kVnniGroup * 4;           // bytes of one quad of a codes group
constexpr int64_t kLimbQuad = kVnniLimbs * kCodeQuad;   // bytes of one quad of a limbs group

inline int64_t column_limit(int mode, int64_t i, int64_t cols) { return mode == 0 ? cols : std::min(cols, i + 1); }
inline int64_t first_row_block(int mode, int64_t j0) { return mode == 0 ? 0 : j0 / kRows * kRows; }

}  // namespace

void gram_u8s8_portable(const uint8_t* a, const int8_t* b, int64_t quads, int64_t rows, int64_t cols, int mode,
                        double scale, double* acc, int64_t ldacc) {
  for (int64_t i = 0; i < rows; ++i) {
    const int8_t* bg = b + (i / kVnniGroup) * quads * kLimbQuad + (i % kVnniGroup) * 4;
    const int64_t lim = column_limit(mode, i, cols);
    for (int64_t j = 0; j < lim; ++j) {
      const uint8_t* ag = a + (j / kVnniGroup) * quads * kCodeQuad + (j % kVnniGroup) * 4;
      int64_t limb[kVnniLimbs] = {0, 0, 0};
      for (int64_t q = 0; q < quads; ++q)
        for (int64_t l = 0; l < kVnniLimbs; ++l)
          for (int t = 0; t < 4; ++t)
            limb[l] += int64_t{ag[q * kCodeQuad + t]} * bg[q * kLimbQuad + l * kCodeQuad + t];
      const int64_t s = limb[0] + limb[1] * 128 + limb[2] * 16384;  // < 2^46: exact as a double
      acc[i * ldacc + j] += scale * static_cast<double>(s);
    }
  }
}

// Table layout of one quad: [0, 16) the code value by 4t + code, [16, 64) limb l's value at
// 16 + 16l by 4t + code, [64, 76) limb l of the centring weight A of variant t at 64 + 4l + t.
void pack_u8s8_portable(const uint8_t* const* rows, const uint8_t* tables, int64_t quads, int64_t n, uint8_t* codes,
                        int8_t* limbs, int64_t* rsum) {
  const int64_t npad = (n + kVnniGroup - 1) / kVnniGroup * kVnniGroup;
  for (int64_t j = 0; j < npad; ++j) rsum[j] = 0;
  for (int64_t q = 0; q < quads; ++q) {
    const uint8_t* tab = tables + q * kVnniTableBytes;
    const auto* a = reinterpret_cast<const int8_t*>(tab + 64);
    for (int64_t j = 0; j < npad; ++j) {
      uint8_t* cd = codes + (j / kVnniGroup) * quads * kCodeQuad + q * kCodeQuad + (j % kVnniGroup) * 4;
      int8_t* lm = limbs + (j / kVnniGroup) * quads * kLimbQuad + q * kLimbQuad + (j % kVnniGroup) * 4;
      for (int t = 0; t < 4; ++t) {
        const int idx = j < n ? 4 * t + ((rows[4 * q + t][j / 4] >> (2 * (j % 4))) & 3) : -1;
        cd[t] = idx < 0 ? 0 : tab[idx];
        for (int64_t l = 0; l < kVnniLimbs; ++l) lm[l * kCodeQuad + t] = idx < 0 ? 0 : int8_t(tab[16 + 16 * l + idx]);
        rsum[j] += int64_t{cd[t]} * (a[t] + 128 * a[4 + t] + 16384 * a[8 + t]);
      }
    }
  }
}

#ifdef STRATA_X86
namespace {

#define STRATA_VNNI_TARGET __attribute__((target("avx512f,avx512bw,avx512vnni")))

// l0 + 128 l1 + 16384 l2 of 8 int32 lanes, exactly, as doubles.
STRATA_VNNI_TARGET inline __m512d join8(__m256i l0, __m256i l1, __m256i l2) {
  const __m512d d = _mm512_fmadd_pd(_mm512_cvtepi32_pd(l1), _mm512_set1_pd(128.0), _mm512_cvtepi32_pd(l0));
  return _mm512_fmadd_pd(_mm512_cvtepi32_pd(l2), _mm512_set1_pd(16384.0), d);
}

// acc[0..lim) += scale · (l0 + 128 l1 + 16384 l2), 16 int32 lanes.
STRATA_VNNI_TARGET inline void flush16(__m512i l0, __m512i l1, __m512i l2, __m512d scale, double* out,
                                       int64_t lim) {
  if (lim <= 0) return;
  const __m512d lo = join8(_mm512_castsi512_si256(l0), _mm512_castsi512_si256(l1), _mm512_castsi512_si256(l2));
  const __m512d hi = join8(_mm512_extracti64x4_epi64(l0, 1), _mm512_extracti64x4_epi64(l1, 1),
                           _mm512_extracti64x4_epi64(l2, 1));
  if (lim >= 16) {
    _mm512_storeu_pd(out, _mm512_fmadd_pd(lo, scale, _mm512_loadu_pd(out)));
    _mm512_storeu_pd(out + 8, _mm512_fmadd_pd(hi, scale, _mm512_loadu_pd(out + 8)));
    return;
  }
  const __mmask8 mlo = lim >= 8 ? __mmask8(0xFF) : __mmask8((1u << lim) - 1);
  _mm512_mask_storeu_pd(out, mlo, _mm512_fmadd_pd(lo, scale, _mm512_maskz_loadu_pd(mlo, out)));
  if (lim <= 8) return;
  const int64_t l2n = lim - 8;
  const __mmask8 mhi = l2n >= 8 ? __mmask8(0xFF) : __mmask8((1u << l2n) - 1);
  _mm512_mask_storeu_pd(out + 8, mhi, _mm512_fmadd_pd(hi, scale, _mm512_maskz_loadu_pd(mhi, out + 8)));
}

STRATA_VNNI_TARGET void gram_u8s8_vnni_impl(const uint8_t* a, const int8_t* b, int64_t quads, int64_t rows,
                                            int64_t cols, int mode, double scale, double* acc, int64_t ldacc) {
  const __m512d sc = _mm512_set1_pd(scale);
  for (int64_t j0 = 0; j0 < cols; j0 += kVnniGroup)
    for (int64_t i0 = first_row_block(mode, j0); i0 < rows; i0 += kRows) {
      const uint8_t* ap = a + (j0 / kVnniGroup) * quads * kCodeQuad;
      const int8_t* bp = b + (i0 / kVnniGroup) * quads * kLimbQuad + (i0 % kVnniGroup) * 4;
      // Named accumulators (an array of them is spilled by GCC 12): row r, limb l, half h.
      __m512i c00 = _mm512_setzero_si512(), c01 = c00, c02 = c00, c10 = c00, c11 = c00, c12 = c00;
      __m512i c20 = c00, c21 = c00, c22 = c00, c30 = c00, c31 = c00, c32 = c00;
      __m512i d00 = c00, d01 = c00, d02 = c00, d10 = c00, d11 = c00, d12 = c00;
      __m512i d20 = c00, d21 = c00, d22 = c00, d30 = c00, d31 = c00, d32 = c00;
      for (int64_t q = 0; q < quads; ++q) {
        const __m512i g0 = _mm512_loadu_si512(ap + q * kCodeQuad), g1 = _mm512_loadu_si512(ap + q * kCodeQuad + 64);
        const int8_t* bq = bp + q * kLimbQuad;
#define STRATA_VNNI_STEP(r, l)                                                                   \
  {                                                                                              \
    const __m512i w = _mm512_set1_epi32(*reinterpret_cast<const int32_t*>(bq + (l) * kCodeQuad + (r) * 4)); \
    c##r##l = _mm512_dpbusd_epi32(c##r##l, g0, w);                                               \
    d##r##l = _mm512_dpbusd_epi32(d##r##l, g1, w);                                               \
  }
        STRATA_VNNI_STEP(0, 0) STRATA_VNNI_STEP(0, 1) STRATA_VNNI_STEP(0, 2)
        STRATA_VNNI_STEP(1, 0) STRATA_VNNI_STEP(1, 1) STRATA_VNNI_STEP(1, 2)
        STRATA_VNNI_STEP(2, 0) STRATA_VNNI_STEP(2, 1) STRATA_VNNI_STEP(2, 2)
        STRATA_VNNI_STEP(3, 0) STRATA_VNNI_STEP(3, 1) STRATA_VNNI_STEP(3, 2)
#undef STRATA_VNNI_STEP
      }
      const __m512i c[kRows][kVnniLimbs][2] = {{{c00, d00}, {c01, d01}, {c02, d02}},
                                               {{c10, d10}, {c11, d11}, {c12, d12}},
                                               {{c20, d20}, {c21, d21}, {c22, d22}},
                                               {{c30, d30}, {c31, d31}, {c32, d32}}};
      for (int64_t r = 0; r < kRows && i0 + r < rows; ++r) {
        const int64_t lim = std::min<int64_t>(column_limit(mode, i0 + r, cols) - j0, kVnniGroup);
        double* out = acc + (i0 + r) * ldacc + j0;
        flush16(c[r][0][0], c[r][1][0], c[r][2][0], sc, out, lim);
        flush16(c[r][0][1], c[r][1][1], c[r][2][1], sc, out + 16, lim - 16);
      }
    }
}

// 64 samples at a time: the 4 rows' 16 code bytes in the four 128-bit lanes; per 16 samples one
// byte permute puts each output qword's source bytes in place, a multishift picks every
// (sample, variant) code, and byte shuffles of the quad's tables give the panels' bytes.
__attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,avx512vbmi"))) void pack_u8s8_vnni_impl(
    const uint8_t* const* rows, const uint8_t* tables, int64_t quads, int64_t n, uint8_t* codes, int8_t* limbs,
    int64_t* rsum) {
  alignas(64) uint8_t perm[4][64], shift[64], tpat[64];
  for (int k = 0; k < 4; ++k)
    for (int p = 0; p < 8; ++p)
      for (int b = 0; b < 8; ++b) perm[k][8 * p + b] = uint8_t(16 * (b % 4) + 4 * k + p / 2);
  for (int p = 0; p < 8; ++p)
    for (int e = 0; e < 2; ++e)
      for (int t = 0; t < 4; ++t) {
        shift[8 * p + 4 * e + t] = uint8_t(8 * t + 2 * (2 * (p % 2) + e));
        tpat[8 * p + 4 * e + t] = uint8_t(4 * t);
      }
  const __m512i ctrl = _mm512_load_si512(shift), tp = _mm512_load_si512(tpat), three = _mm512_set1_epi8(3);
  const __m512i pm[4] = {_mm512_load_si512(perm[0]), _mm512_load_si512(perm[1]), _mm512_load_si512(perm[2]),
                         _mm512_load_si512(perm[3])};
  const int64_t stride_c = quads * kCodeQuad, stride_l = quads * kLimbQuad;
  const int64_t npad = (n + kVnniGroup - 1) / kVnniGroup * kVnniGroup;
  for (int64_t s0 = 0; s0 < npad; s0 += 64) {
    const int64_t valid = std::min<int64_t>(64, n - s0);  // samples of the chunk (≤ 0: padding)
    const int64_t bytes = std::max<int64_t>(0, std::min<int64_t>(16, (valid + 3) / 4));
    const __mmask16 lm = __mmask16((1u << bytes) - 1);
    __m512i ra[4][3];
    for (auto& r : ra) r[0] = r[1] = r[2] = _mm512_setzero_si512();
    for (int64_t q = 0; q < quads; ++q) {
      const uint8_t* tab = tables + q * kVnniTableBytes;
      __m512i data = _mm512_castsi128_si512(_mm_maskz_loadu_epi8(lm, rows[4 * q] + s0 / 4));
      data = _mm512_inserti32x4(data, _mm_maskz_loadu_epi8(lm, rows[4 * q + 1] + s0 / 4), 1);
      data = _mm512_inserti32x4(data, _mm_maskz_loadu_epi8(lm, rows[4 * q + 2] + s0 / 4), 2);
      data = _mm512_inserti32x4(data, _mm_maskz_loadu_epi8(lm, rows[4 * q + 3] + s0 / 4), 3);
      const __m512i tu = _mm512_broadcast_i32x4(_mm_loadu_si128(reinterpret_cast<const __m128i*>(tab)));
      const __m512i t0 = _mm512_broadcast_i32x4(_mm_loadu_si128(reinterpret_cast<const __m128i*>(tab + 16)));
      const __m512i t1 = _mm512_broadcast_i32x4(_mm_loadu_si128(reinterpret_cast<const __m128i*>(tab + 32)));
      const __m512i t2 = _mm512_broadcast_i32x4(_mm_loadu_si128(reinterpret_cast<const __m128i*>(tab + 48)));
      const __m512i a0 = _mm512_set1_epi32(*reinterpret_cast<const int32_t*>(tab + 64));
      const __m512i a1 = _mm512_set1_epi32(*reinterpret_cast<const int32_t*>(tab + 68));
      const __m512i a2 = _mm512_set1_epi32(*reinterpret_cast<const int32_t*>(tab + 72));
      for (int k = 0; k < 4; ++k) {
        const int64_t s = s0 + 16 * k;
        if (s >= npad) break;
        const int64_t sv = std::max<int64_t>(0, std::min<int64_t>(16, n - s));  // valid samples here
        const __mmask64 vm = sv >= 16 ? ~__mmask64(0) : (__mmask64(1) << (4 * sv)) - 1;
        const __m512i x = _mm512_multishift_epi64_epi8(ctrl, _mm512_permutexvar_epi8(pm[k], data));
        const __m512i idx = _mm512_ternarylogic_epi32(x, three, tp, 0xEA);  // (x & 3) | tp
        const __m512i u = _mm512_maskz_shuffle_epi8(vm, tu, idx);
        uint8_t* cd = codes + (s / kVnniGroup) * stride_c + q * kCodeQuad + (s % kVnniGroup) * 4;
        int8_t* lb = limbs + (s / kVnniGroup) * stride_l + q * kLimbQuad + (s % kVnniGroup) * 4;
        _mm512_storeu_si512(cd, u);
        _mm512_storeu_si512(lb, _mm512_maskz_shuffle_epi8(vm, t0, idx));
        _mm512_storeu_si512(lb + kCodeQuad, _mm512_maskz_shuffle_epi8(vm, t1, idx));
        _mm512_storeu_si512(lb + 2 * kCodeQuad, _mm512_maskz_shuffle_epi8(vm, t2, idx));
        ra[k][0] = _mm512_dpbusd_epi32(ra[k][0], u, a0);
        ra[k][1] = _mm512_dpbusd_epi32(ra[k][1], u, a1);
        ra[k][2] = _mm512_dpbusd_epi32(ra[k][2], u, a2);
      }
    }
    for (int k = 0; k < 4 && s0 + 16 * k < npad; ++k) {  // 64-bit lanes: the joined sums may pass 2^31
      const __m512i lo = _mm512_add_epi64(
          _mm512_add_epi64(_mm512_cvtepi32_epi64(_mm512_castsi512_si256(ra[k][0])),
                           _mm512_slli_epi64(_mm512_cvtepi32_epi64(_mm512_castsi512_si256(ra[k][1])), 7)),
          _mm512_slli_epi64(_mm512_cvtepi32_epi64(_mm512_castsi512_si256(ra[k][2])), 14));
      const __m512i hi = _mm512_add_epi64(
          _mm512_add_epi64(_mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(ra[k][0], 1)),
                           _mm512_slli_epi64(_mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(ra[k][1], 1)), 7)),
          _mm512_slli_epi64(_mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(ra[k][2], 1)), 14));
      _mm512_storeu_si512(rsum + s0 + 16 * k, lo);
      _mm512_storeu_si512(rsum + s0 + 16 * k + 8, hi);
    }
  }
}

}  // namespace

PackU8S8Fn pack_u8s8_vnni() {
  static const bool ok = gram_u8s8_vnni() != nullptr && __builtin_cpu_supports("avx512vbmi") &&
                         __builtin_cpu_supports("avx512vl");
  return ok ? pack_u8s8_vnni_impl : nullptr;
}

GramU8S8Fn gram_u8s8_vnni() {
  static const bool ok = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                         __builtin_cpu_supports("avx512vnni");
  return ok ? gram_u8s8_vnni_impl : nullptr;
}
#else
GramU8S8Fn gram_u8s8_vnni() { return nullptr; }
PackU8S8Fn pack_u8s8_vnni() { return nullptr; }
#endif

}  // namespace strata::backend::cpu
