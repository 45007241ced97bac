// The remote stores on a scripted transport: URL building, statuses, retries, signing, secrets
// kept out of messages, keys kept inside the prefix, listing pages.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <deque>
#include <mutex>

#include "io/remote/object_store_internal.hpp"
#include "strata/core/config.hpp"
#include "strata/io/remote.hpp"
#include "testing/testing.hpp"

namespace strata::io::remote {
namespace {

struct Scripted {
  long status = 200;
  std::string body;
  bool fail = false;  ///< a transport failure instead of a response
  bool retryable = true;
};

class FakeTransport : public HttpTransport {
 public:
  std::deque<Scripted> script;
  std::vector<HttpRequest> seen;
  Result<HttpResponse> perform(const HttpRequest& req, bool& retryable) override {
    std::lock_guard lock(mu_);
    seen.push_back(req);
    Scripted s = script.empty() ? Scripted{404, ""} : script.front();
    if (!script.empty()) script.pop_front();
    if (s.fail) {
      retryable = s.retryable;
      return Status::IOError(req.method, " ", url_for_message(req.url), ": connection dropped");
    }
    HttpResponse r;
    r.status = s.status;
    r.body.assign(s.body.begin(), s.body.end());
    r.content_length = static_cast<int64_t>(s.body.size());
    return r;
  }
  std::string header(size_t i, const std::string& name) const {
    for (const auto& [k, v] : seen.at(i).headers)
      if (k == name) return v;
    return "";
  }

 private:
  std::mutex mu_;
};

struct Fixture {
  std::shared_ptr<FakeTransport> t = std::make_shared<FakeTransport>();
  std::shared_ptr<HttpClient> client;
  Fixture() {
    HttpClientOptions o;
    o.backoff_initial_ms = 1;
    o.backoff_max_ms = 2;
    o.max_attempts = 3;
    client = std::make_shared<HttpClient>(t, o);
  }
};

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    if (value) ::setenv(name, value, 1);
    else ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (had_) ::setenv(name_.c_str(), old_.c_str(), 1);
    else ::unsetenv(name_.c_str());
  }

 private:
  std::string name_, old_;
  bool had_ = false;
};

TEST(RemoteStore, HttpGetRangeMissingAndErrors) {
  Fixture f;
  STRATA_ASSERT_OK_AND_ASSIGN(auto store, open_http_store("http://127.0.0.1:8000/data/x.zarr/", f.client));
  EXPECT_EQ(store->describe(), "http://127.0.0.1:8000/data/x.zarr");
  f.t->script = {{200, "abc"}, {404, ""}, {206, "bc"}, {403, "<Error>denied</Error>"}};
  STRATA_ASSERT_OK_AND_ASSIGN(auto v, store->get("a b/.zarray"));
  ASSERT_TRUE(v);
  EXPECT_EQ(std::string(v->begin(), v->end()), "abc");
  EXPECT_EQ(f.t->seen[0].url, "http://127.0.0.1:8000/data/x.zarr/a%20b/.zarray");
  STRATA_ASSERT_OK_AND_ASSIGN(auto missing, store->get("c/0.0"));
  EXPECT_FALSE(missing);  // 404 is a missing key: Zarr reads the fill value
  STRATA_ASSERT_OK_AND_ASSIGN(auto part, store->get_range("c/0.0", 1, 2));
  ASSERT_TRUE(part);
  EXPECT_EQ(f.t->header(2, "Range"), "bytes=1-2");
  EXPECT_EQ(f.t->seen[2].expect_body, 2);
  STRATA_EXPECT_STATUS(store->get("c/1.0"), StatusCode::IOError,
                       "GET http://127.0.0.1:8000/data/x.zarr/c/1.0: HTTP 403.*access denied.*<Error>denied</Error>");
  STRATA_EXPECT_STATUS(store->set("k", {}), StatusCode::Unsupported, "read-only");
  STRATA_EXPECT_STATUS(store->list_dir(""), StatusCode::Unsupported, "cannot list");
}

