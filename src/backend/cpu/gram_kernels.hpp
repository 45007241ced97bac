#pragma once
// Float kernels of the genotype Gram operator: float32 products of standardized genotypes,
// decoded from 2-bit codes inside the register loop (never written out), with narrow dense
// blocks. Reached only through the CPU backend's dispatch table (cpu_backend.cpp).
//
// Codes are packed rows (`stride` bytes apart, 16 codes per 4 bytes, low bits first); row i
// maps code c to luts[4i + c] (standardized value; 0 for missing). Sample counts passed to the
// kernels are multiples of 16: bytes up to 3 past a row's end may be read, so code buffers
// need 64 bytes of slack at the end, and columns past the real samples must be zero in the
// dense operand (then whatever those codes decode to contributes nothing).
//
// The AVX-512 kernels are register-blocked like GEMM micro-kernels (24 accumulators), the AVX2
// ones likewise on 8-lane vectors (12 accumulators); all are deterministic. Each level computes
// the same sums in its own order (the levels do not give the same bits).

#include <cstdint>

namespace strata::backend::cpu {

/// y (rows × w, row-major) += A·Qᵀᵀ: y[i][c] += Σ_{n < n16} a(i, n)·qt[c·ldq + n].
/// w: a multiple of 4 (the AVX-512 kernel runs rows in blocks of 6, then one at a time, and
/// columns in blocks of 4; column c's sums do not depend on w).
using CodesTimesF32 = void (*)(const uint8_t* codes, int64_t stride, const float* luts, int64_t rows, int64_t n16,
                               const float* qt, int64_t ldq, int64_t w, float* y);
/// zt (w × ldz, row-major) += (Aᵀ·Y)ᵀ over samples [n0, n0 + len):
/// zt[c·ldz + n] += Σ_{i < rows} a(i, n)·y[i·w + c]. n0 and len: multiples of 16; w: a
/// multiple of 8.
using CodesTTimesF32 = void (*)(const uint8_t* codes, int64_t stride, const float* luts, int64_t rows, int64_t n0,
                                int64_t len, const float* y, int64_t w, float* zt, int64_t ldz);

struct GramF32Kernels {
  CodesTimesF32 times;
  CodesTTimesF32 t_times;
};

const GramF32Kernels& gram_f32_portable();
/// nullptr when the CPU (or the build target) lacks AVX2 + FMA.
const GramF32Kernels* gram_f32_avx2();
/// nullptr when the CPU (or the build target) lacks AVX-512F.
const GramF32Kernels* gram_f32_avx512();

}  // namespace strata::backend::cpu
