// PLINK 2 `.pgen` record decoding (pgen_spec.tex, "Variant records"): difflists, the main
// track's eight storage types, the hardcall-phase track (stepped over) and the dosage track.
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include "io/genotype/code_counts_internal.hpp"
#include "io/genotype/pgen_decode_internal.hpp"

namespace strata::io::detail::pgen {
namespace {

constexpr uint64_t kLow = 0x5555555555555555ull;

// Bytes a difflist uses per sample ID for n samples (pgen_spec "Difflists").
int id_bytes(int64_t n) { return n <= (1 << 8) ? 1 : n <= (1 << 16) ? 2 : n <= (1 << 24) ? 3 : 4; }

bool read_varint(Cursor& c, uint32_t& out) {
  uint32_t v = 0;
  for (int shift = 0; shift < 35; shift += 7) {
    if (c.p >= c.end) return false;
    const uint8_t b = *c.p++;
    v |= static_cast<uint32_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      out = v;
      return true;
    }
  }
  return false;
}

uint32_t load_le(const uint8_t* p, int bytes) {
  uint32_t v = 0;
  for (int k = 0; k < bytes; ++k) v |= static_cast<uint32_t>(p[k]) << (8 * k);
  return v;
}

// Walk a difflist, calling fn(sample, genotype) per entry (genotype 0 when the list has none).
template <class F>
std::string read_difflist(Cursor& c, int64_t n, bool with_genotypes, F&& fn) {
  uint32_t len = 0;
  if (!read_varint(c, len)) return "difflist length runs past the record";
  if (len == 0) return "";
  if (len > static_cast<uint64_t>(n)) return "difflist longer than the sample count";
  const int w = id_bytes(n);
  const int64_t groups = (int64_t{len} + 63) / 64;
  const int64_t head = groups * w + (groups - 1) + (with_genotypes ? (int64_t{len} + 3) / 4 : 0);
  if (c.left() < head) return "difflist header runs past the record";
  const uint8_t* starts = c.p;
  const uint8_t* genos = c.p + groups * w + (groups - 1);
  c.p += head;
  uint32_t id = 0;
  for (uint32_t i = 0; i < len; ++i) {
    if ((i & 63) == 0) {
      const uint32_t start = load_le(starts + (i >> 6) * w, w);
      if (i > 0 && start <= id) return "difflist sample indices not increasing";
      id = start;
    } else {
      uint32_t delta = 0;
      if (!read_varint(c, delta)) return "difflist entries run past the record";
      if (delta == 0) return "difflist sample indices not increasing";
      id += delta;
    }
    if (id >= n) return "difflist sample index past the sample count";
    fn(id, with_genotypes ? static_cast<uint8_t>((genos[i >> 2] >> (2 * (i & 3))) & 3) : uint8_t{0});
  }
  return "";
}

inline void put_code(uint8_t* row, uint32_t j, uint8_t code) {
  const int shift = static_cast<int>(2 * (j & 3));
  row[j >> 2] = static_cast<uint8_t>((row[j >> 2] & ~(3u << shift)) | (code << shift));
}

// Bits 0-7 of a byte spread to bit pairs: bit k → bit 2k.
constexpr std::array<uint16_t, 256> make_spread() {
  std::array<uint16_t, 256> t{};
  for (int b = 0; b < 256; ++b)
    for (int k = 0; k < 8; ++k)
      if (b >> k & 1) t[b] = static_cast<uint16_t>(t[b] | (1u << (2 * k)));
  return t;
}
constexpr auto kSpread = make_spread();

void clear_trailing(uint8_t* row, int64_t n) {
  if (n & 3) row[n >> 2] = static_cast<uint8_t>(row[n >> 2] & ((1u << (2 * (n & 3))) - 1));
}

int64_t count_hets(const uint8_t* row, int64_t n) {
  const int64_t bytes = (n + 3) / 4;
  int64_t hets = 0, i = 0;
  for (; i + 8 <= bytes; i += 8) {
    uint64_t x;
    std::memcpy(&x, row + i, 8);
    hets += std::popcount(x & ~(x >> 1) & kLow);
  }
  for (; i < bytes; ++i) hets += std::popcount(static_cast<unsigned>(row[i] & ~(row[i] >> 1) & 0x55));
  return hets;
}

int64_t popcount_bytes(const uint8_t* p, int64_t bytes) {
  int64_t s = 0;
  for (int64_t i = 0; i < bytes; ++i) s += std::popcount(static_cast<unsigned>(p[i]));
  return s;
}

// The header of a 1-bit main track: its two common codes are lo and lo + delta (a set bit
// picks the higher); the bit track (⌈n/8⌉ bytes) must follow within the record.
std::string read_common_pair(Cursor& c, int64_t n, uint32_t& lo, uint32_t& delta) {
  if (c.left() < 1 + (n + 7) / 8) return "1-bit main track runs past the record";
  const uint8_t common = *c.p++;
  if (common != 1 && common != 2 && common != 3 && common != 5 && common != 6 && common != 9)
    return "1-bit main track names an unknown pair of common genotypes";
  lo = common >> 2;
  delta = common & 3;
  return "";
}

}  // namespace