TEST(RemoteStore, KeysNeverLeaveThePrefix) {
  Fixture f;
  STRATA_ASSERT_OK_AND_ASSIGN(auto store, open_http_store("https://h/p", f.client));
  for (const char* bad : {"../x", "a/../../x", "/etc/passwd", "a//b", "./a"})
    STRATA_EXPECT_STATUS(store->get(bad), StatusCode::Invalid, "store key");
  EXPECT_TRUE(f.t->seen.empty());
  f.t->script = {{200, "x"}, {200, "y"}};
  STRATA_EXPECT_OK(store->get("%2e%2e/x?y#z"));
  EXPECT_EQ(f.t->seen[0].url, "https://h/p/%252e%252e/x%3Fy%23z");
  EXPECT_FALSE(open_http_store("http://user:pw@h/p", f.client).ok());
  EXPECT_FALSE(open_s3_store("s3://bucket/a/../b", f.client).ok());
}

TEST(RemoteStore, RetriesThenSucceedsOrGivesUp) {
  Fixture f;
  STRATA_ASSERT_OK_AND_ASSIGN(auto store, open_http_store("http://h/p", f.client));
  f.t->script = {{500, "busy"}, {Scripted{0, "", true}}, {200, "ok"}};
  STRATA_ASSERT_OK_AND_ASSIGN(auto v, store->get("k"));
  ASSERT_TRUE(v);
  EXPECT_EQ(std::string(v->begin(), v->end()), "ok");
  EXPECT_EQ(f.t->seen.size(), 3u);
  f.t->seen.clear();
  f.t->script = {{503, "a"}, {503, "b"}, {503, "c"}, {200, "never"}};
  STRATA_EXPECT_STATUS(store->get("k"), StatusCode::IOError, "HTTP 503: c \\(gave up after 3 attempts\\)");
  f.t->seen.clear();
  f.t->script = {{Scripted{0, "", true, false}}, {200, "never"}};
  STRATA_EXPECT_STATUS(store->get("k"), StatusCode::IOError, "connection dropped");
  EXPECT_EQ(f.t->seen.size(), 1u);  // final failures are not retried
}

TEST(RemoteStore, S3SignsWithoutLeakingSecrets) {
  ScopedEnv a("AWS_ACCESS_KEY_ID", "AKIDTESTKEY"), b("AWS_SECRET_ACCESS_KEY", "SECRETSECRET"),
      c("AWS_SESSION_TOKEN", "TOKENTOKEN"), d("AWS_REGION", "eu-west-1"),
      e("AWS_ENDPOINT_URL", "http://127.0.0.1:9000"), g("AWS_ENDPOINT_URL_S3", nullptr);
  Fixture f;
  STRATA_ASSERT_OK_AND_ASSIGN(auto store, open_s3_store("s3://bkt/pre fix", f.client));
  f.t->script = {{200, "v"}, {403, "<Error><AWSAccessKeyId>AKIDTESTKEY</AWSAccessKeyId></Error>"}, {200, ""}};
  STRATA_EXPECT_OK(store->get("a/.zarray"));
  EXPECT_EQ(f.t->seen[0].url, "http://127.0.0.1:9000/bkt/pre%20fix/a/.zarray");
  const std::string auth = f.t->header(0, "Authorization");
  EXPECT_THAT(auth, ::testing::StartsWith("AWS4-HMAC-SHA256 Credential=AKIDTESTKEY/"));
  EXPECT_THAT(auth, ::testing::HasSubstr("/eu-west-1/s3/aws4_request"));
  EXPECT_THAT(auth, ::testing::Not(::testing::HasSubstr("SECRETSECRET")));
  EXPECT_EQ(f.t->header(0, "x-amz-security-token"), "TOKENTOKEN");
  EXPECT_EQ(f.t->header(0, "Host"), "127.0.0.1:9000");
  auto err = store->get("b");
  ASSERT_FALSE(err.ok());
  EXPECT_THAT(err.status().message(), ::testing::Not(::testing::HasSubstr("AKIDTESTKEY")));
  EXPECT_THAT(err.status().message(), ::testing::HasSubstr("HTTP 403"));
  const std::string payload = "hello";
  STRATA_EXPECT_OK(store->set("c/0", std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(payload.data()), 5)));
  EXPECT_EQ(f.t->seen[2].method, "PUT");
  EXPECT_EQ(f.t->header(2, "x-amz-content-sha256"),
            "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824");
}

