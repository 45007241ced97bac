#pragma once
// ObjectStore: a Store over HTTP object URLs (base for the http, s3 and gs stores). Keys map to
// base_url + root_path + "/" + percent-encoded key; subclasses add authorization, writes and
// listing.

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "io/remote/fetch_threads_internal.hpp"
#include "io/remote/http_client_internal.hpp"
#include "strata/io/store.hpp"

namespace strata::io::remote {

/// scheme://authority/path split; `path` keeps its leading '/' (raw, not decoded).
struct ParsedUrl {
  std::string scheme;     ///< lower case
  std::string authority;  ///< host[:port]
  std::string path;
};
Result<ParsedUrl> parse_url(const std::string& url);

/// The prefix part of a store URL, checked like a key (no "..", ".", empty parts).
Status check_store_prefix(const std::string& url, const std::string& prefix);

/// Each '/'-separated part percent-encoded, the slashes kept.
std::string encode_key_path(const std::string& key);

class ObjectStore : public Store {
 public:
  Result<std::optional<Bytes>> get(const std::string& key) const override;
  Result<std::optional<Bytes>> get_at_most(const std::string& key, int64_t max_bytes) const override;
  Result<std::optional<Bytes>> get_range(const std::string& key, int64_t offset, int64_t length) const override;
  Result<std::optional<int64_t>> size(const std::string& key) const override;
  Result<bool> exists(const std::string& key) const override;
  Status set(const std::string& key, std::span<const uint8_t> value) override;
  Status erase(const std::string& key) override;
  Result<std::vector<std::string>> list_dir(const std::string& prefix) const override;
  std::string describe() const override { return describe_; }
  std::vector<Result<std::optional<Bytes>>> get_many(const std::vector<std::string>& keys,
                                                     int64_t max_bytes) const override;
  int concurrency() const override { return client_->max_in_flight(); }

 protected:
  /// `base_url` = scheme://authority; `root_path` = encoded path of the store's prefix ("" or
  /// "/bucket/pre/fix", no trailing '/'); `describe` names the store in messages.
  ObjectStore(std::shared_ptr<HttpClient> client, std::string base_url, std::string authority,
              std::string root_path, std::string describe);

  /// A request for an object below the root (key checked, encoded).
  Result<HttpRequest> object_request(const std::string& method, const std::string& key) const;
  /// Sign/authorize and send; `path` is the encoded URL path, `query` the raw parameters.
  Result<HttpResponse> send(HttpRequest& req, const std::string& path,
                            const std::vector<std::pair<std::string, std::string>>& query) const;
  /// Adds credentials to a request (nothing for anonymous access).
  virtual Status authorize(HttpRequest& req, const std::string& path,
                           const std::vector<std::pair<std::string, std::string>>& query) const;
  /// The failure for an unexpected status: URL, status, body excerpt (secrets masked).
  Status status_error(const HttpRequest& req, const HttpResponse& resp) const;
  /// Children of `prefix` through an S3-style ListObjectsV2 (XML) under `list_path` with the
  /// object-key prefix `key_prefix` ("" or "pre/fix/").
  Result<std::vector<std::string>> list_v2(const std::string& list_path, const std::string& key_prefix,
                                           const std::string& prefix) const;

  std::shared_ptr<HttpClient> client_;
  std::string base_url_, authority_, root_path_, describe_;
  std::vector<std::string> secrets_;  ///< masked wherever a message could show them

 private:
  mutable std::once_flag fetchers_once_;
  mutable std::unique_ptr<FetchThreads> fetchers_;  ///< get_many's threads, started on first use
};

/// Stores by scheme (http_store.cpp, s3_store.cpp, gcs_store.cpp) on the given client (tests
/// pass one with a scripted transport; null = shared_http_client()).
Result<std::shared_ptr<Store>> open_http_store(const std::string& url, std::shared_ptr<HttpClient> client = nullptr);
Result<std::shared_ptr<Store>> open_s3_store(const std::string& url, std::shared_ptr<HttpClient> client = nullptr);
Result<std::shared_ptr<Store>> open_gcs_store(const std::string& url, std::shared_ptr<HttpClient> client = nullptr);

/// The children named by a ListObjectsV2 XML page (keys and common prefixes relative to
/// `listed_prefix`), and the continuation token ("" when the listing is complete).
Status parse_list_v2(std::string_view xml, const std::string& listed_prefix, std::vector<std::string>& names,
                     std::string& next_token);

}  // namespace strata::io::remote
