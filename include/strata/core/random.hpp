#pragma once
/// \file
/// strata's one random module: Philox4x32-10, the transforms from its words to values, and
/// the bulk kernels that fill runs of elements. Random arrays, linalg's random sources and
/// sketches, and the simulator all draw through it, so one (seed, stream, element) gives one
/// value everywhere — for any chunking, thread count, kernel or device.
///
/// **Keying** (formats.md §9): key = seed (k0 = low half, k1 = high half); block b of stream s
/// has counter {lo(b), hi(b), lo(s), hi(s)}. A stream is a sequence of 32-bit words: word
/// 4b + j is word j of block b. Element e of a random matrix is keyed by its global C-order
/// index (row · cols + col), never by where a chunk starts:
/// - float32 uniform: word e;
/// - float64 uniform and integers: words 2e, 2e + 1;
/// - normal: word e, through a 128-layer ziggurat (Marsaglia & Tsang 2000); the 2.8 % of words
///   outside their layer's rectangle are resolved with retry blocks 2⁶³ | a·2⁵⁶ | e (a = 1, 2, …)
///   of the same stream, which no array element uses;
/// - bytes (RandInt3): byte e mod 4 (little-endian) of word e / 4.
///
/// **Transforms** use only exact integer steps, IEEE +, ×, √ and explicit fma, so the portable
/// and AVX-512 kernels (and any future device kernel doing the same operations) give the same
/// bits:
/// - uniform float64 in **[0, 1)**: (x ⊕ (y ≪ 21) mod 2⁵³)·2⁻⁵³; 0 is possible, 1 never (the
///   `+2⁻⁵⁴` of formats.md is left out because the sum can round to 1.0);
/// - uniform float32 in [0, 1): (x ≫ 8)·2⁻²⁴;
/// - normal element: layer i = x & 127, sign = bit 7, value (2(x ≫ 8) + 1)·2⁻²⁵·xᵢ, exact
///   acceptance tests (a table log) for the wedges and the tail beyond r = 3.4426;
/// - normal from a word pair (normal_f64, the sequential Generator): √(−2 ln u)·sin θ,
///   u = (x + ½)·2⁻³² ∈ (0, 1), θ = 2π(y + ½)·2⁻³², with a table log and an integer-folded
///   sine polynomial (|error| < 1e-15 against libm);
/// - integers in [low, low + range): low + ⌊(x | y ≪ 32)·range / 2⁶⁴⌋ (bias ≤ range / 2⁶⁴).
///
/// \code
/// namespace rnd = strata::random;
/// auto w = rnd::philox4x32_10({0, 0, 0, 0}, {1234, 0});      // w[0] == 0x2090b348
/// double z = rnd::normal_at(/*seed=*/7, /*stream=*/0, /*e=*/12);
/// rnd::FillParams p;                                         // standard normals
/// std::vector<double> v(1000);
/// rnd::fill(p, /*e0=*/0, /*step=*/1, 1000, v.data());        // v[k] == normal_at(0, 0, k)
/// \endcode

#include <array>
#include <cstdint>

#include "strata/core/dtype.hpp"

// The CUDA backend's kernels call Philox and the transforms from this same source (so a device
// gives the CPU's bits); for host compilers STRATA_HD is empty.
#ifndef STRATA_HD
#if defined(__CUDACC__)
#define STRATA_HD __host__ __device__
#else
#define STRATA_HD
#endif
#endif

namespace strata::random {

// ---- Philox4x32-10 --------------------------------------------------------------------------

/// Multipliers and Weyl key increments of Philox4x32 (Random123).
inline constexpr uint32_t kPhiloxM0 = 0xD2511F53u;
inline constexpr uint32_t kPhiloxM1 = 0xCD9E8D57u;
inline constexpr uint32_t kPhiloxW0 = 0x9E3779B9u;
inline constexpr uint32_t kPhiloxW1 = 0xBB67AE85u;

using Words = std::array<uint32_t, 4>;

/// \brief One Philox4x32-10 block: four words from a counter and a key.
STRATA_HD constexpr Words philox4x32_10(Words c, std::array<uint32_t, 2> k) {
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = uint64_t{kPhiloxM0} * c[0];
    const uint64_t p1 = uint64_t{kPhiloxM1} * c[2];
    c = {static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ k[0], static_cast<uint32_t>(p1),
         static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ k[1], static_cast<uint32_t>(p0)};
    k[0] += kPhiloxW0;
    k[1] += kPhiloxW1;
  }
  return c;
}

