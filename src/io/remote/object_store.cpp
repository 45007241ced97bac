// ObjectStore: reads (GET, ranged GET, HEAD) over HTTP object URLs; statuses become missing keys
// or messages naming the URL.
#include "io/remote/object_store_internal.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <system_error>
#include <thread>

#include "io/remote/sigv4_internal.hpp"
#include "io/zarr/store_key_internal.hpp"

namespace strata::io::remote {

Result<ParsedUrl> parse_url(const std::string& url) {
  const size_t colon = url.find("://");
  if (colon == std::string::npos || colon == 0) return Status::Invalid("'", url, "' is not a URL (scheme://…)");
  ParsedUrl p;
  p.scheme = url.substr(0, colon);
  for (char& c : p.scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const size_t start = colon + 3;
  const size_t slash = url.find('/', start);
  p.authority = url.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
  p.path = slash == std::string::npos ? "" : url.substr(slash);
  if (p.authority.find('@') != std::string::npos)
    return Status::Invalid(p.scheme, "://…: credentials in the URL are not accepted (use the environment)");
  if (p.path.find_first_of("?#") != std::string::npos)
    return Status::Invalid("'", url, "': a store URL takes no query or fragment");
  while (!p.path.empty() && p.path.back() == '/') p.path.pop_back();
  return p;
}

Status check_store_prefix(const std::string& url, const std::string& prefix) {
  Status st = detail::check_key(prefix, false);
  if (!st.ok()) return Status::Invalid("'", url, "': ", st.message());
  return Status::OK();
}

std::string encode_key_path(const std::string& key) {
  std::string out;
  size_t pos = 0;
  while (pos <= key.size()) {
    size_t slash = key.find('/', pos);
    if (slash == std::string::npos) slash = key.size();
    if (pos) out += '/';
    out += uri_encode(std::string_view(key).substr(pos, slash - pos), false);
    pos = slash + 1;
  }
  return out;
}

ObjectStore::ObjectStore(std::shared_ptr<HttpClient> client, std::string base_url, std::string authority,
                         std::string root_path, std::string describe)
    : client_(std::move(client)),
      base_url_(std::move(base_url)),
      authority_(std::move(authority)),
      root_path_(std::move(root_path)),
      describe_(std::move(describe)) {}

Result<HttpRequest> ObjectStore::object_request(const std::string& method, const std::string& key) const {
  STRATA_RETURN_NOT_OK(detail::check_key(key, false));
  HttpRequest req;
  req.method = method;
  req.url = base_url_ + root_path_ + "/" + encode_key_path(key);
  return req;
}

Status ObjectStore::authorize(HttpRequest&, const std::string&,
                              const std::vector<std::pair<std::string, std::string>>&) const {
  return Status::OK();
}

Result<HttpResponse> ObjectStore::send(HttpRequest& req, const std::string& path,
                                       const std::vector<std::pair<std::string, std::string>>& query) const {
  STRATA_RETURN_NOT_OK(authorize(req, path, query));
  return client_->send(req);
}

Status ObjectStore::status_error(const HttpRequest& req, const HttpResponse& resp) const {
  std::string excerpt = body_excerpt(resp.body);
  for (const std::string& s : secrets_) {
    if (s.empty()) continue;
    for (size_t at; (at = excerpt.find(s)) != std::string::npos;) excerpt.replace(at, s.size(), "***");
  }
  const std::string where = req.method + " " + url_for_message(req.url) + ": HTTP " + std::to_string(resp.status);
  const std::string tail = excerpt.empty() ? "" : ": " + excerpt;
  if (resp.status == 401 || resp.status == 403)
    return Status::IOError(where, " (access denied: check the credentials or the bucket's permissions)", tail);
  return Status::IOError(where, tail);
}

Result<std::optional<Bytes>> ObjectStore::get(const std::string& key) const { return get_at_most(key, -1); }

Result<std::optional<Bytes>> ObjectStore::get_at_most(const std::string& key, int64_t max_bytes) const {
  STRATA_ASSIGN_OR_RETURN(HttpRequest req, object_request("GET", key));
  req.max_body = max_bytes;
  const std::string path = root_path_ + "/" + encode_key_path(key);
  STRATA_ASSIGN_OR_RETURN(HttpResponse resp, send(req, path, {}));
  if (resp.status == 404) return std::optional<Bytes>();
  if (resp.status != 200) return status_error(req, resp);
  return std::optional<Bytes>(std::move(resp.body));
}

Result<std::optional<int64_t>> ObjectStore::size(const std::string& key) const {
  STRATA_ASSIGN_OR_RETURN(HttpRequest req, object_request("HEAD", key));
  STRATA_ASSIGN_OR_RETURN(HttpResponse resp, send(req, root_path_ + "/" + encode_key_path(key), {}));
  if (resp.status == 404) return std::optional<int64_t>();
  if (resp.status != 200) return status_error(req, resp);
  if (resp.content_length < 0)
    return Status::IOError("HEAD ", url_for_message(req.url), ": no Content-Length in the response");
  return std::optional<int64_t>(resp.content_length);
}

Result<bool> ObjectStore::exists(const std::string& key) const {
  STRATA_ASSIGN_OR_RETURN(auto s, size(key));
  return s.has_value();
}

Result<std::optional<Bytes>> ObjectStore::get_range(const std::string& key, int64_t offset, int64_t length) const {
  const std::string what = describe_ + "/" + key;
  // A suffix of unknown length or a bounded slice can be asked directly; the rest needs the size.
  int64_t start = offset, n = length;
  if (offset < 0 && length >= 0 && length != -offset) {
    STRATA_ASSIGN_OR_RETURN(auto sz, size(key));
    if (!sz) return std::optional<Bytes>();
    start = *sz + offset;
    if (start < 0) return Status::Corrupt(what, ": range at offset ", offset, " lies outside the ", *sz, "-byte object");
  }
  if (n == 0) {
    STRATA_ASSIGN_OR_RETURN(auto sz, size(key));
    if (!sz) return std::optional<Bytes>();
    if (start > *sz) return Status::Corrupt(what, ": range at offset ", offset, " lies outside the ", *sz, "-byte object");
    return std::optional<Bytes>(Bytes());
  }
  STRATA_ASSIGN_OR_RETURN(HttpRequest req, object_request("GET", key));
  std::string range;
  if (start < 0) {
    range = "bytes=" + std::to_string(start);  // "bytes=-N": the last N bytes
    n = -start;
  } else if (n < 0) {
    range = "bytes=" + std::to_string(start) + "-";
  } else {
    range = "bytes=" + std::to_string(start) + "-" + std::to_string(start + n - 1);
  }
  req.headers.emplace_back("Range", range);
  req.expect_body = n;
  if (start >= 0 && length < 0) req.expect_body = -1;
  STRATA_ASSIGN_OR_RETURN(HttpResponse resp, send(req, root_path_ + "/" + encode_key_path(key), {}));
  if (resp.status == 404) return std::optional<Bytes>();
  if (resp.status == 416)
    return Status::Corrupt(what, ": range ", range.substr(6), " lies outside the object (HTTP 416)");
  if (resp.status == 200) {
    // The server ignored Range and sent the whole object: take the slice from it.
    const auto total = static_cast<int64_t>(resp.body.size());
    const int64_t s = start < 0 ? total + start : start;
    const int64_t len = length < 0 && start >= 0 ? total - s : n;
    if (s < 0 || len < 0 || s + len > total)
      return Status::Corrupt(what, ": range ", range.substr(6), " runs past the end of the ", total, "-byte object");
    Bytes out(resp.body.begin() + s, resp.body.begin() + s + len);
    return std::optional<Bytes>(std::move(out));
  }
  if (resp.status != 206) return status_error(req, resp);
  if (n >= 0 && static_cast<int64_t>(resp.body.size()) != n)
    return Status::Corrupt(what, ": range ", range.substr(6), " returned ", resp.body.size(), " bytes, expected ", n,
                           " (the object is shorter)");
  return std::optional<Bytes>(std::move(resp.body));
}

std::vector<Result<std::optional<Bytes>>> ObjectStore::get_many(const std::vector<std::string>& keys,
                                                                int64_t max_bytes) const {
  std::vector<Result<std::optional<Bytes>>> out(keys.size(), Result<std::optional<Bytes>>(std::optional<Bytes>()));
  // Blocking requests on the store's kept threads; the client's pool bounds what is in flight.
  std::call_once(fetchers_once_, [&] { fetchers_ = std::make_unique<FetchThreads>(std::max(0, concurrency() - 1)); });
  fetchers_->run(keys.size(), static_cast<size_t>(std::max(1, concurrency())), [&](size_t i) {
    out[i] = get_at_most(keys[i], max_bytes);
  });
  return out;
}

Status ObjectStore::set(const std::string& key, std::span<const uint8_t>) {
  return Status::Unsupported(describe_, ": this store is read-only (cannot write '", key, "')");
}

Status ObjectStore::erase(const std::string& key) {
  return Status::Unsupported(describe_, ": this store is read-only (cannot remove '", key, "')");
}

Result<std::vector<std::string>> ObjectStore::list_dir(const std::string& prefix) const {
  return Status::Unsupported(describe_, ": plain HTTP cannot list '", prefix.empty() ? "/" : prefix,
                             "' (open a store with consolidated metadata, or name the array in the URL)");
}

Result<std::vector<std::string>> ObjectStore::list_v2(const std::string& list_path, const std::string& key_prefix,
                                                      const std::string& prefix) const {
  STRATA_RETURN_NOT_OK(detail::check_key(prefix, true));
  const std::string listed = key_prefix + prefix + (prefix.empty() ? "" : "/");
  std::vector<std::string> names;
  std::string token;
  for (int page = 0; page < 100'000; ++page) {
    std::vector<std::pair<std::string, std::string>> query = {
        {"list-type", "2"}, {"prefix", listed}, {"delimiter", "/"}};
    if (!token.empty()) query.emplace_back("continuation-token", token);
    std::string q;
    for (const auto& [k, v] : query) {
      q.push_back(q.empty() ? '?' : '&');
      q.append(uri_encode(k, false)).append("=").append(uri_encode(v, false));
    }
    HttpRequest req;
    req.url = base_url_ + list_path + q;
    req.max_body = 64 << 20;
    STRATA_ASSIGN_OR_RETURN(HttpResponse resp, send(req, list_path, query));
    if (resp.status == 404) return Status::NotFound(describe_, ": the bucket does not exist (HTTP 404 on listing)");
    if (resp.status != 200) return status_error(req, resp);
    std::string next;
    STRATA_RETURN_NOT_OK(parse_list_v2(
        std::string_view(reinterpret_cast<const char*>(resp.body.data()), resp.body.size()), listed, names, next));
    if (next.empty()) break;
    token = std::move(next);
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

}  // namespace strata::io::remote
