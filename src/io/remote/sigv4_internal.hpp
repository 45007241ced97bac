#pragma once
// AWS Signature Version 4 for S3 requests (header form). The canonical request, string to sign
// and signature are exposed so tests can check each against AWS's published examples.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace strata::io::remote {

struct AwsCredentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;  ///< empty when none
  bool anonymous() const { return access_key_id.empty() || secret_access_key.empty(); }
};

/// One request to sign. `path` is the URI path already encoded as it is sent ("/bucket/a%20b");
/// query parameters are raw (encoded here); headers are the ones to sign, any case.
struct SigV4Request {
  std::string method;
  std::string path;
  std::vector<std::pair<std::string, std::string>> query;
  std::vector<std::pair<std::string, std::string>> headers;  ///< must include host and x-amz-date
  std::string payload_sha256_hex;
};

struct SigV4Signature {
  std::string canonical_request;
  std::string string_to_sign;
  std::string signature;      ///< hex
  std::string authorization;  ///< the Authorization header value
};

/// `amz_date` is the request's x-amz-date ("20130524T000000Z").
SigV4Signature sigv4_sign(const SigV4Request& req, const AwsCredentials& creds, std::string_view region,
                          std::string_view service, std::string_view amz_date);

/// RFC 3986 percent-encoding as SigV4 wants it: unreserved characters kept, everything else
/// %XX (upper-case hex); '/' kept only when `keep_slash`.
std::string uri_encode(std::string_view s, bool keep_slash);

/// The current UTC time as x-amz-date ("YYYYMMDDTHHMMSSZ").
std::string amz_date_now();

}  // namespace strata::io::remote