std::string decode_main_track(uint8_t type, int64_t n, const uint8_t* ld_base, Cursor& c, uint8_t* row) {
  const int64_t row_bytes = (n + 3) / 4;
  const uint8_t main = type & kMainMask;
  auto patch = [row](uint32_t j, uint8_t g) { put_code(row, j, g); };
  std::string err;
  switch (main) {
    case 0:
      if (c.left() < row_bytes) return "2-bit main track runs past the record";
      std::memcpy(row, c.p, static_cast<size_t>(row_bytes));
      c.p += row_bytes;
      break;
    case 1: {
      const int64_t bits = (n + 7) / 8;
      uint32_t lo = 0, delta = 0;
      if (std::string e = read_common_pair(c, n, lo, delta); !e.empty()) return e;
      for (int64_t b = 0; b < bits; ++b) {
        const uint32_t v = lo * 0x5555u + kSpread[c.p[b]] * delta;
        row[2 * b] = static_cast<uint8_t>(v);
        if (2 * b + 1 < row_bytes) row[2 * b + 1] = static_cast<uint8_t>(v >> 8);
      }
      c.p += bits;
      clear_trailing(row, n);
      err = read_difflist(c, n, true, patch);
      break;
    }
    case 2:
    case 3:
      if (!ld_base) return "LD-compressed record without a previous record to refer to";
      std::memcpy(row, ld_base, static_cast<size_t>(row_bytes));
      err = read_difflist(c, n, true, patch);
      if (main == 3) {  // inverted: hom-REF and two-ALT swap after the patch
        for (int64_t i = 0; i < row_bytes; ++i) row[i] = static_cast<uint8_t>(row[i] ^ ((~row[i] & 0x55u) << 1));
        clear_trailing(row, n);
      }
      break;
    case 5:  // all hom-REF, nothing stored
      std::memset(row, 0, static_cast<size_t>(row_bytes));
      break;
    default: {  // 4, 6, 7: everyone in category 0, 2 or 3 except a difflist
      const uint8_t fill = static_cast<uint8_t>((main & 3) * 0x55u);
      std::memset(row, fill, static_cast<size_t>(row_bytes));
      clear_trailing(row, n);
      err = read_difflist(c, n, true, patch);
      break;
    }
  }
  return err;
}

std::string count_main_track(uint8_t type, int64_t n, Cursor& c, int64_t counts[4]) {
  const uint8_t main = type & kMainMask;
  switch (main) {
    case 0: {
      const int64_t row_bytes = (n + 3) / 4;
      if (c.left() < row_bytes) return "2-bit main track runs past the record";
      add_code_counts(c.p, n, counts);
      c.p += row_bytes;
      return "";
    }
    case 1: {
      const int64_t bits = (n + 7) / 8;
      uint32_t lo = 0, delta = 0;
      if (std::string e = read_common_pair(c, n, lo, delta); !e.empty()) return e;
      const uint32_t hi = lo + delta;
      const uint8_t* set = c.p;
      const int64_t his = count_set_bits(set, n);
      counts[hi] += his;
      counts[lo] += n - his;
      c.p += bits;
      // An entry replaces the code its bit gave.
      return read_difflist(c, n, true, [&](uint32_t j, uint8_t g) {
        --counts[(set[j >> 3] >> (j & 7) & 1) ? hi : lo];
        ++counts[g];
      });
    }
    case 2:
    case 3:
      return "LD-compressed record counted without its base record";
    default: {  // 4-7: everyone in category 0, 2 or 3 (5: 0, nothing stored) except a difflist
      const uint32_t fill = main == 5 ? 0 : main & 3;
      counts[fill] += n;
      if (main == 5) return "";
      return read_difflist(c, n, true, [&](uint32_t, uint8_t g) {
        --counts[fill];
        ++counts[g];
      });
    }
  }
}

