// HttpClient: retries with exponential backoff and jitter, network counters; the shared client.
#include "io/remote/http_client_internal.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <random>
#include <thread>

#include "strata/core/config.hpp"
#include "strata/io/remote.hpp"

namespace strata::io {
namespace remote {

Counters& counters() {
  static Counters c;
  return c;
}

namespace {

bool retry_status(long s) { return s >= 500 || s == 429 || s == 408; }

int64_t env_int(const char* name, int64_t fallback, int64_t lo, int64_t hi) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  long long x = std::strtoll(v, &end, 10);
  if (*end != '\0' || x < lo || x > hi) return fallback;
  return x;
}

}  // namespace

std::string url_for_message(const std::string& url) {
  std::string u = url.substr(0, url.find_first_of("?#"));
  const size_t scheme = u.find("://");
  if (scheme != std::string::npos) {
    const size_t host = scheme + 3;
    const size_t at = u.find('@', host);
    const size_t slash = u.find('/', host);
    if (at != std::string::npos && (slash == std::string::npos || at < slash)) u.erase(host, at + 1 - host);
  }
  return u;
}

std::string body_excerpt(const Bytes& body) {
  std::string s;
  for (size_t i = 0; i < body.size() && s.size() < 300; ++i) {
    const char c = static_cast<char>(body[i]);
    s += (c >= 32 && c < 127) ? c : ' ';
  }
  if (body.size() > 300) s += "…";
  return s;
}

Result<HttpResponse> HttpClient::send(const HttpRequest& req) const {
  Counters& c = counters();
  thread_local std::minstd_rand jitter(std::random_device{}());
  int64_t backoff = options_.backoff_initial_ms;
  Status last;
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::seconds(options_.deadline_s);
  auto left_ms = [&] { return std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count(); };
  auto past_deadline = [&](const Status& why, int attempts) {
    return Status::IOError(why.message(), " (no complete answer within the ", options_.deadline_s, " s deadline per request after ",
                           attempts, attempts == 1 ? " attempt" : " attempts",
                           "; STRATA_HTTP_DEADLINE_SECONDS or --http-deadline sets it)");
  };
  int stalls = 0;
  HttpRequest attempt_req = req;
  for (int attempt = 1;; ++attempt) {
    const auto t0 = Clock::now();
    bool retryable = false;
    attempt_req.timeout_ms = std::max<int64_t>(left_ms(), 1);
    auto r = transport_->perform(attempt_req, retryable);
    const auto took = Clock::now() - t0;
    c.wait_ns += std::chrono::duration_cast<std::chrono::nanoseconds>(took).count();
    c.requests += 1;
    c.bytes_sent += static_cast<int64_t>(req.body.size());
    if (r.ok()) c.bytes_received += static_cast<int64_t>(r->body.size());
    if (r.ok() && !retry_status(r->status)) return r;
    if (r.ok()) {
      last = Status::IOError(req.method, " ", url_for_message(req.url), ": HTTP ", r->status,
                             r->body.empty() ? "" : ": ", body_excerpt(r->body));
    } else {
      last = r.status();
      if (!retryable) return last;
      // An attempt that ran a whole stall period got no answer: a server silent twice will
      // not answer a third time.
      if (took >= std::chrono::seconds(options_.stall_timeout_s) && ++stalls >= 2) {
        return Status::IOError(last.message(), " (no answer in ", attempt, " attempts: the server stalled for ",
                               options_.stall_timeout_s, " s each time; STRATA_HTTP_STALL_SECONDS or --http-stall sets it)");
      }
    }
    if (left_ms() <= 0) return past_deadline(last, attempt);
    if (attempt >= options_.max_attempts) {
      return Status(last.code(), str_cat(last.message(), " (gave up after ", attempt, " attempts)"));
    }
    c.retries += 1;
    // Full jitter: a random wait up to the current backoff, which doubles up to the cap.
    const int64_t wait = std::min(std::uniform_int_distribution<int64_t>(backoff / 2, backoff)(jitter), left_ms());
    std::this_thread::sleep_for(std::chrono::milliseconds(std::max<int64_t>(wait, 0)));
    if (left_ms() <= 0) return past_deadline(last, attempt);
    backoff = std::min(backoff * 2, options_.backoff_max_ms);
  }
}

#if !STRATA_HAVE_CURL
Result<std::shared_ptr<HttpTransport>> make_curl_transport(const HttpClientOptions&) {
  return Status::Unsupported("this strata was built without libcurl: http(s)://, s3:// and gs:// are unavailable "
                             "(install libcurl4-gnutls-dev and rebuild)");
}
#endif

Result<std::shared_ptr<HttpClient>> shared_http_client() {
  static std::mutex mu;
  static std::shared_ptr<HttpClient> client;
  std::lock_guard lock(mu);
  if (client) return client;
  HttpClientOptions o;
  // Knobs for tests and slow links; out-of-range values keep the defaults.
  o.max_connections = static_cast<int>(env_int("STRATA_HTTP_CONNECTIONS", o.max_connections, 1, 256));
  o.max_attempts = static_cast<int>(env_int("STRATA_HTTP_ATTEMPTS", o.max_attempts, 1, 20));
  o.backoff_initial_ms = env_int("STRATA_HTTP_BACKOFF_MS", o.backoff_initial_ms, 1, 60'000);
  o.stall_timeout_s = env_int("STRATA_HTTP_STALL_SECONDS", o.stall_timeout_s, 1, 3'600);
  o.deadline_s = env_int("STRATA_HTTP_DEADLINE_SECONDS", o.deadline_s, 1, 86'400);
  o.connect_timeout_ms = env_int("STRATA_HTTP_CONNECT_TIMEOUT_MS", o.connect_timeout_ms, 100, 600'000);
  STRATA_ASSIGN_OR_RETURN(auto transport, make_curl_transport(o));
  client = std::make_shared<HttpClient>(std::move(transport), o);
  return client;
}

}  // namespace remote

NetworkCounters network_counters() {
  remote::Counters& c = remote::counters();
  NetworkCounters n;
  n.requests = c.requests.load();
  n.retries = c.retries.load();
  n.bytes_received = c.bytes_received.load();
  n.bytes_sent = c.bytes_sent.load();
  n.wait_seconds = static_cast<double>(c.wait_ns.load()) * 1e-9;
  n.prefetched = c.prefetched.load();
  n.prefetch_hits = c.prefetch_hits.load();
  n.prefetch_peak_bytes = c.prefetch_peak_bytes.load();
  return n;
}

}  // namespace strata::io
