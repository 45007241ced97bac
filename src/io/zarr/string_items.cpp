// Zarr v2 string chunk layouts (see string_items_internal.hpp).
#include "io/zarr/string_items_internal.hpp"

#include <bit>
#include <cstring>

#include "strata/core/status.hpp"

namespace strata::io::detail {
namespace {

uint32_t load_u32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap32(v);
  return v;
}

void store_u32(uint8_t* p, uint32_t v) {
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap32(v);
  std::memcpy(p, &v, 4);
}

void append_utf8(std::string& out, uint32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

// Code points of a UTF-8 string; false on malformed input (overlong forms and surrogates too).
bool utf8_to_ucs4(const std::string& s, std::vector<uint32_t>& out) {
  out.clear();
  for (size_t i = 0; i < s.size();) {
    const auto b = static_cast<uint8_t>(s[i]);
    const int n = b < 0x80 ? 0 : (b >> 5) == 6 ? 1 : (b >> 4) == 14 ? 2 : (b >> 3) == 30 ? 3 : -1;
    if (n < 0 || static_cast<size_t>(n) >= s.size() - i) return false;
    uint32_t c = n == 0 ? b : (b & (0x3F >> n));
    for (int k = 1; k <= n; ++k) {
      const auto t = static_cast<uint8_t>(s[i + k]);
      if ((t & 0xC0) != 0x80) return false;
      c = (c << 6) | (t & 0x3F);
    }
    static constexpr uint32_t kMin[] = {0, 0x80, 0x800, 0x10000};
    if (c < kMin[n] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return false;
    out.push_back(c);
    i += static_cast<size_t>(n) + 1;
  }
  return true;
}

}  // namespace

Bytes encode_vlen(const std::vector<std::string>& items) {
  size_t total = 4;
  for (const auto& s : items) total += 4 + s.size();
  Bytes out(total);
  uint8_t* p = out.data();
  store_u32(p, static_cast<uint32_t>(items.size()));
  p += 4;
  for (const auto& s : items) {
    store_u32(p, static_cast<uint32_t>(s.size()));
    std::memcpy(p + 4, s.data(), s.size());
    p += 4 + s.size();
  }
  return out;
}

Result<std::vector<std::string>> decode_vlen(std::span<const uint8_t> d, int64_t expected) {
  if (d.size() < 4) return Status::Corrupt("vlen chunk of ", d.size(), " bytes is shorter than its header");
  const uint32_t n = load_u32(d.data());
  if (static_cast<int64_t>(n) != expected)
    return Status::Corrupt("vlen chunk holds ", n, " items, expected ", expected);
  std::vector<std::string> out;
  out.reserve(n);
  size_t pos = 4;
  for (uint32_t i = 0; i < n; ++i) {
    if (d.size() - pos < 4) return Status::Corrupt("vlen chunk truncated at item ", i);
    const uint32_t len = load_u32(d.data() + pos);
    pos += 4;
    if (len > d.size() - pos) return Status::Corrupt("vlen chunk truncated at item ", i);
    out.emplace_back(reinterpret_cast<const char*>(d.data() + pos), len);
    pos += len;
  }
  if (pos != d.size()) return Status::Corrupt("vlen chunk has ", d.size() - pos, " bytes after its last item");
  return out;
}

Result<Bytes> encode_fixed(const std::vector<std::string>& items, int64_t width, bool ucs4) {
  const int64_t item = ucs4 ? 4 * width : width;
  Bytes out(items.size() * static_cast<size_t>(item), 0);
  std::vector<uint32_t> cps;
  for (size_t i = 0; i < items.size(); ++i) {
    uint8_t* p = out.data() + i * static_cast<size_t>(item);
    if (!ucs4) {
      if (static_cast<int64_t>(items[i].size()) > width)
        return Status::Invalid("string of ", items[i].size(), " bytes does not fit dtype |S", width);
      std::memcpy(p, items[i].data(), items[i].size());
      continue;
    }
    if (!utf8_to_ucs4(items[i], cps)) return Status::Invalid("string ", i, " is not valid UTF-8");
    if (static_cast<int64_t>(cps.size()) > width)
      return Status::Invalid("string of ", cps.size(), " characters does not fit dtype <U", width);
    for (size_t k = 0; k < cps.size(); ++k) std::memcpy(p + 4 * k, &cps[k], 4);
  }
  return out;
}

Result<std::vector<std::string>> decode_fixed(std::span<const uint8_t> d, int64_t expected, int64_t width,
                                              bool ucs4, bool big_endian) {
  const int64_t item = ucs4 ? 4 * width : width;
  if (static_cast<int64_t>(d.size()) != expected * item)
    return Status::Corrupt("chunk holds ", d.size(), " bytes, expected ", expected * item);
  const bool swap = big_endian != (std::endian::native == std::endian::big);
  std::vector<std::string> out(static_cast<size_t>(expected));
  for (int64_t i = 0; i < expected; ++i) {
    const uint8_t* p = d.data() + i * item;
    std::string& s = out[static_cast<size_t>(i)];
    if (!ucs4) {
      int64_t len = width;
      while (len > 0 && p[len - 1] == 0) --len;  // numpy strips trailing NULs
      s.assign(reinterpret_cast<const char*>(p), static_cast<size_t>(len));
      continue;
    }
    int64_t len = width;
    while (len > 0 && std::memcmp(p + 4 * (len - 1), "\0\0\0\0", 4) == 0) --len;
    for (int64_t k = 0; k < len; ++k) {
      uint32_t c;
      std::memcpy(&c, p + 4 * k, 4);
      if (swap) c = __builtin_bswap32(c);
      if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return Status::Corrupt("item ", i, " holds code point ", c, ", not a Unicode scalar value");
      append_utf8(s, c);
    }
  }
  return out;
}

}  // namespace strata::io::detail