std::string count_ld_main_track(uint8_t type, int64_t n, const uint8_t* ld_base, const int64_t base_counts[4],
                                Cursor& c, int64_t counts[4]) {
  if (!is_ld_compressed(type)) return "not an LD-compressed record";
  int64_t k[4] = {base_counts[0], base_counts[1], base_counts[2], base_counts[3]};
  std::string err = read_difflist(c, n, true, [&](uint32_t j, uint8_t g) {
    --k[(ld_base[j >> 2] >> (2 * (j & 3))) & 3];
    ++k[g];
  });
  if (!err.empty()) return err;
  if ((type & kMainMask) == 3) std::swap(k[0], k[2]);  // inverted: hom-REF and two-ALT swap
  for (int i = 0; i < 4; ++i) counts[i] += k[i];
  return "";
}

std::string skip_phase_track(int64_t n, const uint8_t* row, Cursor& c) {
  const int64_t hets = count_hets(row, n);
  if (c.left() < 1) return "phase track runs past the record";
  const bool explicit_present = c.p[0] & 1;
  const int64_t head = (1 + hets + 7) / 8;
  if (c.left() < head) return "phase track runs past the record";
  if (!explicit_present) {
    c.p += head;
    return "";
  }
  // Bits 1..hets say which hets are phased; the phase bits of those follow, byte-aligned.
  int64_t phased = popcount_bytes(c.p, head) - 1;
  c.p += head;
  const int64_t info = (phased + 7) / 8;
  if (phased < 0 || c.left() < info) return "phase track runs past the record";
  c.p += info;
  return "";
}

void codes_to_dosages(const uint8_t* row, int64_t n, float* dosage) {
  static const float kValue[4] = {0.0f, 1.0f, 2.0f, std::numeric_limits<float>::quiet_NaN()};
  for (int64_t j = 0; j < n; ++j) dosage[j] = kValue[(row[j >> 2] >> (2 * (j & 3))) & 3];
}

std::string decode_dosage_track(uint8_t type, int64_t n, const uint8_t* row, Cursor& c, float* dosage) {
  codes_to_dosages(row, n, dosage);
  const int mode = (type & kDosageMask) >> 5;
  auto value = [&](uint32_t j, uint16_t v) -> bool {
    if (v > 32768) return false;
    dosage[j] = static_cast<float>(v) * (1.0f / 16384.0f);
    return true;
  };
  auto u16 = [](const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); };
  if (mode == 2) {  // every sample, 65535 = missing
    if (c.left() < 2 * n) return "dosage track runs past the record";
    for (int64_t j = 0; j < n; ++j) {
      const uint16_t v = u16(c.p + 2 * j);
      if (v == 65535) dosage[j] = std::numeric_limits<float>::quiet_NaN();
      else if (!value(static_cast<uint32_t>(j), v)) return "dosage above 2";
    }
    c.p += 2 * n;
    return "";
  }
  thread_local std::vector<uint32_t> ids;  // samples with an explicit dosage, in order
  ids.clear();
  if (mode == 1) {
    std::string err = read_difflist(c, n, false, [](uint32_t j, uint8_t) { ids.push_back(j); });
    if (!err.empty()) return "dosage sample list: " + err;
  } else {
    const int64_t bytes = (n + 7) / 8;
    if (c.left() < bytes) return "dosage presence bits run past the record";
    for (int64_t j = 0; j < n; ++j)
      if (c.p[j >> 3] >> (j & 7) & 1) ids.push_back(static_cast<uint32_t>(j));
    c.p += bytes;
  }
  const int64_t d = static_cast<int64_t>(ids.size());
  if (c.left() < 2 * d) return "dosage values run past the record";
  for (int64_t k = 0; k < d; ++k)
    if (!value(ids[static_cast<size_t>(k)], u16(c.p + 2 * k))) return "dosage above 2";
  c.p += 2 * d;
  return "";
}

}  // namespace strata::io::detail::pgen
