// The random module's transforms and bulk kernels: portable scalar code and the dispatch of
// runs to the AVX2 or AVX-512 kernels (random_avx2.cpp, random_avx512.cpp) when the caller's Isa
// asks for them.
#include <algorithm>
#include <cstring>

#include "core/random_internal.hpp"
#include "strata/core/cpu_pin.hpp"

namespace strata::random {
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

bool detect_avx2() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return false;
#endif
}

using detail::VectorKernels;

// An Isa the CPU lacks falls back to Portable rather than faulting.
const VectorKernels* vector_kernels(Isa isa) {
  if (!isa_available(isa)) return nullptr;
#if defined(__x86_64__)
  if (isa == Isa::Avx512) return &detail::avx512::kKernels;
  if (isa == Isa::Avx2) return &detail::avx2::kKernels;
#endif
  return nullptr;
}

// Words [w0, w0 + nw) of the stream's word sequence.
void words_range(uint64_t seed, uint64_t stream, uint64_t w0, int64_t nw, uint32_t* out, const VectorKernels* simd) {
  const uint64_t b0 = w0 >> 2;
  const int64_t skip = static_cast<int64_t>(w0 & 3);
  const int64_t nb = (skip + nw + 3) >> 2;
  constexpr int64_t kChunkBlocks = 256;
  uint32_t buf[4 * kChunkBlocks];
  int64_t produced = 0;
  for (int64_t b = 0; b < nb; b += kChunkBlocks) {
    const int64_t cnt = std::min(kChunkBlocks, nb - b);
    if (simd) {
      simd->philox_words(seed, stream, b0 + b, cnt, buf);
    } else {
      for (int64_t i = 0; i < cnt; ++i) {
        const Words w = philox_block(seed, stream, b0 + b + i);
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
                            int words_per_element, const VectorKernels* simd, Emit&& emit) {
  constexpr int64_t kMaxWords = 4096;
  uint32_t buf[kMaxWords + 8];
  const int64_t span_per_elem = std::max<int64_t>(step * words_per_element, words_per_element);
  const int64_t group = std::max<int64_t>(1, (kMaxWords - 8) / span_per_elem);
  for (int64_t k0 = 0; k0 < n; k0 += group) {
    const int64_t cnt = std::min(group, n - k0);
    if (span_per_elem > 64) {  // sparse: one block per element
      for (int64_t k = 0; k < cnt; ++k) {
        const uint64_t w = static_cast<uint64_t>(e0 + (k0 + k) * step) * words_per_element;
        words_range(seed, stream, w, words_per_element, buf, simd);
        emit(k0 + k, buf);
      }
      continue;
    }
    const uint64_t wfirst = static_cast<uint64_t>(e0 + k0 * step) * words_per_element;
    const int64_t nw = (cnt - 1) * step * words_per_element + words_per_element;
    words_range(seed, stream, wfirst, nw, buf, simd);
    for (int64_t k = 0; k < cnt; ++k) emit(k0 + k, buf + k * step * words_per_element);
  }
}

void fill_normal_f64(const FillParams& p, int64_t e0, int64_t step, int64_t n, double* out,
                     const VectorKernels* simd) {
  if (!simd) {  // each element's word from the shared chunked words (one Philox block per 4)
    for_each_element_words(p.seed, p.stream, e0, step, n, 1, nullptr, [&](int64_t k, const uint32_t* w) {
      const uint64_t e = static_cast<uint64_t>(e0 + k * step);
      out[k] = std::fma(detail::zig_normal(p.seed, p.stream, e, *w), p.sd, p.mean);
    });
    return;
  }
  if (step == 1) {
    const int64_t head = std::min<int64_t>(n, (4 - (e0 & 3)) & 3);
    if (head) simd->normal_strided(p, e0, 1, head, out);
    const int64_t nb = (n - head) / 4;
    if (nb) simd->normal_contig(p, static_cast<uint64_t>(e0 + head) >> 2, nb, out + head);
    const int64_t done = head + 4 * nb;
    if (done < n) simd->normal_strided(p, e0 + done, 1, n - done, out + done);
    return;
  }
  if (step == 2) {
    // Elements 4b + parity and 4b + 2 + parity come from the two word pairs of block b.
    const int parity = static_cast<int>(e0 & 1);
    const int64_t head = std::min<int64_t>(n, (e0 & 2) ? 1 : 0);
    if (head) simd->normal_strided(p, e0, 2, 1, out);
    const int64_t nb = (n - head) / 2;
    if (nb) simd->normal_step2(p, static_cast<uint64_t>(e0 + 2 * head) >> 2, nb, parity, out + head);
    const int64_t done = head + 2 * nb;
    if (done < n) simd->normal_strided(p, e0 + 2 * done, 2, n - done, out + done);
    return;
  }
  simd->normal_strided(p, e0, step, n, out);
}

void fill_ascending(const FillParams& p, int64_t e0, int64_t step, int64_t n, void* out, const VectorKernels* simd) {
  switch (p.dist) {
    case Dist::Normal:
      if (p.out == ScalarType::Float64) {
        fill_normal_f64(p, e0, step, n, static_cast<double*>(out), simd);
      } else {  // float32: the float64 value rounded
        double tmp[1024];
        auto* o = static_cast<float*>(out);
        for (int64_t k = 0; k < n; k += 1024) {
          const int64_t c = std::min<int64_t>(1024, n - k);
          fill_normal_f64(p, e0 + k * step, step, c, tmp, simd);
          for (int64_t i = 0; i < c; ++i) o[k + i] = static_cast<float>(tmp[i]);
        }
      }
      return;
    case Dist::Uniform:
      if (p.out == ScalarType::Float64) {
        auto* o = static_cast<double*>(out);
        for_each_element_words(p.seed, p.stream, e0, step, n, 2, simd,
                               [&](int64_t k, const uint32_t* w) { o[k] = uniform_f64(w[0], w[1]); });
      } else {
        auto* o = static_cast<float*>(out);
        for_each_element_words(p.seed, p.stream, e0, step, n, 1, simd,
                               [&](int64_t k, const uint32_t* w) { o[k] = uniform_f32(w[0]); });
      }
      return;
    case Dist::Integers: {
      auto* o = static_cast<int64_t*>(out);
      for_each_element_words(p.seed, p.stream, e0, step, n, 2, simd, [&](int64_t k, const uint32_t* w) {
        o[k] = integer_i64(w[0], w[1], p.low, p.range);
      });
      return;
    }
  }
}

}  // namespace

double normal_f64(uint32_t x, uint32_t y) { return detail::normal_words(x, y); }

double normal_at(uint64_t seed, uint64_t stream, uint64_t e) { return detail::normal_elem(seed, stream, e); }

// Capped by STRATA_CPU: level 0 is portable, 1–2 the AVX2 levels, 3 and up AVX-512.
Isa best_isa() {
  static const Isa kBest = [] {
    const int cap = cpu_pin().max_level;
    if (cap >= 3 && detect_avx512()) return Isa::Avx512;
    if (cap >= 1 && detect_avx2()) return Isa::Avx2;
    return Isa::Portable;
  }();
  return kBest;
}

bool isa_available(Isa isa) {
  switch (isa) {
    case Isa::Portable: return true;
    case Isa::Avx2: {
      static const bool kAvx2 = best_isa() != Isa::Portable && detect_avx2();
      return kAvx2;
    }
    case Isa::Avx512: return best_isa() == Isa::Avx512;
  }
  return false;
}

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::Avx512: return "avx512";
    case Isa::Avx2: return "avx2";
    default: return "portable";
  }
}