/// \brief Block `block` of stream `stream` under `seed` (the keying above).
STRATA_HD constexpr Words philox_block(uint64_t seed, uint64_t stream, uint64_t block) {
  return philox4x32_10({static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32),
                        static_cast<uint32_t>(stream), static_cast<uint32_t>(stream >> 32)},
                       {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)});
}

/// \brief Word `w` of the stream (word j of block w / 4, j = w mod 4).
STRATA_HD constexpr uint32_t word_at(uint64_t seed, uint64_t stream, uint64_t w) {
  return philox_block(seed, stream, w >> 2)[w & 3];
}

// ---- Transforms -----------------------------------------------------------------------------

/// \brief Uniform float64 in [0, 1) from two words: 53 bits, (x ^ (y << 21)) · 2⁻⁵³.
STRATA_HD inline double uniform_f64(uint32_t x, uint32_t y) {
  const uint64_t v = (uint64_t{x} ^ (uint64_t{y} << 21)) & ((uint64_t{1} << 53) - 1);
  return static_cast<double>(static_cast<int64_t>(v)) * 0x1p-53;
}

/// \brief Uniform float32 in [0, 1) from one word: 24 bits.
STRATA_HD inline float uniform_f32(uint32_t x) { return static_cast<float>(static_cast<int32_t>(x >> 8)) * 0x1p-24f; }

/// \brief Standard normal from two words: √(−2 ln((x + ½)·2⁻³²)) · sin(2π(y + ½)·2⁻³²).
/// The cosine branch is normal_f64(x, y + 2³⁰). Finite for every input.
double normal_f64(uint32_t x, uint32_t y);

/// \brief low + ⌊X·range / 2⁶⁴⌋ with X = x | y << 32: unbiased to within range / 2⁶⁴.
STRATA_HD inline int64_t integer_i64(uint32_t x, uint32_t y, int64_t low, uint64_t range) {
  const uint64_t xy = uint64_t{x} | (uint64_t{y} << 32);
#if defined(__CUDA_ARCH__)
  const uint64_t hi = __umul64hi(xy, range);  // the same high half of the 128-bit product
#else
  __extension__ using U128 = unsigned __int128;  // GCC/Clang; no pedantic warning in users' builds
  const uint64_t hi = static_cast<uint64_t>((static_cast<U128>(xy) * range) >> 64);
#endif
  return static_cast<int64_t>(static_cast<uint64_t>(low) + hi);
}

/// \brief ⌊x·n / 2³²⌋ in [0, n) from one word (bias ≤ n / 2³²; for small n such as a
/// population label).
STRATA_HD constexpr uint32_t integer_u32(uint32_t x, uint32_t n) {
  return static_cast<uint32_t>((uint64_t{x} * n) >> 32);
}

/// \brief 0, 1 or 2 from one byte: ⌊3·byte / 256⌋ (P = 86/256, 85/256, 85/256).
STRATA_HD constexpr uint8_t randint3(uint8_t byte) { return static_cast<uint8_t>((3u * byte) >> 8); }

// ---- Element values (the keying above) ------------------------------------------------------

/// \brief Uniform float64 element e of (seed, stream).
STRATA_HD inline double uniform_at(uint64_t seed, uint64_t stream, uint64_t e) {
  const Words w = philox_block(seed, stream, e >> 1);
  const int j = static_cast<int>(2 * (e & 1));
  return uniform_f64(w[j], w[j + 1]);
}

/// \brief Standard normal element e of (seed, stream) (the ziggurat on word e).
double normal_at(uint64_t seed, uint64_t stream, uint64_t e);

