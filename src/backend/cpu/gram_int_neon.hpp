#pragma once
// Integer Gram kernels on aarch64 with ARMv8.2's dot products (gram_int_neon.cpp): the int16
// Gram operator (gram_int_kernels.hpp) and the exact-integer GRM product (gram_vnni_kernels.hpp),
// the same exact sums, so the same bits, as the portable and x86 kernels.

#include "backend/cpu/gram_int_kernels.hpp"
#include "backend/cpu/gram_vnni_kernels.hpp"

namespace strata::backend::cpu {

/// Whether this CPU has the dot-product instructions (UDOT/SDOT, HWCAP_ASIMDDP); false off aarch64.
bool neon_dotprod();
/// The int16 Gram operator with UDOT/SDOT; nullptr without them.
const GramI16Kernels* gram_i16_neon();
/// The exact-integer GRM product with UDOT; nullptr without it.
GramU8S8Fn gram_u8s8_neon();
/// The GRM packer on plain NEON (TBL + ST4; the portable one's bytes); nullptr off aarch64.
PackU8S8Fn pack_u8s8_neon();

}  // namespace strata::backend::cpu