void fill(const FillParams& p, int64_t e0, int64_t step, int64_t n, void* out, Isa isa) {
  if (n <= 0) return;
  const int64_t itemsize = DType(p.out).itemsize();
  auto* b = static_cast<uint8_t*>(out);
  if (step < 0) {  // generate ascending, then reverse
    fill(p, e0 + (n - 1) * step, -step, n, out, isa);
    for (int64_t i = 0, j = n - 1; i < j; ++i, --j) {
      uint8_t tmp[8];
      std::memcpy(tmp, b + i * itemsize, itemsize);
      std::memcpy(b + i * itemsize, b + j * itemsize, itemsize);
      std::memcpy(b + j * itemsize, tmp, itemsize);
    }
    return;
  }
  if (step == 0) {  // broadcast of one element
    fill(p, e0, 1, 1, out, isa);
    for (int64_t i = 1; i < n; ++i) std::memcpy(b + i * itemsize, b, itemsize);
    return;
  }
  fill_ascending(p, e0, step, n, out, vector_kernels(isa));
}

void fill_words(uint64_t seed, uint64_t stream, uint64_t w0, int64_t n, uint32_t* out, Isa isa) {
  if (n > 0) words_range(seed, stream, w0, n, out, vector_kernels(isa));
}

void fill_randint3(uint64_t seed, uint64_t stream, int64_t e0, int64_t n, uint8_t* out) {
  constexpr int64_t kWords = 1024;
  uint32_t buf[kWords];
  for (int64_t k = 0; k < n;) {
    const int64_t e = e0 + k, skip = e & 3;
    const int64_t take = std::min(n - k, 4 * kWords - skip);
    fill_words(seed, stream, static_cast<uint64_t>(e >> 2), (skip + take + 3) / 4, buf);
    const auto* bytes = reinterpret_cast<const uint8_t*>(buf) + skip;  // byte e mod 4 (little-endian)
    for (int64_t i = 0; i < take; ++i) out[k + i] = randint3(bytes[i]);
    k += take;
  }
}

}  // namespace strata::random
