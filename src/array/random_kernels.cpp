// Dispatch of random generation runs to the AVX-512 kernels or the portable scalar code.
#include "array/random_kernels.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "array/random_math.hpp"

namespace strata::detail {
namespace {

bool detect_avx512() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw");
#else
  return false;
#endif
}

const bool kHaveAvx512 = detect_avx512();
std::atomic<bool> g_force_scalar{false};

bool use_avx512() { return kHaveAvx512 && !g_force_scalar.load(std::memory_order_relaxed); }

// Words [w0, w0 + nw) of the stream's global word sequence (word 4b + j = word j of block b).
void words_range(uint64_t seed, uint64_t stream, uint64_t w0, int64_t nw, uint32_t* out) {
  const uint64_t b0 = w0 >> 2;
  const int64_t skip = static_cast<int64_t>(w0 & 3);
  const int64_t nb = (skip + nw + 3) >> 2;
  constexpr int64_t kChunkBlocks = 256;
  uint32_t buf[4 * kChunkBlocks];
  int64_t produced = 0;
  for (int64_t b = 0; b < nb; b += kChunkBlocks) {
    const int64_t cnt = std::min(kChunkBlocks, nb - b);
    if (use_avx512()) {
      avx512::philox_words(seed, stream, b0 + b, cnt, buf);
    } else {
      for (int64_t i = 0; i < cnt; ++i) {
        const auto w = philox_block(seed, stream, b0 + b + i);
        std::memcpy(buf + 4 * i, w.data(), 16);
      }
    }
    const int64_t from = b == 0 ? skip : 0;
    const int64_t take = std::min(4 * cnt - from, nw - produced);
    std::memcpy(out + produced, buf + from, sizeof(uint32_t) * take);
    produced += take;
  }
}

// Calls emit(k, words) for each element k of the run, where words points at the element's first
// word. Words are generated in chunks covering consecutive elements; huge steps generate only
// the blocks that hold a wanted element.
template <class Emit>
void for_each_element_words(uint64_t seed, uint64_t stream, int64_t e0, int64_t step, int64_t n,
                            int words_per_element, Emit&& emit) {
  constexpr int64_t kMaxWords = 4096;
  uint32_t buf[kMaxWords + 8];
  const int64_t span_per_elem = std::max<int64_t>(step * words_per_element, words_per_element);
  const int64_t group = std::max<int64_t>(1, (kMaxWords - 8) / span_per_elem);
  for (int64_t k0 = 0; k0 < n; k0 += group) {
    const int64_t cnt = std::min(group, n - k0);
    if (span_per_elem > 64) {  // sparse: one block per element
      for (int64_t k = 0; k < cnt; ++k) {
        const uint64_t w = static_cast<uint64_t>(e0 + (k0 + k) * step) * words_per_element;
        words_range(seed, stream, w, words_per_element, buf);
        emit(k0 + k, buf);
      }
      continue;
    }
    const uint64_t wfirst = static_cast<uint64_t>(e0 + k0 * step) * words_per_element;
    const int64_t nw = (cnt - 1) * step * words_per_element + words_per_element;
    words_range(seed, stream, wfirst, nw, buf);
    for (int64_t k = 0; k < cnt; ++k) emit(k0 + k, buf + k * step * words_per_element);
  }
}

void fill_normal_f64(const RandomParams& p, int64_t e0, int64_t step, int64_t n, double* out) {
  if (!use_avx512()) {
    for (int64_t k = 0; k < n; ++k) {
      const double z = normal_at(p.seed, p.stream, static_cast<uint64_t>(e0 + k * step));
      out[k] = std::fma(z, p.sd, p.mean);
    }
    return;
  }
  if (step == 1) {
    const int64_t head = std::min<int64_t>(n, (4 - (e0 & 3)) & 3);
    if (head) avx512::normal_strided(p, e0, 1, head, out);
    const int64_t nb = (n - head) / 4;
    if (nb) avx512::normal_contig(p, static_cast<uint64_t>(e0 + head) >> 2, nb, out + head);
    const int64_t done = head + 4 * nb;
    if (done < n) avx512::normal_strided(p, e0 + done, 1, n - done, out + done);
    return;
  }
  if (step == 2) {
    // Elements 4b + parity and 4b + 2 + parity come from the two word pairs of block b.
    const int parity = static_cast<int>(e0 & 1);
    const int64_t head = std::min<int64_t>(n, (e0 & 2) ? 1 : 0);
    if (head) avx512::normal_strided(p, e0, 2, 1, out);
    const int64_t nb = (n - head) / 2;
    if (nb) avx512::normal_step2(p, static_cast<uint64_t>(e0 + 2 * head) >> 2, nb, parity, out + head);
    const int64_t done = head + 2 * nb;
    if (done < n) avx512::normal_strided(p, e0 + 2 * done, 2, n - done, out + done);
    return;
  }
  avx512::normal_strided(p, e0, step, n, out);
}

}  // namespace

bool random_kernels_use_avx512() { return use_avx512(); }

bool random_kernels_force_scalar(bool force) { return g_force_scalar.exchange(force); }

void random_fill(const RandomParams& p, int64_t e0, int64_t step, int64_t n, void* out) {
  if (n <= 0) return;
  const int64_t itemsize = DType(p.out).itemsize();
  if (step < 0) {  // generate ascending, then reverse
    random_fill(p, e0 + (n - 1) * step, -step, n, out);
    auto* b = static_cast<uint8_t*>(out);
    for (int64_t i = 0, j = n - 1; i < j; ++i, --j) {
      uint8_t tmp[8];
      std::memcpy(tmp, b + i * itemsize, itemsize);
      std::memcpy(b + i * itemsize, b + j * itemsize, itemsize);
      std::memcpy(b + j * itemsize, tmp, itemsize);
    }
    return;
  }
  if (step == 0) {  // broadcast of one element
    random_fill(p, e0, 1, 1, out);
    auto* b = static_cast<uint8_t*>(out);
    for (int64_t i = 1; i < n; ++i) std::memcpy(b + i * itemsize, b, itemsize);
    return;
  }
  switch (p.dist) {
    case RandomDist::Normal:
      if (p.out == ScalarType::Float64) {
        fill_normal_f64(p, e0, step, n, static_cast<double*>(out));
      } else {  // float32: the float64 value rounded
        double tmp[1024];
        auto* o = static_cast<float*>(out);
        for (int64_t k = 0; k < n; k += 1024) {
          const int64_t c = std::min<int64_t>(1024, n - k);
          fill_normal_f64(p, e0 + k * step, step, c, tmp);
          for (int64_t i = 0; i < c; ++i) o[k + i] = static_cast<float>(tmp[i]);
        }
      }
      return;
    case RandomDist::Uniform:
      if (p.out == ScalarType::Float64) {
        auto* o = static_cast<double*>(out);
        for_each_element_words(p.seed, p.stream, e0, step, n, 2,
                               [&](int64_t k, const uint32_t* w) { o[k] = uniform53(w[0], w[1]); });
      } else {
        auto* o = static_cast<float*>(out);
        for_each_element_words(p.seed, p.stream, e0, step, n, 1,
                               [&](int64_t k, const uint32_t* w) { o[k] = uniform24(w[0]); });
      }
      return;
    case RandomDist::Integers: {
      auto* o = static_cast<int64_t*>(out);
      for_each_element_words(p.seed, p.stream, e0, step, n, 2, [&](int64_t k, const uint32_t* w) {
        o[k] = bounded64(w[0], w[1], p.low, p.range);
      });
      return;
    }
  }
}

}  // namespace strata::detail
