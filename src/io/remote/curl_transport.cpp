// HttpTransport on libcurl: a bounded pool of easy handles, each keeping its connection alive
// between requests; TLS peer and host verification stay on. libcurl is loaded with dlopen on
// first use, not linked: its ~27 dependent shared libraries doubled every strata's start-up.
// <curl/curl.h> is for types and constants only; every call goes through CurlApi.
#include <algorithm>
#include <curl/curl.h>
#include <dlfcn.h>

#include <cctype>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <vector>

#include "io/remote/http_client_internal.hpp"

namespace strata::io::remote {
namespace {

// Debian's libcurl3-gnutls (the flavour built against) first, then the OpenSSL libcurl4.
const std::vector<std::string> kCurlLibraries = {"libcurl-gnutls.so.4", "libcurl.so.4"};

struct CurlApi {
  CURLcode (*global_init)(long) = nullptr;
  CURL* (*easy_init)() = nullptr;
  CURLcode (*easy_setopt)(CURL*, CURLoption, ...) = nullptr;
  CURLcode (*easy_perform)(CURL*) = nullptr;
  CURLcode (*easy_getinfo)(CURL*, CURLINFO, ...) = nullptr;
  void (*easy_reset)(CURL*) = nullptr;
  void (*easy_cleanup)(CURL*) = nullptr;
  const char* (*easy_strerror)(CURLcode) = nullptr;
  curl_slist* (*slist_append)(curl_slist*, const char*) = nullptr;
  void (*slist_free_all)(curl_slist*) = nullptr;
};

template <typename F>
bool bind(void* lib, const char* name, F& fn, std::string& missing) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  if (!fn) missing += str_cat(missing.empty() ? "" : ", ", name);
  return fn != nullptr;
}

// Loads the first of `names` that opens and binds every entry point. The handle is never
// closed: easy handles and libcurl's global state live until exit.
Status load_curl(const std::vector<std::string>& names, CurlApi& api) {
  std::string tried;
  for (const auto& name : names) {
    void* lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* e = dlerror();
      tried += str_cat(tried.empty() ? "" : "; ", e ? e : name);
      continue;
    }
    CurlApi a;
    std::string missing;
    bind(lib, "curl_global_init", a.global_init, missing);
    bind(lib, "curl_easy_init", a.easy_init, missing);
    bind(lib, "curl_easy_setopt", a.easy_setopt, missing);
    bind(lib, "curl_easy_perform", a.easy_perform, missing);
    bind(lib, "curl_easy_getinfo", a.easy_getinfo, missing);
    bind(lib, "curl_easy_reset", a.easy_reset, missing);
    bind(lib, "curl_easy_cleanup", a.easy_cleanup, missing);
    bind(lib, "curl_easy_strerror", a.easy_strerror, missing);
    bind(lib, "curl_slist_append", a.slist_append, missing);
    bind(lib, "curl_slist_free_all", a.slist_free_all, missing);
    if (missing.empty()) {
      api = a;
      return Status::OK();
    }
    tried += str_cat(tried.empty() ? "" : "; ", name, " lacks ", missing);
    dlclose(lib);
  }
  std::string files;
  for (const auto& name : names) files += str_cat(files.empty() ? "" : ", ", name);
  return Status::Unsupported("http(s)://, s3:// and gs:// need libcurl at run time, which could not be loaded (tried ",
                             files, ": ", tried, "); install libcurl3-gnutls or libcurl4 (Debian/Ubuntu)");
}

CurlApi g_curl;

// Loaded and initialised once per process; the outcome (either way) is kept.
const Status& curl_ready() {
  static std::once_flag once;
  static Status status;
  std::call_once(once, [] {
    status = load_curl(kCurlLibraries, g_curl);
    if (!status.ok()) return;
    const CURLcode init = g_curl.global_init(CURL_GLOBAL_DEFAULT);
    if (init != CURLE_OK) status = Status::IOError("libcurl initialisation failed: ", g_curl.easy_strerror(init));
  });
  return status;
}

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
    for (CURL* h : free_) g_curl.easy_cleanup(h);
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
    CURL* h = g_curl.easy_init();
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
    g_curl.easy_reset(h);
    HttpResponse resp;
    Transfer t{&req, &resp};
    char err[CURL_ERROR_SIZE] = {};
    curl_slist* headers = nullptr;
    for (const auto& [k, v] : req.headers) headers = g_curl.slist_append(headers, (k + ": " + v).c_str());
    headers = g_curl.slist_append(headers, "Expect:");  // no 100-continue round trip on PUT
    g_curl.easy_setopt(h, CURLOPT_URL, req.url.c_str());
    g_curl.easy_setopt(h, CURLOPT_HTTPHEADER, headers);
    g_curl.easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    g_curl.easy_setopt(h, CURLOPT_ERRORBUFFER, err);
    g_curl.easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
    g_curl.easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
    g_curl.easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    g_curl.easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(o_.connect_timeout_ms));
    g_curl.easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1024L);
    g_curl.easy_setopt(h, CURLOPT_LOW_SPEED_TIME, static_cast<long>(o_.stall_timeout_s));
    const int64_t limit_ms = req.timeout_ms > 0 ? req.timeout_ms : o_.deadline_s * 1000;
    g_curl.easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(std::max<int64_t>(limit_ms, 1)));
    g_curl.easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    g_curl.easy_setopt(h, CURLOPT_HEADERDATA, &t);
    g_curl.easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    g_curl.easy_setopt(h, CURLOPT_WRITEDATA, &t);
    if (req.method == "HEAD") {
      g_curl.easy_setopt(h, CURLOPT_NOBODY, 1L);
    } else if (req.method == "PUT") {
      g_curl.easy_setopt(h, CURLOPT_CUSTOMREQUEST, "PUT");
      g_curl.easy_setopt(h, CURLOPT_POSTFIELDS, req.body.empty() ? "" : reinterpret_cast<const char*>(req.body.data()));
      g_curl.easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(req.body.size()));
    } else if (req.method != "GET") {
      g_curl.easy_setopt(h, CURLOPT_CUSTOMREQUEST, req.method.c_str());
    }
    if (req.method == "GET" || req.method == "HEAD") {
      // Public HTTP hosts redirect; signed requests are never redirected by S3 for GET.
      g_curl.easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
      g_curl.easy_setopt(h, CURLOPT_MAXREDIRS, 5L);
      g_curl.easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    }
    const CURLcode rc = g_curl.easy_perform(h);
    g_curl.slist_free_all(headers);
    const std::string where = req.method + " " + url_for_message(req.url);
    if (t.too_large) {
      retryable = false;
      return Status::Corrupt(where, ": response of ", t.declared >= 0 ? t.declared : static_cast<int64_t>(resp.body.size()),
                             t.declared >= 0 ? "" : "+", " bytes is larger than the ", req.max_body,
                             " bytes the object can hold");
    }
    if (rc != CURLE_OK) {
      retryable = retryable_code(rc);
      return Status::IOError(where, ": ", err[0] ? err : g_curl.easy_strerror(rc));
    }
    long code = 0;
    g_curl.easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
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

Status probe_curl_library(const std::vector<std::string>& names) {
  CurlApi unused;
  return load_curl(names, unused);
}

Result<std::shared_ptr<HttpTransport>> make_curl_transport(const HttpClientOptions& options) {
  STRATA_RETURN_NOT_OK(curl_ready());
  return std::shared_ptr<HttpTransport>(std::make_shared<CurlTransport>(options));
}

}  // namespace strata::io::remote
