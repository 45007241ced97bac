#pragma once
/// \file
/// Philox4x32-10, the counter-based generator behind strata's random arrays.
///
/// A block of four 32-bit words is a pure function of a 128-bit counter and a 64-bit key, so any
/// element of a random array can be produced independently of every other (chunking, thread
/// count and slicing never change a value). See ../shared/reference/formats.md §9.
///
/// Keying used by strata's random sources (key = seed, k0 = low half, k1 = high half):
/// - counter = {lo(b), hi(b), lo(stream), hi(stream)} for block index `b`;
/// - 1-word elements (float32 uniform): element e is word e % 4 of block e / 4;
/// - 2-word elements (float64 uniform, integers): element e is words 2(e%2), 2(e%2)+1 of block e / 2;
/// - normals: element e uses word pair e / 2, i.e. block e / 4, words 2((e/2)%2) and +1;
///   even e takes the sine branch of Box–Muller, odd e the cosine branch.
///
/// \code
/// auto w = strata::philox4x32_10({0, 0, 0, 0}, {1234, 0});  // w[0] == 0x2090b348
/// \endcode

#include <array>
#include <cstdint>

namespace strata {

/// Multipliers and Weyl key increments of Philox4x32 (Random123).
inline constexpr uint32_t kPhiloxM0 = 0xD2511F53u;
inline constexpr uint32_t kPhiloxM1 = 0xCD9E8D57u;
inline constexpr uint32_t kPhiloxW0 = 0x9E3779B9u;
inline constexpr uint32_t kPhiloxW1 = 0xBB67AE85u;

/// \brief Compute one Philox4x32-10 block: four words from a counter and a key.
constexpr std::array<uint32_t, 4> philox4x32_10(std::array<uint32_t, 4> c, std::array<uint32_t, 2> k) {
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

/// \brief The Philox block `block` of stream `stream` under `seed` (strata's keying above).
constexpr std::array<uint32_t, 4> philox_block(uint64_t seed, uint64_t stream, uint64_t block) {
  return philox4x32_10({static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32),
                        static_cast<uint32_t>(stream), static_cast<uint32_t>(stream >> 32)},
                       {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)});
}

}  // namespace strata
