#pragma once
// A tiny BGEN writer for tests: the cases plink2 does not write (layout 1 uncompressed, 1- and
// 32-bit probabilities, ploidy 1, missing samples, zstd, multi-allelic) and broken files.
// Written from the BGEN spec (https://www.well.ox.ac.uk/~gav/bgen_format/spec/latest.html),
// independently of the reader.
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace strata::io::bgen_test {

inline void put_u16(std::vector<uint8_t>& b, uint32_t v) {
  b.push_back(static_cast<uint8_t>(v));
  b.push_back(static_cast<uint8_t>(v >> 8));
}
inline void put_u32(std::vector<uint8_t>& b, uint32_t v) {
  for (int i = 0; i < 4; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
inline void put_str16(std::vector<uint8_t>& b, const std::string& s) {
  put_u16(b, static_cast<uint32_t>(s.size()));
  b.insert(b.end(), s.begin(), s.end());
}
inline void put_str32(std::vector<uint8_t>& b, const std::string& s) {
  put_u32(b, static_cast<uint32_t>(s.size()));
  b.insert(b.end(), s.begin(), s.end());
}

/// One sample of a layout-2 block: its ploidy, missingness and stored probabilities (as
/// numerators of 2^bits − 1; the last probability of each group is implied, not given).
struct Call {
  int ploidy = 2;
  bool missing = false;
  std::vector<uint64_t> values;
};

/// The uncompressed layout-2 probability block.
inline std::vector<uint8_t> layout2_block(const std::vector<Call>& calls, int alleles, bool phased, int bits) {
  std::vector<uint8_t> b;
  put_u32(b, static_cast<uint32_t>(calls.size()));
  put_u16(b, static_cast<uint32_t>(alleles));
  int lo = 63, hi = 0;
  for (const auto& c : calls) lo = std::min(lo, c.ploidy), hi = std::max(hi, c.ploidy);
  if (calls.empty()) lo = hi = 2;
  b.push_back(static_cast<uint8_t>(lo));
  b.push_back(static_cast<uint8_t>(hi));
  for (const auto& c : calls) b.push_back(static_cast<uint8_t>(c.ploidy | (c.missing ? 0x80 : 0)));
  b.push_back(phased ? 1 : 0);
  b.push_back(static_cast<uint8_t>(bits));
  std::vector<bool> bitstream;
  for (const auto& c : calls)
    for (uint64_t v : c.values)
      for (int i = 0; i < bits; ++i) bitstream.push_back((v >> i) & 1);
  std::vector<uint8_t> packed((bitstream.size() + 7) / 8, 0);
  for (size_t i = 0; i < bitstream.size(); ++i)
    if (bitstream[i]) packed[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
  b.insert(b.end(), packed.begin(), packed.end());
  return b;
}

/// The uncompressed layout-1 block: three 16-bit probabilities (of 32768) per sample.
inline std::vector<uint8_t> layout1_block(const std::vector<std::array<uint16_t, 3>>& probs) {
  std::vector<uint8_t> b;
  for (const auto& p : probs)
    for (uint16_t x : p) put_u16(b, x);
  return b;
}

struct Variant {
  std::string rsid = "rs";
  std::string chr = "1";
  uint32_t pos = 1;
  std::vector<std::string> alleles{"A", "G"};
  std::vector<uint8_t> block;  ///< uncompressed probability block
};

enum Compression { kNone = 0, kZlib = 1, kZstd = 2 };

inline std::vector<uint8_t> compress(const std::vector<uint8_t>& raw, int compression) {
  if (compression == kZlib) {
    uLongf n = compressBound(static_cast<uLong>(raw.size()));
    std::vector<uint8_t> out(n);
    compress2(out.data(), &n, raw.data(), static_cast<uLong>(raw.size()), 6);
    out.resize(n);
    return out;
  }
  std::vector<uint8_t> out(ZSTD_compressBound(raw.size()));
  out.resize(ZSTD_compress(out.data(), out.size(), raw.data(), raw.size(), 3));
  return out;
}

/// A whole file; `ids` empty = no sample identifier block.
inline std::vector<uint8_t> write_bgen(int layout, int compression, uint32_t num_samples,
                                       const std::vector<std::string>& ids, const std::vector<Variant>& variants) {
  std::vector<uint8_t> sample_block;
  if (!ids.empty()) {
    std::vector<uint8_t> body;
    for (const auto& id : ids) put_str16(body, id);
    put_u32(sample_block, static_cast<uint32_t>(body.size() + 8));
    put_u32(sample_block, num_samples);
    sample_block.insert(sample_block.end(), body.begin(), body.end());
  }
  const uint32_t header_length = 20;
  std::vector<uint8_t> b;
  put_u32(b, header_length + static_cast<uint32_t>(sample_block.size()));
  put_u32(b, header_length);
  put_u32(b, static_cast<uint32_t>(variants.size()));
  put_u32(b, num_samples);
  b.insert(b.end(), {'b', 'g', 'e', 'n'});
  put_u32(b, static_cast<uint32_t>(compression) | (static_cast<uint32_t>(layout) << 2) | (ids.empty() ? 0u : 1u << 31));
  b.insert(b.end(), sample_block.begin(), sample_block.end());
  for (const auto& v : variants) {
    if (layout == 1) put_u32(b, num_samples);
    put_str16(b, "snp_" + v.rsid);
    put_str16(b, v.rsid);
    put_str16(b, v.chr);
    put_u32(b, v.pos);
    if (layout == 2) put_u16(b, static_cast<uint32_t>(v.alleles.size()));
    for (const auto& a : v.alleles) put_str32(b, a);
    if (compression == kNone) {
      if (layout == 2) put_u32(b, static_cast<uint32_t>(v.block.size()));
      b.insert(b.end(), v.block.begin(), v.block.end());
    } else {
      const auto c = compress(v.block, compression);
      put_u32(b, static_cast<uint32_t>(c.size() + (layout == 2 ? 4 : 0)));
      if (layout == 2) put_u32(b, static_cast<uint32_t>(v.block.size()));
      b.insert(b.end(), c.begin(), c.end());
    }
  }
  return b;
}

}  // namespace strata::io::bgen_test
