#pragma once
// Integer kernels of the genotype Gram operator: raw codes (0, 1, 2, and 3 for missing) times
// int16 dense operands, with exact int32/int64 sums (AVX-512 VNNI `vpdpwssd`: 32 multiply-adds
// per instruction, twice the float32 FMA rate). Callers quantize the dense operand, then undo
// the centring, scaling and the missing code with per-variant terms (genotype_gram.cpp).
//
// Sums are exact integers, so the AVX-512 and portable kernels return the same bits.
// Codes are packed rows (`stride` bytes apart, 4 codes per byte, low bits first); the kernels
// read up to 7 bytes past a row's last whole byte, so code buffers need 64 bytes of slack, and
// dense entries for samples past the real ones must be zero.

#include <cstdint>
#include <vector>

namespace strata::backend::cpu {

/// p (rows × w, row-major) += Σ_{n < n32} code(i, n)·qt[c·ldq + n].
/// n32: a multiple of 32; w: a multiple of 8. |qt| ≤ 32767. `packed`: null, or what the same
/// kernel set's `pack` made of this qt.
using CodesTimesI16 = void (*)(const uint8_t* codes, int64_t stride, int64_t rows, int64_t n32, const int16_t* qt,
                               int64_t ldq, int64_t w, int64_t* p, const uint8_t* packed);
/// qt in the layout `times` reads fastest (made once per pass, read by every tile).
using PackTimesI16 = std::vector<uint8_t> (*)(const int16_t* qt, int64_t ldq, int64_t w, int64_t n32);
/// zt (w × ldz, row-major) += Σ_{i < rows} code(i, n)·y(i, c) for samples n in [0, len), with
/// y(i, c) the int16 at wpairs[(i / 2)·2w + 2c + i % 2] (row pairs interleaved per column). For
/// odd `rows` the last pair's second entries must be zero and the row after the last must be
/// readable (its codes are multiplied by those zeros). len: a multiple of 16; w: a multiple of
/// 8; rows ≤ 10,000 so that int32 sums cannot overflow.
/// `packed`: null, or what the same kernel set's `pack_t` made of this wpairs.
using CodesTTimesI16 = void (*)(const uint8_t* codes, int64_t stride, int64_t rows, int64_t len,
                                const int16_t* wpairs, int64_t w, int32_t* zt, int64_t ldz, const uint8_t* packed);
/// wpairs in the layout `t_times` reads fastest (made once per group, read by every slice).
using PackTTimesI16 = std::vector<uint8_t> (*)(const int16_t* wpairs, int64_t rows, int64_t w);

struct GramI16Kernels {
  CodesTimesI16 times;
  CodesTTimesI16 t_times;
  PackTimesI16 pack = nullptr;      ///< null: `times` reads qt as it is
  PackTTimesI16 pack_t = nullptr;   ///< null: `t_times` reads wpairs as they are
};

const GramI16Kernels& gram_i16_portable();
/// The portable level's kernels on x86-64 (SSE2, the architecture's baseline); nullptr elsewhere.
const GramI16Kernels* gram_i16_sse2();
/// nullptr when the CPU (or the build target) lacks AVX2 (`vpmaddwd`: the same exact sums).
const GramI16Kernels* gram_i16_avx2();
/// The same kernels with AVX-VNNI's 256-bit `vpdpwssd` (client CPUs without AVX-512); nullptr
/// when the CPU lacks it.
const GramI16Kernels* gram_i16_avx_vnni();
/// nullptr when the CPU lacks AVX-512 F/BW/VNNI/VBMI.
const GramI16Kernels* gram_i16_vnni();
/// AMX tile kernels (gram_amx_kernels.cpp), the same sums; nullptr without AMX-INT8, AVX-512
/// VBMI, or the OS's permission to use tile data.
const GramI16Kernels* gram_i16_amx();

}  // namespace strata::backend::cpu
