// http(s)://host/path: read-only, anonymous; no listing (plain HTTP has none).
#include "io/remote/object_store_internal.hpp"

namespace strata::io::remote {
namespace {

class HttpStore final : public ObjectStore {
 public:
  using ObjectStore::ObjectStore;
  bool can_list() const override { return false; }
  static std::shared_ptr<HttpStore> make(std::shared_ptr<HttpClient> c, std::string base, std::string authority,
                                         std::string root, std::string describe) {
    return std::shared_ptr<HttpStore>(
        new HttpStore(std::move(c), std::move(base), std::move(authority), std::move(root), std::move(describe)));
  }
};

}  // namespace

Result<std::shared_ptr<Store>> open_http_store(const std::string& url, std::shared_ptr<HttpClient> client) {
  STRATA_ASSIGN_OR_RETURN(ParsedUrl u, parse_url(url));
  if (u.authority.empty()) return Status::Invalid("'", url, "': no host");
  // The path is used as given (the URL's own encoding); keys below it are encoded here.
  for (char c : u.path)
    if (static_cast<unsigned char>(c) <= 32 || c == '\\')
      return Status::Invalid("'", url, "': the path has a space or control character (percent-encode it)");
  if (!client) {
    STRATA_ASSIGN_OR_RETURN(client, shared_http_client());
  }
  return std::shared_ptr<Store>(
      HttpStore::make(client, u.scheme + "://" + u.authority, u.authority, u.path, u.scheme + "://" + u.authority + u.path));
}

}  // namespace strata::io::remote
