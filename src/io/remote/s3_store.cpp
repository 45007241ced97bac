// s3://bucket/prefix: GET/HEAD/PUT/DELETE and ListObjectsV2, signed with AWS Signature V4 (or
// anonymous), on AWS or an S3-compatible endpoint (AWS_ENDPOINT_URL, path-style).
#include <cstdlib>

#include "io/remote/object_store_internal.hpp"
#include "io/remote/sha256_internal.hpp"
#include "io/remote/sigv4_internal.hpp"

namespace strata::io::remote {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

class S3Store final : public ObjectStore {
 public:
  S3Store(std::shared_ptr<HttpClient> client, std::string base_url, std::string authority, std::string root_path,
          std::string list_path, std::string key_prefix, std::string describe, AwsCredentials creds,
          std::string region)
      : ObjectStore(std::move(client), std::move(base_url), std::move(authority), std::move(root_path),
                    std::move(describe)),
        list_path_(std::move(list_path)),
        key_prefix_(std::move(key_prefix)),
        creds_(std::move(creds)),
        region_(std::move(region)) {
    secrets_ = {creds_.access_key_id, creds_.session_token, creds_.secret_access_key};
  }

  Status set(const std::string& key, std::span<const uint8_t> value) override {
    STRATA_ASSIGN_OR_RETURN(HttpRequest req, object_request("PUT", key));
    req.body = value;
    req.headers.emplace_back("Content-Type", "application/octet-stream");
    STRATA_ASSIGN_OR_RETURN(HttpResponse resp, send(req, root_path_ + "/" + encode_key_path(key), {}));
    if (resp.status != 200 && resp.status != 201 && resp.status != 204) return status_error(req, resp);
    return Status::OK();
  }

  Status erase(const std::string& key) override {
    STRATA_ASSIGN_OR_RETURN(HttpRequest req, object_request("DELETE", key));
    STRATA_ASSIGN_OR_RETURN(HttpResponse resp, send(req, root_path_ + "/" + encode_key_path(key), {}));
    if (resp.status != 200 && resp.status != 204 && resp.status != 404) return status_error(req, resp);
    return Status::OK();
  }

  Result<std::vector<std::string>> list_dir(const std::string& prefix) const override {
    return list_v2(list_path_, key_prefix_, prefix);
  }

 protected:
  Status authorize(HttpRequest& req, const std::string& path,
                   const std::vector<std::pair<std::string, std::string>>& query) const override {
    if (creds_.anonymous()) return Status::OK();
    const std::string date = amz_date_now();
    const std::string payload = to_hex(sha256(req.body));
    req.headers.emplace_back("Host", authority_);
    req.headers.emplace_back("x-amz-date", date);
    req.headers.emplace_back("x-amz-content-sha256", payload);
    if (!creds_.session_token.empty()) req.headers.emplace_back("x-amz-security-token", creds_.session_token);
    SigV4Request s{req.method, path, query, req.headers, payload};
    req.headers.emplace_back("Authorization", sigv4_sign(s, creds_, region_, "s3", date).authorization);
    return Status::OK();
  }

 private:
  std::string list_path_, key_prefix_;
  AwsCredentials creds_;
  std::string region_;
};

}  // namespace

Result<std::shared_ptr<Store>> open_s3_store(const std::string& url, std::shared_ptr<HttpClient> client) {
  STRATA_ASSIGN_OR_RETURN(ParsedUrl u, parse_url(url));
  const std::string bucket = u.authority;
  if (bucket.empty()) return Status::Invalid("'", url, "': no bucket (s3://bucket/prefix)");
  std::string prefix = u.path.empty() ? "" : u.path.substr(1);
  if (!prefix.empty()) STRATA_RETURN_NOT_OK(check_store_prefix(url, prefix));
  AwsCredentials creds{env("AWS_ACCESS_KEY_ID"), env("AWS_SECRET_ACCESS_KEY"), env("AWS_SESSION_TOKEN")};
  std::string region = env("AWS_REGION");
  if (region.empty()) region = env("AWS_DEFAULT_REGION");
  if (region.empty()) region = "us-east-1";
  std::string endpoint = env("AWS_ENDPOINT_URL_S3");
  if (endpoint.empty()) endpoint = env("AWS_ENDPOINT_URL");
  std::string base, authority, bucket_path;
  if (!endpoint.empty()) {
    // S3-compatible services: path-style addressing below the endpoint's own path.
    auto e = parse_url(endpoint);
    if (!e.ok() || (e->scheme != "http" && e->scheme != "https") || e->authority.empty())
      return Status::Invalid("AWS_ENDPOINT_URL '", endpoint, "' is not an http(s):// URL");
    base = e->scheme + "://" + e->authority;
    authority = e->authority;
    bucket_path = e->path + "/" + uri_encode(bucket, false);
  } else if (bucket.find('.') != std::string::npos) {
    // Dotted names do not match the wildcard certificate of virtual-hosted buckets.
    authority = "s3." + region + ".amazonaws.com";
    base = "https://" + authority;
    bucket_path = "/" + uri_encode(bucket, false);
  } else {
    authority = bucket + ".s3." + region + ".amazonaws.com";
    base = "https://" + authority;
  }
  if (!client) {
    STRATA_ASSIGN_OR_RETURN(client, shared_http_client());
  }
  const std::string root = bucket_path + (prefix.empty() ? "" : "/" + encode_key_path(prefix));
  const std::string list_path = bucket_path.empty() ? "/" : bucket_path;
  const std::string key_prefix = prefix.empty() ? "" : prefix + "/";
  return std::shared_ptr<Store>(std::make_shared<S3Store>(client, base, authority, root, list_path, key_prefix,
                                                          "s3://" + bucket + (prefix.empty() ? "" : "/" + prefix),
                                                          std::move(creds), region));
}

}  // namespace strata::io::remote
