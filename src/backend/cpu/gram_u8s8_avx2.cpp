// The exact-integer GRM kernel (gram_vnni_kernels.hpp) at the avx2-vnni level (`vpdpbusd` on
// ymm) and an AVX2 packer. The sums are the reference's integers, so the bits are the same.
//
// Plain AVX2 (`vpmaddubsw` + `vpmaddwd` with ones + `vpaddd`) forms the same sums without
// saturating — codes are at most 2 · 64 = 128 (u8) and limb bytes g·l with l in [−64, 63] lie
// in [−128, 126], so a `vpmaddubsw` pair lies in [−32768, 32256] — but two pairs do not fit
// int16, so it takes three multiplies per 32 byte products where AVX-VNNI takes one, and it
// lost to the float32 panels (exact PCA 2,000 × 20,000, 1 thread: ~1,380 vs ~930 ms CPU).
#include <algorithm>
#include <cstring>

#include "backend/cpu/gram_vnni_kernels.hpp"
#include "backend/cpu/x86_intrinsics_internal.hpp"

namespace strata::backend::cpu {

#ifdef STRATA_X86
namespace {

constexpr int64_t kCodeQuad = kVnniGroup * 4;          // bytes of one quad of a codes group
constexpr int64_t kLimbQuad = kVnniLimbs * kCodeQuad;  // bytes of one quad of a limbs group

inline int64_t column_limit(int mode, int64_t i, int64_t cols) { return mode == 0 ? cols : std::min(cols, i + 1); }

}  // namespace

#define STRATA_U8S8_NS u8s8_avx_vnni
#define STRATA_U8S8_TARGET __attribute__((target("avx2,fma,avxvnni")))
#define STRATA_U8S8_DOT(acc, x, w) _mm256_dpbusd_avx_epi32(acc, x, w)
#define STRATA_U8S8_COLS 16
#include "backend/cpu/gram_u8s8_256.inc"
#undef STRATA_U8S8_NS
#undef STRATA_U8S8_TARGET
#undef STRATA_U8S8_DOT
#undef STRATA_U8S8_COLS

namespace {

// Two code bytes (8 samples) of row `row` at byte `at`, zero past the row's `bytes`.
inline uint64_t two_bytes(const uint8_t* row, int64_t at, int64_t bytes) {
  if (at + 1 < bytes) {
    uint16_t v;
    std::memcpy(&v, row + at, 2);
    return v;
  }
  return at < bytes ? row[at] : 0;
}

// 8 samples × 4 variants at a time: the four rows' two code bytes in one qword, a byte shuffle
// puts row t's byte of sample s at 4s + t, a per-dword shift by 2·(s mod 4) and a mask leave
// each code; 4t + code indexes the quad's 16-byte tables (`vpshufb`; samples past n index with
// the top bit set and read 0). The centring sums: `vpmaddubsw` of the codes against the centring
// limbs (pairs ≤ 2 · 128 · 64), `vpmaddwd` with ones, int32 per limb (< 2^29 over 16,384 quads).
__attribute__((target("avx2"))) void pack_u8s8_avx2_impl(const uint8_t* const* rows, const uint8_t* tables,
                                                          int64_t quads, int64_t n, uint8_t* codes, int8_t* limbs,
                                                          int64_t* rsum) {
  const __m256i ctl = _mm256_setr_epi8(0, 2, 4, 6, 0, 2, 4, 6, 0, 2, 4, 6, 0, 2, 4, 6,  //
                                       1, 3, 5, 7, 1, 3, 5, 7, 1, 3, 5, 7, 1, 3, 5, 7);
  const __m256i shifts = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
  const __m256i tpat = _mm256_set1_epi32(0x0C080400), three = _mm256_set1_epi8(3);
  const __m256i top = _mm256_set1_epi8(static_cast<char>(0x80)), ones = _mm256_set1_epi16(1);
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const int64_t bytes = (n + 3) / 4, stride_c = quads * kCodeQuad, stride_l = quads * kLimbQuad;
  const int64_t npad = (n + kVnniGroup - 1) / kVnniGroup * kVnniGroup;
  for (int64_t s = 0; s < npad; s += 8) {
    const __m256i valid = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(std::min<int64_t>(n - s, 8))), lane);
    const __m256i invalid = _mm256_andnot_si256(valid, top);
    uint8_t* cd = codes + (s / kVnniGroup) * stride_c + (s % kVnniGroup) * 4;
    int8_t* lb = limbs + (s / kVnniGroup) * stride_l + (s % kVnniGroup) * 4;
    __m256i r0 = _mm256_setzero_si256(), r1 = r0, r2 = r0;
    for (int64_t q = 0; q < quads; ++q) {
      const uint8_t* tab = tables + q * kVnniTableBytes;
      const uint8_t* const* rq = rows + 4 * q;
      const uint64_t x = two_bytes(rq[0], s / 4, bytes) | two_bytes(rq[1], s / 4, bytes) << 16 |
                         two_bytes(rq[2], s / 4, bytes) << 32 | two_bytes(rq[3], s / 4, bytes) << 48;
      const __m256i g = _mm256_srlv_epi32(_mm256_shuffle_epi8(_mm256_set1_epi64x(static_cast<int64_t>(x)), ctl), shifts);
      const __m256i idx = _mm256_or_si256(_mm256_or_si256(_mm256_and_si256(g, three), tpat), invalid);
#define STRATA_TABLE(at) _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(tab + (at))))
      const __m256i u = _mm256_shuffle_epi8(STRATA_TABLE(0), idx);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(cd + q * kCodeQuad), u);
      for (int l = 0; l < 3; ++l)
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(lb + q * kLimbQuad + l * kCodeQuad),
                            _mm256_shuffle_epi8(STRATA_TABLE(16 + 16 * l), idx));
#undef STRATA_TABLE
      int32_t a[3];
      std::memcpy(a, tab + 64, 12);
      r0 = _mm256_add_epi32(r0, _mm256_madd_epi16(_mm256_maddubs_epi16(u, _mm256_set1_epi32(a[0])), ones));
      r1 = _mm256_add_epi32(r1, _mm256_madd_epi16(_mm256_maddubs_epi16(u, _mm256_set1_epi32(a[1])), ones));
      r2 = _mm256_add_epi32(r2, _mm256_madd_epi16(_mm256_maddubs_epi16(u, _mm256_set1_epi32(a[2])), ones));
    }
    alignas(32) int32_t v0[8], v1[8], v2[8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(v0), r0);
    _mm256_store_si256(reinterpret_cast<__m256i*>(v1), r1);
    _mm256_store_si256(reinterpret_cast<__m256i*>(v2), r2);
    for (int j = 0; j < 8; ++j) rsum[s + j] = int64_t{v0[j]} + 128 * int64_t{v1[j]} + 16384 * int64_t{v2[j]};
  }
}

}  // namespace

GramU8S8Fn gram_u8s8_avx_vnni() {
  static const bool ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                         __builtin_cpu_supports("avxvnni");
  return ok ? u8s8_avx_vnni::gram : nullptr;
}
PackU8S8Fn pack_u8s8_avx2() { return __builtin_cpu_supports("avx2") ? pack_u8s8_avx2_impl : nullptr; }
#else
GramU8S8Fn gram_u8s8_avx_vnni() { return nullptr; }
PackU8S8Fn pack_u8s8_avx2() { return nullptr; }
#endif

}  // namespace strata::backend::cpu
