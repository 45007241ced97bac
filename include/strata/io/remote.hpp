#pragma once
/// \file
/// Zarr stores over the network, and the one function that turns a path or URL into a Store.
///
/// - `http://host/path`, `https://…`: read-only (GET, ranged GET, HEAD); no listing, so
///   hierarchies need consolidated metadata (or a path naming the array) to be walked.
/// - `s3://bucket/prefix`: read and write (GET, PUT, DELETE, ListObjectsV2), signed with AWS
///   Signature V4 from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN, region from
///   AWS_REGION (else AWS_DEFAULT_REGION, else us-east-1), anonymous without a key. Endpoint:
///   AWS_ENDPOINT_URL (S3-compatible services, path-style), else AWS's virtual-hosted endpoint.
/// - `gs://bucket/prefix`: read-only through GCS's XML API (storage.googleapis.com, or
///   STORAGE_EMULATOR_HOST), anonymous or with a bearer token from GOOGLE_OAUTH_ACCESS_TOKEN.
///
/// Missing objects (404) are missing keys, so Zarr reads fill values. Failed requests are
/// retried with backoff on dropped connections, timeouts, truncated bodies, 5xx and 429; other
/// statuses fail with the URL, the status and an excerpt of the body. Credentials never appear
/// in messages; keys cannot leave the prefix (".." and "." components are refused, the rest is
/// percent-encoded). TLS verification is always on.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "strata/core/result.hpp"
#include "strata/io/store.hpp"

namespace strata::io {

/// \brief Whether `path` names a remote store (http://, https://, s3://, gs://).
bool is_remote_url(std::string_view path);

/// \brief A Store and the node path inside it that a path or URL names.
struct StoreLocation {
  std::shared_ptr<Store> store;
  std::string node_path;
};

/// \brief Open the Zarr hierarchy holding `path_or_url` ("cohort.vcz/call_genotype",
/// "s3://bucket/cohort.vcz"). Local paths resolve as resolve_zarr_location() does. For URLs the
/// store root is the URL itself unless it names a node below a hierarchy whose root is found
/// by climbing; consolidated metadata (v2 `.zmetadata`, v3 inline) is fetched once and answers
/// every metadata read, so opening a VCF Zarr store costs one request. Read-only view.
Result<StoreLocation> open_zarr_location(const std::string& path_or_url);

/// \brief The store at `path_or_url` itself, writable where the scheme allows (local, s3);
/// `create` makes a local directory. No metadata caching.
Result<std::shared_ptr<Store>> open_store(const std::string& path_or_url, bool create = false);

/// \brief Traffic of every remote store in this process so far (a process-wide tally, like
/// peak RSS: stores are opened in places that have no Context). `wait_seconds` sums the
/// duration of each request, so concurrent requests overlap in it.
struct NetworkCounters {
  int64_t requests = 0;  ///< HTTP attempts, retries included
  int64_t retries = 0;
  int64_t bytes_received = 0;
  int64_t bytes_sent = 0;
  double wait_seconds = 0.0;
  int64_t prefetched = 0;           ///< objects fetched ahead of their read (Store::prefetch)
  int64_t prefetch_hits = 0;        ///< reads answered by an object fetched ahead (or in flight)
  int64_t prefetch_peak_bytes = 0;  ///< most bytes held or in flight ahead of reads at once
};
NetworkCounters network_counters();

}  // namespace strata::io
