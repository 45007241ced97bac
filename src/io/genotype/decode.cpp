// Portable decode kernels and the run-time dispatch to the x86-64 ones.
#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstring>

#include "io/genotype/count_internal.hpp"
#include "io/genotype/decode_internal.hpp"
#include "strata/io/genotype_decode.hpp"

namespace strata::io {
namespace {

void row_f32_portable(const uint8_t* codes, int64_t n, const float lut[4], float* out) {
  const int64_t full = n >> 2;
  const float l0 = lut[0], l1 = lut[1], l2 = lut[2], l3 = lut[3];
  const float t[4] = {l0, l1, l2, l3};
  for (int64_t i = 0; i < full; ++i) {
    const unsigned b = codes[i];
    float* o = out + 4 * i;
    o[0] = t[b & 3];
    o[1] = t[(b >> 2) & 3];
    o[2] = t[(b >> 4) & 3];
    o[3] = t[b >> 6];
  }
  detail::decode_tail_f32(codes, full * 4, n, lut, out);
}

void row_f64_portable(const uint8_t* codes, int64_t n, const double lut[4], double* out) {
  const int64_t full = n >> 2;
  for (int64_t i = 0; i < full; ++i) {
    const unsigned b = codes[i];
    double* o = out + 4 * i;
    o[0] = lut[b & 3];
    o[1] = lut[(b >> 2) & 3];
    o[2] = lut[(b >> 4) & 3];
    o[3] = lut[b >> 6];
  }
  detail::decode_tail_f64(codes, full * 4, n, lut, out);
}

void count_portable(const uint8_t* codes, int64_t n, int64_t counts[4]) {
  detail::count_codes_words(codes, n, counts);
}

// One byte of codes → four int8 dosages (missing → −1), little-endian in a uint32.
constexpr std::array<uint32_t, 256> make_i8_table() {
  std::array<uint32_t, 256> t{};
  constexpr uint8_t dosage[4] = {0, 1, 2, 0xFF};
  for (uint32_t b = 0; b < 256; ++b) {
    uint32_t w = 0;
    for (int k = 0; k < 4; ++k) w |= uint32_t{dosage[(b >> (2 * k)) & 3]} << (8 * k);
    t[b] = w;
  }
  return t;
}
constexpr auto kI8Table = make_i8_table();

// Gather the even bits of x into the low 32 bits.
inline uint64_t compact_even_bits(uint64_t x) {
  x &= 0x5555555555555555ull;
  x = (x | (x >> 1)) & 0x3333333333333333ull;
  x = (x | (x >> 2)) & 0x0F0F0F0F0F0F0F0Full;
  x = (x | (x >> 4)) & 0x00FF00FF00FF00FFull;
  x = (x | (x >> 8)) & 0x0000FFFF0000FFFFull;
  x = (x | (x >> 16)) & 0x00000000FFFFFFFFull;
  return x;
}

const detail::DecodeKernels kPortable = {"portable", row_f32_portable, row_f64_portable, count_portable};

const detail::DecodeKernels* best_kernels() {
  if (auto* k = detail::avx512_kernels()) return k;
  if (auto* k = detail::avx2_kernels()) return k;
  return &kPortable;
}

std::atomic<const detail::DecodeKernels*> g_kernels{nullptr};

const detail::DecodeKernels& kernels() {
  const detail::DecodeKernels* k = g_kernels.load(std::memory_order_acquire);
  if (!k) {
    k = best_kernels();
    g_kernels.store(k, std::memory_order_release);
  }
  return *k;
}

}  // namespace

namespace detail {
const DecodeKernels& portable_kernels() { return kPortable; }
}  // namespace detail

void decode_row_f32(const uint8_t* codes, int64_t n, const float lut[4], float* out) {
  kernels().row_f32(codes, n, lut, out);
}

void decode_row_f64(const uint8_t* codes, int64_t n, const double lut[4], double* out) {
  kernels().row_f64(codes, n, lut, out);
}

void decode_row_i8(const uint8_t* codes, int64_t n, int8_t* out) {
  const int64_t full = n >> 2;
  for (int64_t i = 0; i < full; ++i) std::memcpy(out + 4 * i, &kI8Table[codes[i]], 4);
  for (int64_t j = full * 4; j < n; ++j) {
    const int c = (codes[j >> 2] >> (2 * (j & 3))) & 3;
    out[j] = static_cast<int8_t>(c == 3 ? -1 : c);
  }
}

void decode_row_bitplanes(const uint8_t* codes, int64_t n, uint64_t* one, uint64_t* two,
                          uint64_t* observed) {
  const int64_t words = (n + 63) / 64;
  const int64_t row_bytes = (n + 3) / 4;
  for (int64_t w = 0; w < words; ++w) {
    // 64 codes = 16 bytes = two 64-bit words of packed pairs.
    uint64_t part[2] = {0, 0};
    const int64_t off = 16 * w;
    const int64_t avail = std::min<int64_t>(16, row_bytes - off);
    std::memcpy(part, codes + off, static_cast<size_t>(avail));
    // Codes past n → 0 (hom REF) would set no plane bit except observed; mask them below.
    uint64_t lo = 0, hi = 0;
    for (int h = 0; h < 2; ++h) {
      const uint64_t l = part[h] & 0x5555555555555555ull;
      const uint64_t u = (part[h] >> 1) & 0x5555555555555555ull;
      lo |= compact_even_bits(l) << (32 * h);
      hi |= compact_even_bits(u) << (32 * h);
    }
    const int64_t valid = std::min<int64_t>(64, n - 64 * w);
    const uint64_t mask = valid == 64 ? ~0ull : ((1ull << valid) - 1);
    one[w] = lo & ~hi & mask;
    two[w] = hi & ~lo & mask;
    observed[w] = ~(lo & hi) & mask;
  }
}

void decode_block_f32(const uint8_t* codes, int64_t rows, int64_t n, int64_t stride,
                      const float* luts, float* out, int64_t ld) {
  auto fn = kernels().row_f32;
  for (int64_t r = 0; r < rows; ++r) fn(codes + r * stride, n, luts + 4 * r, out + r * ld);
}

void decode_block_f64(const uint8_t* codes, int64_t rows, int64_t n, int64_t stride,
                      const double* luts, double* out, int64_t ld) {
  auto fn = kernels().row_f64;
  for (int64_t r = 0; r < rows; ++r) fn(codes + r * stride, n, luts + 4 * r, out + r * ld);
}

void count_codes(const uint8_t* codes, int64_t n, int64_t counts[4]) {
  kernels().count(codes, n, counts);
}

std::string decode_kernel_isa() { return kernels().isa; }

bool set_decode_kernel_isa(const std::string& isa) {
  const detail::DecodeKernels* k = nullptr;
  if (isa == "portable") k = &kPortable;
  else if (isa == "avx2") k = detail::avx2_kernels();
  else if (isa == "avx512") k = detail::avx512_kernels();
  if (!k) return false;
  g_kernels.store(k, std::memory_order_release);
  return true;
}

}  // namespace strata::io
