// Portable decode and count kernels (see decode_kernels.hpp).
#include "backend/cpu/decode_kernels.hpp"

#include "backend/cpu/count_words.hpp"

namespace strata::backend::cpu {
namespace {

void row_f32_portable(const uint8_t* codes, int64_t n, const float lut[4], float* out) {
  const int64_t full = n >> 2;
  const float t[4] = {lut[0], lut[1], lut[2], lut[3]};
  for (int64_t i = 0; i < full; ++i) {
    const unsigned b = codes[i];
    float* o = out + 4 * i;
    o[0] = t[b & 3];
    o[1] = t[(b >> 2) & 3];
    o[2] = t[(b >> 4) & 3];
    o[3] = t[b >> 6];
  }
  decode_tail_f32(codes, full * 4, n, lut, out);
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
  decode_tail_f64(codes, full * 4, n, lut, out);
}

void count_portable(const uint8_t* codes, int64_t n, int64_t counts[4]) { count_codes_words(codes, n, counts); }

}  // namespace

const DecodeKernels& decode_portable() {
  static const DecodeKernels k{"portable", row_f32_portable, row_f64_portable, count_portable};
  return k;
}

}  // namespace strata::backend::cpu
