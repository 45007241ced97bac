#pragma once
// The HTTP layer under the remote stores: one attempt of a request (HttpTransport, libcurl in
// curl_transport.cpp) and the client that retries attempts with backoff and counts traffic.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "strata/core/buffer.hpp"
#include "strata/core/result.hpp"

namespace strata::io::remote {

/// Defaults of the HTTP time limits (stated in the CLI's --help and docs/architecture.md).
inline constexpr int64_t kDefaultHttpStallSeconds = 15;
inline constexpr int64_t kDefaultHttpDeadlineSeconds = 120;

struct HttpRequest {
  std::string method = "GET";  ///< GET, HEAD, PUT, DELETE
  std::string url;             ///< complete and encoded
  std::vector<std::pair<std::string, std::string>> headers;
  std::span<const uint8_t> body;  ///< PUT payload
  /// A response body longer than this is refused (Corrupt) as soon as it is declared or grows
  /// past it; -1 = no bound. Error bodies are always cut to an excerpt.
  int64_t max_body = -1;
  /// For range reads: the exact body length a 206 must have; anything else is retried.
  int64_t expect_body = -1;
  /// The most this attempt may take (set by HttpClient from what is left of the request's
  /// deadline); -1 = the transport's own limit.
  int64_t timeout_ms = -1;
};

struct HttpResponse {
  long status = 0;
  Bytes body;                   ///< for status >= 300 only an excerpt
  int64_t content_length = -1;  ///< declared, -1 when absent
};

/// One attempt. A transport failure sets `retryable` when trying again may succeed (dropped or
/// refused connection, timeout, truncated body); TLS and usage failures are final.
class HttpTransport {
 public:
  virtual ~HttpTransport() = default;
  virtual Result<HttpResponse> perform(const HttpRequest& req, bool& retryable) = 0;
};

struct HttpClientOptions {
  int max_connections = 16;     ///< requests in flight at once (easy handles kept alive)
  int64_t connect_timeout_ms = 10'000;
  /// An attempt below 1 KB/s for this long (a server that accepts and never answers) times out;
  /// such an attempt is retried once at most. STRATA_HTTP_STALL_SECONDS, --http-stall.
  int64_t stall_timeout_s = kDefaultHttpStallSeconds;
  /// A request, all its attempts and waits together, fails after this long.
  /// STRATA_HTTP_DEADLINE_SECONDS, --http-deadline.
  int64_t deadline_s = kDefaultHttpDeadlineSeconds;
  int max_attempts = 5;          ///< per request, counting the first
  int64_t backoff_initial_ms = 100;
  int64_t backoff_max_ms = 5'000;
};

/// libcurl's transport (keep-alive pool of easy handles, TLS verification on); Unsupported
/// when strata was built without libcurl or libcurl cannot be loaded at run time.
Result<std::shared_ptr<HttpTransport>> make_curl_transport(const HttpClientOptions& options);

/// libcurl is dlopen'ed on first use (linking it costs every process ~27 shared libraries at
/// start-up): tries each of `names` in order, OK when one loads and has every entry point used.
/// Unsupported (naming the files tried and the package) otherwise. Not cached; for tests.
Status probe_curl_library(const std::vector<std::string>& names);

/// Retries, backoff and counters around a transport. Thread-safe.
class HttpClient {
 public:
  HttpClient(std::shared_ptr<HttpTransport> transport, HttpClientOptions options)
      : transport_(std::move(transport)), options_(options) {}
  /// Retried on retryable transport failures, 5xx, 429 and 408 (up to max_attempts, exponential
  /// backoff with jitter); any other status is returned for the store to interpret.
  Result<HttpResponse> send(const HttpRequest& req) const;
  int max_in_flight() const { return options_.max_connections; }

 private:
  std::shared_ptr<HttpTransport> transport_;
  HttpClientOptions options_;
};

/// The process-wide tally behind io::network_counters().
struct Counters {
  std::atomic<int64_t> requests{0}, retries{0}, bytes_received{0}, bytes_sent{0}, wait_ns{0};
  std::atomic<int64_t> prefetched{0}, prefetch_hits{0}, prefetch_peak_bytes{0};
};
Counters& counters();

/// The client every remote store of this process shares (one keep-alive pool).
Result<std::shared_ptr<HttpClient>> shared_http_client();

/// `url` without its query string and any user:password part, for messages.
std::string url_for_message(const std::string& url);
/// The first bytes of an error body, printable, for messages.
std::string body_excerpt(const Bytes& body);

}  // namespace strata::io::remote