TEST(RemoteStore, S3AnonymousAndVirtualHosted) {
  ScopedEnv a("AWS_ACCESS_KEY_ID", nullptr), b("AWS_SECRET_ACCESS_KEY", nullptr), d("AWS_REGION", "us-west-2"),
      e("AWS_ENDPOINT_URL", nullptr), g("AWS_ENDPOINT_URL_S3", nullptr);
  Fixture f;
  STRATA_ASSERT_OK_AND_ASSIGN(auto store, open_s3_store("s3://bkt/p", f.client));
  f.t->script = {{200, "v"}};
  STRATA_EXPECT_OK(store->get("k"));
  EXPECT_EQ(f.t->seen[0].url, "https://bkt.s3.us-west-2.amazonaws.com/p/k");
  EXPECT_EQ(f.t->header(0, "Authorization"), "");
}

TEST(RemoteStore, ListingPagesAndGcsToken) {
  ScopedEnv tok("GOOGLE_OAUTH_ACCESS_TOKEN", "ya29.secret"), emu("STORAGE_EMULATOR_HOST", "127.0.0.1:4443");
  Fixture f;
  STRATA_ASSERT_OK_AND_ASSIGN(auto store, open_gcs_store("gs://bkt/root", f.client));
  f.t->script = {
      {200,
       "<ListBucketResult><IsTruncated>true</IsTruncated><NextContinuationToken>t&amp;1</NextContinuationToken>"
       "<Contents><Key>root/g/.zgroup</Key></Contents><CommonPrefixes><Prefix>root/g/a/</Prefix></CommonPrefixes>"
       "</ListBucketResult>"},
      {200, "<ListBucketResult><IsTruncated>false</IsTruncated><Contents><Key>root/g/b&amp;c</Key></Contents>"
            "</ListBucketResult>"}};
  STRATA_ASSERT_OK_AND_ASSIGN(auto names, store->list_dir("g"));
  EXPECT_EQ(names, (std::vector<std::string>{".zgroup", "a", "b&c"}));
  EXPECT_EQ(f.t->seen[0].url, "http://127.0.0.1:4443/bkt?list-type=2&prefix=root%2Fg%2F&delimiter=%2F");
  EXPECT_THAT(f.t->seen[1].url, ::testing::HasSubstr("continuation-token=t%261"));
  EXPECT_EQ(f.t->header(0, "Authorization"), "Bearer ya29.secret");
  STRATA_EXPECT_STATUS(store->set("x", {}), StatusCode::Unsupported, "read-only");
}

TEST(RemoteStore, UrlSchemes) {
  for (const char* url : {"s3://b/p", "gs://b", "http://h/x", "HTTPS://h/x", "gcs://b/p"})
    EXPECT_TRUE(is_remote_url(url)) << url;
  for (const char* path : {"cohort.vcz", "/data/s3://x", "./a://b", "3s://x", "://x", "s 3://x"})
    EXPECT_FALSE(is_remote_url(path)) << path;
  STRATA_EXPECT_STATUS(open_store("ftp://h/x"), StatusCode::Unsupported, "unknown URL scheme 'ftp'");
}

#if STRATA_HAVE_CURL
// A machine without libcurl's runtime package gets Unsupported naming what to install, not a crash.
TEST(RemoteStore, CurlLoadedAtRunTime) {
  STRATA_EXPECT_STATUS(probe_curl_library({"libstrata-no-such-curl.so.4"}), StatusCode::Unsupported,
                       "tried libstrata-no-such-curl.so.4");
  STRATA_EXPECT_STATUS(probe_curl_library({"libstrata-no-such-curl.so.4"}), StatusCode::Unsupported,
                       "install libcurl3-gnutls or libcurl4");
  // A library that opens but is not libcurl is skipped for the next name.
  STRATA_EXPECT_STATUS(probe_curl_library({"libz.so.1"}), StatusCode::Unsupported, "libz.so.1 lacks curl_global_init");
  STRATA_EXPECT_OK(probe_curl_library({"libstrata-no-such-curl.so.4", "libcurl-gnutls.so.4", "libcurl.so.4"}));
}
#endif

}  // namespace
}  // namespace strata::io::remote