/// \brief Integer element e of (seed, stream) in [low, low + range).
STRATA_HD inline int64_t integer_at(uint64_t seed, uint64_t stream, uint64_t e, int64_t low, uint64_t range) {
  const Words w = philox_block(seed, stream, e >> 1);
  const int j = static_cast<int>(2 * (e & 1));
  return integer_i64(w[j], w[j + 1], low, range);
}

/// \brief Byte e of (seed, stream): byte e mod 4 of word e / 4.
STRATA_HD constexpr uint8_t byte_at(uint64_t seed, uint64_t stream, uint64_t e) {
  return static_cast<uint8_t>(word_at(seed, stream, e >> 2) >> (8 * (e & 3)));
}

// ---- Bulk kernels ---------------------------------------------------------------------------

/// \brief Which kernels fill runs. Every variant gives the same bits; only speed differs.
enum class Isa : uint8_t {
  Portable,  ///< scalar C++
  Avx512,    ///< AVX-512 F/DQ/VL/BW
  Avx2,      ///< AVX2 + FMA
};

/// \brief The fastest variant this CPU runs, detected once per process.
Isa best_isa();
/// \brief True when this CPU can run `isa`.
bool isa_available(Isa isa);
const char* isa_name(Isa isa);

enum class Dist : uint8_t { Uniform, Normal, Integers };

/// \brief What a run of elements is. Values depend only on these fields and the element index.
struct FillParams {
  Dist dist = Dist::Normal;
  uint64_t seed = 0;
  uint64_t stream = 0;
  double mean = 0.0, sd = 1.0;  ///< Normal: fma(z, sd, mean)
  int64_t low = 0;              ///< Integers: integer_i64(…, low, range)
  uint64_t range = 1;
  ScalarType out = ScalarType::Float64;  ///< Float64/Float32 (uniform, normal; float32 normals
                                         ///< are the float64 values rounded), Int64 (integers)
};

/// \brief out[k] = element e0 + k·step for k in [0, n). Every index must be >= 0; `step` may
/// be negative or zero. `out` holds n values of p.out. An `isa` this CPU lacks runs Portable.
void fill(const FillParams& p, int64_t e0, int64_t step, int64_t n, void* out, Isa isa = best_isa());

/// \brief out[k] = word w0 + k of (seed, stream), k in [0, n).
void fill_words(uint64_t seed, uint64_t stream, uint64_t w0, int64_t n, uint32_t* out, Isa isa = best_isa());

/// \brief out[k] = randint3(byte_at(seed, stream, e0 + k)), k in [0, n): the genotype-like
/// 0/1/2 matrix of linalg's RandInt3 source, drawn a run of whole words at a time.
void fill_randint3(uint64_t seed, uint64_t stream, int64_t e0, int64_t n, uint8_t* out);

// ---- Sequential draws -----------------------------------------------------------------------

/// \brief An unbounded sequence of draws owned by one index (for rejection samplers, whose
/// number of words varies). Block j of the sequence is philox_block(seed, stream + (j << 32),
/// index), so `stream` must fit in 32 bits and the sequence is still a pure function of
/// (seed, stream, index).
class Sequence {
 public:
  Sequence(uint64_t seed, uint32_t stream, uint64_t index) : seed_(seed), stream_(stream), index_(index) {}

  uint32_t next_word() {
    if (pos_ == 4) {
      buf_ = philox_block(seed_, uint64_t{stream_} | (uint64_t{block_++} << 32), index_);
      pos_ = 0;
    }
    return buf_[pos_++];
  }
  /// Uniform in [0, 1) from the next two words (uniform_f64).
  double uniform() {
    const uint32_t x = next_word();
    return uniform_f64(x, next_word());
  }
  /// Standard normal from the next two words (normal_f64, sine branch).
  double normal() {
    const uint32_t x = next_word();
    return normal_f64(x, next_word());
  }

 private:
  uint64_t seed_;
  uint32_t stream_;
  uint64_t index_;
  uint32_t block_ = 0;
  Words buf_{};
  int pos_ = 4;
};

}  // namespace strata::random
