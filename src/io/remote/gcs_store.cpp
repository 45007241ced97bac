// gs://bucket/prefix: read-only through Cloud Storage's XML API (S3-style paths and listing),
// anonymous or with a bearer token.
#include <cstdlib>

#include "io/remote/object_store_internal.hpp"
#include "io/remote/sigv4_internal.hpp"

namespace strata::io::remote {
namespace {

class GcsStore final : public ObjectStore {
 public:
  GcsStore(std::shared_ptr<HttpClient> client, std::string base_url, std::string authority, std::string root_path,
           std::string list_path, std::string key_prefix, std::string describe, std::string token)
      : ObjectStore(std::move(client), std::move(base_url), std::move(authority), std::move(root_path),
                    std::move(describe)),
        list_path_(std::move(list_path)),
        key_prefix_(std::move(key_prefix)),
        token_(std::move(token)) {
    secrets_ = {token_};
  }

  Result<std::vector<std::string>> list_dir(const std::string& prefix) const override {
    return list_v2(list_path_, key_prefix_, prefix);
  }

 protected:
  Status authorize(HttpRequest& req, const std::string&,
                   const std::vector<std::pair<std::string, std::string>>&) const override {
    if (!token_.empty()) req.headers.emplace_back("Authorization", "Bearer " + token_);
    return Status::OK();
  }

 private:
  std::string list_path_, key_prefix_, token_;
};

}  // namespace

Result<std::shared_ptr<Store>> open_gcs_store(const std::string& url, std::shared_ptr<HttpClient> client) {
  STRATA_ASSIGN_OR_RETURN(ParsedUrl u, parse_url(url));
  const std::string bucket = u.authority;
  if (bucket.empty()) return Status::Invalid("'", url, "': no bucket (gs://bucket/prefix)");
  std::string prefix = u.path.empty() ? "" : u.path.substr(1);
  if (!prefix.empty()) STRATA_RETURN_NOT_OK(check_store_prefix(url, prefix));
  // STORAGE_EMULATOR_HOST is the variable Google's client libraries honour for emulators.
  std::string endpoint = "https://storage.googleapis.com";
  if (const char* e = std::getenv("STORAGE_EMULATOR_HOST"); e && *e) {
    endpoint = e;
    if (endpoint.find("://") == std::string::npos) endpoint = "http://" + endpoint;
  }
  auto e = parse_url(endpoint);
  if (!e.ok() || (e->scheme != "http" && e->scheme != "https") || e->authority.empty())
    return Status::Invalid("STORAGE_EMULATOR_HOST '", endpoint, "' is not an http(s) address");
  const char* token = std::getenv("GOOGLE_OAUTH_ACCESS_TOKEN");
  if (!client) {
    STRATA_ASSIGN_OR_RETURN(client, shared_http_client());
  }
  const std::string bucket_path = e->path + "/" + uri_encode(bucket, false);
  const std::string root = bucket_path + (prefix.empty() ? "" : "/" + encode_key_path(prefix));
  return std::shared_ptr<Store>(std::make_shared<GcsStore>(
      client, e->scheme + "://" + e->authority, e->authority, root, bucket_path, prefix.empty() ? "" : prefix + "/",
      "gs://" + bucket + (prefix.empty() ? "" : "/" + prefix), token ? token : ""));
}

}  // namespace strata::io::remote
