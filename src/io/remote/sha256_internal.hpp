#pragma once
// SHA-256 and HMAC-SHA256 (FIPS 180-4, RFC 2104) for AWS Signature V4. Self-contained so the io
// layer needs no crypto library beside libcurl's TLS.

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace strata::io::remote {

using Digest = std::array<uint8_t, 32>;

Digest sha256(std::span<const uint8_t> data);
inline Digest sha256(std::string_view s) {
  return sha256(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size()));
}
Digest hmac_sha256(std::span<const uint8_t> key, std::string_view message);
/// Lower-case hexadecimal.
std::string to_hex(std::span<const uint8_t> bytes);

}  // namespace strata::io::remote
