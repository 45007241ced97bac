// AWS Signature Version 4 (header-based authorization).
#include "io/remote/sigv4_internal.hpp"

#include <algorithm>
#include <cctype>
#include <ctime>

#include "io/remote/sha256_internal.hpp"

namespace strata::io::remote {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Header values: leading/trailing spaces removed, inner runs of spaces folded to one.
std::string trim_value(std::string_view v) {
  std::string out;
  bool space = false;
  for (char c : v) {
    if (c == ' ' || c == '\t') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

std::span<const uint8_t> bytes_of(const Digest& d) { return {d.data(), d.size()}; }
std::span<const uint8_t> bytes_of(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

}  // namespace

std::string uri_encode(std::string_view s, bool keep_slash) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || (keep_slash && c == '/')) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::string amz_date_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}

SigV4Signature sigv4_sign(const SigV4Request& req, const AwsCredentials& creds, std::string_view region,
                          std::string_view service, std::string_view amz_date) {
  std::vector<std::pair<std::string, std::string>> q;
  for (const auto& [k, v] : req.query) q.emplace_back(uri_encode(k, false), uri_encode(v, false));
  std::sort(q.begin(), q.end());
  std::string query;
  for (const auto& [k, v] : q) query += (query.empty() ? "" : "&") + k + "=" + v;

  std::vector<std::pair<std::string, std::string>> h;
  for (const auto& [k, v] : req.headers) h.emplace_back(lower(k), trim_value(v));
  std::sort(h.begin(), h.end());
  std::string canonical_headers, signed_headers;
  for (const auto& [k, v] : h) {
    canonical_headers += k + ":" + v + "\n";
    signed_headers += (signed_headers.empty() ? "" : ";") + k;
  }

  SigV4Signature s;
  s.canonical_request = req.method + "\n" + (req.path.empty() ? "/" : req.path) + "\n" + query + "\n" +
                        canonical_headers + "\n" + signed_headers + "\n" + req.payload_sha256_hex;
  const std::string date(amz_date.substr(0, 8));
  const std::string scope = date + "/" + std::string(region) + "/" + std::string(service) + "/aws4_request";
  s.string_to_sign = "AWS4-HMAC-SHA256\n" + std::string(amz_date) + "\n" + scope + "\n" +
                     to_hex(bytes_of(sha256(s.canonical_request)));
  const std::string k0 = "AWS4" + creds.secret_access_key;
  const Digest k_date = hmac_sha256(bytes_of(k0), date);
  const Digest k_region = hmac_sha256(bytes_of(k_date), region);
  const Digest k_service = hmac_sha256(bytes_of(k_region), service);
  const Digest k_signing = hmac_sha256(bytes_of(k_service), "aws4_request");
  s.signature = to_hex(bytes_of(hmac_sha256(bytes_of(k_signing), s.string_to_sign)));
  s.authorization = "AWS4-HMAC-SHA256 Credential=" + creds.access_key_id + "/" + scope +
                    ", SignedHeaders=" + signed_headers + ", Signature=" + s.signature;
  return s;
}

}  // namespace strata::io::remote
