// HttpTransport on libcurl: a bounded pool of easy handles, each keeping its connection alive
// between requests; TLS peer and host verification stay on.
#include <curl/curl.h>

#include <cctype>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <vector>

#include "io/remote/http_client_internal.hpp"

namespace strata::io::remote {
namespace {

constexpr size_t kErrorExcerptBytes = 4096;

struct Transfer {
  const HttpRequest* req = nullptr;
  HttpResponse* resp = nullptr;
  bool too_large = false;
  bool bad_length = false;
  int64_t declared = -1;
};

bool starts_with_ci(const char* s, size_t n, const char* prefix) {
  const size_t m = std::strlen(prefix);
  if (n < m) return false;
  for (size_t i = 0; i < m; ++i)
    if (std::tolower(static_cast<unsigned char>(s[i])) != prefix[i]) return false;
  return true;
}

// Status lines reset what earlier (redirect, 100-continue) responses declared.
size_t on_header(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t len = size * n;
  if (starts_with_ci(data, len, "http/")) {
    const char* sp = static_cast<const char*>(std::memchr(data, ' ', len));
    t->resp->status = sp ? std::strtol(sp + 1, nullptr, 10) : 0;
    t->declared = -1;
    t->resp->body.clear();
  } else if (starts_with_ci(data, len, "content-length:")) {
    t->declared = std::strtoll(data + 15, nullptr, 10);
    t->resp->content_length = t->declared;
    // Refuse an oversized body before reading it.
    if (t->resp->status < 300 && t->req->max_body >= 0 && t->declared > t->req->max_body) {
      t->too_large = true;
      return 0;
    }
  }
  return len;
}

size_t on_body(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t len = size * n;
  Bytes& b = t->resp->body;
  if (t->resp->status >= 300) {
    // Error bodies: keep an excerpt for the message, drain the rest.
    const size_t keep = std::min(len, kErrorExcerptBytes - std::min(kErrorExcerptBytes, b.size()));
    b.insert(b.end(), reinterpret_cast<uint8_t*>(data), reinterpret_cast<uint8_t*>(data) + keep);
    return len;
  }
  if (t->req->max_body >= 0 && static_cast<int64_t>(b.size() + len) > t->req->max_body) {
    t->too_large = true;
    return 0;
  }
  if (b.empty() && t->declared > 0) b.reserve(static_cast<size_t>(t->declared));
  b.insert(b.end(), reinterpret_cast<uint8_t*>(data), reinterpret_cast<uint8_t*>(data) + len);
  return len;
}

bool retryable_code(CURLcode rc) {
  switch (rc) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_CONNECT:
    case CURLE_PARTIAL_FILE:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_WEIRD_SERVER_REPLY:
      return true;
    default:
      return false;
  }
}

class CurlTransport final : public HttpTransport {
 public:
  explicit CurlTransport(const HttpClientOptions& o) : o_(o) {}
  ~CurlTransport() override {
    for (CURL* h : free_) curl_easy_cleanup(h);
  }

  Result<HttpResponse> perform(const HttpRequest& req, bool& retryable) override {
    CURL* h = acquire();
    if (!h) return Status::OutOfMemory("cannot create an HTTP handle for ", url_for_message(req.url));
    auto r = run(h, req, retryable);
    release(h);
    return r;
  }

 private:
  CURL* acquire() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return !free_.empty() || created_ < o_.max_connections; });
    if (!free_.empty()) {
      CURL* h = free_.back();
      free_.pop_back();
      return h;
    }
    ++created_;
    lock.unlock();
    CURL* h = curl_easy_init();
    if (!h) {
      std::lock_guard relock(mu_);
      --created_;
      cv_.notify_one();
    }
    return h;
  }
  void release(CURL* h) {
    std::lock_guard lock(mu_);
    free_.push_back(h);
    cv_.notify_one();
  }

  Result<HttpResponse> run(CURL* h, const HttpRequest& req, bool& retryable) {
    // reset() keeps the handle's live connections (keep-alive) and drops the options.
    curl_easy_reset(h);
    HttpResponse resp;
    Transfer t{&req, &resp};
    char err[CURL_ERROR_SIZE] = {};
    curl_slist* headers = nullptr;
    for (const auto& [k, v] : req.headers) headers = curl_slist_append(headers, (k + ": " + v).c_str());
    headers = curl_slist_append(headers, "Expect:");  // no 100-continue round trip on PUT
    curl_easy_setopt(h, CURLOPT_URL, req.url.c_str());
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, err);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(o_.connect_timeout_ms));
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1024L);
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, static_cast<long>(o_.stall_timeout_s));
    curl_easy_setopt(h, CURLOPT_TIMEOUT, static_cast<long>(o_.total_timeout_s));
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &t);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &t);
    if (req.method == "HEAD") {
      curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
    } else if (req.method == "PUT") {
      curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, "PUT");
      curl_easy_setopt(h, CURLOPT_POSTFIELDS, req.body.empty() ? "" : reinterpret_cast<const char*>(req.body.data()));
      curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(req.body.size()));
    } else if (req.method != "GET") {
      curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, req.method.c_str());
    }
    if (req.method == "GET" || req.method == "HEAD") {
      // Public HTTP hosts redirect; signed requests are never redirected by S3 for GET.
      curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
      curl_easy_setopt(h, CURLOPT_MAXREDIRS, 5L);
      curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    }
    const CURLcode rc = curl_easy_perform(h);
    curl_slist_free_all(headers);
    const std::string where = req.method + " " + url_for_message(req.url);
    if (t.too_large) {
      retryable = false;
      return Status::Corrupt(where, ": response of ", t.declared >= 0 ? t.declared : static_cast<int64_t>(resp.body.size()),
                             t.declared >= 0 ? "" : "+", " bytes is larger than the ", req.max_body,
                             " bytes the object can hold");
    }
    if (rc != CURLE_OK) {
      retryable = retryable_code(rc);
      return Status::IOError(where, ": ", err[0] ? err : curl_easy_strerror(rc));
    }
    long code = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
    resp.status = code;
    if (code < 300 && req.method != "HEAD") {
      const auto got = static_cast<int64_t>(resp.body.size());
      if (t.declared >= 0 && got != t.declared) {
        retryable = true;
        return Status::IOError(where, ": body of ", got, " bytes, Content-Length said ", t.declared);
      }
      if (code == 206 && req.expect_body >= 0 && got != req.expect_body) {
        retryable = true;
        return Status::IOError(where, ": range response of ", got, " bytes, expected ", req.expect_body);
      }
    }
    return resp;
  }

  HttpClientOptions o_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<CURL*> free_;
  int created_ = 0;
};

}  // namespace

Result<std::shared_ptr<HttpTransport>> make_curl_transport(const HttpClientOptions& options) {
  static const CURLcode init = curl_global_init(CURL_GLOBAL_DEFAULT);
  if (init != CURLE_OK) return Status::IOError("libcurl initialisation failed: ", curl_easy_strerror(init));
  return std::shared_ptr<HttpTransport>(std::make_shared<CurlTransport>(options));
}

}  // namespace strata::io::remote
