#pragma once
// The GRM's exact-integer tile kernel (strata/backend/backend.hpp, gram_panels_u8s8): codes
// (times a power of two) against a weight quantized to three signed 7-bit limbs, summed as int32
// per limb and joined to float64 accumulators once per call. Every implementation forms the
// same integers.

#include <cstdint>

namespace strata::backend::cpu {

/// Samples per packed group of the panels (see Backend::gram_panels_u8s8).
inline constexpr int64_t kVnniGroup = 32;
inline constexpr int64_t kVnniLimbs = 3;
/// Most variants one call may sum: every product is at most 255·128 < 2^15 in magnitude, so a
/// limb's int32 sum (65,536 · 32,640 < 2^31) is exact (and the limbs' combination, < 2^46, in float64).
inline constexpr int64_t kVnniMaxRun = 65536;

/// See Backend::gram_panels_u8s8 (mode: 0 whole tile, 1 j ≤ i).
using GramU8S8Fn = void (*)(const uint8_t* a, const int8_t* b, int64_t quads, int64_t rows, int64_t cols, int mode,
                            double scale, double* acc, int64_t ldacc);

void gram_u8s8_portable(const uint8_t* a, const int8_t* b, int64_t quads, int64_t rows, int64_t cols, int mode,
                        double scale, double* acc, int64_t ldacc);
/// AVX-512 VNNI kernel; nullptr when the CPU lacks AVX-512 F/BW/VNNI.
GramU8S8Fn gram_u8s8_vnni();
/// AMX kernel (gram_amx_kernels.cpp, the same sums); nullptr without AMX tiles.
GramU8S8Fn gram_u8s8_amx();
/// 256-bit AVX-VNNI kernel (gram_u8s8_avx2.cpp, the same sums); nullptr without AVX-VNNI.
GramU8S8Fn gram_u8s8_avx_vnni();

/// Bytes of one quad's table for the packer (see Backend::pack_u8s8).
inline constexpr int64_t kVnniTableBytes = 80;
/// See Backend::pack_u8s8.
using PackU8S8Fn = void (*)(const uint8_t* const* rows, const uint8_t* tables, int64_t quads, int64_t n,
                            uint8_t* codes, int8_t* limbs, int64_t* rsum);
void pack_u8s8_portable(const uint8_t* const* rows, const uint8_t* tables, int64_t quads, int64_t n, uint8_t* codes,
                        int8_t* limbs, int64_t* rsum);
/// AVX-512 VBMI + VNNI packer; nullptr when the CPU lacks them.
PackU8S8Fn pack_u8s8_vnni();
/// AVX2 packer (gram_u8s8_avx2.cpp); nullptr without AVX2.
PackU8S8Fn pack_u8s8_avx2();

}  // namespace strata::backend::cpu
