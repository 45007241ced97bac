#pragma once
// Kernels of the genotype Gram operator: float32 products of standardized genotypes, decoded
// from 2-bit codes inside the register loop (never written out), with narrow dense blocks.
//
// Codes are packed rows (`stride` bytes apart, 16 codes per 4 bytes, low bits first); row i
// maps code c to luts[4i + c] (standardized value; 0 for missing). Sample counts passed to the
// kernels are multiples of 16: bytes up to 3 past a row's end may be read, so code buffers
// need 64 bytes of slack at the end, and columns past the real samples must be zero in the
// dense operand (then whatever those codes decode to contributes nothing).
//
// The AVX-512 kernels are register-blocked like GEMM micro-kernels (24 accumulators) and are
// deterministic; the portable kernels compute the same sums in a different order (not the
// same bits). kernel_isa() says which run.

#include <cstdint>
#include <string>

namespace strata::genomics::detail {

/// Variants per tile of phase 1 (a multiple of the kernels' row blocks).
constexpr int64_t kTileRows = 96;

/// y (rows × w, row-major) += A·Qᵀᵀ: y[i][c] += Σ_{n < n16} a(i, n)·qt[c·ldq + n].
/// rows: a multiple of 6; w: a multiple of 8; n16: a multiple of 16.
void codes_times(const uint8_t* codes, int64_t stride, const float* luts, int64_t rows, int64_t n16,
                 const float* qt, int64_t ldq, int64_t w, float* y);

/// zt (w × ldz, row-major) += (Aᵀ·Y)ᵀ over samples [n0, n0 + len):
/// zt[c·ldz + n] += Σ_{i < rows} a(i, n)·y[i·w + c]. n0 and len: multiples of 16; w: a
/// multiple of 8.
void codes_t_times(const uint8_t* codes, int64_t stride, const float* luts, int64_t rows, int64_t n0, int64_t len,
                   const float* y, int64_t w, float* zt, int64_t ldz);

/// "avx512" or "portable".
std::string kernel_isa();
/// Force the portable kernels, float and integer (tests); returns the previous setting.
bool force_portable_kernels(bool on);
bool portable_kernels_forced();

}  // namespace strata::genomics::detail
